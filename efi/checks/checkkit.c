/* SPDX-License-Identifier: MIT */
/* What the check modules share (see checkkit.h).  No firmware calls. */
#include <stdarg.h>

#include "checks/checkkit.h"
#include "checks/registry.h"
#include "report/fmt.h"
#include "report/report.h"
#include "state/state.h"

uint64_t ptlab_pattern(uint64_t pa, uint64_t salt)
{
	uint64_t x = pa ^ (salt * UINT64_C(0x9e3779b97f4a7c15));

	x ^= x >> 31;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	return x ^ (x >> 29);
}

uint64_t ptlab_mmio_exec_bytes(const struct pt_memmap *map, uint64_t pa, uint64_t len,
			       unsigned flags)
{
	if (!(flags & PT_EXEC))
		return 0;
	return pt_memmap_class_bytes(map, pa, len, PT_MEM_SET_MMIO);
}

void ptlab_wx_judge(struct ptlab_wx_tally *t, uint64_t va, uint64_t pa, uint64_t size,
		    unsigned flags)
{
	if ((flags & PT_WRITE) && (flags & PT_EXEC)) {
		switch (t->exempt ? t->exempt(t->ctx, va, pa, size) : PTLAB_WX_FORBIDDEN) {
		case PTLAB_WX_LISTED:
			/* mapped RWX on purpose as a whole, the MMIO it holds included */
			t->wx_listed += size;
			if (va == 0)
				t->page0 = true;
			return;
		case PTLAB_WX_RUNTIME:
			t->wx_exempt += size;
			break;
		case PTLAB_WX_FORBIDDEN:
		default:
			if (!t->wx_bytes)
				t->wx_first = va;
			t->wx_bytes += size;
			break;
		}
	}
	t->mmio_x_bytes += ptlab_mmio_exec_bytes(t->map, pa, size, flags);
	if (va == 0)
		t->page0 = true;
}

int ptlab_wx_visit(void *arg, const struct pt_leaf *l)
{
	ptlab_wx_judge(arg, l->va, l->pa, l->size, l->flags);
	return 0;
}

bool ptlab_wx_runtime(const struct ptlab_build *b, bool boot_services_gone, uint64_t pa)
{
	const struct pt_mem_range *r = pt_memmap_find(&b->map, pa);
	const struct pt_mat_range *m;

	if (!boot_services_gone || !r || r->type != PT_EFI_RT_CODE)
		return false;
	if (!b->mat.n)
		return true;
	m = pt_mat_find(&b->mat, pa);
	return m && m->rwx;
}

static bool in_pool(void *ctx, uint64_t pa)
{
	return pt_frames_contains(ctx, pa);
}

static bool allocated(void *ctx, uint64_t pa)
{
	return pt_frames_in_use(ctx, pa);
}

int ptlab_lint(struct ptlab_build *b, bool in_use, struct pt_lint *l)
{
	return pt_lint(&b->space, b->lint_scratch, PTLAB_LINT_SCRATCH, in_use ? allocated : in_pool,
		       (void *)&b->frames, l);
}

/* ---- the W^X exemption list ---- */

int ptlab_wx_add(struct ptlab_wx *w, uint64_t va, uint64_t pa, uint64_t len, const char *why)
{
	return ptlab_wx_add_cache(w, va, pa, len, PTLAB_WX_CACHE_KEEP, why);
}

int ptlab_wx_add_cache(struct ptlab_wx *w, uint64_t va, uint64_t pa, uint64_t len,
		       unsigned cache, const char *why)
{
	if ((cache != PTLAB_WX_CACHE_KEEP && (cache & ~PT_CACHE_MASK)) || !len ||
	    ((va | pa | len) & (PT_PAGE_SIZE - 1)) || va + len < va || pa + len < pa)
		return PT_EINVAL;
	if (w->n >= PTLAB_WX_EXEMPT_MAX)
		return PT_ECAPACITY;
	w->e[w->n++] = (struct wx_exempt){ .va = va, .pa = pa, .len = len, .why = why,
					   .cache = cache };
	return PT_OK;
}

const struct wx_exempt *ptlab_wx_find(const struct ptlab_wx *w, uint64_t va, uint64_t pa,
				      uint64_t len)
{
	for (unsigned i = 0; i < w->n; i++) {
		const struct wx_exempt *e = &w->e[i];
		uint64_t off = va - e->va;

		if (va >= e->va && off < e->len && len <= e->len - off && pa - e->pa == off &&
		    pa >= e->pa)
			return e;
	}
	return NULL;
}

int ptlab_wx_identity(struct ptlab_wx *w, struct ptlab_build *b, bool pdpe1gb, uint64_t pa,
		      uint64_t len, const char *why)
{
	int err = ptlab_wx_add(w, pa, pa, len, why);

	if (err)
		return err;
	err = pt_plan_identity_perm(&b->plan, pa, len, PT_WRITE | PT_EXEC | PT_ALLOW_WX, b->levels,
				    pdpe1gb);
	if (err)
		w->n--;
	return err;
}

unsigned ptlab_wx_expect(const struct ptlab_wx *w, uint64_t va, uint64_t pa, unsigned flags)
{
	const struct wx_exempt *e = ptlab_wx_find(w, va, pa, PT_PAGE_SIZE);

	if (!e)
		return flags;
	if (e->cache != PTLAB_WX_CACHE_KEEP)
		flags = (flags & ~PT_CACHE_MASK) | e->cache;
	return flags | PT_WRITE | PT_EXEC;
}

size_t ptlab_wx_describe(const struct ptlab_wx *w, const uint64_t *bytes, char *buf, size_t cap)
{
	size_t at = 0;

	if (!cap)
		return 0;
	buf[0] = 0;
	if (!w->n)
		return (size_t)fmt_snprintf(buf, cap, "none");
	for (unsigned i = 0; i < w->n; i++) {
		const struct wx_exempt *e = &w->e[i];
		char one[160], rwx[40] = "";
		int k;

		if (bytes)
			fmt_snprintf(rwx, sizeof(rwx), " (0x%llx RWX)", (unsigned long long)bytes[i]);
		if (e->va == e->pa)
			k = fmt_snprintf(one, sizeof(one), "%s0x%llx+0x%llx %s%s", i ? "; " : "",
					 (unsigned long long)e->pa, (unsigned long long)e->len, e->why, rwx);
		else
			k = fmt_snprintf(one, sizeof(one), "%s0x%llx->0x%llx+0x%llx %s%s",
					 i ? "; " : "", (unsigned long long)e->va,
					 (unsigned long long)e->pa, (unsigned long long)e->len, e->why, rwx);
		/* room for this entry and, unless it is the last, for a later "..." */
		if (k < 0 || (size_t)k >= sizeof(one) ||
		    at + (size_t)k + (i + 1 < w->n ? 4 : 1) > cap) {
			k = fmt_snprintf(buf + at, cap - at, "...");
			at += (size_t)k;
			return at < cap ? at : cap - 1;
		}
		for (int j = 0; j <= k; j++)
			buf[at + (size_t)j] = one[j];
		at += (size_t)k;
	}
	return at;
}

int check_report(struct report *rep, const struct ptlab_check *c, bool ok, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = report_vkeyed(rep, c->fault.name, ok, fmt, ap);
	va_end(ap);
	return ret;
}

enum pt_cache ptlab_cache_pick(const struct pt_pat *pat, enum pt_cache want)
{
	static const enum pt_cache order[] = { PT_CACHE_WT, PT_CACHE_UC, PT_CACHE_UCM,
					       PT_CACHE_WC, PT_CACHE_WP };
	uint64_t bits;

	if (pt_cache_bits(pat, want, 0, &bits) == PT_OK)
		return want;
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (pt_cache_bits(pat, order[i], 0, &bits) == PT_OK)
			return order[i];
	return PT_CACHE_WB;
}
