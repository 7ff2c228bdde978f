#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mk/check-freestanding.sh LIB WORKDIR
# Environment: CC, CFLAGS (exactly the flags paging/ is built with for the
# firmware), NM, ALLOWED (undefined symbols LIB may have, besides the
# linker-made _GLOBAL_OFFSET_TABLE_ of -fpic code), EFI_INC (gnu-efi headers).
# SRCS: the paging/ sources and efi/'s firmware-free modules.
#
# Proves that paging/ cannot see firmware headers, that no source in SRCS
# includes one, and that
# its firmware build needs nothing from outside but ALLOWED.
# Prints one ok/not ok line per check and "freestanding: N passed, M failed".
set -uo pipefail

lib=$1 dir=$2
: "${CC:?}" "${CFLAGS:?}" "${NM:=nm}" "${ALLOWED:=}"
pass=0 fail=0

ok()     { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }

mkdir -p "$dir"

# probe NAME EXPECT(compiles|fails) LINE...
probe() {
	local name=$1 expect=$2 src="$dir/$1.c"
	shift 2
	printf '%s\n' "$@" >"$src"
	# shellcheck disable=SC2086  # CFLAGS is a word list
	if $CC $CFLAGS -c "$src" -o "$dir/$name.o" >"$dir/$name.log" 2>&1; then
		got=compiles
	else
		got=fails
	fi
	if [ "$got" = "$expect" ]; then
		ok "paging/ flags: $name $got"
	else
		not_ok "paging/ flags: $name $got, expected it to be $expect"
		sed 's/^/# /' "$dir/$name.log"
	fi
}

# Control: the freestanding headers and the public headers must work, so the
# failures below are about the headers and not broken flags.
probe control compiles '#include <stdbool.h>' '#include <stddef.h>' \
	'#include <stdint.h>' '#include <ptlab/pt.h>' 'int probe(void);' \
	'int probe(void) { return (int)sizeof(uint64_t); }'
probe efi_h fails '#include <efi.h>' 'int probe(void);'
probe efilib_h fails '#include <efilib.h>' 'int probe(void);'

# <efi/efi.h> is reachable through /usr/include, so also list every header
# each source in SRCS really includes with these flags (system headers too):
# none may lie below EFI_INC.
efi_inc=${EFI_INC:-/usr/include/efi}
for src in $SRCS; do
	# shellcheck disable=SC2086
	if ! hdrs=$($CC $CFLAGS -M "$src" 2>&1); then
		not_ok "$src: header scan failed"
		sed 's/^/# /' <<<"$hdrs"
	elif grep -q "$efi_inc/" <<<"$hdrs"; then
		not_ok "$src includes gnu-efi headers:" \
			$(tr ' \\' '\n\n' <<<"$hdrs" | grep "$efi_inc/")
	else
		ok "$src includes no header below $efi_inc"
	fi
done

# The archive's undefined symbols: tests/check-undefined.sh prints the
# ok/not ok line.
if NM=$NM ALLOWED=$ALLOWED ALLOWED_PREFIXES= \
	"$(dirname "$0")/../tests/check-undefined.sh" --no-summary "$lib"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi

echo "freestanding: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
