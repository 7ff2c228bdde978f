/* SPDX-License-Identifier: MIT */
/* covers: efi/core/verdict.c */
/*
 * efi/core/verdict.c: the run's verdict from the report's counts and the
 * aborted flag, its isa-debug-exit code (QEMU exits with (code << 1) | 1:
 * 33, 35, 37, 39), its word and its line for the runs variable, and the
 * steps of each --end action.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

#include "../../efi/core/verdict.h"

/*
 * The reference, written from the rules as the boot suites read them:
 * an aborted run is 0x12 whatever else happened; then a failed test point
 * makes 0x11; then no test point passed or failed is 0x13 (skips do not
 * count); else 0x10.
 */
static unsigned reference_code(unsigned passed, unsigned failed, bool aborted)
{
	if (aborted)
		return 0x12;
	if (failed)
		return 0x11;
	if (!passed)
		return 0x13;
	return 0x10;
}

static void test_verdict_every_combination(void **state)
{
	static const unsigned counts[] = { 0, 1, 2, 1000 };

	(void)state;
	for (unsigned i = 0; i < 4; i++)
		for (unsigned k = 0; k < 4; k++)
			for (unsigned s = 0; s < 2; s++)
				for (int a = 0; a < 2; a++) {
					struct report r = { .passed = counts[i], .failed = counts[k],
							    .skipped = s };
					unsigned want = reference_code(counts[i], counts[k], a);

					assert_int_equal(verdict_exit_code(verdict_of(&r, a)), want);
				}
}

static void test_verdict_codes_and_words(void **state)
{
	(void)state;
	assert_int_equal(verdict_exit_code(VERDICT_PASSED), 0x10);
	assert_int_equal(verdict_exit_code(VERDICT_FAILED), 0x11);
	assert_int_equal(verdict_exit_code(VERDICT_ABORTED), 0x12);
	assert_int_equal(verdict_exit_code(VERDICT_NOTHING), 0x13);
	assert_string_equal(verdict_word(VERDICT_PASSED), "pass");
	assert_string_equal(verdict_word(VERDICT_FAILED), "fail");
	assert_string_equal(verdict_word(VERDICT_ABORTED), "aborted");
	assert_string_equal(verdict_word(VERDICT_NOTHING), "nothing checked");
}

/* No report (the run ended before it began): never a pass. */
static void test_verdict_without_report(void **state)
{
	(void)state;
	assert_int_equal(verdict_of(NULL, false), VERDICT_FAILED);
	assert_int_equal(verdict_of(NULL, true), VERDICT_ABORTED);
}

static void test_verdict_line(void **state)
{
	struct report r = { .passed = 3, .failed = 1, .skipped = 2 };
	char buf[80], want[80];

	(void)state;
	verdict_line(&r, false, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s (%u passed, %u failed, %u skipped)", "fail", 3u, 1u, 2u);
	assert_string_equal(buf, want);
	r.failed = 0;
	verdict_line(&r, true, buf, sizeof(buf));
	assert_string_equal(buf, "aborted (3 passed, 0 failed, 2 skipped)");
	r.passed = 0;
	verdict_line(&r, false, buf, sizeof(buf));
	assert_string_equal(buf, "nothing checked (0 passed, 0 failed, 2 skipped)");
}

/*
 * The --end actions, written out step by step for both sides of
 * ExitBootServices: what the firmware mode and a hand-off that could not
 * leave boot services do, and what a hand-off does after it.
 */
static void test_end_steps(void **state)
{
	static const struct {
		enum opts_end end;
		bool bs;
		unsigned steps;
	} want[] = {
		{ OPTS_END_RETURN, true, 0 },
		{ OPTS_END_WAIT, true, END_STEP_WAIT_KEY | END_STEP_RESET },
		{ OPTS_END_SHUTDOWN, true, END_STEP_RESET },
		{ OPTS_END_REBOOT, true, END_STEP_RESET },
		{ OPTS_END_HALT, true, END_STEP_HALT },
		{ OPTS_END_QEMU, true, END_STEP_DEBUG_EXIT | END_STEP_RESET },
		{ OPTS_END_RETURN, false, END_STEP_RESET | END_STEP_HALT },
		{ OPTS_END_WAIT, false, END_STEP_RESET | END_STEP_HALT },
		{ OPTS_END_SHUTDOWN, false, END_STEP_RESET | END_STEP_HALT },
		{ OPTS_END_REBOOT, false, END_STEP_RESET | END_STEP_HALT },
		{ OPTS_END_HALT, false, END_STEP_HALT },
		{ OPTS_END_QEMU, false, END_STEP_DEBUG_EXIT | END_STEP_RESET | END_STEP_HALT },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		unsigned got = end_steps(want[i].end, want[i].bs);

		if (got != want[i].steps)
			fail_msg("--end=%u boot services %d: steps 0x%x, want 0x%x", (unsigned)want[i].end,
				 want[i].bs, got, want[i].steps);
	}
}

UNIT_MAIN(
	cmocka_unit_test(test_verdict_every_combination),
	cmocka_unit_test(test_verdict_codes_and_words),
	cmocka_unit_test(test_verdict_without_report),
	cmocka_unit_test(test_verdict_line),
	cmocka_unit_test(test_end_steps))
