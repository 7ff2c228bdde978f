/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: sequences of pt_map / pt_unmap / pt_protect / pt_remap
 * on a small VA window, checked against the shadow model
 * (tests/unit/shadow.[ch]) and pt_lint after every call.
 *
 * Input: one setup byte (bit 0 five levels, bit 1 the window at the bottom
 * of the upper half instead of the top of the lower half, bit 2 no 1 GiB
 * pages, bit 3 the ptlab PAT layout), then 8-byte operations:
 *
 *   b0  bits 1:0 call, 3:2 max leaf size, 4 PT_NOSPLIT, 5 PT_SPARSE,
 *       6 an unknown option bit, 7 a 4 KiB tail on the length
 *   b1  PT_* attributes: bits 3:0 W X U G, 6:4 cache type, 7 PT_ALLOW_WX
 *   b2  bits 1:0 granule of va and pa (4K, 2M, 1G, 4K), 3:2 of the length
 *   b3  va index in the window (times the granule)
 *   b4  length in granules (0 allowed)
 *   b5  pa index, b6 pa high bits, b7 misalignment selector
 *
 * The window is 8 GiB ending at the canonical hole (or starting right after
 * it), so ranges run into the hole.  Every result must equal the model's
 * prediction, except PT_EBLOCKED under PT_NOSPLIT, which the model does not
 * see, and PT_ENOMEM when the arena really ran out; a failing call must leave
 * every translation, the statistics and the frames in use as they were.
 *
 * After every call the tables must translate the call's key points as the
 * model does: the first and last page of the range, the pages just outside
 * it, and the far ends of the 2 MiB and 1 GiB blocks around both edges (where
 * a split leaf ends).  Every FULL_EVERY calls and at the end of the input,
 * every leaf is compared with the model and pt_lint must be clean (so a
 * failing call that changed a translation away from the key points is
 * caught there, attributed to a later call).
 *
 * The arena has ARENA_FRAMES table frames, so no state has more than about
 * ARENA_FRAMES * 512 leaves (which bounds the cost of an input) and a call
 * can run out of frames (the rollback is checked).  It is allocated once and
 * its allocator is reset to the same state before every input, so an input
 * always gets the same frames.  Violations abort().
 */

#include <ptlab/pt.h>

#include "../unit/arena.h"
#include "../unit/shadow.h"

#define K4 PT_SIZE_4K
#define M2 PT_SIZE_2M
#define G1 PT_SIZE_1G
#define WINDOW (8 * G1)
#define MAX_OPS 48u
#define ARENA_FRAMES 128u
#define FULL_EVERY 16u

#define FUZZ_NAME "fuzz_ops"
#define FUZZ_ARENA_FRAMES ARENA_FRAMES
#include "fuzzkit.h"

static uint64_t scratch[ARENA_FRAMES];
static struct model_run runs[ARENA_FRAMES * PT_ENTRIES];

static void die(const char *what, unsigned idx)
{
	fprintf(stderr, "fuzz_ops: op %u: %s\n", idx, what);
	abort();
}

struct gather {
	struct model_run *run;
	size_t n, cap;
	uint64_t leaves;
};

static int gather_fn(void *arg, const struct pt_leaf *lf)
{
	struct gather *g = arg;
	unsigned attrs = lf->flags & PT_ATTR_MASK;
	struct model_run *p = g->n ? &g->run[g->n - 1] : NULL;

	g->leaves++;
	if (p && p->va + p->len == lf->va && p->pa + p->len == lf->pa && p->attrs == attrs) {
		p->len += lf->size;
		return 0;
	}
	if (g->n == g->cap)
		die("more runs than the arena can hold leaves", 0);
	g->run[g->n++] = (struct model_run){ lf->va, lf->size, lf->pa, attrs };
	return 0;
}

/* The tables translate exactly what the model says; lint is clean. */
static void check_all(const struct pt_space *s, const struct shadow *m, unsigned idx)
{
	struct gather g = { runs, 0, ARENA_FRAMES * PT_ENTRIES, 0 };
	struct pt_lint l;
	int r;

	if (pt_visit(s, 0, 0, gather_fn, &g) != PT_OK)
		die("pt_visit failed", idx);
	if (g.n != m->n)
		die("tables and model differ in the number of runs", idx);
	for (size_t i = 0; i < g.n; i++) {
		const struct model_run *a = &g.run[i], *b = &m->run[i];

		if (a->va != b->va || a->len != b->len || a->pa != b->pa || a->attrs != b->attrs) {
			fprintf(stderr, "fuzz_ops: run %zu: tables 0x%llx+0x%llx -> 0x%llx attrs 0x%x, model 0x%llx+0x%llx -> 0x%llx attrs 0x%x\n",
				i, (unsigned long long)a->va, (unsigned long long)a->len,
				(unsigned long long)a->pa, a->attrs, (unsigned long long)b->va,
				(unsigned long long)b->len, (unsigned long long)b->pa, b->attrs);
			die("tables and model translate differently", idx);
		}
	}
	if (g.leaves != s->stats.leaves[0] + s->stats.leaves[1] + s->stats.leaves[2])
		die("leaf statistics wrong", idx);
	r = pt_lint(s, scratch, ARENA_FRAMES, fuzz_owns, &fuzz_arena, &l);
	if (r != PT_OK) {
		fprintf(stderr, "fuzz_ops: lint %s: reserved %llu ps %llu empty %llu shared %llu foreign %llu stats %llu bad PTE_SW_FULL %llu\n",
			pt_strerror(r), (unsigned long long)l.reserved_bits,
			(unsigned long long)l.bad_ps, (unsigned long long)l.empty_tables,
			(unsigned long long)l.shared_tables, (unsigned long long)l.foreign_tables,
			(unsigned long long)l.stats_mismatch, (unsigned long long)l.bad_hints);
		die("lint", idx);
	}
}

/* @va translates (or not) as the model says. */
static void check_point(const struct pt_space *s, const struct shadow *m, uint64_t va,
			unsigned idx)
{
	struct pt_leaf lf = { 0 };
	uint64_t pa;
	unsigned attrs;
	int r;

	va &= ~(K4 - 1);
	r = pt_translate(s, va, &lf);
	if (!shadow_canonical(m, va)) {
		if (r != PT_ENONCANON)
			die("translate of a non-canonical address", idx);
		return;
	}
	if (!shadow_lookup(m, va, &pa, &attrs)) {
		if (r != PT_ENOTMAPPED) {
			fprintf(stderr, "fuzz_ops: va 0x%llx: %s, model: not mapped\n",
				(unsigned long long)va, pt_strerror(r));
			die("tables map what the model does not", idx);
		}
		return;
	}
	if (r != PT_OK || lf.pa != pa || (lf.flags & PT_ATTR_MASK) != attrs) {
		fprintf(stderr, "fuzz_ops: va 0x%llx: %s pa 0x%llx attrs 0x%x, model pa 0x%llx attrs 0x%x\n",
			(unsigned long long)va, pt_strerror(r), (unsigned long long)lf.pa,
			lf.flags & PT_ATTR_MASK, (unsigned long long)pa, attrs);
		die("tables and model translate a key point differently", idx);
	}
}

/*
 * The points of [va, va+len) where a call's effect begins and ends: first
 * and last page, the pages just outside, and the ends of the 2 MiB and 1 GiB
 * blocks holding the edges (a leaf split at an edge reaches that far).
 */
static void check_points(const struct pt_space *s, const struct shadow *m, uint64_t va,
			 uint64_t len, unsigned idx)
{
	uint64_t last = va + (len ? len - 1 : 0);

	check_point(s, m, va, idx);
	check_point(s, m, va - K4, idx);
	check_point(s, m, va & ~(M2 - 1), idx);
	check_point(s, m, va & ~(G1 - 1), idx);
	check_point(s, m, last, idx);
	check_point(s, m, last + K4, idx);
	check_point(s, m, last | (M2 - 1), idx);
	check_point(s, m, last | (G1 - 1), idx);
}

static uint64_t granule(unsigned g)
{
	static const uint64_t gs[4] = { K4, M2, G1, K4 };

	return gs[g & 3];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_space s;
	struct shadow m;
	unsigned levels, nops;
	uint64_t base;

	if (size < 1)
		return 0;
	fuzz_arena_reset();
	levels = data[0] & 1 ? 5 : 4;
	fuzz_arena.env.has_1g = !(data[0] & 4);
	if (data[0] & 8)
		pt_pat_ptlab(&fuzz_arena.env.pat);
	else
		pt_pat_default(&fuzz_arena.env.pat);
	if (data[0] & 2)
		base = levels == 5 ? UINT64_C(0xff00000000000000) : UINT64_C(0xffff800000000000);
	else
		base = (levels == 5 ? UINT64_C(1) << 56 : UINT64_C(1) << 47) - WINDOW;
	if (pt_create(&s, &fuzz_arena.env, levels) != PT_OK)
		die("pt_create", 0);
	shadow_init(&m, levels, fuzz_arena.env.maxphyaddr, &fuzz_arena.env.pat);

	nops = (unsigned)((size - 1) / 8);
	if (nops > MAX_OPS)
		nops = MAX_OPS;
	for (unsigned i = 0; i < nops; i++) {
		const uint8_t *b = data + 1 + 8 * i;
		unsigned call = b[0] & 3, max = (b[0] >> 2) & 3;
		unsigned opts = (b[0] & 0x10 ? PT_NOSPLIT : 0) | (b[0] & 0x20 ? PT_SPARSE : 0) |
				(b[0] & 0x40 ? 1u << 13 : 0);
		unsigned attrs = (b[1] & 0x7f) | (b[1] & 0x80 ? PT_ALLOW_WX : 0);
		uint64_t g = granule(b[2]), gl = granule(b[2] >> 2);
		uint64_t va = base + ((uint64_t)b[3] * g) % WINDOW;
		uint64_t len = (uint64_t)b[4] * gl + (b[0] & 0x80 ? K4 : 0);
		uint64_t pa = ((uint64_t)b[5] * g + ((uint64_t)b[6] << 36)) & ((UINT64_C(1) << 47) - 1);
		uint64_t in_use = fuzz_arena.frames.in_use, failed = fuzz_arena.frames.failed;
		struct pt_stats stats = s.stats;
		int want, got;

		/* now and then an unaligned or wrapping argument */
		switch (b[7] & 7) {
		case 1:
			va += b[7] >> 3;
			break;
		case 2:
			pa += b[7] >> 3;
			break;
		case 3:
			len -= b[7] >> 3;
			break;
		case 4:
			len = UINT64_MAX - (len & 0xfff) - (b[7] >> 3) * K4;
			break;
		default:
			break;
		}
		if (len > 2 * WINDOW && (b[7] & 7) != 4)
			len %= 2 * WINDOW;
		if (b[1] & 0x80 && b[7] & 0x80)
			attrs |= PT_NOSPLIT;     /* not an option of pt_map: PT_EFLAGS there */

		switch (call) {
		case 0:
			want = shadow_check_map(&m, va, pa, len, attrs | (opts & (1u << 13)));
			got = pt_map(&s, va, pa, len, attrs | (opts & (1u << 13)),
				     (enum pt_page_size)(max % 3), NULL);
			if (got == PT_OK && shadow_map(&m, va, pa, len, attrs) != PT_OK)
				die("model refused a map it predicted", i);
			break;
		case 1:
			want = shadow_check_unmap(&m, va, len, opts);
			got = pt_unmap(&s, va, len, opts, NULL);
			/* shadow_unmap on an empty model does NULL + 0 arithmetic: skip the no-op */
			if (got == PT_OK && m.n && shadow_unmap(&m, va, len, opts) != PT_OK)
				die("model refused an unmap it predicted", i);
			break;
		case 2:
			want = shadow_check_protect(&m, va, len, (attrs & ~PT_NOSPLIT) | opts);
			got = pt_protect(&s, va, len, (attrs & ~PT_NOSPLIT) | opts, NULL);
			if (got == PT_OK && m.n &&
			    shadow_protect(&m, va, len, (attrs & ~PT_NOSPLIT) | opts) != PT_OK)
				die("model refused a protect it predicted", i);
			break;
		default:
			want = shadow_check_remap(&m, va, len, pa, opts);
			got = pt_remap(&s, va, len, pa, opts, NULL);
			if (got == PT_OK && m.n && shadow_remap(&m, va, len, pa, opts) != PT_OK)
				die("model refused a remap it predicted", i);
			break;
		}
		if (got != want) {
			bool blocked = got == PT_EBLOCKED && (opts & PT_NOSPLIT) &&
				       (want == PT_OK || want == PT_ENOTMAPPED);
			/* the fuzz_arena really ran out (the model has no frames) */
			bool nomem = got == PT_ENOMEM && want == PT_OK &&
				     fuzz_arena.frames.failed != failed;

			if (!blocked && !nomem) {
				fprintf(stderr, "fuzz_ops: call %u va 0x%llx pa 0x%llx len 0x%llx flags 0x%x opts 0x%x: model %s, library %s\n",
					call, (unsigned long long)va, (unsigned long long)pa,
					(unsigned long long)len, attrs, opts, pt_strerror(want),
					pt_strerror(got));
				die("library and model disagree", i);
			}
		}
		if (got != PT_OK && (fuzz_arena.frames.in_use != in_use ||
				     memcmp(&stats, &s.stats, sizeof(stats))))
			die("a failing call changed the statistics or frames in use", i);
		check_points(&s, &m, va, len, i);
		if (i % FULL_EVERY == FULL_EVERY - 1 || i + 1 == nops)
			check_all(&s, &m, i);
	}
	pt_destroy(&s);
	shadow_fini(&m);
	if (fuzz_arena.frames.in_use != 0)
		die("frames left in use after destroy", nops);
	return 0;
}
