#!/bin/bash
# SPDX-License-Identifier: MIT
#
# GRUB (grub-mkstandalone) and systemd-boot start the Linux entry that
# "make install-esp KERNEL=... CMDLINE=..." wrote, with Debian's cloud
# kernel: ptlab gets its hand-off options from the menu's entry, its report
# passes, it hands over, and the kernel has the entry's command line byte
# for byte and runs to its panic for want of a root (panic=-1 and
# -no-reboot end QEMU).  (tests/boot/menus.sh boots ptlab's own entries.)
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init menu-linux

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KERNEL=$(debian_kernel)
need_files "package linux-image-cloud-amd64" "$KERNEL"
REF_TIMEOUT=${LINUXREF_TIMEOUT:-420}

SDBOOT=${SDBOOT:-/usr/lib/systemd/boot/efi/systemd-bootx64.efi}
GRUB_MODULES="part_gpt fat chain echo halt search search_fs_file configfile normal test"
MENU_CMDLINE='console=ttyS0 panic=-1 no_timer_check ptlab.menu="from a menu"'
ESP=/ptlab-esp-$$-$RANDOM
esp=$BOOT_DIR/esp
menus=
if (cd "$ROOT" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s install-esp \
	BUILD="$PTLAB_BUILD" DEPS_CHECK=0 ESP="$ESP" DESTDIR="$esp" KERNEL="$KERNEL" \
	CMDLINE="$MENU_CMDLINE" MENU_ARGS="--iterations=2000${BOOT_DEVIATIONS:+ --known-deviation=$BOOT_DEVIATIONS}") >"$BOOT_DIR/install.out" 2>&1; then
	pass "menus: make install-esp KERNEL=... CMDLINE=... wrote its entries"
	menus="grub sdboot"
else
	fail "menus: make install-esp KERNEL=... failed: $(tr '\n' ' ' <"$BOOT_DIR/install.out")"
fi
for menu in $menus; do
	tree=$BOOT_DIR/$menu
	cp -r "$esp$ESP" "$tree"
	mkdir -p "$tree/EFI/BOOT"
	if [ "$menu" = grub ]; then
		# the standalone GRUB finds the ESP that holds ptlab and reads its
		# grub.cfg: the entry update-grub takes from 40_custom
		printf 'search --no-floppy --file --set=root /EFI/ptlab/ptlab.efi\nconfigfile ($root)/boot/grub/grub.cfg\n' \
			>"$BOOT_DIR/embed.cfg"
		grub-mkstandalone -O x86_64-efi -o "$tree/EFI/BOOT/BOOTX64.EFI" \
			--install-modules="$GRUB_MODULES" --modules="$GRUB_MODULES" --locales= --fonts= \
			--themes= "boot/grub/grub.cfg=$BOOT_DIR/embed.cfg" >"$BOOT_DIR/grub.out" 2>&1 ||
			fail "menus: grub-mkstandalone: $(tr '\n' ' ' <"$BOOT_DIR/grub.out")"
		# /etc/grub.d/40_custom prints what follows its own first lines
		mkdir -p "$tree/boot/grub"
		cat /etc/grub.d/40_custom "$tree/EFI/ptlab/grub.40_custom" >"$BOOT_DIR/40_custom"
		{
			printf 'set timeout=0\nset default=0\n'
			sh "$BOOT_DIR/40_custom"
		} >"$tree/boot/grub/grub.cfg"
		grep -q '^menuentry ' "$tree/boot/grub/grub.cfg" ||
			fail "menus: no menuentry in the GRUB menu made from 40_custom"
	else
		mkdir -p "$tree/loader/entries"
		cp "$SDBOOT" "$tree/EFI/BOOT/BOOTX64.EFI"
		cp "$tree/EFI/ptlab/ptlab.conf" "$tree/loader/entries/ptlab.conf"
		printf 'default ptlab.conf\ntimeout 0\n' >"$tree/loader/loader.conf"
	fi
	"$ROOT/mk/image.sh" --tree "$BOOT_DIR/$menu.img" "$tree"
	boot_bg "$menu" --img "$BOOT_DIR/$menu.img" --log "$BOOT_DIR/$menu.log" --mem 1G \
		--timeout "$REF_TIMEOUT"
done

boot_wait

for menu in $menus; do
	boot_result "$menu"
	st=$?
	check_status "$st" 0 "$menu: QEMU ended with the kernel's panic (panic=-1, -no-reboot)"
	check_log '^# options: .* mode=handoff .* kernel=\\EFI\\ptlab\\linux\\vmlinuz-[^ ]* initrd=none .* from=boot-manager$' \
		"$BOOT_LOG" "$menu: ptlab got the entry's hand-off options from the boot manager"
	check_report "$BOOT_LOG" "$menu" nofile
	check_log '^ptlab: handing over to Linux$' "$BOOT_LOG" "$menu: ptlab handed over"
	check_cmdline "$BOOT_LOG" "$MENU_CMDLINE" "$menu: the kernel's command line is the entry's CMDLINE byte for byte"
	check_log 'Kernel panic - not syncing: VFS: Unable to mount root fs' "$BOOT_LOG" \
		"$menu: the kernel ran to its panic for a root file system"
done


boot_done
