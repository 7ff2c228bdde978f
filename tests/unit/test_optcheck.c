/* SPDX-License-Identifier: MIT */
/*
 * efi/optcheck.c: combinations of options refused before anything runs,
 * and --timeout's deadline saturating instead of wrapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../efi/fmt.h"
#include "../../efi/opts.h"
#include "../../efi/optcheck.h"

static int check(const char *line, char *err, size_t errlen)
{
	struct opts o;

	assert_int_equal(opts_parse_ascii(line, strlen(line), &o, err, errlen), OPTS_OK);
	return opts_validate(&o, err, errlen);
}

static void test_optcheck_refusals_name_the_reason(void **state)
{
	char err[200];

	(void)state;
	assert_int_equal(check("--raise=timeout", err, sizeof(err)), -1);
	assert_string_equal(err, "--raise=timeout needs --timeout=S: nothing else ends its loop");
	assert_int_equal(check("--mode=handoff --end=return", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot work after ExitBootServices"));
	assert_int_equal(check("--mode=handoff --end=wait", err, sizeof(err)), -1);
	assert_int_equal(check("--mode=handoff --fragment --end=qemu", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--fragment works in firmware mode only"));
	assert_int_equal(check("--inject=wrong-frame,missing-invlpg", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most one of wrong-frame"));
	assert_int_equal(check("--inject=freed-table --inject=missing-shootdown", err, sizeof(err)),
			 -1);
	/* tiny or no error buffer: still refused, never overflowed */
	assert_int_equal(check("--raise=timeout", err, 4), -1);
	assert_string_equal(err, "--r");
	assert_int_equal(check("--raise=timeout", NULL, 0), -1);
}

static void test_optcheck_accepted(void **state)
{
	char err[200] = "";

	(void)state;
	assert_int_equal(check("--raise=timeout --timeout=3", err, sizeof(err)), 0);
	assert_int_equal(check("--mode=handoff --end=qemu --dump-memmap --dump", err, sizeof(err)), 0);
	assert_int_equal(check("--mode=handoff", err, sizeof(err)), 0);
	assert_int_equal(check("--fragment --end=return", err, sizeof(err)), 0);
	assert_int_equal(check("--raise=gp", err, sizeof(err)), 0);
	assert_int_equal(check("--inject=wrong-frame,lint-ps,wx-page,ap-call", err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

static void test_optcheck_deadline_saturates(void **state)
{
	(void)state;
	assert_int_equal(opts_deadline(100, 0, 3000), 0);
	assert_int_equal(opts_deadline(100, 2, 3000), 100 + UINT64_C(6000000000));
	/* no calibration: 1000 ticks per microsecond */
	assert_int_equal(opts_deadline(0, 1, 0), UINT64_C(1000000000));
	/* the largest --timeout the parser takes: never wraps to "already passed" */
	assert_true(opts_deadline(UINT64_C(1) << 40, UINT64_MAX, 3000) == UINT64_MAX);
	assert_true(opts_deadline(UINT64_MAX - 5, 1, 3000) == UINT64_MAX);
	/* just fits, and one second more does not */
	assert_true(opts_deadline(0, UINT64_MAX / UINT64_C(3000000000), 3000) ==
		    UINT64_MAX / UINT64_C(3000000000) * UINT64_C(3000000000));
	assert_true(opts_deadline(UINT64_C(3000000000), UINT64_MAX / UINT64_C(3000000000), 3000) ==
		    UINT64_MAX);
	/* an absurd TSC rate */
	assert_true(opts_deadline(0, 1, UINT64_MAX / 2) == UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_optcheck_refusals_name_the_reason),
		cmocka_unit_test(test_optcheck_accepted),
		cmocka_unit_test(test_optcheck_deadline_saturates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
