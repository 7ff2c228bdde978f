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

# ---- make install-esp: values as data, DESTDIR kept, edits kept ----

# esp TAG VAR=VALUE...: make install-esp into $work/TAG, its output in
# $work/TAG.out; the make's exit status
esp()
{
	local tag=$1
	shift
	mkdir -p "$work/$tag"
	(cd "$work/$tag" && $MAKE -C "$root" -s BUILD="$BUILD" DEPS_CHECK=0 install-esp "$@") \
		>"$work/$tag.out" 2>&1
}

# entry_opts DIR: the options the systemd-boot entry and, unquoted as GRUB
# reads its script, the GRUB entry pass; one line each
entry_opts()
{
	sed -n 's/^options //p' "$1/ptlab.conf"
	python3 -c 'import shlex, sys
for l in open(sys.argv[1]):
    w = shlex.split(l)
    if w and w[0] == "chainloader":
        print(" ".join(w[2:]) if len(w) == 3 else "more than one word: %r" % w[2:])' \
		"$1/grub.40_custom"
}

# Whatever MENU_ARGS holds runs nothing: the entries carry it as written
# (ptlab refuses what it cannot read), or make refuses it.
marker=$work/X
for args in "--end=return'; touch $marker; echo '" "--end=return\"; touch $marker; echo \"" \
	'--seed=1 $(shell touch '"$marker"') `touch '"$marker"'` $$(touch '"$marker"')'; do
	rm -rf "$work/hostile"
	esp hostile DESTDIR="$work/hostile/d" ESP=/esp MENU_ARGS="$args"
	st=$?
	dir=$work/hostile/d/esp/EFI/ptlab
	if [ -e "$marker" ]; then
		not_ok "install-esp MENU_ARGS=$args ran a command (created $marker)"
	elif [ "$st" -eq 0 ] && [ "$(entry_opts "$dir")" = "$(printf '%s\n%s' "$args" "$args")" ]; then
		ok "install-esp MENU_ARGS=$args: nothing ran, both entries pass it as written"
	elif [ "$st" -ne 0 ] && grep -q '^install-esp: ' "$work/hostile.out" && [ ! -e "$work/hostile/d" ]; then
		ok "install-esp MENU_ARGS=$args: nothing ran, refused: $(head -n 1 "$work/hostile.out")"
	else
		not_ok "install-esp MENU_ARGS=$args: exit $st, entries: $(entry_opts "$dir" 2>&1 | tr '\n' '|')"
	fi
	rm -f "$marker"
done

# A newline would start a new line of the entry (another efi line): refused,
# nothing written.
if ! esp nl DESTDIR="$work/nl/d" ESP=/esp MENU_ARGS=$'--end=return\nefi /other.efi' &&
	grep -q 'newline' "$work/nl.out" && [ ! -e "$work/nl/d" ]; then
	ok "install-esp refuses a newline in MENU_ARGS and writes nothing"
else
	not_ok "install-esp with a newline in MENU_ARGS: $(cat "$work/nl.out")"
fi

# DESTDIR with a relative ESP: below DESTDIR (DESTDIR/ESP), not DESTDIRESP
if esp rel DESTDIR="$work/rel/d" ESP=esp && [ -f "$work/rel/d/esp/EFI/ptlab/ptlab.efi" ] &&
	[ ! -e "$work/rel/desp" ] && [ "$(cd "$work/rel" && find . -type f | sort | tr '\n' ' ')" = \
	"./d/esp/EFI/ptlab/grub.40_custom ./d/esp/EFI/ptlab/ptlab.conf ./d/esp/EFI/ptlab/ptlab.efi " ]; then
	ok "install-esp DESTDIR=D ESP=esp writes below D/esp and nowhere else"
else
	not_ok "install-esp DESTDIR=D ESP=esp: $(cd "$work/rel" && find . -type f | tr '\n' ' ') $(cat "$work/rel.out")"
fi
if ! esp dots DESTDIR="$work/dots/d" ESP=../../out && [ ! -e "$work/out" ] && [ ! -e "$work/dots/d" ]; then
	ok "install-esp refuses an ESP with '..' under DESTDIR and writes nothing"
else
	not_ok "install-esp DESTDIR=D ESP=../../out: $(cat "$work/dots.out")"
fi

# An edited entry is never replaced silently: refused (nothing written);
# FORCE=1 replaces it and keeps the edited one as .bak.  An entry as it was
# written is replaced freely.
dir=$work/ed/d/esp/EFI/ptlab
esp ed DESTDIR="$work/ed/d" ESP=/esp MENU_ARGS="--seed=1 --end=return"
if esp ed DESTDIR="$work/ed/d" ESP=/esp MENU_ARGS="--seed=2 --end=return" &&
	[ "$(sed -n 's/^options //p' "$dir/ptlab.conf")" = "--seed=2 --end=return" ]; then
	ok "install-esp replaces its own unedited entries"
else
	not_ok "install-esp did not replace its own entries: $(cat "$work/ed.out")"
fi
echo "sort-key  z-ptlab" >>"$dir/ptlab.conf"
cp "$dir/ptlab.conf" "$work/edited.conf"
cp "$dir/grub.40_custom" "$work/grub.before"
if ! esp ed DESTDIR="$work/ed/d" ESP=/esp MENU_ARGS="--seed=3 --end=return" &&
	grep -q 'ptlab.conf changed.*FORCE=1' "$work/ed.out" && cmp -s "$dir/ptlab.conf" "$work/edited.conf" &&
	cmp -s "$dir/grub.40_custom" "$work/grub.before"; then
	ok "install-esp refuses to replace an edited ptlab.conf, says FORCE=1, changes nothing"
else
	not_ok "install-esp over an edited ptlab.conf: $(cat "$work/ed.out")"
fi
if esp ed DESTDIR="$work/ed/d" ESP=/esp MENU_ARGS="--seed=3 --end=return" FORCE=1 &&
	cmp -s "$dir/ptlab.conf.bak" "$work/edited.conf" && grep -q 'kept as ptlab.conf.bak' "$work/ed.out" &&
	[ "$(sed -n 's/^options //p' "$dir/ptlab.conf")" = "--seed=3 --end=return" ]; then
	ok "install-esp FORCE=1 replaces the edited entry and keeps it as ptlab.conf.bak"
else
	not_ok "install-esp FORCE=1: $(cat "$work/ed.out")"
fi

# A Linux entry: the kernel and initrds copied, one --initrd each, the
# command line quoted for ptlab (tests/unit/test_opts.c reads this very
# form back) and the whole for GRUB
printf 'kernel' >"$work/vmlinuz-test" && printf 'rd1' >"$work/initrd-a" && printf 'rd2' >"$work/initrd-b"
cmdline='acpi_osi="!Windows 2015" quiet #1'
want='--mode=handoff --kernel=\EFI\ptlab\linux\vmlinuz-test --initrd=\EFI\ptlab\linux\initrd-a'
want+=' --initrd=\EFI\ptlab\linux\initrd-b "--cmdline=acpi_osi=\"!Windows 2015\" quiet #1" --seed=4'
dir=$work/lx/d/esp/EFI/ptlab
if esp lx DESTDIR="$work/lx/d" ESP=/esp KERNEL="$work/vmlinuz-test" \
	INITRD="$work/initrd-a $work/initrd-b" CMDLINE="$cmdline" MENU_ARGS=--seed=4 &&
	cmp -s "$dir/linux/vmlinuz-test" "$work/vmlinuz-test" && cmp -s "$dir/linux/initrd-a" "$work/initrd-a" &&
	cmp -s "$dir/linux/initrd-b" "$work/initrd-b" &&
	[ "$(entry_opts "$dir")" = "$(printf '%s\n%s' "$want" "$want")" ]; then
	ok "install-esp KERNEL= INITRD= CMDLINE=: files copied, both entries pass: $want"
else
	not_ok "install-esp KERNEL=...: $(cat "$work/lx.out") entries: $(entry_opts "$dir" 2>&1 | tr '\n' '|')"
fi
if ! esp nok DESTDIR="$work/nok/d" ESP=/esp KERNEL="$work/no-such-kernel" && [ ! -e "$work/nok/d" ]; then
	ok "install-esp refuses a KERNEL= that is no file and writes nothing"
else
	not_ok "install-esp KERNEL=<missing>: $(cat "$work/nok.out")"
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
