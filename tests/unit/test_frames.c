// SPDX-License-Identifier: MIT
/* covers: paging/frames.c */
/*
 * Host tests for paging/frames.c.
 *
 * The fixture is a block of host memory standing for physical
 * [FX_BASE, FX_BASE + size); FX_BASE is not zero and not 2 MiB aligned, so
 * a physical address used as a pointer is caught by ASan and the allocator
 * has to find the aligned windows itself.  Memory is filled with 0xa5 so a
 * frame handed out without zeroing is noticed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include <ptlab/frames.h>

#define FX_BASE UINT64_C(0x0000005300100000)   /* 1 MiB past a 2 MiB boundary */
#define K4 PT_SIZE_4K
#define M2 PT_SIZE_2M
#define G1 PT_SIZE_1G

struct fx {
	uint8_t *mem;
	uint64_t base;
	uint64_t size;
	bool fake;            /* no memory behind it: phys_to_virt must not be called */
	unsigned p2v_calls;
	struct pt_frames f;
	uint64_t *bm;
	size_t bm_bytes;
};

static void *fx_p2v(void *ctx, uint64_t pa)
{
	struct fx *x = ctx;

	x->p2v_calls++;
	if (x->fake)
		fail_msg("phys_to_virt(0x%llx) on a range without memory",
			 (unsigned long long)pa);
	if (pa < x->base || pa + K4 > x->base + x->size || pa % K4)
		fail_msg("phys_to_virt(0x%llx) outside the fixture", (unsigned long long)pa);
	return x->mem + (pa - x->base);
}

/* Initialise over @n ranges; the block covers [FX_BASE, FX_BASE + size). */
static void fx_init_ranges(struct fx *x, uint64_t size, const struct pt_range *r, unsigned n)
{
	memset(x, 0, sizeof(*x));
	x->base = FX_BASE;
	x->size = size;
	x->mem = aligned_alloc(K4, size);
	assert_non_null(x->mem);
	memset(x->mem, 0xa5, size);
	x->bm_bytes = pt_frames_bitmap_bytes(r, n);
	x->bm = calloc(1, x->bm_bytes ? x->bm_bytes : 8);
	assert_non_null(x->bm);
	assert_int_equal(pt_frames_init(&x->f, r, n, x->bm, x->bm_bytes, fx_p2v, x), PT_OK);
}

static void fx_init(struct fx *x, uint64_t frames)
{
	struct pt_range r = { FX_BASE, frames * K4 };

	fx_init_ranges(x, frames * K4, &r, 1);
}

/* A range with no memory behind it (runs only: they are never zeroed). */
static void fx_init_fake(struct fx *x, uint64_t pa, uint64_t len)
{
	struct pt_range r = { pa, len };

	memset(x, 0, sizeof(*x));
	x->fake = true;
	x->bm_bytes = pt_frames_bitmap_bytes(&r, 1);
	x->bm = calloc(1, x->bm_bytes);
	assert_non_null(x->bm);
	assert_int_equal(pt_frames_init(&x->f, &r, 1, x->bm, x->bm_bytes, fx_p2v, x), PT_OK);
}

static void fx_fini(struct fx *x)
{
	free(x->mem);
	free(x->bm);
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* Counters and bitmap, to prove a refused call changed nothing else. */
struct state {
	struct pt_frames f;
	uint64_t *bm;
};

static void state_take(struct state *s, const struct fx *x)
{
	s->f = x->f;
	s->bm = malloc(x->bm_bytes ? x->bm_bytes : 8);
	assert_non_null(s->bm);
	memcpy(s->bm, x->bm, x->bm_bytes);
}

/* Equal except the named counter, which must have grown by one. */
static void state_check(struct state *s, const struct fx *x, const uint64_t *grown_field)
{
	struct pt_frames want = s->f;

	if (grown_field) {
		size_t off = (size_t)((const char *)grown_field - (const char *)&x->f);

		(*(uint64_t *)((char *)&want + off))++;
	}
	assert_memory_equal(&want, &x->f, sizeof(want));
	assert_memory_equal(s->bm, x->bm, x->bm_bytes);
	free(s->bm);
}

/* ---- single frames ------------------------------------------------------ */

static void test_alloc_and_free_update_counters_and_peak(void **state)
{
	struct fx x;
	uint64_t pa[3];

	(void)state;
	fx_init(&x, 16);
	assert_int_equal(x.f.total, 16);
	assert_int_equal(pt_frames_available(&x.f), 16);
	for (int i = 0; i < 3; i++)
		assert_int_equal(pt_frames_alloc(&x.f, &pa[i]), PT_OK);
	assert_int_equal(x.f.allocated, 3);
	assert_int_equal(x.f.in_use, 3);
	assert_int_equal(x.f.peak, 3);
	assert_int_equal(pt_frames_free_checked(&x.f, pa[0]), PT_OK);
	pt_frames_free(&x.f, pa[1]);
	assert_int_equal(x.f.freed, 2);
	assert_int_equal(x.f.in_use, 1);
	assert_int_equal(pt_frames_available(&x.f), 15);
	assert_int_equal(pt_frames_alloc(&x.f, &pa[0]), PT_OK);
	assert_int_equal(x.f.allocated, 4);
	assert_int_equal(x.f.in_use, 2);
	assert_int_equal(x.f.peak, 3);
	assert_int_equal(x.f.failed, 0);
	assert_int_equal(x.f.bad_frees, 0);
	fx_fini(&x);
}

static void test_alloc_zeroes_the_frame_and_only_that_frame(void **state)
{
	struct fx x;
	uint64_t pa;
	uint8_t *p;

	(void)state;
	fx_init(&x, 4);
	assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
	assert_int_equal(pa % K4, 0);
	assert_true(pa >= FX_BASE && pa < FX_BASE + 4 * K4);
	p = x.mem + (pa - FX_BASE);
	assert_true(all_bytes(p, K4, 0));
	/* Every other frame still holds the fill pattern. */
	for (uint64_t o = 0; o < 4 * K4; o += K4)
		if (FX_BASE + o != pa)
			assert_true(all_bytes(x.mem + o, K4, 0xa5));

	/* A frame dirtied, freed and handed out again is zeroed again. */
	memset(p, 0x3c, K4);
	assert_int_equal(pt_frames_free_checked(&x.f, pa), PT_OK);
	for (int i = 0; i < 4; i++) {
		uint64_t q;

		assert_int_equal(pt_frames_alloc(&x.f, &q), PT_OK);
		assert_true(all_bytes(x.mem + (q - FX_BASE), K4, 0));
	}
	fx_fini(&x);
}

static void test_exhaustion_gives_enomem_and_changes_only_failed(void **state)
{
	struct fx x;
	struct state s;
	uint64_t pa, seen[8] = { 0 };

	(void)state;
	fx_init(&x, 8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
		assert_true(pa >= FX_BASE && pa < FX_BASE + 8 * K4);
		assert_int_equal(seen[(pa - FX_BASE) / K4], 0);
		seen[(pa - FX_BASE) / K4] = 1;
	}
	assert_int_equal(pt_frames_available(&x.f), 0);
	state_take(&s, &x);
	pa = 0x1234;
	assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_ENOMEM);
	assert_int_equal(pa, 0x1234);
	state_check(&s, &x, &x.f.failed);
	fx_fini(&x);
}

static void test_alloc_is_next_fit_and_wraps_around(void **state)
{
	struct fx x;
	uint64_t a, b, c;

	(void)state;
	fx_init(&x, 3);
	assert_int_equal(pt_frames_alloc(&x.f, &a), PT_OK);
	assert_int_equal(a, FX_BASE);
	assert_int_equal(pt_frames_free_checked(&x.f, a), PT_OK);
	/* The freed frame is not reused at once: the cursor moved on. */
	assert_int_equal(pt_frames_alloc(&x.f, &b), PT_OK);
	assert_int_equal(b, FX_BASE + K4);
	assert_int_equal(pt_frames_alloc(&x.f, &c), PT_OK);
	assert_int_equal(c, FX_BASE + 2 * K4);
	/* Past the end the search wraps to the first frame. */
	assert_int_equal(pt_frames_alloc(&x.f, &a), PT_OK);
	assert_int_equal(a, FX_BASE);
	fx_fini(&x);
}

/*
 * The cursor is public: one stored at or past the end of the bitmap (its
 * bits, padding included) is taken modulo the bitmap's length, and taking
 * the last frame leaves it at 0, never at the end; any other frame, just
 * after it.
 */
static void test_cursor_at_or_past_the_end_wraps(void **state)
{
	struct fx x;
	uint64_t bits, a;

	(void)state;
	fx_init(&x, 3);
	bits = x.bm_bytes * 8;
	assert_int_equal(bits, 64);
	x.f.cursor = bits;                  /* exactly the end: bit 0 */
	assert_int_equal(pt_frames_alloc(&x.f, &a), PT_OK);
	assert_int_equal(a, FX_BASE);
	x.f.cursor = 2 * bits + 2;          /* twice round and on to bit 2 */
	assert_int_equal(pt_frames_alloc(&x.f, &a), PT_OK);
	assert_int_equal(a, FX_BASE + 2 * K4);
	fx_fini(&x);

	/* a range filling its last word: the last frame's successor is bit 0 */
	fx_init(&x, 64);
	x.f.cursor = 62;
	assert_int_equal(pt_frames_alloc(&x.f, &a), PT_OK);
	assert_int_equal(a, FX_BASE + 62 * K4);
	assert_int_equal(x.f.cursor, 63);
	assert_int_equal(pt_frames_alloc(&x.f, &a), PT_OK);
	assert_int_equal(a, FX_BASE + 63 * K4);
	assert_int_equal(x.f.cursor, 0);
	fx_fini(&x);
}

static void test_double_free_is_refused_and_counted(void **state)
{
	struct fx x;
	struct state s;
	uint64_t pa;

	(void)state;
	fx_init(&x, 4);
	assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
	assert_int_equal(pt_frames_free_checked(&x.f, pa), PT_OK);
	state_take(&s, &x);
	assert_int_equal(pt_frames_free_checked(&x.f, pa), PT_EFRAME);
	state_check(&s, &x, &x.f.bad_frees);
	/* The void variant refuses the same way. */
	state_take(&s, &x);
	pt_frames_free(&x.f, pa);
	state_check(&s, &x, &x.f.bad_frees);
	fx_fini(&x);
}

static void test_free_of_foreign_unaligned_or_unallocated_frame_is_refused(void **state)
{
	struct fx x;
	struct state s;
	uint64_t pa;
	const uint64_t bad[] = {
		FX_BASE - K4,           /* below the range */
		FX_BASE + 4 * K4,       /* just past its end */
		0,                      /* far away */
		UINT64_MAX & ~(K4 - 1), /* top of the address space */
		FX_BASE + 8,            /* unaligned, inside an allocated frame */
		FX_BASE + 2 * K4,       /* inside, never handed out */
	};

	(void)state;
	fx_init(&x, 4);
	assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
	assert_int_equal(pa, FX_BASE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		state_take(&s, &x);
		assert_int_equal(pt_frames_free_checked(&x.f, bad[i]), PT_EFRAME);
		state_check(&s, &x, &x.f.bad_frees);
	}
	assert_true(pt_frames_in_use(&x.f, FX_BASE));
	fx_fini(&x);
}

static void test_contains_and_in_use_follow_ranges_and_bitmap(void **state)
{
	struct fx x;
	uint64_t pa;

	(void)state;
	fx_init(&x, 2);
	assert_false(pt_frames_contains(&x.f, FX_BASE - 1));
	assert_true(pt_frames_contains(&x.f, FX_BASE));
	assert_true(pt_frames_contains(&x.f, FX_BASE + 2 * K4 - 1));
	assert_false(pt_frames_contains(&x.f, FX_BASE + 2 * K4));
	assert_false(pt_frames_in_use(&x.f, FX_BASE));
	assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
	assert_true(pt_frames_in_use(&x.f, pa));
	assert_true(pt_frames_in_use(&x.f, pa + K4 - 1));
	assert_false(pt_frames_in_use(&x.f, pa + K4));
	assert_false(pt_frames_in_use(&x.f, FX_BASE + 2 * K4));
	fx_fini(&x);
}

/* ---- failure injection -------------------------------------------------- */

static void test_fail_nth_fails_exactly_the_nth_allocation_then_disarms(void **state)
{
	struct fx x;
	struct state s;
	uint64_t pa;

	(void)state;
	fx_init(&x, 1024);
	pt_frames_fail_nth(&x.f, 3);
	assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);          /* 1st */
	assert_int_equal(pt_frames_alloc_run(&x.f, M2, &pa), PT_OK);  /* 2nd: a run counts */
	state_take(&s, &x);
	assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_ENOMEM);      /* 3rd */
	s.f.fail_at = 0;        /* the countdown reached zero: disarmed */
	state_check(&s, &x, &x.f.failed);
	for (int i = 0; i < 10; i++)
		assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
	assert_int_equal(x.f.failed, 1);
	assert_int_equal(x.f.allocated, 1 + 512 + 10);
	fx_fini(&x);
}

static void test_fail_nth_applies_to_runs_and_zero_disarms(void **state)
{
	struct fx x;
	uint64_t pa;

	(void)state;
	fx_init(&x, 1024);
	pt_frames_fail_nth(&x.f, 1);
	assert_int_equal(pt_frames_alloc_run(&x.f, M2, &pa), PT_ENOMEM);
	assert_int_equal(x.f.in_use, 0);
	assert_int_equal(x.f.failed, 1);
	assert_int_equal(pt_frames_alloc_run(&x.f, M2, &pa), PT_OK);

	pt_frames_fail_nth(&x.f, 2);
	pt_frames_fail_nth(&x.f, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
	assert_int_equal(x.f.failed, 1);
	fx_fini(&x);
}

/* ---- runs --------------------------------------------------------------- */

static void test_alloc_run_2m_is_aligned_in_use_and_not_zeroed(void **state)
{
	struct fx x;
	struct state s;
	uint64_t a, b, c;

	(void)state;
	/* [base, base + 6 MiB) with base 1 MiB past a 2 MiB boundary: two windows. */
	fx_init(&x, 6 * 256);
	assert_int_equal(pt_frames_alloc_run(&x.f, M2, &a), PT_OK);
	assert_int_equal(pt_frames_alloc_run(&x.f, M2, &b), PT_OK);
	assert_int_equal(a % M2, 0);
	assert_int_equal(b % M2, 0);
	assert_int_equal(a, FX_BASE + 0x100000);
	assert_int_equal(b, a + M2);
	assert_int_equal(x.p2v_calls, 0);
	assert_true(all_bytes(x.mem + (a - FX_BASE), 2 * M2, 0xa5));
	for (uint64_t o = 0; o < 2 * M2; o += K4)
		assert_true(pt_frames_in_use(&x.f, a + o));
	assert_false(pt_frames_in_use(&x.f, a - K4));
	assert_false(pt_frames_in_use(&x.f, b + M2));
	assert_int_equal(x.f.allocated, 1024);
	assert_int_equal(x.f.in_use, 1024);
	assert_int_equal(x.f.peak, 1024);

	state_take(&s, &x);
	assert_int_equal(pt_frames_alloc_run(&x.f, M2, &c), PT_ENOMEM);
	state_check(&s, &x, &x.f.failed);
	/* The 512 frames outside the windows are still there one by one. */
	assert_int_equal(pt_frames_available(&x.f), 512);

	assert_int_equal(pt_frames_free_run(&x.f, a, M2), PT_OK);
	assert_int_equal(x.f.freed, 512);
	assert_int_equal(x.f.in_use, 512);
	assert_int_equal(pt_frames_alloc_run(&x.f, M2, &c), PT_OK);
	assert_int_equal(c, a);
	fx_fini(&x);
}

static void test_alloc_run_4k_is_not_zeroed(void **state)
{
	struct fx x;
	uint64_t pa;

	(void)state;
	fx_init(&x, 2);
	assert_int_equal(pt_frames_alloc_run(&x.f, K4, &pa), PT_OK);
	assert_int_equal(pa, FX_BASE);
	assert_true(all_bytes(x.mem, K4, 0xa5));
	assert_int_equal(pt_frames_free_run(&x.f, pa, K4), PT_OK);
	assert_int_equal(x.p2v_calls, 0);
	fx_fini(&x);
}

static void test_alloc_run_refused_when_every_window_is_fragmented(void **state)
{
	struct fx x;
	struct state s;
	uint64_t pa, n = 6 * 256;

	(void)state;
	fx_init(&x, n);
	for (uint64_t i = 0; i < n; i++)
		assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
	/* Free everything except one frame in the middle of each 2 MiB window. */
	for (uint64_t o = 0; o < n * K4; o += K4) {
		uint64_t q = FX_BASE + o;

		if (q == FX_BASE + 0x100000 + 0x80000 || q == FX_BASE + 0x300000 + 0x80000)
			continue;
		assert_int_equal(pt_frames_free_checked(&x.f, q), PT_OK);
	}
	assert_int_equal(pt_frames_available(&x.f), n - 2);
	state_take(&s, &x);
	assert_int_equal(pt_frames_alloc_run(&x.f, M2, &pa), PT_ENOMEM);
	state_check(&s, &x, &x.f.failed);
	fx_fini(&x);
}

static void test_alloc_run_1g_skips_window_with_a_busy_frame(void **state)
{
	struct fx x;
	struct state s;
	uint64_t a, b, c;

	(void)state;
	/* [1 GiB - 1 MiB, 3 GiB + 1 MiB): two aligned 1 GiB windows, no memory. */
	fx_init_fake(&x, G1 - 0x100000, 2 * G1 + 0x200000);
	assert_int_equal(x.f.total, (2 * G1 + 0x200000) / K4);
	/* The first 2 MiB window is [1 GiB, 1 GiB + 2 MiB): it blocks 1 GiB window one. */
	assert_int_equal(pt_frames_alloc_run(&x.f, M2, &a), PT_OK);
	assert_int_equal(a, G1);
	assert_int_equal(pt_frames_alloc_run(&x.f, G1, &b), PT_OK);
	assert_int_equal(b, 2 * G1);
	state_take(&s, &x);
	assert_int_equal(pt_frames_alloc_run(&x.f, G1, &c), PT_ENOMEM);
	state_check(&s, &x, &x.f.failed);

	/* Once the 2 MiB run is back, window one is free again. */
	assert_int_equal(pt_frames_free_run(&x.f, a, M2), PT_OK);
	assert_int_equal(pt_frames_alloc_run(&x.f, G1, &c), PT_OK);
	assert_int_equal(c, G1);
	assert_int_equal(x.f.in_use, 2 * (G1 / K4));
	assert_int_equal(pt_frames_free_run(&x.f, b, G1), PT_OK);
	assert_int_equal(pt_frames_free_run(&x.f, c, G1), PT_OK);
	assert_int_equal(x.f.in_use, 0);
	assert_int_equal(x.p2v_calls, 0);
	fx_fini(&x);
}

static void test_alloc_run_1g_refused_when_range_holds_no_aligned_window(void **state)
{
	struct fx x;
	uint64_t pa;

	(void)state;
	/* 1 GiB long but straddling a 1 GiB boundary. */
	fx_init_fake(&x, G1 + G1 / 2, G1);
	assert_int_equal(pt_frames_alloc_run(&x.f, G1, &pa), PT_ENOMEM);
	assert_int_equal(pt_frames_alloc_run(&x.f, M2, &pa), PT_OK);
	assert_int_equal(pa, G1 + G1 / 2);
	fx_fini(&x);
}

static void test_alloc_run_rejects_sizes_other_than_4k_2m_1g(void **state)
{
	struct fx x;
	struct state s;
	uint64_t pa;
	const uint64_t sizes[] = { 0, 8192, M2 / 2, 2 * M2, 3 * K4 };

	(void)state;
	fx_init(&x, 4);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		state_take(&s, &x);
		assert_int_equal(pt_frames_alloc_run(&x.f, sizes[i], &pa), PT_EINVAL);
		state_check(&s, &x, NULL);
	}
	fx_fini(&x);
}

static void test_free_run_refuses_what_is_not_an_allocated_run(void **state)
{
	struct fx x;
	struct state s;
	uint64_t a;

	(void)state;
	fx_init_fake(&x, 0, 8 * M2);
	assert_int_equal(pt_frames_alloc_run(&x.f, M2, &a), PT_OK);
	assert_int_equal(a, 0);
	const struct { uint64_t pa, size; } bad[] = {
		{ a + K4, M2 },         /* not aligned to the size */
		{ a, G1 },              /* larger than the range */
		{ a, 3 * K4 },          /* not a run size */
		{ M2, M2 },             /* never handed out */
		{ 8 * M2, M2 },         /* outside */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		state_take(&s, &x);
		assert_int_equal(pt_frames_free_run(&x.f, bad[i].pa, bad[i].size), PT_EFRAME);
		state_check(&s, &x, &x.f.bad_frees);
	}
	/* A run partly freed frame by frame is no longer a whole run. */
	assert_int_equal(pt_frames_free_checked(&x.f, a + 5 * K4), PT_OK);
	state_take(&s, &x);
	assert_int_equal(pt_frames_free_run(&x.f, a, M2), PT_EFRAME);
	state_check(&s, &x, &x.f.bad_frees);
	/* ... also when the frame freed is its first or its last */
	assert_int_equal(pt_frames_alloc_run(&x.f, M2, &a), PT_OK);
	for (unsigned k = 0; k < 2; k++) {
		uint64_t one = k ? a + M2 - K4 : a;

		assert_int_equal(pt_frames_free_checked(&x.f, one), PT_OK);
		state_take(&s, &x);
		assert_int_equal(pt_frames_free_run(&x.f, a, M2), PT_EFRAME);
		state_check(&s, &x, &x.f.bad_frees);
		assert_false(pt_frames_in_use(&x.f, one));
		assert_true(pt_frames_in_use(&x.f, a + M2 / 2));
	}
	fx_fini(&x);
}

/* ---- init --------------------------------------------------------------- */

static void test_init_trims_unaligned_edges_and_sorts_ranges(void **state)
{
	struct fx x;
	uint64_t pa, count[32] = { 0 };
	const struct pt_range r[] = {
		{ FX_BASE + 0x10010, 0x3000 - 0x10 },   /* [0x11000, 0x13000): 2 frames */
		{ FX_BASE + 0x1800, 0x4000 },           /* [0x2000, 0x5000): 3 frames */
		{ FX_BASE + 0x6000, 0 },                /* empty */
		{ FX_BASE + 0x8100, 0xe00 },            /* less than a frame once trimmed */
		{ FX_BASE + 0x15000, 0x1000 },          /* exact: 1 frame */
	};

	(void)state;
	fx_init_ranges(&x, 32 * K4, r, 5);
	assert_int_equal(x.f.nranges, 3);
	assert_int_equal(x.f.total, 6);
	assert_int_equal(x.f.range[0].pa, FX_BASE + 0x2000);
	assert_int_equal(x.f.range[0].frames, 3);
	assert_int_equal(x.f.range[1].pa, FX_BASE + 0x11000);
	assert_int_equal(x.f.range[1].frames, 2);
	assert_int_equal(x.f.range[2].pa, FX_BASE + 0x15000);
	assert_int_equal(x.f.range[2].frames, 1);
	assert_false(pt_frames_contains(&x.f, FX_BASE + 0x1800));
	assert_false(pt_frames_contains(&x.f, FX_BASE + 0x5000));
	assert_false(pt_frames_contains(&x.f, FX_BASE + 0x8000));

	for (int i = 0; i < 6; i++) {
		assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
		count[(pa - FX_BASE) / K4]++;
	}
	assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_ENOMEM);
	for (int i = 0; i < 32; i++) {
		bool managed = (i >= 2 && i < 5) || i == 0x11 || i == 0x12 || i == 0x15;

		assert_int_equal(count[i], managed ? 1 : 0);
		/* Frames outside the trimmed ranges were never touched. */
		if (!managed)
			assert_true(all_bytes(x.mem + i * K4, K4, 0xa5));
	}
	fx_fini(&x);
}

static void test_bitmap_bytes_pads_each_range_to_whole_words(void **state)
{
	const struct pt_range one = { 63 * K4, 2 * K4 };     /* frames 63, 64 */
	const struct pt_range two[] = { { 0, 64 * K4 }, { 64 * K4 + 1, 64 * K4 } };
	const struct pt_range none[] = { { 0, 0 }, { 5, 100 } };

	(void)state;
	assert_int_equal(pt_frames_bitmap_bytes(&one, 1), 16);
	/* 64 frames, then 63 frames starting at frame 65 (bits 1..63 of a word). */
	assert_int_equal(pt_frames_bitmap_bytes(two, 2), 16);
	assert_int_equal(pt_frames_bitmap_bytes(none, 2), 0);
	assert_int_equal(pt_frames_bitmap_bytes(NULL, 0), 0);
}

static void test_init_errors_leave_struct_and_bitmap_untouched(void **state)
{
	struct pt_frames f, before;
	uint64_t bm[16], bm_before[16];
	struct pt_range many[PT_FRAMES_MAX_RANGES + 1];
	const struct pt_range overlap[] = { { 0x10000, 0x4000 }, { 0x13000, 0x1000 } };
	const struct pt_range overlap_in_page[] = { { 0x10000, 0x1800 }, { 0x11000, 0x1000 } };
	const struct pt_range wrap[] = { { UINT64_MAX - 0x1fff, 0x4000 } };
	const struct pt_range ok[] = { { 0x10000, 0x4000 } };
	struct fx dummy;

	(void)state;
	memset(&f, 0x5a, sizeof(f));
	memset(bm, 0x77, sizeof(bm));
	before = f;
	memcpy(bm_before, bm, sizeof(bm));
	for (unsigned i = 0; i < PT_FRAMES_MAX_RANGES + 1; i++) {
		many[i].va = (uint64_t)i * 2 * K4;
		many[i].len = K4;
	}

	assert_int_equal(pt_frames_init(&f, overlap, 2, bm, sizeof(bm), fx_p2v, &dummy), PT_EINVAL);
	assert_int_equal(pt_frames_init(&f, overlap_in_page, 2, bm, sizeof(bm), fx_p2v, &dummy),
			 PT_EINVAL);
	assert_int_equal(pt_frames_init(&f, wrap, 1, bm, sizeof(bm), fx_p2v, &dummy), PT_EINVAL);
	assert_int_equal(pt_frames_init(&f, ok, 1, bm, sizeof(bm), NULL, &dummy), PT_EINVAL);
	assert_int_equal(pt_frames_init(&f, ok, 1, NULL, 0, fx_p2v, &dummy), PT_EINVAL);
	assert_int_equal(pt_frames_init(&f, many, PT_FRAMES_MAX_RANGES + 1, bm, sizeof(bm), fx_p2v,
					&dummy), PT_EINVAL);
	assert_int_equal(pt_frames_init(&f, ok, 1, bm, pt_frames_bitmap_bytes(ok, 1) - 1, fx_p2v,
					&dummy), PT_ECAPACITY);
	assert_memory_equal(&f, &before, sizeof(f));
	assert_memory_equal(bm, bm_before, sizeof(bm));
}

static void test_init_accepts_max_ranges(void **state)
{
	struct pt_range many[PT_FRAMES_MAX_RANGES];
	struct fx x;

	(void)state;
	for (unsigned i = 0; i < PT_FRAMES_MAX_RANGES; i++) {
		/* Reverse order: init sorts them. */
		many[i].va = FX_BASE + (uint64_t)(PT_FRAMES_MAX_RANGES - 1 - i) * 2 * K4;
		many[i].len = K4;
	}
	fx_init_ranges(&x, 2 * PT_FRAMES_MAX_RANGES * K4, many, PT_FRAMES_MAX_RANGES);
	assert_int_equal(x.f.nranges, PT_FRAMES_MAX_RANGES);
	assert_int_equal(x.f.total, PT_FRAMES_MAX_RANGES);
	for (unsigned i = 1; i < PT_FRAMES_MAX_RANGES; i++)
		assert_true(x.f.range[i - 1].pa < x.f.range[i].pa);
	for (unsigned i = 0; i < PT_FRAMES_MAX_RANGES; i++) {
		uint64_t pa;

		assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
		assert_int_equal((pa - FX_BASE) % (2 * K4), 0);
	}
	fx_fini(&x);
}

static void test_env_routes_callbacks_through_the_allocator(void **state)
{
	struct fx x;
	struct pt_env env;
	uint64_t pa;

	(void)state;
	fx_init(&x, 4);
	memset(&env, 0, sizeof(env));
	env.maxphyaddr = 46;
	pt_frames_env(&x.f, &env);
	assert_ptr_equal(env.ctx, &x.f);
	assert_int_equal(env.maxphyaddr, 46);
	assert_int_equal(env.alloc_frame(env.ctx, &pa), PT_OK);
	assert_int_equal(x.f.in_use, 1);
	assert_ptr_equal(env.phys_to_virt(env.ctx, pa), x.mem + (pa - FX_BASE));
	env.free_frame(env.ctx, pa);
	assert_int_equal(x.f.in_use, 0);
	env.free_frame(env.ctx, pa);
	assert_int_equal(x.f.bad_frees, 1);
	fx_fini(&x);
}

static void test_zeroing_off_hands_frames_out_as_they_are(void **state)
{
	struct fx x;
	uint64_t pa, pa2;

	(void)state;
	fx_init(&x, 4);
	/* the default zeroes */
	assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
	assert_true(all_bytes(x.mem + (pa - FX_BASE), K4, 0));

	assert_int_equal(pt_frames_set_zeroing(&x.f, false), PT_OK);
	x.p2v_calls = 0;
	assert_int_equal(pt_frames_alloc(&x.f, &pa2), PT_OK);
	assert_int_not_equal(pa2, pa);
	assert_true(all_bytes(x.mem + (pa2 - FX_BASE), K4, 0xa5));
	assert_int_equal(x.p2v_calls, 0);
	assert_int_equal(x.f.in_use, 2);
	assert_true(pt_frames_in_use(&x.f, pa2));

	/* back on: zeroed again */
	assert_int_equal(pt_frames_set_zeroing(&x.f, true), PT_OK);
	assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
	assert_true(all_bytes(x.mem + (pa - FX_BASE), K4, 0));
	fx_fini(&x);
}

/*
 * pt_frames_env copies the zeroing mode into the env's frames_dirty; from
 * then on the allocator keeps that mode, so the env never goes stale.
 */
static void test_zeroing_mode_is_fixed_once_an_env_is_filled(void **state)
{
	struct fx x;
	struct pt_env env;
	uint64_t pa;

	(void)state;
	/* zeroing (the default): the env expects zeroed frames and gets them */
	fx_init(&x, 4);
	memset(&env, 0xff, sizeof(env));
	pt_frames_env(&x.f, &env);
	assert_false(env.frames_dirty);
	assert_int_equal(pt_frames_set_zeroing(&x.f, false), PT_EINVAL);
	assert_false(x.f.dirty);
	assert_int_equal(pt_frames_set_zeroing(&x.f, true), PT_OK);
	assert_int_equal(env.alloc_frame(env.ctx, &pa), PT_OK);
	assert_true(all_bytes(x.mem + (pa - FX_BASE), K4, 0));
	/* filling a second env keeps the mode, and it is still fixed */
	pt_frames_env(&x.f, &env);
	assert_false(env.frames_dirty);
	assert_int_equal(pt_frames_set_zeroing(&x.f, false), PT_EINVAL);
	fx_fini(&x);

	/* off before the env is filled: the env says dirty and stays right */
	fx_init(&x, 4);
	assert_int_equal(pt_frames_set_zeroing(&x.f, false), PT_OK);
	memset(&env, 0, sizeof(env));
	pt_frames_env(&x.f, &env);
	assert_true(env.frames_dirty);
	assert_int_equal(pt_frames_set_zeroing(&x.f, true), PT_EINVAL);
	assert_true(x.f.dirty);
	assert_int_equal(pt_frames_set_zeroing(&x.f, false), PT_OK);
	x.p2v_calls = 0;
	assert_int_equal(env.alloc_frame(env.ctx, &pa), PT_OK);
	assert_true(all_bytes(x.mem + (pa - FX_BASE), K4, 0xa5));
	assert_int_equal(x.p2v_calls, 0);
	fx_fini(&x);
}

static void test_zeroing_off_needs_no_memory_behind_the_frames(void **state)
{
	struct fx x;
	uint64_t pa;

	(void)state;
	fx_init_fake(&x, UINT64_C(0x0000007000000000), 8 * K4);
	assert_int_equal(pt_frames_set_zeroing(&x.f, false), PT_OK);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_OK);
	assert_int_equal(pt_frames_alloc(&x.f, &pa), PT_ENOMEM);
	assert_int_equal(x.f.failed, 1);
	assert_int_equal(x.p2v_calls, 0);
	fx_fini(&x);
}

/*
 * A range starting inside the last page of the address space holds no whole
 * frame (rounding its start up would wrap to 0): it counts nothing.
 */
static void test_range_in_the_last_page_holds_no_frame(void **state)
{
	const uint64_t top = UINT64_MAX & ~(K4 - 1);
	const uint64_t starts[] = { top + 1, top + 2, top + K4 / 2, UINT64_MAX - 1 };
	struct pt_frames f;
	uint64_t bm[4];
	struct fx dummy;

	(void)state;
	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
		const struct pt_range r = { starts[i], UINT64_MAX - starts[i] };   /* up to 2^64 - 1 */
		const struct pt_range one = { starts[i], 1 };

		assert_int_equal(pt_frames_bitmap_bytes(&one, 1), 0);
		assert_int_equal(pt_frames_init(&f, &one, 1, bm, sizeof(bm), fx_p2v, &dummy), PT_OK);
		assert_int_equal(f.total, 0);
		if (r.len) {
			assert_int_equal(pt_frames_bitmap_bytes(&r, 1), 0);
			assert_int_equal(pt_frames_init(&f, &r, 1, bm, sizeof(bm), fx_p2v, &dummy), PT_OK);
			assert_int_equal(f.total, 0);
		}
	}
}

UNIT_MAIN(
	cmocka_unit_test(test_alloc_and_free_update_counters_and_peak),
	cmocka_unit_test(test_alloc_zeroes_the_frame_and_only_that_frame),
	cmocka_unit_test(test_exhaustion_gives_enomem_and_changes_only_failed),
	cmocka_unit_test(test_alloc_is_next_fit_and_wraps_around),
	cmocka_unit_test(test_cursor_at_or_past_the_end_wraps),
	cmocka_unit_test(test_double_free_is_refused_and_counted),
	cmocka_unit_test(test_free_of_foreign_unaligned_or_unallocated_frame_is_refused),
	cmocka_unit_test(test_contains_and_in_use_follow_ranges_and_bitmap),
	cmocka_unit_test(test_fail_nth_fails_exactly_the_nth_allocation_then_disarms),
	cmocka_unit_test(test_fail_nth_applies_to_runs_and_zero_disarms),
	cmocka_unit_test(test_alloc_run_2m_is_aligned_in_use_and_not_zeroed),
	cmocka_unit_test(test_alloc_run_4k_is_not_zeroed),
	cmocka_unit_test(test_alloc_run_refused_when_every_window_is_fragmented),
	cmocka_unit_test(test_alloc_run_1g_skips_window_with_a_busy_frame),
	cmocka_unit_test(test_alloc_run_1g_refused_when_range_holds_no_aligned_window),
	cmocka_unit_test(test_alloc_run_rejects_sizes_other_than_4k_2m_1g),
	cmocka_unit_test(test_free_run_refuses_what_is_not_an_allocated_run),
	cmocka_unit_test(test_init_trims_unaligned_edges_and_sorts_ranges),
	cmocka_unit_test(test_bitmap_bytes_pads_each_range_to_whole_words),
	cmocka_unit_test(test_init_errors_leave_struct_and_bitmap_untouched),
	cmocka_unit_test(test_init_accepts_max_ranges),
	cmocka_unit_test(test_env_routes_callbacks_through_the_allocator),
	cmocka_unit_test(test_zeroing_off_hands_frames_out_as_they_are),
	cmocka_unit_test(test_zeroing_mode_is_fixed_once_an_env_is_filled),
	cmocka_unit_test(test_zeroing_off_needs_no_memory_behind_the_frames),
	cmocka_unit_test(test_range_in_the_last_page_holds_no_frame))
