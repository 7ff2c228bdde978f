/* SPDX-License-Identifier: MIT */
/*
 * efi/report/report.c: exact TAP lines, counters, overflow policy and the cursor.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../efi/cpu/trap.h"
#include "../../efi/report/fmt.h"
#include "../../efi/report/report.h"

static void test_report_tap_lines_are_exact(void **state)
{
	char buf[1024];
	struct report r;

	(void)state;
	report_init(&r, buf, sizeof(buf));
	assert_string_equal(buf, "");
	assert_int_equal(report_ok(&r, "map identity %u ranges", 12u), 0);
	assert_int_equal(report_fail(&r, "translate: va 0x%llx", 0x1000ULL), 0);
	assert_int_equal(report_skip(&r, "la57", "CPU has no %s", "LA57"), 0);
	assert_int_equal(report_fact(&r, "cpu", "maxphyaddr=%u nx=%d", 46u, 1), 0);
	assert_int_equal(report_note(&r, "progress %u/%u", 1u, 2u), 0);
	report_finish(&r);
	assert_string_equal(buf,
			    "ok 1 - map identity 12 ranges\n"
			    "not ok 2 - translate: va 0x1000\n"
			    "ok 3 - la57 # SKIP CPU has no LA57\n"
			    "# cpu: maxphyaddr=46 nx=1\n"
			    "# progress 1/2\n"
			    "1..3\n"
			    "ptlab: 1 passed, 1 failed, 1 skipped\n");
	assert_int_equal(r.passed, 1);
	assert_int_equal(r.failed, 1);
	assert_int_equal(r.skipped, 1);
	assert_int_equal(r.dropped, 0);
	assert_int_equal(r.len, strlen(buf));
}

/* With a check's key set, its ok and not ok lines end in it; skips, facts and notes do not. */
static void test_report_check_key_ends_test_points(void **state)
{
	char buf[1024];
	struct report r;

	(void)state;
	report_init(&r, buf, sizeof(buf));
	assert_null(r.check);
	r.check = "wx-page";
	assert_int_equal(report_ok(&r, "audit: %s", "clean"), 0);
	assert_int_equal(report_fail(&r, "audit: wx_bytes=%u", 4096u), 0);
	assert_int_equal(report_skip(&r, "audit", "no %s", "RAM"), 0);
	assert_int_equal(report_note(&r, "progress"), 0);
	r.check = NULL;
	assert_int_equal(report_ok(&r, "churn: fine"), 0);
	assert_string_equal(buf,
			    "ok 1 - audit: clean # check=wx-page\n"
			    "not ok 2 - audit: wx_bytes=4096 # check=wx-page\n"
			    "ok 3 - audit # SKIP no RAM\n"
			    "# progress\n"
			    "ok 4 - churn: fine\n");
	assert_int_equal(r.passed, 2);
	assert_int_equal(r.failed, 1);
	assert_int_equal(r.skipped, 1);
}

/* A keyed point ends in its own key, and the key in force before is back after it. */
static void test_report_keyed_point_keeps_the_outer_key(void **state)
{
	char buf[512];
	struct report r;

	(void)state;
	report_init(&r, buf, sizeof(buf));
	r.check = "outer";
	assert_int_equal(report_keyed(&r, "inner", false, "switch: %s", "refused"), 0);
	assert_ptr_equal(r.check, "outer");
	assert_int_equal(report_keyed(&r, "inner", true, "switch: fine"), 0);
	assert_int_equal(report_ok(&r, "after"), 0);
	r.check = NULL;
	assert_int_equal(report_keyed(&r, "alone", true, "unkeyed around"), 0);
	assert_null(r.check);
	assert_string_equal(buf,
			    "not ok 1 - switch: refused # check=inner\n"
			    "ok 2 - switch: fine # check=inner\n"
			    "ok 3 - after # check=outer\n"
			    "ok 4 - unkeyed around # check=alone\n");
	assert_int_equal(r.passed, 3);
	assert_int_equal(r.failed, 1);
}

/* A known deviation: "not ok" with TAP's TODO, counted with the passed, never failed. */
static void test_report_todo_is_reported_not_failed(void **state)
{
	char buf[1024];
	struct report r;

	(void)state;
	report_init(&r, buf, sizeof(buf));
	report_ok(&r, "a");
	r.check = "mmu-rsvd";
	report_todo(&r, "rsvd-p0", "mmu: %d cases", 3);
	r.check = NULL;
	report_todo(&r, "rsvd-p0", "b");
	report_finish(&r);
	assert_string_equal(buf, "ok 1 - a\n"
			    "not ok 2 - mmu: 3 cases # TODO known deviation rsvd-p0 # check=mmu-rsvd\n"
			    "not ok 3 - b # TODO known deviation rsvd-p0\n"
			    "1..3\n"
			    "ptlab: 3 passed, 0 failed, 0 skipped\n");
	assert_int_equal(r.failed, 0);
	assert_int_equal(r.todo, 2);
}

static void test_report_empty_report_has_plan_zero(void **state)
{
	char buf[256];
	struct report r;

	(void)state;
	report_init(&r, buf, sizeof(buf));
	report_finish(&r);
	assert_string_equal(buf, "1..0\nptlab: nothing checked (0 passed, 0 failed, 0 skipped)\n");
}

/* A run whose only test point was skipped checked nothing: never a pass line. */
static void test_report_only_skips_is_nothing_checked(void **state)
{
	char buf[256];
	struct report r;

	(void)state;
	report_init(&r, buf, sizeof(buf));
	report_skip(&r, "ptlab", "the CPU has no NX bit");
	report_finish(&r);
	assert_string_equal(buf, "ok 1 - ptlab # SKIP the CPU has no NX bit\n1..1\n"
			    "ptlab: nothing checked (0 passed, 0 failed, 1 skipped)\n");
}

static void test_report_newlines_in_text_become_spaces(void **state)
{
	char buf[512];
	struct report r;

	(void)state;
	report_init(&r, buf, sizeof(buf));
	report_fail(&r, "a: %s", "two\nlines\r");
	assert_string_equal(buf, "not ok 1 - a: two lines \n");
}

static void test_report_ignores_lines_after_finish(void **state)
{
	char buf[512], copy[512];
	struct report r;

	(void)state;
	report_init(&r, buf, sizeof(buf));
	report_ok(&r, "one");
	report_finish(&r);
	strcpy(copy, buf);
	assert_int_equal(report_ok(&r, "late"), -1);
	assert_int_equal(report_note(&r, "late"), -1);
	report_finish(&r);
	assert_string_equal(buf, copy);
	assert_int_equal(r.passed, 1);
}

/* The closing line says what COM1 lost, and nothing when it lost nothing. */
static void test_report_closing_line_names_serial_loss(void **state)
{
	char buf[512];
	struct report r;

	(void)state;
	report_init(&r, buf, sizeof(buf));
	report_ok(&r, "a");
	report_finish_lost(&r, 4545);
	assert_string_equal(buf, "ok 1 - a\n1..1\nptlab: 1 passed, 0 failed, 0 skipped "
			    "(serial lost 4545 bytes)\n");
	report_init(&r, buf, sizeof(buf));
	report_skip(&r, "b", "why");
	report_finish_lost(&r, 7);
	assert_string_equal(buf, "ok 1 - b # SKIP why\n1..1\nptlab: nothing checked (0 passed, 0 failed, "
			    "1 skipped) (serial lost 7 bytes)\n");
	report_init(&r, buf, sizeof(buf));
	report_ok(&r, "a");
	report_finish_lost(&r, 0);
	assert_string_equal(buf, "ok 1 - a\n1..1\nptlab: 1 passed, 0 failed, 0 skipped\n");
}

/* A full buffer still takes the longest finish lines, loss included. */
static void test_report_reserve_holds_longest_finish(void **state)
{
	/* room for one line of 25 bytes and its NUL: the finish lines have the reserve alone */
	enum { SIZE = REPORT_RESERVE + 26 };
	char buf[SIZE];
	struct report r;

	(void)state;
	report_init(&r, buf, SIZE);
	for (unsigned i = 0; i < 100; i++)
		report_skip(&r, "x", "reason %u", i);
	assert_int_equal(r.len, strlen("ok 1 - x # SKIP reason 0\n"));
	r.tests = r.skipped = 4294967295u;
	r.dropped = 4294967295u;
	report_finish_lost(&r, UINT64_MAX);
	assert_non_null(strstr(buf, "(serial lost 18446744073709551615 bytes)\n"));
	assert_non_null(strstr(buf, "1..4294967295\n"));
}

/* Many lines into a small buffer: counting goes on, closing line stays. */
static void test_report_truncation_keeps_counts_and_closing_line(void **state)
{
	enum { SIZE = REPORT_RESERVE + 100 };
	char *buf = malloc(SIZE + 16);
	struct report r;
	const char *closing = "ptlab: 334 passed, 333 failed, 333 skipped\n";

	(void)state;
	assert_non_null(buf);
	memset(buf + SIZE, 0x5a, 16);	/* guard past the end */
	report_init(&r, buf, SIZE);
	for (unsigned int i = 0; i < 1000; i++) {
		if (i % 3 == 0)
			report_ok(&r, "test %u", i);
		else if (i % 3 == 1)
			report_fail(&r, "test %u: bad", i);
		else
			report_skip(&r, "test", "reason %u", i);
		report_note(&r, "note %u", i);
	}
	report_finish(&r);
	assert_int_equal(r.tests, 1000);
	assert_int_equal(r.passed, 334);
	assert_int_equal(r.failed, 333);
	assert_int_equal(r.skipped, 333);
	assert_true(r.dropped > 1900);
	assert_true(strlen(buf) < SIZE);
	for (int i = 0; i < 16; i++)
		assert_int_equal((unsigned char)buf[SIZE + i], 0x5a);
	assert_true(strlen(buf) > strlen(closing));
	assert_string_equal(buf + strlen(buf) - strlen(closing), closing);
	assert_non_null(strstr(buf, "1..1000\nptlab:"));
	{
		char want[64];

		snprintf(want, sizeof(want),
			 "# report truncated: %u lines dropped\n1..1000\n",
			 r.dropped);
		assert_non_null(strstr(buf, want));
	}
	/* The first lines are the ones kept. */
	assert_memory_equal(buf, "ok 1 - test 0\n# note 0\n", 23);
	free(buf);
}

/* Every stored line is whole: a line that does not fit is not cut. */
static void test_report_never_stores_partial_lines(void **state)
{
	char buf[REPORT_RESERVE + 40];
	struct report r;

	(void)state;
	report_init(&r, buf, sizeof(buf));
	assert_int_equal(report_ok(&r, "short"), 0);
	assert_int_equal(report_ok(&r, "a much longer name that cannot fit in the rest"), -1);
	assert_int_equal(report_ok(&r, "s"), 0);
	report_finish(&r);
	assert_string_equal(buf,
			    "ok 1 - short\n"
			    "ok 3 - s\n"
			    "# report truncated: 1 lines dropped\n"
			    "1..3\n"
			    "ptlab: 3 passed, 0 failed, 0 skipped\n");
}

/* Smaller than the reserve: nothing but what fits of the finish lines. */
static void test_report_tiny_buffer_never_overflows(void **state)
{
	char buf[24];
	struct report r;

	(void)state;
	memset(buf, 'x', sizeof(buf));
	report_init(&r, buf, 20);
	assert_int_equal(report_ok(&r, "x"), -1);
	report_finish(&r);
	assert_string_equal(buf, "1..1\n");
	assert_memory_equal(buf + 20, "xxxx", 4);
	report_init(&r, buf, 0);
	report_ok(&r, "x");
	report_finish(&r);
	assert_memory_equal(buf + 20, "xxxx", 4);
}

static void collect(const struct report *r, size_t *cursor, char *out, size_t size)
{
	const char *line;
	size_t len, used = strlen(out);

	while (report_next_line(r, cursor, &line, &len)) {
		assert_true(used + len + 2 < size);
		assert_null(memchr(line, '\n', len));
		memcpy(out + used, line, len);
		used += len;
		out[used++] = '\n';
		out[used] = '\0';
	}
}

/* Interleaved adds and drains: each line once, in order, nothing lost. */
static void test_report_cursor_delivers_each_line_once(void **state)
{
	char buf[4096], seen[4096] = "", seen2[4096] = "";
	size_t cursor = 0, cursor2 = 0;
	const char *line;
	size_t len;
	struct report r;

	(void)state;
	report_init(&r, buf, sizeof(buf));
	assert_false(report_next_line(&r, &cursor, &line, &len));
	report_ok(&r, "a");
	report_note(&r, "progress");
	collect(&r, &cursor, seen, sizeof(seen));
	assert_string_equal(seen, "ok 1 - a\n# progress\n");
	assert_false(report_next_line(&r, &cursor, &line, &len));
	report_fail(&r, "b: c");
	collect(&r, &cursor, seen, sizeof(seen));
	report_finish(&r);
	collect(&r, &cursor, seen, sizeof(seen));
	assert_false(report_next_line(&r, &cursor, &line, &len));
	assert_string_equal(seen, buf);
	/* A second consumer starting late sees everything, independently. */
	collect(&r, &cursor2, seen2, sizeof(seen2));
	assert_string_equal(seen2, buf);
}

/* Drain while the buffer overflows: dropped lines never appear later. */
static void test_report_cursor_with_truncation(void **state)
{
	enum { SIZE = REPORT_RESERVE + 64 };
	char buf[SIZE], seen[4096] = "";
	size_t cursor = 0;
	struct report r;

	(void)state;
	report_init(&r, buf, SIZE);
	for (unsigned int i = 0; i < 50; i++) {
		report_ok(&r, "t%u", i);
		collect(&r, &cursor, seen, sizeof(seen));
	}
	report_finish(&r);
	collect(&r, &cursor, seen, sizeof(seen));
	assert_string_equal(seen, buf);
	assert_non_null(strstr(seen, "ptlab: 50 passed, 0 failed, 0 skipped\n"));
}

/*
 * report_exception() writes the one line for an unexpected exception in
 * each wording the application uses: a live phase (with RSP), the
 * hand-off's own phase and its fatal path (no RSP), an AP (what became of
 * it).  Expected: the line each caller wrote with its own format before.
 */
static void test_report_exception_wordings(void **state)
{
	static const struct trap_fault f = { .vector = 14, .error = 0x2, .cr2 = 0x40000000fff8,
					     .rip = 0xffffffff81000123, .rsp = 0x400000001000 };
	static const struct trap_fault gp = { .vector = 13, .rip = 0x1234 };
	static const struct trap_fault irq = { .vector = 0x30, .rip = 0x10 };
	char buf[2048], want[2048];
	struct report r;
	int n = 0;

	(void)state;
	report_init(&r, buf, sizeof(buf));
	report_exception(&r, &(struct report_exc){ .who = "raise", .where = "", .rsp = true }, &f);
	report_exception(&r, &(struct report_exc){ .who = "handoff", .where = " outside the checks" },
			 &gp);
	report_exception(&r, &(struct report_exc){ .who = "smp cpu 2 (apic 2)",
			 .then = "the AP parked" }, &f);
	report_exception(&r, &(struct report_exc){ .who = "live checks", .where = "", .rsp = true },
			 &irq);
	n += snprintf(want + n, sizeof(want) - n, "not ok 1 - %s: unexpected exception vector=%u "
		      "(%s) rip=0x%llx cr2=0x%llx error=0x%llx rsp=0x%llx\n", "raise", 14u, "#PF",
		      0xffffffff81000123ULL, 0x40000000fff8ULL, 0x2ULL, 0x400000001000ULL);
	n += snprintf(want + n, sizeof(want) - n, "not ok 2 - handoff: unexpected exception outside "
		      "the checks vector=%u (%s) rip=0x%llx cr2=0x%llx error=0x%llx\n", 13u, "#GP",
		      0x1234ULL, 0ULL, 0ULL);
	n += snprintf(want + n, sizeof(want) - n, "not ok 3 - smp cpu %u (apic %u): unexpected "
		      "exception vector=%u (%s) rip=0x%llx cr2=0x%llx error=0x%llx; %s\n", 2u, 2u, 14u,
		      "#PF", 0xffffffff81000123ULL, 0x40000000fff8ULL, 0x2ULL, "the AP parked");
	snprintf(want + n, sizeof(want) - n, "not ok 4 - %s: unexpected exception vector=%u (%s) "
		 "rip=0x%llx cr2=0x%llx error=0x%llx rsp=0x%llx\n", "live checks", 48u, "interrupt",
		 0x10ULL, 0ULL, 0ULL, 0ULL);
	assert_string_equal(buf, want);
	assert_int_equal(r.failed, 4);
	assert_int_equal(r.passed, 0);
}

/* Vector names: the SDM's mnemonics up to #CP (21), "interrupt" beyond. */
static void test_report_vector_names(void **state)
{
	(void)state;
	assert_string_equal(report_vector_name(0), "#DE");
	assert_string_equal(report_vector_name(2), "NMI");
	assert_string_equal(report_vector_name(8), "#DF");
	assert_string_equal(report_vector_name(14), "#PF");
	assert_string_equal(report_vector_name(18), "#MC");
	assert_string_equal(report_vector_name(21), "#CP");
	assert_string_equal(report_vector_name(22), "interrupt");
	assert_string_equal(report_vector_name(TRAP_VEC_NONE), "interrupt");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_tap_lines_are_exact),
		cmocka_unit_test(test_report_check_key_ends_test_points),
		cmocka_unit_test(test_report_keyed_point_keeps_the_outer_key),
		cmocka_unit_test(test_report_empty_report_has_plan_zero),
		cmocka_unit_test(test_report_todo_is_reported_not_failed),
		cmocka_unit_test(test_report_newlines_in_text_become_spaces),
		cmocka_unit_test(test_report_ignores_lines_after_finish),
		cmocka_unit_test(test_report_truncation_keeps_counts_and_closing_line),
		cmocka_unit_test(test_report_closing_line_names_serial_loss),
		cmocka_unit_test(test_report_reserve_holds_longest_finish),
		cmocka_unit_test(test_report_never_stores_partial_lines),
		cmocka_unit_test(test_report_tiny_buffer_never_overflows),
		cmocka_unit_test(test_report_cursor_delivers_each_line_once),
		cmocka_unit_test(test_report_cursor_with_truncation),
		cmocka_unit_test(test_report_only_skips_is_nothing_checked),
		cmocka_unit_test(test_report_exception_wordings),
		cmocka_unit_test(test_report_vector_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
