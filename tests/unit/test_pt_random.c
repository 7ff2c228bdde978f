// SPDX-License-Identifier: MIT
/* covers: paging/pat.c paging/lint.c paging/pt.c paging/bulk.c paging/query.c paging/space.c paging/flush.c paging/entry.h paging/walk.h */
/*
 * Seeded randomized differential test of the walker (paging/pt.c with
 * bulk.c, query.c and space.c) against the shadow model (shadow.[ch]),
 * which shares no code with them.
 *
 * Every operation is first run through the model, which predicts the exact
 * result code from pt.h's documented check order; the library must return
 * that code.  A failing call must leave every table byte, the statistics and
 * the allocator counters as they were (arena_snap).  PT_ENOMEM is accepted
 * instead of success only when an allocation really failed during the call
 * (injected with pt_frames_fail_nth, or an exhausted arena).  After every
 * call the translations at the range edges and at a few pages nearby are
 * compared, pt_lint must find nothing, and the returned flush list must
 * cover every page whose translation changed.  Every CHECK_EVERY operations
 * and at the end all leaves are compared against the model.
 *
 * PTLAB_SEED and PTLAB_OPS override the seed and the operation count; the
 * first line printed ("random: seed=S ops=N") is what replays a failure.
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
#include <ptlab/pt.h>
#include <ptlab/pte.h>

#include "arena.h"
#include "shadow.h"
#include "../../efi/lib/prng.h"

#define K4 PT_SIZE_4K
#define M2 PT_SIZE_2M
#define G1 PT_SIZE_1G
#define G512 PT_SIZE_512G

#define DEFAULT_SEED UINT64_C(0x5eed0f9a6e7ab1e5)
#define DEFAULT_OPS 100000ul
#define CHECK_EVERY 1000ul
#define PHYS_LIMIT (UINT64_C(1) << 46)
#define HIST 64u
/* Above these the generator sweeps a zone: lint and snapshots stay cheap. */
#define TABLE_BUDGET 48u
#define RUN_BUDGET 64u

/* ---- random numbers (lib/prng.h) --------------------------------------- */

/* True with probability @num/@den. */
static bool chance(struct prng *s, unsigned num, unsigned den)
{
	return prng_below(s, den) < num;
}

/* ---- operations ---------------------------------------------------------- */

enum op_kind { OP_MAP, OP_UNMAP, OP_PROTECT, OP_REMAP };

struct op {
	enum op_kind kind;
	uint64_t va;
	uint64_t len;
	uint64_t pa;          /* map: pa; remap: new_pa */
	unsigned flags;       /* map/protect: flags; unmap/remap: opts */
	enum pt_page_size max;
};

static const char *const op_names[] = { "map", "unmap", "protect", "remap" };

static void op_print(FILE *f, const struct op *op)
{
	fprintf(f, "%s va=0x%016llx len=0x%llx", op_names[op->kind],
		(unsigned long long)op->va, (unsigned long long)op->len);
	if (op->kind == OP_MAP || op->kind == OP_REMAP)
		fprintf(f, " pa=0x%llx", (unsigned long long)op->pa);
	fprintf(f, " flags=0x%x", op->flags);
	if (op->kind == OP_MAP)
		fprintf(f, " max=%u", (unsigned)op->max);
}

/* A window of virtual addresses the generator stays in. */
struct zone {
	uint64_t lo;
	uint64_t hi;
};

static const struct zone zones4[] = {
	{ 0, 16 * G1 },                                           /* null page upwards */
	{ G512 - 4 * G1, G512 + 4 * G1 },                         /* PML4 slots 0 and 1 */
	{ UINT64_C(0x0000123400000000), UINT64_C(0x0000123600000000) },
	{ UINT64_C(0x0000800000000000) - 8 * G1, UINT64_C(0x0000800000000000) }, /* top of lower half */
	{ UINT64_C(0xffff800000000000), UINT64_C(0xffff800000000000) + 8 * G1 }, /* bottom of high half */
	{ UINT64_C(0xffffffff00000000), UINT64_C(0xffffffffc0000000) },          /* image area */
};

static const struct zone zones5[] = {
	{ 0, 16 * G1 },
	{ (UINT64_C(1) << 47) - 4 * G1, (UINT64_C(1) << 47) + 4 * G1 }, /* across the 4-level hole */
	{ UINT64_C(0x0100000000000000) - 8 * G1, UINT64_C(0x0100000000000000) },
	{ UINT64_C(0xff00000000000000), UINT64_C(0xff00000000000000) + 8 * G1 },
	{ UINT64_C(0xffffffff00000000), UINT64_C(0xffffffffc0000000) },
};

/* Addresses just outside the canonical halves (one per level count). */
static const uint64_t noncanon4[] = {
	UINT64_C(0x0000800000000000), UINT64_C(0x0000900000000000),
	UINT64_C(0xffff7ffffffff000), UINT64_C(0x8000000000000000),
};

static const uint64_t noncanon5[] = {
	UINT64_C(0x0100000000000000), UINT64_C(0xfeffffffffe00000),
	UINT64_C(0x8000000000000000),
};

struct config {
	const char *name;
	unsigned levels;
	uint64_t frames;        /* arena size */
	unsigned long ops;
	uint64_t seed;
	uint64_t base_seed;     /* PTLAB_SEED or the default */
	bool ptlab_pat;         /* WC/WP available, else they are PT_EFLAGS */
	unsigned inject_per_1000; /* operations run with an armed allocation failure */
	bool snap_always;       /* the arena is small enough to run out by itself */
	unsigned null_fl_per_100; /* calls made with fl == NULL */
};

struct ctx {
	const struct config *cfg;
	struct arena a;
	struct pt_space s;
	struct shadow m;
	struct shadow before;
	struct prng rng;
	unsigned long idx;
	const struct op *cur;
	const struct zone *zones;
	unsigned nzones;
	uint64_t hist[HIST];
	unsigned hist_zone[HIST];
	unsigned nhist;
	uint64_t *scratch;
	size_t scratch_len;
	struct pt_flushlist fl;
	/* tallies */
	unsigned long ok, err, enomem, max_tables, max_runs, fl_all, sweeps;
	unsigned long injected, inject_hit;
	uint64_t max_leaves[3];   /* most leaves of each size seen in a full check */
	uint64_t marked;          /* PTE_SW_FULL links seen, summed over the full checks */
	unsigned long by_err[17];
};

/* ---- failure reporting ---------------------------------------------------- */

static void mismatch(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "random: MISMATCH [%s] seed=0x%llx op=%lu: ", c->cfg->name,
		(unsigned long long)c->cfg->seed, c->idx);
	if (c->cur)
		op_print(stderr, c->cur);
	fprintf(stderr, "\n  ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  replay: PTLAB_SEED=0x%llx (this test's seed is derived from it), %s op %lu\n",
		(unsigned long long)c->cfg->base_seed, c->cfg->name, c->idx);
	fail();
}

/* ---- checks -------------------------------------------------------------- */

static bool owns(void *ctx, uint64_t pa)
{
	return pt_frames_in_use(&((struct arena *)ctx)->frames, pa);
}

static void check_lint(struct ctx *c)
{
	uint64_t need = pt_table_count(&c->s);
	struct pt_lint l;
	int r;

	if (need > c->max_tables)
		c->max_tables = need;
	if (need > c->scratch_len) {
		c->scratch_len = 2 * need;
		c->scratch = realloc(c->scratch, c->scratch_len * sizeof(uint64_t));
		assert_non_null(c->scratch);
	}
	memset(&l, 0, sizeof(l));
	r = pt_lint(&c->s, c->scratch, c->scratch_len, owns, &c->a, &l);
	if (r != PT_OK || l.errors)
		mismatch(c, "pt_lint: %s, errors=%llu (reserved %llu, bad_ps %llu, empty %llu, shared %llu, foreign %llu, stats %llu, bad PTE_SW_FULL %llu) first bad va=0x%llx level %d",
			 pt_strerror(r), (unsigned long long)l.errors,
			 (unsigned long long)l.reserved_bits, (unsigned long long)l.bad_ps,
			 (unsigned long long)l.empty_tables, (unsigned long long)l.shared_tables,
			 (unsigned long long)l.foreign_tables, (unsigned long long)l.stats_mismatch,
			 (unsigned long long)l.bad_hints,
			 (unsigned long long)l.first_bad_va, l.first_bad_level);
}

/* Library and model agree on the translation of byte address @va. */
static void check_point(struct ctx *c, uint64_t va)
{
	struct pt_leaf lf;
	uint64_t pa = 0;
	unsigned attrs = 0;
	bool mapped;
	int r;

	memset(&lf, 0, sizeof(lf));
	r = pt_translate(&c->s, va, &lf);
	if (!shadow_canonical(&c->m, va)) {
		if (r != PT_ENONCANON)
			mismatch(c, "translate 0x%llx: expected PT_ENONCANON, got %s",
				 (unsigned long long)va, pt_strerror(r));
		return;
	}
	mapped = shadow_lookup(&c->m, va, &pa, &attrs);
	if (!mapped) {
		if (r != PT_ENOTMAPPED)
			mismatch(c, "translate 0x%llx: expected unmapped, got %s pa=0x%llx flags=0x%x",
				 (unsigned long long)va, pt_strerror(r),
				 (unsigned long long)lf.pa, lf.flags);
		return;
	}
	if (r != PT_OK || lf.pa != pa || lf.flags != attrs)
		mismatch(c, "translate 0x%llx: expected pa=0x%llx flags=0x%x, got %s pa=0x%llx flags=0x%x",
			 (unsigned long long)va, (unsigned long long)pa, attrs,
			 pt_strerror(r), (unsigned long long)lf.pa, lf.flags);
	{
		const struct model_run *run = shadow_run_at(&c->m, va);
		uint64_t off = va - lf.va;

		if (lf.level > 2 || lf.size != pt_level_size(lf.level) ||
		    lf.va & (lf.size - 1) || lf.va > va || off >= lf.size ||
		    (lf.pa - off) & (lf.size - 1) ||
		    lf.va < run->va || lf.va + lf.size > run->va + run->len)
			mismatch(c, "translate 0x%llx: leaf va=0x%llx size=0x%llx level=%u pa=0x%llx does not fit model run va=0x%llx len=0x%llx pa=0x%llx",
				 (unsigned long long)va, (unsigned long long)lf.va,
				 (unsigned long long)lf.size, lf.level,
				 (unsigned long long)lf.pa, (unsigned long long)run->va,
				 (unsigned long long)run->len, (unsigned long long)run->pa);
	}
}

/* Edges of [va, va+len) and a few pages around, at random byte offsets. */
static void check_points(struct ctx *c, uint64_t va, uint64_t len)
{
	uint64_t pts[8];
	unsigned n = 0;

	pts[n++] = va - K4;
	pts[n++] = va;
	pts[n++] = va + len - K4;
	pts[n++] = va + len;
	pts[n++] = va + prng_below(&c->rng, len / K4) * K4;
	pts[n++] = va + prng_below(&c->rng, len / K4) * K4;
	pts[n++] = va - M2 + prng_below(&c->rng, 512) * K4;
	pts[n++] = va + len + prng_below(&c->rng, 512) * K4;
	for (unsigned i = 0; i < n; i++)
		check_point(c, (pts[i] & ~(K4 - 1)) | prng_below(&c->rng, K4));
}

struct cover {
	struct ctx *c;
	const struct pt_flushlist *fl;
};

/* Every changed page lies in a flushed range; global changes say so. */
static int cover_fn(void *arg, uint64_t va, uint64_t len, int attrs_a, int attrs_b)
{
	struct cover *cv = arg;
	const struct pt_flushlist *fl = cv->fl;
	bool global = (attrs_a >= 0 && (attrs_a & PT_GLOBAL)) ||
		      (attrs_b >= 0 && (attrs_b & PT_GLOBAL));
	uint64_t cur = va, end = va + len;

	if (global && !fl->global)
		mismatch(cv->c, "flush: global translation changed at 0x%llx (0x%x -> 0x%x) but fl.global is false",
			 (unsigned long long)va, attrs_a, attrs_b);
	if (fl->all)
		return 0;
	while (cur != end) {
		unsigned i;

		for (i = 0; i < fl->n; i++)
			if (cur - fl->r[i].va < fl->r[i].len)
				break;
		if (i == fl->n)
			mismatch(cv->c, "flush: page 0x%llx changed (0x%x -> 0x%x) but no flushed range holds it (n=%u)",
				 (unsigned long long)cur, attrs_a, attrs_b, fl->n);
		cur = fl->r[i].va + fl->r[i].len;
		if (cur - va > len || cur == 0)
			cur = end;
	}
	return 0;
}

static void check_flush(struct ctx *c, const struct pt_flushlist *fl)
{
	struct cover cv = { c, fl };

	if (fl->n > PT_FLUSHLIST_MAX)
		mismatch(c, "flush list n=%u exceeds PT_FLUSHLIST_MAX", fl->n);
	if (fl->all)
		c->fl_all++;
	shadow_diff(&c->before, &c->m, cover_fn, &cv);
}

struct gather {
	struct ctx *c;
	struct shadow got;
	uint64_t next;        /* end of the previous leaf */
	bool any;
	uint64_t leaves;
};

static int gather_fn(void *arg, const struct pt_leaf *lf)
{
	struct gather *g = arg;
	struct model_run *p;

	if (lf->level > 2 || lf->size != pt_level_size(lf->level) ||
	    lf->va & (lf->size - 1) || lf->pa & (lf->size - 1) ||
	    lf->flags & ~PT_ATTR_MASK)
		mismatch(g->c, "visit: bad leaf va=0x%llx pa=0x%llx size=0x%llx level=%u flags=0x%x",
			 (unsigned long long)lf->va, (unsigned long long)lf->pa,
			 (unsigned long long)lf->size, lf->level, lf->flags);
	if (g->any && lf->va < g->next)
		mismatch(g->c, "visit: leaf va=0x%llx not after previous end 0x%llx",
			 (unsigned long long)lf->va, (unsigned long long)g->next);
	g->any = true;
	g->next = lf->va + lf->size;
	g->leaves++;
	p = g->got.n ? &g->got.run[g->got.n - 1] : NULL;
	if (p && p->va + p->len == lf->va && p->pa + p->len == lf->pa &&
	    p->attrs == lf->flags) {
		p->len += lf->size;
		return 0;
	}
	if (g->got.n == g->got.cap) {
		g->got.cap = g->got.cap ? 2 * g->got.cap : 64;
		g->got.run = realloc(g->got.run, g->got.cap * sizeof(*p));
		assert_non_null(g->got.run);
	}
	p = &g->got.run[g->got.n++];
	p->va = lf->va;
	p->len = lf->size;
	p->pa = lf->pa;
	p->attrs = lf->flags;
	return 0;
}

static int count_table(void *arg, unsigned level, uint64_t pa)
{
	(void)level;
	(void)pa;
	(*(uint64_t *)arg)++;
	return 0;
}

/* Links marked PTE_SW_FULL (pt_lint checks that each mark holds). */
static int count_marked(void *arg, unsigned level, uint64_t pa)
{
	struct ctx *c = arg;
	const uint64_t *t = arena_p2v(&c->a, pa);

	for (unsigned i = 0; level == 1 && i < 512; i++)
		if ((t[i] & (PTE_P | PTE_PS | PTE_SW_FULL)) == (PTE_P | PTE_SW_FULL))
			c->marked++;
	return 0;
}

/* All leaves, merged into runs, equal the model exactly. */
static void check_full(struct ctx *c)
{
	struct gather g;
	uint64_t tables = 0, leaves;
	int r;

	memset(&g, 0, sizeof(g));
	g.c = c;
	r = pt_visit(&c->s, 0, 0, gather_fn, &g);
	if (r != PT_OK)
		mismatch(c, "pt_visit: %s", pt_strerror(r));
	for (size_t i = 0; i < g.got.n || i < c->m.n; i++) {
		const struct model_run *w = i < c->m.n ? &c->m.run[i] : NULL;
		const struct model_run *h = i < g.got.n ? &g.got.run[i] : NULL;

		if (w && h && w->va == h->va && w->len == h->len && w->pa == h->pa &&
		    w->attrs == h->attrs)
			continue;
		mismatch(c, "full compare, run %zu: model %s va=0x%llx len=0x%llx pa=0x%llx attrs=0x%x; tables %s va=0x%llx len=0x%llx pa=0x%llx flags=0x%x",
			 i, w ? "" : "(none)", (unsigned long long)(w ? w->va : 0),
			 (unsigned long long)(w ? w->len : 0),
			 (unsigned long long)(w ? w->pa : 0), w ? w->attrs : 0,
			 h ? "" : "(none)", (unsigned long long)(h ? h->va : 0),
			 (unsigned long long)(h ? h->len : 0),
			 (unsigned long long)(h ? h->pa : 0), h ? h->attrs : 0);
	}
	for (unsigned i = 0; i < 3; i++)
		if (c->s.stats.leaves[i] > c->max_leaves[i])
			c->max_leaves[i] = c->s.stats.leaves[i];
	leaves = c->s.stats.leaves[0] + c->s.stats.leaves[1] + c->s.stats.leaves[2];
	if (leaves != g.leaves)
		mismatch(c, "stats say %llu leaves, visit saw %llu",
			 (unsigned long long)leaves, (unsigned long long)g.leaves);
	pt_visit_tables(&c->s, count_table, &tables);
	pt_visit_tables(&c->s, count_marked, c);
	if (tables != pt_table_count(&c->s))
		mismatch(c, "pt_table_count %llu, visit_tables saw %llu",
			 (unsigned long long)pt_table_count(&c->s),
			 (unsigned long long)tables);
	free(g.got.run);
	if (!shadow_sane(&c->m))
		mismatch(c, "model lost its invariants");
}

/* ---- running one operation ------------------------------------------------ */

/* @op on the model: what it would give (@apply false, @m unchanged), or done. */
static int on_model(struct shadow *m, const struct op *op, bool apply)
{
	switch (op->kind) {
	case OP_MAP:
		return apply ? shadow_map(m, op->va, op->pa, op->len, op->flags) :
			       shadow_check_map(m, op->va, op->pa, op->len, op->flags);
	case OP_UNMAP:
		return apply ? shadow_unmap(m, op->va, op->len, op->flags) :
			       shadow_check_unmap(m, op->va, op->len, op->flags);
	case OP_PROTECT:
		return apply ? shadow_protect(m, op->va, op->len, op->flags) :
			       shadow_check_protect(m, op->va, op->len, op->flags);
	case OP_REMAP:
		return apply ? shadow_remap(m, op->va, op->len, op->pa, op->flags) :
			       shadow_check_remap(m, op->va, op->len, op->pa, op->flags);
	}
	return PT_EINVAL;
}

static int apply_lib(struct ctx *c, const struct op *op, struct pt_flushlist *fl)
{
	switch (op->kind) {
	case OP_MAP:
		return pt_map(&c->s, op->va, op->pa, op->len, op->flags, op->max, fl);
	case OP_UNMAP:
		return pt_unmap(&c->s, op->va, op->len, op->flags, fl);
	case OP_PROTECT:
		return pt_protect(&c->s, op->va, op->len, op->flags, fl);
	case OP_REMAP:
		return pt_remap(&c->s, op->va, op->len, op->pa, op->flags, fl);
	}
	return PT_EINVAL;
}

/*
 * Run @op on both sides and compare.  @inject_nth > 0 fails that allocation
 * of the call.  Returns the library's result.
 */
static int run_op(struct ctx *c, const struct op *op, uint64_t inject_nth,
		  bool use_fl)
{
	struct arena_snap snap;
	bool snapped;
	uint64_t failed_before = c->a.frames.failed;
	int want, got;

	c->cur = op;
	want = on_model(&c->m, op, false);
	snapped = want != PT_OK || inject_nth || c->cfg->snap_always;
	if (snapped)
		arena_snap_take(&snap, &c->a, &c->s);
	memset(&c->fl, 0x5a, sizeof(c->fl));
	if (inject_nth)
		pt_frames_fail_nth(&c->a.frames, inject_nth);
	got = apply_lib(c, op, use_fl ? &c->fl : NULL);
	pt_frames_fail_nth(&c->a.frames, 0);
	if (inject_nth && c->a.frames.failed != failed_before)
		c->inject_hit++;

	if (got != want) {
		bool nomem_ok = want == PT_OK && got == PT_ENOMEM && snapped &&
				c->a.frames.failed != failed_before;

		if (!nomem_ok)
			mismatch(c, "expected %s, library returned %s%s", pt_strerror(want),
				 pt_strerror(got),
				 got == PT_ENOMEM ? " (no allocation failed during the call)" : "");
	}
	if (got != PT_OK) {
		if (!arena_snap_equal(&snap, &c->a, &c->s))
			mismatch(c, "failing call (%s) changed the tables, stats or frame counters",
				 pt_strerror(got));
		c->err++;
		if (got == PT_ENOMEM)
			c->enomem++;
		c->by_err[-got < 17 ? -got : 0]++;
	} else {
		if (use_fl)
			shadow_copy(&c->before, &c->m);
		if (on_model(&c->m, op, true) != PT_OK)
			mismatch(c, "model refused an operation it predicted to succeed");
		if (use_fl)
			check_flush(c, &c->fl);
		c->ok++;
	}
	if (snapped)
		arena_snap_free(&snap);
	if (c->m.n > c->max_runs)
		c->max_runs = c->m.n;
	check_points(c, op->va, op->len ? op->len : K4);
	check_lint(c);
	return got;
}

/* ---- generator ------------------------------------------------------------ */

static uint64_t pick_granule(struct ctx *c)
{
	uint64_t x = prng_below(&c->rng, 100);

	return x < 50 ? K4 : x < 85 ? M2 : G1;
}

static uint64_t pick_len(struct ctx *c, uint64_t g)
{
	uint64_t n = g == K4 ? 1 + prng_below(&c->rng, 32) :
		     g == M2 ? 1 + prng_below(&c->rng, 8) : 1 + prng_below(&c->rng, 2);
	uint64_t len = n * g;

	/* An unaligned tail so large ranges end in smaller leaves. */
	if (g != K4 && chance(&c->rng, 1, 5))
		len += (1 + prng_below(&c->rng, 16)) * K4;
	return len;
}

static unsigned pick_attrs(struct ctx *c)
{
	unsigned f = 0, cache;

	if (chance(&c->rng, 1, 2))
		f |= PT_WRITE;
	if (chance(&c->rng, 1, 3))
		f |= PT_EXEC;
	if (chance(&c->rng, 1, 3))
		f |= PT_USER;
	if (chance(&c->rng, 1, 5))
		f |= PT_GLOBAL;
	cache = chance(&c->rng, 1, 2) ? PT_CACHE_WB :
		(unsigned)prng_below(&c->rng, c->cfg->ptlab_pat ? PT_CACHE_COUNT : 4);
	f |= PT_CACHE(cache);
	if ((f & PT_WRITE) && (f & PT_EXEC))
		f |= PT_ALLOW_WX;
	return f;
}

/*
 * A physical address for [va, va+len) aligned to @g; mostly congruent with
 * va modulo 1 GiB so large leaves are possible, always so modulo 2 MiB for
 * long ranges (a long run of 4 KiB leaves would flood the arena with tables).
 */
static uint64_t pick_pa(struct ctx *c, uint64_t va, uint64_t len, uint64_t g)
{
	uint64_t limit = PHYS_LIMIT - len - G1;
	uint64_t pa;

	if (chance(&c->rng, 7, 10) || len > 32 * M2)
		pa = (prng_below(&c->rng, limit / G1) * G1) |
		     (va & (len > 32 * M2 && chance(&c->rng, 1, 2) ? M2 - 1 : G1 - 1));
	else
		pa = prng_below(&c->rng, limit / g) * g;
	return pa & ~(K4 - 1);
}

static void remember(struct ctx *c, uint64_t va, unsigned zone)
{
	unsigned i = c->nhist < HIST ? c->nhist++ : (unsigned)prng_below(&c->rng, HIST);

	c->hist[i] = va;
	c->hist_zone[i] = zone;
}

/* A fresh range near an earlier one (or anywhere in a zone), inside its zone. */
static void pick_range(struct ctx *c, uint64_t *va, uint64_t *len, uint64_t *gran)
{
	uint64_t g = pick_granule(c), l = pick_len(c, g), v;
	unsigned z;

	if (c->nhist && chance(&c->rng, 4, 5)) {
		unsigned h = (unsigned)prng_below(&c->rng, c->nhist);

		z = c->hist_zone[h];
		v = (c->hist[h] & ~(g - 1)) + (prng_below(&c->rng, 9) - 4) * g;
	} else {
		z = (unsigned)prng_below(&c->rng, c->nzones);
		v = c->zones[z].lo + prng_below(&c->rng, (c->zones[z].hi - c->zones[z].lo) / g) * g;
	}
	if (l > c->zones[z].hi - c->zones[z].lo)
		l = g;
	if (v < c->zones[z].lo || v > c->zones[z].hi - l)
		v = c->zones[z].lo + prng_below(&c->rng, (c->zones[z].hi - c->zones[z].lo - l) / g + 1) * g;
	remember(c, v, z);
	*va = v;
	*len = l;
	*gran = g;
}

/* A sub-range of an existing run (or of several neighbouring ones). */
static bool pick_mapped(struct ctx *c, uint64_t *va, uint64_t *len)
{
	const struct model_run *r;
	uint64_t g, start, rest;

	if (!c->m.n)
		return false;
	r = &c->m.run[prng_below(&c->rng, c->m.n)];
	if (chance(&c->rng, 1, 4)) {
		*va = r->va;
		*len = r->len;
		return true;
	}
	g = pick_granule(c);
	start = r->va + prng_below(&c->rng, r->len / K4) * K4;
	if (chance(&c->rng, 1, 2) && (start & ~(g - 1)) >= r->va)
		start &= ~(g - 1);
	rest = r->va + r->len - start;
	*len = pick_len(c, g);
	if (*len > rest && chance(&c->rng, 9, 10))
		*len = rest;
	*va = start;
	return true;
}

static uint64_t pick_noncanon(struct ctx *c)
{
	if (c->cfg->levels == 5)
		return noncanon5[prng_below(&c->rng, sizeof(noncanon5) / sizeof(noncanon5[0]))];
	return noncanon4[prng_below(&c->rng, sizeof(noncanon4) / sizeof(noncanon4[0]))];
}

/* Make @op deliberately wrong in one way (or two). */
static void spoil(struct ctx *c, struct op *op)
{
	uint64_t top = c->cfg->levels == 5 ? UINT64_C(0x0100000000000000) :
					     UINT64_C(0x0000800000000000);

	switch (prng_below(&c->rng, 10)) {
	case 0:   /* W+X without PT_ALLOW_WX */
		if (op->kind == OP_MAP || op->kind == OP_PROTECT)
			op->flags = (op->flags | PT_WRITE | PT_EXEC) & ~PT_ALLOW_WX;
		else
			op->flags |= 1u << 12;
		break;
	case 1:   /* cache type out of range */
		op->flags = (op->flags & ~PT_CACHE_MASK) | PT_CACHE(6 + prng_below(&c->rng, 2));
		break;
	case 2:   /* not canonical */
		op->va = pick_noncanon(c);
		break;
	case 3:   /* crossing the top of the lower half */
		op->va = top - K4 * (1 + prng_below(&c->rng, 4));
		op->len = top - op->va + K4 * (1 + prng_below(&c->rng, 4));
		break;
	case 4:
		op->va += 1 + prng_below(&c->rng, K4 - 1);
		break;
	case 5:
		op->len += 1 + prng_below(&c->rng, K4 - 1);
		break;
	case 6:
		op->len = 0;
		break;
	case 7:   /* beyond MAXPHYADDR */
		op->pa = PHYS_LIMIT - K4 * prng_below(&c->rng, 3);
		break;
	case 8:
		op->pa |= 1 + prng_below(&c->rng, K4 - 1);
		break;
	default:  /* the page just past a mapping / just before it */
		if (c->m.n) {
			const struct model_run *r = &c->m.run[prng_below(&c->rng, c->m.n)];

			op->va = chance(&c->rng, 1, 2) ? r->va + r->len - K4 : r->va - K4;
			op->len = 2 * K4;
		}
		break;
	}
}

static void gen_op(struct ctx *c, struct op *op)
{
	uint64_t x = prng_below(&c->rng, 100), g = K4;
	/* Past about 32 runs, shrink the space again to keep the tables few. */
	unsigned map_pct = c->m.n > 32 ? 15 : c->m.n < 8 ? 60 : 35;

	memset(op, 0, sizeof(*op));
	if (c->m.n && (pt_table_count(&c->s) > TABLE_BUDGET || c->m.n > RUN_BUDGET)) {
		/* Sweep the zone of some mapping: one sparse unmap of it all. */
		uint64_t va = c->m.run[prng_below(&c->rng, c->m.n)].va;

		for (unsigned z = 0; z < c->nzones; z++) {
			if (va - c->zones[z].lo < c->zones[z].hi - c->zones[z].lo) {
				op->kind = OP_UNMAP;
				op->flags = PT_SPARSE;
				op->va = c->zones[z].lo;
				op->len = c->zones[z].hi - c->zones[z].lo;
				c->sweeps++;
				return;
			}
		}
	}
	if (c->m.n > 32 && chance(&c->rng, 1, 2)) {
		const struct model_run *r = &c->m.run[prng_below(&c->rng, c->m.n)];

		op->kind = OP_UNMAP;
		op->va = r->va;
		op->len = r->len;
		return;
	}
	op->max = chance(&c->rng, 3, 5) ? PT_PAGE_1G : (enum pt_page_size)prng_below(&c->rng, 2);
	if (x < map_pct) {
		op->kind = OP_MAP;
		pick_range(c, &op->va, &op->len, &g);
		if (c->m.n && chance(&c->rng, 1, 20)) {
			/* land on top of something: PT_EEXIST */
			const struct model_run *r = &c->m.run[prng_below(&c->rng, c->m.n)];

			op->va = r->va + prng_below(&c->rng, r->len / K4) * K4;
		}
		op->pa = pick_pa(c, op->va, op->len, g);
		op->flags = pick_attrs(c);
		/* 4 KiB leaves only for short ranges: 512 tables per GiB otherwise. */
		if (op->len > 32 * M2 && op->max == PT_PAGE_4K)
			op->max = PT_PAGE_2M;
	} else {
		x = prng_below(&c->rng, 100);
		op->kind = x < 40 ? OP_UNMAP : x < 70 ? OP_PROTECT : OP_REMAP;
		if (!pick_mapped(c, &op->va, &op->len) || chance(&c->rng, 1, 20))
			pick_range(c, &op->va, &op->len, &g);
		if (op->kind == OP_PROTECT)
			op->flags = pick_attrs(c);
		if (op->kind == OP_REMAP)
			op->pa = pick_pa(c, op->va, op->len, chance(&c->rng, 1, 2) ? M2 : K4);
		if (chance(&c->rng, 1, 10))
			op->flags |= PT_SPARSE;
	}
	if (chance(&c->rng, 1, 25))
		spoil(c, op);
}

/* ---- drivers ---------------------------------------------------------------- */

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return dflt;
	v = strtoull(s, &end, 0);
	return *end ? dflt : (uint64_t)v;
}

static void ctx_init(struct ctx *c, const struct config *cfg)
{
	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	prng_seed(&c->rng, cfg->seed);
	arena_init(&c->a, cfg->frames);
	if (cfg->ptlab_pat)
		pt_pat_ptlab(&c->a.env.pat);
	assert_int_equal(pt_create(&c->s, &c->a.env, cfg->levels), PT_OK);
	shadow_init(&c->m, cfg->levels, c->a.env.maxphyaddr, &c->a.env.pat);
	shadow_init(&c->before, cfg->levels, c->a.env.maxphyaddr, &c->a.env.pat);
	if (cfg->levels == 5) {
		c->zones = zones5;
		c->nzones = sizeof(zones5) / sizeof(zones5[0]);
	} else {
		c->zones = zones4;
		c->nzones = sizeof(zones4) / sizeof(zones4[0]);
	}
}

/* Unmap everything (sparse, zone by zone), then the space must be empty. */
static void teardown(struct ctx *c)
{
	struct op op;

	memset(&op, 0, sizeof(op));
	op.kind = OP_UNMAP;
	op.flags = PT_SPARSE;
	for (unsigned z = 0; z < c->nzones; z++) {
		op.va = c->zones[z].lo;
		op.len = c->zones[z].hi - c->zones[z].lo;
		assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	}
	c->cur = NULL;
	if (c->m.n)
		mismatch(c, "model not empty after unmapping every zone (%zu runs)", c->m.n);
	check_full(c);
	if (pt_table_count(&c->s) != 1)
		mismatch(c, "%llu tables left after unmapping everything",
			 (unsigned long long)pt_table_count(&c->s));
	pt_destroy(&c->s);
	if (c->a.frames.in_use != 0)
		mismatch(c, "%llu frames in use after pt_destroy",
			 (unsigned long long)c->a.frames.in_use);
	if (c->a.frames.allocated != c->a.frames.freed)
		mismatch(c, "frames allocated %llu != freed %llu",
			 (unsigned long long)c->a.frames.allocated,
			 (unsigned long long)c->a.frames.freed);
}

static void ctx_fini(struct ctx *c)
{
	shadow_fini(&c->m);
	shadow_fini(&c->before);
	free(c->scratch);
	arena_fini(&c->a);
}

/* The context of the running test, freed by cleanup() when a check fails. */
static struct ctx *live;

static int cleanup(void **state)
{
	(void)state;
	if (live) {
		ctx_fini(live);
		free(live);
		live = NULL;
	}
	return 0;
}

static struct ctx *ctx_new(const struct config *cfg)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	ctx_init(c, cfg);
	live = c;
	return c;
}

static void ctx_free(struct ctx *c)
{
	ctx_fini(c);
	free(c);
	live = NULL;
}

static void run_random(const struct config *cfg)
{
	struct ctx *c;
	struct op op;

	printf("random: [%s] seed=0x%llx ops=%lu (PTLAB_SEED=0x%llx)\n", cfg->name,
	       (unsigned long long)cfg->seed, cfg->ops,
	       (unsigned long long)cfg->base_seed);
	fflush(stdout);
	c = ctx_new(cfg);
	for (c->idx = 0; c->idx < cfg->ops; c->idx++) {
		uint64_t inject = 0;
		bool use_fl = !chance(&c->rng, cfg->null_fl_per_100, 100);

		gen_op(c, &op);
		if (prng_below(&c->rng, 1000) < cfg->inject_per_1000 &&
		    on_model(&c->m, &op, false) == PT_OK) {
			inject = 1 + prng_below(&c->rng, 3);
			c->injected++;
		}
		run_op(c, &op, inject, use_fl);
		if ((c->idx + 1) % CHECK_EVERY == 0) {
			c->cur = NULL;
			check_full(c);
		}
	}
	c->cur = NULL;
	check_full(c);
	printf("random: [%s] ok=%lu failed=%lu (enomem %lu, eexist %lu, enotmapped %lu, eflags %lu, enoncanon %lu) injected %lu (hit %lu) max tables %lu, max runs %lu, sweeps %lu, fl.all %lu, most leaves 4K/2M/1G %llu/%llu/%llu, marked page tables seen %llu\n",
	       cfg->name, c->ok, c->err, c->enomem, c->by_err[-PT_EEXIST],
	       c->by_err[-PT_ENOTMAPPED], c->by_err[-PT_EFLAGS],
	       c->by_err[-PT_ENONCANON], c->injected, c->inject_hit,
	       c->max_tables, c->max_runs, c->sweeps, c->fl_all,
	       (unsigned long long)c->max_leaves[0], (unsigned long long)c->max_leaves[1],
	       (unsigned long long)c->max_leaves[2], (unsigned long long)c->marked);
	teardown(c);
	ctx_free(c);
}

/*
 * A random run named @name at @levels levels in @frames frames: PTLAB_OPS
 * (or the default) / @ops_div operations from PTLAB_SEED ^ @seed_xor, WC and
 * WP available; with @injects, 50 in 1000 operations with an armed
 * allocation failure and 5 in 100 calls with fl == NULL.
 */
static struct config random_cfg(const char *name, unsigned levels, uint64_t frames,
				unsigned long ops_div, uint64_t seed_xor, bool injects)
{
	return (struct config){
		.name = name,
		.levels = levels,
		.frames = frames,
		.ops = (unsigned long)env_u64("PTLAB_OPS", DEFAULT_OPS) / ops_div,
		.seed = env_u64("PTLAB_SEED", DEFAULT_SEED) ^ seed_xor,
		.base_seed = env_u64("PTLAB_SEED", DEFAULT_SEED),
		.ptlab_pat = true,
		.inject_per_1000 = injects ? 50 : 0,
		.null_fl_per_100 = injects ? 5 : 0,
	};
}

static void test_random_differential(void **state)
{
	struct config cfg = random_cfg("4-level", 4, 8192 /* 32 MiB */, 1, 0, true);

	(void)state;
	run_random(&cfg);
}

static void test_random_5level_default_pat(void **state)
{
	struct config cfg = random_cfg("5-level", 5, 8192, 5, 5, true);

	(void)state;
	cfg.ptlab_pat = false;       /* WC and WP must be refused */
	run_random(&cfg);
}

static void test_random_small_arena_runs_out(void **state)
{
	/* 24 frames: it runs out by itself */
	struct config cfg = random_cfg("small arena", 4, 24, 10, 24, false);

	(void)state;
	cfg.snap_always = true;
	run_random(&cfg);
}

static const struct config scripted = {
	.name = "scripted",
	.levels = 4,
	.frames = 256,
	.seed = 1,
	.ptlab_pat = true,
};

static struct op mkop(enum op_kind kind, uint64_t va, uint64_t len, uint64_t pa,
		      unsigned flags)
{
	struct op op = { kind, va, len, pa, flags, PT_PAGE_1G };

	return op;
}

static unsigned leaf_level(struct ctx *c, uint64_t va)
{
	struct pt_leaf lf;

	assert_int_equal(pt_translate(&c->s, va, &lf), PT_OK);
	return lf.level;
}

/*
 * Every successful change reports flush ranges covering each page whose
 * translation changed (run_op checks that against the model) and fl.global
 * when a global leaf is involved.  Splits and emptied tables also call
 * env->flush during the call; this test only counts those calls.  That the
 * flush comes before the change, and before the free, is checked in
 * test_pt.c (test_unmap_splits_large_leaf_and_keeps_neighbours,
 * test_unmap_frees_empty_tables_after_flush).
 */
static void test_flush_covers_every_changed_page(void **state)
{
	struct ctx *c = ctx_new(&scripted);
	const uint64_t va = 4 * G1, pa = 8 * G1;
	struct op op;
	unsigned flushes;

	(void)state;
	op = mkop(OP_MAP, va, G1, pa, PT_WRITE | PT_GLOBAL);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	assert_int_equal(leaf_level(c, va), 2);
	assert_true(c->fl.global);
	assert_true(c->fl.all || c->fl.n > 0);

	/* cut the 1 GiB leaf: the split calls env->flush */
	flushes = c->a.flushes;
	op = mkop(OP_PROTECT, va + M2 + K4, K4, 0, PT_EXEC | PT_GLOBAL);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	assert_true(c->a.flushes > flushes);
	assert_int_equal(leaf_level(c, va + M2 + K4), 0);
	assert_int_equal(leaf_level(c, va + 4 * M2), 1);

	op = mkop(OP_UNMAP, va + 3 * M2, M2 + 2 * K4, 0, 0);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	op = mkop(OP_REMAP, va, G1, 16 * G1, PT_SPARSE);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	op = mkop(OP_PROTECT, va, G1, 0, PT_USER | PT_SPARSE);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	/* not global any more: a change of a non-global range */
	op = mkop(OP_REMAP, va + 8 * M2, 4 * K4, 32 * G1, 0);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	/* emptying every table of the range frees them all */
	op = mkop(OP_UNMAP, va, G1, 0, PT_SPARSE);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	assert_int_equal(pt_table_count(&c->s), 1);
	c->cur = NULL;
	check_full(c);
	teardown(c);
	ctx_free(c);
}

/* @op must fail with PT_EBLOCKED and change nothing. */
static void expect_blocked(struct ctx *c, const struct op *op)
{
	struct arena_snap snap;
	int r;

	c->cur = op;
	arena_snap_take(&snap, &c->a, &c->s);
	r = apply_lib(c, op, &c->fl);
	if (r != PT_EBLOCKED)
		mismatch(c, "expected PT_EBLOCKED, library returned %s", pt_strerror(r));
	if (!arena_snap_equal(&snap, &c->a, &c->s))
		mismatch(c, "PT_EBLOCKED call changed the tables");
	arena_snap_free(&snap);
	check_full(c);
}

/* PT_NOSPLIT: the model cannot see leaf sizes, so the cases are chosen by hand. */
static void test_nosplit_blocks_only_where_a_leaf_is_cut(void **state)
{
	struct ctx *c = ctx_new(&scripted);
	const uint64_t va = 4 * G1, pa = 8 * G1;
	struct op op;

	(void)state;
	op = mkop(OP_MAP, va, G1, pa, PT_WRITE);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	assert_int_equal(leaf_level(c, va), 2);

	op = mkop(OP_UNMAP, va + K4, K4, 0, PT_NOSPLIT);
	expect_blocked(c, &op);
	op = mkop(OP_PROTECT, va, M2, 0, PT_EXEC | PT_NOSPLIT);
	expect_blocked(c, &op);
	op = mkop(OP_REMAP, va, G1, pa + M2, PT_NOSPLIT);
	expect_blocked(c, &op);
	/* the first page is inside the leaf: blocked before the hole after it */
	op = mkop(OP_UNMAP, va + G1 - K4, 2 * K4, 0, PT_NOSPLIT);
	expect_blocked(c, &op);
	/* the hole comes first */
	op = mkop(OP_UNMAP, va - K4, 2 * K4, 0, PT_NOSPLIT);
	assert_int_equal(run_op(c, &op, 0, true), PT_ENOTMAPPED);

	/* whole leaves need no split */
	op = mkop(OP_REMAP, va, G1, 16 * G1, PT_NOSPLIT);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	assert_int_equal(leaf_level(c, va), 2);
	op = mkop(OP_PROTECT, va, G1, 0, PT_EXEC | PT_NOSPLIT);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	assert_int_equal(leaf_level(c, va), 2);

	/* 2 MiB leaves: cut one, keep the others whole */
	op = mkop(OP_MAP, 2 * G1, 4 * M2, 40 * G1, PT_WRITE);
	op.max = PT_PAGE_2M;
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	assert_int_equal(leaf_level(c, 2 * G1), 1);
	op = mkop(OP_PROTECT, 2 * G1 + M2, M2 + K4, 0, PT_NOSPLIT);
	expect_blocked(c, &op);
	op = mkop(OP_PROTECT, 2 * G1 + M2, M2, 0, PT_NOSPLIT);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	op = mkop(OP_REMAP, 2 * G1, 2 * M2, 40 * G1 + K4, PT_NOSPLIT);
	expect_blocked(c, &op);
	op = mkop(OP_UNMAP, 2 * G1, 2 * M2, 0, PT_NOSPLIT);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);

	/* 4 KiB leaves never block */
	op = mkop(OP_MAP, G1, 4 * K4, 0x123000, 0);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	op = mkop(OP_UNMAP, G1 + K4, K4, 0, PT_NOSPLIT);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);

	op = mkop(OP_UNMAP, va, G1, 0, PT_NOSPLIT);
	assert_int_equal(run_op(c, &op, 0, true), PT_OK);
	c->cur = NULL;
	teardown(c);
	ctx_free(c);
}

UNIT_MAIN(
	cmocka_unit_test_teardown(test_flush_covers_every_changed_page, cleanup),
	cmocka_unit_test_teardown(test_nosplit_blocks_only_where_a_leaf_is_cut, cleanup),
	cmocka_unit_test_teardown(test_random_differential, cleanup),
	cmocka_unit_test_teardown(test_random_5level_default_pat, cleanup),
	cmocka_unit_test_teardown(test_random_small_arena_runs_out, cleanup))
