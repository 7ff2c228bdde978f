/* SPDX-License-Identifier: MIT */
/*
 * Shadow address space (see shadow.h): an interval map written from pt.h
 * alone, to serve as the expected side of differential tests.
 */
#include "shadow.h"

#include <stdlib.h>
#include <string.h>

#define PAGE_MASK UINT64_C(0xfff)

void shadow_init(struct shadow *m, unsigned levels, unsigned maxphyaddr,
		 const struct pt_pat *pat)
{
	memset(m, 0, sizeof(*m));
	m->levels = levels;
	m->maxphyaddr = maxphyaddr;
	m->pat = *pat;
}

void shadow_fini(struct shadow *m)
{
	free(m->run);
	memset(m, 0, sizeof(*m));
}

static void reserve(struct shadow *m, size_t n)
{
	if (n <= m->cap)
		return;
	m->cap = m->cap ? m->cap : 16;
	while (m->cap < n)
		m->cap *= 2;
	m->run = realloc(m->run, m->cap * sizeof(*m->run));
	if (!m->run)
		abort();
}

void shadow_copy(struct shadow *dst, const struct shadow *src)
{
	struct model_run *run = dst->run;
	size_t cap = dst->cap;

	*dst = *src;
	dst->run = run;
	dst->cap = cap;
	reserve(dst, src->n);
	if (src->n)
		memcpy(dst->run, src->run, src->n * sizeof(*src->run));
}

bool shadow_canonical(const struct shadow *m, uint64_t va)
{
	unsigned bits = m->levels == 5 ? 57 : 48;
	uint64_t top = va >> (bits - 1);

	/* Bits 63..bits-1 all equal. */
	return top == 0 || top == (UINT64_MAX >> (bits - 1));
}

/* IA32_PAT memory type code of each enum pt_cache (SDM Vol. 3A table 11-10). */
static const uint8_t pat_code[PT_CACHE_COUNT] = {
	[PT_CACHE_WB] = 6,
	[PT_CACHE_WT] = 4,
	[PT_CACHE_UCM] = 7,
	[PT_CACHE_UC] = 0,
	[PT_CACHE_WC] = 1,
	[PT_CACHE_WP] = 5,
};

static int check_flags(const struct shadow *m, unsigned flags, unsigned allowed)
{
	unsigned cache = PT_CACHE_OF(flags);
	bool found = false;

	if (flags & ~allowed)
		return PT_EFLAGS;
	if (cache >= PT_CACHE_COUNT)
		return PT_EFLAGS;
	for (unsigned i = 0; i < 8; i++)
		if (m->pat.type[i] == pat_code[cache])
			found = true;
	if (!found)
		return PT_EFLAGS;
	if ((flags & PT_WRITE) && (flags & PT_EXEC) && !(flags & PT_ALLOW_WX))
		return PT_EFLAGS;
	return PT_OK;
}

/* Step 2 of the documented order; @pa is checked when @has_pa. */
static int check_range(const struct shadow *m, uint64_t va, uint64_t len,
		       bool has_pa, uint64_t pa)
{
	uint64_t last;

	if (!shadow_canonical(m, va))
		return PT_ENONCANON;
	if (va & PAGE_MASK)
		return PT_EALIGN_VA;
	if (has_pa && (pa & PAGE_MASK))
		return PT_EALIGN_PA;
	if (len & PAGE_MASK)
		return PT_EALIGN_LEN;
	/* An end of exactly 2^64 counts as a wrap here (pt.h does not say). */
	if (len == 0 || va + len < va || (has_pa && pa + len < pa))
		return PT_ELEN;
	last = va + len - 1;
	if (!shadow_canonical(m, last) || (last >> 63) != (va >> 63))
		return PT_ENONCANON;
	if (has_pa && m->maxphyaddr < 64 &&
	    pa + len > (UINT64_C(1) << m->maxphyaddr))
		return PT_EPHYS;
	return PT_OK;
}

/* The runs as a model (efi/lib/model.c), for a call that may change them. */
static struct model view(const struct shadow *m)
{
	return (struct model){ m->run, (unsigned)m->n, (unsigned)m->cap };
}

const struct model_run *shadow_run_at(const struct shadow *m, uint64_t va)
{
	struct model v = view(m);

	return model_find(&v, va);
}

bool shadow_lookup(const struct shadow *m, uint64_t va, uint64_t *pa,
		   unsigned *attrs)
{
	const struct model_run *r = shadow_run_at(m, va);

	if (!r)
		return false;
	if (pa)
		*pa = r->pa + (va - r->va);
	if (attrs)
		*attrs = r->attrs;
	return true;
}

uint64_t shadow_mapped_bytes(const struct shadow *m, uint64_t va, uint64_t len)
{
	struct model v = view(m);

	return model_mapped_bytes(&v, va, len);
}

/* Steps 1 and 2 of the documented order: @flags within @allowed, then the range. */
static int check_args(const struct shadow *m, unsigned flags, unsigned allowed, uint64_t va,
		      uint64_t len, bool has_pa, uint64_t pa)
{
	int err = check_flags(m, flags, allowed);

	return err ? err : check_range(m, va, len, has_pa, pa);
}

int shadow_check_map(const struct shadow *m, uint64_t va, uint64_t pa,
		     uint64_t len, unsigned flags)
{
	int err = check_args(m, flags, PT_ATTR_MASK | PT_ALLOW_WX, va, len, true, pa);

	if (err)
		return err;
	if (shadow_mapped_bytes(m, va, len))
		return PT_EEXIST;
	return PT_OK;
}

static int check_holes(const struct shadow *m, uint64_t va, uint64_t len,
		       unsigned opts)
{
	if (!(opts & PT_SPARSE) && shadow_mapped_bytes(m, va, len) != len)
		return PT_ENOTMAPPED;
	return PT_OK;
}

int shadow_check_unmap(const struct shadow *m, uint64_t va, uint64_t len,
		       unsigned opts)
{
	int err = check_args(m, opts, PT_NOSPLIT | PT_SPARSE, va, len, false, 0);

	return err ? err : check_holes(m, va, len, opts);
}

int shadow_check_protect(const struct shadow *m, uint64_t va, uint64_t len,
			 unsigned flags)
{
	int err = check_args(m, flags, PT_ATTR_MASK | PT_ALLOW_WX | PT_NOSPLIT | PT_SPARSE,
			     va, len, false, 0);

	return err ? err : check_holes(m, va, len, flags);
}

int shadow_check_remap(const struct shadow *m, uint64_t va, uint64_t len,
		       uint64_t new_pa, unsigned opts)
{
	int err = check_args(m, opts, PT_NOSPLIT | PT_SPARSE, va, len, true, new_pa);

	return err ? err : check_holes(m, va, len, opts);
}

/*
 * [va, va + len) mapped to @pa with @attrs, or unmapped; then neighbours
 * merged.  A model_set needs at most two more runs.
 */
static void set(struct shadow *m, uint64_t va, uint64_t len, bool mapped, uint64_t pa,
		unsigned attrs)
{
	struct model v;

	reserve(m, m->n + 2);
	v = view(m);
	if (model_set(&v, va, len, mapped, pa, attrs))
		abort();   /* reserve() made room */
	model_merge(&v);
	m->n = v.n;
}

/*
 * Every mapped piece of [va, va + len) gets new attributes (@new_pa
 * unused) or a new frame (@remap: @new_pa for @va, attributes kept).
 */
static void change(struct shadow *m, uint64_t va, uint64_t len, bool remap, uint64_t new_pa,
		   unsigned attrs)
{
	uint64_t end = va + len, cur = va;

	while (cur < end) {
		struct model v = view(m);
		const struct model_run *r = model_next(&v, cur);
		uint64_t a, b, pa;
		unsigned at;

		if (!r || r->va >= end)
			break;
		a = r->va > cur ? r->va : cur;
		b = r->va + r->len < end ? r->va + r->len : end;
		pa = remap ? new_pa + (a - va) : r->pa + (a - r->va);
		at = remap ? r->attrs : attrs;
		set(m, a, b - a, true, pa, at);
		cur = b;
	}
}

int shadow_map(struct shadow *m, uint64_t va, uint64_t pa, uint64_t len,
	       unsigned flags)
{
	int err = shadow_check_map(m, va, pa, len, flags);

	if (err)
		return err;
	set(m, va, len, true, pa, flags & PT_ATTR_MASK);
	return PT_OK;
}

int shadow_unmap(struct shadow *m, uint64_t va, uint64_t len, unsigned opts)
{
	int err = shadow_check_unmap(m, va, len, opts);

	if (err)
		return err;
	if (shadow_mapped_bytes(m, va, len))
		set(m, va, len, false, 0, 0);
	return PT_OK;
}

int shadow_protect(struct shadow *m, uint64_t va, uint64_t len, unsigned flags)
{
	int err = shadow_check_protect(m, va, len, flags);

	if (err)
		return err;
	change(m, va, len, false, 0, flags & PT_ATTR_MASK);
	return PT_OK;
}

int shadow_remap(struct shadow *m, uint64_t va, uint64_t len, uint64_t new_pa,
		 unsigned opts)
{
	int err = shadow_check_remap(m, va, len, new_pa, opts);

	if (err)
		return err;
	change(m, va, len, true, new_pa, 0);
	return PT_OK;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

int shadow_diff(const struct shadow *a, const struct shadow *b,
		shadow_diff_fn fn, void *arg)
{
	size_t nb = 2 * (a->n + b->n), k = 0;
	uint64_t *pt;
	int ret = 0;

	if (!nb)
		return 0;
	pt = malloc(nb * sizeof(*pt));
	if (!pt)
		abort();
	for (size_t i = 0; i < a->n; i++) {
		pt[k++] = a->run[i].va;
		pt[k++] = a->run[i].va + a->run[i].len;
	}
	for (size_t i = 0; i < b->n; i++) {
		pt[k++] = b->run[i].va;
		pt[k++] = b->run[i].va + b->run[i].len;
	}
	qsort(pt, k, sizeof(*pt), cmp_u64);
	/*
	 * Between two neighbouring boundaries each model is either unmapped or
	 * inside one run, where pa grows with va: comparing the first page
	 * decides the whole segment.
	 */
	for (size_t i = 0; i + 1 < k && !ret; i++) {
		uint64_t p = pt[i], q = pt[i + 1], pa_a = 0, pa_b = 0;
		unsigned at_a = 0, at_b = 0;
		bool in_a, in_b;

		if (p == q)
			continue;
		in_a = shadow_lookup(a, p, &pa_a, &at_a);
		in_b = shadow_lookup(b, p, &pa_b, &at_b);
		if (in_a == in_b && (!in_a || (pa_a == pa_b && at_a == at_b)))
			continue;
		ret = fn(arg, p, q - p, in_a ? (int)at_a : -1, in_b ? (int)at_b : -1);
	}
	free(pt);
	return ret;
}

bool shadow_sane(const struct shadow *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct model_run *r = &m->run[i];

		if (!r->len || (r->va | r->len | r->pa) & PAGE_MASK)
			return false;
		if (r->attrs & ~PT_ATTR_MASK)
			return false;
		if (i) {
			const struct model_run *p = &m->run[i - 1];

			if (p->va + p->len > r->va)
				return false;
			if (p->va + p->len == r->va && p->pa + p->len == r->pa &&
			    p->attrs == r->attrs)
				return false;
		}
	}
	return true;
}
