@echo -off
# ptlab: run the application from whichever volume holds it.
for %i in 0 1 2 3 4 5 6 7 8 9
  if exist fs%i:\EFI\BOOT\BOOTX64.EFI then
    fs%i:
    \EFI\BOOT\BOOTX64.EFI --end=return
    exit /b
  endif
endfor
echo "ptlab: \EFI\BOOT\BOOTX64.EFI not found on fs0: .. fs9:"
