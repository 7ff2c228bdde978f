#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Boot menus: ptlab started from GRUB and from systemd-boot (Debian's own
# builds), with the entries "make install-esp" writes.  "make install-esp"
# into a scratch DESTDIR writes exactly the application and its two entries
# there and nothing on the host.  Each entry's options are installed with
# MENU_ARGS, the ESP is laid out as docs/firmware.md says (the GRUB entry through
# /etc/grub.d/40_custom, the systemd-boot entry in loader/entries/) and
# booted:
#   - firmware mode: ptlab runs with the menu's options (the "# options:"
#     line, from=boot-manager), passes, returns, and the menu goes on: GRUB
#     to its next entry (a marker it prints, then halt), systemd-boot to its
#     menu, from which a second ptlab entry is chosen (its report names the
#     first run of the same boot);
#   - hand-off mode: ptlab cannot return (boot services are gone, and the
#     menu with them); it ends the machine itself (--end defaults to
#     shutdown) and the next entry never runs;
#   - a typo in the menu's options (a quoted value holding a blank and an
#     escaped quote, which both menus must pass as written): refused on
#     the console (ConOut, which OVMF mirrors to the serial port) with a
#     prompt that waits for a key before control goes back to the menu;
#     the key is pressed, and the menu goes on.
. "$(dirname "$0")/lib.sh"
boot_init menus

root=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
APP=$PTLAB_BUILD/ptlab.efi
SDBOOT=${SDBOOT:-/usr/lib/systemd/boot/efi/systemd-bootx64.efi}
GRUB_MODULES="part_gpt fat chain echo halt search search_fs_file configfile normal test"
# an ESP path that no host has: install-esp must not create it
ESP=/ptlab-esp-$$-$RANDOM
MARKER='ptlab-menus: GRUB ran its next entry'

for f in "$APP" "$SDBOOT" /etc/grub.d/40_custom; do
	[ -f "$f" ] || { fail "missing $f (make all; packages grub-common, systemd-boot-efi)"; boot_done; exit; }
done
command -v grub-mkstandalone >/dev/null ||
	{ fail "grub-mkstandalone missing (packages grub-efi-amd64-bin, grub-common)"; boot_done; exit; }

# ---- make install-esp into scratch directories ----

# install TAG MENU_ARGS: make install-esp ESP=$ESP DESTDIR=$BOOT_DIR/TAG/dest
install_esp()
{
	local tag=$1 args=$2 dest=$BOOT_DIR/$1/dest got want
	mkdir -p "$BOOT_DIR/$tag"
	if make -s -C "$root" install-esp BUILD="$PTLAB_BUILD" DEPS_CHECK=0 ESP="$ESP" \
		DESTDIR="$dest" MENU_ARGS="$args" >"$BOOT_DIR/$tag/install.out" 2>&1; then
		pass "$tag: make install-esp ESP=$ESP DESTDIR=... MENU_ARGS='$args'"
	else
		fail "$tag: make install-esp failed: $(tr '\n' ' ' <"$BOOT_DIR/$tag/install.out")"
	fi
	got=$(cd "$dest" 2>/dev/null && find . -type f | sort | tr '\n' ' ')
	want=$(printf './%s\n' "${ESP#/}/EFI/ptlab/grub.40_custom" "${ESP#/}/EFI/ptlab/ptlab.conf" \
		"${ESP#/}/EFI/ptlab/ptlab.efi" | sort | tr '\n' ' ')
	if [ "$got" = "$want" ]; then
		pass "$tag: exactly the application and its two entries, below DESTDIR"
	else
		fail "$tag: installed '$got', expected '$want'"
	fi
	if cmp -s "$APP" "$dest$ESP/EFI/ptlab/ptlab.efi"; then
		pass "$tag: EFI/ptlab/ptlab.efi is the build's ptlab.efi"
	else
		fail "$tag: EFI/ptlab/ptlab.efi differs from $APP"
	fi
}

# entry_check TAG ARGS: both entries start the installed file with ARGS
entry_check()
{
	local tag=$1 args=$2 dir=$BOOT_DIR/$1/dest$ESP efi opts line
	efi=$(sed -n 's/^efi  *//p' "$dir/EFI/ptlab/ptlab.conf")
	opts=$(sed -n 's/^options  *//p' "$dir/EFI/ptlab/ptlab.conf")
	if [ -n "$efi" ] && [ -f "$dir$efi" ] && cmp -s "$dir$efi" "$APP" && [ "$opts" = "$args" ]; then
		pass "$tag: systemd-boot entry: efi $efi (the installed file), options '$opts'"
	else
		fail "$tag: systemd-boot entry: efi '$efi', options '$opts' (want '$args')"
	fi
	# what update-grub takes from /etc/grub.d/40_custom with the snippet appended
	cat /etc/grub.d/40_custom "$dir/EFI/ptlab/grub.40_custom" >"$BOOT_DIR/$tag/40_custom"
	sh "$BOOT_DIR/$tag/40_custom" >"$BOOT_DIR/$tag/grub-entry.cfg"
	# its words as GRUB's script reads them (quotes as in sh): the file and
	# ARGS as one word, which chainloader passes as it is
	line=$(python3 -c 'import shlex, sys
for l in open(sys.argv[1]):
    w = shlex.split(l)
    if w and w[0] == "chainloader":
        print("\n".join(w[1:]))' "$BOOT_DIR/$tag/grub-entry.cfg")
	if [ -f "$dir${line%%$'\n'*}" ] && [ "${line#*$'\n'}" = "$args" ] &&
	   grep -q '^menuentry ' "$BOOT_DIR/$tag/grub-entry.cfg"; then
		pass "$tag: GRUB entry through 40_custom: chainloader ${line%%$'\n'*} '${line#*$'\n'}'"
	else
		fail "$tag: GRUB entry: chainloader words '$line' (want the installed file and '$args')"
	fi
}

FW_ARGS="--seed=5 --iterations=2000 --end=return${BOOT_DEVIATIONS:+ --known-deviation=$BOOT_DEVIATIONS}"
HO_ARGS="--mode=handoff --seed=7 --iterations=2000${BOOT_DEVIATIONS:+ --known-deviation=$BOOT_DEVIATIONS}"
# a quoted value with an escaped quote in it: both menus must pass it to
# ptlab as written, whose refusal quotes the one word it read
TYPO_ARGS='--seed="5 \"x" --end=return'
install_esp fw "$FW_ARGS"
entry_check fw "$FW_ARGS"
install_esp ho "$HO_ARGS"
entry_check ho "$HO_ARGS"
install_esp typo "$TYPO_ARGS"
entry_check typo "$TYPO_ARGS"
if [ -e "$ESP" ]; then
	fail "install-esp with DESTDIR created $ESP on the host"
else
	pass "install-esp with DESTDIR left the host alone (no $ESP)"
fi
if make -s -C "$root" install-esp BUILD="$PTLAB_BUILD" DEPS_CHECK=0 ESP= \
	DESTDIR="$BOOT_DIR/noesp" >/dev/null 2>&1 || [ -e "$BOOT_DIR/noesp" ]; then
	fail "install-esp without ESP= did not fail, or wrote something"
else
	pass "install-esp without ESP= fails and writes nothing"
fi

# ---- the menus ----

# the standalone GRUB: finds the ESP that holds ptlab, reads its grub.cfg
cat >"$BOOT_DIR/embed.cfg" <<'EOF'
search --no-floppy --file --set=root /EFI/ptlab/ptlab.efi
configfile ($root)/boot/grub/grub.cfg
EOF
if grub-mkstandalone -O x86_64-efi -o "$BOOT_DIR/grubx64.efi" --install-modules="$GRUB_MODULES" \
	--modules="$GRUB_MODULES" --locales= --fonts= --themes= \
	"boot/grub/grub.cfg=$BOOT_DIR/embed.cfg" >"$BOOT_DIR/grub-mkstandalone.out" 2>&1; then
	pass "grub-mkstandalone -O x86_64-efi"
else
	fail "grub-mkstandalone: $(tr '\n' ' ' <"$BOOT_DIR/grub-mkstandalone.out")"
fi

# grub_image TAG: TAG's installed ESP with the standalone GRUB as
# \EFI\BOOT\BOOTX64.EFI; its menu: the entry from 40_custom, then the marker
grub_image()
{
	local tag=$1 tree=$BOOT_DIR/$1/grub
	cp -r "$BOOT_DIR/$tag/dest$ESP" "$tree"
	mkdir -p "$tree/EFI/BOOT" "$tree/boot/grub"
	cp "$BOOT_DIR/grubx64.efi" "$tree/EFI/BOOT/BOOTX64.EFI"
	{
		printf 'set timeout=0\nset default=0\nset fallback=1\n'
		cat "$BOOT_DIR/$tag/grub-entry.cfg"
		printf "menuentry 'marker' {\n\techo '%s'\n\thalt\n}\n" "$MARKER"
	} >"$tree/boot/grub/grub.cfg"
	"$root/mk/image.sh" --tree "$BOOT_DIR/$tag/grub.img" "$tree"
}

# sdboot_image TAG: TAG's installed ESP with systemd-boot as
# \EFI\BOOT\BOOTX64.EFI, the installed entry copied to loader/entries/ (the
# default) and a second ptlab entry, "marker", that ends the machine
sdboot_image()
{
	local tag=$1 tree=$BOOT_DIR/$1/sdboot
	cp -r "$BOOT_DIR/$tag/dest$ESP" "$tree"
	mkdir -p "$tree/EFI/BOOT" "$tree/loader/entries"
	cp "$SDBOOT" "$tree/EFI/BOOT/BOOTX64.EFI"
	cp "$tree/EFI/ptlab/ptlab.conf" "$tree/loader/entries/ptlab.conf"
	printf 'default ptlab.conf\ntimeout 0\n' >"$tree/loader/loader.conf"
	printf 'title   marker\nefi     /EFI/ptlab/ptlab.efi\noptions --seed=9 --iterations=500 --end=shutdown%s\n' "${BOOT_DEVIATIONS:+ --known-deviation=$BOOT_DEVIATIONS}" \
		>"$tree/loader/entries/marker.conf"
	"$root/mk/image.sh" --tree "$BOOT_DIR/$tag/sdboot.img" "$tree"
}

for t in fw ho typo; do
	grub_image "$t" && sdboot_image "$t" || fail "$t: building the menu images failed"
done

# has_in_order LOG REGEX...: the cleaned LOG has lines matching each REGEX,
# in that order
has_in_order()
{
	local log=$1
	shift
	log_clean "$log" | awk -v n=$# 'BEGIN { for (i = 1; i <= n; i++) re[i] = ARGV[i]; ARGC = 1; k = 1 }
		k <= n && $0 ~ re[k] { k++ } END { exit k <= n }' "$@"
}

# in_order LOG DESC REGEX...: a pass when has_in_order
in_order()
{
	local log=$1 desc=$2
	shift 2
	if has_in_order "$log" "$@"; then
		pass "$desc"
	else
		fail "$desc (not all of, in order: $*)"
		log_tail "$log" 15
	fi
}

# wait_order SECONDS LOG REGEX...: until has_in_order (false after SECONDS)
wait_order()
{
	local i n=$(($1 * 2))
	shift
	for ((i = 0; i < n; i++)); do
		has_in_order "$@" && return 0
		sleep 0.5
	done
	return 1
}

# keys SOCKET KEY...: press each key (QEMU's sendkey) on the PS/2 keyboard
keys()
{
	local sock=$1 k
	shift
	for k in "$@"; do
		python3 "$HERE/qmon.py" "$sock" hmp "sendkey $k" >/dev/null || return 1
		sleep 0.3
	done
}

# boot TAG MENU [QEMU_ARGS...]: boot_bg TAG-MENU on that menu's image, its
# serial log in $BOOT_DIR/TAG/MENU.log, QMP on $BOOT_DIR/TAG/MENU.qmp
boot()
{
	local tag=$1 menu=$2
	shift 2
	boot_bg "$tag-$menu" --img "$BOOT_DIR/$tag/$menu.img" --log "$BOOT_DIR/$tag/$menu.log" \
		--mem 1G --timeout 100 -- -qmp "unix:$BOOT_DIR/$tag/$menu.qmp,server=on,wait=off" "$@"
}

CLOSING_PASS='^ptlab: [1-9][0-9]* passed, 0 failed, [0-9]+ skipped$'
OPTS_FW='^# options: seed=0x5 iterations=2000 end=return mode=firmware .* from=boot-manager$'
OPTS_HO='^# options: seed=0x7 iterations=2000 end=shutdown mode=handoff .* from=boot-manager$'
REFUSED="^ptlab: bad number in '--seed=5 \"x'\$"
PROMPT='^ptlab: press a key \(or wait [0-9]+ s\) to go back to the boot menu$'
BACK='^ptlab: back to the boot menu \(a key was pressed\)$'

# -- firmware mode: GRUB (its marker entry next) and systemd-boot (its menu
# again, the marker entry chosen from it)
boot fw grub
boot fw sdboot
fwsd=$BOOT_DIR/fw/sdboot.log
if wait_order 90 "$fwsd" "$CLOSING_PASS" 'marker'; then
	pass "systemd-boot firmware: ptlab returned and systemd-boot showed its menu again"
	# the entries newest (highest name) first: ptlab, then marker
	keys "$BOOT_DIR/fw/sdboot.qmp" home down ret ||
		fail "systemd-boot firmware: sendkey over QMP failed"
else
	fail "systemd-boot firmware: no menu after ptlab's closing line"
	boot_quit fw-sdboot "$BOOT_DIR/fw/sdboot.qmp"
fi
boot_wait
boot_result fw-grub; st=$?
check_status "$st" 0 "grub firmware: GRUB's marker entry ended QEMU (halt)"
check_log "$OPTS_FW" "$BOOT_LOG" "grub firmware: ptlab got GRUB's options (# options:)"
check_report "$BOOT_LOG" "grub firmware"
in_order "$BOOT_LOG" "grub firmware: ptlab closed its report, returned, and GRUB ran its next entry" \
	"$OPTS_FW" "$CLOSING_PASS" "^$MARKER\$"
boot_result fw-sdboot; st=$?
check_status "$st" 0 "systemd-boot firmware: the marker entry shut the machine down"
check_log "$OPTS_FW" "$BOOT_LOG" "systemd-boot firmware: ptlab got the entry's options (# options:)"
in_order "$BOOT_LOG" "systemd-boot firmware: the entry's run passed, then the marker entry ran as run 2 of the same boot" \
	"$OPTS_FW" "$CLOSING_PASS" '^# earlier-run: run=1 file=PTLAB\.TXT verdict=pass ' \
	'^# options: seed=0x9 iterations=500 end=shutdown .* from=boot-manager$' "$CLOSING_PASS"
file=$BOOT_DIR/fw/sdboot-PTLAB.TXT
if img_extract "$BOOT_IMG_COPY" PTLAB.TXT "$file" 2>/dev/null && log_has "$OPTS_FW" "$file" &&
   log_has "$CLOSING_PASS" "$file"; then
	pass "systemd-boot firmware: \\PTLAB.TXT on the ESP is the entry's passing run"
else
	fail "systemd-boot firmware: no passing \\PTLAB.TXT with the entry's options on the ESP"
fi

# -- hand-off mode: ptlab ends the machine; the menu never runs again
boot ho grub
boot ho sdboot
boot_wait
for menu in grub sdboot; do
	boot_result "ho-$menu"; st=$?
	check_status "$st" 0 "$menu hand-off: ptlab shut the machine down itself (--end defaults to shutdown)"
	check_log "$OPTS_HO" "$BOOT_LOG" "$menu hand-off: ptlab got the menu's options (# options:)"
	check_report "$BOOT_LOG" "$menu hand-off" nofile
	check_no_log "$MARKER|marker" "$BOOT_LOG" "$menu hand-off: control never went back to the menu"
done

# -- a typo in the menu's options: refused on the console, a key, back to the menu
boot typo grub
boot typo sdboot
# both wait for a key at the same time: press it for each as its prompt appears
keyed=
for ((i = 0; i < 180; i++)); do
	for menu in grub sdboot; do
		case " $keyed " in *" $menu "*) continue ;; esac
		if has_in_order "$BOOT_DIR/typo/$menu.log" "$REFUSED" "$PROMPT"; then
			keys "$BOOT_DIR/typo/$menu.qmp" ret || fail "$menu typo: sendkey over QMP failed"
			keyed="$keyed $menu"
		fi
	done
	[ "$keyed" = " grub sdboot" ] || [ "$keyed" = " sdboot grub" ] && break
	sleep 0.5
done
# systemd-boot reports the failed entry and leaves; the firmware would go on
if wait_order 60 "$BOOT_DIR/typo/sdboot.log" "$BACK" 'Failed to (execute|start)'; then :; fi
boot_quit typo-sdboot "$BOOT_DIR/typo/sdboot.qmp"
boot_wait
boot_result typo-grub; st=$?
check_status "$st" 0 "grub typo: GRUB's marker entry ended QEMU (halt)"
in_order "$BOOT_LOG" "grub typo: the refusal on the console, the prompt, the key, then GRUB's next entry" \
	"$REFUSED" '^usage: ' "$PROMPT" "$BACK" "^$MARKER\$"
check_no_log '^# options: ' "$BOOT_LOG" "grub typo: nothing ran"
boot_result typo-sdboot
in_order "$BOOT_LOG" "systemd-boot typo: the refusal on the console, the prompt, the key, then systemd-boot reports the failed entry" \
	"$REFUSED" '^usage: ' "$PROMPT" "$BACK" 'Failed to (execute|start)'
check_no_log '^# options: ' "$BOOT_LOG" "systemd-boot typo: nothing ran"

boot_done
