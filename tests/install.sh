#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/install.sh: "make install" into a scratch DESTDIR, then
# examples/handoff.c built against that copy alone - headers, archive and
# flags from the installed pkg-config files, compiled in a directory with
# nothing of the source tree in reach.
# Environment: MAKE, BUILD, EFI_CC, HOSTCC, NM.
# Prints one ok/not ok line per check and "install: N passed, M failed".
set -uo pipefail

: "${MAKE:=make}" "${BUILD:=build}" "${EFI_CC:=gcc}" "${HOSTCC:=gcc}" "${NM:=nm}"
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dest=$work/dest prefix=/opt/ptlab
pass=0 fail=0
ok()     { pass=$((pass + 1)); echo "ok - install: $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - install: $*"; }
finish() { echo "install: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

if $MAKE -C "$root" -s BUILD="$BUILD" DESTDIR="$dest" PREFIX="$prefix" install \
	>"$work/install.log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=$prefix"
else
	not_ok "make install failed:"; sed 's/^/# /' "$work/install.log"; finish
fi

# Exactly the public headers, both archives, two pkg-config files.
want=$(cd "$root/include/ptlab" && ls ./*.h | sed "s|^\./|include/ptlab/|" ;
	printf '%s\n' lib/libptlab.a lib/libptlab-efi.a lib/pkgconfig/ptlab.pc \
		lib/pkgconfig/ptlab-efi.pc)
got=$(cd "$dest$prefix" && find . -type f | sed 's|^\./||')
if [ "$(sort <<<"$want")" = "$(sort <<<"$got")" ]; then
	ok "installed files: $(wc -l <<<"$got") (headers, two archives, two .pc)"
else
	not_ok "installed files differ:"; diff <(sort <<<"$want") <(sort <<<"$got") | sed 's/^/# /'
fi

# The two archives are the two builds: firmware objects carry no sanitizer
# or libc reference, the host one has no sanitizer instrumentation either.
if "$NM" -u "$dest$prefix/lib/libptlab.a" "$dest$prefix/lib/libptlab-efi.a" 2>/dev/null |
	grep -q '__asan_\|__ubsan_'; then
	not_ok "an installed archive is sanitizer-instrumented"
else
	ok "installed archives carry no sanitizer instrumentation"
fi

# Builds against the installed copy only: the example copied out, pkg-config
# told to look only in the scratch tree (and to prefix its paths with it).
cp "$root/examples/handoff.c" "$work/"
cd "$work" || finish
export PKG_CONFIG_LIBDIR=$dest$prefix/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest
unset PKG_CONFIG_PATH
if ! command -v pkg-config >/dev/null; then
	not_ok "pkg-config not found (package pkgconf)"; finish
fi
host_flags=$(pkg-config --cflags --libs ptlab) efi_flags=$(pkg-config --cflags ptlab-efi)
case "$host_flags $efi_flags" in
*"$root"*) not_ok "pkg-config flags point into the source tree: $host_flags" ;;
*"$dest$prefix/include"*) ok "pkg-config: ptlab and ptlab-efi found in the installed tree" ;;
*) not_ok "pkg-config flags do not name the installed headers: $host_flags" ;;
esac

# shellcheck disable=SC2086  # flag lists
if $HOSTCC -std=c11 -Wall -Wextra -Werror handoff.c $host_flags -o handoff >cc.log 2>&1 &&
	./handoff >run.log 2>&1; then
	ok "examples/handoff.c built with the installed libptlab.a and run: $(tail -n 1 run.log)"
else
	not_ok "host build or run of the example failed:"; sed 's/^/# /' cc.log run.log 2>/dev/null
fi

# Firmware flavour: compiled freestanding with ptlab-efi's flags; every
# pt_* symbol it needs is defined in the installed libptlab-efi.a.
# shellcheck disable=SC2086
if $EFI_CC -std=c11 -Wall -Wextra -Werror -O2 -fpic -fno-stack-protector $efi_flags \
	-c handoff.c -o handoff-efi.o >cc-efi.log 2>&1; then
	need=$("$NM" -u handoff-efi.o | awk '{print $2}' | grep '^pt_' | sort -u)
	have=$("$NM" --defined-only "$dest$prefix/lib/libptlab-efi.a" 2>/dev/null |
		awk 'NF == 3 {print $3}' | sort -u)
	missing=$(comm -23 <(echo "$need") <(echo "$have"))
	if [ -n "$need" ] && [ -z "$missing" ]; then
		ok "freestanding build: the $(wc -l <<<"$need") pt_* symbols it uses are all in libptlab-efi.a"
	else
		not_ok "libptlab-efi.a lacks: ${missing:-(the example uses no pt_* symbol?)}"
	fi
else
	not_ok "freestanding compile of the example failed:"; sed 's/^/# /' cc-efi.log
fi
finish
