/* SPDX-License-Identifier: MIT */
/*
 * Focused checks of what the CPU does with our entries, each against the
 * rule the Intel SDM Vol. 3A states for it (ch. 4: 4.8 accessed/dirty bits,
 * 4.10.4 invlpg and CR3 reloads, 4.10.2.4 global pages, 4.5 and 4.7 reserved
 * bits, 4.6 CR0.WP, SMEP and SMAP), and large-leaf splits.  Each
 * expected value is computed before the CPU is asked.  Runs live; every
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

static uint64_t *entry_of(const struct pt_space *s, uint64_t va)
{
	struct pt_leaf l;

	if (pt_translate(s, va, &l) != PT_OK)
		return NULL;
	return (uint64_t *)(uintptr_t)l.entry_pa;
}

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

static const char *ad_text(uint64_t e)
{
	static const char *const t[4] = { "A=0 D=0", "A=1 D=0", "A=0 D=1", "A=1 D=1" };

	return t[(e & PTE_A ? 1 : 0) | (e & PTE_D ? 2 : 0)];
}

static void ad_leaf(struct check_run *run, const struct ptlab_check *self, unsigned k)
{
	struct pt_space *s = &run->build->space;
	uint64_t pa, off, va = AREA, got, *e;
	struct trap_fault f;
	const char *bad = NULL;
	uint64_t seen = 0;

	if (!leaf_target(run->data, k, &pa, &off)) {
		report_skip(run->rep, "A/D 1G leaf", "no 1 GiB pages, or no GiB that is all RAM");
		return;
	}
	if (map_flush(s, va, pa, size_bytes[k],
		      inject_on(run->opts, self) ? 0 : PT_WRITE, (enum pt_page_size)k) ||
	    !(e = entry_of(s, va))) {
		report_fail(run->rep, "A/D %s leaf: could not map the test leaf", size_name[k]);
		return;
	}
	*e &= ~PTE_AD_MASK;
	invlpg(va + off);
	probe_read64(va + off, &got, &f);
	if ((*e & PTE_AD_MASK) != PTE_A) {
		bad = "a read";
		seen = *e;
	}
	*e &= ~PTE_AD_MASK;
	invlpg(va + off);
	if (!bad && (probe_write64(va + off, got, &f) || (*e & PTE_AD_MASK) != PTE_AD_MASK)) {
		bad = "a write";
		seen = *e;
	}
	/*
	 * A faulting write must not set D.  Whether it may set A is left open
	 * by the SDM ("uses a paging-structure entry"); QEMU sets A while it
	 * walks to a 1 GiB leaf: information, not a failure.
	 */
	*e &= ~(PTE_AD_MASK | PTE_W);
	invlpg(va + off);
	if (!bad && (probe_write64(va + off, got, &f) != 1 || (*e & PTE_D))) {
		bad = "a faulting write";
		seen = *e;
	}
	if (!bad && (*e & PTE_A))
		report_note(run->rep, "A/D %s leaf: a faulting write set A (information)", size_name[k]);
	*e |= PTE_W;
	invlpg(va + off);
	unmap_flush(s, va, size_bytes[k]);
	if (bad)
		report_fail(run->rep, "A/D %s leaf: after %s the leaf has %s", size_name[k], bad,
			    ad_text(seen));
	else
		report_ok(run->rep, "A/D %s leaf: read sets A only, write sets A and D, a faulting "
			  "write does not set D", size_name[k]);
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

/* Set @bit in the entry at @e for one access; the fault must carry RSVD. */
static void rsvd(struct check_run *run, const struct ptlab_check *self, const char *name,
		 uint64_t va, uint64_t *e, uint64_t bit)
{
	uint64_t saved = *e, got;
	struct trap_fault f, g;
	int r, w;

	*e |= inject_on(run->opts, self) ? 0 : bit;
	invlpg(va);
	r = probe_read64(va, &got, &f);
	w = probe_write64(va, 0, &g);
	*e = saved;
	invlpg(va);
	if (r == 1 && w == 1 && f.vector == TRAP_VEC_PF && g.vector == TRAP_VEC_PF &&
	    f.cr2 == va && (f.error & (PF_ERR_RSVD | PF_ERR_W | PF_ERR_ID)) == PF_ERR_RSVD &&
	    (g.error & (PF_ERR_RSVD | PF_ERR_W | PF_ERR_ID)) == (PF_ERR_RSVD | PF_ERR_W)) {
		report_ok(run->rep, "%s: read and write fault with RSVD (errors 0x%llx, 0x%llx)", name,
			  (unsigned long long)f.error, (unsigned long long)g.error);
		report_note(run->rep, "%s: P=%llu in the error code (the SDM says 1)", name,
			    (unsigned long long)(f.error & PF_ERR_P));
	} else {
		report_fail(run->rep, "%s: read %s error 0x%llx, write %s error 0x%llx", name,
			    r ? "faulted" : "completed", (unsigned long long)f.error,
			    w ? "faulted" : "completed", (unsigned long long)g.error);
	}
}

static void check_reserved(struct check_run *run, const struct ptlab_check *self)
{
	struct pt_space *s = &run->build->space;
	uint64_t va = AREA + 3 * PT_PAGE_SIZE, *e, *root;

	if (map_flush(s, va, run->data->pa, PT_PAGE_SIZE, PT_WRITE, PT_PAGE_4K) ||
	    !(e = entry_of(s, va))) {
		report_fail(run->rep, "reserved bits: could not map the test page");
		return;
	}
	if (run->cpu->caps.maxphyaddr < 52)
		rsvd(run, self, "reserved bit above MAXPHYADDR in a PTE", va, e,
			   UINT64_C(1) << run->cpu->caps.maxphyaddr);
	else
		report_skip(run->rep, "reserved bit above MAXPHYADDR", "MAXPHYADDR is 52");
	root = (uint64_t *)(uintptr_t)s->root_pa;
	rsvd(run, self, "PS in a root entry", va, &root[pt_index(va, run->build->levels - 1)], PTE_PS);
	unmap_flush(s, va, PT_PAGE_SIZE);
}

static const struct ptlab_check reserved = {
	"reserved bits fault with RSVD", PTLAB_PHASE_CPU, check_reserved,
	{ "rsvd-clear", "no bit set in the entry", PTLAB_FAULT_HOOK, NULL, NULL },
};

static void check_wp(struct check_run *run, const struct ptlab_check *self)
{
	struct pt_space *s = &run->build->space;
	uint64_t va = AREA + 4 * PT_PAGE_SIZE, v = 0, cr0 = read_cr0(), cr4 = read_cr4();
	struct trap_fault f;
	int with_wp, without_wp;

	if (map_flush(s, va, run->data->pa, PT_PAGE_SIZE, 0, PT_PAGE_4K)) {
		report_fail(run->rep, "CR0.WP: could not map the test page");
		return;
	}
	probe_read64(va, &v, &f);
	write_cr0(inject_on(run->opts, self) && !(cr4 & CR4_CET) ? cr0 & ~CR0_WP :
		  cr0 | CR0_WP);
	with_wp = probe_write64(va, v, &f);
	/*
	 * CR0.WP cannot be cleared while CR4.CET is set (#GP): a firmware that
	 * enters with CET gets it back right after the WP=0 probe.
	 */
	if (cr4 & CR4_CET)
		write_cr4(cr4 & ~CR4_CET);
	write_cr0(cr0 & ~CR0_WP);
	without_wp = probe_write64(va, v ^ 1, &f);
	write_cr0(cr0);
	if (cr4 & CR4_CET)
		write_cr4(cr4);
	unmap_flush(s, va, PT_PAGE_SIZE);
	if (with_wp == 1 && without_wp == 0 &&
	    *(volatile uint64_t *)(uintptr_t)run->data->pa == (v ^ 1))
		report_ok(run->rep, "CR0.WP: a supervisor write to a read-only page faults with WP=1 "
			  "and lands with WP=0");
	else
		report_fail(run->rep, "CR0.WP: with WP=1 the write %s, with WP=0 it %s",
			    with_wp ? "faulted" : "completed", without_wp ? "faulted" : "completed");
}

static const struct ptlab_check wp = {
	"CR0.WP", PTLAB_PHASE_CPU, check_wp,
	{ "wp-clear", "the WP=1 probe runs with CR0.WP=0", PTLAB_FAULT_HOOK, NULL, NULL },
};

static void check_smep(struct check_run *run, const struct ptlab_check *self)
{
	struct pt_space *s = &run->build->space;
	uint64_t va = AREA + 5 * PT_PAGE_SIZE, cr4 = read_cr4();
	struct trap_fault f, g;
	int a, b;

	if (!run->cpu->caps.smep) {
		report_skip(run->rep, "SMEP", "the CPU has no SMEP");
		return;
	}
	if (map_flush(s, va, run->data->pa, PT_PAGE_SIZE, PT_USER | PT_EXEC, PT_PAGE_4K)) {
		report_fail(run->rep, "SMEP: could not map the test page");
		return;
	}
	*(volatile uint8_t *)(uintptr_t)run->data->pa = 0xc3;
	write_cr4(inject_on(run->opts, self) ? cr4 & ~CR4_SMEP : cr4 | CR4_SMEP);
	a = probe_exec(va, &f);
	write_cr4(cr4 & ~CR4_SMEP);
	b = probe_exec(va, &g);
	write_cr4(cr4);
	unmap_flush(s, va, PT_PAGE_SIZE);
	if (a == 1 && f.vector == TRAP_VEC_PF && f.error == (PF_ERR_P | PF_ERR_ID) &&
	    f.cr2 == va && b == 0)
		report_ok(run->rep, "SMEP: a supervisor fetch from a user page faults (0x11) "
			  "only while SMEP is on");
	else
		report_fail(run->rep, "SMEP: fetch with SMEP %s, without %s",
			    a ? "faulted" : "completed", b ? "faulted" : "completed");
}

static const struct ptlab_check smep = {
	"SMEP", PTLAB_PHASE_CPU, check_smep,
	{ "smep-clear", "the SMEP probe runs with CR4.SMEP=0", PTLAB_FAULT_HOOK, NULL, NULL },
};

static void check_smap(struct check_run *run, const struct ptlab_check *self)
{
	struct pt_space *s = &run->build->space;
	uint64_t va = AREA + 5 * PT_PAGE_SIZE, cr4 = read_cr4(), got;
	struct trap_fault f, g;
	int a, b;

	if (!run->cpu->caps.smap) {
		report_skip(run->rep, "SMAP", "the CPU has no SMAP");
		return;
	}
	if (map_flush(s, va, run->data->pa, PT_PAGE_SIZE, PT_USER | PT_WRITE, PT_PAGE_4K)) {
		report_fail(run->rep, "SMAP: could not map the test page");
		return;
	}
	write_cr4(cr4 | CR4_SMAP);
	if (inject_on(run->opts, self))
		stac();
	else
		clac();
	a = probe_read64(va, &got, &f);
	stac();
	b = probe_read64(va, &got, &g);
	clac();
	write_cr4(cr4);
	unmap_flush(s, va, PT_PAGE_SIZE);
	if (a == 1 && f.vector == TRAP_VEC_PF && f.error == PF_ERR_P && f.cr2 == va && b == 0)
		report_ok(run->rep, "SMAP: a supervisor read of a user page faults with AC=0 and "
			  "succeeds after stac");
	else
		report_fail(run->rep, "SMAP: with AC=0 the read %s, with AC=1 it %s",
			    a ? "faulted" : "completed", b ? "faulted" : "completed");
}

static const struct ptlab_check smap = {
	"SMAP", PTLAB_PHASE_CPU, check_smap,
	{ "smap-stac", "the AC=0 probe runs after stac", PTLAB_FAULT_HOOK, NULL, NULL },
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

/* A, D per leaf size: a read sets A only, a write A and D, a faulting write not D. */
static void check_ad(struct check_run *run, const struct ptlab_check *self)
{
	for (unsigned k = 0; k < 3; k++)
		ad_leaf(run, self, k);
}

static const struct ptlab_check ad = {
	"A/D (4K, 2M, 1G leaf)", PTLAB_PHASE_CPU, check_ad,
	{ "ad-read-only", "the test leaves mapped read-only", PTLAB_FAULT_HOOK, NULL, NULL },
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
	&ad, &invlpg_remaps, &cr3_reload, &global, &reserved, &wp, &smep, &smap, &split, NULL,
};
