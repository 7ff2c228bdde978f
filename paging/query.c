/* SPDX-License-Identifier: MIT */
/*
 * The queries of a space: pt_translate (one address), pt_translate_many (a
 * batch; in the linear environment without a branch on what the tables
 * hold), pt_visit and pt_visit_tables; and what they read entries with:
 * pt_canonical, a leaf's cache type and PT_* attributes.
 */
#include <ptlab/pt.h>

#include "entry.h"

/* ---- entries ---------------------------------------------------------- */

/*
 * PT_CACHE() bits of leaf @e at @level under env->pat, as
 * pt_cache_of_entry() decides, with a type ptlab has no name for read as
 * UC (the safe assumption).  A table lookup instead of a search.
 */
static unsigned leaf_cache_flags(const struct pt_env *env, uint64_t e, unsigned level)
{
	/* IA32_PAT memory type code -> enum pt_cache; 2, 3 are reserved codes */
	static const uint8_t cache_of_code[8] = {
		[PT_PAT_UC] = PT_CACHE_UC,
		[PT_PAT_WC] = PT_CACHE_WC,
		[2] = PT_CACHE_UC,
		[3] = PT_CACHE_UC,
		[PT_PAT_WT] = PT_CACHE_WT,
		[PT_PAT_WP] = PT_CACHE_WP,
		[PT_PAT_WB] = PT_CACHE_WB,
		[PT_PAT_UCM] = PT_CACHE_UCM,
	};
	unsigned i = (unsigned)((e & (PTE_PWT | PTE_PCD)) >> 3) |
		     (e & (level ? PTE_PAT_LARGE : PTE_PAT_4K) ? 4u : 0u);
	unsigned code = env->pat.type[i];

	return PT_CACHE(code < 8 ? cache_of_code[code] : PT_CACHE_UC);
}

unsigned pt_bits_to_flags(const struct pt_env *env, uint64_t e, unsigned level)
{
	return leaf_cache_flags(env, e, level) | perm_flags(e);
}

bool pt_canonical(uint64_t va, unsigned levels)
{
	unsigned bits = PT_PAGE_SHIFT + PT_LEVEL_BITS * levels;
	int64_t sva = (int64_t)(va << (64 - bits)) >> (64 - bits);

	return (uint64_t)sva == va;
}

/* ---- queries ------------------------------------------------------------------------ */

/*
 * What a translation needs of the space, read once per call (a batch reads
 * it once for all its addresses).  @top is the root's level.
 */
struct xlate {
	const struct pt_env *env;
	uint64_t root_pa;
	uint64_t p2v_offset;
	unsigned top;
};

static struct xlate xlate_of(const struct pt_space *s)
{
	return (struct xlate){ s->env, s->root_pa, s->env->p2v_offset, s->levels - 1 };
}

/*
 * The walk of pt_translate and of the callback environment's batch, with
 * @linear a constant at each call: the linear instance makes no calls, so
 * it needs no saved registers and no stack.  PT_ENONCANON, PT_ENOTMAPPED,
 * or PT_OK with the leaf entry in *e, its physical address in *ea, its
 * level in *level and the rights of the walk in *rights: every entry's R/W
 * and U/S ANDed, and PTE_NX set where no entry has XD (entries are ANDed
 * with XD inverted); no other bit.
 */
static inline __attribute__((always_inline))
int translate_walk(const struct xlate *x, uint64_t va, bool linear, uint64_t *e, uint64_t *ea,
		   unsigned *level, uint64_t *rights)
{
	uint64_t pa = x->root_pa, r = PTE_W | PTE_US | PTE_NX;

	if (!pt_canonical(va, x->top + 1))
		return PT_ENONCANON;
	for (unsigned l = x->top; ; l--) {
		uint64_t a = pa + pt_index(va, l) * sizeof(uint64_t), entry;

		if (linear)
			entry = *(const uint64_t *)(uintptr_t)(a + x->p2v_offset);
		else
			entry = *(const uint64_t *)((const char *)x->env->phys_to_virt(x->env->ctx, pa) +
						    (a - pa));
		if (!(entry & PTE_P))
			return PT_ENOTMAPPED;
		r &= entry ^ PTE_NX;
		if (is_leaf(entry, l)) {
			*e = entry;
			*ea = a;
			*level = l;
			*rights = r;
			return PT_OK;
		}
		pa = entry & PTE_ADDR_MASK;
	}
}

/*
 * Index of leaf @e at @level in translate_attr()'s table: PAT:PCD:PWT, and
 * 8 for G.  The PAT bit is bit 7 of a 4 KiB leaf, bit 12 of a larger one.
 */
static inline unsigned attr_index(uint64_t e, unsigned level)
{
	return (unsigned)(((e & (PTE_PWT | PTE_PCD)) >> 3) | ((e >> (level ? 10 : 5)) & 4) |
			  ((e & PTE_G) >> 5));
}

/*
 * The struct pt_leaf of @va from what translate_walk found.  @attr: the
 * PT_CACHE() bits and PT_GLOBAL by PAT index (PAT:PCD:PWT) + 8 for G, as
 * translate_attr() fills it, or NULL to ask leaf_cache_flags().
 */
static inline __attribute__((always_inline))
void translate_leaf(const struct xlate *x, uint64_t va, uint64_t e, uint64_t ea, unsigned level,
		    uint64_t rights, const uint8_t *attr, struct pt_leaf *out)
{
	uint64_t lo = pt_level_size(level) - 1;
	/* rights holds "may execute" at PTE_NX, the inverse of a leaf's XD */
	unsigned f = perm_flags(rights ^ PTE_NX);

	if (attr)
		f |= attr[attr_index(e, level)];
	else
		f |= leaf_cache_flags(x->env, e, level) | (e & PTE_G ? PT_GLOBAL : 0);
	out->va = va & ~lo;
	out->pa = (e & leaf_addr_mask(level)) | (va & lo);
	out->size = lo + 1;
	out->level = level;
	out->flags = f;
	out->entry = e;
	out->entry_pa = ea;
}

/* @attr for translate_leaf under env->pat. */
static void translate_attr(const struct pt_env *env, uint8_t attr[16])
{
	for (unsigned i = 0; i < 16; i++)
		attr[i] = (uint8_t)(leaf_cache_flags(env, (uint64_t)(i & 3) << 3 | (uint64_t)(i >> 2 & 1) << 7, 0) |
				    (i & 8 ? PT_GLOBAL : 0));
}

/* pt_translate with the space read into @x. */
static inline __attribute__((always_inline))
int translate_one(const struct xlate *x, uint64_t va, struct pt_leaf *out, bool linear)
{
	uint64_t e, ea, rights;
	unsigned level;
	int err = translate_walk(x, va, linear, &e, &ea, &level, &rights);

	if (!err)
		translate_leaf(x, va, e, ea, level, rights, NULL, out);
	return err;
}

/*
 * The batch of the callback environment (the linear one's is
 * translate_many_flat below): every address of @va, err[k] as
 * pt_translate would return it, out[k] zeroed where it fails.  An address
 * in the leaf the address before it found takes that leaf (the tables do
 * not change during the call) with its own pa: ascending addresses walk
 * once per leaf.  The leaf is kept in locals, not read back from out[].
 */
static __attribute__((noinline))
void translate_many_cb(const struct xlate *x, const uint64_t *va, size_t n,
		       struct pt_leaf *out, int *err)
{
	uint8_t attr[16];
	struct pt_leaf p = { 0 };
	/* p covers the addresses whose va >> p_shift is p_tag; ~0 matches none */
	uint64_t p_tag = ~UINT64_C(0), e, ea, rights;
	unsigned p_shift = 63, level;

	translate_attr(x->env, attr);
	for (size_t k = 0; k < n; k++) {
		uint64_t v = va[k];

		if ((v >> p_shift) == p_tag) {
			p.pa = (p.pa & ~(p.size - 1)) | (v & (p.size - 1));
			out[k] = p;
			err[k] = PT_OK;
			continue;
		}
		err[k] = translate_walk(x, v, false, &e, &ea, &level, &rights);
		if (err[k]) {
			/* p stays: an address in its leaf is mapped */
			out[k] = (struct pt_leaf){ 0 };
			continue;
		}
		translate_leaf(x, v, e, ea, level, rights, attr, &p);
		p_shift = PT_PAGE_SHIFT + PT_LEVEL_BITS * level;
		p_tag = v >> p_shift;
		out[k] = p;
	}
}

/* All ones where @b is true, 0 where it is false: a select without a branch. */
static inline uint64_t mask_of(bool b)
{
	return -(uint64_t)b;
}

/*
 * One level of translate_walk_flat: where *entry (at *ea) links the table
 * at @level, the entry of @va in that table, its address and level;
 * otherwise the same entry again.
 */
static inline __attribute__((always_inline))
void flat_step(const struct xlate *x, uint64_t va, unsigned level, uint64_t *entry,
	       uint64_t *ea, unsigned *l, uint64_t *r)
{
	/* all ones where P is set and PS clear: (P, PS) xor (1, 0) is 0, minus 1 is negative */
	uint64_t link = (uint64_t)((int64_t)(((*entry & (PTE_P | PTE_PS)) ^ PTE_P) - 1) >> 63);
	uint64_t next = (*entry & PTE_ADDR_MASK) + pt_index(va, level) * sizeof(uint64_t);

	*ea = (next & link) | (*ea & ~link);
	*l += (unsigned)link;
	*entry = *(const uint64_t *)(uintptr_t)(*ea + x->p2v_offset);
	*r &= *entry ^ PTE_NX;
}

/*
 * translate_walk in the linear environment without a branch on what an
 * entry holds: always @top loads after the root's, and where the entry
 * reached is not present or a leaf, the walk stays on it (loading it
 * again, which neither changes the rights nor follows its address bits).
 * A lookup's work is then the same whatever the tables hold, and lookups
 * of a batch overlap in the processor instead of waiting for a
 * mispredicted branch.  Leaves the entry reached in *e (PTE_P clear: not
 * mapped), its physical address in *ea, its level in *level and the
 * rights as translate_walk does.  @va must be canonical.
 */
static inline __attribute__((always_inline))
void translate_walk_flat(const struct xlate *x, uint64_t va, unsigned top, uint64_t *e,
			 uint64_t *ea, unsigned *level, uint64_t *rights)
{
	*ea = x->root_pa + pt_index(va, top) * sizeof(uint64_t);
	*e = *(const uint64_t *)(uintptr_t)(*ea + x->p2v_offset);
	*rights = (PTE_W | PTE_US | PTE_NX) & (*e ^ PTE_NX);
	*level = top;
	if (top == 4)
		flat_step(x, va, 3, e, ea, level, rights);
	flat_step(x, va, 2, e, ea, level, rights);
	flat_step(x, va, 1, e, ea, level, rights);
	flat_step(x, va, 0, e, ea, level, rights);
}

/*
 * PT_WRITE, PT_USER and PT_EXEC of the rights translate_walk_flat leaves
 * (PTE_W, PTE_US, and PTE_NX where execution is allowed), by shifts.
 */
_Static_assert(PTE_W >> 1 == PT_WRITE && PTE_US == PT_USER && PTE_NX >> 62 == PT_EXEC,
	       "flat_rights moves the rights' bits by shifts");
static inline unsigned flat_rights(uint64_t rights)
{
	return (unsigned)(((rights >> 1) & PT_WRITE) | (rights & PT_USER) | ((rights >> 62) & PT_EXEC));
}

/* Walks translate_many_flat makes before it writes their leaves. */
#define FLAT_WALKS 16u
/* w_level of a non-canonical address, which is not walked */
#define FLAT_NONCANON 5u

/*
 * translate_many_flat's answer for va[k] onwards while [span, span +
 * span_len) holds them: @l with pa | (va & @p_lo), and @p_err.  Returns
 * the index of the first address it did not answer.  Out of line: the
 * leaf stays in registers for a long run.
 */
static __attribute__((noinline))
size_t flat_spanned(const struct pt_leaf l, uint64_t p_lo, int p_err, uint64_t span,
		    uint64_t span_len, const uint64_t *va, size_t k, size_t n,
		    struct pt_leaf *out, int *err)
{
	for (; k < n && va[k] - span < span_len; k++) {
		out[k] = l;
		out[k].pa = l.pa | (va[k] & p_lo);
		err[k] = p_err;
	}
	return k;
}

/*
 * The linear environment's batch, for a space of @top + 1 levels (a
 * constant at each call).  The entry a walk reaches, leaf or not present,
 * decides for every address it spans (the tables do not change during the
 * call), and the addresses after a walk that its entry spans take its
 * answer without a walk: ascending addresses walk once per leaf or hole.
 * The others are walked (translate_walk_flat) up to FLAT_WALKS at a time
 * before their leaves are written: the walks are chains of dependent
 * loads with little else, and they overlap.  The leaves, or a failure's
 * zeroes, are written by masks without a branch on the entry.
 */
static inline __attribute__((always_inline))
void translate_many_flat(const struct xlate *x, const uint64_t *va, size_t n,
			 struct pt_leaf *out, int *err, unsigned top)
{
	static const uint64_t level_mask[5] = {
		PT_SIZE_4K - 1, PT_SIZE_2M - 1, PT_SIZE_1G - 1, PT_SIZE_512G - 1,
		(PT_SIZE_512G << PT_LEVEL_BITS) - 1,
	};
	uint8_t attr[16];
	/* walk j: of va[k + j], as translate_walk_flat leaves it */
	uint64_t w_e[FLAT_WALKS], w_ea[FLAT_WALKS], w_rights[FLAT_WALKS];
	unsigned w_level[FLAT_WALKS];
	/*
	 * The last walk's answer: for the addresses in [span, span + span_len)
	 * (none at first), the leaf p with the pa of its first byte (p_lo: the
	 * bits of pa an address gives), or the hole (p all zero, p_lo 0,
	 * p_err PT_ENOTMAPPED).
	 */
	struct pt_leaf p = { 0 };
	uint64_t span = 0, span_len = 0, p_lo = 0;
	int p_err = PT_OK;
	size_t k = 0;

	translate_attr(x->env, attr);
	for (;;) {
		size_t m;

		/* the addresses the last walk's entry spans */
		if (k < n && va[k] - span < span_len)
			k = flat_spanned(p, p_lo, p_err, span, span_len, va, k, n, out, err);
		if (k == n)
			return;
		/* walks, up to the first address the last of them spans */
		for (m = 0; m < FLAT_WALKS && k + m < n; m++) {
			uint64_t v = va[k + m];

			if (v - span < span_len)
				break;
			if (!pt_canonical(v, top + 1)) {
				w_level[m] = FLAT_NONCANON;
				continue;
			}
			translate_walk_flat(x, v, top, &w_e[m], &w_ea[m], &w_level[m], &w_rights[m]);
			span_len = level_mask[w_level[m]] + 1;
			span = v & -span_len;
		}
		/* their leaves */
		for (size_t j = 0; j < m; j++, k++) {
			uint64_t v = va[k], e = w_e[j], lo, ok;
			unsigned level = w_level[j];

			if (level == FLAT_NONCANON) {
				out[k] = (struct pt_leaf){ 0 };
				err[k] = PT_ENONCANON;
				continue;
			}
			ok = mask_of(e & PTE_P);
			lo = level_mask[level];
			p.va = v & ~lo & ok;
			p.pa = e & PTE_ADDR_MASK & ~lo & ok;
			p.size = (lo + 1) & ok;
			p.level = level & (unsigned)ok;
			p.flags = (flat_rights(w_rights[j]) | attr[attr_index(e, level)]) &
				  (unsigned)ok;
			p.entry = e & ok;
			p.entry_pa = w_ea[j] & ok;
			p_err = PT_ENOTMAPPED * (int)(~e & PTE_P);
			p_lo = lo & ok;
			out[k] = p;
			out[k].pa |= v & p_lo;
			err[k] = p_err;
		}
	}
}

static __attribute__((noinline))
int translate_cb(const struct xlate *x, uint64_t va, struct pt_leaf *out)
{
	return translate_one(x, va, out, false);
}

int pt_translate(const struct pt_space *s, uint64_t va, struct pt_leaf *out)
{
	struct xlate x;

	if (!space_ok(s) || !out)
		return PT_EINVAL;
	x = xlate_of(s);
	if (!x.env->p2v_linear)
		return translate_cb(&x, va, out);
	return translate_one(&x, va, out, true);
}

int pt_translate_many(const struct pt_space *s, const uint64_t *va, size_t n,
		      struct pt_leaf *out, int *err)
{
	struct xlate x;

	if (!space_ok(s) || (n && (!va || !out || !err)))
		return PT_EINVAL;
	x = xlate_of(s);
	if (!x.env->p2v_linear)
		translate_many_cb(&x, va, n, out, err);
	else if (x.top == 4)
		translate_many_flat(&x, va, n, out, err, 4);
	else
		translate_many_flat(&x, va, n, out, err, 3);
	return PT_OK;
}

struct vwalk {
	const struct pt_space *s;
	pt_visit_fn fn;
	void *arg;
};

static int visit(struct vwalk *v, unsigned level, uint64_t pa, uint64_t x, uint64_t last,
		 unsigned inherit)
{
	const uint64_t *t = tab(v->s->env, pa);
	uint64_t size = pt_level_size(level);

	for (unsigned i = pt_index(x, level); ; i++) {
		uint64_t seg_last = x | (size - 1), e = t[i];
		int ret = 0;

		if (seg_last > last)
			seg_last = last;
		if (e & PTE_P) {
			/* W and US ANDed down the walk, NX ORed (carried as !EXEC) */
			unsigned here = (e & PTE_W ? PT_WRITE : 0) | (e & PTE_US ? PT_USER : 0) |
					(e & PTE_NX ? 0 : PT_EXEC);
			unsigned eff = inherit & here;

			if (is_leaf(e, level)) {
				struct pt_leaf leaf = {
					.va = x & ~(size - 1),
					.pa = e & leaf_addr_mask(level),
					.size = size,
					.level = level,
					.entry = e,
					.entry_pa = pa + i * sizeof(uint64_t),
				};

				leaf.flags = (pt_bits_to_flags(v->s->env, e, level) &
					      ~(PT_WRITE | PT_USER | PT_EXEC)) | eff;
				ret = v->fn(v->arg, &leaf);
			} else {
				ret = visit(v, level - 1, e & PTE_ADDR_MASK, x, seg_last, eff);
			}
		}
		if (ret)
			return ret;
		if (seg_last == last)
			return 0;
		x = seg_last + 1;
	}
}

int pt_visit(const struct pt_space *s, uint64_t va, uint64_t len, pt_visit_fn fn, void *arg)
{
	struct vwalk v = { s, fn, arg };
	unsigned bits;

	if (!space_ok(s) || !fn)
		return PT_EINVAL;
	bits = PT_PAGE_SHIFT + PT_LEVEL_BITS * s->levels;
	if (!len) {
		/* the lower half, then the upper half */
		uint64_t half = UINT64_C(1) << (bits - 1);
		int ret = visit(&v, s->levels - 1, s->root_pa, 0, half - 1,
				PT_WRITE | PT_USER | PT_EXEC);

		return ret ? ret : visit(&v, s->levels - 1, s->root_pa, ~(half - 1), UINT64_MAX,
					 PT_WRITE | PT_USER | PT_EXEC);
	}
	if (va + len - 1 < va)
		return PT_ELEN;
	if (!pt_canonical(va, s->levels) || !pt_canonical(va + len - 1, s->levels) ||
	    (int64_t)(va ^ (va + len - 1)) < 0)
		return PT_ENONCANON;
	return visit(&v, s->levels - 1, s->root_pa, va, va + len - 1, PT_WRITE | PT_USER | PT_EXEC);
}

static int visit_tables(const struct pt_space *s, unsigned level, uint64_t pa,
			pt_table_fn fn, void *arg)
{
	const uint64_t *t = tab(s->env, pa);
	int ret = fn(arg, level, pa);

	for (unsigned i = 0; !ret && level > 0 && i < PT_ENTRIES; i++)
		if ((t[i] & PTE_P) && !is_leaf(t[i], level))
			ret = visit_tables(s, level - 1, t[i] & PTE_ADDR_MASK, fn, arg);
	return ret;
}

int pt_visit_tables(const struct pt_space *s, pt_table_fn fn, void *arg)
{
	if (!space_ok(s) || !fn)
		return PT_EINVAL;
	return visit_tables(s, s->levels - 1, s->root_pa, fn, arg);
}