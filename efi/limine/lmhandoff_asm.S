/* SPDX-License-Identifier: MIT */
/*
 * The loop a Limine-protocol kernel's APs are parked in (lmhandoff.c);
 * the BSP's jump is every protocol's (core/kernel_asm.S).  The machine
 * state both leave is the protocol's "machine state at entry" for x86-64:
 * the protocol's GDT
 * (64-bit code 0x28, data 0x30 in every segment register), IF and DF
 * clear, the handed-over tables in CR3, RSP on a stack of the kernel's
 * size with a return address of 0 pushed, every other general purpose
 * register 0 (an AP: RDI = its lm_smp_info).  The IDT is made empty
 * (limit 0): the kernel must load its own, and a fault before it does
 * shuts the machine down instead of running handlers of ours.  An AP
 * keeps the park IDT (smp/aptrap.h), which the trampoline loaded, until
 * it leaves for its goto_address: an exception while ptlab parks it is
 * reported with a verdict (docs/handoff.md, "Exceptions after
 * ExitBootServices").
 */
#include "cpu/asm.h"
#include "limine/lmpark.h"

	.text

/*
 * limine_ap_park(block): an AP the trampoline brought onto the handed-
 * over tables (identity-mapped code, RDI = its park block).  The
 * protocol's GDT and PAT, x2APIC when asked, CR3 recorded, "arrived"
 * written; then on to the polling loop through the image's alias in the
 * higher half, which reads only HHDM addresses, so the kernel may drop
 * the identity map before it starts the AP.
 */
	.globl	limine_ap_park
	.type	limine_ap_park, @function
limine_ap_park:
	cli
	cld
	lgdt	LP_GDTR(%rdi)
	pushq	$LIMINE_SEL_CODE64
	leaq	1f(%rip), %rax
	pushq	%rax
	lretq
1:	mov	$LIMINE_SEL_DATA64, %eax
	mov	%eax, %ds
	mov	%eax, %es
	mov	%eax, %ss
	mov	%eax, %fs
	mov	%eax, %gs
	/* the PAT as the SDM changes it: caches written back around the write */
	wbinvd
	mov	LP_PAT(%rdi), %rax
	mov	%rax, %rdx
	shr	$32, %rdx
	mov	$0x277, %ecx
	wrmsr
	wbinvd
	mov	%cr3, %rax
	mov	%rax, %cr3
	cmpl	$0, LP_X2APIC(%rdi)
	je	2f
	mov	$0x1b, %ecx		/* IA32_APIC_BASE: EN and EXTD */
	rdmsr
	or	$0xc00, %eax
	wrmsr
2:	mov	%cr3, %rax
	mov	%rax, LP_CR3(%rdi)
	mov	LP_INFO(%rdi), %rsi
	mov	LP_STACK(%rdi), %r8
	mov	LP_LOOP(%rdi), %rax
	movl	$1, LP_ARRIVED(%rdi)
	jmp	*%rax
	.size	limine_ap_park, . - limine_ap_park

/* RSI = the lm_smp_info (HHDM), R8 = the stack's top (HHDM) */
	.globl	limine_ap_loop
	.type	limine_ap_loop, @function
limine_ap_loop:
3:	mov	16(%rsi), %rax		/* goto_address: one aligned 8-byte load */
	test	%rax, %rax
	jnz	4f
	pause
	jmp	3b
4:	mov	%r8, %rsp
	/* the kernel's window begins: the park IDT goes, an empty one instead */
	pushq	$0
	pushq	$0
	lidt	(%rsp)
	add	$16, %rsp
	pushq	$0
	pushq	%rax
	mov	%rsi, %rdi
	CLEAR_GPRS keep=rdi
	ret
	.size	limine_ap_loop, . - limine_ap_loop

	.section .note.GNU-stack, "", @progbits
