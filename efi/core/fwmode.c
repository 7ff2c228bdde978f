/* SPDX-License-Identifier: MIT */
/*
 * The firmware mode (the default, --mode=firmware): boot services stay
 * alive for the whole run, and ptlab returns to its caller with nothing of
 * its own left allocated.  Calls down into the shared pipeline (run.c);
 * mode_firmware at the end says what it does its own way: each live phase
 * entered from the firmware's CPU state and left back to it, the SMP
 * checks through MP services.
 *
 * Firmware calls: --fragment's scattered pages through fw/owned.c's
 * allocator (more than its record holds: the record, read only by a
 * hand-off, then says it is incomplete; this mode never hands off),
 * FreePool for the map buffer; the rest through run.c.
 */
#include "core/fwmode.h"
#include "bringup/bringup.h"
#include "live/la57.h"
#include "core/mode.h"
#include "core/verdict.h"
#include "live/la57tramp.h"
#include "cpu/trap.h"
#include "fw/owned.h"
#include "report/report.h"
#include "report/serial.h"
#include "core/run.h"
#include "smp/smp.h"

#include <ptlab/pte.h>

/*
 * --fragment (test only): scatter single runtime-code pages through a free
 * range before the map is read, so the map (and the plan: RX between RW+NX)
 * has many small pieces.  Returns how many pages it took.
 */
#define FRAGMENT_PAGES 400u

static unsigned fragment_map(const struct rawmap *m, uint64_t floor,
			     EFI_PHYSICAL_ADDRESS fragment_pa[FRAGMENT_PAGES])
{
	unsigned n = 0;

	for (UINTN off = 0; off + m->desc_size <= m->size && !n; off += m->desc_size) {
		const EFI_MEMORY_DESCRIPTOR *d = (const void *)((const char *)m->buf + off);

		if (d->Type != EfiConventionalMemory || d->NumberOfPages < 4 * FRAGMENT_PAGES ||
		    d->PhysicalStart < floor)
			continue;
		for (unsigned i = 0; i < FRAGMENT_PAGES; i++) {
			EFI_PHYSICAL_ADDRESS pa = d->PhysicalStart + (uint64_t)(3 * i + 1) * PT_PAGE_SIZE;

			if (owned_alloc(AllocateAddress, EfiRuntimeServicesCode, PT_PAGE_SIZE,
					&pa) == EFI_SUCCESS)
				fragment_pa[n++] = pa;
		}
	}
	return n;
}

static void fragment_free(const EFI_PHYSICAL_ADDRESS *fragment_pa, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		owned_free(fragment_pa[i], PT_PAGE_SIZE);
}

/*
 * The firmware-mode run: the map (twice: the final one after every
 * allocation of ours), the plan, the pool and the data area, then the shared
 * build and checks; everything allocated is given back at the end.
 */
static void fwmode_run(struct ptlab *p, const struct mode_boot *b)
{
	uint64_t t0 = b->t0;
	EFI_PHYSICAL_ADDRESS fragment_pa[FRAGMENT_PAGES];   /* --fragment's pages */
	struct rawmap m = { 0 };
	const char *failed = NULL;
	unsigned fragments = 0;
	int err;

	/*
	 * A run that switches paging levels must be back in the firmware's
	 * on the fatal path too before the firmware's state is restored
	 * (CR4.LA57 cannot change in IA-32e mode); run_release(), freeing
	 * the trampoline, disarms it.
	 */
	if (p->live.la57_tramp)
		la57_arm_fatal_leave(p);
	if (p->opts.fragment) {
		if (run_get_map(&m) != EFI_SUCCESS) {
			report_fail(p->rep, "memmap: GetMemoryMap failed");
			goto out;
		}
		/* above 256 MiB when there is a free range there, else above 1 MiB */
		fragments = fragment_map(&m, PT_SIZE_1G / 4, fragment_pa);
		if (fragments < FRAGMENT_PAGES / 2) {
			fragment_free(fragment_pa, fragments);
			fragments = fragment_map(&m, UINT64_C(1) << 20, fragment_pa);
		}
		report_fact(p->rep, "fragment", "pages=%u", fragments);
		if (fragments < FRAGMENT_PAGES / 2) {
			report_fail(p->rep, "fragment: only %u of %u pages could be scattered: no free "
				    "range of %u pages", fragments, FRAGMENT_PAGES,
				    4 * FRAGMENT_PAGES);
			goto out;
		}
	}
	/* a look at the map (after any scattering) sizes every buffer */
	err = run_prepare(p, b, &m, NULL, &failed);
	if (err) {
		report_fail(p->rep, "prepare: %s: %s", failed, pt_strerror(err));
		goto out;
	}
	/* the final map: after every allocation of ours */
	if (run_get_map(&m) != EFI_SUCCESS) {
		report_fail(p->rep, "memmap: GetMemoryMap failed");
		goto out;
	}
	run_from_final_map(p, &m, t0, NULL);
out:
	/* back to the shell with nothing of ours left behind */
	fragment_free(fragment_pa, fragments);
	owned_pool_free(m.buf);
	run_release(&p->build, &p->data, &p->live);
}


/*
 * A live phase from the firmware's state: our GDT, TSS and IDT for it
 * (trap_install saves the firmware's CPU state first).
 */
static int fwmode_live_enter(struct ptlab *p, const char *what)
{
	if (trap_install() == 0)
		return 0;
	report_fail(p->rep, "%s: exception handling was already installed", what);
	p->aborted = true;
	return -1;
}

/*
 * Back to the firmware's paging mode with its CR3 before its state is
 * restored (CR4.LA57 cannot change in IA-32e mode).  When that is refused
 * the firmware cannot get its CPU back: say so on COM1 and stop.
 */
static void leave_to_firmware_mode(struct ptlab *p)
{
	static const char msg[] = "ptlab: cannot return to the firmware's paging mode; halted\n";

	if (la57_active() == (p->cpu.fw_levels == 5))
		return;
	if (la57_switch(p, p->cpu.fw_levels, p->cpu.fw_cr3 & PTE_ADDR_MASK, "back to the firmware") == 0)
		return;
	serial_write(msg, sizeof(msg) - 1);
	if (p->opts.end == OPTS_END_QEMU)
		verdict_debug_exit(&p->cpu.caps, verdict_of(p->rep, p->aborted));
	cpu_halt();
}

/* Back to the firmware's CR3, GDT, IDT, CR0/CR4/EFER and interrupt flag. */
static void fwmode_live_leave(struct ptlab *p)
{
	leave_to_firmware_mode(p);
	trap_uninstall();
}

/*
 * The firmware mode: boot services alive for the whole run, every live
 * phase entered from the firmware's CPU state and left back to it, the
 * APs run through MP services.
 */
const struct mode mode_firmware = {
	.boot_services_gone = false,
	.run = fwmode_run,
	.live_enter = fwmode_live_enter,
	.live_leave = fwmode_live_leave,
	.smp = smp_run,
};
