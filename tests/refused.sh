# SPDX-License-Identifier: MIT
#
# Sourced by the suites that prove a checker refuses what it must
# (tests/layers.sh, tests/interfaces.sh, tests/sizes.sh, tests/protocols.sh,
# tests/covers.sh): the ok/not ok counters, scratch(), tree_passes() and
# check_refuses(), one judgement of one refusal, names(), one line looked for.

# the top of the tree this file is in
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
pass=0 fail=0
ok()     { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }

# check_refuses WHAT NEEDLE OUT CMD...: CMD (its output in OUT) must fail, with a
# 'not ok' line, and name NEEDLE; one ok or not ok line says which.
check_refuses() {
	local what=$1 needle=$2 out=$3
	shift 3
	if "$@" >"$out" 2>&1; then
		not_ok "$what: the check passed"
	elif ! grep -q '^not ok' "$out"; then
		not_ok "$what: the check failed without a 'not ok' line"
		sed 's/^/# /' "$out"
	elif grep -qF -- "$needle" "$out"; then
		ok "$what: refused, naming '$needle'"
	else
		not_ok "$what: refused, but '$needle' is not named:"
		grep -A 3 '^not ok' "$out" | sed 's/^/# /'
	fi
}

# names OUT REGEX WHAT: OUT has a line matching REGEX (grep's): one ok line
# WHAT, or a not ok line with OUT's not ok lines as comments.
names() {
	grep -q -- "$2" "$1" && { ok "$3"; return; }
	not_ok "$3: no line matches '$2':"
	grep -A 8 '^not ok' "$1" | sed 's/^/# /'
}

# scratch NAME: $work, a private directory of this script's, removed when
# it exits.
scratch() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/ptlab-$1.XXXXXX") || exit 1
	trap 'rm -rf "$work"' EXIT
}

# tree_passes WHAT OUT CMD...: CMD (its output in OUT), run on the tree as
# it is, must pass: one ok line "WHAT:" with CMD's own ok lines as
# comments, or a not ok line with its failures.
tree_passes() {
	local what=$1 out=$2
	shift 2
	if "$@" >"$out" 2>&1; then
		ok "$what:"
		sed -n 's/^ok - /# /p' "$out"
	else
		not_ok "$what: no"
		grep -A 20 '^not ok' "$out" | grep -v ': [0-9]* passed, [0-9]* failed$' | sed 's/^/# /'
	fi
}
