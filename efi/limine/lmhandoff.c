/* SPDX-License-Identifier: MIT */
/*
 * The Limine boot protocol below the kernel pipeline (core/kernel.c;
 * --kernel with an ELF64 x86-64 file, --module, --kaslr, --cmdline as the
 * kernel file's command line).  The protocol's data, the ELF loading, the
 * request scan, the memory map and the responses are this folder's
 * firmware-free files (limine.h, lmelf.c, lmreq.c, lmmap.c, lmresp.c,
 * lmplan.c); this file plans, checks and jumps.
 *
 * Before ExitBootServices (lmload.c): the file judged and its load
 * block (every PT_LOAD segment, physically contiguous) placed in pages of
 * ours with the slide applied (--kaslr: RDSEED, RDRAND or
 * EFI_RNG_PROTOCOL), the requests scanned, the paging mode judged against
 * the run's levels, the modules read, and every page the hand-off needs
 * taken: the responses' buffer, the stacks, the GDT, the APs' park blocks.
 * The firmware's answers (RSDP, SMBIOS, system table, time of boot, the
 * framebuffer, the CPUs and I/O APICs of the MADT) are taken now. The
 * run's PAT becomes the protocol's layout, so the whole run's tables
 * encode their memory types for it.
 *
 * After the final plan (lmplan.c): ptlab's image alias moves down to
 * LM_IMAGE_ALIAS_VA (the kernel owns PT_IMAGE_BASE and above), the
 * kernel's segments are added at their virtual addresses with their own
 * permissions, and the first 4 GiB are completed in the HHDM (and in the
 * identity map for base revision 0) with uncached, no-execute entries
 * over what is not RAM.  W^X stays strict: a writable and executable
 * segment is refused, the HHDM and identity map are no-execute.
 *
 * After the checks and the rebuild: the Limine memory map from the final
 * map (the tables' frames bootloader-reclaimable), the responses, the
 * APs parked on the handed-over tables, the legacy PIC and the I/O APICs
 * masked, each checked; then the jump (lmhandoff_asm.S).
 *
 * Firmware calls (before ExitBootServices only): those of lmload.c,
 * and the file protocols for limine_levels().
 */
#include <efi.h>
#include <efilib.h>

#include "acpi/acpi.h"
#include "checks/elsewhere.h"
#include "limine/lmchecks.h"
#include "core/end.h"
#include "core/handoff.h"
#include "core/kernel.h"
#include "limine/lmhandoff.h"
#include "limine/lmload.h"
#include "limine/lmpark.h"
#include "checks/checkkit.h"
#include "checks/inject.h"
#include "cpu/trap.h"
#include "fw/firmware.h"
#include "fw/fsfile.h"
#include "fw/owned.h"
#include "fw/verify.h"
#include "lib/le.h"
#include "limine/limine.h"
#include "limine/lmelf.h"
#include "limine/lmmap.h"
#include "limine/lmplan.h"
#include "limine/lmreq.h"
#include "limine/lmresp.h"
#include "report/report.h"
#include "smp/smp.h"
#include "live/live.h"

#include <ptlab/pte.h>

#define ELF_MAGIC       0x464c457fu           /* "\x7fELF" */

/* lmhandoff_asm.S */
void limine_ap_park(void);
void limine_ap_loop(void);

/* ---- before the run: the paging levels the kernel asks for ------------------------------ */

/* The largest file and load block the early look reads and lays out (as kernel.c reads). */
#define PEEK_MAX (UINT64_C(256) << 20)

unsigned limine_levels(struct report *rep, const char *path, bool la57, EFI_LOADED_IMAGE *li)
{
	struct lm_requests req;
	struct lm_elf elf;
	uint8_t *block = NULL;
	char *buf = NULL, why[200];
	uint64_t mode = 0;
	unsigned levels = 0;
	UINTN len = 0;

	/* silent on failure: the kernel's load says why, with the whole pipeline's words */
	if (fsfile_read(li->DeviceHandle, path, PEEK_MAX, &buf, &len, why, sizeof(why)) !=
	    EFI_SUCCESS)
		return 0;
	if (len < 4 || (uint8_t)buf[0] != 0x7f || buf[1] != 'E' || buf[2] != 'L' || buf[3] != 'F' ||
	    lm_elf_parse((const uint8_t *)buf, len, 0, 0, &elf, why, sizeof(why)) ||
	    elf.span > PEEK_MAX)
		goto out;
	block = owned_pool(elf.span);
	if (!block ||
	    lm_elf_load((const uint8_t *)buf, len, &elf, block, elf.span, why, sizeof(why)) ||
	    lm_scan(block, elf.span, &req, why, sizeof(why)) ||
	    lm_paging_choose(&req, la57, &mode, why, sizeof(why)))
		goto out;
	levels = mode == LM_PAGING_5LVL ? 5 : 4;
	report_fact(rep, "limine-levels", "kernel=%s request=%s la57=%u levels=%u (no --levels: "
		    "the kernel's paging mode request, as the CPU allows)", path,
		    lm_has(&req, LM_REQ_PAGING_MODE) ? "yes" : "none", la57 ? 1u : 0u,
		    levels);
out:
	owned_pool_free(block);
	owned_pool_free(buf);
	return levels;
}

/* ---- after ExitBootServices: the plan ------------------------------------------------ */

static const char rwx_why[] = "the Limine protocol maps the HHDM (identity map) RWX";

/*
 * The RWX ranges lm_plan_add() made, in the run's W^X exemption list @wx:
 * the framebuffer's (WC) before the window's (WB) that holds it, as the
 * first entry holding a page names it.  @base: the window's va of pa 0.
 * PT_OK, or ptlab_wx_add_cache()'s error.
 */
static int exempt_window(struct ptlab_wx *wx, uint64_t base, uint64_t from, uint64_t end,
			 uint64_t fb_pa, uint64_t fb_len)
{
	int err = PT_OK;

	if (fb_len)
		err = ptlab_wx_add_cache(wx, base + fb_pa, fb_pa, fb_len,
					 PT_CACHE(PT_CACHE_WC), rwx_why);
	if (!err && end > from)
		err = ptlab_wx_add_cache(wx, base + from, from, end - from,
					 PT_CACHE(PT_CACHE_WB), rwx_why);
	return err;
}

/* The framebuffer @fb's pages (page-rounded), 0/0 when there is none. */
static void fb_pages(const struct ptlab_fb *fb, uint64_t *pa, uint64_t *len)
{
	*pa = fb->ok ? fb->info.base_pa & ~(PT_PAGE_SIZE - 1) : 0;
	*len = fb->ok ? pt_align_up(fb->info.base_pa + fb->len, PT_PAGE_SIZE) - *pa : 0;
}

/*
 * After the run's plan (run.c): the alias moved, the segments, the first 4 GiB
 * completed, the HHDM RWX WB
 * with the framebuffer WC (lmplan.c); those ranges recorded as the run's
 * W^X exemptions.  Returns PT_OK, or the error after a failure line.
 */
static int limine_plan(struct ptlab *p)
{
	struct lim *l = lim_of(&p->kern);
	uint64_t fb_pa, fb_len;
	struct lm_plan_in in = { .elf = &l->elf, .block_pa = l->block_pa,
				 .identity_low = lm_identity_mapped(l->req.base_rev),
				 .levels = p->build.levels, .has_1g = p->cpu.caps.pdpe1gb };
	int err;

	fb_pages(&p->fb, &fb_pa, &fb_len);
	in.fb_pa = fb_pa;
	in.fb_len = fb_len;
	err = lm_plan_add(&p->build.plan, &in);

	if (err) {
		report_fail(p->rep, "limine: the plan's entries: %s", pt_strerror(err));
		return err;
	}
	p->build.image_va = LM_IMAGE_ALIAS_VA;
	err = exempt_window(&p->wx, l->hhdm, 0, lm_plan_end(&p->build.plan, PT_PLAN_HHDM),
			    fb_pa, fb_len);
	if (err)
		report_fail(p->rep, "limine: the HHDM's W^X exemptions (%u recorded): %s", p->wx.n,
			    pt_strerror(err));
	return err;
}

/* ---- after the checks: the data, the checks on the tables to hand over ------------------- */

/* The page attributes a segment's ELF flags give. */
static unsigned seg_flags(uint32_t f)
{
	return (f & LM_SEG_W ? PT_WRITE : 0) | (f & LM_SEG_X ? PT_EXEC : 0);
}

/*
 * The frames the tables to hand over (and nothing else of ours) use, the
 * ones the pool @f has taken, as runs in l->reclaim: bootloader-reclaimable.
 * False when they make more than RECLAIM_MAX runs.
 */
static bool collect_tables(const struct pt_frames *f, struct lim *l)
{
	l->nreclaim = 0;
	for (unsigned r = 0; r < f->nranges; r++) {
		const struct pt_frames_range *x = &f->range[r];

		for (uint64_t k = 0; k < x->frames; k++) {
			uint64_t bit = x->bit0 + k, pa = x->pa + k * PT_PAGE_SIZE;
			struct lm_range *last = l->nreclaim ? &l->reclaim[l->nreclaim - 1] : NULL;

			if (!(f->bitmap[bit / 64] >> (bit % 64) & 1))
				continue;
			if (last && last->pa + last->len == pa) {
				last->len += PT_PAGE_SIZE;
				continue;
			}
			if (l->nreclaim == RECLAIM_MAX)
				return false;
			l->reclaim[l->nreclaim++] = (struct lm_range){ pa, PT_PAGE_SIZE };
		}
	}
	return true;
}

/*
 * The Limine memory map from @b's final map and frame pool, with the
 * framebuffer @fb; false after a failure line on @rep.
 */
static bool build_map(struct report *rep, const struct ptlab_build *b,
		      const struct ptlab_fb *fb, struct lim *l)
{
	struct lm_range kern[OPTS_MODULES_MAX + 2], fbr;
	struct lm_map_in in = { .fw = &b->map };
	unsigned nk = 0;
	char why[160];

	if (!collect_tables(&b->frames, l)) {
		report_fail(rep, "limine: the tables' frames make more than %u runs", RECLAIM_MAX);
		return false;
	}
	kern[nk++] = (struct lm_range){ l->block_pa, l->elf.span };
	kern[nk++] = (struct lm_range){ l->kfile_pa, pt_align_up(l->kfile_len, PT_PAGE_SIZE) };
	for (unsigned i = 0; i < l->nmod; i++)
		kern[nk++] = (struct lm_range){ l->mod[i].pa, pt_align_up(l->mod[i].size, PT_PAGE_SIZE) };
	in.reclaim = l->reclaim;
	in.nreclaim = l->nreclaim;
	in.kernel = kern;
	in.nkernel = nk;
	if (l->nfb) {
		fbr = (struct lm_range){ fb->info.base_pa, fb->len };
		in.fb = &fbr;
		in.nfb = 1;
	}
	if (lm_map_build(&in, (struct lm_memmap_entry *)(uintptr_t)l->map_pa, l->map_cap, &l->nmap,
			 why, sizeof(why))) {
		report_fail(rep, "limine: the memory map: %s", why);
		return false;
	}
	return true;
}

/*
 * The responses written into their buffer, for the final map @fm and the
 * options @o (the command line); false after a failure line on @rep.
 */
static bool respond(struct report *rep, const struct opts *o, const struct rawmap *fm,
		    struct lim *l)
{
	struct lm_machine m;
	char why[160];

	lim_describe(o, fm, l, &m, l->nmap, fm->size, fm->desc_size, fm->version);
	/* resp_len 0: nothing answered, no buffer (resp_pa 0), only the base revision tag */
	if (lm_respond(&m, &l->req, (uint8_t *)(uintptr_t)l->block_pa,
		       (uint8_t *)(uintptr_t)l->resp_pa, l->resp_pa,
		       pt_align_up(l->resp_len, PT_PAGE_SIZE), &l->answer, why, sizeof(why))) {
		report_fail(rep, "limine: the responses: %s", why);
		return false;
	}
	return true;
}

/* The response of request @k as built, 0 when it was not answered. */
static uint64_t resp_at(const struct lim *l, unsigned k)
{
	return l->answer.answered & (1u << k) ? l->resp_pa + l->answer.resp_off[k] : 0;
}

/*
 * The HHDM and paging mode responses as built, read from their buffer,
 * against the layout the protocol and the reference loader fix for the
 * tables' paging mode (lm_layout_check), with the plan they are built
 * from; reported as check_limine_layout, its fault (the other mode's
 * offset written into the HHDM response) planted first.
 */
static void check_layout(struct report *rep, const struct opts *o, const struct ptlab_build *b,
			 unsigned maxphyaddr, const struct lim *l)
{
	uint64_t hp = resp_at(l, LM_REQ_HHDM), mp = resp_at(l, LM_REQ_PAGING_MODE);
	volatile struct lm_resp_hhdm *h = (volatile struct lm_resp_hhdm *)(uintptr_t)hp;
	struct lm_layout_in in = { .levels = b->levels, .maxphyaddr = maxphyaddr,
				   .hhdm_offset = l->hhdm, .have_paging_mode = mp != 0,
				   .kernel_va = l->elf.va, .plan = &b->plan };
	struct lm_layout_out out;
	const char *why;

	if (hp && inject_on(o, &check_limine_layout)) {
		h->offset = lm_hhdm_offset(b->levels == 5 ? 4 : 5);
		report_note(rep, "inject: limine-layout planted (the HHDM response holds the %u-level "
			    "offset)", b->levels == 5 ? 4u : 5u);
	}
	if (hp)
		in.hhdm_offset = h->offset;
	if (mp)
		in.paging_mode = ((volatile struct lm_resp_paging_mode *)(uintptr_t)mp)->mode;
	why = lm_layout_check(&in, &out);
	if (why)
		check_report(rep, &check_limine_layout, false, "limine: the responses against the "
			     "%u-level layout: %s (HHDM offset 0x%llx)", b->levels, why,
			     (unsigned long long)in.hhdm_offset);
	else
		check_report(rep, &check_limine_layout, true, "limine: the %u-level layout: HHDM at "
			     "0x%llx (%s), its RAM up to 0x%llx, below the kernel at 0x%llx; "
			     "2^%u physical addresses %s", b->levels,
			     (unsigned long long)in.hhdm_offset, hp ? "the response's" : "unasked",
			     (unsigned long long)out.hhdm_end, (unsigned long long)l->elf.va,
			     maxphyaddr, out.all_phys ? "fit below the kernel's window" :
			     "do not all fit in the 4-level higher half");
}

/*
 * Every page of every segment in @s, the tables to hand over: at its va,
 * to its place in the load block, with its segment's W and X; reported on
 * @rep as check_limine_segments (its fault planted first when @o injects it).
 */
static void check_segments(struct report *rep, const struct opts *o, struct pt_space *s,
			   struct lim *l)
{
	uint64_t pages = 0, bad = 0, first = 0;

	if (inject_on(o, &check_limine_segments)) {
		const struct lm_seg *sg = &l->elf.seg[0];
		uint64_t va = pt_align_down(sg->va + sg->memsz - 1, PT_PAGE_SIZE);

		/* W taken from a writable segment, else X flipped: never W and X at once */
		unsigned flip = sg->flags & LM_SEG_W ? PT_WRITE : PT_EXEC;

		if (pt_protect(s, va, PT_PAGE_SIZE, seg_flags(sg->flags) ^ flip,
			       &(struct pt_flushlist){ 0 }) == PT_OK)
			report_note(rep, "inject: limine-segment planted (page 0x%llx's %s flipped)",
				    (unsigned long long)va, flip == PT_WRITE ? "W" : "X");
	}
	for (unsigned i = 0; i < l->elf.nseg; i++) {
		const struct lm_seg *sg = &l->elf.seg[i];

		for (uint64_t va = pt_align_down(sg->va, PT_PAGE_SIZE); va < sg->va + sg->memsz;
		     va += PT_PAGE_SIZE, pages++) {
			struct pt_leaf lf;

			if (pt_translate(s, va, &lf) != PT_OK ||
			    lf.pa != l->block_pa + (va - l->elf.va) ||
			    (lf.flags & (PT_WRITE | PT_EXEC | PT_USER)) != seg_flags(sg->flags)) {
				if (!bad++)
					first = va;
			}
		}
	}
	if (!bad)
		check_report(rep, &check_limine_segments, true, "limine: the kernel's %u segments "
			     "mapped at their addresses with their permissions, %llu pages into its "
			     "block at 0x%llx", l->elf.nseg, (unsigned long long)pages,
			     (unsigned long long)l->block_pa);
	else
		check_report(rep, &check_limine_segments, false, "limine: %llu of %llu pages of the "
			     "kernel's segments are not mapped as the file says; first va=0x%llx",
			     (unsigned long long)bad, (unsigned long long)pages,
			     (unsigned long long)first);
}

/*
 * Live, on the tables to hand over: each answered request's response
 * pointer read through the kernel's own va, the response's first word
 * through that HHDM pointer, compared with the buffer read through the
 * identity map; the entry's bytes read at the entry's va.
 */
static int cpu_read(struct ptlab *p)
{
	struct lim *l = lim_of(&p->kern);
	unsigned answered = 0, same = 0, bad_kind = LM_REQ_COUNT;

	for (unsigned k = 0; k < LM_REQ_COUNT; k++) {
		uint64_t at, ptr, want;

		if (!(l->answer.answered & (1u << k)))
			continue;
		answered++;
		at = l->elf.va + l->req.req[k].off + LM_REQ_RESPONSE;
		ptr = *(volatile uint64_t *)(uintptr_t)at;
		want = hhdm(l, l->resp_pa + l->answer.resp_off[k]);
		if (ptr == want && *(volatile uint64_t *)(uintptr_t)ptr ==
		    *(volatile uint64_t *)(uintptr_t)(l->resp_pa + l->answer.resp_off[k]))
			same++;
		else if (bad_kind == LM_REQ_COUNT)
			bad_kind = k;
	}
	if (same != answered)
		check_report(p->rep, &check_limine_read, false, "limine: %u of %u responses read "
			     "back through the kernel's requests and the HHDM; first wrong: %s", same,
			     answered, lm_req_name(bad_kind));
	else {
		const volatile uint8_t *e = (const volatile uint8_t *)(uintptr_t)l->entry;
		unsigned ok = 0;

		for (unsigned i = 0; i < l->entry_len; i++)
			ok += e[i] == l->entry_bytes[i];
		if (ok == l->entry_len)
			check_report(p->rep, &check_limine_read, true, "limine: on the tables handed "
				     "over the CPU reads %u responses through the kernel's requests and "
				     "the HHDM, and the entry 0x%llx as in the file", answered,
				     (unsigned long long)l->entry);
		else
			check_report(p->rep, &check_limine_read, false, "limine: the kernel's entry "
				     "0x%llx reads %u of %u bytes as in the file",
				     (unsigned long long)l->entry, ok, l->entry_len);
	}
	return 0;
}

/* The legacy PIC's and every I/O APIC's fixed and lowest-priority lines masked, read back. */
static int mask_irqs(struct ptlab *p)
{
	struct lim *l = lim_of(&p->kern);
	unsigned lines = 0, masked = 0;
	/* --inject=limine-unmasked: the first line the loop would mask unmasked instead */
	bool skip = inject_on(&p->opts, &check_limine_masked);

	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
	for (unsigned i = 0; i < l->nioapic; i++) {
		volatile uint32_t *sel = (volatile uint32_t *)(uintptr_t)hhdm(l, l->ioapic[i]);
		volatile uint32_t *win = sel + 4;
		unsigned n;

		*sel = 1;
		n = ((*win >> 16) & 0xff) + 1;
		for (unsigned k = 0; k < n; k++) {
			uint32_t lo;

			*sel = IOAPIC_REDTBL + 2 * k;
			lo = *win;
			if (((lo >> 8) & 7) > 1)
				continue;   /* SMI, NMI, INIT, ExtINT: the protocol leaves them */
			lines++;
			if (skip) {
				/* unmasked, so the read-back sees the fault (IF stays clear) */
				skip = false;
				*win = lo & ~IOAPIC_MASK;
				report_note(p->rep, "inject: limine-unmasked planted (I/O APIC %u line %u "
					    "unmasked)", i, k);
			} else {
				*win = lo | IOAPIC_MASK;
			}
			masked += (*win & IOAPIC_MASK) != 0;
		}
	}
	if (inb(PIC1_DATA) == 0xff && inb(PIC2_DATA) == 0xff && masked == lines)
		check_report(p->rep, &check_limine_masked, true, "limine: the legacy PIC and %u I/O "
			     "APIC line(s) of %u I/O APIC(s) masked, read back", lines, l->nioapic);
	else
		check_report(p->rep, &check_limine_masked, false, "limine: interrupts not masked: PIC "
			     "0x%02x/0x%02x, %u of %u I/O APIC lines", inb(PIC1_DATA), inb(PIC2_DATA),
			     masked, lines);
	return 0;
}

/*
 * Every AP of @sh (what every CPU shares; NULL: none known) started by
 * INIT-SIPI-SIPI onto @b's tables (the ones to hand over) and parked there
 * on its own stack, polling its goto_address; each reports the CR3 it
 * runs on.  Reported on @rep as check_limine_aps (its fault planted when
 * @o injects it).
 */
static void park_aps(struct report *rep, const struct opts *o, struct ptlab_build *b,
		     struct smp_shared *sh, struct lim *l)
{
	struct limine_park *blk = (struct limine_park *)(uintptr_t)(l->gdt_pa + 64);
	unsigned aps = 0, wrong = 0, lost = 0;
	struct pt_leaf tramp;
	uint64_t loop = b->image_va + ((uint64_t)(uintptr_t)limine_ap_loop - b->image.base);

	if (!lm_has(&l->req, LM_REQ_SMP)) {
		/* no SMP request: the APs stay in wait-for-SIPI, as the protocol says */
		report_note(rep, "limine: no SMP request: %u AP(s) sent INIT, left waiting for "
			    "a SIPI", smp_handoff_init_aps(sh));
		return;
	}
	if (l->ncpu < 2) {
		report_note(rep, "limine: one CPU: no AP to park");
		return;
	}
	if (!sh || sh->handoff_skip) {
		check_report(rep, &check_limine_aps, false, "limine: %u CPUs listed, but no AP can be "
			     "started: %s", l->ncpu,
			     sh && sh->handoff_skip ? sh->handoff_skip : "no SMP state");
		return;
	}
	if (b->our_cr3 >= FOUR_GIB) {
		check_report(rep, &check_limine_aps, false, "limine: the root 0x%llx is above 4 GiB: "
			     "the APs cannot load it in 32-bit mode", (unsigned long long)b->our_cr3);
		return;
	}
	/*
	 * The trampoline's code page executable while the APs pass through
	 * it, with its own attributes again after (no-execute in the checked
	 * plan; RWX in base revision 0's widened identity map).
	 */
	if (pt_translate(&b->space, sh->tramp_pa, &tramp) != PT_OK ||
	    pt_protect(&b->space, sh->tramp_pa, PT_PAGE_SIZE, PT_EXEC, NULL)) {
		check_report(rep, &check_limine_aps, false, "limine: the trampoline's page 0x%llx "
			     "could not be made executable", (unsigned long long)sh->tramp_pa);
		return;
	}
	smp_handoff_init_aps(sh);
	for (unsigned i = 0; i < l->ncpu; i++) {
		unsigned c = 0;
		struct limine_park *bp;
		uint64_t stack_top;

		if (l->cpu[i].lapic_id == l->bsp_apic)
			continue;
		while (c < sh->ncpu && sh->cpu[c]->apic != l->cpu[i].lapic_id)
			c++;
		if (c == sh->ncpu || sh->cpu[c]->bsp) {
			aps++;
			lost++;
			continue;
		}
		bp = &blk[i];
		stack_top = l->stacks_pa + (i + 1) * l->stack_bytes;
		/* --inject=park-stack: the first AP's stack where a wrapped stack size put it */
		if (!aps && inject_on(o, &check_handoff_ap_exception))
			stack_top = UINT64_C(0xaaaaaaab2888f000);
		*bp = (struct limine_park){ .gdt_limit = sizeof(limine_gdt) - 1,
					   .gdt_base = hhdm(l, l->gdt_pa),
					   .info = hhdm(l, l->resp_pa + l->answer.smp_info_off + 32 * i),
					   .stack = hhdm(l, stack_top), .pat = pt_pat_msr(&b->env.pat),
					   .loop = loop, .x2apic = l->x2apic };
		aps++;
		if (!smp_handoff_start_at(sh, b->levels, c, b->our_cr3, stack_top - 64,
					  (uint64_t)(uintptr_t)bp, (uint64_t)(uintptr_t)limine_ap_park,
					  &bp->arrived)) {
			lost++;
			continue;
		}
		/* --inject=limine-park: the first AP's CR3 taken for wrong */
		if (bp->cr3 != b->our_cr3 || (inject_on(o, &check_limine_aps) && aps == 1))
			wrong++;
	}
	if (pt_protect(&b->space, sh->tramp_pa, PT_PAGE_SIZE,
		       (tramp.flags & PT_ATTR_MASK) | PT_ALLOW_WX, NULL))
		report_fail(rep, "limine: the trampoline's page 0x%llx could not get its "
			    "attributes back", (unsigned long long)sh->tramp_pa);
	l->parked = aps - lost - wrong;
	if (!lost && !wrong)
		check_report(rep, &check_limine_aps, true, "limine: %u AP(s) parked on the tables "
			     "handed over (CR3 0x%llx), each on its own stack polling its "
			     "goto_address", aps, (unsigned long long)b->our_cr3);
	else
		check_report(rep, &check_limine_aps, false, "limine: of %u APs %u did not answer "
			     "INIT-SIPI-SIPI and %u run on another CR3", aps, lost, wrong);
}

/*
 * Identity piece @i of those base revision 0 asks for: [4 KiB, 4 GiB),
 * then each range of the map @m above; false past the last.
 */
static bool ident_piece(const struct pt_memmap *m, unsigned i, uint64_t *pa, uint64_t *len)
{
	if (i == 0) {
		*pa = PT_PAGE_SIZE;
		*len = FOUR_GIB - PT_PAGE_SIZE;
		return true;
	}
	for (unsigned k = 0; k < m->n; k++) {
		uint64_t end = m->range[k].pa + m->range[k].len;

		if (end <= FOUR_GIB || --i)
			continue;
		*pa = m->range[k].pa > FOUR_GIB ? m->range[k].pa : FOUR_GIB;
		*len = end - *pa;
		return true;
	}
	return false;
}

/*
 * Base revision 0 (no base revision tag, or 0): the protocol's entry
 * memory layout maps [4 KiB, 4 GiB) and every memory-map range above
 * identity, supervisor read/write/execute.  ptlab's own checks fault
 * through its identity map with its own permissions, so the checked plan
 * keeps them and the identity map is made RWX write-back (the framebuffer
 * write-combining, as in the HHDM) here, in the tables to hand over after
 * their comparison with the checked build, with a check of its own that
 * walks every leaf (check_limine_identity, its fault planted when @o
 * injects it).  @b: the build (its space is the tables to hand over, its
 * map the final one); @fb: the framebuffer.  PT_OK, or an error after a
 * failure line on @rep.
 */
static int widen_identity(struct report *rep, const struct opts *o, struct ptlab_build *b,
			  const struct ptlab_fb *fb)
{
	struct pt_space *sp = &b->space;
	const unsigned rwx = PT_WRITE | PT_EXEC | PT_ALLOW_WX | PT_SPARSE;
	uint64_t fb_pa, fb_len, pa, len, pages = 0, bad = 0, first = 0;
	unsigned n = 0;
	int err = PT_OK;

	fb_pages(fb, &fb_pa, &fb_len);
	for (unsigned i = 0; !err && ident_piece(&b->map, i, &pa, &len); i++, n++)
		err = pt_protect(sp, pa, len, rwx | PT_CACHE(PT_CACHE_WB), NULL);
	if (!err && fb_len)
		err = pt_protect(sp, fb_pa, fb_len, rwx | PT_CACHE(PT_CACHE_WC), NULL);
	if (err) {
		check_report(rep, &check_limine_identity, false, "limine: base revision 0: the "
			     "identity map could not be made RWX: %s", pt_strerror(err));
		return err;
	}
	if (inject_on(o, &check_limine_identity) &&
	    pt_protect(sp, FOUR_GIB - PT_PAGE_SIZE, PT_PAGE_SIZE, PT_WRITE, NULL) == PT_OK)
		report_note(rep, "inject: limine-identity planted (the page below 4 GiB left "
			    "no-execute)");
	for (unsigned i = 0; ident_piece(&b->map, i, &pa, &len); i++) {
		for (uint64_t va = pa; va < pa + len;) {
			struct pt_leaf lf;
			bool in_fb = va >= fb_pa && va < fb_pa + fb_len;
			unsigned want = PT_WRITE | PT_EXEC |
					PT_CACHE(in_fb ? PT_CACHE_WC : PT_CACHE_WB);
			uint64_t step = PT_PAGE_SIZE;

			if (pt_translate(sp, va, &lf) == PT_OK) {
				step = lf.size - (va & (lf.size - 1));
				if (lf.pa != va ||
				    (lf.flags & (PT_WRITE | PT_EXEC | PT_USER | PT_CACHE_MASK)) != want) {
					if (!bad++)
						first = va;
				}
			} else if (pt_memmap_overlaps(&b->map, va, PT_PAGE_SIZE) || i == 0) {
				/* a map range above 4 GiB or the low 4 GiB: all of it, mapped */
				if (!bad++)
					first = va;
			}
			if (step > pa + len - va)
				step = pa + len - va;
			pages += (step + PT_PAGE_SIZE - 1) / PT_PAGE_SIZE;
			va += step;
		}
	}
	if (!bad)
		check_report(rep, &check_limine_identity, true, "limine: base revision 0: the "
			     "identity map of [0x1000, 4 GiB) and %u range(s) above, %llu pages, "
			     "supervisor RWX write-back (the framebuffer write-combining), as the "
			     "protocol's entry memory layout says: the protocol's W^X exemption, made "
			     "after the comparison with the checked build", n - 1,
			     (unsigned long long)pages);
	else
		check_report(rep, &check_limine_identity, false, "limine: base revision 0: %llu of "
			     "%llu identity pages are not mapped to themselves RWX with their cache "
			     "type; first va=0x%llx", (unsigned long long)bad,
			     (unsigned long long)pages, (unsigned long long)first);
	return PT_OK;
}

/* After the rebuild (struct kernel_proto's prepare). */
static int limine_prepare(struct ptlab *p)
{
	struct lim *l = lim_of(&p->kern);

	if (lm_identity_mapped(l->req.base_rev) &&
	    widen_identity(p->rep, &p->opts, &p->build, &p->fb) != PT_OK)
		return PT_EINVAL;
	check_segments(p->rep, &p->opts, &p->build.space, l);
	if (!build_map(p->rep, &p->build, &p->fb, l) ||
	    !respond(p->rep, &p->opts, &p->exit.final_map, l))
		return PT_EINVAL;
	check_layout(p->rep, &p->opts, &p->build, p->cpu.caps.maxphyaddr, l);
	if (inject_on(&p->opts, &check_limine_read) && l->entry_len) {
		l->entry_bytes[0] ^= 0xff;
		report_note(p->rep, "inject: limine-entry planted (an entry byte expected flipped)");
	}
	ptlab_live(p, cpu_read, "limine: the tables handed over");
	if (p->rep->failed || p->aborted)
		return PT_EINVAL;
	park_aps(p->rep, &p->opts, &p->build, p->smp, l);
	ptlab_live(p, mask_irqs, "limine: interrupts masked");
	return p->rep->failed || p->aborted ? PT_EINVAL : PT_OK;
}

/* Every check passed: the report closed with the kernel's facts, and the jump. */
static __attribute__((noreturn)) void limine_enter(struct ptlab *p)
{
	struct lim *l = lim_of(&p->kern);
	uint64_t top = hhdm(l, l->stacks_pa + l->stacks_len);
	struct kernel_jump j;

	report_fact(p->rep, "limine", "entry=0x%llx stack=0x%llx+0x%llx cr3=0x%llx levels=%u "
		    "base_revision=%u answered=0x%x memmap=%u reclaim_runs=%u cpus=%u parked=%u "
		    "x2apic=%d responses=0x%llx+0x%llx", (unsigned long long)l->entry,
		    (unsigned long long)top, (unsigned long long)l->stack_bytes,
		    (unsigned long long)p->build.our_cr3, p->build.levels, l->req.base_rev,
		    l->answer.answered, l->nmap, l->nreclaim, l->ncpu, l->parked, l->x2apic,
		    (unsigned long long)l->resp_pa, (unsigned long long)l->answer.used);
	handoff_emit_final(p->rep, &p->fb);
	end_say(&p->fb, false, "ptlab: handing over to the Limine kernel\n");
	if (l->x2apic)
		wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | APIC_BASE_EN | APIC_BASE_X2);
	l->gdtr.limit = sizeof(limine_gdt) - 1;
	l->gdtr.base = hhdm(l, l->gdt_pa);
	j = (struct kernel_jump){ .entry = l->entry, .cr3 = p->build.our_cr3, .rsp = top,
				  .gdtr = &l->gdtr, .cs = LIMINE_SEL_CODE64, .ds = LIMINE_SEL_DATA64 };
	kernel_jump(&j);
}

/* An ELF file: "\x7fELF" (the ELF header judges the rest). */
static bool is_elf(const uint8_t *b, uint64_t len)
{
	return len >= 4 && le_ld32(b) == ELF_MAGIC;
}

const struct kernel_proto kernel_limine = {
	.name = "limine",
	.format = "an ELF file",
	.magic = "\\x7fELF",
	.recognise = is_elf,
	.levels = limine_levels,
	.load = limine_load,
	.plan = limine_plan,
	.digest_check = &check_limine_digest,
	.prepare = limine_prepare,
	.enter = limine_enter,
};
