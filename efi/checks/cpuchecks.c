/* SPDX-License-Identifier: MIT */
/*
 * Focused checks of what the CPU does with our entries, each against the
 * rule the Intel SDM Vol. 3A states for it (ch. 4: 4.10.4 invlpg and CR3
 * reloads of a remapped page, 4.10.2.4 global pages), and large-leaf
 * splits.  Each expected value is computed before the CPU is asked.  The
 * permission rules, reserved bits, A/D bits, CR0.WP, SMEP and SMAP are the
 * MMU matrix's (mmuprobe.c, mmuperm.c, mmutlb.c): cases of one probe
 * engine judged by the rules model.  Runs live; every
 * mapping it makes is in the low scratch window and is removed again.
 *
 * No firmware calls: everything here runs live (through ptlab_live).
 */
#include "checks/cpuchecks.h"
#include "live/flush.h"
#include "checks/checkkit.h"
#include "checks/ram.h"
#include "state/state.h"
#include "live/live.h"
#include "report/report.h"
#include "cpu/trap.h"
#include "checks/inject.h"
#include "checks/registry.h"

#include <ptlab/pte.h>

#define AREA    (PTLAB_SCRATCH_LOW + (UINT64_C(64) << 30))

static const char *const size_name[3] = { "4K", "2M", "1G" };
static const uint64_t size_bytes[3] = { PT_SIZE_4K, PT_SIZE_2M, PT_SIZE_1G };

static int map_flush(struct pt_space *s, uint64_t va, uint64_t pa, uint64_t len, unsigned flags,
		     enum pt_page_size size)
{
	struct pt_flushlist fl;
	int err = pt_map(s, va, pa, len, flags, size, &fl);

	if (!err)
		ptlab_flush(&fl);
	return err;
}

static void unmap_flush(struct pt_space *s, uint64_t va, uint64_t len)
{
	struct pt_flushlist fl;

	if (pt_unmap(s, va, len, PT_SPARSE, &fl) == PT_OK)
		ptlab_flush(&fl);
}

/*
 * A leaf of size index @k at AREA: its frame and the offset inside it where
 * the data area is (the only place a write may land).
 */
static bool leaf_target(const struct ptlab_data *d, unsigned k, uint64_t *pa, uint64_t *off)
{
	if (k == 2 && !d->big_ok)
		return false;
	*pa = k == 2 ? d->big_pa : d->pa;
	*off = k == 2 ? d->pa - d->big_pa : 0;
	return true;
}

/* Our own pattern at @pa, different from what @other holds. */
static uint64_t plant(uint64_t pa, uint64_t other, uint64_t salt)
{
	uint64_t v = UINT64_C(0x5054c0de00000000) | salt | (pa & 0xfffff000);

	if (v == other)
		v ^= 1;
	*(volatile uint64_t *)(uintptr_t)pa = v;
	return v;
}

static void invlpg_remap(struct check_run *run, const struct ptlab_check *self, unsigned k)
{
	struct pt_space *s = &run->build->space;
	uint64_t pa, off, pa2, va = AREA, v1, v2, got = 0;
	struct pt_flushlist fl;
	struct trap_fault f;

	if (!leaf_target(run->data, k, &pa, &off)) {
		report_skip(run->rep, "invlpg remap 1G leaf", "no 1 GiB pages, or no GiB that is all RAM");
		return;
	}
	/* the second frame: the next 2M chunk of the data area, or the other GiB */
	pa2 = k == 2 ? (pa ^ PT_SIZE_1G) : pa + PT_SIZE_2M;
	if (k == 2 && !ptlab_range_is_ram(&run->build->map, pa2, PT_SIZE_1G)) {
		report_skip(run->rep, "invlpg remap 1G leaf", "the other GiB is not all RAM");
		return;
	}
	if (k == 2) {
		/* we may only read there: expect whatever is there */
		if (map_flush(s, va, pa2, PT_SIZE_1G, 0, PT_PAGE_1G) ||
		    probe_read64(va + off, &v2, &f)) {
			unmap_flush(s, va, PT_SIZE_1G);
			report_skip(run->rep, "invlpg remap 1G leaf", "no second GiB of RAM to remap to");
			return;
		}
		unmap_flush(s, va, PT_SIZE_1G);
	} else {
		v2 = plant(pa2 + off, 0, 2);
	}
	v1 = plant(pa + off, v2, 1);
	map_flush(s, va, pa, size_bytes[k], 0, (enum pt_page_size)k);
	probe_read64(va + off, &got, &f);   /* the old translation is cached now */
	if (pt_remap(s, va, size_bytes[k], pa2, PT_NOSPLIT, &fl) != PT_OK) {
		unmap_flush(s, va, size_bytes[k]);
		report_fail(run->rep, "invlpg remap %s leaf: remap refused", size_name[k]);
		return;
	}
	if (!inject_on(run->opts, self))
		ptlab_flush(&fl);
	got = 0;
	probe_read64(va + off, &got, &f);
	unmap_flush(s, va, size_bytes[k]);
	if (got == v2)
		report_ok(run->rep, "invlpg remap %s leaf: the new frame is seen after invlpg",
			  size_name[k]);
	else
		report_fail(run->rep, "invlpg remap %s leaf: read 0x%llx, expected 0x%llx (old 0x%llx)",
			    size_name[k], (unsigned long long)got, (unsigned long long)v2,
			    (unsigned long long)v1);
}

/* Map @va to frame A, cache it, point the leaf at B without invlpg. */
static int stale_setup(struct pt_space *s, const struct ptlab_data *d, uint64_t va,
		       unsigned flags, uint64_t *v1, uint64_t *v2)
{
	uint64_t a = d->pa, b = d->pa + PT_PAGE_SIZE, got;
	struct pt_flushlist fl;
	struct trap_fault f;

	*v2 = plant(b, 0, 4);
	*v1 = plant(a, *v2, 3);
	if (map_flush(s, va, a, PT_PAGE_SIZE, flags, PT_PAGE_4K))
		return -1;
	probe_read64(va, &got, &f);
	return pt_remap(s, va, PT_PAGE_SIZE, b, 0, &fl);   /* fl deliberately not flushed */
}

static void check_cr3_reload(struct check_run *run, const struct ptlab_check *self)
{
	struct pt_space *s = &run->build->space;
	uint64_t va = AREA + PT_PAGE_SIZE, v1, v2, got = 0;
	struct trap_fault f;

	if (stale_setup(s, run->data, va, 0, &v1, &v2)) {
		report_fail(run->rep, "CR3 reload: could not set up the test page");
		unmap_flush(s, va, PT_PAGE_SIZE);
		return;
	}
	if (!inject_on(run->opts, self))
		write_cr3(read_cr3());
	probe_read64(va, &got, &f);
	unmap_flush(s, va, PT_PAGE_SIZE);
	if (got == v2)
		report_ok(run->rep, "CR3 reload: a non-global translation is refreshed");
	else
		report_fail(run->rep, "CR3 reload: read 0x%llx, expected 0x%llx", (unsigned long long)got,
			    (unsigned long long)v2);
}

static const struct ptlab_check cr3_reload = {
	"CR3 reload: a non-global translation is refreshed", PTLAB_PHASE_CPU, check_cr3_reload,
	{ "cr3-reload-skipped", "no CR3 reload", PTLAB_FAULT_HOOK, NULL, NULL },
};

static void check_global(struct check_run *run, const struct ptlab_check *self)
{
	struct pt_space *s = &run->build->space;
	uint64_t va = AREA + 2 * PT_PAGE_SIZE, v1, v2, got = 0, cr4 = read_cr4();
	struct trap_fault f;
	bool survived;

	if (!run->cpu->caps.pge) {
		report_skip(run->rep, "global pages", "the CPU has no PGE");
		return;
	}
	write_cr4(cr4 | CR4_PGE);
	if (stale_setup(s, run->data, va, PT_GLOBAL, &v1, &v2)) {
		write_cr4(cr4);
		unmap_flush(s, va, PT_PAGE_SIZE);
		report_fail(run->rep, "global pages: could not set up the test page");
		return;
	}
	if (!inject_on(run->opts, self))
		write_cr3(read_cr3());
	probe_read64(va, &got, &f);
	survived = got == v1;
	/* a PGE toggle flushes global translations too */
	if (!inject_on(run->opts, self)) {
		write_cr4(cr4 & ~CR4_PGE);
		write_cr4(cr4 | CR4_PGE);
	}
	probe_read64(va, &got, &f);
	write_cr4(cr4);
	unmap_flush(s, va, PT_PAGE_SIZE);
	report_note(run->rep, "global page %s a CR3 reload (information: TCG flushes everything)",
		    survived ? "survived" : "did not survive");
	if (got == v2)
		report_ok(run->rep, "global pages: a CR4.PGE toggle flushes a global translation");
	else
		report_fail(run->rep, "global pages: after the PGE toggle read 0x%llx, expected 0x%llx",
			    (unsigned long long)got, (unsigned long long)v2);
}

static const struct ptlab_check global = {
	"global pages: a PGE toggle flushes", PTLAB_PHASE_CPU, check_global,
	{ "pge-skipped", "neither a CR3 reload nor a PGE toggle", PTLAB_FAULT_HOOK, NULL, NULL },
};

/* Cutting one page out of a large leaf keeps every other page as it was. */
static void check_split(struct check_run *run, const struct ptlab_check *self)
{
	struct pt_space *s = &run->build->space;
	unsigned k = run->data->big_ok ? 2 : 1;
	uint64_t pa, off, va = AREA, size = size_bytes[k];
	struct pt_leaf before[16] = { 0 }, after;
	unsigned bad = 0, read = 0, seen = 0;

	if (!leaf_target(run->data, k, &pa, &off) ||
	    map_flush(s, va, pa, size,
		      PT_WRITE | PT_CACHE(ptlab_cache_pick(&run->build->env.pat, PT_CACHE_WT)),
		      (enum pt_page_size)k)) {
		report_fail(run->rep, "split: could not map the %s leaf", size_name[k]);
		return;
	}
	/* before the cut: each point must translate into the leaf just mapped */
	for (unsigned i = 0; i < 16; i++) {
		uint64_t d = i * (size / 16) + off % (size / 16);

		if (pt_translate(s, va + d, &before[i]) == PT_OK && before[i].pa == pa + d)
			seen |= 1u << i;
		else
			bad++;
	}
	/* --inject=split-wrong-page: the cut takes the first checked page instead */
	unmap_flush(s, inject_on(run->opts, self) ? va + off % (size / 16) :
		    va + off + 5 * PT_PAGE_SIZE, PT_PAGE_SIZE);
	for (unsigned i = 0; i < 16; i++) {
		uint64_t x = va + i * (size / 16) + off % (size / 16), a = 0, b = 0;
		struct trap_fault f;

		if (!(seen & (1u << i)))
			continue;
		if (pt_translate(s, x, &after) != PT_OK || after.pa != before[i].pa ||
		    after.flags != before[i].flags) {
			bad++;
			continue;
		}
		/* the CPU reads only RAM: the GiB may hold holes and MMIO */
		if (!ptlab_is_ram(&run->build->map, after.pa))
			continue;
		read++;
		if (probe_read64(x, &a, &f) || probe_read64(run->build->plan.hhdm_base + after.pa, &b, &f) || a != b)
			bad++;
	}
	unmap_flush(s, va, size);
	if (!bad)
		report_ok(run->rep, "split: cutting a page out of a %s leaf keeps every other page's "
			  "frame and attributes (16 points, %u read by the CPU)", size_name[k], read);
	else
		report_fail(run->rep, "split: %u of 16 points not in the %s leaf before the cut "
			    "or changed by it", bad,
			    size_name[k]);
}

static const struct ptlab_check split = {
	"split: a cut keeps every other page", PTLAB_PHASE_CPU, check_split,
	{ "split-wrong-page", "the cut takes a checked page instead of its neighbour",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

/* Per leaf size: a remap followed by invlpg is seen. */
static void check_invlpg_remap(struct check_run *run, const struct ptlab_check *self)
{
	for (unsigned k = 0; k < 3; k++)
		invlpg_remap(run, self, k);
}

static const struct ptlab_check invlpg_remaps = {
	"invlpg remap (4K, 2M, 1G leaf)", PTLAB_PHASE_CPU, check_invlpg_remap,
	{ "invlpg-skipped", "the remap not followed by invlpg", PTLAB_FAULT_HOOK, NULL, NULL },
};

/* The module's entries, each right after its check; their faults are conditions in the bodies. */
ptlab_check_table cpuchecks_table = {
	&invlpg_remaps, &cr3_reload, &global, &split, NULL,
};
