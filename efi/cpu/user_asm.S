/* SPDX-License-Identifier: MIT */
/*
 * The step into CPL 3 (user.c): an IRETQ frame with the user's SS, RSP,
 * RFLAGS, CS and RIP (SDM Vol. 3A 6.14.3).  It never returns: the user
 * stub ends in an exception or int, which trap_guard() catches.
 */

	.text

/*
 * void user_iret(uint64_t rip, uint64_t rsp, uint64_t rflags, uint64_t rdi,
 *		  uint64_t cs, uint64_t ss)
 */
	.globl	user_iret
	.hidden	user_iret
	.type	user_iret, @function
user_iret:
	pushq	%r9
	pushq	%rsi
	pushq	%rdx
	pushq	%r8
	pushq	%rdi
	movq	%rcx, %rdi
	xorl	%eax, %eax
	iretq
	.size	user_iret, . - user_iret

	.section .note.GNU-stack, "", @progbits
