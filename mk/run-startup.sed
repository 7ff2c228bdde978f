# SPDX-License-Identifier: MIT
#
# startup.nsh -> the \startup.nsh of the image "make run" boots (made anew
# for every run).  The UEFI shell runs it only when the application
# returned to the boot manager (its options refused, or --end=return):
# the run of this boot has then already happened, and \PTLAB.TXT, which
# every run writes (a refused one too), is on the fresh image.  So the
# script runs the application only when there is no \PTLAB.TXT; otherwise
# it says why and leaves (the Makefile turns "exit /b" into "reset -s"
# when make run ends the machine).
/BOOTX64\.EFI --end=return/i\
    if exist \\PTLAB.TXT then\
      echo "ptlab: \\PTLAB.TXT is there: this boot's run has ended, not run again"\
      exit /b\
    endif
