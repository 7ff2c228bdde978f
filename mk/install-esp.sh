#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mk/install-esp.sh APP
#
# Copy APP to DIR/EFI/ptlab/ptlab.efi (DIR: a mounted EFI System Partition,
# or a scratch directory standing in for one) and write beside it the two
# boot-menu entries that start it:
#
#   DIR/EFI/ptlab/ptlab.conf      a systemd-boot entry: copy it to
#                                 DIR/loader/entries/
#   DIR/EFI/ptlab/grub.40_custom  a GRUB menu entry: append it to
#                                 /etc/grub.d/40_custom, then update-grub
#
# What to install comes from the environment, as data (make exports it;
# no value is ever read as shell text, so any character is safe):
#
#   PTLAB_ESP_DIR      ESP=: the partition's directory (required)
#   PTLAB_ESP_DESTDIR  DESTDIR=: when set, DIR is DESTDIR/ESP, whatever ESP
#                      looks like (relative, absolute; ".." is refused)
#   PTLAB_ESP_MENU_ARGS  MENU_ARGS=: ptlab's options, written as ptlab reads
#                      them (default --end=return without KERNEL)
#   PTLAB_ESP_KERNEL   KERNEL=: a Linux bzImage to boot in hand-off mode,
#                      copied to DIR/EFI/ptlab/linux/
#   PTLAB_ESP_INITRD   INITRD=: its initrds, blank-separated file names,
#                      each copied there and passed as one --initrd=
#   PTLAB_ESP_CMDLINE  CMDLINE=: its command line, quoted for ptlab
#   PTLAB_ESP_FORCE    FORCE=1: replace entries edited since they were
#                      written (each kept as FILE.bak)
#
# Each entry's first line records the SHA-256 of the rest as written; an
# entry whose rest no longer matches was edited by hand, and without
# FORCE=1 the script refuses before writing anything.  Every check comes
# before the first write: a refusal changes nothing.  Writes nothing but
# ptlab.efi, the two entries, the kernel and initrd copies (and the
# directories above them); exit status 2 on a refusal.
set -euo pipefail
export LC_ALL=C

app=$1
esp=${PTLAB_ESP_DIR-}
destdir=${PTLAB_ESP_DESTDIR-}
menu_args=${PTLAB_ESP_MENU_ARGS-}
kernel=${PTLAB_ESP_KERNEL-}
initrds=${PTLAB_ESP_INITRD-}
cmdline=${PTLAB_ESP_CMDLINE-}
force=${PTLAB_ESP_FORCE-}

refuse()
{
	echo "install-esp: $*" >&2
	exit 2
}

[ -n "$esp" ] || refuse "ESP=DIR is required (the EFI System Partition, e.g. /boot/efi)"
if [ -n "$destdir" ]; then
	case /$esp/ in
	*/../*) refuse "ESP='$esp' has a '..': with DESTDIR everything must stay below it" ;;
	esac
	dir=${destdir%/}/${esp#/}
else
	dir=$esp
fi
dest=$dir/EFI/ptlab

# text_ok NAME VALUE: ptlab's options are one line of printable ASCII
text_ok()
{
	case $2 in
	*[!\ -~$'\t']*)
		refuse "$1 holds a character ptlab cannot take (a newline, a control or a" \
			"character beyond ASCII): $(printf '%q' "$2")" ;;
	esac
}

# quotes_ok NAME VALUE: every quote of VALUE closed, as ptlab's parser sees
# it (\" is a quote that is text)
quotes_ok()
{
	local bare=${2//\\\"/}

	bare=${bare//[!\"]/}
	[ $((${#bare} % 2)) -eq 0 ] || refuse "$1 has an unterminated quote: $2"
}

# word TEXT: TEXT as one word of ptlab's options: left as it is without a
# blank, quote or '#'; else in double quotes, each quote as \", and
# backslashes at its end after the closing quote (a \" there would be a
# quote that is text)
word()
{
	local w=$1 tail=

	case $w in
	*[\ $'\t'\"\#]*) ;;
	*) printf '%s' "$w"; return ;;
	esac
	while [ "${w%\\}" != "$w" ]; do
		tail=$tail'\'
		w=${w%\\}
	done
	printf '"%s"%s' "${w//\"/\\\"}" "$tail"
}

# grub_word TEXT: TEXT as one word of GRUB's script (single quotes; a
# quote as '\'')
grub_word()
{
	printf "'%s'" "${1//\'/\'\\\'\'}"
}

text_ok MENU_ARGS "$menu_args"
quotes_ok MENU_ARGS "$menu_args"
text_ok CMDLINE "$cmdline"

# the Linux entry: the kernel and initrds copied beside ptlab
copies=()
if [ -n "$kernel" ]; then
	read -ra rds <<<"$initrds"
	opts="--mode=handoff"
	for f in "$kernel" "${rds[@]}"; do
		[ -f "$f" ] && [ -r "$f" ] || refuse "no readable file '$f' (KERNEL=, INITRD=)"
		name=${f##*/}
		text_ok "the file name of $f" "$name"
		[ "${#name}" -le 100 ] || refuse "file name '$name' longer than 100 characters"
		for c in "${copies[@]}"; do
			[ "${c##*/}" != "$name" ] || refuse "two files named '$name' (KERNEL=, INITRD=)"
		done
		copies+=("$f")
		if [ "$f" = "$kernel" ]; then
			opts="$opts $(word "--kernel=\\EFI\\ptlab\\linux\\$name")"
		else
			opts="$opts $(word "--initrd=\\EFI\\ptlab\\linux\\$name")"
		fi
	done
	[ -z "$cmdline" ] || opts="$opts $(word "--cmdline=$cmdline")"
	[ -z "$menu_args" ] || opts="$opts $menu_args"
else
	[ -z "$initrds$cmdline" ] || refuse "INITRD= and CMDLINE= go with KERNEL="
	opts=${menu_args:---end=return}
fi

conf="title   ptlab: page-table checks${kernel:+, then Linux}
efi     /EFI/ptlab/ptlab.efi
options $opts"
grub="menuentry 'ptlab: page-table checks${kernel:+, then Linux}' {
	insmod part_gpt
	insmod fat
	insmod chain
	search --no-floppy --file --set=root /EFI/ptlab/ptlab.efi
	chainloader /EFI/ptlab/ptlab.efi $(grub_word "$opts")
}"

MARK='# written by make install-esp; edits make it refuse to replace this file (FORCE=1 does): sha256='

# stamped TEXT: TEXT with its first line recording the SHA-256 of TEXT
stamped()
{
	printf '%s%s\n%s\n' "$MARK" "$(printf '%s\n' "$1" | sha256sum | cut -d' ' -f1)" "$1"
}

# edited FILE: FILE exists and is not as this script wrote it
edited()
{
	local first sum

	[ -e "$1" ] || return 1
	first=$(head -n 1 -- "$1")
	sum=$(tail -n +2 -- "$1" | sha256sum | cut -d' ' -f1)
	[ "$first" != "$MARK$sum" ]
}

changed=()
for f in ptlab.conf grub.40_custom; do
	! edited "$dest/$f" || changed+=("$f")
done
if [ "${#changed[@]}" -gt 0 ] && [ "$force" != 1 ]; then
	refuse "$dest: ${changed[*]} changed since make install-esp wrote them (or were" \
		"not written by it); nothing was written. Keep your edits, or run again with" \
		"FORCE=1 to replace them (each is kept as FILE.bak)"
fi

install -d -- "$dest"
for f in "${changed[@]}"; do
	cp -p -- "$dest/$f" "$dest/$f.bak"
	echo "install-esp: $dest/$f had been edited: kept as $f.bak"
done
install -m 644 -- "$app" "$dest/ptlab.efi"
if [ "${#copies[@]}" -gt 0 ]; then
	install -d -- "$dest/linux"
	for f in "${copies[@]}"; do
		install -m 644 -- "$f" "$dest/linux/${f##*/}"
	done
fi
stamped "$conf" >"$dest/ptlab.conf"
stamped "$grub" >"$dest/grub.40_custom"
chmod 644 "$dest/ptlab.conf" "$dest/grub.40_custom"
echo "install-esp: $dest/ptlab.efi, ptlab.conf (systemd-boot entry), grub.40_custom" \
	"(GRUB entry)${kernel:+, linux/ (the kernel and ${#rds[@]} initrd(s))}"
echo "install-esp: options: $opts"
