/* SPDX-License-Identifier: MIT */
/* covers: paging/pt.c paging/bulk.c paging/space.c paging/flush.c paging/entry.h paging/walk.h */
/*
 * Host tests of struct pt_env's wide_stores (32-byte stores of page tables):
 * pt_cpu_wide_stores() agrees with the compiler runtime's own CPU feature
 * check, its decision (pt_cpu_avx2_usable) follows the SDM's rule on
 * processors this machine is not, pt_env_check refuses the flag where the CPU cannot take it, and
 * the tables built with the wide loop are byte for byte those of the
 * 16-byte loop, whatever the run's length and alignment in its table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#if defined(__SSE2__) && defined(__x86_64__)
#include <cpuid.h>
#endif

#include <ptlab/pt.h>
#include <ptlab/pte.h>

#include "arena.h"

#define GiB (UINT64_C(1) << 30)
#define MiB (UINT64_C(1) << 20)
#define KiB (UINT64_C(1) << 10)
#define FRAMES 512u

static bool cpu_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

static void test_cpu_check_agrees_with_the_compiler_runtime(void **state)
{
	(void)state;
#if defined(__SSE2__) && defined(__x86_64__)
	assert_int_equal(pt_cpu_wide_stores(), cpu_avx2());
#else
	assert_false(pt_cpu_wide_stores());
#endif
}

/*
 * The decision on processor answers written here: a processor with AVX2
 * enabled, then that processor with one thing taken away at a time.  The
 * expectation is the SDM's rule stated once per row, not the library's code.
 */
static void test_avx2_decision_follows_the_rule(void **state)
{
	const uint32_t osxsave = UINT32_C(1) << 27, avx = UINT32_C(1) << 28, avx2 = 1u << 5;
	const struct pt_cpu_avx2 good = { .max_leaf = 7, .leaf1_ecx = osxsave | avx,
					  .xcr0 = 0x7, .leaf7_ebx = avx2 };
	const struct {
		const char *what;
		struct pt_cpu_avx2 r;
		bool usable;
	} rows[] = {
		{ "leaf 7 is the highest", good, true },
		{ "leaves above 7", { 0x1f, osxsave | avx, 0x7, avx2 }, true },
		{ "other bits around", { 0xd, ~0u, ~UINT64_C(0), ~0u }, true },
		{ "highest leaf 6: leaf 7's answer is not one", { 6, osxsave | avx, 0x7, avx2 }, false },
		{ "highest leaf 0", { 0, osxsave | avx, 0x7, avx2 }, false },
		{ "no OSXSAVE", { 7, avx, 0x7, avx2 }, false },
		{ "no AVX", { 7, osxsave, 0x7, avx2 }, false },
		{ "XCR0 without the AVX state", { 7, osxsave | avx, 0x3, avx2 }, false },
		{ "XCR0 without the SSE state", { 7, osxsave | avx, 0x5, avx2 }, false },
		{ "XCR0 with the AVX state high up only", { 7, osxsave | avx, UINT64_C(1) << 33 | 1, avx2 }, false },
		{ "no AVX2", { 7, osxsave | avx, 0x7, ~avx2 }, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (pt_cpu_avx2_usable(&rows[i].r) != rows[i].usable)
			fail_msg("%s: expected %s", rows[i].what, rows[i].usable ? "usable" : "not usable");
	}
}

/* The library's own reading of this CPU, against the same values read here. */
static void test_cpu_check_reads_this_cpu(void **state)
{
#if defined(__SSE2__) && defined(__x86_64__)
	struct pt_cpu_avx2 r = { 0 };
	uint32_t a, b, c, d;

	(void)state;
	__cpuid_count(0, 0, a, b, c, d);
	r.max_leaf = a;
	__cpuid_count(1, 0, a, b, c, d);
	r.leaf1_ecx = c;
	if (c & (UINT32_C(1) << 27)) {
		__asm__("xgetbv" : "=a"(a), "=d"(d) : "c"(0u));
		r.xcr0 = (uint64_t)d << 32 | a;
	}
	__cpuid_count(7, 0, a, b, c, d);
	r.leaf7_ebx = b;
	assert_int_equal(pt_cpu_wide_stores(), pt_cpu_avx2_usable(&r));
#else
	(void)state;
	assert_false(pt_cpu_wide_stores());
#endif
}

static void test_env_check_refuses_what_the_cpu_cannot_do(void **state)
{
	struct arena a;

	(void)state;
	arena_init(&a, 16);
	a.env.wide_stores = true;
	assert_int_equal(pt_env_check(&a.env), pt_cpu_wide_stores() ? PT_OK : PT_EINVAL);
	a.env.wide_stores = false;
	assert_int_equal(pt_env_check(&a.env), PT_OK);
	arena_fini(&a);
}

/* [va, va + len) of 4 KiB pages into both spaces; both calls must succeed. */
static void map_both(struct pt_space *s, uint64_t va, uint64_t len)
{
	for (unsigned k = 0; k < 2; k++)
		assert_int_equal(pt_map(&s[k], va, UINT64_C(0x3000000000) + va, len, PT_WRITE,
					PT_PAGE_4K, NULL), PT_OK);
}

static void test_wide_loop_builds_the_same_tables(void **state)
{
	struct arena a[2];
	struct pt_space s[2];
	struct pt_leaf l;
	uint64_t base = 8 * GiB;

	(void)state;
	if (!pt_cpu_wide_stores()) {
		print_message("no AVX2 here: the wide loop cannot run\n");
		skip();
	}
	for (unsigned k = 0; k < 2; k++) {
		arena_init(&a[k], FRAMES);
		a[k].env.wide_stores = k == 1;
		assert_int_equal(pt_create(&s[k], &a[k].env, 4), PT_OK);
	}
	/* whole tables, fresh (the inline fill) */
	map_both(s, base, 6 * MiB);
	/* runs inside one table: 63, 64, 65 and 200 entries at odd offsets */
	map_both(s, base + 6 * MiB + 4 * KiB, 63 * 4 * KiB);
	map_both(s, base + 8 * MiB + 12 * KiB, 64 * 4 * KiB);
	map_both(s, base + 10 * MiB + 20 * KiB, 65 * 4 * KiB);
	map_both(s, base + 12 * MiB + 36 * KiB, 200 * 4 * KiB);
	/* the rest of an existing table (pt_walk_ptes): 303 entries after 209 */
	map_both(s, base + 12 * MiB + 36 * KiB + 200 * 4 * KiB, 2 * MiB - 209 * 4 * KiB);
	/* a range that starts and ends inside tables, across several whole ones */
	map_both(s, base + 20 * MiB - 7 * 4 * KiB, 9 * MiB + 3 * 4 * KiB);

	/* same allocator history, so the same frames: every byte equal */
	assert_int_equal(a[0].frames.allocated, a[1].frames.allocated);
	assert_memory_equal(a[0].mem, a[1].mem, a[0].size);
	/* and right, not only equal: the last page of the 200-entry run */
	assert_int_equal(pt_translate(&s[1], base + 12 * MiB + 36 * KiB + 199 * 4 * KiB, &l), PT_OK);
	assert_int_equal(l.pa, UINT64_C(0x3000000000) + base + 12 * MiB + 36 * KiB + 199 * 4 * KiB);
	assert_int_equal(l.level, 0);
	for (unsigned k = 0; k < 2; k++) {
		pt_destroy(&s[k]);
		assert_int_equal(a[k].frames.in_use, 0);
		arena_fini(&a[k]);
	}
}

/*
 * A run whose length leaves 7 entries after the 8-entry steps, ending just
 * before an entry that is already mapped elsewhere: the run is stored whole
 * and the entry after it is left alone (a store loop that took 8 when 7
 * were left would write the run's next address over it).  With the wide
 * loop (71 = 8 * 8 + 7 entries) where the CPU has it, and with the 16-byte
 * loop in any case.
 */
static void test_run_stops_at_its_end_before_a_mapped_entry(void **state)
{
	const uint64_t va = 8 * GiB, pa = UINT64_C(0x3000000000), other = UINT64_C(0x5000000000);

	(void)state;
	for (unsigned wide = 0; wide < 2; wide++) {
		struct arena a;
		struct pt_space s;
		struct pt_leaf l;

		if (wide && !pt_cpu_wide_stores())
			break;
		arena_init(&a, 16);
		a.env.wide_stores = wide;
		assert_int_equal(pt_create(&s, &a.env, 4), PT_OK);
		assert_int_equal(pt_map(&s, va + 71 * 4 * KiB, other, 4 * KiB, 0, PT_PAGE_4K, NULL),
				 PT_OK);
		assert_int_equal(pt_map(&s, va, pa, 71 * 4 * KiB, PT_WRITE, PT_PAGE_4K, NULL), PT_OK);
		for (unsigned i = 0; i < 71; i++) {
			assert_int_equal(pt_translate(&s, va + i * 4 * KiB, &l), PT_OK);
			assert_int_equal(l.pa, pa + i * 4 * KiB);
		}
		assert_int_equal(pt_translate(&s, va + 71 * 4 * KiB, &l), PT_OK);
		assert_int_equal(l.pa, other);
		assert_int_equal(l.flags, 0);
		assert_int_equal(pt_translate(&s, va + 72 * 4 * KiB, &l), PT_ENOTMAPPED);
		pt_destroy(&s);
		assert_int_equal(a.frames.in_use, 0);
		arena_fini(&a);
	}
}

UNIT_MAIN(
	cmocka_unit_test(test_cpu_check_agrees_with_the_compiler_runtime),
	cmocka_unit_test(test_avx2_decision_follows_the_rule),
	cmocka_unit_test(test_cpu_check_reads_this_cpu),
	cmocka_unit_test(test_env_check_refuses_what_the_cpu_cannot_do),
	cmocka_unit_test(test_wide_loop_builds_the_same_tables),
	cmocka_unit_test(test_run_stops_at_its_end_before_a_mapped_entry))
