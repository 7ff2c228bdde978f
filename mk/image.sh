#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mk/image.sh OUT APP STARTUP_NSH [ARGS [KERNEL [INITRDS [CMDLINE]]]]
# mk/image.sh --tree OUT DIR
#
# Build a GPT disk image holding one FAT32 EFI System partition at 1 MiB
# with APP as \EFI\BOOT\BOOTX64.EFI (the removable-media path firmware boots
# without a boot entry), STARTUP_NSH as \startup.nsh and, when ARGS is not
# empty, ARGS as \ptlab.cfg.  With --tree, the partition holds what the
# directory DIR holds (an ESP laid out as on a disk).  No root, no loop
# devices.
#
# With a KERNEL (make run KERNEL=... INITRD=... CMDLINE=...): the kernel
# goes to \linux\vmlinuz, each of the blank-separated INITRDS to
# \linux\initrd1, \linux\initrd2, ... and \ptlab.cfg gets, after ARGS,
# --mode=handoff (unless ARGS names a mode), --kernel, one --initrd per file
# and "--cmdline=CMDLINE", quoted for the option tokenizer (efi/opts/opts.c:
# a double quote groups, nothing escapes).  The image grows to hold them.
# A missing file, a kernel option already in ARGS, or a command line the
# tokenizer cannot carry (a double quote, a character outside printable
# ASCII) is refused before anything is written.
set -euo pipefail
export LC_ALL=C     # character ranges are byte ranges

tree= kernel= initrds= cmdline=
if [ "${1-}" = --tree ]; then
	out=$2 tree=$3
else
	out=$1 app=$2 nsh=$3 args=${4-} kernel=${5-} initrds=${6-} cmdline=${7-}
fi

# refuse NAME TEXT: a refusal of the Linux options, nothing written
refuse()
{
	echo "image: $1" >&2
	exit 2
}

SIZE_MIB=${PTLAB_IMG_MIB:-64}
read -r -a rds <<<"$initrds"
if [ -z "$kernel" ]; then
	[ "${#rds[@]}" -eq 0 ] || refuse "INITRD='$initrds' needs a KERNEL="
else
	for f in "$kernel" "${rds[@]}"; do
		[ -f "$f" ] && [ -r "$f" ] || refuse "no readable file '$f'"
	done
	read -r -a words <<<"$args"
	for o in "${words[@]}"; do
		case $o in
		--kernel=*|--initrd=*|--cmdline=*|\"--cmdline=*)
			refuse "ARGS already has $o: give the kernel with KERNEL=, INITRD=, CMDLINE= only" ;;
		esac
	done
	# The tokenizer takes printable ASCII and blanks; inside the quotes a
	# blank or a '#' is text, but a double quote always toggles quoting.
	if [[ $cmdline == *[^\ -~]* ]]; then
		refuse "CMDLINE has a character outside printable ASCII (tabs and newlines included): '$cmdline'"
	fi
	case $cmdline in
	*\"*) refuse "CMDLINE has a double quote, which \\ptlab.cfg cannot carry (its quotes only group): '$cmdline'" ;;
	esac
	need=$(( $(cat -- "$kernel" "${rds[@]}" | wc -c) / 1048576 + 48 ))
	[ "$need" -le "$SIZE_MIB" ] || SIZE_MIB=$need
	case " $args " in
	*" --mode="*) ;;
	*) args="${args:+$args }--mode=handoff" ;;
	esac
	args="$args --kernel=\\linux\\vmlinuz"
	for i in "${!rds[@]}"; do
		args="$args --initrd=\\linux\\initrd$((i + 1))"
	done
	args="$args \"--cmdline=$cmdline\""
fi
SECTOR=512
START=2048                                  # 1 MiB
TOTAL=$((SIZE_MIB * 1024 * 1024 / SECTOR))
# The backup GPT takes the last 33 sectors; end the partition on a 1 MiB
# boundary below it.
PART=$(( (TOTAL - 34 - START) / 2048 * 2048 ))

export MTOOLS_SKIP_CHECK=1
tmp="$out.tmp.$$"
trap 'rm -f "$tmp" "$tmp.cfg"' EXIT

rm -f "$tmp"
truncate -s "${SIZE_MIB}M" "$tmp"
printf 'label: gpt\nstart=%d, size=%d, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name="EFI System"\n' \
	"$START" "$PART" | sfdisk --quiet --no-reread --no-tell-kernel "$tmp" >/dev/null

img="$tmp@@$((START * SECTOR))"
mformat -i "$img" -F -T "$PART" -h 64 -s 32 -v PTLAB ::
if [ -n "$tree" ]; then
	if [ -n "$(ls -A -- "$tree")" ]; then
		mcopy -s -i "$img" "$tree"/* ::/
	fi
	mv -f "$tmp" "$out"
	exit 0
fi
mmd -i "$img" ::/EFI ::/EFI/BOOT
mcopy -i "$img" "$app" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$img" "$nsh" ::/startup.nsh
if [ -n "$args" ]; then
	printf '%s\n' "$args" >"$tmp.cfg"
	mcopy -i "$img" "$tmp.cfg" ::/ptlab.cfg
fi
if [ -n "$kernel" ]; then
	mmd -i "$img" ::/linux
	mcopy -i "$img" "$kernel" ::/linux/vmlinuz
	for i in "${!rds[@]}"; do
		mcopy -i "$img" "${rds[$i]}" "::/linux/initrd$((i + 1))"
	done
fi
mv -f "$tmp" "$out"
