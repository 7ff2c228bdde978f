#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/packages.sh: the one package list (mk/packages.txt) and who asks
# for which group.  "make" needs only the build group, "make run" the run
# group too, and neither ever asks for a test package (a kernel, a boot
# manager, U-Boot, a browser) nor reaches deps-test or uses a file of a
# package only the tests bring (make's plan, tests/make-needs.py); "make
# test" asks for the build, run and test groups; "make ovmf-nx" the nxfw
# group (edk2's build tools, in no other group), "make test-nxfw" the test
# and nxfw groups; .ci/run installs the nxfw group's list as mk/deps.sh
# prints it (it runs make test and make test-nxfw) and names no package
# itself.  The group's effect
# is observed through mk/deps.sh with a stand-in dpkg-query (every package
# installed but the ones named missing) and apt-get (which records what it
# was asked to install).  The lab group is asked for by "make lava" and
# "make test-lava" alone and is not in what CI installs.  And the build's
# own shape: the top Makefile at most 250 lines, every mk/*.mk read once
# and headed by what it holds.
# Prints one ok/not ok line per check and "packages: N passed, M failed".
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok()     { pass=$((pass + 1)); echo "ok - packages: $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - packages: $*"; }
check()  { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }

cd "$root" || exit 1
build=$(mk/deps.sh --list build) run=$(mk/deps.sh --list run) test=$(mk/deps.sh --list test)
lab=$(mk/deps.sh --list lab) nxfw=$(mk/deps.sh --list nxfw)
words() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -u; }
subset() { [ -z "$(comm -23 <(words "$1") <(words "$2"))" ]; }
TEST_ONLY='chromium u-boot-qemu grub-efi-amd64-bin grub-common systemd-boot-efi linux-image-cloud-amd64 busybox-static libcmocka-dev'

check "the build group is within the run group" subset "$build" "$run"
check "the run group is within the test group" subset "$run" "$test"
check "the build group: gcc, make, gnu-efi" subset "gcc make gnu-efi" "$build"
check "the run group: qemu-system-x86, ovmf, mtools" subset "qemu-system-x86 ovmf mtools" "$run"
check "the test group: every package only the tests use ($TEST_ONLY)" subset "$TEST_ONLY" "$test"
none_of() { [ -z "$(comm -12 <(words "$1") <(words "$2"))" ]; }
check "the run group has none of them" none_of "$TEST_ONLY" "$run"
check "the run group is within the lab group" subset "$run" "$lab"
check "the lab group: lava-dispatcher" subset "lava-dispatcher" "$lab"
check "the test group has no lava-dispatcher" none_of "lava-dispatcher" "$test"
check "the test group is within the nxfw group" subset "$test" "$nxfw"
NXFW_ONLY='nasm acpica-tools uuid-dev dpkg-dev'
check "the nxfw group: what building edk2 needs ($NXFW_ONLY)" subset "$NXFW_ONLY" "$nxfw"
check "the test group has none of them (make test builds no firmware)" none_of "$NXFW_ONLY" "$test"
check "the nxfw group (what CI installs) has no lava-dispatcher" none_of "lava-dispatcher" "$nxfw"
mmu=$(mk/deps.sh --list mmu)
check "the run group is within the mmu group" subset "$run" "$mmu"
check "the mmu group: QEMU's build (meson, ninja-build, libglib2.0-dev, dpkg-dev)" subset "meson ninja-build libglib2.0-dev dpkg-dev" "$mmu"
check "the nxfw group (what CI installs) has none of QEMU's build" none_of "meson libglib2.0-dev libpixman-1-dev" "$nxfw"
mk/deps.sh --list nosuch >/dev/null 2>"$work/err"; st=$?
check "an unknown group is refused (status $st): $(head -n 1 "$work/err")" [ "$st" -eq 2 ]

# Stand-ins on PATH: dpkg-query says installed but for $MISSING, apt-get
# records its arguments.
mkdir -p "$work/bin"
cat >"$work/bin/dpkg-query" <<'SH'
#!/bin/bash
for m in $MISSING; do [ "$m" = "${!#}" ] && { echo -n not-installed; exit 0; }; done
echo -n installed
SH
cat >"$work/bin/apt-get" <<'SH'
#!/bin/bash
echo "$*" >>"$APT_LOG"
SH
cat >"$work/bin/id" <<'SH'
#!/bin/bash
echo 0
SH
chmod +x "$work/bin/"*
asked() {  # asked GROUP MISSING: the packages apt-get was asked to install
	rm -f "$work/apt.log"
	PATH=$work/bin:$PATH MISSING=$2 APT_LOG=$work/apt.log mk/deps.sh "$1" >/dev/null 2>&1
	grep '^install' "$work/apt.log" 2>/dev/null | tr ' ' '\n' | grep -v '^-' | sed 1d | sort | tr '\n' ' '
}
got=$(asked run "chromium ovmf")
check "deps for run, chromium and ovmf missing: installs ovmf alone ('$got')" [ "$got" = "ovmf " ]
got=$(asked build "chromium gnu-efi qemu-system-x86")
check "deps for build: installs gnu-efi alone ('$got')" [ "$got" = "gnu-efi " ]
got=$(asked test "chromium gnu-efi")
check "deps for test: installs chromium and gnu-efi ('$got')" [ "$got" = "chromium gnu-efi " ]
got=$(asked test "")
check "nothing missing: apt-get is not called ('$got')" [ -z "$got" ]

# Which group each target asks for, from make's own plan (-n: nothing runs).
groups() { make -n -C "$root" BUILD="$work/b" "$@" 2>/dev/null | grep -o 'mk/deps.sh [a-z]*' | sort -u | tr '\n' ' '; }
got=$(groups all)
check "make asks for the build group alone ('$got')" [ "$got" = "mk/deps.sh build " ]
got=$(groups run)
check "make run asks for build and run, no test ('$got')" [ "$got" = "mk/deps.sh build mk/deps.sh run " ]
got=$(groups image)
check "make image asks for build and run, no test ('$got')" [ "$got" = "mk/deps.sh build mk/deps.sh run " ]
got=$(groups view REPORT=x)
check "make view asks for the run group, no test ('$got')" [ "$got" = "mk/deps.sh run " ]
check "the run group has python3-jinja2 (make view's templates)" subset "python3-jinja2" "$run"
got=$(groups -k test TEST_SUITES=)
case "$got" in *"mk/deps.sh test"*) ok "make test asks for the test group";;
	*) not_ok "make test asks for '$got'";; esac
case "$got" in *"mk/deps.sh lab"*) not_ok "make test asks for the lab group ('$got')";;
	*) ok "make test does not ask for the lab group";; esac
case "$got" in *"mk/deps.sh nxfw"*) not_ok "make test asks for the nxfw group ('$got')";;
	*) ok "make test does not ask for the nxfw group";; esac
got=$(groups -k ovmf-nx)
check "make ovmf-nx asks for the nxfw group alone ('$got')" [ "$got" = "mk/deps.sh nxfw " ]
got=$(groups -k test-nxfw)
check "make test-nxfw asks for the test and nxfw groups ('$got')" \
	eval '[[ "$got" == *"mk/deps.sh nxfw"* && "$got" == *"mk/deps.sh test"* ]]'
case "$got" in *"mk/deps.sh mmu"*) not_ok "make test asks for the mmu group ('$got')";;
	*) ok "make test does not ask for the mmu group";; esac
got=$(groups lava)
check "make lava asks for build, lab and run, no test ('$got')" \
	[ "$got" = "mk/deps.sh build mk/deps.sh lab mk/deps.sh run " ]
got=$(groups -k mmu-faults)
check "make mmu-faults asks for the mmu group ('$got')" \
	eval '[[ "$got" == *"mk/deps.sh mmu"* && "$got" != *"mk/deps.sh test"* ]]'
got=$(groups -k test-lava)
check "make test-lava asks for the lab group ('$got')" \
	eval '[[ "$got" == *"mk/deps.sh lab"* && "$got" != *"mk/deps.sh test"* ]]'

# What make, make image and make run reach and use, from make's plan of
# them (tests/make-needs.py: make -pn, the targets reached through every
# prerequisite, order-only included; the programs and files the recipes and
# the tree's scripts they run name, and the packages owning them): neither
# deps-test nor deps, and no file of a package only the test group brings.
# The same reading of signed-image and linux-initrd must see both, or it
# proves nothing.
needs() { python3 tests/make-needs.py --build "$work/g" "$@" 2>&1; }
plan=$(needs all image run)
ctl=$(needs signed-image linux-initrd)
reaches() { grep -qx "target $2" <<<"$1"; }
check "make all image run reach deps-build and deps-run" \
	eval 'reaches "$plan" deps-build && reaches "$plan" deps-run'
bad=$(grep -E '^target (deps|deps-test)$' <<<"$plan" | tr '\n' ' ')
check "make all image run reach neither deps nor deps-test ('$bad')" [ -z "$bad" ]
n=$(sed -n 's/^test-only-packages //p' <<<"$plan")
check "the test group brings packages of its own (${n:-none})" [ "${n:-0}" -gt 0 ]
bad=$(grep '^test-only ' <<<"$plan" | cut -d' ' -f2- | tr '\n' ';')
check "make all image run use no file of a test-only package ('$bad'; $(grep -c '^uses ' <<<"$plan") files)" [ -z "$bad" ]
seen=$(grep '^test-only ' <<<"$ctl" | cut -d' ' -f3 | sort -u | tr '\n' ' ')
check "the same reading sees deps-test and test packages where they are (signed-image linux-initrd: $seen)" \
	eval 'reaches "$ctl" deps-test && [[ "$seen" == *sbsigntool* && "$seen" == *busybox-static* ]]'

# The build's own files: the top Makefile stays short (at most 250 lines),
# and every mk/*.mk is read exactly once (make's MAKEFILE_LIST) and says
# at its top what it holds.
headed() { [ "$(sed -n 1p "$1")" = "# SPDX-License-Identifier: MIT" ] && sed -n 3p "$1" | grep -q '^# [A-Za-z"$]'; }
lines=$(wc -l <Makefile)
check "the top Makefile has at most 250 lines ($lines)" [ "$lines" -le 250 ]
read -r -a mfl <<<"$(make -s -C "$root" BUILD="$work/g" \
	--eval 'ptlab-makefiles: ; @echo $(MAKEFILE_LIST)' ptlab-makefiles 2>/dev/null)"
for f in Makefile mk/*.mk; do
	n=0
	for m in "${mfl[@]}"; do [ "$m" = "$f" ] && n=$((n + 1)); done
	check "$f is read once (read $n times)" [ "$n" -eq 1 ]
	[ "$f" = Makefile ] && continue
	check "$f begins with a comment saying what it holds" headed "$f"
done
other=$(for m in "${mfl[@]}"; do case "$m" in Makefile|mk/*.mk) ;; *) echo "$m";; esac; done | tr '\n' ' ')
check "make reads no other makefile in a new tree ('$other')" [ -z "$other" ]

# .ci/run installs exactly the list (the nxfw group: it runs make test
# and make test-nxfw), and lists no package of its own.
check ".ci/run installs what mk/deps.sh --list nxfw prints" grep -q 'mk/deps.sh --list nxfw' .ci/run
check ".ci/run runs make test and make test-nxfw" \
	eval "grep -qx 'make test || st=\\\$?' .ci/run && grep -qx 'make test-nxfw || st=\\\$?' .ci/run"
own=$(for p in $nxfw; do [ "$p" = make ] && continue; grep -qw -- "$p" .ci/run && echo "$p"; done | tr '\n' ' ')
check ".ci/run names no package itself ('$own')" [ -z "$own" ]
own=$(for p in $TEST_ONLY; do grep -qw -- "$p" README.md && echo "$p"; done | tr '\n' ' ')
check "README points to mk/packages.txt and repeats no list ('$own')" \
	bash -c "grep -q 'mk/packages.txt' README.md && [ -z '$own' ]"

echo "packages: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
