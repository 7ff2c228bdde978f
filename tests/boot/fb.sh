# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# Framebuffer checks for boot tests: source it (after lib.sh, or alone).
#
#   qemu ... -qmp unix:$dir/qmp.sock,server=on,wait=off ... &
#   fb_wait_log '^marker' serial.log 120 || fail "..."
#   fb_screendump $dir/qmp.sock shot.ppm
#   fb_render 1280 800 want.ppm bgrx <lines.txt
#   fb_compare shot.ppm want.ppm [TOLERANCE]
#
# The guest draws with efi/report/fbcon.c; fb_render draws the same lines with
# the same code on the host ($PTLAB_BUILD/host/fbrender, "make fbrender"),
# so the two images must be equal pixel for pixel.  QEMU's screendump
# converts the guest's framebuffer to RGB, whatever the pixel format.
#
# The functions print "# ..." diagnostics and return non-zero on failure;
# callers turn that into pass/fail lines.

FB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PTLAB_BUILD=${PTLAB_BUILD:-build}
FBRENDER=${FBRENDER:-$PTLAB_BUILD/host/fbrender}

# fb_wait_log REGEX LOG SECONDS [DONE]: wait until a line of LOG (cleaned
# as lib.sh's log_clean does) matches the extended REGEX.  DONE, when given, is
# a file that appears when the boot has ended (boot_bg's $BOOT_DIR/TAG.status):
# then the log is read once more and the wait gives up at once.
fb_wait_log()
{
	local re=$1 log=$2 end=$((SECONDS + $3)) done=${4:-} last=0
	while :; do
		[ -n "$done" ] && [ -e "$done" ] && last=1
		if [ -f "$log" ] && LC_ALL=C sed -e 's/\x1b\[[0-9;?=]*[ -/]*[@-~]//g' \
			-e 's/\x1b[()][0-9A-Za-z]//g' -e 's/\x1b[=>78cDEHM]//g' \
			-e 's/\r//g' -e 's/\x00//g' "$log" | grep -E -- "$re" >/dev/null; then
			return 0
		fi
		if [ "$last" = 1 ]; then
			echo "# fb_wait_log: no line matching /$re/ in $log; the boot ended"
			return 1
		fi
		[ "$SECONDS" -le "$end" ] || break
		sleep 0.2
	done
	echo "# fb_wait_log: no line matching /$re/ in $log after $3 s"
	return 1
}

# fb_screendump SOCKET OUT: screendump over the QMP socket into OUT (PPM).
fb_screendump()
{
	rm -f -- "$2"
	python3 "$FB_DIR/qmon.py" "$1" screendump "$(realpath -m -- "$2")" >/dev/null || return 1
	if [ ! -s "$2" ]; then
		echo "# fb_screendump: $2 not written"
		return 1
	fi
}

# fb_render WIDTH HEIGHT OUT [rgbx|bgrx] [STRIDE] < LINES: the reference image.
fb_render()
{
	local -a opt=()
	[ -n "${4:-}" ] && opt+=(-f "$4")
	[ -n "${5:-}" ] && opt+=(-s "$5")
	if [ ! -x "$FBRENDER" ]; then
		echo "# fb_render: $FBRENDER not built (make BUILD=$PTLAB_BUILD fbrender)"
		return 1
	fi
	"$FBRENDER" "${opt[@]}" "$1" "$2" "$3"
}

# fb_compare GOT WANT [TOLERANCE]: two PPM (P6, maxval 255) images of the
# same size whose pixels differ in at most TOLERANCE (default 0) pixels;
# a pixel differs when any channel does.  Prints the count and the first
# differing pixels (x, y, got, want).
fb_compare()
{
	python3 - "$1" "$2" "${3:-0}" <<'PY'
import sys

def ppm(path):
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    if fields[0] != b"P6" or int(fields[3]) != 255:
        sys.exit(f"# fb_compare: {path}: not a P6 PPM with maxval 255")
    w, h = int(fields[1]), int(fields[2])
    pix = data[pos + 1:pos + 1 + 3 * w * h]
    if len(pix) != 3 * w * h:
        sys.exit(f"# fb_compare: {path}: truncated ({len(pix)} of {3 * w * h} bytes)")
    return w, h, pix

got, want, tol = sys.argv[1], sys.argv[2], int(sys.argv[3])
gw, gh, g = ppm(got)
ww, wh, w = ppm(want)
if (gw, gh) != (ww, wh):
    sys.exit(f"# fb_compare: {got} is {gw}x{gh}, {want} is {ww}x{wh}")
diff = [i for i in range(gw * gh) if g[3 * i:3 * i + 3] != w[3 * i:3 * i + 3]] \
    if g != w else []
print(f"# fb_compare: {gw}x{gh}, {len(diff)} pixels differ (tolerance {tol})")
for i in diff[:5]:
    print(f"#   x={i % gw} y={i // gw} got {g[3*i:3*i+3].hex()} want {w[3*i:3*i+3].hex()}")
sys.exit(0 if len(diff) <= tol else 1)
PY
}
