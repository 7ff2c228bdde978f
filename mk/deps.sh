#!/bin/bash
# SPDX-License-Identifier: MIT
#
#   mk/deps.sh GROUP          check the packages of GROUP (build, run, test,
#                             lab, nxfw, mmu: mk/packages.txt) and of every group it builds
#                             on; as root, install the missing ones with
#                             apt-get, otherwise say what to install and fail
#   mk/deps.sh --list GROUP   print those packages, one line, and nothing else
#
# Prints nothing and calls no package tool but dpkg-query when all are there.
set -euo pipefail

LIST=$(dirname "$0")/packages.txt

# packages GROUP: the packages of GROUP and of the groups below it, in order
packages()
{
	local group=$1 base="" line name below rest found=0

	while read -r line; do
		line=${line%%#*}
		[ -n "${line// /}" ] || continue
		read -r name below rest <<<"$line"
		[ "${name%:}" = "$group" ] || continue
		found=1
		base=$below
		echo "$rest"
	done <"$LIST"
	if [ $found -eq 0 ]; then
		echo "mk/deps.sh: no group '$group' in $LIST (build, run, test, lab, nxfw, mmu)" >&2
		return 1
	fi
	if [ "$base" != - ]; then
		packages "$base"
	fi
}

list=0
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
if [ $# -ne 1 ]; then
	echo "usage: mk/deps.sh [--list] build|run|test|lab|nxfw|mmu" >&2
	exit 2
fi
all=$(packages "$1") || exit 2
read -r -a PKGS <<<"$(echo $all | tr ' ' '\n' | awk '!seen[$0]++' | tr '\n' ' ')"

if [ $list -eq 1 ]; then
	echo "${PKGS[*]}"
	exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "ptlab: dpkg-query not found, not checking packages (need: ${PKGS[*]})" >&2
	exit 0
fi

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "ptlab: installing missing packages ($1): ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update
	apt-get install -y --no-install-recommends "${missing[@]}"
	exit 0
fi

echo "ptlab: missing packages ($1): ${missing[*]}; run: sudo apt-get install ${missing[*]}" >&2
exit 1
