#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Ctrl-C on "make test" leaves nothing behind: a boot script (two boots in
# the background, as the suites run them) gets SIGINT on its whole process
# group as soon as its first QEMU exists; afterwards no QEMU of it may be
# left running and its work directory, which those QEMUs write into, must
# be gone.  timeout(1) puts each QEMU in a process group of its own, out of
# reach of the terminal's SIGINT: lib.sh has to end them itself.
set -uo pipefail

. "$(dirname "$0")/lib.sh"

boot_init interrupt

child_build=$BOOT_DIR/child
mkdir -p "$child_build"
cat >"$BOOT_DIR/child.sh" <<'CHILD'
#!/bin/bash
set -uo pipefail
. "$LIB"
boot_init victim
boot_bg one --cfg "--hold" --mem 512M --timeout 300
boot_bg two --cfg "--hold" --mem 512M --timeout 300
boot_wait
boot_done
CHILD
chmod +x "$BOOT_DIR/child.sh"

# QEMUs (and their timeout wrappers) whose command line names the child's
# build directory: their pids, from /proc (listing only)
child_qemus()
{
	local f
	for f in /proc/[0-9]*/cmdline; do
		tr '\0' ' ' 2>/dev/null <"$f" | grep -F -- "$child_build/boot/victim." |
			grep -F -- "$QEMU" >/dev/null && basename "$(dirname "$f")"
	done
}

# the child in a process group of its own, as make test is to a terminal,
# with SIGINT at its default (a background job of a script starts with it
# ignored); its boots halt with --hold, so only the interrupt ends them
LIB=$(cd "$(dirname "$0")" && pwd)/lib.sh PTLAB_BUILD=$child_build PTLAB_IMG=$PTLAB_IMG \
	setsid env --default-signal=INT "$BOOT_DIR/child.sh" >"$BOOT_DIR/child.out" 2>&1 &
child=$!
seen=0
for _ in $(seq 300); do
	if [ -n "$(child_qemus)" ]; then
		seen=1
		break
	fi
	sleep 0.1
done
if [ "$seen" = 1 ]; then
	pass "the first QEMU of the interrupted script started"
	sleep 1   # let the second one start too, or not: either way
	kill -INT -- "-$child"
else
	fail "no QEMU of the child script appeared within 30 s"
	kill -TERM -- "-$child" 2>/dev/null
fi
# the script must end promptly (its QEMUs would run for 300 s)
for _ in $(seq 300); do
	kill -0 "$child" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$child" 2>/dev/null; then
	fail "the interrupted script still runs 30 s after SIGINT"
	kill -KILL -- "-$child" 2>/dev/null
else
	pass "the interrupted script ended"
fi
left=$(child_qemus | tr '\n' ' ')
if [ -z "$left" ]; then
	pass "no QEMU of the interrupted script is left running"
else
	fail "QEMU left running after SIGINT: pids $left"
	for pid in $left; do kill -KILL "$pid" 2>/dev/null; done
fi
dirs=$(find "$child_build/boot" -mindepth 1 -maxdepth 1 -name 'victim.*' 2>/dev/null)
if [ -z "$dirs" ]; then
	pass "its work directory is gone"
else
	fail "work directory left behind: $dirs"
fi
if grep -q '^# victim: interrupted, stopping its QEMUs' "$BOOT_DIR/child.out"; then
	pass "the script said it was interrupted"
else
	fail "the script did not report the interrupt"
fi
sed 's/^/# child: /' "$BOOT_DIR/child.out"

boot_done
