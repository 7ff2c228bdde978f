/* SPDX-License-Identifier: MIT */
/*
 * Randomized churn on the live hierarchy, judged by the CPU.
 *
 * A seeded sequence of map / unmap / protect / remap calls on two scratch
 * windows (one in the lower half above 512 GiB, one in the high half) with
 * 4 KiB, 2 MiB and 1 GiB leaves, clustered near earlier ranges.  After each
 * call:
 *  - the library's result equals the one the shadow model (model.c) predicts;
 *  - pt_translate agrees with the model at the call's key points (first and
 *    last page, and the pages just outside);
 *  - the CPU agrees: a sampled mapped data page shows, through the scratch
 *    address, the pattern just written through the HHDM alias and vice
 *    versa; a read-only page faults on write with error 3; an NX page faults
 *    on fetch with 0x11; an unmapped page faults on read with error 0; CR2
 *    is the address every time.
 * Only the ranges the library reports are invalidated, so a missing flush
 * shows as a stale translation at the next sample.
 *
 * 4 KiB leaves point into the data area (our own frames); 2 MiB leaves at
 * its 2 MiB-aligned chunks; 1 GiB leaves at the GiB holding the data area,
 * which is RAM we do not own: read there only, and written only where it is
 * the data area again.
 *
 * Memory types (SDM Vol. 3A 11.12.4: aliases of a page with different types
 * are unsupported): only write-back maps RAM we do not own and the data
 * area.  Other types (UC, WT) go only on the typed window, a few frames of
 * ours taken out of our identity map and HHDM for the whole churn, and a
 * frame is never mapped twice with different types: a map, protect or
 * remap that would do so is changed to the type the frame already has, or
 * skipped.  Caches are written back and invalidated (wbinvd) whenever a
 * typed frame's type changes and at the start of every slice (the
 * firmware, between slices, still has its own write-back mapping of them).
 * The rule is audited on every leaf of the scratch windows at the end.
 *
 * The churn runs in slices of about a second of live time, so the firmware
 * can print progress between them.
 *
 * The calls and the loop are here; how a call is judged is churnjudge.c's,
 * the memory types and the typed window churntype.c's, and what the three
 * share churnctx.h's.
 *
 * No firmware calls (firmware-free: in the host archive).
 */
#include "checks/elsewhere.h"
#include "live/flush.h"
#include "checks/checkkit.h"
#include "checks/churn.h"
#include "checks/churnctx.h"
#include "checks/churnjudge.h"
#include "checks/churntype.h"
#include "checks/inject.h"
#include "report/report.h"
#include "cpu/trap.h"
#include "lib/prng.h"

#include <ptlab/pte.h>

#include "lib/model.h"
#include "live/live.h"

#define GIB              PT_SIZE_1G
#define RUNS_SOFT_MAX    384u
#define LINT_EVERY       1000u
#define SLICE_US         1000000u

#define INJECT_OP        1000u    /* --inject: the first op that may damage something */

/* The context of run @p: pointers into it, nothing copied. */
static struct churn_ctx churn_ctx_of(struct ptlab *p)
{
	return (struct churn_ctx){
		.c = &p->churn, .b = &p->build, .d = &p->data, .o = &p->opts, .rep = p->rep,
		.wx = &p->wx,
	};
}

/* ---- choosing operations ---- */

static const unsigned attr_choices[] = {
	PT_WRITE, 0, PT_EXEC, PT_WRITE | PT_USER, PT_WRITE | PT_CACHE(PT_CACHE_UC),
	PT_EXEC | PT_USER, PT_CACHE(PT_CACHE_WT),
};

static unsigned pick_attrs(const struct churn_ctx *cc)
{
	struct ptlab_churn *c = cc->c;
	unsigned a = attr_choices[prng_below(&c->rng,
					     sizeof(attr_choices) / sizeof(attr_choices[0]))];
	enum pt_cache want = PT_CACHE_OF(a);

	/* a cache type the firmware's PAT layout lacks becomes one it has */
	return want == PT_CACHE_WB ? a :
	       (a & ~PT_CACHE_MASK) | PT_CACHE(ptlab_cache_pick(&cc->b->env.pat, want));
}

/* A range of @size-aligned pages, near an earlier run most of the time. */
static void pick_range(struct ptlab_churn *c, uint64_t size, uint64_t n, uint64_t *va,
		       uint64_t *len)
{
	uint64_t base = window_base[prng_below(&c->rng, 2)], lo, hi;

	*len = n * size;
	if (c->m.n && prng_below(&c->rng, 10) < 7) {
		const struct model_run *r = &c->m.run[prng_below(&c->rng, c->m.n)];

		base = r->va & ~(WINDOW - 1);
		*va = prng_below(&c->rng, 2) ? (r->va + r->len + size - 1) & ~(size - 1)
			       : ((r->va & ~(size - 1)) - *len);
		*va += prng_below(&c->rng, 3) * size;   /* sometimes overlapping or a little apart */
	} else {
		*va = base + prng_below(&c->rng, WINDOW / size) * size;
	}
	lo = base;
	hi = base + WINDOW - *len;
	if (*va < lo || *va > hi)
		*va = lo + prng_below(&c->rng, (hi - lo) / size) * size;
}

/* A frame range of @len for @size leaves with @attrs' memory type. */
static uint64_t pick_frames(const struct churn_ctx *cc, uint64_t size, uint64_t len, unsigned attrs)
{
	struct ptlab_churn *c = cc->c;
	const struct ptlab_data *d = cc->d;

	if (size == GIB)
		return d->big_pa;
	if (size == PT_PAGE_SIZE && cache_of(attrs) != PT_CACHE_WB && len <= d->typed_len)
		return d->typed_pa +
		       prng_below(&c->rng, (d->typed_len - len) / PT_PAGE_SIZE + 1) * PT_PAGE_SIZE;
	return d->pa + prng_below(&c->rng, (d->len - len) / size + 1) * size;
}

/*
 * After a successful change of [va, va+len) to @pa/@attrs: invalidate what
 * the library reported (unless the injection skips it), teach the model,
 * and compare at the key points.
 */
static void changed(const struct churn_ctx *cc, struct pt_flushlist *fl, bool skip_flush,
		    uint64_t va, uint64_t len, uint64_t pa, unsigned attrs)
{
	struct ptlab_churn *c = cc->c;

	if (!skip_flush)
		ptlab_flush(fl);
	if (touches_typed(cc->d, pa, len)) {
		/* the frames may have a new type now: nothing cached of the old one */
		ptlab_wbinvd();
		c->type_changes++;
	}
	if (model_set(&c->m, va, len, true, pa, attrs))
		churn_fail(cc, "model: out of runs", va, PTLAB_CHURN_MODEL_CAP, c->m.n);
	else
		churn_key_points(cc, va, len);
}

/*
 * More frames than any one churn call can need (a new table per level at
 * each end of the range, five levels): with this many free, PT_ENOMEM is a
 * library bug, not exhaustion.
 */
#define CALL_MAX_TABLES  16u

static int check_result(const struct churn_ctx *cc, const char *call, uint64_t va, int want,
			int got)
{
	struct ptlab_churn *c = cc->c;
	bool pool_refused = cc->b->frames.failed != c->pool_failed;

	c->pool_failed = cc->b->frames.failed;
	/*
	 * PT_ENOMEM is a refusal only when the pool really refused a frame,
	 * because --fail-alloc injected it or the pool ran nearly dry.
	 */
	if (got == PT_ENOMEM && want == PT_OK && pool_refused &&
	    (cc->o->fail_alloc || pt_frames_available(&cc->b->frames) < CALL_MAX_TABLES)) {
		c->refused++;
		return -1;
	}
	if (got != want) {
		churn_fail(cc, call, va, (uint64_t)(int64_t)want, (uint64_t)(int64_t)got);
		return -1;
	}
	return got == PT_OK ? 0 : -1;
}

static void op_map(const struct churn_ctx *cc)
{
	struct ptlab_churn *c = cc->c;

	static const uint64_t sizes[3] = { PT_PAGE_SIZE, PT_SIZE_2M, GIB };
	static const enum pt_page_size max[3] = { PT_PAGE_4K, PT_PAGE_2M, PT_PAGE_1G };
	unsigned k = prng_below(&c->rng, 20) < 14 ? 0 :
		     prng_below(&c->rng, 20) < 17 || !cc->d->big_ok ? 1 : 2;
	uint64_t n = k == 0 ? 1 + prng_below(&c->rng, 16) : k == 1 ? 1 + prng_below(&c->rng, 2) : 1;
	uint64_t va, len, pa;
	unsigned attrs = pick_attrs(cc);
	struct pt_flushlist fl;
	int want, got;

	pick_range(c, sizes[k], n, &va, &len);
	pa = pick_frames(cc, sizes[k], len, attrs);
	if (!churn_fit_type(cc, va, len, pa, &attrs))
		return;   /* the frames have mixed types already: no mapping can join them */
	want = model_mapped_bytes(&c->m, va, len) ? PT_EEXIST : PT_OK;
	got = pt_map(&cc->b->space, va, pa, len, attrs, max[k], &fl);
	c->maps++;
	if (check_result(cc, "map", va, want, got))
		return;
	c->maps_by_size[k]++;
	if (cache_of(attrs) != PT_CACHE_WB)
		c->typed_maps++;
	changed(cc, &fl, false, va, len, pa, attrs);
	churn_sample(cc, va + prng_below(&c->rng, len / PT_PAGE_SIZE) * PT_PAGE_SIZE);
}

/* A page-aligned piece of an existing run (whole run half of the time). */
static const struct model_run *pick_piece(struct ptlab_churn *c, uint64_t *va, uint64_t *len)
{
	const struct model_run *r = &c->m.run[prng_below(&c->rng, c->m.n)];
	uint64_t pages = r->len / PT_PAGE_SIZE, first, count;

	if (prng_below(&c->rng, 2)) {
		*va = r->va;
		*len = r->len;
		return r;
	}
	first = prng_below(&c->rng, pages);
	count = 1 + prng_below(&c->rng, pages - first);
	*va = r->va + first * PT_PAGE_SIZE;
	*len = count * PT_PAGE_SIZE;
	return r;
}

static void op_unmap(const struct churn_ctx *cc)
{
	struct ptlab_churn *c = cc->c;
	struct pt_flushlist fl;
	uint64_t va, len;
	int want, got;

	if (prng_below(&c->rng, 16) == 0) {
		/* a range with a hole in it, or nothing at all */
		pick_range(c, PT_PAGE_SIZE, 1 + prng_below(&c->rng, 4), &va, &len);
	} else {
		pick_piece(c, &va, &len);
	}
	want = model_mapped_bytes(&c->m, va, len) == len ? PT_OK : PT_ENOTMAPPED;
	got = pt_unmap(&cc->b->space, va, len, 0, &fl);
	c->unmaps++;
	if (check_result(cc, "unmap", va, want, got))
		return;
	ptlab_flush(&fl);
	model_set(&c->m, va, len, false, 0, 0);
	churn_key_points(cc, va, len);
	churn_sample(cc, va);
	churn_sample(cc, va + len - PT_PAGE_SIZE);
}

static void op_protect(const struct churn_ctx *cc)
{
	struct ptlab_churn *c = cc->c;
	struct pt_flushlist fl;
	uint64_t va, len;
	const struct model_run *r = pick_piece(c, &va, &len);
	uint64_t pa = r->pa + (va - r->va);
	unsigned attrs = pick_attrs(cc);
	int got;

	if (!churn_fit_type(cc, va, len, pa, &attrs))
		return;
	got = pt_protect(&cc->b->space, va, len, attrs, &fl);
	c->protects++;
	if (check_result(cc, "protect", va, PT_OK, got))
		return;
	changed(cc, &fl, false, va, len, pa, attrs);
	churn_sample(cc, va + prng_below(&c->rng, len / PT_PAGE_SIZE) * PT_PAGE_SIZE);
}

static void op_remap(const struct churn_ctx *cc)
{
	struct ptlab_churn *c = cc->c;
	const struct ptlab_data *d = cc->d;
	struct pt_flushlist fl;
	uint64_t va, len, new_pa, before = 0;
	const struct model_run *r = pick_piece(c, &va, &len);
	unsigned attrs = r->attrs;
	bool skip = false;
	struct trap_fault f;
	int got;

	if (in_typed(d, r->pa, r->len)) {
		if (len > d->typed_len)
			return;
		new_pa = d->typed_pa +
			 prng_below(&c->rng, (d->typed_len - len) / PT_PAGE_SIZE + 1) * PT_PAGE_SIZE;
	} else if (!in_data(d, r->pa)) {
		/* inside the GiB we do not own: another spot in it */
		new_pa = d->big_pa +
			 prng_below(&c->rng, (GIB - len) / PT_PAGE_SIZE + 1) * PT_PAGE_SIZE;
	} else if (len <= d->len) {
		uint64_t align = prng_below(&c->rng, 2) ? PT_SIZE_2M : PT_PAGE_SIZE;

		if (len % align)
			align = PT_PAGE_SIZE;
		new_pa = d->pa + prng_below(&c->rng, (d->len - len) / align + 1) * align;
	} else {
		return;
	}
	{
		unsigned fitted = attrs;

		/* remap keeps the attributes: the new frames must take this type as it is */
		if (!churn_fit_type(cc, va, len, new_pa, &fitted) || fitted != attrs)
			return;
	}
	if (cc->o->inject == OPTS_INJECT_MISSING_INVLPG && !c->injected && c->op >= c->inject_at &&
	    in_data(d, r->pa) && len == PT_PAGE_SIZE && new_pa != r->pa + (va - r->va)) {
		struct pt_leaf l;

		/* a single 4 KiB leaf: no split, so no flush inside the library either */
		if (pt_translate(&cc->b->space, va, &l) == PT_OK && l.level == 0) {
			probe_read64(va, &before, &f);   /* the old translation is now cached */
			skip = true;
			c->injected = true;
			c->inject_op = c->op;
			report_note(cc->rep, "inject: missing-invlpg after remapping 0x%llx",
				    (unsigned long long)va);
		}
	}
	got = pt_remap(&cc->b->space, va, len, new_pa, 0, &fl);
	c->remaps++;
	if (check_result(cc, "remap", va, PT_OK, got))
		return;
	changed(cc, &fl, skip, va, len, new_pa, attrs);
	churn_sample(cc, va);
	/* a CPU that dropped the stale entry on its own shows the new frame: say so */
	if (skip && !c->failed) {
		c->inject_op = c->op;
		report_note(cc->rep, "inject: missing-invlpg not provoked: the stale translation "
			    "was not kept, the new frame was seen");
	}
}

/* ---- deliberate damage (--inject), each inside the scratch windows ---- */

static const struct model_run *data_run(const struct churn_ctx *cc, bool want_nx)
{
	struct ptlab_churn *c = cc->c;

	for (unsigned i = 0; i < c->m.n; i++) {
		const struct model_run *r = &c->m.run[i];

		if (in_data(cc->d, r->pa) && (!want_nx || !(r->attrs & PT_EXEC)))
			return r;
	}
	return NULL;
}

static void inject(const struct churn_ctx *cc)
{
	struct ptlab_churn *c = cc->c;
	const struct model_run *r;
	struct pt_leaf l;
	uint64_t *e;

	if (c->injected || c->op < c->inject_at)
		return;
	switch (cc->o->inject) {
	case OPTS_INJECT_WRONG_FRAME:
	case OPTS_INJECT_NX_CLEARED:
		r = data_run(cc, cc->o->inject == OPTS_INJECT_NX_CLEARED);
		if (!r || pt_translate(&cc->b->space, r->va, &l) != PT_OK || l.level != 0)
			return;
		e = phys(cc->b, l.entry_pa);
		if (cc->o->inject == OPTS_INJECT_WRONG_FRAME)
			*e ^= PT_PAGE_SIZE;   /* the neighbouring frame: still in the data area */
		else
			*e &= ~PTE_NX;
		ptlab_invlpg(r->va);
		c->injected = true;
		c->inject_op = c->op;
		report_note(cc->rep, "inject: %s at 0x%llx",
			    cc->o->inject == OPTS_INJECT_WRONG_FRAME ? "wrong-frame" : "nx-cleared",
			    (unsigned long long)r->va);
		/* the CPU sees it first; the software walk would too */
		churn_sample(cc, r->va);
		churn_key_point(cc, r->va);
		break;
	case OPTS_INJECT_FREED_TABLE:
		r = data_run(cc, false);
		if (!r || pt_translate(&cc->b->space, r->va, &l) != PT_OK || l.level != 0)
			return;
		/* the PT holding the leaf goes back to the pool while still referenced */
		pt_frames_free(&cc->b->frames, l.entry_pa & ~(PT_PAGE_SIZE - 1));
		c->injected = true;
		c->inject_op = c->op;
		report_note(cc->rep, "inject: freed-table 0x%llx still maps 0x%llx",
			    (unsigned long long)(l.entry_pa & ~(PT_PAGE_SIZE - 1)), (unsigned long long)r->va);
		break;
	default:
		break;
	}
}

static void lint(const struct churn_ctx *cc)
{
	struct pt_lint l;
	int err = ptlab_lint(cc->b, true, &l);

	if (err)
		churn_fail(cc, "lint: tables structurally wrong (errors, first va)", l.first_bad_va, 0,
			   l.errors);
}

/* ---- the loop ---- */

static void one_op(const struct churn_ctx *cc)
{
	struct ptlab_churn *c = cc->c;
	unsigned roll = (unsigned)prng_below(&c->rng, 100);

	if (c->m.n == 0 || (c->m.n < RUNS_SOFT_MAX && roll < 40))
		op_map(cc);
	else if (roll < 65 || c->m.n >= RUNS_SOFT_MAX)
		op_unmap(cc);
	else if (roll < 85)
		op_protect(cc);
	else
		op_remap(cc);
	if (cc->o->inject != OPTS_INJECT_NONE && !c->failed)
		inject(cc);
	if (!c->failed && (c->op % LINT_EVERY == LINT_EVERY - 1 ||
			  (c->injected && cc->o->inject == OPTS_INJECT_FREED_TABLE)))
		lint(cc);
}

void churn_merge_back(struct ptlab *p)
{
	const struct churn_ctx cc = churn_ctx_of(p);

	if (!cc.d->typed_len)
		return;
	churn_typed_merge(&cc, &cc.c->typed_ident);
	churn_typed_merge(&cc, &cc.c->typed_hhdm);
}

void churn_start(struct ptlab *p)
{
	const struct churn_ctx cc = churn_ctx_of(p);
	struct ptlab_churn *c = cc.c;
	struct ptlab_data *d = cc.d;
	struct pt_space *sp = &cc.b->space;

	*c = (struct ptlab_churn){ .rng = { cc.o->seed }, .ops = cc.o->iterations,
				   .inject_op = UINT64_MAX };
	model_init(&c->m, c->runs, PTLAB_CHURN_MODEL_CAP);
	/*
	 * The typed window out of our identity map and HHDM (with the
	 * firmware's CR3 loaded: the changes reach the CPU at the next switch),
	 * its cache lines written back; without that, no typed mappings.
	 */
	if (d->typed_len) {
		ptlab_wbinvd();
		if (!churn_typed_take_out(sp, d->typed_pa, d->typed_len, &c->typed_ident)) {
			d->typed_len = 0;
		} else if (!churn_typed_take_out(sp, cc.b->plan.hhdm_base + d->typed_pa, d->typed_len,
						 &c->typed_hhdm)) {
			churn_typed_put_back(&cc, d->typed_pa, d->typed_len, &c->typed_ident);
			d->typed_len = 0;
		}
	}
	c->tables_before = pt_table_count(sp);
	c->frames_before = cc.b->frames.in_use;
	c->pool_failed = cc.b->frames.failed;
	/*
	 * A fixed op, not a share of --iterations, so the replay hint
	 * (--iterations=op+1) injects at the same op again.
	 */
	c->inject_at = INJECT_OP;
	if (cc.o->inject != OPTS_INJECT_NONE && c->ops < INJECT_OP + 200)
		c->ops = INJECT_OP + 200;
}

int churn_slice(struct ptlab *p)
{
	const struct churn_ctx cc = churn_ctx_of(p);
	struct ptlab_churn *c = cc.c;
	uint64_t end = rdtsc() + (uint64_t)SLICE_US * (p->t.tsc_per_us ? p->t.tsc_per_us : 1000);

	/* nothing the firmware's write-back alias may have cached between slices */
	if (cc.d->typed_len)
		ptlab_wbinvd();
	while (!c->done && !c->failed) {
		if (c->op == c->ops) {
			c->done = true;
			break;
		}
		one_op(&cc);
		c->op++;
		/* the deadline (live/live.h) reads the run's time and marks the run aborted */
		if (ptlab_deadline_passed(&p->t, &p->opts, p->rep, &p->aborted))
			c->failed = true;
		if ((c->op & 63) == 0 && rdtsc() > end)
			break;
	}
	return 0;
}

uint64_t churn_samples(const struct ptlab *p)
{
	return p->churn.samples;
}

void churn_stats(const struct ptlab *p, struct churn_stats *s)
{
	const struct ptlab_churn *c = &p->churn;

	*s = (struct churn_stats){
		.op = c->op, .ops = c->ops, .maps = c->maps, .unmaps = c->unmaps,
		.protects = c->protects, .remaps = c->remaps, .refused = c->refused,
		.inject_at = c->inject_at, .inject_op = c->inject_op,
		.failed = c->failed, .done = c->done, .injected = c->injected,
	};
}

bool churn_running(const struct ptlab *p)
{
	return !p->churn.done && !p->churn.failed;
}

void churn_progress(struct ptlab *p, uint64_t elapsed_us)
{
	struct ptlab_churn *c = &p->churn;

	report_note(p->rep, "progress: %llu%% ops=%llu/%llu rate=%llu/s",
		    (unsigned long long)(c->ops ? c->op * 100 / c->ops : 100),
		    (unsigned long long)c->op, (unsigned long long)c->ops,
		    (unsigned long long)(elapsed_us ? c->op * 1000000 / elapsed_us : 0));
}

int churn_finish(struct ptlab *p)
{
	const struct churn_ctx cc = churn_ctx_of(p);
	struct ptlab_churn *c = cc.c;
	const struct ptlab_data *d = cc.d;
	struct ptlab_build *b = cc.b;
	struct pt_flushlist fl;
	int err = PT_OK;

	if (!c->failed) {
		inject_begin(CHECK_RUN(p), &check_memory_types, 0);
		churn_audit_types(&cc);
		inject_end(CHECK_RUN(p), &check_memory_types);
	}
	/* everything the churn mapped goes; every table it used must be freed */
	for (unsigned w = 0; w < 2 && !err; w++) {
		err = pt_unmap(&b->space, window_base[w], WINDOW, PT_SPARSE, &fl);
		if (err == PT_OK)
			ptlab_flush(&fl);
	}
	if (err)
		churn_fail(&cc, "cleanup: unmap of the scratch windows", 0, PT_OK, (uint64_t)(int64_t)err);
	if (!c->failed && pt_table_count(&b->space) != c->tables_before)
		churn_fail(&cc, "cleanup: tables left behind (count)", 0, c->tables_before,
			   pt_table_count(&b->space));
	if (!c->failed && b->frames.in_use != c->frames_before)
		churn_fail(&cc, "cleanup: frames in use", 0, c->frames_before, b->frames.in_use);
	if (!c->failed)
		lint(&cc);
	if (d->typed_len) {
		ptlab_wbinvd();
		churn_typed_put_back(&cc, d->typed_pa, d->typed_len, &c->typed_ident);
		churn_typed_put_back(&cc, b->plan.hhdm_base + d->typed_pa, d->typed_len, &c->typed_hhdm);
	}
	report_fact(cc.rep, "churn", "seed=%llu ops=%llu maps=%llu unmaps=%llu protects=%llu "
		    "remaps=%llu refused=%llu cpu_samples=%llu faults_expected=%llu faults_seen=%llu "
		    "mapped_4k=%llu mapped_2m=%llu mapped_1g=%llu typed_maps=%llu type_changes=%llu "
		    "type_kept=%llu",
		    (unsigned long long)cc.o->seed, (unsigned long long)c->op,
		    (unsigned long long)c->maps, (unsigned long long)c->unmaps,
		    (unsigned long long)c->protects, (unsigned long long)c->remaps,
		    (unsigned long long)c->refused, (unsigned long long)c->samples,
		    (unsigned long long)c->faults_expected, (unsigned long long)c->faults_seen,
		    (unsigned long long)c->maps_by_size[0], (unsigned long long)c->maps_by_size[1],
		    (unsigned long long)c->maps_by_size[2], (unsigned long long)c->typed_maps,
		    (unsigned long long)c->type_changes, (unsigned long long)c->type_kept);
	if (!c->failed && c->audit_ok && !c->audit_leaves)
		report_skip(cc.rep, "memory types", "the churn mapped nothing (--iterations=%llu): no "
			    "scratch leaf to audit", (unsigned long long)cc.o->iterations);
	else if (!c->failed && c->audit_ok)
		report_ok(cc.rep, "memory types: %llu scratch leaves, %llu of them not write-back, all "
			  "on the %llu frames of the typed window, none of those mapped with two types "
			  "or in the identity map or HHDM", (unsigned long long)c->audit_leaves,
			  (unsigned long long)c->audit_typed,
			  (unsigned long long)(d->typed_len / PT_PAGE_SIZE));
	/* a check that checked nothing is no pass */
	if (!c->failed && !c->op)
		report_skip(cc.rep, "churn", "--iterations=%llu: no operation ran, nothing was "
			    "compared with the model and the CPU", (unsigned long long)cc.o->iterations);
	else if (!c->failed)
		report_ok(cc.rep, "churn: %llu operations agree with the model and the CPU; "
			  "scratch windows empty, tables and frames returned", (unsigned long long)c->op);
	return 0;
}
