/* SPDX-License-Identifier: MIT */
/*
 * The walker's loops over whole runs of entries (the walk itself: pt.c):
 * pt_map's APPLY pass (pt_map_apply), whole level-0 tables for map and
 * unmap (pt_walk_ptes), the AND/OR and leaf-store loops they run with their
 * vector paths, and the CPU check that allows the 32-byte one.
 */
#include <ptlab/pt.h>

#include <string.h>

#include "walk.h"

/*
 * A table frame from a dirty allocator that pt_map is about to fill for
 * [x, last] at @level.  pt_map writes every entry of the range of a table
 * it creates (a leaf or a link to a table it creates too) and never reads
 * them (pt_map_apply with @fresh, pt_walk_ptes), so only the entries
 * outside the range are cleared.
 */
static void clear_new_table(uint64_t *t, unsigned level, uint64_t x, uint64_t last)
{
	unsigned first = pt_index(x, level), end = pt_index(last, level) + 1;

	if (first)
		memset(t, 0, first * sizeof(*t));
	if (end < PT_ENTRIES)
		memset(t + end, 0, (PT_ENTRIES - end) * sizeof(*t));
}

/*
 * The two loops over whole PTs below (a GiB of 4 KiB pages is 2 MiB of
 * entries) are bound by instructions per entry.  Where the compiler has
 * 16-byte vector registers (__SSE2__: host builds), they handle two entries
 * per instruction through GCC's generic vector type; the firmware build
 * (-mno-sse) has no such registers and compiles the scalar loops only.
 * Vectors are loaded and stored with __builtin_memcpy: no alignment or
 * aliasing assumption beyond that of uint64_t.
 */
#ifdef __SSE2__
typedef uint64_t pte_pair __attribute__((vector_size(16)));
#endif

/* AND and OR of [p, end), independent chains (loads, not a dependency). */
static void ptes_and_or(const uint64_t *p, const uint64_t *end, uint64_t *and_all,
			uint64_t *or_all)
{
	uint64_t a0 = ~UINT64_C(0), a1 = a0, a2 = a0, a3 = a0, o0 = 0, o1 = 0, o2 = 0, o3 = 0;

#ifdef __SSE2__
	pte_pair va0 = { a0, a0 }, va1 = va0, va2 = va0, va3 = va0;
	pte_pair vo0 = { 0, 0 }, vo1 = vo0, vo2 = vo0, vo3 = vo0, v0, v1, v2, v3;

	for (; end - p >= 8; p += 8) {
		__builtin_memcpy(&v0, p, sizeof(v0));
		__builtin_memcpy(&v1, p + 2, sizeof(v1));
		__builtin_memcpy(&v2, p + 4, sizeof(v2));
		__builtin_memcpy(&v3, p + 6, sizeof(v3));
		va0 &= v0;
		va1 &= v1;
		va2 &= v2;
		va3 &= v3;
		vo0 |= v0;
		vo1 |= v1;
		vo2 |= v2;
		vo3 |= v3;
	}
	va0 &= va1 & va2 & va3;
	vo0 |= vo1 | vo2 | vo3;
	a0 = va0[0] & va0[1];
	o0 = vo0[0] | vo0[1];
#endif
	for (; end - p >= 4; p += 4) {
		a0 &= p[0];
		a1 &= p[1];
		a2 &= p[2];
		a3 &= p[3];
		o0 |= p[0];
		o1 |= p[1];
		o2 |= p[2];
		o3 |= p[3];
	}
	for (; p < end; p++) {
		a0 &= *p;
		o0 |= *p;
	}
	*and_all = a0 & a1 & a2 & a3;
	*or_all = o0 | o1 | o2 | o3;
}

/*
 * Store e, e + step, e + 2 step, ... into [p, end): the leaves of a map
 * (step: the leaf size).  Adding a multiple of the leaf size to pa | attr
 * leaves the attribute bits alone (pa < 2^52).  A moving pointer and a
 * fixed step, so a store costs one add beside it.
 */
static inline __attribute__((always_inline))
void fill_leaves(uint64_t *p, uint64_t *end, uint64_t e, uint64_t step)
{
#ifdef __SSE2__
	const pte_pair d = { 2 * step, 2 * step };
	pte_pair v0 = { e, e + step }, v1, v2, v3;

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
 * Storing whole page tables (a GiB of 4 KiB pages is 2 MiB of entries) is
 * bound by the stores in flight while their lines are fetched for
 * ownership: 32-byte stores keep twice the bytes in flight of 16-byte ones
 * (a map of a GiB of 4 KiB pages about 10% faster on an AMD EPYC).  Only
 * page tables take this loop: runs of large leaves are 512 times fewer
 * bytes per GiB, where a call's fixed costs weigh as much as the stores.
 * The host build's flags only assume SSE2, so the caller says whether the
 * CPU runs AVX2 (env->wide_stores, from pt_cpu_wide_stores; the library
 * keeps no state of its own).  The firmware build has no SSE and never
 * compiles the loop.
 */
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
#define PT_HAVE_AVX2_PATH 1
typedef uint64_t pte_quad __attribute__((vector_size(32)));

static __attribute__((target("avx2"), noinline))
void fill_leaves_avx2(uint64_t *p, uint64_t *end, uint64_t e, uint64_t step)
{
	const pte_quad d = { 8 * step, 8 * step, 8 * step, 8 * step };
	pte_quad v0 = { e, e + step, e + 2 * step, e + 3 * step }, v1;

	v1 = v0 + (pte_quad){ 4 * step, 4 * step, 4 * step, 4 * step };
	for (; end - p >= 8; p += 8) {
		__builtin_memcpy(p, &v0, sizeof(v0));
		__builtin_memcpy(p + 4, &v1, sizeof(v1));
		v0 += d;
		v1 += d;
	}
	for (e = v0[0]; p < end; p++, e += step)
		*p = e;
}
#endif

bool pt_cpu_avx2_usable(const struct pt_cpu_avx2 *r)
{
	const uint32_t os_avx = CPUID1_ECX_OSXSAVE | CPUID1_ECX_AVX;

	if (r->max_leaf < CPUID_LEAF_EXT_FEATURES)
		return false;
	if ((r->leaf1_ecx & os_avx) != os_avx)
		return false;
	/* SSE and AVX state enabled by the OS (Intel SDM Vol. 1 13.3) */
	if ((r->xcr0 & XCR0_SSE_AVX) != XCR0_SSE_AVX)
		return false;
	return (r->leaf7_ebx & CPUID7_EBX_AVX2) != 0;
}

bool pt_cpu_wide_stores(void)
{
#ifdef PT_HAVE_AVX2_PATH
	struct pt_cpu_avx2 r = { 0 };
	uint32_t a, b, c, d, xcr0_lo, xcr0_hi;

	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(CPUID_LEAF_MAX), "c"(0u));
	r.max_leaf = a;
	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(CPUID_LEAF_FEATURES), "c"(0u));
	r.leaf1_ecx = c;
	/* XGETBV raises #UD unless OSXSAVE is set */
	if (c & CPUID1_ECX_OSXSAVE) {
		__asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0u));
		r.xcr0 = (uint64_t)xcr0_hi << 32 | xcr0_lo;
	}
	/* CPUID never faults; above the highest leaf the answer is ignored */
	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(CPUID_LEAF_EXT_FEATURES), "c"(0u));
	r.leaf7_ebx = b;
	return pt_cpu_avx2_usable(&r);
#else
	return false;
#endif
}

/* fill_leaves for 4 KiB leaves, with the wide loop for long runs where the env allows it. */
static inline __attribute__((always_inline))
void store_ptes(const struct pt_env *env, uint64_t *p, uint64_t *end, uint64_t e)
{
#ifdef PT_HAVE_AVX2_PATH
	if (env->wide_stores && end - p >= 64) {
		fill_leaves_avx2(p, end, e, PT_PAGE_SIZE);
		return;
	}
#else
	(void)env;
#endif
	fill_leaves(p, end, e, PT_PAGE_SIZE);
}

/*
 * [x, last] of a real level-0 table, for map and unmap: every entry is a
 * hole or a 4 KiB leaf covering exactly one page of the range, so the
 * per-entry decisions of visit_hole/visit_leaf reduce to loops over the
 * entries (the 4 KiB cases touch 512 entries per table).  Same checks in the
 * same VA order, same table contents, statistics and flush ranges as the
 * per-entry path, with one exception: a table the unmap covers whole is
 * about to be unlinked and freed by visit_table, so its entries are left as
 * they are.  Returns false for the other operations.
 */
bool pt_walk_ptes(struct walk *w, uint64_t *t, uint64_t x, uint64_t last)
{
	unsigned first = pt_index(x, 0);
	unsigned end = first + (unsigned)((last - x) >> PT_PAGE_SHIFT) + 1;
	bool whole = first == 0 && end == PT_ENTRIES;
	uint64_t and_all, or_all, g;
	unsigned i, run;

	if (w->op == OP_MAP) {
		if (!w->apply) {
			ptes_and_or(t + first, t + end, &and_all, &or_all);
			if (or_all & PTE_P)
				w->err = PT_EEXIST;
			return true;
		}
		/* CHECK found every entry empty. */
		store_ptes(w->env, t + first, t + end, (w->pa + (x - w->va)) | w->attr[0]);
		w->s->stats.leaves[0] += end - first;
		return true;
	}
	if (w->op != OP_UNMAP)
		return false;
	if (!w->apply) {
		ptes_and_or(t + first, t + end, &and_all, &or_all);
		w->pte_g |= or_all & PTE_G;
		if (!(and_all & PTE_P) && !(w->flags & PT_SPARSE))
			w->err = PT_ENOTMAPPED;
		return true;
	}
	if (!(w->flags & PT_SPARSE)) {
		/* CHECK found every entry present */
		if (whole) {
			/*
			 * Only partly covered leaves are split, so this table
			 * was real in CHECK and pt_walk_ptes saw it.  Every leaf
			 * it saw goes in this call, so its PTE_G verdict is
			 * right for fl->global (a call-wide flag).
			 */
			g = w->pte_g;
		} else {
			g = 0;
			for (i = first; i < end; i++) {
				g |= t[i];
				t[i] = 0;
			}
		}
		w->s->stats.leaves[0] -= end - first;
		pt_fl_add(w->fl, x, last, g & PTE_G);
		return true;
	}
	/* PT_SPARSE with holes: runs of present entries, one flush range each */
	for (i = first; i < end; ) {
		if (!(t[i] & PTE_P)) {
			i++;
			continue;
		}
		g = 0;
		for (run = i; i < end && (t[i] & PTE_P); i++) {
			g |= t[i];
			t[i] = 0;
		}
		w->s->stats.leaves[0] -= i - run;
		pt_fl_add(w->fl, x + ((uint64_t)(run - first) << PT_PAGE_SHIFT),
		       x + ((uint64_t)(i - first) << PT_PAGE_SHIFT) - 1, g & PTE_G);
	}
	return true;
}

/*
 * pt_map's APPLY pass over [x, last] of the table @t at @level.  The CHECK
 * pass found no leaf in the range, so every entry there is a hole or a
 * table; @fresh: @t is a table this call created, whose entries in the
 * range are written without being read.  Runs of whole leaves are stored in
 * a tight loop, and the statistics are kept in locals (a store through
 * w->s could alias the table stores and would be redone per entry).
 */
void pt_map_apply(struct walk *w, unsigned level, uint64_t *t, bool fresh,
		  uint64_t x, uint64_t last)
{
	const uint64_t size = pt_level_size(level);
	const bool leafable = level <= w->max_level && !((w->pa - w->va) & (size - 1));
	const uint64_t attr = leafable ? w->attr[level] : 0;
	const bool user = w->user;
	uint64_t leaves = 0, leaves0 = 0, tables = 0, seg_last, e, cpa, *child;
	unsigned i = pt_index(x, level);

	if (level == 0) {
		pt_walk_ptes(w, t, x, last);
		return;
	}
	for (;;) {
		seg_last = x | (size - 1);
		if (leafable && !(x & (size - 1)) && seg_last <= last) {
			/* whole leaves up to the range's or the table's end */
			uint64_t n = (last - x + 1) / size;
			uint64_t *p = t + i, *end, leaf = (w->pa + (x - w->va)) | attr;

			if (n > PT_ENTRIES - i)
				n = PT_ENTRIES - i;
			end = p + n;
			if (fresh) {
				fill_leaves(p, end, leaf, size);
				p = end;
			} else {
				/* a present entry here is a table CHECK looked into */
				for (; p < end && !(*p & PTE_P); p++, leaf += size)
					*p = leaf;
			}
			n = (uint64_t)(p - (t + i));
			leaves += n;
			if (p == end) {
				/* the range ends in this table: a partial segment may follow */
				seg_last = x + n * size - 1;
				if (seg_last == last)
					break;
				x = seg_last + 1;
				i += (unsigned)n;
				continue;
			}
			x += n * size;
			i += (unsigned)n;
			seg_last = x | (size - 1);
		}
		if (seg_last > last)
			seg_last = last;
		e = fresh ? 0 : t[i];
		if (e & PTE_P) {
			if (user && !(e & PTE_US))
				t[i] = e | PTE_US;
			pt_map_apply(w, level - 1, tab(w->env, e & PTE_ADDR_MASK), false, x, seg_last);
		} else {
			cpa = take_frame(w);
			child = tab(w->env, cpa);
			if (w->env->frames_dirty)
				clear_new_table(child, level - 1, x, seg_last);
			/* Filled before it is linked: a live walker never sees it half-built. */
			if (level == 1) {
				/* a page table: 4 KiB leaves only (pt_walk_ptes's APPLY, inline) */
				unsigned a = pt_index(x, 0), b = pt_index(seg_last, 0) + 1;

				store_ptes(w->env, child + a, child + b,
					   (w->pa + (x - w->va)) | w->attr[0]);
				leaves0 += b - a;
			} else {
				pt_map_apply(w, level - 1, child, true, x, seg_last);
			}
			t[i] = table_entry(cpa, user);
			/* a page table filled whole with non-global leaves */
			if (level == 1 && !(x & (size - 1)) && seg_last == (x | (size - 1)) &&
			    !(w->attr[0] & PTE_G))
				t[i] |= PTE_SW_FULL;
			tables++;
		}
		if (seg_last == last)
			break;
		x = seg_last + 1;
		i++;
	}
	if (leaves)
		w->s->stats.leaves[level] += leaves;
	if (leaves0)
		w->s->stats.leaves[0] += leaves0;
	w->s->stats.tables[level - 1] += tables;
}
