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

static struct serline line;
static struct fake wire;

/* The line fresh, on a wire that behaves as @w says. */
static void begin(struct fake w)
{
	wire = w;
	serline_init(&line, FULL, PROBE);
}

static void test_no_stall_sends_everything(void **state)
{
	(void)state;
	begin((struct fake){ .stall_to = 0 });
	assert_int_equal(say(&line, &wire, "ok 1 - a\n"), 9);
	assert_int_equal(say(&line, &wire, "ptlab: 1 passed"), 15);
	assert_int_equal(say(&line, &wire, "\n"), 1);
	assert_string_equal(wire.out, "ok 1 - a\r\nptlab: 1 passed\r\n");
	assert_int_equal(line.lost, 0);
	assert_int_equal(line.stalls, 0);
	/* one poll per byte sent, "\r" included */
	assert_int_equal(wire.clock, wire.n);
}

/* A stall shorter than the budget is waited out: nothing lost. */
static void test_short_stall_is_waited_out(void **state)
{
	(void)state;
	begin((struct fake){ .stall_from = 3, .stall_to = 3 + FULL - 10 });
	assert_int_equal(say(&line, &wire, "abcdef\n"), 7);
	assert_string_equal(wire.out, "abcdef\r\n");
	assert_int_equal(line.lost, 0);
	assert_false(line.stalled);
}

/*
 * A stall longer than the budget: the rest of that line is lost and
 * counted; later lines wait only PROBE ticks while it lasts (and lose
 * themselves whole); once it is over the next line goes out, on a line of
 * its own.  The port is never given up.
 */
static void test_long_stall_loses_then_retries(void **state)
{
	uint64_t t;

	(void)state;
	begin((struct fake){ .stall_from = 3, .stall_to = 5000 });
	/* "abc" out, then the budget runs out: "def\n" lost (4 bytes) */
	assert_int_equal(say(&line, &wire, "abcdef\n"), 3);
	assert_int_equal(line.lost, 4);
	assert_true(line.stalled && line.cut && !line.dead);
	assert_true(wire.clock >= FULL && wire.clock <= FULL + 2);
	/* still stalled: a whole line lost after only PROBE ticks */
	t = wire.clock;
	assert_int_equal(say(&line, &wire, "ghi\n"), 0);
	assert_int_equal(line.lost, 8);
	assert_true(wire.clock - t <= PROBE + 2);
	assert_int_equal(line.stalls, 2);
	/* the stall is over: the cut line is ended first, then the text, all of it */
	wire.clock = 5000;
	assert_int_equal(say(&line, &wire, "jkl\n"), 4);
	assert_string_equal(wire.out, "abc\r\njkl\r\n");
	assert_int_equal(line.lost, 8);
	assert_false(line.stalled || line.cut || line.dead);
	/* and the next one has the full budget again */
	wire.stall_from = wire.clock;
	wire.stall_to = wire.clock + FULL / 2;
	assert_int_equal(say(&line, &wire, "mno\n"), 4);
	assert_int_equal(line.lost, 8);
}

/* After a stall, a byte that goes out within PROBE gives the line the full budget. */
static void test_probe_success_restores_full_budget(void **state)
{
	(void)state;
	begin((struct fake){ .stall_from = 1, .stall_to = 2000 });
	assert_int_equal(say(&line, &wire, "ab"), 1);     /* "a", then stalled: "b" lost */
	assert_true(line.stalled);
	/* ready again now; a second stall right after the first byte, shorter than FULL */
	wire.clock = 2000;
	wire.stall_from = 2003;
	wire.stall_to = 2003 + FULL / 2;
	assert_int_equal(say(&line, &wire, "cdef"), 4);   /* "\r\n" ends the cut line, then all of it */
	assert_string_equal(wire.out, "a\r\ncdef");
	assert_int_equal(line.lost, 1);
}

/* A text starting with its line break ends the cut line itself: no empty line added. */
static void test_cut_line_ended_by_its_own_break(void **state)
{
	(void)state;
	begin((struct fake){ .stall_from = 2, .stall_to = 1500 });
	assert_int_equal(say(&line, &wire, "xyz"), 2);
	wire.clock = 1500;
	assert_int_equal(say(&line, &wire, "\n"), 1);
	assert_string_equal(wire.out, "xy\r\n");
	assert_false(line.cut);
}

/* A port that never took a byte is given up for good: no more waiting. */
static void test_never_worked_is_given_up(void **state)
{
	uint64_t t;

	(void)state;
	begin((struct fake){ .never = true });
	assert_int_equal(say(&line, &wire, "hello\n"), 0);
	assert_true(line.dead);
	assert_int_equal(line.lost, 6);
	t = wire.clock;
	wire.never = false;
	assert_int_equal(say(&line, &wire, "again\n"), 0);
	assert_int_equal(wire.clock, t);                /* not even polled */
	assert_int_equal(line.lost, 12);
	assert_int_equal(wire.n, 0);
}

/* A port that worked once is never given up, however long it stalls. */
static void test_worked_once_never_dead(void **state)
{
	(void)state;
	begin((struct fake){ .stall_from = 1, .stall_to = UINT64_MAX });
	assert_int_equal(say(&line, &wire, "a\n"), 1);
	for (int i = 0; i < 50; i++)
		assert_int_equal(say(&line, &wire, "line\n"), 0);
	assert_false(line.dead);
	assert_int_equal(line.lost, 1 + 50 * 5);
	/* 50 lines on a stalled port cost PROBE ticks each, not FULL */
	assert_true(wire.clock < FULL + 50 * (PROBE + 2) + 10);
}

UNIT_MAIN(
	cmocka_unit_test(test_no_stall_sends_everything),
	cmocka_unit_test(test_short_stall_is_waited_out),
	cmocka_unit_test(test_long_stall_loses_then_retries),
	cmocka_unit_test(test_probe_success_restores_full_budget),
	cmocka_unit_test(test_cut_line_ended_by_its_own_break),
	cmocka_unit_test(test_never_worked_is_given_up),
	cmocka_unit_test(test_worked_once_never_dead))
