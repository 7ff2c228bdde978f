/* SPDX-License-Identifier: MIT */
/*
 * --mode=handoff: ptlab as a bootloader's paging stage.
 *
 * Before ExitBootServices (firmware alive): the framebuffer description,
 * the Memory Attributes Table, every buffer the rest needs (our own stack,
 * the final map, the frame bitmap for all of RAM), and a recovery hierarchy
 * built in our own LoaderData pages - the firmware's tables live in
 * boot-services memory that is about to become ours.  Nothing is printed
 * between the final GetMemoryMap and ExitBootServices.
 *
 * After it (no firmware): our GDT/TSS/IDT for good, the recovery CR3, our
 * own stack; then a frame allocator over all free RAM (conventional and
 * boot-services memory, above 1 MiB), the real hierarchy built on it, and
 * the full check suite.  The report goes to COM1 and the framebuffer.  The
 * end (end.c, without boot services) is ResetSystem (runtime services stay
 * identity mapped) or isa-debug-exit; there is nothing to return to.  What
 * is prepared before for after lives in the run's state (p->exit).
 *
 * mode_handoff at the end; the kernel mode (kernel.c) is this run with
 * hooks of its own (struct mode's before_exit, plan, after_checks).
 *
 * Calls down into the shared pipeline (run.c).  Firmware calls before the
 * hand-off: the configuration table (Memory Attributes Table),
 * GetMemoryMap and ExitBootServices here; through other modules
 * AllocatePages (owned.c), GOP (gop.c), MP services (bringup.c), the report
 * file (sink.c) and the runs variable (runs.c).  After it only the runtime
 * ResetSystem.
 */
#include "lib/efistatus.h"
#include "bringup/bringup.h"
#include "checks/elsewhere.h"
#include "checks/fwaudit.h"
#include "checks/inject.h"
#include "cpu/claim.h"
#include "core/dump.h"
#include "fw/firmware.h"
#include "fw/gop.h"
#include "core/end.h"
#include "core/handoff.h"
#include "live/la57.h"
#include "checks/registry.h"
#include "live/la57tramp.h"
#include "cpu/trap.h"
#include "fw/owned.h"
#include "core/run.h"
#include "fw/runs.h"
#include "fw/sink.h"
#include "report/fmt.h"
#include "smp/smp.h"

#include <ptlab/pte.h>

#define STACK_BYTES      (128u << 10)   /* the spec asks 128 KiB for firmware calls */
#define EBS_TRIES        5u
#define LOW_RESERVED     (UINT64_C(1) << 20)   /* real-mode leftovers stay untouched */
#define PREPARE_REPORTED 1                     /* prepare() failed and said why */

static bool is_free_type(uint32_t type)
{
	return type == PT_EFI_CONVENTIONAL || type == PT_EFI_BS_CODE || type == PT_EFI_BS_DATA;
}

/*
 * The Memory Attributes Table, copied into our memory and parsed into
 * @mat (the run's build.mat) for a CPU of @maxphyaddr bits; a table
 * refused is a fact on @rep and leaves mat->n 0.
 */
static void find_mat(struct report *rep, struct pt_mat *mat, unsigned maxphyaddr)
{
	const uint32_t *hdr = fw_config_table(&fw_guid_mat);
	uint64_t bytes;
	void *copy;
	int err;

	if (!hdr)
		return;
	/* bound the header's counts before they size anything */
	if (hdr[1] > PT_MEMMAP_MAX_DESC || hdr[2] < PT_EFI_DESC_MIN || hdr[2] > PT_EFI_DESC_MAX) {
		report_fact(rep, "mat", "refused=header entries=%u descriptor_size=%u",
			    hdr[1], hdr[2]);
		return;
	}
	bytes = PT_MAT_HEADER_SIZE + (uint64_t)hdr[1] * hdr[2];
	copy = owned_pages(bytes);
	mat->range = owned_pages((uint64_t)(hdr[1] + 1) * sizeof(*mat->range));
	if (!copy || !mat->range) {
		report_fact(rep, "mat", "refused=no-memory");
		mat->range = NULL;
		return;
	}
	mat->cap = hdr[1] + 1;
	CopyMem(copy, (void *)hdr, bytes);
	err = pt_mat_parse(copy, bytes, maxphyaddr, mat);
	if (err) {
		report_fact(rep, "mat", "refused=%s entry=%u", pt_mat_why_name(mat->why),
			    mat->bad_index);
		mat->n = 0;
	}
}

static bool is_loader_type(uint32_t type)
{
	return type == PT_EFI_LOADER_CODE || type == PT_EFI_LOADER_DATA;
}

/*
 * Bitmap words for every frame of the map now that may be free after
 * hand-off, with room for growth: the free types and the loader ranges
 * (free_ranges takes those too, and a boot menu that started us, such as
 * GRUB with its heap, leaves large ones).  @map: the normalized map now.
 */
static size_t bitmap_estimate(const struct pt_memmap *map)
{
	uint64_t frames = 0;

	for (unsigned i = 0; i < map->n; i++)
		if (is_free_type(map->range[i].type) || is_loader_type(map->range[i].type))
			frames += map->range[i].len / PT_PAGE_SIZE;
	return (size_t)((frames / 64 + 2 * PT_FRAMES_MAX_RANGES + 64) * sizeof(uint64_t));
}

/* ---- after ExitBootServices ----------------------------------------------------- */

/* Call fn(arg) on the stack ending at @top; fn must not return. */
static __attribute__((noreturn)) void run_on_stack(void (*fn)(void *), void *arg, uint64_t top)
{
	__asm__ volatile("mov %2, %%rsp\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "call *%0\n\t"
			 "ud2"
			 : : "r"(fn), "D"(arg), "r"(top) : "memory");
	__builtin_unreachable();
}

/* Remove [a, b) from the pieces out[0..*n); false when the cut needs more room than @cap. */
static bool cut_out(struct pt_range *out, unsigned *n, unsigned cap, uint64_t a, uint64_t b)
{
	for (unsigned i = 0; i < *n; i++) {
		uint64_t pa = out[i].va, pb = out[i].va + out[i].len;

		if (b <= pa || a >= pb)
			continue;
		if (a > pa && b < pb) {
			/* a hole in the middle: the piece becomes two */
			if (*n == cap)
				return false;
			for (unsigned k = *n; k > i + 1; k--)
				out[k] = out[k - 1];
			out[i + 1].va = b;
			out[i + 1].len = pb - b;
			out[i].len = a - pa;
			(*n)++;
			i++;
		} else if (a <= pa && b >= pb) {
			for (unsigned k = i; k + 1 < *n; k++)
				out[k] = out[k + 1];
			(*n)--;
			i--;
		} else if (a <= pa) {
			out[i].va = b;
			out[i].len = pb - b;
		} else {
			out[i].len = a - pa;
		}
	}
	return true;
}

/*
 * The ranges of @map of the free types (and the loader types when
 * @loader) above 1 MiB, neighbours merged, into out[0..cap); their number.
 */
static unsigned collect(const struct pt_memmap *map, struct pt_range *out, unsigned cap,
			bool loader)
{
	unsigned n = 0;

	for (unsigned i = 0; i < map->n && n < cap; i++) {
		const struct pt_mem_range *r = &map->range[i];
		uint64_t a = r->pa < LOW_RESERVED ? LOW_RESERVED : r->pa, b = r->pa + r->len;

		if ((!is_free_type(r->type) && !(loader && is_loader_type(r->type))) || a >= b)
			continue;
		if (n && out[n - 1].va + out[n - 1].len == a) {
			out[n - 1].len += b - a;
		} else {
			out[n].va = a;
			out[n].len = b - a;
			n++;
		}
	}
	return n;
}

/*
 * Free RAM after hand-off, above 1 MiB: conventional and boot-services
 * memory, and the loader ranges less what the app itself allocated (its
 * image, pool, buffers, stack).  When not every allocation was recorded, or
 * the cuts do not fit, the loader ranges stay out: *with_loader says which.
 * @b: the build (its final map and its image).
 */
static unsigned free_ranges(const struct ptlab_build *b, struct pt_range *out, unsigned cap,
			    uint64_t *bytes, bool *with_loader)
{
	const struct pt_range *own;
	bool ok;
	unsigned nown = owned_list(&own, &ok), n;

	n = collect(&b->map, out, cap, ok);
	if (ok)
		ok = cut_out(out, &n, cap, b->image.base, b->image.base + b->image.size);
	for (unsigned i = 0; i < nown && ok; i++)
		ok = cut_out(out, &n, cap, own[i].va, own[i].va + own[i].len);
	*with_loader = ok;
	if (!ok)
		n = collect(&b->map, out, cap, false);
	*bytes = 0;
	for (unsigned i = 0; i < n; i++)
		*bytes += out[i].len;
	return n;
}

/*
 * The frame allocator over all free RAM of the normalized final map (the
 * loader ranges less the app's own pages when they can be told apart),
 * with its facts: run_from_final_map()'s frames step.
 */
static int all_ram_frames(struct ptlab *p)
{
	struct ptlab_exit *x = &p->exit;
	struct pt_range *ranges = x->free;
	const struct pt_range *own;
	uint64_t bytes, loader = 0, mine = 0;
	bool with_loader, complete;
	unsigned n, nown;
	int err;

	n = free_ranges(&p->build, ranges, PT_FRAMES_MAX_RANGES, &bytes, &with_loader);
	err = pt_frames_init(&p->build.frames, ranges, n, x->ram_bitmap, x->ram_bitmap_bytes,
			     p->build.env.phys_to_virt, p);
	if (err) {
		report_fail(p->rep, "handoff: frame allocator over all RAM: %s (%u ranges)",
			    pt_strerror(err), n);
		return err;
	}
	/* a fact: the ram sweep and the churn on these frames are the checks */
	report_fact(p->rep, "handoff-ram", "the frame allocator owns all free RAM (%u ranges, "
		    "%llu MiB%s)", n, (unsigned long long)(bytes >> 20),
		    with_loader ? ", loader ranges less the app's own pages" : ", loader ranges kept out");
	nown = owned_list(&own, &complete);
	for (unsigned i = 0; i < p->build.map.n; i++)
		if (is_loader_type(p->build.map.range[i].type))
			loader += p->build.map.range[i].len;
	for (unsigned i = 0; i < nown; i++)
		mine += own[i].len;
	report_fact(p->rep, "handoff-frames", "ranges=%u bytes=%llu loader_bytes=%llu "
		    "app_allocations=%u app_bytes=%llu image_bytes=%llu all_recorded=%d",
		    n, (unsigned long long)bytes, (unsigned long long)loader, nown,
		    (unsigned long long)mine, (unsigned long long)p->build.image.size, complete);
	return PT_OK;
}

/* After ExitBootServices, on our stack: the pipeline on the map the firmware was left with. */
static int phase_b_body(void *arg)
{
	struct ptlab *p = arg;

	run_from_final_map(p, &p->exit.final_map, rdtsc(), all_ram_frames);
	return 0;
}

/*
 * Runtime services run in the firmware's paging mode: after a 5-level run,
 * back to 4 levels with the recovery hierarchy's identity map (its PML5
 * slot 0 is a complete 4-level root for everything below 128 TiB).  Else
 * the recovery CR3.  Reported, so it comes before the closing line.
 */
static void back_home(struct ptlab *p)
{
	uint64_t pml4;

	if (p->cpu.fw_levels != 4 || !la57_active()) {
		write_cr3(p->live.home_cr3);
		return;
	}
	write_cr3(p->live.home_cr3);
	pml4 = la57_lower_pml4(p->live.home_cr3);
	if (!pml4) {
		report_fail(p->rep, "handoff: the recovery hierarchy has no PML5 slot 0 to return "
			    "to 4-level paging with");
		return;
	}
	if (la57_switch(p, 4, pml4, "handoff end") == 0)
		report_ok(p->rep, "handoff: back to 4-level paging (CR4=0x%llx) with the recovery "
			  "identity map 0x%llx for the firmware's runtime services",
			  (unsigned long long)read_cr4(), (unsigned long long)pml4);
}

void handoff_emit_final(struct report *rep, struct ptlab_fb *fb)
{
	size_t cursor = 0;
	const char *line;
	size_t len;

	/* one CPU closes the report: another (an AP's exception) has it already */
	if (!claim_verdict())
		claim_yield();
	sink_close(rep);
	if (fb->ok) {
		/* the whole report on the screen, as the host renders it */
		char buf[256];

		sink_framebuffer(NULL);
		fbcon_clear(&fb->con);
		while (report_next_line(rep, &cursor, &line, &len)) {
			if (len >= sizeof(buf))
				len = sizeof(buf) - 1;
			CopyMem(buf, (void *)line, len);
			buf[len] = 0;
			fbcon_write_line(&fb->con, buf);
		}
	}
}

/* The end without a kernel: home, the report closed, the --end action; no return. */
static __attribute__((noreturn)) void finish(struct ptlab *p)
{
	back_home(p);
	if ((p->opts.end == OPTS_END_SHUTDOWN || p->opts.end == OPTS_END_REBOOT) &&
	    !firmware_runtime_reset_supported())
		report_note(p->rep, "handoff: EFI_RT_PROPERTIES_TABLE says ResetSystem is not "
			    "supported after ExitBootServices (0x%x): the CPU halts instead of --end=%s",
			    fw_info.rt_supported, p->opts.end == OPTS_END_REBOOT ? "reboot" : "shutdown");
	handoff_emit_final(p->rep, &p->fb);
	end_run(p, false);
	cpu_halt();   /* end_run does not return without boot services */
}

/*
 * An exception no guard caught (outside the check phases): the recovery CR3
 * is loaded again.  Unless another CPU holds the verdict (then this one
 * halts), say what happened, which CPU took it, close the report on COM1
 * and the framebuffer, and take the --end action.
 */
static void fatal_report(void *ctx, const struct trap_fault *f)
{
	struct ptlab *p = ctx;
	char who[64], cpu[48];

	if (!claim_verdict())
		claim_yield();
	p->aborted = true;
	smp_cpu_label(p->smp, cpu, sizeof(cpu));
	fmt_snprintf(who, sizeof(who), "handoff %s, the BSP", cpu);
	report_exception(p->rep, &(struct report_exc){ .who = who, .where = " outside the checks",
			 .rsp = true, .key = check_handoff_bsp_exception.fault.name }, f);
	handoff_emit_final(p->rep, &p->fb);
	end_run(p, false);
}

/*
 * An AP's exception while ptlab started or parked it (smp/aptrap.c, on the
 * AP, the verdict its own and the BSP stopped): said with the CPU that took
 * it, the report closed, the --end action.
 */
static void ap_fatal(void *ctx, const char *who, const struct trap_fault *f)
{
	struct ptlab *p = ctx;
	char w[64];

	p->aborted = true;
	fmt_snprintf(w, sizeof(w), "handoff %s", who);
	report_exception(p->rep, &(struct report_exc){ .who = w, .where = " after ExitBootServices",
			 .rsp = true, .then = "the BSP stopped, this AP closes the report",
			 .key = check_handoff_ap_exception.fault.name }, f);
	handoff_emit_final(p->rep, &p->fb);
	end_run(p, false);
}

/* Runs on our own stack with our GDT/IDT and the recovery CR3 loaded. */
static __attribute__((noreturn)) void phase_b(void *arg)
{
	struct ptlab *p = arg;
	struct trap_fault f;
	char who[64], cpu[48];

	if (trap_guard(phase_b_body, p, &f) == TRAP_GUARD_FAULTED) {
		write_cr3(p->live.home_cr3);
		p->live.on = false;
		if (!claim_verdict())
			claim_yield();	/* an AP's exception: it writes the verdict */
		p->aborted = true;
		smp_cpu_label(p->smp, cpu, sizeof(cpu));
		fmt_snprintf(who, sizeof(who), "handoff %s, the BSP", cpu);
		report_exception(p->rep, &(struct report_exc){ .who = who, .rsp = true }, &f);
	}
	finish(p);
}

/* ---- before ExitBootServices ----------------------------------------------------- */

/*
 * run_prepare()'s step between the normalized map and the plan: what the
 * hand-off needs after ExitBootServices (the final map's buffer, sized as
 * the run's buffers are, the stack, the RAM bitmap), the framebuffer, the
 * mode's own preparation (a kernel's load), the firmware's tables audited.
 */
static int before_plan(struct ptlab *p, const struct mode_boot *b, const struct rawmap *m,
		       unsigned map_cap)
{
	struct ptlab_exit *x = &p->exit;

	x->final_map.cap = m->cap + RUN_MAP_SLACK_DESC * m->desc_size;
	x->final_map.buf = owned_pages(x->final_map.cap);
	x->stack_top = (uint64_t)(uintptr_t)owned_pages(STACK_BYTES);
	if (!x->final_map.buf || !x->stack_top)
		return PT_ENOMEM;
	x->stack_top += STACK_BYTES;
	p->fb.extra = p->fb.ok && !pt_memmap_overlaps(&p->build.map, p->fb.info.base_pa, p->fb.len);
	if (p->mode->before_exit && p->mode->before_exit(p, b, map_cap) != PT_OK)
		return PREPARE_REPORTED;
	x->ram_bitmap_bytes = bitmap_estimate(&p->build.map);
	x->ram_bitmap = owned_pages(x->ram_bitmap_bytes);
	if (!x->ram_bitmap)
		return PT_ENOMEM;
	ptlab_audit_firmware(CHECK_RUN(p));
	ptlab_dump_firmware(p);
	return PT_OK;
}

static int prepare(struct ptlab *p, const struct mode_boot *b)
{
	struct ptlab_exit *x = &p->exit;
	struct rawmap m = { 0 };
	const char *failed = NULL;
	int err;

	if (gop_query(ST, &p->fb.info) == 0) {
		p->fb.ok = true;
		p->fb.len = pt_align_up(p->fb.info.size, PT_PAGE_SIZE);
	}
	find_mat(p->rep, &p->build.mat, p->cpu.caps.maxphyaddr);
	err = run_prepare(p, b, &m, before_plan, &failed);
	if (err == PREPARE_REPORTED)
		return err;
	if (err) {
		report_fail(p->rep, "handoff: preparing for ExitBootServices: %s: %s", failed,
			    pt_strerror(err));
		return PREPARE_REPORTED;
	}
	/* the recovery hierarchy, in our pool: everything identity mapped, as after hand-off */
	err = pt_create(&x->recovery, &p->build.env, p->build.levels);
	if (!err)
		err = pt_plan_apply(&x->recovery, &p->build.plan);
	if (err)
		return err;
	p->live.home_cr3 = x->recovery.root_pa;
	smp_handoff_prepare(p, &x->recovery);
	report_fact(p->rep, "handoff", "recovery_cr3=0x%llx recovery_levels=%u recovery_tables=%llu "
		    "mat_entries=%u fb=%ux%u stride=%u format=%u fb_pa=0x%llx fb_outside_map=%d",
		    (unsigned long long)p->live.home_cr3, x->recovery.levels,
		    (unsigned long long)pt_table_count(&x->recovery),
		    p->build.mat.n, p->fb.info.width, p->fb.info.height, p->fb.info.stride,
		    (unsigned)p->fb.info.format,
		    (unsigned long long)p->fb.info.base_pa, p->fb.extra);
	return PT_OK;
}

void handoff_run(struct ptlab *p, const struct mode_boot *b)
{
	struct rawmap *fm = &p->exit.final_map;
	EFI_STATUS st = EFI_SUCCESS;
	unsigned tries;
	int err;

	if (p->cpu.caps.pat)
		pt_pat_ptlab(&p->build.env.pat);
	err = prepare(p, b);
	if (err == PREPARE_REPORTED)
		return;   /* the mode said why it keeps boot services */
	if (err) {
		report_fail(p->rep, "handoff: preparing for ExitBootServices: %s", pt_strerror(err));
		return;
	}
	report_note(p->rep, "handoff: leaving boot services");
	/*
	 * The last line the report file gets: without boot services there is
	 * no file system, so the file is closed now, with the report so far.
	 */
	report_note(p->rep, "report-file: ends here, before ExitBootServices; the rest of this "
		    "run's report and its verdict go to COM1 and the screen only");
	sink_emit(p->rep);
	sink_file_close();
	runs_end("handed off (ExitBootServices): the verdict went to COM1 and the screen only");

	/* from here to ExitBootServices: no output, no allocation */
	for (tries = 1; tries <= EBS_TRIES; tries++) {
		fm->size = fm->cap;
		st = uefi_call_wrapper(BS->GetMemoryMap, 5, &fm->size, fm->buf, &fm->key,
				       &fm->desc_size, &fm->version);
		if (st != EFI_SUCCESS)
			break;
		st = uefi_call_wrapper(BS->ExitBootServices, 2, b->image, fm->key);
		if (st != EFI_INVALID_PARAMETER)
			break;
	}
	if (st != EFI_SUCCESS) {
		/* still in boot services: the report file goes on */
		sink_file_open(runs_file_name(runs_number()), true);
		report_fail(p->rep, "handoff: ExitBootServices failed after %u tries: status 0x%llx "
			    "(%s)", tries, (unsigned long long)st, efi_status_name(st));
		return;
	}

	/* no boot service from here on */
	sink_firmware_gone();
	trap_install();
	write_efer(read_efer() | EFER_NXE);
	write_cr0(read_cr0() | CR0_WP);
	if (p->cpu.caps.pat) {
		cpu_switch_pat(pt_pat_msr(&p->build.env.pat));
	}
	if (la57_active() != (p->build.levels == 5)) {
		/* the recovery hierarchy has the other number of levels */
		if (la57_switch(p, p->build.levels, p->live.home_cr3, "handoff")) {
			/* nothing changed: the firmware's tables are still intact and loaded */
			p->aborted = true;
			p->live.home_cr3 = read_cr3();
			finish(p);
		}
		report_ok(p->rep, "handoff: switched to %u-level paging (CR4=0x%llx) with the "
			  "%u-level recovery hierarchy 0x%llx", p->build.levels,
			  (unsigned long long)read_cr4(), p->build.levels, (unsigned long long)p->live.home_cr3);
	} else {
		write_cr3(p->live.home_cr3);
	}
	/* the APs leave the firmware's parking loop before its memory is reused */
	smp_handoff_init_aps(p->smp);
	trap_set_fatal_home(p->live.home_cr3, fatal_report, p);
	smp_park_prepare(p->smp, ap_fatal, p);
	/* --inject=bsp-fatal: a read of a page no table maps, outside every guard */
	if (inject_on(&p->opts, &check_handoff_bsp_exception))
		(void)*(volatile uint64_t *)(uintptr_t)PTLAB_UNMAPPED_VA;
	if (p->fb.ok && fbcon_init_info(&p->fb.con, &p->fb.info,
					(void *)(uintptr_t)p->fb.info.base_pa) == 0)
		sink_framebuffer(&p->fb.con);
	else
		p->fb.ok = false;
	report_fact(p->rep, "handoff-exit", "ExitBootServices on try %u; our GDT, IDT, recovery CR3 "
		    "and stack loaded", tries);
	run_on_stack(phase_b, p, p->exit.stack_top);
}

/* ---- the mode ---------------------------------------------------------------------- */

/* --end defaults to shutdown (nothing to return to), a longer churn: opts/ says. */
void handoff_option_defaults(struct opts *o)
{
	opts_handoff_defaults(o);
}

/* Our GDT and IDT stay installed for good after ExitBootServices: nothing to enter. */
int handoff_live_enter(struct ptlab *p, const char *what)
{
	(void)p;
	(void)what;
	return 0;
}

/* The recovery hierarchy is home between live phases, whatever happened in one. */
void handoff_live_leave(struct ptlab *p)
{
	write_cr3(p->live.home_cr3);
}

/* All of RAM is ours: a written and read frame in every usable range. */
void handoff_ram_sweep(struct ptlab *p)
{
	checks_run(p, PTLAB_PHASE_SWEEP);
}

const struct mode mode_handoff = {
	HANDOFF_MODE_OPS,
};
