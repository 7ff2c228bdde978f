#!/bin/sh
# SPDX-License-Identifier: MIT
#
# mk/mmu-qemu.sh DIR: QEMU's x86-64 system emulator from Debian's own qemu
# source package, built once under DIR for "make mmu-faults" (the faults of
# tests/mmu/ are patched into this tree one at a time).  Steps already done
# are skipped: DIR/src (mk/apt-source.sh: a private deb-src list; dpkg-source
# -x applies Debian's patches), DIR/obj (configure: x86_64-softmmu alone,
# TCG, no docs, tools or guest agent) and the ninja build, which relinks
# in seconds after one file changed.  Prints the emulator's path last.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$(realpath -m "$1")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
if [ ! -f "$dir/src.done" ]; then
	echo "mmu-qemu: fetching Debian's qemu source into $dir/src" >&2
	src=$("$here/apt-source.sh" qemu "$dir/src" | tail -n 1)
	[ -f "$src/target/i386/tcg/sysemu/excp_helper.c" ] || {
		echo "mmu-qemu: $src has no target/i386/tcg/sysemu/excp_helper.c" >&2; exit 1; }
	# the pristine copies the fault runner restores from
	cp -a "$src" "$dir/pristine"
	echo "$src" >"$dir/src.done"
fi
src=$(cat "$dir/src.done")
if [ ! -f "$dir/obj/build.ninja" ]; then
	echo "mmu-qemu: configuring into $dir/obj" >&2
	rm -rf "$dir/obj"
	mkdir -p "$dir/obj"
	# The devices a ptlab boot uses (q35, pflash for OVMF, the serial
	# port, isa-debug-exit, AHCI/IDE disks) are in x86_64-softmmu's
	# default device set; --without-default-features drops the host
	# features (VNC, SDL, slirp, ...) ptlab does not need.
	(cd "$dir/obj" && "$src/configure" --target-list=x86_64-softmmu \
		--without-default-features --enable-tcg --enable-fdt=system \
		--disable-docs --disable-tools --disable-guest-agent \
		--disable-debug-info --disable-werror) >"$dir/configure.log" 2>&1 || {
		tail -n 30 "$dir/configure.log" >&2
		echo "mmu-qemu: configure failed ($dir/configure.log)" >&2
		rm -f "$dir/obj/build.ninja"; exit 1; }
fi
ninja -C "$dir/obj" qemu-system-x86_64 >"$dir/ninja.log" 2>&1 || {
	tail -n 30 "$dir/ninja.log" >&2
	echo "mmu-qemu: build failed ($dir/ninja.log)" >&2; exit 1; }
echo "$dir/obj/qemu-system-x86_64"
