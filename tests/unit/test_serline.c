/* SPDX-License-Identifier: MIT */
/* covers: efi/report/serline.c */
/*
 * Writing a polled transmitter with a budget per line (efi/report/serline.c),
 * on a port of the test's own: a clock that advances one tick per poll of
 * the transmitter, stalls given as tick intervals in which it is not ready,
 * and the bytes that went out recorded.  What each case expects is worked
 * out from that timeline by hand: which bytes go out, which are lost, what
 * the clock reads after.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "unit.h"

#include "../../efi/report/serline.h"

#define FULL  1000u   /* ticks a write may wait */
#define PROBE 10u     /* ... while the port is stalled */

struct fake {
	uint64_t clock;                /* ticks: one per poll */
	uint64_t stall_from, stall_to; /* not ready while stall_from <= clock < stall_to */
	bool never;                    /* never ready */
	char out[512];
	size_t n;
};

static bool ready(void *ctx)
{
	struct fake *f = ctx;
	bool r = !f->never && !(f->clock >= f->stall_from && f->clock < f->stall_to);

	f->clock++;
	return r;
}

static void put(void *ctx, uint8_t c)
{
	struct fake *f = ctx;

	assert_true(f->n < sizeof(f->out) - 1);
	f->out[f->n++] = (char)c;
	f->out[f->n] = 0;
}

static uint64_t now(void *ctx)
{
	return ((struct fake *)ctx)->clock;
}

static size_t say(struct serline *s, struct fake *f, const char *text)
{
	const struct serline_port port = { ready, put, now, f };

	return serline_write(s, &port, text, strlen(text));
}

static void test_no_stall_sends_everything(void **state)
{
	struct fake f = { .stall_to = 0 };
	struct serline s;

	(void)state;
	serline_init(&s, FULL, PROBE);
	assert_int_equal(say(&s, &f, "ok 1 - a\n"), 9);
	assert_int_equal(say(&s, &f, "ptlab: 1 passed"), 15);
	assert_int_equal(say(&s, &f, "\n"), 1);
	assert_string_equal(f.out, "ok 1 - a\r\nptlab: 1 passed\r\n");
	assert_int_equal(s.lost, 0);
	assert_int_equal(s.stalls, 0);
	/* one poll per byte sent, "\r" included */
	assert_int_equal(f.clock, f.n);
}

/* A stall shorter than the budget is waited out: nothing lost. */
static void test_short_stall_is_waited_out(void **state)
{
	struct fake f = { .stall_from = 3, .stall_to = 3 + FULL - 10 };
	struct serline s;

	(void)state;
	serline_init(&s, FULL, PROBE);
	assert_int_equal(say(&s, &f, "abcdef\n"), 7);
	assert_string_equal(f.out, "abcdef\r\n");
	assert_int_equal(s.lost, 0);
	assert_false(s.stalled);
}

/*
 * A stall longer than the budget: the rest of that line is lost and
 * counted; later lines wait only PROBE ticks while it lasts (and lose
 * themselves whole); once it is over the next line goes out, on a line of
 * its own.  The port is never given up.
 */
static void test_long_stall_loses_then_retries(void **state)
{
	struct fake f = { .stall_from = 3, .stall_to = 5000 };
	struct serline s;
	uint64_t t;

	(void)state;
	serline_init(&s, FULL, PROBE);
	/* "abc" out, then the budget runs out: "def\n" lost (4 bytes) */
	assert_int_equal(say(&s, &f, "abcdef\n"), 3);
	assert_int_equal(s.lost, 4);
	assert_true(s.stalled && s.cut && !s.dead);
	assert_true(f.clock >= FULL && f.clock <= FULL + 2);
	/* still stalled: a whole line lost after only PROBE ticks */
	t = f.clock;
	assert_int_equal(say(&s, &f, "ghi\n"), 0);
	assert_int_equal(s.lost, 8);
	assert_true(f.clock - t <= PROBE + 2);
	assert_int_equal(s.stalls, 2);
	/* the stall is over: the cut line is ended first, then the text, all of it */
	f.clock = 5000;
	assert_int_equal(say(&s, &f, "jkl\n"), 4);
	assert_string_equal(f.out, "abc\r\njkl\r\n");
	assert_int_equal(s.lost, 8);
	assert_false(s.stalled || s.cut || s.dead);
	/* and the next one has the full budget again */
	f.stall_from = f.clock;
	f.stall_to = f.clock + FULL / 2;
	assert_int_equal(say(&s, &f, "mno\n"), 4);
	assert_int_equal(s.lost, 8);
}

/* After a stall, a byte that goes out within PROBE gives the line the full budget. */
static void test_probe_success_restores_full_budget(void **state)
{
	struct fake f = { .stall_from = 1, .stall_to = 2000 };
	struct serline s;

	(void)state;
	serline_init(&s, FULL, PROBE);
	assert_int_equal(say(&s, &f, "ab"), 1);     /* "a", then stalled: "b" lost */
	assert_true(s.stalled);
	/* ready again now; a second stall right after the first byte, shorter than FULL */
	f.clock = 2000;
	f.stall_from = 2003;
	f.stall_to = 2003 + FULL / 2;
	assert_int_equal(say(&s, &f, "cdef"), 4);   /* "\r\n" ends the cut line, then all of it */
	assert_string_equal(f.out, "a\r\ncdef");
	assert_int_equal(s.lost, 1);
}

/* A text starting with its line break ends the cut line itself: no empty line added. */
static void test_cut_line_ended_by_its_own_break(void **state)
{
	struct fake f = { .stall_from = 2, .stall_to = 1500 };
	struct serline s;

	(void)state;
	serline_init(&s, FULL, PROBE);
	assert_int_equal(say(&s, &f, "xyz"), 2);
	f.clock = 1500;
	assert_int_equal(say(&s, &f, "\n"), 1);
	assert_string_equal(f.out, "xy\r\n");
	assert_false(s.cut);
}

/* A port that never took a byte is given up for good: no more waiting. */
static void test_never_worked_is_given_up(void **state)
{
	struct fake f = { .never = true };
	struct serline s;
	uint64_t t;

	(void)state;
	serline_init(&s, FULL, PROBE);
	assert_int_equal(say(&s, &f, "hello\n"), 0);
	assert_true(s.dead);
	assert_int_equal(s.lost, 6);
	t = f.clock;
	f.never = false;
	assert_int_equal(say(&s, &f, "again\n"), 0);
	assert_int_equal(f.clock, t);                /* not even polled */
	assert_int_equal(s.lost, 12);
	assert_int_equal(f.n, 0);
}

/* A port that worked once is never given up, however long it stalls. */
static void test_worked_once_never_dead(void **state)
{
	struct fake f = { .stall_from = 1, .stall_to = UINT64_MAX };
	struct serline s;

	(void)state;
	serline_init(&s, FULL, PROBE);
	assert_int_equal(say(&s, &f, "a\n"), 1);
	for (int i = 0; i < 50; i++)
		assert_int_equal(say(&s, &f, "line\n"), 0);
	assert_false(s.dead);
	assert_int_equal(s.lost, 1 + 50 * 5);
	/* 50 lines on a stalled port cost PROBE ticks each, not FULL */
	assert_true(f.clock < FULL + 50 * (PROBE + 2) + 10);
}

UNIT_MAIN(
	cmocka_unit_test(test_no_stall_sends_everything),
	cmocka_unit_test(test_short_stall_is_waited_out),
	cmocka_unit_test(test_long_stall_loses_then_retries),
	cmocka_unit_test(test_probe_success_restores_full_budget),
	cmocka_unit_test(test_cut_line_ended_by_its_own_break),
	cmocka_unit_test(test_never_worked_is_given_up),
	cmocka_unit_test(test_worked_once_never_dead))
