#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mk/image.sh OUT APP STARTUP_NSH [ARGS]
# mk/image.sh --tree OUT DIR
#
# Build a GPT disk image holding one FAT32 EFI System partition at 1 MiB
# with APP as \EFI\BOOT\BOOTX64.EFI (the removable-media path firmware boots
# without a boot entry), STARTUP_NSH as \startup.nsh and, when ARGS is not
# empty, ARGS as \ptlab.cfg.  With --tree, the partition holds what the
# directory DIR holds (an ESP laid out as on a disk).  No root, no loop
# devices.
#
# With a kernel in PTLAB_RUN_KERNEL (make run KERNEL=... INITRD=...
# CMDLINE=..., whose values come through the environment as written): the
# kernel goes to \linux\vmlinuz, each of the blank-separated files of
# PTLAB_RUN_INITRD to \linux\initrd1, \linux\initrd2, ... and \ptlab.cfg
# gets, after ARGS, --mode=handoff (unless ARGS names a mode), --kernel,
# one --initrd per file and --cmdline=PTLAB_RUN_CMDLINE as one word of the
# option tokenizer (efi/opts/opts.c); each of the blank-separated files of
# PTLAB_RUN_MODULES (a Limine-protocol kernel's modules) goes to
# \modules\NAME under its own file name, given as --module=PATH,NAME.
# The image grows to hold them.  A
# missing file, a kernel option already in ARGS, or a command line ptlab
# cannot take (a newline, a control character, one beyond ASCII) is
# refused before anything is written.
set -euo pipefail
export LC_ALL=C     # character ranges are byte ranges

tree=
kernel=${PTLAB_RUN_KERNEL-} initrds=${PTLAB_RUN_INITRD-} cmdline=${PTLAB_RUN_CMDLINE-}
modules=${PTLAB_RUN_MODULES-}
if [ "${1-}" = --tree ]; then
	out=$2 tree=$3
else
	out=$1 app=$2 nsh=$3 args=${4-}
fi

# refuse TEXT: a refusal of the Linux options, nothing written
refuse()
{
	echo "image: $1" >&2
	exit 2
}

# word TEXT: TEXT as one word of ptlab's options (efi/opts/opts.c): in
# double quotes, so blanks and '#' are text; each quote as \" (the one
# escape); backslashes at the end after the closing quote, where no quote
# follows them (a \" there would be a quote that is text)
word()
{
	local w=$1 tail=

	while [ "${w%\\}" != "$w" ]; do
		tail=$tail'\'
		w=${w%\\}
	done
	printf '"%s"%s' "${w//\"/\\\"}" "$tail"
}

SIZE_MIB=${PTLAB_IMG_MIB:-64}
read -r -a rds <<<"$initrds"
read -r -a mods <<<"$modules"
if [ -z "$kernel" ]; then
	[ "${#rds[@]}" -eq 0 ] || refuse "INITRD='$initrds' needs a KERNEL="
	[ "${#mods[@]}" -eq 0 ] || refuse "MODULES='$modules' needs a KERNEL="
else
	for f in "$kernel" "${rds[@]}" "${mods[@]}"; do
		[ -f "$f" ] && [ -r "$f" ] || refuse "no readable file '$f'"
	done
	declare -A seen=()
	for f in "${mods[@]}"; do
		n=$(basename -- "$f")
		case $n in
		*[!A-Za-z0-9._-]*) refuse "MODULES: '$n' is not a plain file name (letters, digits, '.', '_', '-')" ;;
		esac
		[ -z "${seen[$n]+x}" ] || refuse "MODULES: two files named '$n'"
		seen[$n]=1
	done
	read -r -a words <<<"$args"
	for o in "${words[@]}"; do
		case $o in
		--kernel=*|--initrd=*|--module=*|--cmdline=*|\"--cmdline=*)
			refuse "ARGS already has $o: give the kernel with KERNEL=, INITRD=, MODULES=, CMDLINE= only" ;;
		esac
	done
	# one line of printable ASCII; a tab inside the quotes is text
	case $cmdline in
	*[!\ -~$'\t']*)
		refuse "CMDLINE holds a character ptlab cannot take (a newline, a control or a character beyond ASCII): $(printf '%q' "$cmdline")" ;;
	esac
	need=$(( $(cat -- "$kernel" "${rds[@]}" "${mods[@]}" | wc -c) / 1048576 + 48 ))
	[ "$need" -le "$SIZE_MIB" ] || SIZE_MIB=$need
	case " $args " in
	*" --mode="*) ;;
	*) args="${args:+$args }--mode=handoff" ;;
	esac
	args="$args --kernel=\\linux\\vmlinuz"
	for i in "${!rds[@]}"; do
		args="$args --initrd=\\linux\\initrd$((i + 1))"
	done
	for f in "${mods[@]}"; do
		n=$(basename -- "$f")
		args="$args --module=\\modules\\$n,$n"
	done
	args="$args $(word "--cmdline=$cmdline")"
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
	if [ "${#mods[@]}" -gt 0 ]; then
		mmd -i "$img" ::/modules
		for f in "${mods[@]}"; do
			mcopy -i "$img" "$f" "::/modules/$(basename -- "$f")"
		done
	fi
fi
mv -f "$tmp" "$out"
