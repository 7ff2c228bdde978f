/* SPDX-License-Identifier: MIT */
/*
 * Exception entry stubs, fault probes with their exception table, and the
 * trap_guard() recovery point.  See trap.h for the contracts.
 *
 * Conventions shared with trap.c:
 *  - every probe keeps its struct trap_fault pointer in %r11 across the
 *    access; the dispatcher fills it through trap_frame.r11 and resumes at
 *    the fixup with %eax = 1;
 *  - trap_extable holds (insn - ., fixup - .) pairs of 32-bit offsets, so the
 *    image needs no relocation for them;
 *  - a guard record is the guard's stack pointer: pad, previous record,
 *    struct trap_fault *, r15, r14, r13, r12, rbp, rbx, return address.
 */
#include "cpu/asm.h"
#include "cpu/trapentry.h"
#define TRAP_VEC_NONE	0xffffffff

	.macro	EXTABLE insn, fixup
	.pushsection .rodata.trap_extable, "a"
	.long	\insn - .
	.long	\fixup - .
	.popsection
	.endm

/*
 * PROBE dir, name, access: the probe function name, whose one access (the
 * instruction with the table entry) is access; a read (dir = read) stores
 * the value loaded into %rax at *out.
 */
	.macro	PROBE dir, name, access:vararg
FUNC \name
	movq	%rdx, %r11
	movl	$TRAP_VEC_NONE, (%r11)
1:	\access
	.ifc	\dir, read
	movq	%rax, (%rsi)
	.endif
	xorl	%eax, %eax
	ret
	EXTABLE	1b, probe_fixup
	.size	\name, . - \name
	.endm

	.section .rodata.trap_extable, "a"
	.balign	4
	.globl	trap_extable_start
	.hidden	trap_extable_start
trap_extable_start:

	.text

/* ---- entry stubs: 256 slots of 16 bytes at trap_stubs + 16 * vector ---- */

	TRAP_ENTRY trap_stubs, trap_dispatch

/* ---- probes ---- */

/* Shared fixup: the dispatcher has filled *%r11; report "faulted". */
probe_fixup:
	movl	$1, %eax
	ret

/* int probe_read8(uint64_t va, uint64_t *out, struct trap_fault *f) */
	PROBE	read, probe_read8, movzbq (%rdi), %rax

/* int probe_read64(uint64_t va, uint64_t *out, struct trap_fault *f) */
	PROBE	read, probe_read64, movq (%rdi), %rax

/* int probe_write8(uint64_t va, uint64_t val, struct trap_fault *f) */
	PROBE	write, probe_write8, movb %sil, (%rdi)

/* int probe_write64(uint64_t va, uint64_t val, struct trap_fault *f) */
	PROBE	write, probe_write64, movq %rsi, (%rdi)

/*
 * int probe_exec(uint64_t va, struct trap_fault *f)
 * A fetch fault at va has RIP = va, which no table can list: the probe arms
 * trap_exec_va/trap_exec_rsp and the dispatcher matches on them, resuming at
 * trap_exec_fixup with RSP as it was before the call.  A fault of the call
 * instruction itself (non-canonical target) is an ordinary table entry.
 */
FUNC probe_exec
	movq	%rsi, %r11
	movl	$TRAP_VEC_NONE, (%r11)
	movq	%rdi, trap_exec_va(%rip)
	movq	%rsp, trap_exec_rsp(%rip)
	movl	$1, trap_exec_armed(%rip)
1:	call	*%rdi
	movl	$0, trap_exec_armed(%rip)
	xorl	%eax, %eax
	ret
	.globl	trap_exec_fixup
	.hidden	trap_exec_fixup
trap_exec_fixup:
	movl	$0, trap_exec_armed(%rip)
	movl	$1, %eax
	ret
	EXTABLE	1b, trap_exec_fixup
	.size	probe_exec, . - probe_exec

/* ---- guard ---- */

/*
 * int trap_guard_asm(int (*fn)(void *), void *arg, struct trap_fault *f)
 * Push the callee-saved registers, f and the previous record; the resulting
 * RSP is the record (trap_guard_cur) and is 16-byte aligned for the call.
 * The dispatcher resumes a faulted guard at trap_guard_resume with RSP = the
 * record and %eax = -1; both paths unwind the same way.
 */
FUNC trap_guard_asm
	PUSH_CALLEE_SAVED
	pushq	%rdx
	pushq	trap_guard_cur(%rip)
	subq	$8, %rsp
	movq	%rsp, trap_guard_cur(%rip)
	movq	%rdi, %rax
	movq	%rsi, %rdi
	call	*%rax
	.globl	trap_guard_resume
	.hidden	trap_guard_resume
trap_guard_resume:
	addq	$8, %rsp
	popq	trap_guard_cur(%rip)
	addq	$8, %rsp
	POP_CALLEE_SAVED
	ret
	.size	trap_guard_asm, . - trap_guard_asm

	.section .rodata.trap_extable, "a"
	.globl	trap_extable_end
	.hidden	trap_extable_end
trap_extable_end:

	.section .note.GNU-stack, "", @progbits
