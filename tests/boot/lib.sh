# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# Boot-test library: source it from a tests/boot/*.sh script.
#
#   . "$(dirname "$0")/lib.sh"
#   boot_init smoke                   # name used in the result line
#   boot_run --log "$BOOT_DIR/a.log" --cfg "--foo"; st=$?
#   check_status "$st" 33 "exited through isa-debug-exit 0x10"
#   check_log '^ptlab: hello$' "$BOOT_DIR/a.log" "printed the marker"
#   boot_done                         # "smoke: N passed, M failed", exit status
#
# Environment:
#   PTLAB_BUILD    build directory (default: build)
#   PTLAB_IMG      image under test (default: $PTLAB_BUILD/ptlab.img)
#   OVMF_CODE, OVMF_VARS, QEMU    firmware files and emulator
#   BOOT_TIMEOUT   seconds before QEMU is killed (default 120)
#   BOOT_KEEP=1    keep the per-test directory (logs, image copies)
#
# The isa-debug-exit device at 0xf4 makes QEMU exit with (code << 1) | 1:
# 33 for 0x10.  -no-reboot turns a triple fault into a QEMU exit, and the
# timeout turns a hang into status 124 (137 when it had to be killed).

PTLAB_BUILD=${PTLAB_BUILD:-build}
PTLAB_IMG=${PTLAB_IMG:-$PTLAB_BUILD/ptlab.img}
OVMF_CODE=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE_4M.fd}
OVMF_VARS=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS_4M.fd}
QEMU=${QEMU:-qemu-system-x86_64}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-120}

# The ESP starts 1 MiB into the image (mk/image.sh).
BOOT_ESP_OFFSET=1M
# The known deviations of the QEMU the boot tests run on, given to every
# run as --known-deviation (docs/mmu.md): QEMU 7.2 raises a reserved-bit
# #PF with P=0 in its error code.  tests/boot/mmu.sh proves that a run
# without it fails; BOOT_DEVIATIONS= (empty) gives none.
BOOT_DEVIATIONS=${BOOT_DEVIATIONS-rsvd-p0}
export MTOOLS_SKIP_CHECK=1

BOOT_NAME=boot
BOOT_DIR=
BOOT_PASS=0
BOOT_FAIL=0
BOOT_IMG_COPY=      # image copy of the last boot_run, for img_extract

# boot_init NAME: set up counters and a private work directory $BOOT_DIR.
# On exit, and on SIGINT/SIGTERM/SIGHUP (Ctrl-C on "make test"), every QEMU
# a boot of this script started is killed and gone before the directory it
# writes into is removed.
boot_init()
{
	BOOT_NAME=$1
	BOOT_PASS=0
	BOOT_FAIL=0
	mkdir -p "$PTLAB_BUILD/boot" || exit 1
	BOOT_DIR=$(mktemp -d "$PTLAB_BUILD/boot/$BOOT_NAME.XXXXXX") || exit 1
	BOOT_PIDS=$BOOT_DIR/qemu.pids
	: >"$BOOT_PIDS"
	trap boot_cleanup EXIT
	trap 'boot_interrupted 130' INT
	trap 'boot_interrupted 143' TERM
	trap 'boot_interrupted 129' HUP
}

# boot_kill_all: end every QEMU (with its timeout wrapper) started by
# boot_run in this script or its boot_bg subshells, and wait until they
# are gone.  timeout(1) runs in a process group of its own, which a Ctrl-C
# on the terminal does not reach: each group is killed by its id.
boot_kill_all()
{
	local pid tries
	[ -n "${BOOT_PIDS:-}" ] && [ -f "$BOOT_PIDS" ] || return 0
	while read -r pid; do
		[ -n "$pid" ] && kill -TERM -- "-$pid" 2>/dev/null
	done <"$BOOT_PIDS"
	for tries in $(seq 50); do
		local alive=0
		while read -r pid; do
			[ -n "$pid" ] && kill -0 -- "-$pid" 2>/dev/null && alive=1
		done <"$BOOT_PIDS"
		[ "$alive" = 0 ] && return 0
		sleep 0.2
	done
	while read -r pid; do
		[ -n "$pid" ] && kill -KILL -- "-$pid" 2>/dev/null
	done <"$BOOT_PIDS"
	sleep 0.5
}

boot_interrupted()
{
	trap - INT TERM HUP
	echo "# $BOOT_NAME: interrupted, stopping its QEMUs"
	BOOT_FAIL=$((BOOT_FAIL + 1))
	BOOT_KEEP_ON_FAIL=0
	exit "$1"
}

boot_cleanup()
{
	local tries

	boot_kill_all
	# the boot_bg subshells write their status files once their QEMU is
	# gone: wait (bounded) for them before the directory is removed
	for tries in $(seq 50); do
		[ -z "$(jobs -pr)" ] && break
		sleep 0.2
	done
	if [ "${BOOT_KEEP_ON_FAIL:-1}" = 0 ] && [ "${BOOT_KEEP:-0}" != 1 ] && [ -n "$BOOT_DIR" ]; then
		rm -rf -- "$BOOT_DIR"
	elif [ -n "$BOOT_DIR" ] && [ "${BOOT_KEEP:-0}" != 1 ] && [ "$BOOT_FAIL" -eq 0 ]; then
		rm -rf -- "$BOOT_DIR"
	elif [ -n "$BOOT_DIR" ]; then
		echo "# $BOOT_NAME: files kept in $BOOT_DIR"
	fi
}

pass()
{
	BOOT_PASS=$((BOOT_PASS + 1))
	echo "ok - $BOOT_NAME: $*"
}

fail()
{
	BOOT_FAIL=$((BOOT_FAIL + 1))
	echo "not ok - $BOOT_NAME: $*"
}

# boot_done: print the result line, return 0 when nothing failed.
boot_done()
{
	echo "$BOOT_NAME: $BOOT_PASS passed, $BOOT_FAIL failed"
	[ "$BOOT_FAIL" -eq 0 ]
}

# with_deviations TEXT: the options TEXT (a \ptlab.cfg) with
# --known-deviation=$BOOT_DEVIATIONS on a line of its own, unless TEXT
# names deviations itself or there are none to name.
with_deviations()
{
	if [ -z "$BOOT_DEVIATIONS" ] || [[ "$1" == *--known-deviation* ]]; then
		printf '%s' "$1"
	else
		printf '%s\n--known-deviation=%s' "$1" "$BOOT_DEVIATIONS"
	fi
}

# boot_run [--img IMG] [--log LOG] [--cpu CPU] [--mem MEM] [--smp N]
#          [--cfg ARGS] [--timeout S] [--usb] [--machine M] [--bios ROM]
#          [--code CODE --vars VARS] [--serial SPEC] [--serial-pipe PIPE]
#          [--tftp DIR --bootfile FILE] [-- QEMU_ARGS...]
#
# Boot a private copy of IMG (default $PTLAB_IMG) with a fresh copy of the
# firmware variables, serial output to LOG (default $BOOT_DIR/serial.log).
# --cfg writes ARGS as \ptlab.cfg on the copy (replacing any); ARGS, or the
# image's own \ptlab.cfg (or the --tftp directory's), get the known
# deviations (with_deviations).  Returns
# QEMU's exit status (124/137 on timeout).  Sets BOOT_IMG_COPY and BOOT_LOG.
# --usb attaches the image as a USB stick on an xHCI controller instead of
# a SATA disk, the way it boots from a stick on a PC.  --machine replaces
# q35 (e.g. pc); --bios boots a firmware ROM (U-Boot) instead of OVMF's
# flash; --code/--vars use other OVMF flash files (Secure Boot, 2 MiB);
# --serial gives COM1 another QEMU backend than the file LOG (which then
# stays empty), e.g. unix:SOCKET.
# --tftp boots over the network instead of a disk (no disk at all): a
# virtio NIC on QEMU's user network, whose DHCP names FILE and whose TFTP
# server serves DIR, for OVMF's PXE boot (its own virtio driver: no ROM).
# --serial-pipe makes COM1 the FIFOs PIPE.in and PIPE.out (made here):
# tests/boot/serialchat.py reads and types there and keeps the log (--log
# LOG names that file).  A FIFO, not a socket: a socket takes a few hundred
# of the UART's one-byte writes before the sender must wait, and firmware
# waiting on a busy transmitter gives up and drops what it writes.
boot_run()
{
	local img=$PTLAB_IMG log= cpu=${QEMU_CPU:-max} mem=${QEMU_MEM:-2G}
	local smp=1 cfg= has_cfg=0 tmo=$BOOT_TIMEOUT run st usb=0 pid
	local machine=q35 bios= code=$OVMF_CODE vars=$OVMF_VARS serial= pipe= tftp= bootfile=
	local -a disk fw serial_args

	while [ $# -gt 0 ]; do
		case $1 in
		--img) img=$2; shift 2 ;;
		--log) log=$2; shift 2 ;;
		--cpu) cpu=$2; shift 2 ;;
		--mem) mem=$2; shift 2 ;;
		--smp) smp=$2; shift 2 ;;
		--cfg) cfg=$2; has_cfg=1; shift 2 ;;
		--timeout) tmo=$2; shift 2 ;;
		--usb) usb=1; shift ;;
		--machine) machine=$2; shift 2 ;;
		--bios) bios=$2; shift 2 ;;
		--code) code=$2; shift 2 ;;
		--vars) vars=$2; shift 2 ;;
		--serial) serial=$2; shift 2 ;;
		--serial-pipe) pipe=$2; shift 2 ;;
		--tftp) tftp=$2; shift 2 ;;
		--bootfile) bootfile=$2; shift 2 ;;
		--) shift; break ;;
		*) echo "boot_run: unknown option $1" >&2; return 2 ;;
		esac
	done

	[ -n "$BOOT_DIR" ] || boot_init "$BOOT_NAME"
	run=$(mktemp -d "$BOOT_DIR/run.XXXXXX") || return 2
	[ -n "$log" ] || log=$run/serial.log
	[ -n "$serial" ] || serial=file:$log
	BOOT_LOG=$log
	BOOT_IMG_COPY=$run/disk.img
	: >"$log"

	if [ ! -f "$img" ]; then
		echo "boot_run: no image $img" >&2
		return 2
	fi
	cp -- "$img" "$BOOT_IMG_COPY" || return 2
	if [ -n "$bios" ]; then
		fw=(-bios "$bios")
	else
		cp -- "$vars" "$run/vars.fd" || return 2
		fw=(-drive if=pflash,format=raw,readonly=on,file="$code"
		    -drive if=pflash,format=raw,file="$run/vars.fd")
	fi
	if [ -n "$tftp" ] && [ -f "$tftp/ptlab.cfg" ]; then
		with_deviations "$(cat "$tftp/ptlab.cfg")" >"$run/tftp.cfg" &&
			mv -- "$run/tftp.cfg" "$tftp/ptlab.cfg" || return 2
	elif [ "$has_cfg" = 0 ] && [ -z "$tftp" ] && [ -n "$BOOT_DEVIATIONS" ] &&
	     mdir -i "$BOOT_IMG_COPY@@$BOOT_ESP_OFFSET" ::/EFI >/dev/null 2>&1; then
		# a FAT ESP at the usual offset: its \ptlab.cfg, or none (the defaults)
		cfg=$(mtype -i "$BOOT_IMG_COPY@@$BOOT_ESP_OFFSET" ::/ptlab.cfg 2>/dev/null)
		has_cfg=1
	fi
	if [ "$has_cfg" = 1 ]; then
		with_deviations "$cfg" >"$run/ptlab.cfg"
		echo >>"$run/ptlab.cfg"
		mcopy -o -i "$BOOT_IMG_COPY@@$BOOT_ESP_OFFSET" "$run/ptlab.cfg" \
			::/ptlab.cfg || return 2
	fi

	if [ -n "$pipe" ]; then
		rm -f -- "$pipe.in" "$pipe.out"
		mkfifo -- "$pipe.in" "$pipe.out" || return 2
		serial_args=(-chardev pipe,id=com1,path="$pipe" -serial chardev:com1)
	else
		serial_args=(-serial "$serial")
	fi
	if [ -n "$tftp" ]; then
		disk=(-netdev user,id=net0,tftp="$tftp",bootfile="$bootfile"
		      -device virtio-net-pci,netdev=net0,romfile=)
	elif [ "$usb" = 1 ]; then
		disk=(-device qemu-xhci -drive if=none,id=stick,format=raw,file="$BOOT_IMG_COPY"
		      -device usb-storage,drive=stick)
	else
		disk=(-drive format=raw,file="$BOOT_IMG_COPY")
	fi
	# in the background, so its id is recorded before it can be waited for
	timeout -k 10 "$tmo" "$QEMU" \
		-machine "$machine",accel=tcg -cpu "$cpu" -m "$mem" -smp "$smp" \
		"${fw[@]}" "${disk[@]}" \
		"${serial_args[@]}" -display none -monitor none \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-net none -no-reboot "$@" </dev/null >"$run/qemu.out" 2>&1 &
	pid=$!
	[ -n "${BOOT_PIDS:-}" ] && echo "$pid" >>"$BOOT_PIDS"
	wait "$pid"
	st=$?
	case $st in
	124|137) echo "# $BOOT_NAME: QEMU killed after ${tmo}s (status $st)" ;;
	esac
	if [ -s "$run/qemu.out" ]; then
		sed 's/^/# qemu: /' "$run/qemu.out"
	fi
	return $st
}

# The report has one reader, tools/report.py: the judges below take every
# line, fact and count of a report through it, never parse one themselves.
BOOT_REPORT_PY="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../tools" && pwd)/report.py"

# log_clean LOG: LOG without ANSI escape sequences, CRs and NULs, on stdout.
# OVMF mirrors ConOut to the serial port with cursor and colour sequences.
log_clean()
{
	python3 "$BOOT_REPORT_PY" clean "$1"
}

# log_has REGEX LOG: the cleaned log has a line matching the extended REGEX.
# (grep reads to the end: with -q it would stop early, and under pipefail
# the writer's SIGPIPE would turn a match into a failure.)
log_has()
{
	log_clean "$2" | grep -E -- "$1" >/dev/null
}

# check_log REGEX LOG DESC: a pass when the cleaned log matches REGEX.
check_log()
{
	if log_has "$1" "$2"; then
		pass "$3"
	else
		fail "$3 (no line matching /$1/ in $2)"
	fi
}

# failing_lines LOG: the report's failing test points, one a line: its
# "not ok" lines but the TODO ones (known deviations, docs/mmu.md).
failing_lines()
{
	log_clean "$1" | grep -E '^not ok ' | grep -v ' # TODO '
}

# check_no_log REGEX LOG DESC: a pass when no line of the cleaned log matches.
check_no_log()
{
	if log_has "$1" "$2"; then
		fail "$3 (found:$(log_clean "$2" | grep -E -m 3 -- "$1" | sed 's/^/ /'))"
	else
		pass "$3"
	fi
}

# check_status GOT WANT DESC
check_status()
{
	if [ "$1" -eq "$2" ]; then
		pass "$3"
	else
		fail "$3 (QEMU exit status $1, expected $2)"
	fi
}

# log_tail LOG [N]: the last N (default 40) cleaned lines, as comments.
log_tail()
{
	log_clean "$1" | tail -n "${2:-40}" | sed 's/^/# /'
}

# img_extract IMG NAME OUT: copy \NAME from the image's ESP to OUT.
img_extract()
{
	mcopy -n -o -i "$1@@$BOOT_ESP_OFFSET" "::/$2" "$3"
}

# report_lines LOG: the report's own lines (TAP, facts, notes, plan, closing)
# from a serial log or a report file, cleaned; firmware chatter is left out.
report_lines()
{
	python3 "$BOOT_REPORT_PY" lines "$1"
}

# failed_checks LOG: the checks of the report's failing test points, sorted,
# each followed by a space: the registry key each line ends in
# (" # check=KEY"), "-" for one without ("" when nothing failed).
failed_checks()
{
	python3 "$BOOT_REPORT_PY" failed "$1" | sort | tr '\n' ' '
	echo
}

# fact LOG KEY FIELD: the value of FIELD=... on the report's first "# KEY:"
# line that has FIELD, as written (hex stays hex); empty when absent.
fact()
{
	python3 "$BOOT_REPORT_PY" fact --first --raw "$1" "$2" "$3"
}

# report_counts LOG: the report's counts as shell assignments, to eval:
# tests passed failed skipped plan closing_passed closing_failed
# closing_skipped closings serial_lost (see tools/report.py counts).
report_counts()
{
	python3 "$BOOT_REPORT_PY" counts "$1"
}

# check_report LOG [DESC] [nofile]: the checks every successful run must
# satisfy - a closing line with 0 failed, the TAP plan matching the test
# points, tables built == the plan's minimum, no frame leaked, our CR3
# loaded, and (unless "nofile": after ExitBootServices there is no file
# system) \PTLAB.TXT on the image equal to the report on the serial port.
check_report()
{
	local log=$1 d=${2:-run} nofile=${3:-} total minimum leaked fw built file
	local tests=0 passed=0 failed=0 skipped=0 plan= closing_passed= closing_failed=
	local closing_skipped= closings=0 serial_lost=0
	eval "$(report_counts "$log")"
	if [ "$closings" -ge 1 ] && [ "$closing_failed" = 0 ] && [ "$closing_passed" = "$passed" ] &&
	   [ "$closing_skipped" = "$skipped" ] && [ "$passed" -gt 0 ]; then
		pass "$d: closing line $passed passed, 0 failed, $skipped skipped (matches the test points)"
	else
		fail "$d: closing line '$closing_passed passed, $closing_failed failed, $closing_skipped skipped' ($closings closing lines), the test points count $passed passed, $failed failed, $skipped skipped"
	fi
	if [ "$failed" -eq 0 ]; then
		pass "$d: no failing test point"
	else
		fail "$d: $failed failing test point(s):$(failing_lines "$log" | head -n 3 | sed 's/^/ /')"
	fi
	if [ -n "$plan" ] && [ "$tests" -eq "$plan" ] && [ "$tests" -gt 0 ]; then
		pass "$d: TAP plan 1..$plan matches $tests test points"
	else
		fail "$d: TAP plan '1..$plan' but $tests test points"
	fi
	total=$(fact "$log" tables total)
	minimum=$(fact "$log" tables minimum)
	if [ -n "$total" ] && [ "$total" = "$minimum" ]; then
		pass "$d: tables total $total == minimum"
	else
		fail "$d: tables total '$total' != minimum '$minimum'"
	fi
	leaked=$(fact "$log" frames leaked)
	if [ "$leaked" = 0 ]; then pass "$d: no frame leaked"; else fail "$d: leaked='$leaked'"; fi
	fw=$(fact "$log" cr3 firmware)
	built=$(fact "$log" cr3 built)
	if [ -n "$built" ] && [ "$built" != "$fw" ]; then
		pass "$d: built CR3 $built differs from the firmware's $fw"
	else
		fail "$d: cr3 firmware='$fw' built='$built'"
	fi
	[ "$nofile" = nofile ] && return 0
	file=$(dirname "$log")/PTLAB.TXT
	if ! img_extract "$BOOT_IMG_COPY" PTLAB.TXT "$file" 2>/dev/null; then
		fail "$d: no \\PTLAB.TXT on the image"
	elif diff <(report_lines "$log") <(report_lines "$file") >"$file.diff" &&
	     [ "$(tr -d '\r' <"$file" | wc -l)" -eq "$(report_lines "$log" | wc -l)" ]; then
		pass "$d: \\PTLAB.TXT equals the serial report ($(wc -l <"$file") lines)"
	else
		fail "$d: \\PTLAB.TXT differs from the serial report"
		sed 's/^/# /' "$file.diff" | head -n 20
	fi
}

# check_completed NAME: the last boot (BOOT_LOG, BOOT_IMG_COPY) ended early
# but completely - the report closed with the failure counted, nothing
# leaked, and \PTLAB.TXT written on the image with that closing line.
# NAME also names the extracted copy, $BOOT_DIR/NAME.txt.
check_completed()
{
	local name=$1 file=$BOOT_DIR/$1.txt last
	local closing='^ptlab: [0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped$'
	last=$(python3 "$BOOT_REPORT_PY" closings "$BOOT_LOG" | tail -n 1)
	if [[ $last =~ $closing ]]; then
		pass "$name: closing line with the failure counted ($last)"
	else
		fail "$name: last closing line '$last' counts no failure"
	fi
	if [ "$(fact "$BOOT_LOG" frames leaked)" = 0 ]; then
		pass "$name: no frame leaked"
	else
		fail "$name: leaked='$(fact "$BOOT_LOG" frames leaked)'"
	fi
	if img_extract "$BOOT_IMG_COPY" PTLAB.TXT "$file" 2>/dev/null &&
	   [[ $(python3 "$BOOT_REPORT_PY" closings "$file" | tail -n 1) =~ $closing ]]; then
		pass "$name: \\PTLAB.TXT written with the closing line"
	else
		fail "$name: no complete \\PTLAB.TXT"
	fi
}

# boot_bg TAG [boot_run options...]: boot_run in the background, so two
# boots share the machine's two cores.  boot_wait collects them.
boot_bg()
{
	local tag=$1
	shift
	(
		boot_run "$@" >"$BOOT_DIR/$tag.out" 2>&1
		echo $? >"$BOOT_DIR/$tag.status"
		printf '%s\n%s\n' "$BOOT_LOG" "$BOOT_IMG_COPY" >"$BOOT_DIR/$tag.paths"
	) &
}

# judge_efivars TAG LOG VARS [REF_LOG]: the EFI global variables a kernel
# listed in LOG through efivarfs are the firmware's variable store's (VARS,
# the boot's own flash copy, read after QEMU ended), byte for byte, and
# with REF_LOG the same as that boot's (tests/boot/efivars.py)
judge_efivars()
{
	local tag=$1 log=$2 vars=$3 ref=${4:-} l
	python3 "$(dirname "${BASH_SOURCE[0]}")/efivars.py" judge "$log" --store "$vars" \
		${ref:+--ref "$ref"} >"$BOOT_DIR/$tag.efivars" 2>&1
	while read -r l; do
		case $l in
		"ok: "*) pass "$tag: efivarfs: ${l#ok: }" ;;
		*) fail "$tag: efivarfs: ${l#FAIL: }" ;;
		esac
	done <"$BOOT_DIR/$tag.efivars"
	[ -s "$BOOT_DIR/$tag.efivars" ] || fail "$tag: efivarfs: efivars.py printed nothing"
}

# boot_quit TAG SOCKET: stop boot_bg TAG (started with -qmp unix:SOCKET,
# server=on,wait=off) with a QMP quit, unless it has already ended.
boot_quit()
{
	[ -e "$BOOT_DIR/$1.status" ] && return 0
	python3 "$(dirname "${BASH_SOURCE[0]}")/qmon.py" "$2" quit >/dev/null 2>&1
}

# boot_wait: wait for every boot_bg.
boot_wait()
{
	wait
}

# boot_result TAG: after boot_wait, set BOOT_LOG/BOOT_IMG_COPY of that boot,
# print what boot_run printed, and return its status.
boot_result()
{
	local tag=$1
	[ -f "$BOOT_DIR/$tag.status" ] || { echo "# $tag: no status"; return 2; }
	BOOT_LOG=$(sed -n 1p "$BOOT_DIR/$tag.paths")
	BOOT_IMG_COPY=$(sed -n 2p "$BOOT_DIR/$tag.paths")
	cat "$BOOT_DIR/$tag.out"
	return "$(cat "$BOOT_DIR/$tag.status")"
}

# judge_passed NAME [nofile]: the boot_bg NAME must have passed every check
# (status 0x10) with a sound report (check_report); the log's tail is shown
# when anything so far failed.
judge_passed()
{
	local name=$1 st
	boot_result "$name"
	st=$?
	check_status "$st" 33 "$name: passed (status 0x10)"
	check_report "$BOOT_LOG" "$name" "${2:-}"
	[ "$BOOT_FAIL" -eq 0 ] || log_tail "$BOOT_LOG" 30
}

# judge_ended NAME STATUS REGEX DESC: the boot_bg NAME ended with STATUS
# (35 a check failed, 37 aborted), its log has a line matching REGEX, and
# the report was still completed (check_completed).
judge_ended()
{
	local name=$1 want=$2 st
	boot_result "$name"
	st=$?
	check_status "$st" "$want" "$name: run ended with status $want and said so"
	check_log "$3" "$BOOT_LOG" "$name: $4"
	check_completed "$name"
}
