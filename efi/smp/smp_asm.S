/* SPDX-License-Identifier: MIT */
/*
 * The application processors' side in assembly: the procedure entry the
 * firmware calls (Microsoft x64 convention), a call on another stack, the
 * per-CPU guard, and the exception/interrupt entry stubs of the APs' IDT.
 * The frame built by the common entry code (trapentry.h) is struct
 * trap_frame (trap.h).
 */
#include "cpu/asm.h"
#include "cpu/trapentry.h"
#include "smp/smp_tramp.h"

	.text

/*
 * void smp_ap_entry(void *arg)  -- EFIAPI (ms_abi): arg in %rcx.
 * Keeps every register the Microsoft convention makes callee-saved (our C
 * code is built without SSE, so xmm6-xmm15 are never touched), calls
 * smp_ap_proc(arg) with the System V convention on the firmware's stack.
 */
FUNC smp_ap_entry
	pushq	%rbx
	pushq	%rbp
	pushq	%rdi
	pushq	%rsi
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	subq	$8, %rsp
	cld
	movq	%rcx, %rdi
	call	smp_ap_proc
	addq	$8, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rsi
	popq	%rdi
	popq	%rbp
	popq	%rbx
	ret
	.size	smp_ap_entry, . - smp_ap_entry

/* void smp_on_stack(void (*fn)(void *), void *arg, uint64_t top) */
FUNC smp_on_stack
	pushq	%rbp
	movq	%rsp, %rbp
	movq	%rdx, %rsp
	movq	%rdi, %rax
	movq	%rsi, %rdi
	call	*%rax
	movq	%rbp, %rsp
	popq	%rbp
	ret
	.size	smp_on_stack, . - smp_on_stack

/*
 * int smp_guard(int (*fn)(void *), void *arg, uint64_t *slot)
 * *slot = the guard's RSP while fn runs (0 again after).  The AP trap
 * handler resumes a faulted guard at smp_guard_resume with RSP = *slot and
 * %eax = -1.
 */
FUNC smp_guard
	PUSH_CALLEE_SAVED
	pushq	%rdx
	movq	%rsp, (%rdx)
	movq	%rdi, %rax
	movq	%rsi, %rdi
	call	*%rax
	.globl	smp_guard_resume
	.hidden	smp_guard_resume
smp_guard_resume:
	popq	%rdx
	movq	$0, (%rdx)
	POP_CALLEE_SAVED
	ret
	.size	smp_guard, . - smp_guard

/* ---- the APs' entry stubs: 256 slots of 16 bytes ---- */

	TRAP_ENTRY smp_stubs, smp_ap_dispatch

/*
 * The hand-off trampoline (smp_tramp.h), copied to T below 1 MiB.  Real
 * mode: DS = CS = T >> 4, the data page at DS:0x1000.  Protected and long
 * mode: EBX = T.  Nothing here depends on where the image is.
 */
	.balign	16
	.globl	smp_tramp_start
	.hidden	smp_tramp_start
smp_tramp_start:
	.code16
	cli
	cld
	movw	%cs, %ax
	movw	%ax, %ds
	xorl	%ebx, %ebx
	movw	%ax, %bx
	shll	$4, %ebx
	lgdtl	TD_PAGE_OFF + TD_GDTR
	movl	%cr0, %eax
	orl	$1, %eax
	movl	%eax, %cr0
	ljmpl	*(TD_PAGE_OFF + TD_FAR32)

	.code32
	.globl	smp_tramp_pm32
	.hidden	smp_tramp_pm32
smp_tramp_pm32:
	movw	$TRAMP_SEL_DATA, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movl	TD_PAGE_OFF + TD_CR4(%ebx), %eax
	movl	%eax, %cr4
	movl	TD_PAGE_OFF + TD_CR3(%ebx), %eax
	movl	%eax, %cr3
	movl	$0xc0000080, %ecx
	rdmsr
	orl	$((1 << 8) | (1 << 11)), %eax	/* EFER.LME | EFER.NXE */
	wrmsr
	/* PG | WP | NE | ET | MP | PE, and CD/NW clear (INIT leaves them set) */
	movl	$0x80010033, %eax
	movl	%eax, %cr0
	ljmpl	*TD_PAGE_OFF + TD_FAR64(%ebx)

	.code64
	.globl	smp_tramp_lm64
	.hidden	smp_tramp_lm64
smp_tramp_lm64:
	movl	$TRAMP_SEL_DATA, %eax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movl	%ebx, %ebx		/* the upper half is not defined after the switch */
	/* the AP's TSS and the park IDT before the stack is touched (aptrap.h) */
	movw	$TRAMP_SEL_TSS, %ax
	ltr	%ax
	lidt	TD_PAGE_OFF + TD_IDTR(%rbx)
	movq	TD_PAGE_OFF + TD_STACK(%rbx), %rsp
	movq	TD_PAGE_OFF + TD_CPU(%rbx), %rdi
	movq	TD_PAGE_OFF + TD_ENTRY(%rbx), %rax
	xorl	%ebp, %ebp
	call	*%rax
1:	cli
	hlt
	jmp	1b
	.globl	smp_tramp_end
	.hidden	smp_tramp_end
smp_tramp_end:

	.section .note.GNU-stack, "", @progbits
