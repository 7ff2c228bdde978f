#!/bin/bash
# SPDX-License-Identifier: MIT
#
# lava/run.sh DIR IMAGE TIMEOUT OPTIONS
#
# "make lava": run ptlab's QEMU job with Debian's lava-run (standalone, no
# lava-server) and print what LAVA made of it.  In DIR:
#   job.yaml    the job (LAVA_JOB, default lava/jobs/qemu-ovmf.yaml) rendered
#               for IMAGE, TIMEOUT seconds, OPTIONS (the image's \ptlab.cfg,
#               recorded as the job's metadata); it and the device are
#               checked against lava-server's schemas first
#   lava.log    lava-run's log: one YAML record a line
#   output/     lava-run's output directory (description.yaml, result.yaml)
# The device's lines are shown as they come; the last line is
# lava/results.py's summary of LAVA's result records ("lava: P passed,
# F failed, S skipped (job ID complete)", or the timeout or other reason
# the job did not complete), and its exit status is this script's.
#
# Environment: LAVA_JOB, LAVA_DEVICE (default lava/devices/qemu-ovmf.yaml),
# LAVA_DISPATCHER (default lava/dispatcher.yaml), LAVA_JOB_ID (default the
# time in seconds), LAVA_PYTHON (the Python lava-dispatcher is installed
# for, default /usr/bin/python3: it checks the job and the device against
# lava_common's schemas).  lava-run must run as root.
set -uo pipefail

if [ $# -ne 4 ]; then
	echo "usage: lava/run.sh DIR IMAGE TIMEOUT OPTIONS" >&2
	exit 2
fi
dir=$1 image=$2 timeout=$3 options=$4
here=$(cd "$(dirname "$0")" && pwd)
job=${LAVA_JOB:-$here/jobs/qemu-ovmf.yaml}
device=${LAVA_DEVICE:-$here/devices/qemu-ovmf.yaml}
dispatcher=${LAVA_DISPATCHER:-$here/dispatcher.yaml}
id=${LAVA_JOB_ID:-$(date +%s)}
py=${LAVA_PYTHON:-/usr/bin/python3}

if [ "$(id -u)" -ne 0 ]; then
	echo "lava: lava-run runs jobs as root only: sudo make lava" >&2
	exit 1
fi
if ! command -v lava-run >/dev/null 2>&1; then
	echo "lava: no lava-run (Debian package lava-dispatcher: mk/deps.sh lab)" >&2
	exit 1
fi
case $timeout in
''|*[!0-9]*|0) echo "lava: LAVA_TIMEOUT='$timeout' is no number of seconds" >&2; exit 2 ;;
esac

mkdir -p "$dir" || exit 1
rm -rf -- "$dir/output" "$dir/lava.log" "$dir/job.yaml"
python3 "$here/render.py" job "$job" --image "$image" --timeout "$timeout" \
	"--options=$options" >"$dir/job.yaml" || exit 1
"$py" "$here/render.py" check job "$dir/job.yaml" || exit 1
"$py" "$here/render.py" check device "$device" || exit 1
echo "lava: job $id: $dir/job.yaml on $(basename "$device" .yaml), log $dir/lava.log"

lava-run --job-id "$id" --output-dir "$dir/output" --device "$device" \
	--dispatcher "$dispatcher" "$dir/job.yaml" 2>&1 |
	python3 "$here/results.py" follow "$dir/lava.log"
python3 "$here/results.py" --job-id "$id" summary "$dir/lava.log"
