/* SPDX-License-Identifier: MIT */
/*
 * Macros for the assembly files of efi/ (.S only): a function's symbol,
 * the System V callee-saved registers pushed and popped, and the general
 * registers cleared before the jump into a kernel.
 */
#ifndef PTLAB_EFI_ASM_H
#define PTLAB_EFI_ASM_H

#ifdef __ASSEMBLER__

/* FUNC name: a global, hidden function symbol starting here. */
	.macro	FUNC name
	.globl	\name
	.hidden	\name
	.type	\name, @function
\name:
	.endm

/*
 * PUSH_CALLEE_SAVED: rbx, rbp, r12, r13, r14, r15 pushed in this order, so
 * r15 is lowest; POP_CALLEE_SAVED takes them back in reverse.  The order
 * is part of layouts read elsewhere (trap_guard's record, trap_asm.S).
 */
	.macro	PUSH_CALLEE_SAVED
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	.endm

	.macro	POP_CALLEE_SAVED
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	.endm

/*
 * CLEAR_GPRS keep: every general register but RSP and \keep (rsi or rdi,
 * the one a kernel's entry receives) zero.  A 32-bit xor clears the whole
 * 64-bit register.
 */
	.macro	CLEAR_GPRS keep
	.ifnc	\keep, rsi
	.ifnc	\keep, rdi
	.error	"CLEAR_GPRS: keep is rsi or rdi"
	.endif
	.endif
	xor	%eax, %eax
	xor	%ebx, %ebx
	xor	%ecx, %ecx
	xor	%edx, %edx
	.ifc	\keep, rdi
	xor	%esi, %esi
	.else
	xor	%edi, %edi
	.endif
	xor	%ebp, %ebp
	xor	%r8d, %r8d
	xor	%r9d, %r9d
	xor	%r10d, %r10d
	xor	%r11d, %r11d
	xor	%r12d, %r12d
	xor	%r13d, %r13d
	xor	%r14d, %r14d
	xor	%r15d, %r15d
	.endm

#endif /* __ASSEMBLER__ */

#endif /* PTLAB_EFI_ASM_H */
