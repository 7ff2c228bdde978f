/* SPDX-License-Identifier: MIT */
/*
 * The pipeline every mode shares (see run.h): the run's start, the memory
 * map, the plan, the frame pool and the data area, the build, every check
 * on it, the churn, the facts, the frames and the time.  The modes call
 * down into it; what they do their own way is reached through p->mode
 * (the live phases, the SMP checks, a mode's own checks).
 *
 * Firmware calls (boot services, with the firmware's CR3, GDT and IDT
 * loaded): GetMemoryMap (run_get_map), Stall (TSC calibration in
 * run_start), pages and pool through fw/owned.c's one allocator (the pool,
 * the data area, the typed window, run_release).  The build, the checks and the
 * facts make none of their own; in firmware mode the SMP checks reach MP
 * services through the mode's smp (smp_run, bringup/bringup.c).
 */
#include "checks/elsewhere.h"
#include "checks/checkkit.h"
#include "core/kernel.h"
#include "core/mode.h"
#include "core/run.h"
#include "checks/churn.h"
#include "checks/fwaudit.h"
#include "checks/ram.h"
#include "core/dump.h"
#include "checks/registry.h"
#include "live/la57.h"
#include "live/la57tramp.h"
#include "opts/optcheck.h"
#include "fw/memattr.h"
#include "fw/owned.h"
#include "report/report.h"
#include "report/serial.h"
#include "fw/sink.h"
#include "live/live.h"

#include <ptlab/pte.h>

#define POOL_HEADROOM     1024u       /* frames beyond the plan's tables, for the checks */
#define DATA_BYTES        (8u << 20)  /* the data area test mappings point at */
#define TYPED_BYTES       (64u << 10) /* the churn's typed window (see state.h) */

/* Linker symbols of gnu-efi's elf_x86_64_efi.lds. */
extern char _text[], _etext[], _data[], _edata[];

/* ---- memory map ------------------------------------------------------------------ */

EFI_STATUS run_get_map(struct rawmap *m)
{
	for (unsigned tries = 0; tries < 8; tries++) {
		EFI_STATUS st;

		m->size = m->cap;
		st = uefi_call_wrapper(BS->GetMemoryMap, 5, &m->size, m->buf, &m->key,
				       &m->desc_size, &m->version);
		if (st == EFI_SUCCESS)
			return st;
		if (st != EFI_BUFFER_TOO_SMALL)
			return st;
		owned_pool_free(m->buf);
		/* the pool allocation itself may add descriptors */
		m->cap = m->size + RUN_MAP_SLACK_DESC * (m->desc_size ? m->desc_size : 48);
		m->buf = owned_pool(m->cap);
		if (!m->buf)
			return EFI_OUT_OF_RESOURCES;
	}
	return EFI_BUFFER_TOO_SMALL;
}

void run_dump_raw_map(struct report *rep, const struct rawmap *m)
{
	for (UINTN off = 0; off + m->desc_size <= m->size; off += m->desc_size) {
		const EFI_MEMORY_DESCRIPTOR *d = (const void *)((const char *)m->buf + off);

		report_note(rep, "memmap-raw: type=%u pa=0x%llx pages=0x%llx attr=0x%llx",
			    d->Type, (unsigned long long)d->PhysicalStart,
			    (unsigned long long)d->NumberOfPages, (unsigned long long)d->Attribute);
	}
}

/* Normalize @m into @map (the run's build.map) for a CPU of @maxphyaddr bits. */
static int normalize(struct pt_memmap *map, unsigned maxphyaddr, const struct rawmap *m)
{
	unsigned count = m->desc_size ? (unsigned)(m->size / m->desc_size) : 0;

	map->n = 0;
	return pt_memmap_normalize(m->buf, m->size, count, (unsigned)m->desc_size, maxphyaddr, map);
}

/* ---- the image --------------------------------------------------------------------- */

static void add_section(struct pt_image *img, uint64_t from, uint64_t to, unsigned flags)
{
	if (to > from && img->nsections < PT_IMAGE_MAX_SECTIONS)
		img->section[img->nsections++] = (struct pt_image_section){ from, to - from, flags };
}

/* @img from the loaded image @li and the linker's section symbols: text RX, data RW, the rest read-only. */
static void describe_image(struct pt_image *img, EFI_LOADED_IMAGE *li)
{
	uint64_t base = (uint64_t)(uintptr_t)li->ImageBase;
	uint64_t end = pt_align_up(base + li->ImageSize, PT_PAGE_SIZE);
	uint64_t text = (uint64_t)(uintptr_t)_text, etext = pt_align_up((uintptr_t)_etext, PT_PAGE_SIZE);
	uint64_t data = (uint64_t)(uintptr_t)_data, edata = pt_align_up((uintptr_t)_edata, PT_PAGE_SIZE);

	*img = (struct pt_image){ .base = base, .size = end - base };
	add_section(img, base, text, 0);
	add_section(img, text, etext, PT_EXEC);
	add_section(img, etext, data, 0);
	add_section(img, data, edata, PT_WRITE);
	add_section(img, edata, end, 0);
}

/* ---- TSC ------------------------------------------------------------------------------ */

/* t->tsc_per_us measured over a 10 ms Stall (boot services); COM1's clock set from it. */
static void calibrate_tsc(struct ptlab_time *t)
{
	uint64_t t0 = rdtsc();

	uefi_call_wrapper(BS->Stall, 1, 10000);
	t->tsc_per_us = (rdtsc() - t0) / 10000;
	/* COM1's wait per line is a time, not a number of polls */
	serial_set_clock(t->tsc_per_us);
}

/* ---- building ---------------------------------------------------------------------------- */

/* The plan for p->build.map with the run's capabilities; the W^X exemption list emptied. */
static int plan(struct ptlab *p)
{
	struct pt_plan_caps caps = {
		.has_1g = p->cpu.caps.pdpe1gb,
		.levels = p->build.levels,
		.maxphyaddr = p->cpu.caps.maxphyaddr,
		.boot_services_gone = p->build.boot_services_gone,
		.mat = p->build.mat.n ? &p->build.mat : NULL,
		.hhdm_base = p->build.hhdm_base,
	};
	int err;

	/* a new plan has none of the old one's W^X exemptions */
	p->wx.n = 0;
	/* the framebuffer, when the map does not describe it: write-combining */
	if (p->fb.extra) {
		caps.extra[0] = (struct pt_plan_extra){ p->fb.info.base_pa, p->fb.len,
							PT_WRITE | PT_CACHE(PT_CACHE_WC) };
		caps.nextra = 1;
	}
	p->build.image_va = PT_IMAGE_BASE;
	err = pt_plan_build(&p->build.map, &p->build.image, &caps, &p->build.plan);
	/* the LA57 trampoline's code page: RX in the identity map */
	return err ? err : la57_plan_fixup(&p->build, p->live.la57_tramp, p->cpu.caps.pdpe1gb);
}

/* Below 4 GiB: where the 5-level switch's trampoline and roots must be (32-bit CR3). */
#define BELOW_4G        UINT64_C(0x100000000)

/*
 * @frames pages at *@pa in a conventional range of @map above 4 GiB, for
 * the pool: --raise=la57-root-high.  False when none could be had.
 */
static bool pool_above_4g(const struct pt_memmap *map, uint64_t frames, uint64_t *pa)
{
	for (unsigned i = 0; i < map->n; i++) {
		const struct pt_mem_range *r = &map->range[i];
		uint64_t a = r->pa < BELOW_4G ? BELOW_4G : r->pa;

		if (r->type != PT_EFI_CONVENTIONAL || a >= r->pa + r->len ||
		    r->pa + r->len - a < frames * PT_PAGE_SIZE)
			continue;
		*pa = a;
		if (owned_alloc(AllocateAddress, EfiLoaderData, frames * PT_PAGE_SIZE, pa) ==
		    EFI_SUCCESS)
			return true;
	}
	return false;
}

/*
 * The frame pool (@frames pages) of a run that switches paging levels:
 * below 4 GiB, where the roots must be; --raise=la57-root-high in @o puts
 * it above 4 GiB on purpose, in a conventional range of @map.  PT_OK with
 * *@out set, or PT_ENOMEM (after a failure line on @rep when the raise
 * found no room).
 */
static int la57_pool_alloc(struct report *rep, const struct opts *o, const struct pt_memmap *map,
			   uint64_t frames, uint64_t *out)
{
	uint64_t pa = BELOW_4G - 1;

	if (o->raise == OPTS_RAISE_LA57_ROOT_HIGH) {
		if (!pool_above_4g(map, frames, &pa)) {
			report_fail(rep, "la57: --raise=la57-root-high needs %llu free pages "
				    "above 4 GiB", (unsigned long long)frames);
			return PT_ENOMEM;
		}
	} else if (owned_alloc(AllocateMaxAddress, EfiLoaderData, frames * PT_PAGE_SIZE, &pa) !=
		   EFI_SUCCESS) {
		return PT_ENOMEM;
	}
	*out = pa;
	return PT_OK;
}

/* The frame pool for the plan's tables and the checks (boot services). */
static int setup_pool(struct ptlab *p)
{
	EFI_PHYSICAL_ADDRESS pa = 0;
	struct pt_range r;
	uint64_t frames = p->build.plan.min_total + POOL_HEADROOM;
	size_t bytes;

	if (p->live.la57_tramp) {
		/* the roots are loaded with paging off: below 4 GiB */
		if (la57_pool_alloc(p->rep, &p->opts, &p->build.map, frames, &pa) != PT_OK)
			return PT_ENOMEM;
	} else if (owned_alloc(AllocateAnyPages, EfiLoaderData, frames * PT_PAGE_SIZE, &pa) !=
		   EFI_SUCCESS) {
		return PT_ENOMEM;
	}
	p->build.pool_pa = pa;
	p->build.pool_frames = frames;
	r.va = pa;
	r.len = frames * PT_PAGE_SIZE;
	bytes = pt_frames_bitmap_bytes(&r, 1);
	return pt_frames_init(&p->build.frames, &r, 1, owned_pool(bytes), bytes,
			      p->build.env.phys_to_virt, p);
}

/* The data area: DATA_BYTES, 2 MiB aligned, in our own LoaderData pages. */
/*
 * Place the data area in a GiB that is all RAM, when the map has one, so
 * 1 GiB test leaves may map that GiB write-back and write only inside the
 * data area: free conventional pages there are taken with AllocateAddress.
 */
static bool data_in_ram_gib(struct ptlab *p, UINTN pages, EFI_PHYSICAL_ADDRESS *out)
{
	if (!p->cpu.caps.pdpe1gb)
		return false;
	for (unsigned i = 0; i < p->build.map.n; i++) {
		const struct pt_mem_range *r = &p->build.map.range[i];
		uint64_t gib = pt_align_up(r->pa, PT_SIZE_1G);

		for (; gib + PT_SIZE_1G <= r->pa + r->len; gib += PT_SIZE_1G) {
			if (!ptlab_range_is_ram(&p->build.map, gib, PT_SIZE_1G))
				continue;
			for (uint64_t pa = gib + PT_SIZE_1G - pages * PT_PAGE_SIZE; pa >= gib;
			     pa -= PT_SIZE_2M) {
				EFI_PHYSICAL_ADDRESS a = pa;

				if (pa < r->pa || pa + pages * PT_PAGE_SIZE > r->pa + r->len)
					break;
				if (owned_alloc(AllocateAddress, EfiLoaderData,
						pages * PT_PAGE_SIZE, &a) == EFI_SUCCESS) {
					*out = a;
					return true;
				}
			}
		}
	}
	return false;
}

/*
 * The churn's typed window: frames of our own outside the GiB the churn maps
 * with 1 GiB write-back leaves, so those leaves and the window's UC/WT
 * mappings never meet on one frame (they would be refused, and 1 GiB leaves
 * would starve).  Without such frames the churn makes no typed mappings
 * (a note on @rep).  @d: the run's data area, placed; its typed window set.
 */
static void setup_typed(struct ptlab_data *d, struct report *rep)
{
	uint64_t pa = 0;
	EFI_STATUS st;

	d->typed_len = 0;
	st = owned_alloc(AllocateAnyPages, EfiLoaderData, TYPED_BYTES, &pa);
	if (st == EFI_SUCCESS && d->big_ok && pa < d->big_pa + PT_SIZE_1G &&
	    pa + TYPED_BYTES > d->big_pa) {
		owned_free(pa, TYPED_BYTES);
		pa = d->big_pa - 1;
		st = d->big_pa > TYPED_BYTES + (1u << 20) ?
			owned_alloc(AllocateMaxAddress, EfiLoaderData, TYPED_BYTES, &pa) :
			EFI_NOT_FOUND;
	}
	if (st != EFI_SUCCESS) {
		report_note(rep, "churn: no frames of our own outside the 1 GiB leaves' GiB for "
			    "UC/WT mappings: the churn maps write-back only");
		return;
	}
	d->typed_pa = pa;
	d->typed_len = TYPED_BYTES;
	d->typed_alloc = pa;
}

/* The data area and the typed window (boot services). */
static int setup_data(struct ptlab *p)
{
	EFI_PHYSICAL_ADDRESS pa = 0;
	UINTN pages = (DATA_BYTES + PT_SIZE_2M) / PT_PAGE_SIZE;

	if (!data_in_ram_gib(p, pages, &pa) &&
	    owned_alloc(AllocateAnyPages, EfiLoaderData, pages * PT_PAGE_SIZE, &pa) != EFI_SUCCESS)
		return PT_ENOMEM;
	p->data.pa = pt_align_up(pa, PT_SIZE_2M);
	p->data.len = DATA_BYTES;
	p->data.big_pa = p->data.pa & ~(PT_SIZE_1G - 1);
	/* a WB 1 GiB leaf over MMIO, a hole or reserved memory is a bug class of its own */
	p->data.big_ok = p->cpu.caps.pdpe1gb &&
			 ptlab_range_is_ram(&p->build.map, p->data.big_pa, PT_SIZE_1G);
	p->data.alloc = pa;
	p->data.pages = pages;
	setup_typed(&p->data, p->rep);
	return PT_OK;
}

int run_prepare(struct ptlab *p, const struct mode_boot *b, struct rawmap *m,
		run_between_fn between, const char **failed)
{
	unsigned cap;
	int err;

	*failed = "GetMemoryMap";
	if (run_get_map(m) != EFI_SUCCESS)
		return PT_EMAPBAD;
	/* both buffers from this first look: a range per descriptor, split twice at most */
	cap = 2 * (unsigned)(m->cap / m->desc_size) + 2 * RUN_MAP_SLACK_DESC;
	p->build.map.range = owned_pool(cap * sizeof(*p->build.map.range));
	p->build.map.cap = cap;
	p->build.plan.cap = 2 * cap + 2 * PT_IMAGE_MAX_SECTIONS + 4 + PT_PLAN_MAX_EXTRA;
	p->build.plan.entry = owned_pool(p->build.plan.cap * sizeof(*p->build.plan.entry));
	*failed = "the map and plan buffers";
	if (!p->build.map.range || !p->build.plan.entry)
		return PT_ENOMEM;
	describe_image(&p->build.image, b->li);
	*failed = "the memory map";
	err = normalize(&p->build.map, p->cpu.caps.maxphyaddr, m);
	if (err)
		return err;
	*failed = "the mode's preparation";
	if (between && (err = between(p, b, m, cap)) != PT_OK)
		return err;
	*failed = "the plan";
	err = plan(p);
	if (err)
		return err;
	*failed = "the frame pool";
	err = setup_pool(p);
	if (err)
		return err;
	*failed = "the data area";
	return setup_data(p);
}

static void run_churn(struct ptlab *p)
{
	uint64_t t0 = rdtsc();

	churn_start(p);
	while (!p->aborted && churn_running(p)) {
		ptlab_live(p, churn_slice, "churn");
		churn_progress(p, ptlab_us(&p->t, rdtsc() - t0));
		sink_emit(p->rep);
	}
	if (!p->aborted) {
		ptlab_live(p, churn_finish, "churn cleanup");
		churn_merge_back(p);
	}
	p->t.churn = rdtsc() - t0;
}

/* The build's facts on @rep: the CPU @caps, the map @m and @b's map, plan, tables and leaves. */
static void report_facts(struct report *rep, const struct cpu_caps *caps,
			 const struct ptlab_build *b, const struct rawmap *m)
{
	const uint64_t *t = b->tables_built;

	report_fact(rep, "cpu", "pdpe1gb=%d nx=%d maxphyaddr=%u la57=%d smep=%d smap=%d pge=%d "
		    "hypervisor=%d levels=%u", caps->pdpe1gb, caps->nx, caps->maxphyaddr,
		    caps->la57_enabled, caps->smep, caps->smap, caps->pge, caps->hypervisor, b->levels);
	report_fact(rep, "memmap", "descriptors=%u descriptor_size=%u ranges=%u usable_bytes=%llu "
		    "quirks=0x%x", (unsigned)(m->size / m->desc_size), (unsigned)m->desc_size,
		    b->map.n, (unsigned long long)b->map.usable_bytes, b->map.quirks | b->plan.quirks);
	for (unsigned q = 0; q < PT_QUIRK_COUNT; q++)
		if ((b->map.quirks | b->plan.quirks) & (1u << q))
			report_fact(rep, "quirk", "%s count=%u", pt_quirk_name(q), b->map.quirk_count[q]);
	report_fact(rep, "plan", "entries=%u identity_bytes=%llu hhdm_bytes=%llu image_bytes=%llu",
		    b->plan.n, (unsigned long long)b->plan.identity_bytes,
		    (unsigned long long)b->plan.hhdm_bytes, (unsigned long long)b->plan.image_bytes);
	report_fact(rep, "tables", "pml5=%llu pml4=%llu pdpt=%llu pd=%llu pt=%llu total=%llu "
		    "minimum=%llu", (unsigned long long)t[4], (unsigned long long)t[3],
		    (unsigned long long)t[2], (unsigned long long)t[1], (unsigned long long)t[0],
		    (unsigned long long)(t[0] + t[1] + t[2] + t[3] + t[4]),
		    (unsigned long long)b->plan.min_total);
	report_fact(rep, "leaves", "4k=%llu 2m=%llu 1g=%llu",
		    (unsigned long long)b->space.stats.leaves[0],
		    (unsigned long long)b->space.stats.leaves[1],
		    (unsigned long long)b->space.stats.leaves[2]);
}

static int dump_leaf(void *arg, const struct pt_leaf *l)
{
	struct report *rep = arg;

	report_note(rep, "leaf: va=0x%llx pa=0x%llx size=0x%llx flags=%s%s%s%s cache=%u",
		    (unsigned long long)l->va, (unsigned long long)l->pa, (unsigned long long)l->size,
		    "r", l->flags & PT_WRITE ? "w" : "-", l->flags & PT_EXEC ? "x" : "-",
		    l->flags & PT_USER ? "u" : "-", (unsigned)PT_CACHE_OF(l->flags));
	return 0;
}

/*
 * --raise (test only): prove the recovery paths.  gp: a non-canonical load;
 * badstack: a push with RSP pointing at unmapped memory (the #PF arrives on
 * its own IST stack); timeout: a loop that only the --timeout deadline ends.
 */
static int raise_fault(struct ptlab *p)
{
	switch (p->opts.raise) {
	case OPTS_RAISE_GP:
		return (int)*(volatile uint64_t *)(uintptr_t)UINT64_C(0x8000000000000000);
	case OPTS_RAISE_BADSTACK:
		__asm__ volatile("mov %0, %%rsp\n\tpushq $0" : : "r"(PTLAB_UNMAPPED_VA + 0x1000) : "memory");
		return 0;
	case OPTS_RAISE_TIMEOUT:
		while (!ptlab_deadline_passed(&p->t, &p->opts, p->rep, &p->aborted))
			__asm__ volatile("pause");
		return 0;
	case OPTS_RAISE_LA57_WINDOW:
	case OPTS_RAISE_LA57_ROOT_HIGH:
		/* these act in the LA57 switch: reaching here means no switch happened */
		report_fail(p->rep, "raise: --raise=%s needs a switch of paging levels (--levels=5 "
			    "on a CPU with LA57)", p->opts.raise == OPTS_RAISE_LA57_WINDOW ?
			    "la57-window" : "la57-root-high");
		return 0;
	default:
		return 0;
	}
}

/* --hold: halt for good with our tables loaded (a live phase that never returns). */
static int hold_here(struct ptlab *p)
{
	(void)p;
	cpu_halt();
}

void run_report_frames_and_time(struct ptlab *p, uint64_t t0)
{
	la57_report_end(p->rep, p->build.levels, &p->live);
	if (p->build.frames.in_use == 0 && p->build.frames.allocated == p->build.frames.freed)
		check_report(p->rep, &check_frames_returned, true,
			     "frames: every frame taken was returned (%llu)",
			     (unsigned long long)p->build.frames.allocated);
	else
		check_report(p->rep, &check_frames_returned, false,
			     "frames: allocated=%llu freed=%llu in use=%llu",
			     (unsigned long long)p->build.frames.allocated, (unsigned long long)p->build.frames.freed,
			     (unsigned long long)p->build.frames.in_use);
	report_fact(p->rep, "frames", "allocated=%llu freed=%llu leaked=%llu pool=%llu peak=%llu",
		    (unsigned long long)p->build.frames.allocated, (unsigned long long)p->build.frames.freed,
		    (unsigned long long)p->build.frames.in_use, (unsigned long long)p->build.pool_frames,
		    (unsigned long long)p->build.frames.peak);
	p->t.total = rdtsc() - t0;
	{
		const struct pt_plan *plan = &p->build.plan;
		uint64_t mapped = plan->identity_bytes + plan->hhdm_bytes + plan->image_bytes;
		uint64_t checks_us = ptlab_us(&p->t, p->t.checks + p->t.churn);
		uint64_t checks = p->rep->tests + churn_samples(p);

		report_fact(p->rep, "time", "plan_us=%llu build_us=%llu checks_us=%llu churn_us=%llu "
			    "teardown_us=%llu total_us=%llu build_us_per_gib=%llu checks_per_s=%llu "
			    "tsc_mhz=%llu", (unsigned long long)ptlab_us(&p->t, p->t.plan),
			    (unsigned long long)ptlab_us(&p->t, p->t.build),
			    (unsigned long long)ptlab_us(&p->t, p->t.checks),
			    (unsigned long long)ptlab_us(&p->t, p->t.churn),
			    (unsigned long long)ptlab_us(&p->t, p->t.teardown),
			    (unsigned long long)ptlab_us(&p->t, p->t.total),
			    (unsigned long long)(mapped ? ptlab_us(&p->t, p->t.build) * PT_SIZE_1G / mapped : 0),
			    (unsigned long long)(checks_us ? checks * 1000000 / checks_us : 0),
			    (unsigned long long)p->t.tsc_per_us);
	}
}

struct digest {
	uint64_t hash, leaves;
};

static int digest_leaf(void *arg, const struct pt_leaf *l)
{
	struct digest *d = arg;
	const uint64_t word[4] = { l->va, l->pa, l->size, l->flags };

	/* FNV-1a over 64-bit words, each product folded once */
	for (unsigned i = 0; i < 4; i++) {
		d->hash = (d->hash ^ word[i]) * UINT64_C(0x100000001b3);
		d->hash ^= d->hash >> 29;
	}
	d->leaves++;
	return 0;
}

uint64_t run_digest(const struct pt_space *s, uint64_t *leaves)
{
	struct digest d = { UINT64_C(0xcbf29ce484222325), 0 };

	pt_visit(s, 0, 0, digest_leaf, &d);
	*leaves = d.leaves;
	return d.hash;
}

void run_build_and_check(struct ptlab *p, const struct rawmap *mp)
{
	const struct rawmap m = *mp;
	uint64_t t;
	int err;

	if (p->opts.fail_alloc)
		pt_frames_fail_nth(&p->build.frames, p->opts.fail_alloc);

	t = rdtsc();
	err = pt_create(&p->build.space, &p->build.env, p->build.levels);
	if (!err)
		err = pt_plan_apply(&p->build.space, &p->build.plan);
	p->t.build = rdtsc() - t;
	if (err) {
		report_fail(p->rep, "build: the plan could not be applied: %s (frames in use %llu)",
			    pt_strerror(err), (unsigned long long)p->build.frames.in_use);
		if (p->build.space.root_pa)
			pt_destroy(&p->build.space);
		return;
	}
	p->build.digest = run_digest(&p->build.space, &p->build.digest_leaves);
	checks_after_build(p);   /* --inject faults of the build, taken back after their checks */
	for (unsigned l = 0; l < 5; l++)
		p->build.tables_built[l] = p->build.space.stats.tables[l];
	p->build.our_cr3 = p->build.space.root_pa;
	/* a fact: the build's failure is the not-ok line above; what it built is checked later */
	report_fact(p->rep, "build", "%u plan entries mapped into a fresh %u-level hierarchy",
		    p->build.plan.n, p->build.levels);
	report_facts(p->rep, &p->cpu.caps, &p->build, &m);
	report_fact(p->rep, "cr3", "firmware=0x%llx built=0x%llx", (unsigned long long)p->cpu.fw_cr3,
		    (unsigned long long)p->build.our_cr3);
	if (p->opts.dump) {
		for (unsigned i = 0; i < p->build.plan.n; i++) {
			const struct pt_plan_entry *e = &p->build.plan.entry[i];
			static const char *const kind[] = { "identity", "hhdm", "image" };

			report_note(p->rep, "plan-entry: va=0x%llx pa=0x%llx len=0x%llx kind=%s "
				    "flags=%s%s%s cache=%u max=%s type=%u",
				    (unsigned long long)e->va, (unsigned long long)e->pa,
				    (unsigned long long)e->len, kind[e->kind],
				    e->flags & PT_WRITE ? "w" : "-", e->flags & PT_EXEC ? "x" : "-",
				    e->flags & PT_USER ? "u" : "-", (unsigned)PT_CACHE_OF(e->flags),
				    e->max_size == PT_PAGE_1G ? "1G" : e->max_size == PT_PAGE_2M ? "2M" : "4K",
				    e->efi_type);
		}
		if (p->opts.dump == OPTS_DUMP_LEAVES)
			pt_visit(&p->build.space, 0, 0, dump_leaf, p->rep);
		ptlab_dump_tables(p);
	}
	/* after hand-off the firmware's tables are gone: audited before leaving */
	if (!p->build.boot_services_gone) {
		ptlab_audit_firmware(CHECK_RUN(p));
		ptlab_dump_firmware(p);
	}
	checks_run(p, PTLAB_PHASE_STATIC);
	sink_emit(p->rep);

	la57_check_ready(p);
	t = rdtsc();
	if (!p->aborted)
		checks_run(p, PTLAB_PHASE_LIVE);
	if (!p->aborted)
		checks_run(p, PTLAB_PHASE_CPU);
	if (!p->aborted)
		p->mode->smp(p);
	p->t.checks = rdtsc() - t;
	sink_emit(p->rep);
	if (p->opts.raise && !p->aborted)
		ptlab_live(p, raise_fault, "raise");
	if (!p->aborted)
		run_churn(p);
	if (p->opts.hold && !p->aborted) {
		report_note(p->rep, "hold: cr3=0x%llx (interrupts off, halted)",
			    (unsigned long long)p->build.our_cr3);
		sink_emit(p->rep);
		ptlab_live(p, hold_here, "hold");
	}
	if (p->mode->own_checks && !p->aborted)
		p->mode->own_checks(p);
	t = rdtsc();
	if (!p->aborted)
		checks_run(p, PTLAB_PHASE_TEARDOWN);
	pt_destroy(&p->build.space);
	p->t.teardown = rdtsc() - t;
}

/*
 * The run's paging levels (live/la57.c decides them; with --kernel and no
 * --levels, the first protocol of p->protos whose levels() answers for
 * the file, given CPUID's LA57 and @li, asks for them) and, when they are not the firmware's, the two pages of
 * loader code below 4 GiB of the trampoline that switches.  False when
 * the run cannot go on.
 */
static bool setup_levels(struct ptlab *p, EFI_LOADED_IMAGE *li)
{
	uint64_t pa = BELOW_4G - 1, before = 0;
	unsigned asked = 0;
	EFI_STATUS st;

	/* asked now, with boot services: the LA57 trampoline's page needs the answer */
	report_fact(p->rep, "memattr", "protocol=%s", memattr_present() ? "present" : "absent");
	p->cpu.fw_levels = p->cpu.caps.la57_enabled ? 5 : 4;
	/* no --levels: the kernel's protocol may ask for them */
	for (const struct kernel_proto *const *k = p->protos;
	     !p->opts.levels && p->opts.kernel[0] && k && *k && !asked; k++)
		if ((*k)->levels)
			asked = (*k)->levels(p->rep, p->opts.kernel, p->cpu.caps.la57, li);
	p->build.levels = la57_levels(p->rep, &p->opts, &p->cpu.caps, p->cpu.fw_levels, asked);
	if (p->build.levels == p->cpu.fw_levels)
		return true;
	if (owned_alloc(AllocateMaxAddress, EfiLoaderCode, LA57_PAGES * PT_PAGE_SIZE, &pa) !=
	    EFI_SUCCESS) {
		report_fail(p->rep, "la57: no two pages of loader code below 4 GiB for the "
			    "trampoline");
		return false;
	}
	p->live.la57_tramp = pa;
	la57_tramp_init(pa);
	/*
	 * The code page is entered on the firmware's tables: executable and
	 * read-only there from now on where the firmware offers the memory
	 * attribute protocol (its NX policy may cover loader code too); the
	 * data page (its stack, GDT and parameters) stays as it is.
	 */
	st = memattr_make_code(pa, PT_PAGE_SIZE, &before);
	if (st != EFI_SUCCESS) {
		report_fail(p->rep, "la57: the firmware would not make the trampoline's page 0x%llx "
			    "executable (memory attribute protocol): status 0x%llx",
			    (unsigned long long)pa, (unsigned long long)st);
		return false;
	}
	report_fact(p->rep, "la57", "switch=%u-to-%u trampoline=0x%llx stack_top=0x%llx "
		    "memattr=%s attrs_before=0x%llx",
		    p->cpu.fw_levels, p->build.levels, (unsigned long long)pa,
		    (unsigned long long)(pa + LA57_DATA + LA57_P_STACK_TOP),
		    memattr_present() ? "made-rx" : "absent", (unsigned long long)before);
	return true;
}

bool run_start(struct ptlab *p, uint64_t t0, EFI_LOADED_IMAGE *li,
	       const struct kernel_proto *const *protos)
{
	p->protos = protos;
	cpu_caps_read(&p->cpu.caps);
	p->cpu.fw_cr3 = read_cr3();
	p->build.boot_services_gone = p->mode->boot_services_gone;
	ptlab_env_init(p);
	calibrate_tsc(&p->t);
	p->t.deadline = opts_deadline(t0, p->opts.timeout, p->t.tsc_per_us);
	if (!p->cpu.caps.nx) {
		report_skip(p->rep, "ptlab", "the CPU has no NX bit; W^X cannot be enforced");
		return false;
	}
	/* the paging levels of the run (and the LA57 trampoline when it switches) */
	return setup_levels(p, li);
}

void run_from_final_map(struct ptlab *p, const struct rawmap *m, uint64_t t0,
			int (*frames)(struct ptlab *p))
{
	uint64_t t, avail;
	int err = normalize(&p->build.map, p->cpu.caps.maxphyaddr, m);

	if (err) {
		report_fail(p->rep, "plan: the final memory map: %s", pt_strerror(err));
		return;
	}
	if (p->opts.dump_memmap)
		run_dump_raw_map(p->rep, m);
	if (frames && frames(p) != PT_OK)
		return;
	t = rdtsc();
	err = plan(p);
	if (!err && p->mode->plan)
		err = p->mode->plan(p);
	p->t.plan = rdtsc() - t;
	if (err) {
		report_fail(p->rep, "plan: the plan of the final memory map: %s", pt_strerror(err));
		return;
	}
	avail = pt_frames_available(&p->build.frames);
	if (p->build.plan.min_total > avail) {
		report_fail(p->rep, "plan: needs %llu table frames, the frame allocator has %llu",
			    (unsigned long long)p->build.plan.min_total, (unsigned long long)avail);
		return;
	}
	run_build_and_check(p, m);
	run_report_frames_and_time(p, t0);
	if (p->mode->after_checks)
		p->mode->after_checks(p);
}

void run_release(struct ptlab_build *b, const struct ptlab_data *d, struct ptlab_live *live)
{
	if (b->pool_pa)
		owned_free(b->pool_pa, b->pool_frames * PT_PAGE_SIZE);
	owned_pool_free(b->frames.bitmap);
	owned_pool_free(b->plan.entry);
	owned_pool_free(b->map.range);
	if (d->alloc)
		owned_free(d->alloc, d->pages * PT_PAGE_SIZE);
	if (d->typed_alloc)
		owned_free(d->typed_alloc, TYPED_BYTES);
	if (live->la57_tramp) {
		la57_arm_fatal_leave(NULL);
		/* the attributes the firmware gave the page, before it has it back */
		memattr_restore(live->la57_tramp);
		owned_free(live->la57_tramp, LA57_PAGES * PT_PAGE_SIZE);
		live->la57_tramp = 0;
	}
}
