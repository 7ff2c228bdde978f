// SPDX-License-Identifier: MIT
/*
 * ptdump-style listings of a page-table hierarchy: the batched walk and the
 * run/marker/leaf formatter.  Firmware-free (see ptdump.h).
 */
#include <stddef.h>

#include <ptlab/pte.h>

#include "report/fmt.h"
#include "report/ptdump.h"

/* ---- the walk ---- */

/*
 * Entry bits two leaves of one batch share (the address advancing by the
 * leaf size): everything but A/D, the bits software may use (9..11, 52..58)
 * and, through the address, nothing else.
 */
#define BATCH_KEEP (PTE_P | PTE_W | PTE_US | PTE_PWT | PTE_PCD | PTE_PS | PTE_G | \
		    PTE_ADDR_MASK | (UINT64_C(0x1f) << 59))

#define WALK_STOPPED (-0x7fff)

struct walk {
	const struct pt_space *s;
	ptdump_batch_fn fn;
	void *arg;
	ptdump_stop_fn stop;
	void *stop_arg;
	struct ptdump_walk_stats *st;
};

static const uint64_t *table_at(const struct pt_env *env, uint64_t pa)
{
	if (env->p2v_linear)
		return (const uint64_t *)(uintptr_t)(pa + env->p2v_offset);
	return env->phys_to_virt(env->ctx, pa);
}

/* Attributes of leaf @e at @level under the W/US/EXEC-as-!NX the walk carried down. */
static unsigned leaf_attrs(uint64_t e, unsigned level, unsigned inherit)
{
	unsigned a = inherit;

	if (e & PTE_PWT)
		a |= PTDUMP_PWT;
	if (e & PTE_PCD)
		a |= PTDUMP_PCD;
	if (e & (level ? PTE_PAT_LARGE : PTE_PAT_4K))
		a |= PTDUMP_PAT;
	if (e & PTE_G)
		a |= PTDUMP_GLB;
	return a;
}

/*
 * @inherit: PTDUMP_USR and PTDUMP_RW when every entry above allowed them,
 * PTDUMP_NX when any entry above forbade execution.
 */
static int walk_table(struct walk *w, unsigned level, uint64_t pa, uint64_t base,
		      unsigned inherit)
{
	const unsigned levels = w->s->levels;
	const uint64_t size = pt_level_size(level);
	const unsigned vbits = PT_PAGE_SHIFT + PT_LEVEL_BITS * levels;
	const uint64_t *t;

	if (w->stop && w->stop(w->stop_arg)) {
		w->st->stopped = true;
		w->st->stop_va = base;
		return WALK_STOPPED;
	}
	t = table_at(w->s->env, pa);
	w->st->tables++;
	for (unsigned i = 0; i < PT_ENTRIES;) {
		uint64_t e = t[i], va = base + i * size;
		unsigned here;
		int ret;

		if (level == levels - 1)   /* sign-extend the root's slots */
			va = (uint64_t)((int64_t)(va << (64 - vbits)) >> (64 - vbits));
		if (!(e & PTE_P)) {
			i++;
			continue;
		}
		here = inherit;
		if (!(e & PTE_W))
			here &= ~PTDUMP_RW;
		if (!(e & PTE_US))
			here &= ~PTDUMP_USR;
		if (e & PTE_NX)
			here |= PTDUMP_NX;
		if (level > 0 && !(e & PTE_PS)) {
			ret = walk_table(w, level - 1, e & PTE_ADDR_MASK, va, here);
			if (ret)
				return ret;
			i++;
			continue;
		}
		if (level > 2) {   /* PS in a PML4/PML5 entry: reserved, no leaf */
			w->st->bad++;
			i++;
			continue;
		}
		{
			const uint64_t want = e & BATCH_KEEP;
			unsigned j = i + 1;

			while (j < PT_ENTRIES && (t[j] & BATCH_KEEP) == want + (j - i) * size)
				j++;
			w->st->batches++;
			ret = w->fn(w->arg, va, e & PTE_ADDR_MASK & ~(size - 1), level, j - i,
				    leaf_attrs(e, level, here), e);
			if (ret)
				return ret;
			i = j;
		}
	}
	return 0;
}

int ptdump_walk(const struct pt_space *s, ptdump_batch_fn fn, void *arg,
		ptdump_stop_fn stop, void *stop_arg, struct ptdump_walk_stats *st)
{
	struct ptdump_walk_stats dummy;
	struct walk w = { s, fn, arg, stop, stop_arg, st ? st : &dummy };
	int ret;

	*w.st = (struct ptdump_walk_stats){ 0 };
	if (!s || !s->env || !fn || (s->levels != 4 && s->levels != 5) ||
	    (!s->env->p2v_linear && !s->env->phys_to_virt))
		return PT_EINVAL;
	ret = walk_table(&w, s->levels - 1, s->root_pa, 0, PTDUMP_USR | PTDUMP_RW);
	return ret == WALK_STOPPED ? 0 : ret;
}

/* ---- the listing ---- */

const char *ptdump_level_name(unsigned level, unsigned levels)
{
	static const char *const name[] = { "pte", "pmd", "pud", "p4d", "pgd" };

	if (level >= 5)
		return "?";
	/* 4-level: Linux folds p4d into pgd, so the root is "pgd" either way */
	if (level == levels - 1)
		return "pgd";
	return name[level];
}

void ptdump_format_range(char *buf, unsigned long size, uint64_t va, uint64_t end,
			 unsigned attrs, unsigned level, unsigned levels)
{
	static const char unit_name[] = "KMGT";
	uint64_t n = (end - va) >> 10;
	unsigned unit = 0;

	while (unit < 3 && n && !(n & 1023)) {
		n >>= 10;
		unit++;
	}
	fmt_snprintf(buf, size, "0x%016llx-0x%016llx %9llu%c %s %s %s %s %s %s %s %s",
		     (unsigned long long)va, (unsigned long long)end, (unsigned long long)n,
		     unit_name[unit], attrs & PTDUMP_USR ? "USR" : "   ",
		     attrs & PTDUMP_RW ? "RW" : "ro", attrs & PTDUMP_PWT ? "PWT" : "   ",
		     attrs & PTDUMP_PCD ? "PCD" : "   ", attrs & PTDUMP_PAT ? "PAT" : "   ",
		     attrs & PTDUMP_GLB ? "GLB" : "   ", attrs & PTDUMP_NX ? "NX" : "x ",
		     ptdump_level_name(level, levels));
}

void ptdump_begin(struct ptdump *d, enum ptdump_format format, unsigned levels,
		  const struct ptdump_marker *markers, unsigned nmarkers,
		  const struct pt_pat *pat, const char *leaf_key, uint64_t leaf_cap,
		  ptdump_line_fn out, void *out_arg)
{
	*d = (struct ptdump){
		.format = format,
		.marker = markers,
		.nmarkers = markers ? nmarkers : 0,
		.levels = levels,
		.pat = pat,
		.leaf_key = leaf_key ? leaf_key : "leaf",
		.leaf_cap = leaf_cap,
		.out = out,
		.out_arg = out_arg,
	};
}

static void put(struct ptdump *d, const char *line)
{
	if (d->out)
		d->out(d->out_arg, line);
}

/* Print every marker at or below @va not printed yet. */
static void markers_upto(struct ptdump *d, uint64_t va)
{
	char line[96];

	while (d->next_marker < d->nmarkers && d->marker[d->next_marker].va <= va) {
		fmt_snprintf(line, sizeof(line), "---[ %s ]---", d->marker[d->next_marker].name);
		put(d, line);
		d->next_marker++;
	}
}

static void flush_run(struct ptdump *d)
{
	char line[128];

	if (!d->have_run)
		return;
	ptdump_format_range(line, sizeof(line), d->run_va, d->run_last + 1, d->run_attrs,
			    d->run_level, d->levels);
	put(d, line);
	d->lines++;
	d->have_run = false;
}

/* [va, last] holds no marker not printed yet except possibly at va itself. */
static void add_piece(struct ptdump *d, uint64_t va, uint64_t last, uint64_t pa,
		      unsigned level, unsigned attrs)
{
	bool marker_here = d->next_marker < d->nmarkers && d->marker[d->next_marker].va <= va;

	if (d->have_run && !marker_here && d->run_last + 1 == va && d->run_last != UINT64_MAX &&
	    d->run_level == level && d->run_attrs == attrs) {
		if (pa != d->run_pa + (va - d->run_va))
			d->run_linear = false;
		d->run_last = last;
		return;
	}
	flush_run(d);
	markers_upto(d, va);
	d->have_run = true;
	d->run_va = va;
	d->run_last = last;
	d->run_pa = pa;
	d->run_linear = true;
	d->run_level = level;
	d->run_attrs = attrs;
}

static void add_leaves(struct ptdump *d, uint64_t va, uint64_t pa, unsigned level,
		       uint64_t count, unsigned attrs, uint64_t entry)
{
	const uint64_t size = pt_level_size(level);
	char line[160];
	uint64_t k = 0;

	for (; k < count && (!d->leaf_cap || d->leaves_listed < d->leaf_cap); k++) {
		uint64_t lva = va + k * size;
		int cache = d->pat ? pt_cache_of_entry(d->pat, entry, level) : -1;

		markers_upto(d, lva);
		fmt_snprintf(line, sizeof(line),
			     "%s: va=0x%llx pa=0x%llx size=0x%llx flags=r%c%c%c cache=%d",
			     d->leaf_key, (unsigned long long)lva,
			     (unsigned long long)(pa + k * size), (unsigned long long)size,
			     attrs & PTDUMP_RW ? 'w' : '-', attrs & PTDUMP_NX ? '-' : 'x',
			     attrs & PTDUMP_USR ? 'u' : '-', cache);
		put(d, line);
		d->lines++;
		d->leaves_listed++;
	}
	d->leaves_unlisted += count - k;
}

int ptdump_add(void *arg, uint64_t va, uint64_t pa, unsigned level, uint64_t count,
	       unsigned attrs, uint64_t entry)
{
	struct ptdump *d = arg;
	const uint64_t size = pt_level_size(level);
	uint64_t last = va + count * size - 1;

	if (!count || level > 2)
		return 0;
	d->leaves[level] += count;
	d->bytes += count * size;
	if (d->format == PTDUMP_LEAVES) {
		add_leaves(d, va, pa, level, count, attrs, entry);
		return 0;
	}
	/* split at every marker inside (va, last]: a run never spans a region boundary */
	for (unsigned m = d->next_marker; m < d->nmarkers; m++) {
		uint64_t mva = d->marker[m].va;

		if (mva <= va)
			continue;
		if (mva > last)
			break;
		add_piece(d, va, mva - 1, pa, level, attrs);
		pa += mva - va;
		va = mva;
	}
	add_piece(d, va, last, pa, level, attrs);
	return 0;
}

void ptdump_end(struct ptdump *d)
{
	flush_run(d);
	if (!d->leaves_unlisted)
		markers_upto(d, UINT64_MAX);
}
