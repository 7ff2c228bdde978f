/* SPDX-License-Identifier: MIT */
/*
 * Exception entry for assembly files (trap_asm.S, smp_asm.S, la57tramp_asm.S):
 * which vectors push an error code, and the 64-bit entry table.
 */
#ifndef PTLAB_EFI_TRAPENTRY_H
#define PTLAB_EFI_TRAPENTRY_H

/* Vectors for which the CPU pushes an error code (SDM Vol. 3A Table 6-1). */
#define HAS_ERRCODE(v)	((v) == 8 || (v) == 10 || (v) == 11 || (v) == 12 || \
			 (v) == 13 || (v) == 14 || (v) == 17 || (v) == 21 || \
			 (v) == 29 || (v) == 30)

/*
 * TRAP_ENTRY stubs, dispatch: 256 stubs of 16 bytes at \stubs + 16 * vector
 * (a 0 error code pushed where the CPU pushes none, then the vector), and
 * their common code: build struct trap_frame below the vector/error/iret
 * frame, call \dispatch(frame) on a 16-byte aligned stack, and return
 * through whatever the dispatcher left in the frame.
 */
	.macro	TRAP_ENTRY stubs, dispatch
	.balign	16
	.globl	\stubs
	.hidden	\stubs
\stubs:
	.set	vec, 0
	.rept	256
	.org	\stubs + 16 * vec, 0xcc
	.if	!HAS_ERRCODE(vec)
	pushq	$0
	.endif
	pushq	$vec
	jmp	\stubs\()_common
	.set	vec, vec + 1
	.endr
	.org	\stubs + 16 * 256, 0xcc

\stubs\()_common:
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%cr2, %rax
	pushq	%rax
	cld
	movq	%rsp, %rdi
	movq	%rsp, %rbx
	andq	$-16, %rsp
	call	\dispatch
	movq	%rbx, %rsp
	addq	$8, %rsp		/* cr2 */
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rbp
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rbx
	popq	%rax
	addq	$16, %rsp		/* vector, error code */
	iretq
	.endm

#endif /* PTLAB_EFI_TRAPENTRY_H */
