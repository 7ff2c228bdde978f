#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/check-undefined.sh [--no-summary] [--prefixes LIST] LIB
#                           [[--prefixes LIST] LIB]...
# Environment: NM (default nm), ALLOWED (symbols a library may leave
# undefined; default: memset memcpy memmove), ALLOWED_PREFIXES
# (symbol prefixes also allowed; default: none).  --prefixes replaces
# ALLOWED_PREFIXES for the libraries after it, e.g. "__asan_ __ubsan_" for
# the sanitizer runtime of host builds.
#
# Proves each static library is self-contained: every symbol some member
# leaves undefined is defined by another member, is in ALLOWED, starts with
# one of ALLOWED_PREFIXES, or is the linker-made _GLOBAL_OFFSET_TABLE_ of
# -fpic code.  A library that cannot be read, or that has no member
# defining anything, fails (an empty archive would pass vacuously).
# Prints one ok/not ok line per library and, unless --no-summary,
# "undefined: N passed, M failed".  Exits non-zero on any failure.
# mk/check-freestanding.sh uses it for the firmware archive.
set -uo pipefail

: "${NM:=nm}" "${ALLOWED=memset memcpy memmove}" "${ALLOWED_PREFIXES=}"
summary=1
if [ "${1:-}" = --no-summary ]; then
	summary=0
	shift
fi
pass=0 fail=0

# allowed SYMBOL: 0 when SYMBOL may stay undefined.
allowed()
{
	local p
	case " $ALLOWED _GLOBAL_OFFSET_TABLE_ " in
	*" $1 "*) return 0 ;;
	esac
	for p in $ALLOWED_PREFIXES; do
		case $1 in
		"$p"*) return 0 ;;
		esac
	done
	return 1
}

while [ $# -gt 0 ]; do
	if [ "$1" = --prefixes ] && [ $# -ge 2 ]; then
		ALLOWED_PREFIXES=$2
		shift 2
		continue
	fi
	lib=$1
	shift
	if [ ! -f "$lib" ] || ! $NM "$lib" >/dev/null 2>&1; then
		fail=$((fail + 1))
		echo "not ok - $lib: missing or unreadable"
		continue
	fi
	# Undefined in some member and defined in none.
	defined=$($NM --defined-only "$lib" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u)
	if [ -z "$defined" ]; then
		fail=$((fail + 1))
		echo "not ok - $lib: defines no symbol"
		continue
	fi
	undef=$($NM -u "$lib" 2>/dev/null | awk 'NF == 2 { print $2 }' | sort -u |
		comm -23 - <(printf '%s\n' "$defined"))
	bad=()
	for s in $undef; do
		allowed "$s" || bad+=("$s")
	done
	if [ ${#bad[@]} -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok - $lib: undefined symbols within: $ALLOWED$(for p in $ALLOWED_PREFIXES; do printf " %s*" "$p"; done)"
	else
		fail=$((fail + 1))
		echo "not ok - $lib needs symbols from outside: ${bad[*]}"
	fi
done

[ "$summary" = 0 ] || echo "undefined: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
