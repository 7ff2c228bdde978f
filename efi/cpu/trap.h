/* SPDX-License-Identifier: MIT */
/*
 * Exceptions for ptlab: our own GDT, TSS (IST stacks) and IDT, fault probes
 * that let the CPU decide whether an access translates, and guards that turn
 * any unexpected exception into an error return instead of a hang.
 *
 * Usage:
 *
 *	trap_install();
 *	... load our CR3, run checks ...
 *	struct trap_fault f;
 *	if (probe_write64(va, 1, &f) != 1 || f.vector != 14 || f.error != 2 ||
 *	    f.cr2 != va)
 *		fail...
 *	... load the firmware's CR3 back ...
 *	trap_uninstall();
 *	Print(...);
 *
 * Between trap_install() and trap_uninstall() interrupts are off and every
 * vector goes to our IDT: no firmware call may run there (boot services
 * re-enable interrupts, and the firmware's timer would land in our IDT).
 * Any CR3 loaded in between must map the image (code, GDT, IDT, TSS and IST
 * stacks live in its .text/.data) at the address it was loaded at; otherwise
 * the first exception cannot be delivered and the machine resets.
 *
 * Single processor, no locking.  Firmware-free: <stdint.h>, <stdbool.h>.
 */
#ifndef PTLAB_EFI_TRAP_H
#define PTLAB_EFI_TRAP_H

#include <stdbool.h>
#include <stdint.h>

struct cpu_state;

/* IST slots (1-based as in the gate descriptor). */
#define TRAP_IST_DF	1
#define TRAP_IST_NMI	2
#define TRAP_IST_MC	3
#define TRAP_IST_PF	4
#define TRAP_IST_STACK_SIZE	16384

#define TRAP_VEC_DE	0
#define TRAP_VEC_NMI	2
#define TRAP_VEC_UD	6
#define TRAP_VEC_DF	8
#define TRAP_VEC_SS	12
#define TRAP_VEC_GP	13
#define TRAP_VEC_PF	14
#define TRAP_VEC_MC	18
/* trap_fault.vector when nothing faulted. */
#define TRAP_VEC_NONE	0xffffffffu

/* #PF error code bits (SDM Vol. 3A §4.7). */
#define PF_ERR_P	(1u << 0)	/* 0: not present, 1: protection */
#define PF_ERR_W	(1u << 1)	/* write access */
#define PF_ERR_US	(1u << 2)	/* user-mode access */
#define PF_ERR_RSVD	(1u << 3)	/* reserved bit set in an entry */
#define PF_ERR_ID	(1u << 4)	/* instruction fetch */
#define PF_ERR_PK	(1u << 5)	/* protection key */

/* trap_guard()'s return value when fn was cut short by an exception. */
#define TRAP_GUARD_FAULTED	(-1)

/* One recorded exception. */
struct trap_fault {
	uint32_t vector;	/* 0..255, TRAP_VEC_NONE if nothing faulted */
	uint64_t error;		/* error code; 0 for vectors without one */
	uint64_t cr2;		/* faulting address for vector 14, else 0 */
	uint64_t rip;		/* RIP the CPU pushed (faulting insn for faults) */
	uint64_t rsp;		/* RSP at the time of the exception */
};

/*
 * Register state pushed by trap_asm.S, lowest address first.  The dispatcher
 * may change rip, rsp, rflags, cs, ss and the GPRs; iretq uses the new values.
 */
struct trap_frame {
	uint64_t cr2;		/* read by the stub on every vector */
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector;
	uint64_t error;		/* 0 pushed by the stub where the CPU pushes none */
	uint64_t rip, cs, rflags, rsp, ss;	/* pushed by the CPU */
};

/*
 * One entry of the probes' exception table (trap_asm.S, section
 * .rodata.trap_extable, between trap_extable_start and trap_extable_end):
 * the probe's access and where it resumes, each as an offset from the
 * field's own address, so the table needs no relocation.  Read-only: every
 * CPU's dispatcher searches the same table.
 */
struct trap_extable_entry {
	int32_t insn;
	int32_t fixup;
};

/*
 * A probe's fault: when @frame is an exception a probe reports (a fault,
 * not a trap, NMI, #DF, #MC or an interrupt) raised at a probe's access,
 * record it in the probe's struct trap_fault (its address is in R11, see
 * trap_asm.S), point RIP at the probe's fixup and return true.  Otherwise
 * return false with @frame untouched.  Any CPU, any dispatcher.
 */
bool trap_probe_fixup(struct trap_frame *frame);

/* *@f = the exception @frame describes (CR2 only for #PF). */
void trap_fault_record(struct trap_fault *f, const struct trap_frame *frame);

/*
 * The BSP's dispatcher: every vector's stub (trap_asm.S) calls it with the
 * frame it saved; what it leaves in @frame is what the CPU returns to.
 */
void trap_dispatch(struct trap_frame *frame) __attribute__((visibility("hidden")));

/* 64-bit TSS (SDM Vol. 3A §7.7). */
struct tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iopb;
} __attribute__((packed));

/* 64-bit interrupt gate (SDM Vol. 3A §6.14.1). */
struct idt_gate {
	uint16_t off0;
	uint16_t sel;
	uint8_t ist;
	uint8_t type;		/* P | DPL | 0 | type */
	uint16_t off1;
	uint32_t off2;
	uint32_t reserved;
} __attribute__((packed));

/*
 * Save the CPU state (cpu_state_save), disable interrupts, load our GDT, our
 * TSS into TR and our IDT.  No segment register is loaded: our GDT has a
 * flat 64-bit code descriptor at the index of the firmware's CS and a data
 * descriptor at that of its SS (so an iretq, which reloads both, finds them),
 * and our TSS in the first two free slots.  Paging registers are left as they
 * are.  Returns 0, or -1 (nothing changed) if already installed or the
 * firmware's selectors cannot be kept (in the LDT, RPL not 0, null CS).
 * Install/uninstall may be repeated any number of times.
 */
int trap_install(void);

/*
 * Restore exactly the CPU state saved by trap_install(): CR0/CR3/CR4, EFER,
 * PAT, GDTR, TR, IDTR and finally RFLAGS.IF (see cpu_state_restore), never
 * writing firmware memory.  Anything changed in between (e.g. our CR3) is
 * discarded.  Returns 0, or -1 (nothing changed) if not installed.
 *
 * The one permitted difference: when the firmware had no TSS (TR 0, or a TR
 * whose descriptor in its GDT is not a busy TSS), ours stays loaded, because
 * ltr cannot load a null selector.  Its IST and RSP0 fields are cleared then
 * (they point into this image), and its memory must stay allocated for good:
 * see trap_set_tss() and trap_tss_left_loaded().
 */
int trap_uninstall(void);

/*
 * Put our TSS (104 bytes) at @page instead of the image's .bss: a page the
 * caller allocated and keeps for good when trap_tss_left_loaded() says so
 * after the last uninstall.  NULL goes back to the built-in TSS.  Ignored
 * while installed.
 */
void trap_set_tss(void *page);

/* Address of our TSS (the IST pointers the CPU reads on delivery). */
uint64_t trap_tss_base(void);

/* True when the last uninstall left our TSS loaded (the firmware had none). */
bool trap_tss_left_loaded(void);

/* The state saved by the last trap_install() (the firmware's, in firmware mode). */
const struct cpu_state *trap_entry_state(void);

/* True between trap_install() and trap_uninstall(). */
bool trap_installed(void);

/*
 * Probes: one access to @va under an exception fixup (installed traps
 * required).  Each returns 0 when the access completed (and for reads stores
 * the value in *@out), or 1 when it raised an exception, with *@f filled
 * (vector, error code, CR2 for #PF, RIP of the access).  On 0, *@f is set to
 * vector TRAP_VEC_NONE; on 1, *@out is left unchanged.
 */
int probe_read8(uint64_t va, uint64_t *out, struct trap_fault *f);
int probe_read64(uint64_t va, uint64_t *out, struct trap_fault *f);
int probe_write8(uint64_t va, uint64_t val, struct trap_fault *f);
int probe_write64(uint64_t va, uint64_t val, struct trap_fault *f);

/*
 * Call @va (the caller has placed a ret, 0xC3, there).  Returns 0 when it
 * returned, 1 when the fetch of the instruction at @va faulted (or the call
 * itself did, e.g. #GP for a non-canonical @va) with *@f filled; f->rip is
 * @va for a fetch fault.  Any other exception is not a probe result: it goes
 * to the active guard like any unexpected one.
 */
int probe_exec(uint64_t va, struct trap_fault *f);

/*
 * Run fn(arg) under a recovery point.  Returns fn's result (fn should return
 * >= 0) with f->vector = TRAP_VEC_NONE, or TRAP_GUARD_FAULTED with *@f
 * describing the first unexpected exception (any vector without a probe
 * fixup, including #DF, NMI and #MC, which arrive on their own IST stacks).
 * On TRAP_GUARD_FAULTED, RSP, RBX, RBP, R12-R15 are back to their values at
 * the call, RFLAGS is 0x2 (interrupts, AC and DF clear), CS/SS as at install; CR3,
 * CR0, CR4 and everything else are as fn left them: the caller restores the
 * firmware state (trap_uninstall or cpu_state_restore).  The guard's own
 * stack frame must stay mapped in whatever CR3 fn loads.  Guards nest.
 * Requires installed traps; returns TRAP_GUARD_FAULTED with vector
 * TRAP_VEC_NONE (and never calls fn) otherwise.
 */
int trap_guard(int (*fn)(void *), void *arg, struct trap_fault *f);

/*
 * The exception that reached no guard and no fixup.  The dispatcher stores it
 * here, restores the firmware state saved by trap_install() with interrupts
 * off, and halts; a debugger or a later report can read it.
 */
extern struct trap_fault trap_fatal_fault;

/*
 * After ExitBootServices there is no firmware state to restore: an exception
 * that reaches no guard loads @home_cr3 (a recovery hierarchy), keeps our
 * GDT/IDT, calls @report(@ctx, fault) once (interrupts off, on whatever
 * stack the exception used), then halts.  @home_cr3 0 restores the firmware
 * state as before.  @report may be NULL.
 */
void trap_set_fatal_home(uint64_t home_cr3,
			 void (*report)(void *ctx, const struct trap_fault *f), void *ctx);

/*
 * Called first on the fatal path (before the firmware state is restored),
 * once, as @leave(@ctx): the place to leave a paging mode the firmware's
 * saved state cannot be restored from (CR4.LA57 cannot change in IA-32e
 * mode).  NULL: none.
 */
void trap_set_fatal_leave(void (*leave)(void *ctx), void *ctx);

/*
 * Self-test hook: mark IDT gate @vector present or not present.  A not-present
 * gate turns its exception into #NP during delivery, and a #PF/#GP that meets
 * one becomes #DF (SDM Vol. 3A §6.15, Table 6-5).  Takes effect immediately
 * if installed, and is reset by every trap_install().
 */
void trap_gate_set_present(unsigned int vector, bool present);

#endif /* PTLAB_EFI_TRAP_H */
