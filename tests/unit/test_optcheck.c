/* SPDX-License-Identifier: MIT */
/* covers: efi/opts/optcheck.c */
/*
 * efi/opts/optcheck.c: combinations of options refused before anything runs,
 * and --timeout's deadline saturating instead of wrapping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "unit.h"

#include "../../efi/report/fmt.h"
#include "../../efi/opts/cfgfile.h"
#include "../../efi/opts/opts.h"
#include "../../efi/opts/optcheck.h"

static int check(const char *line, char *err, size_t errlen)
{
	struct opts o;

	assert_int_equal(opts_parse_ascii(line, strlen(line), &o, err, errlen), OPTS_OK);
	return opts_validate(&o, err, errlen);
}

/* @line refused by the checks with the error @why, whole (or, @part, within it). */
static void refused_as(const char *line, const char *why, int part)
{
	char err[200];

	if (check(line, err, sizeof(err)) != -1)
		fail_msg("\"%s\" was taken", line);
	if (part ? strstr(err, why) == NULL : strcmp(err, why) != 0)
		fail_msg("\"%s\" refused with \"%s\", not \"%s\"", line, err, why);
}

static void test_optcheck_refusals_name_the_reason(void **state)
{
	char err[200];

	(void)state;
	refused_as("--raise=timeout",
		   "--raise=timeout needs --timeout=S: nothing else ends its loop", 0);
	refused_as("--mode=handoff --end=return", "cannot work after ExitBootServices", 1);
	assert_int_equal(check("--mode=handoff --end=wait", err, sizeof(err)), -1);
	refused_as("--mode=handoff --fragment --end=qemu", "--fragment works in firmware mode only", 1);
	refused_as("--inject=wrong-frame,missing-invlpg", "at most one of wrong-frame", 1);
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

/* --kernel, --initrd, --cmdline: what they go with */
static void test_optcheck_kernel_needs_handoff(void **state)
{
	const char *why = "--kernel needs --mode=handoff: a kernel runs after ExitBootServices";
	char err[200];

	(void)state;
	refused_as("--kernel=vmlinuz", why, 0);
	refused_as("--kernel=vmlinuz --mode=firmware --end=qemu", why, 0);
	assert_int_equal(check("--mode=handoff --kernel=vmlinuz", err, sizeof(err)), 0);
}

static void test_optcheck_initrd_and_cmdline_need_kernel(void **state)
{
	static const char *const alone[] = { "--mode=handoff --initrd=initrd.img",
					     "--mode=handoff --cmdline=quiet",
					     "--initrd=i --cmdline=quiet" };
	char err[200];

	(void)state;
	for (unsigned i = 0; i < sizeof(alone) / sizeof(alone[0]); i++)
		refused_as(alone[i], "--initrd and --cmdline go with --kernel", 0);
	/* an empty command line is no command line */
	assert_int_equal(check("--mode=handoff --cmdline=", err, sizeof(err)), 0);
	assert_int_equal(check("--mode=handoff --kernel=k --initrd=i \"--cmdline=console=ttyS0 quiet\"",
			       err, sizeof(err)), 0);
}

static void test_optcheck_kernel_refuses_hold_and_raise(void **state)
{
	static const char *const lines[] = {
		"--mode=handoff --kernel=k --hold",
		"--mode=handoff --kernel=k --raise=gp",
		"--mode=handoff --kernel=k --raise=badstack",
		"--mode=handoff --kernel=k --raise=la57-window",
		"--mode=handoff --kernel=k --raise=ap-fault",
		"--mode=handoff --kernel=k --raise=timeout --timeout=5",
	};
	char err[200];

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		assert_int_equal(check(lines[i], err, sizeof(err)), -1);
		assert_string_equal(err, "--kernel does not go with --hold or --raise: the run must end "
				    "in the kernel");
	}
	/* without the kernel, the same in hand-off mode runs */
	assert_int_equal(check("--mode=handoff --hold", err, sizeof(err)), 0);
	assert_int_equal(check("--mode=handoff --raise=gp", err, sizeof(err)), 0);
}

/* --end=return and --end=wait in hand-off mode: refused unless the run ends in a kernel. */
static void test_optcheck_kernel_lifts_the_handoff_end_rule(void **state)
{
	char err[200] = "";

	(void)state;
	refused_as("--mode=handoff --end=return", "cannot work after ExitBootServices", 1);
	err[0] = '\0';
	assert_int_equal(check("--mode=handoff --kernel=x --end=return", err, sizeof(err)), 0);
	assert_int_equal(check("--mode=handoff --kernel=x --end=wait", err, sizeof(err)), 0);
	assert_string_equal(err, "");
	/* the other rules still hold with a kernel */
	refused_as("--mode=handoff --kernel=x --fragment --end=qemu", "--fragment works in firmware mode only", 1);
}

/* --known-deviation: each name known, listed ones found; --matrix's two values */
static void test_optcheck_known_deviations(void **state)
{
	struct opts o;
	char err[200] = "";

	(void)state;
	assert_int_equal(check("--known-deviation=rsvd-p0", err, sizeof(err)), 0);
	assert_int_equal(check("--known-deviation=rsvd-p0,rsvd-p0", err, sizeof(err)), 0);
	assert_int_equal(check("--known-deviation=", err, sizeof(err)), 0);
	refused_as("--known-deviation=rsvd-p0,rsvd",
		   "--known-deviation: unknown deviation 'rsvd' (known: rsvd-p0)", 0);
	assert_int_equal(check("--known-deviation=rsvd-p0x", err, sizeof(err)), -1);
	assert_int_equal(check("--known-deviation=,", err, sizeof(err)), -1);
	assert_int_equal(opts_parse_ascii("--known-deviation=rsvd-p0 --matrix=full", 39, &o, err,
					  sizeof(err)), OPTS_OK);
	assert_true(opts_deviation_listed(&o, OPTS_DEV_RSVD_P0));
	assert_int_equal(o.matrix, OPTS_MATRIX_FULL);
	assert_int_equal(opts_parse_ascii("--end=qemu", 10, &o, err, sizeof(err)), OPTS_OK);
	assert_false(opts_deviation_listed(&o, OPTS_DEV_RSVD_P0));
	assert_int_equal(o.matrix, OPTS_MATRIX_REDUCED);
	assert_int_equal(opts_parse_ascii("--matrix=huge", 13, &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "--matrix needs one of reduced|full");
}

UNIT_MAIN(
	cmocka_unit_test(test_optcheck_refusals_name_the_reason),
	cmocka_unit_test(test_optcheck_accepted),
	cmocka_unit_test(test_optcheck_deadline_saturates),
	cmocka_unit_test(test_optcheck_kernel_needs_handoff),
	cmocka_unit_test(test_optcheck_initrd_and_cmdline_need_kernel),
	cmocka_unit_test(test_optcheck_kernel_refuses_hold_and_raise),
	cmocka_unit_test(test_optcheck_kernel_lifts_the_handoff_end_rule),
	cmocka_unit_test(test_optcheck_known_deviations))
