/* SPDX-License-Identifier: MIT */
/*
 * linux_jump_asm(entry, zero_page, cr3, cr4, gdtr): the last instructions
 * of ptlab, the first state of a Linux kernel's 64-bit entry (boot.rst,
 * "64-bit Boot Protocol"): interrupts off, a GDT with __BOOT_CS (0x10)
 * and __BOOT_DS (0x18), CS/DS/ES/SS from it, the handed-over hierarchy in
 * CR3, RSI = the zero page, RBP/RDI/RBX zero.
 *
 * The IDT is made empty (limit 0): a fault before the kernel loads its own
 * shuts the machine down instead of running handlers of ours in memory
 * the kernel is free to reuse.  This code, its stack and the GDT are in
 * pages of ours that the handed-over tables identity map.
 */
	.text
	.globl	linux_jump_asm
	.type	linux_jump_asm, @function
linux_jump_asm:
	cli
	mov	%rdi, %r9		/* the entry */
	lgdt	(%r8)
	pushq	$0
	pushq	$0
	lidt	(%rsp)			/* limit 0, base 0 */
	add	$16, %rsp
	mov	%rdx, %cr3
	mov	%rcx, %cr4		/* PGE clear: every global translation gone too */
	pushq	$0x10
	leaq	1f(%rip), %rax
	pushq	%rax
	lretq
1:	mov	$0x18, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	mov	%eax, %fs
	mov	%eax, %gs
	xor	%ebp, %ebp
	xor	%edi, %edi
	xor	%ebx, %ebx
	xor	%eax, %eax
	jmp	*%r9
	.size	linux_jump_asm, . - linux_jump_asm

	.section .note.GNU-stack, "", @progbits
