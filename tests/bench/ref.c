// SPDX-License-Identifier: MIT
/*
 * The map references the library is timed against (bench.c's opening
 * comment): the fill, which stores every entry of the same tables in tight
 * loops, and the per-page mapper.  The baseline walk of the lookups stays
 * in bench.c, beside the loop that times it, so that it is inlined there.
 */
#include "bench.h"

/* The leaf bits pt_map writes for PT_WRITE under the power-on PAT (WB = 0). */
static uint64_t leaf_bits(unsigned level)
{
	return PTE_P | PTE_W | PTE_NX | (level ? PTE_PS : 0);
}

static uint64_t ref_alloc(void)
{
	uint64_t pa;
	int err = pt_frames_alloc(&B.frames, &pa);

	if (err)
		die("reference: frame", err);
	return pa;
}

/*
 * The fill reference's store loop: e, e + step, ... into [p, end), the
 * library's loops (paging/bulk.c, store_ptes): 32-byte stores for runs of 64
 * or more 4 KiB leaves where the environment has wide_stores (the same
 * flag the library reads), else 16-byte stores where the build has SSE2,
 * else scalar (the scalar build has neither, as the library's loop then
 * has neither).
 */
#if defined(__SSE2__) && defined(__x86_64__) && !SCALAR
typedef uint64_t quad __attribute__((vector_size(32)));

static __attribute__((target("avx2"), noinline))
void fill_leaves_avx2(uint64_t *p, uint64_t *end, uint64_t e, uint64_t step)
{
	const quad d = { 8 * step, 8 * step, 8 * step, 8 * step };
	quad v0 = { e, e + step, e + 2 * step, e + 3 * step }, v1;

	v1 = v0 + (quad){ 4 * step, 4 * step, 4 * step, 4 * step };
	for (; end - p >= 8; p += 8) {
		__builtin_memcpy(p, &v0, sizeof(v0));
		__builtin_memcpy(p + 4, &v1, sizeof(v1));
		v0 += d;
		v1 += d;
	}
	for (e = v0[0]; p < end; p++, e += step)
		*p = e;
}
#define FILL_AVX2 1
#endif

static void fill_leaves(uint64_t *p, uint64_t *end, uint64_t e, uint64_t step)
{
#ifdef FILL_AVX2
	if (step == PT_PAGE_SIZE && end - p >= 64 && B.env->wide_stores) {
		fill_leaves_avx2(p, end, e, step);
		return;
	}
#endif
#if defined(__SSE2__) && !SCALAR
	typedef uint64_t pair __attribute__((vector_size(16)));
	const pair d = { 2 * step, 2 * step };
	pair v0 = { e, e + step }, v1, v2, v3;

	for (; end - p >= 8; p += 8) {
		v1 = v0 + d;
		v2 = v1 + d;
		v3 = v2 + d;
		__builtin_memcpy(p, &v0, sizeof(v0));
		__builtin_memcpy(p + 2, &v1, sizeof(v1));
		__builtin_memcpy(p + 4, &v2, sizeof(v2));
		__builtin_memcpy(p + 6, &v3, sizeof(v3));
		v0 = v3 + d;
	}
	e = v0[0];
#endif
	for (; end - p >= 8; p += 8, e += 8 * step) {
		p[0] = e;
		p[1] = e + step;
		p[2] = e + 2 * step;
		p[3] = e + 3 * step;
		p[4] = e + 4 * step;
		p[5] = e + 5 * step;
		p[6] = e + 6 * step;
		p[7] = e + 7 * step;
	}
	for (; p < end; p++, e += step)
		*p = e;
}

/*
 * The fill reference: [x, last] of the table @t at @level, mapped to
 * x + @off, leaves largest-fit up to @max_level.  A table it creates
 * (@fresh) gets zeroes outside the range, as the library clears a table
 * from a dirty allocator.  No checks: every entry of the range is stored.
 */
static void fill_table(uint64_t *t, unsigned level, bool fresh, uint64_t x, uint64_t last,
		       uint64_t off, unsigned max_level)
{
	uint64_t size = pt_level_size(level);
	unsigned i = pt_index(x, level), end = pt_index(last, level) + 1;

	if (fresh && i)
		memset(t, 0, i * sizeof(*t));
	if (fresh && end < PT_ENTRIES)
		memset(t + end, 0, (PT_ENTRIES - end) * sizeof(*t));
	if (level == 0) {
		fill_leaves(t + i, t + end, (x + off) | leaf_bits(0), PT_PAGE_SIZE);
		return;
	}
	if (level <= max_level && !(off & (size - 1))) {
		uint64_t first_whole = (x + size - 1) & ~(size - 1);
		uint64_t last_whole = ((last + 1) & ~(size - 1)) - 1;

		/* [first_whole, last_whole] is all leaves: one store loop */
		if (first_whole <= last && last_whole >= x && first_whole < last_whole) {
			unsigned a = pt_index(first_whole, level), b = pt_index(last_whole, level);

			fill_leaves(t + a, t + b + 1, (first_whole + off) | leaf_bits(level), size);
			/* the partial ends, if any */
			if (x < first_whole) {
				uint64_t c = ref_alloc();

				fill_table(tbl(c), level - 1, true, x, first_whole - 1, off, max_level);
				t[i] = c | PTE_P | PTE_W;
			}
			if (last > last_whole) {
				uint64_t c = ref_alloc();

				fill_table(tbl(c), level - 1, true, last_whole + 1, last, off, max_level);
				t[end - 1] = c | PTE_P | PTE_W;
			}
			return;
		}
	}
	for (; i < end; i++) {
		uint64_t seg_last = x | (size - 1), c;

		if (seg_last > last)
			seg_last = last;
		c = ref_alloc();
		fill_table(tbl(c), level - 1, true, x, seg_last, off, max_level);
		t[i] = c | PTE_P | PTE_W;
		x = seg_last + 1;
	}
}

void fill_map(uint64_t root, unsigned levels, uint64_t va, uint64_t pa, uint64_t len,
		     unsigned max_level)
{
	fill_table(tbl(root), levels - 1, false, va, va + len - 1, pa - va, max_level);
}

/*
 * The per-page mapper: [va, va+len) leaf by leaf (largest fit up to
 * @max_level), each leaf walked from the root with tables allocated on the
 * way (zeroed frames).
 */
void perpage_map(uint64_t root, unsigned levels, uint64_t va, uint64_t pa,
			uint64_t len, unsigned max_level)
{
	uint64_t off = 0;

	while (off < len) {
		unsigned leaf = max_level;
		uint64_t *t = tbl(root);

		while (leaf && ((((va + off) | (pa + off)) & (pt_level_size(leaf) - 1)) ||
				len - off < pt_level_size(leaf)))
			leaf--;
		for (unsigned level = levels - 1; level > leaf; level--) {
			uint64_t *e = &t[pt_index(va + off, level)];

			if (!(*e & PTE_P))
				*e = ref_alloc() | PTE_P | PTE_W;
			t = tbl(*e & PTE_ADDR_MASK);
		}
		t[pt_index(va + off, leaf)] = (pa + off) | leaf_bits(leaf);
		off += pt_level_size(leaf);
	}
}
