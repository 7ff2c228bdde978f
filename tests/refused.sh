# SPDX-License-Identifier: MIT
#
# Sourced by the suites that prove a checker refuses what it must
# (tests/layers.sh, tests/interfaces.sh, tests/sizes.sh): the ok/not ok
# counters and check_refuses(), one judgement of one refusal.

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
