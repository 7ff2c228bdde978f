#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mk/ovmfnx.sh DIR: build OVMF from Debian's own edk2 source package with
# the memory protections of a current PC turned on, into DIR/OVMF_CODE_4M.fd
# and DIR/OVMF_VARS_4M.fd (the source and edk2's build tree stay under
# DIR/src).  Debian's way of building OVMF_CODE_4M (debian/rules of the
# source: BaseTools first, then edk2's "build" with GCC5, RELEASE, 4 MiB
# flash, Secure Boot and TPM2 support compiled in), with two differences:
# the protections are edk2 PCDs given on the command line (no file of the
# source is patched), and the network stack is left out (ptlab's tests boot
# from disk; it is a third of the build).  What each PCD does is in
# docs/firmware.md, "Firmware that enforces NX".
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
jobs=${OVMFNX_JOBS:-2}

# PcdDxeNxMemoryProtectionPolicy: one bit per EFI memory type (UEFI 2.10
# 7.2, EFI_MEMORY_TYPE order) mapped no-execute; 0x7FD5 is every type but
# the three code types (LoaderCode 0x2, BootServicesCode 0x8,
# RuntimeServicesCode 0x20), and the two top bits are the OEM and OS
# reserved ranges.
NX_POLICY=0xC000000000007FD5
PCDS="gEfiMdeModulePkgTokenSpaceGuid.PcdDxeNxMemoryProtectionPolicy=$NX_POLICY
gEfiMdeModulePkgTokenSpaceGuid.PcdSetNxForStack=TRUE
gEfiMdeModulePkgTokenSpaceGuid.PcdImageProtectionPolicy=0x3
gEfiMdeModulePkgTokenSpaceGuid.PcdNullPointerDetectionPropertyMask=${OVMFNX_NULL_MASK:-0x1}"

src=$dir/src
if [ ! -f "$src/.unpacked" ]; then
	tree=$("$here/apt-source.sh" edk2 "$src" | tail -n 1)
	ln -sfn "$tree" "$src/edk2"
	touch "$src/.unpacked"
fi
cd "$src/edk2"

# Variables of a surrounding edk2 set-up would redirect the build
# (debian/rules clears the same ones).
unset WORKSPACE ECP_SOURCE EDK_SOURCE EFI_SOURCE EDK_TOOLS_PATH CONF_PATH PACKAGES_PATH || true
export PYTHON3_ENABLE=TRUE
# edksetup.sh reads its own arguments from "$@": give it none
set --
# edksetup.sh and edk2's build read unset variables: not under set -u
set +u
# shellcheck disable=SC1091
. ./edksetup.sh >"$dir/edksetup.log" 2>&1
if [ ! -f BaseTools/.built ]; then
	make -C BaseTools ARCH=X64 -j"$jobs" >"$dir/basetools.log" 2>&1 ||
		{ tail -n 40 "$dir/basetools.log" >&2; echo "$0: BaseTools failed ($dir/basetools.log)" >&2; exit 1; }
	touch BaseTools/.built
fi

pcdargs=
for p in $PCDS; do pcdargs="$pcdargs --pcd $p"; done
# shellcheck disable=SC2086
build -a X64 -t GCC5 -b RELEASE -n "$jobs" -p OvmfPkg/OvmfPkgX64.dsc \
	-D FD_SIZE_4MB -D SECURE_BOOT_ENABLE=TRUE -D TPM2_ENABLE=TRUE \
	-D NETWORK_ENABLE=FALSE $pcdargs >"$dir/build.log" 2>&1 ||
	{ tail -n 40 "$dir/build.log" >&2; echo "$0: edk2 build failed ($dir/build.log)" >&2; exit 1; }

fv=Build/OvmfX64/RELEASE_GCC5/FV
cp "$fv/OVMF_CODE.fd" "$dir/OVMF_CODE_4M.fd.new"
cp "$fv/OVMF_VARS.fd" "$dir/OVMF_VARS_4M.fd"
# the settings the image was built with, for the suite and for people
printf '%s\n' "$PCDS" >"$dir/pcds.txt"
mv "$dir/OVMF_CODE_4M.fd.new" "$dir/OVMF_CODE_4M.fd"
