#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/mmu/run.sh MMU_DIR [FAULT...]: "make mmu-faults", the proof that
# ptlab's checks see a broken MMU.  MMU_DIR is mk/mmu-qemu.sh's build of
# Debian's QEMU 7.2 (src.done names the tree, pristine/ its untouched copy,
# obj/ the ninja build).  First the control: unmodified QEMU, every
# configuration below, each boot must pass (with the known deviations of
# QEMU 7.2 listed, when this ptlab has --known-deviation).  Then each fault
# of tests/mmu/faults.txt (or those named) alone: patched in
# (tests/mmu/faults.py apply), QEMU relinked, ptlab booted in the fault's
# configurations; it is caught when a boot does not pass, and "caught by"
# names the checks that failed (the " # check=KEY" of each "not ok" line,
# tools/report.py failed), or how the boot ended when no check line failed
# (a hang, a crash).  The tree is put back after each fault and at the end.
#
# Writes MMU_DIR/results.tsv (fault, rule, runs, caught|survived|refused,
# caught by) and prints its table (tests/mmu/faults.py table); MMU_DOC=FILE
# also writes it into FILE between its markers (docs/testing.md).
# Environment: PTLAB_BUILD (build), PTLAB_IMG, MMU_ITER (churn operations
# per boot, default 3000), MMU_TIMEOUT (seconds per boot, default 300),
# MMU_EXTRA (more \ptlab.cfg options for every boot).
# Closes with "mmu-faults: N passed, M failed" (a fault caught passes).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 MMU_DIR [FAULT...]" >&2; exit 2; }
dir=$(cd "$1" && pwd) || exit 2
shift
FAULTS=$here/faults.txt
PY="python3 $here/faults.py"
ITER=${MMU_ITER:-3000}
export BOOT_TIMEOUT=${MMU_TIMEOUT:-300}

[ -f "$dir/src.done" ] && [ -x "$dir/obj/qemu-system-x86_64" ] || {
	echo "$0: no QEMU build in $dir (make mmu-qemu)" >&2; exit 2; }
src=$(cat "$dir/src.done")
pristine=$dir/pristine

# The emulator with the firmware ROMs of Debian's QEMU packages: the dfsg
# source ships none (the VGA BIOS, kvmvapic.bin).
wrapper=$dir/qemu
printf '#!/bin/sh\nexec "%s" -L /usr/share/qemu -L /usr/share/seabios "$@"\n' \
	"$dir/obj/qemu-system-x86_64" >"$wrapper"
chmod +x "$wrapper"
export QEMU=$wrapper

# the known deviations are this script's to give (known, below), never
# tests/boot/lib.sh's default
BOOT_DEVIATIONS=
. "$root/tests/boot/lib.sh"
boot_init mmu-faults

# The known deviations of unmodified QEMU 7.2, listed when ptlab knows the
# option (tests/mmu/faults.txt's faults are judged against this baseline).
known=
if grep -q -- '--known-deviation' "$root/efi/opts/usage.c" 2>/dev/null; then
	known="--known-deviation=rsvd-p0"
fi

# conf NAME: the boot_run options and \ptlab.cfg of a configuration
conf_opts()
{
	case $1 in
	# 4 GiB: a GiB that is all RAM, so the matrix has its 1 GiB leaves
	base)    echo "--cpu max --mem 4G" ;;
	la57)    echo "--cpu max --mem 4G" ;;
	qemu64)  echo "--cpu qemu64 --mem 512M" ;;
	smp)     echo "--cpu max --mem 4G --smp 2" ;;
	handoff) echo "--cpu max --mem 4G" ;;
	esac
}
conf_cfg()
{
	local c="--end=qemu --iterations=$ITER $known ${MMU_EXTRA:-}"
	case $1 in
	la57)    c="--levels=5 $c" ;;
	handoff) c="--mode=handoff $c" ;;
	esac
	echo "$c"
}

# restore: every file a fault may patch back to the pristine copy (only
# those that differ, so ninja recompiles only what changed)
restore()
{
	local f
	while read -r f; do
		cmp -s "$pristine/$f" "$src/$f" || cp -- "$pristine/$f" "$src/$f"
	done < <($PY files "$FAULTS")
}

build()
{
	nice -n 19 ninja -C "$dir/obj" qemu-system-x86_64 >"$BOOT_DIR/ninja.log" 2>&1
}

# boots TAG CONF...: boot every CONF (two at a time); prints, per CONF,
# "CONF STATUS KEYS" (KEYS: the failing checks' keys, comma-separated, "-"
# for none)
boots()
{
	local tag=$1 c n=0 st keys
	shift
	for c in "$@"; do
		# shellcheck disable=SC2046
		boot_bg "$tag-$c" $(conf_opts "$c") --cfg "$(conf_cfg "$c")"
		n=$((n + 1))
		[ $((n % 2)) -eq 0 ] && boot_wait
	done
	boot_wait
	for c in "$@"; do
		boot_result "$tag-$c" >"$BOOT_DIR/$tag-$c.result" 2>&1
		st=$?
		# a failing line without a key counts only when no keyed one failed
		keys=$(python3 "$root/tools/report.py" failed "$BOOT_LOG" 2>/dev/null |
			sort -u | grep -vx -- - | tr '\n' ',' | sed 's/,$//')
		[ -z "$keys" ] && python3 "$root/tools/report.py" failed "$BOOT_LOG" 2>/dev/null |
			grep -qx -- - && keys="a check without a key"
		echo "$c $st ${keys:--}"
	done
}

# how a boot that failed no check line ended
ended()
{
	case $1 in
	33) echo "passed" ;;
	35) echo "a check failed" ;;
	37) echo "aborted" ;;
	39) echo "nothing checked" ;;
	124|137) echo "hang (killed after ${BOOT_TIMEOUT}s)" ;;
	# -no-reboot: a triple fault (or a reset) ends QEMU with status 0
	0) echo "the run's triple fault (no verdict)" ;;
	*) echo "QEMU status $1 (crash or triple fault)" ;;
	esac
}

if ! $PY check "$FAULTS" "$pristine" >"$BOOT_DIR/check.out" 2>&1; then
	cat "$BOOT_DIR/check.out"
	fail "tests/mmu/faults.txt matches Debian's QEMU source"
	boot_done
	exit 1
fi
pass "every fault of tests/mmu/faults.txt matches Debian's QEMU source"

restore
build || { tail -n 20 "$BOOT_DIR/ninja.log"; fail "unmodified QEMU builds"; boot_done; exit 1; }
all="base la57 qemu64 smp handoff"
# shellcheck disable=SC2086
while read -r c st keys; do
	if [ "$st" = 33 ]; then
		pass "control: unmodified QEMU, $c: every check passes${known:+ ($known)}"
	else
		fail "control: unmodified QEMU, $c: $(ended "$st"), failing: $keys"
	fi
done < <(boots control $all)
if [ "$BOOT_FAIL" -ne 0 ]; then
	echo "# the control failed: the faults' results would mean nothing"
	boot_done
	exit 1
fi
# The deviation is a verdict: without it listed, the control fails.
if [ -n "$known" ]; then
	listed=$known
	known=
	read -r _ st keys < <(boots nodev base)
	if [ "$st" != 33 ] && [ "$keys" != - ]; then
		pass "control without $listed: base fails ($keys)"
	else
		fail "control without $listed: base $(ended "$st"): QEMU 7.2's deviation not reported"
	fi
	known=$listed
fi

: >"$dir/results.tsv"
names=("$@")
[ ${#names[@]} -gt 0 ] || mapfile -t names < <($PY list "$FAULTS" | cut -f1)
for name in "${names[@]}"; do
	line=$($PY list "$FAULTS" | awk -F '\t' -v n="$name" '$1 == n')
	[ -n "$line" ] || { fail "$name: no such fault"; continue; }
	runs=$(cut -f2 <<<"$line")
	rule=$(cut -f3 <<<"$line")
	restore
	if ! $PY apply "$FAULTS" "$name" "$src" >/dev/null 2>"$BOOT_DIR/apply.err" || ! build; then
		fail "$name: not planted ($(tail -n 3 "$BOOT_DIR/apply.err" "$BOOT_DIR/ninja.log" | tr '\n' ' '))"
		printf '%s\t%s\t%s\trefused\t-\n' "$name" "$rule" "$runs" >>"$dir/results.tsv"
		continue
	fi
	by=
	# shellcheck disable=SC2046
	while read -r c st keys; do
		[ "$st" = 33 ] && continue
		if [ "$keys" != - ]; then
			by="$by${by:+; }$c: $keys"
		else
			by="$by${by:+; }$c: $(ended "$st")"
		fi
	done < <(boots "$name" $(tr ',' ' ' <<<"$runs"))
	if [ -n "$by" ]; then
		pass "$name: caught ($by)"
		printf '%s\t%s\t%s\tcaught\t%s\n' "$name" "$rule" "$runs" "$by" >>"$dir/results.tsv"
	else
		fail "$name: survived every run ($runs): $rule"
		printf '%s\t%s\t%s\tsurvived\t-\n' "$name" "$rule" "$runs" >>"$dir/results.tsv"
	fi
done

restore
build || fail "the tree rebuilds unmodified"
echo "# the table (tests/mmu/faults.py table $dir/results.tsv):"
$PY table "$dir/results.tsv" | sed 's/^/# /'
if [ -n "${MMU_DOC:-}" ]; then
	$PY table "$dir/results.tsv" "$MMU_DOC" && echo "# written into $MMU_DOC"
fi
BOOT_NAME=mmu-faults
boot_done
