/* SPDX-License-Identifier: MIT */
/*
 * CPU helpers that need a real instruction sequence rather than inline asm.
 */

	.text

/*
 * void cpu_load_cs(uint16_t sel)
 * Reload CS with a far return to the next instruction (64-bit mode has no
 * far jump with an immediate selector).
 */
	.globl	cpu_load_cs
	.hidden	cpu_load_cs
	.type	cpu_load_cs, @function
cpu_load_cs:
	movzwl	%di, %edi
	leaq	1f(%rip), %rax
	pushq	%rdi
	pushq	%rax
	lretq
1:	ret
	.size	cpu_load_cs, . - cpu_load_cs

/*
 * void cpu_halt(void)
 * Interrupts off, halt for ever.  An NMI wakes hlt; the loop halts again.
 */
	.globl	cpu_halt
	.hidden	cpu_halt
	.type	cpu_halt, @function
cpu_halt:
	cli
1:	hlt
	jmp	1b
	.size	cpu_halt, . - cpu_halt

	.section .note.GNU-stack, "", @progbits
