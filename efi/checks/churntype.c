/* SPDX-License-Identifier: MIT */
/*
 * The churn's memory types (the rule: churn.c's comment).  The type a map,
 * protect or remap may give frames that other scratch runs map already;
 * the typed window taken out of our identity map and HHDM for the churn
 * and put back after it, with the large leaves that held it made whole
 * again; and the audit of the rule on every leaf of the scratch windows.
 *
 * No firmware calls (firmware-free: in the host archive).
 */
#include "checks/churntype.h"
#include "checks/checkkit.h"
#include "checks/churnjudge.h"
#include "report/report.h"

#include "lib/model.h"

/* ---- the type a change may give frames ---- */

/*
 * The memory type other scratch runs give frames of [pa, pa+len): the
 * parts of runs that map them, except those inside VA [skip, skip+skip_len)
 * (the range being changed).  -1 when none maps them, -2 when they
 * disagree among themselves.
 */
static int frames_type(const struct ptlab_churn *c, uint64_t pa, uint64_t len, uint64_t skip,
		       uint64_t skip_len)
{
	int type = -1;

	for (unsigned i = 0; i < c->m.n; i++) {
		const struct model_run *r = &c->m.run[i];
		uint64_t a = r->pa > pa ? r->pa : pa;
		uint64_t b = r->pa + r->len < pa + len ? r->pa + r->len : pa + len;
		uint64_t va;

		if (a >= b)
			continue;
		va = r->va + (a - r->pa);
		if (skip_len && va >= skip && va + (b - a) <= skip + skip_len)
			continue;
		if (type == -1)
			type = (int)cache_of(r->attrs);
		else if (type != (int)cache_of(r->attrs))
			return -2;
	}
	return type;
}

/*
 * The attributes a change of VA [va, va+len) to frames [pa, pa+len) may
 * have: @attrs, with write-back outside the typed window, and with the
 * type the frames already have elsewhere.  False when no type fits.
 */
bool churn_fit_type(const struct churn_ctx *cc, uint64_t va, uint64_t len, uint64_t pa,
		    unsigned *attrs)
{
	struct ptlab_churn *c = cc->c;
	int have;

	if (cache_of(*attrs) != PT_CACHE_WB && !in_typed(cc->d, pa, len))
		*attrs = with_cache(*attrs, PT_CACHE_WB);
	if (!touches_typed(cc->d, pa, len))
		return true;
	have = frames_type(c, pa, len, va, len);
	if (have == -2)
		return false;
	if (have >= 0 && have != (int)cache_of(*attrs)) {
		if (have != PT_CACHE_WB && !in_typed(cc->d, pa, len))
			return false;
		*attrs = with_cache(*attrs, (enum pt_cache)have);
		c->type_kept++;
	}
	return true;
}

/* ---- the typed window ---- */

/*
 * Take [va, va+len) (the typed window's identity or HHDM alias) out of our
 * tables, remembering whether and how it was mapped; all of it with one
 * leaf flag set, or none of it (it then stays and the window is not used).
 */
bool churn_typed_take_out(struct pt_space *sp, uint64_t va, uint64_t len,
			  struct ptlab_churn_typed *o)
{
	struct pt_flushlist fl;
	struct pt_leaf l;

	*o = (struct ptlab_churn_typed){ 0 };
	for (uint64_t off = 0; off < len; off += PT_PAGE_SIZE) {
		bool m = pt_translate(sp, va + off, &l) == PT_OK;

		if (off == 0) {
			o->mapped = m;
			o->flags = m ? l.flags : 0;
			o->leaf = l;
		} else if (m != o->mapped || (m && l.flags != o->flags)) {
			return false;
		}
	}
	if (o->mapped && pt_unmap(sp, va, len, 0, &fl) != PT_OK)
		return false;
	return true;
}

/*
 * The flags to map [va, va + len) -> pa with again: @flags as they were,
 * with PT_ALLOW_WX when they are W+X and the run's exemption list holds
 * that range (a boot protocol's RWX window); anything else W+X stays
 * refused by pt_map.
 */
static unsigned again_flags(const struct ptlab_wx *wx, uint64_t va, uint64_t pa, uint64_t len,
			    unsigned flags)
{
	if ((flags & PT_WRITE) && (flags & PT_EXEC) && ptlab_wx_find(wx, va, pa, len))
		return flags | PT_ALLOW_WX;
	return flags;
}

void churn_typed_put_back(const struct churn_ctx *cc, uint64_t va, uint64_t len,
			  const struct ptlab_churn_typed *o)
{
	uint64_t hb = cc->b->plan.hhdm_base, pa = va >= hb ? va - hb : va;
	struct pt_flushlist fl;

	if (o->mapped && pt_map(&cc->b->space, va, pa, len,
				again_flags(cc->wx, va, pa, len, o->flags), PT_PAGE_4K, &fl) != PT_OK)
		churn_fail(cc, "typed window: identity or HHDM alias not restored", va, 0, 0);
}

/* A large leaf that held the window, whole again: its 4 KiB pieces out, the leaf back in. */
void churn_typed_merge(const struct churn_ctx *cc, const struct ptlab_churn_typed *o)
{
	const struct pt_leaf *l = &o->leaf;
	uint64_t va = l->va & ~(l->size - 1), pa = l->pa & ~(l->size - 1);
	struct pt_flushlist fl;

	if (!o->mapped || !l->level)
		return;
	if (pt_unmap(&cc->b->space, va, l->size, 0, &fl) != PT_OK ||
	    pt_map(&cc->b->space, va, pa, l->size, again_flags(cc->wx, va, pa, l->size, o->flags),
		   (enum pt_page_size)l->level, &fl) != PT_OK)
		report_fail(cc->rep, "churn: the %s leaf 0x%llx around the typed window was not "
			    "restored", l->level == 2 ? "1 GiB" : "2 MiB", (unsigned long long)va);
}

/* ---- the audit ---- */

/*
 * The memory-type rule, on every leaf of the scratch windows: a leaf that
 * is not write-back maps only typed-window frames; every typed-window
 * frame has one type over all leaves that map it; and the window is in
 * neither our identity map nor our HHDM.
 */
#define TYPED_MAX_FRAMES 64u
struct type_audit {
	const struct ptlab_data *d;
	uint64_t leaves, typed;
	uint8_t type[TYPED_MAX_FRAMES];   /* 0xff: not mapped yet */
	uint64_t bad_va;
	const char *why;
};

static int audit_leaf(void *arg, const struct pt_leaf *l)
{
	struct type_audit *a = arg;
	const struct ptlab_data *d = a->d;
	enum pt_cache t = PT_CACHE_OF(l->flags);

	a->leaves++;
	if (t != PT_CACHE_WB) {
		a->typed++;
		if (!in_typed(d, l->pa, l->size)) {
			a->why = "a leaf that is not write-back maps a frame outside the typed window";
			a->bad_va = l->va;
			return 1;
		}
	}
	for (uint64_t off = 0; off < l->size; off += PT_PAGE_SIZE) {
		uint64_t pa = l->pa + off, i;

		if (!in_typed(d, pa, PT_PAGE_SIZE))
			continue;
		i = (pa - d->typed_pa) / PT_PAGE_SIZE;
		if (a->type[i] == 0xff) {
			a->type[i] = (uint8_t)t;
		} else if (a->type[i] != (uint8_t)t) {
			a->why = "a typed-window frame is mapped with two memory types";
			a->bad_va = l->va + off;
			return 1;
		}
	}
	return 0;
}

void churn_audit_types(const struct churn_ctx *cc)
{
	struct ptlab_churn *c = cc->c;
	const struct ptlab_data *d = cc->d;
	struct pt_space *sp = &cc->b->space;
	struct type_audit a = { .d = d };
	struct pt_leaf l;

	for (unsigned i = 0; i < TYPED_MAX_FRAMES; i++)
		a.type[i] = 0xff;
	if (d->typed_len > TYPED_MAX_FRAMES * PT_PAGE_SIZE) {
		churn_fail(cc, "memory types: typed window larger than the audit covers", d->typed_pa,
			   TYPED_MAX_FRAMES * PT_PAGE_SIZE, d->typed_len);
		return;
	}
	for (unsigned w = 0; w < 2 && !a.why; w++)
		pt_visit(sp, window_base[w], WINDOW, audit_leaf, &a);
	for (uint64_t off = 0; off < d->typed_len && !a.why; off += PT_PAGE_SIZE) {
		if (pt_translate(sp, d->typed_pa + off, &l) == PT_OK ||
		    pt_translate(sp, cc->b->plan.hhdm_base + d->typed_pa + off, &l) == PT_OK) {
			a.why = "a typed-window frame is still in the identity map or the HHDM";
			a.bad_va = d->typed_pa + off;
		}
	}
	if (a.why) {
		churn_fail(cc, a.why, a.bad_va, 0, 0);
		return;
	}
	c->audit_ok = true;
	c->audit_leaves = a.leaves;
	c->audit_typed = a.typed;
}
