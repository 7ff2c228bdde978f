/* SPDX-License-Identifier: MIT */
/*
 * kernel_jump_asm(j): the last instructions of ptlab for every boot
 * protocol (kernel.c's kernel_jump(), struct kernel_jump in kernel.h):
 * interrupts off, the direction flag clear, the protocol's GDT loaded and
 * its code and data selectors in CS and DS/ES/SS/FS/GS, the handed-over
 * hierarchy in CR3, CR4 as kernel_jump() made it, RSI = j->rsi, every
 * other general register zero, and the stack j->rsp with a zero return
 * address on it (or, when j->rsp is 0, this one, untouched).
 *
 * The IDT is made empty (limit 0): a fault before the kernel loads its own
 * shuts the machine down instead of running handlers of ours in memory
 * the kernel is free to reuse.  This code, the structure and the GDT are
 * in pages of ours that the handed-over tables map at the same address;
 * after the CR3 write only this code and the current stack are touched.
 */
#include "core/kernel_jump.h"
#include "cpu/asm.h"

	.text
	.globl	kernel_jump_asm
	.type	kernel_jump_asm, @function
kernel_jump_asm:
	cli
	cld
	/* everything into registers first: only the code and this stack are read after CR3 */
	mov	KJ_ENTRY(%rdi), %r10
	mov	KJ_RSP(%rdi), %r9
	mov	KJ_CS(%rdi), %r8
	mov	KJ_DS(%rdi), %rcx
	mov	KJ_CR4(%rdi), %rdx
	mov	KJ_RSI(%rdi), %rsi
	mov	KJ_GDTR(%rdi), %rax
	lgdt	(%rax)
	mov	KJ_CR3(%rdi), %rax
	pushq	$0
	pushq	$0
	lidt	(%rsp)			/* limit 0, base 0 */
	add	$16, %rsp
	mov	%rax, %cr3
	mov	%rdx, %cr4		/* PGE clear: every global translation gone too */
	pushq	%r8
	leaq	1f(%rip), %rax
	pushq	%rax
	lretq
1:	mov	%ecx, %ds
	mov	%ecx, %es
	mov	%ecx, %ss
	mov	%ecx, %fs
	mov	%ecx, %gs
	test	%r9, %r9
	jz	2f
	mov	%r9, %rsp
	pushq	$0			/* the return address */
2:	pushq	%r10			/* taken by ret: no register keeps the entry */
	CLEAR_GPRS keep=rsi
	ret
	.size	kernel_jump_asm, . - kernel_jump_asm

	.section .note.GNU-stack, "", @progbits
