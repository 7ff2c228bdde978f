/* SPDX-License-Identifier: MIT */
/*
 * Entry points of the test kernel.  Each one saves every general register
 * and RFLAGS exactly as the loader left them, before any C runs, into a
 * struct frame on the loader's stack (see kernel.c):
 *
 *   rsp (at entry), r15 ... r8, rbp, rdi, rsi, rdx, rcx, rbx, rax, rflags
 *
 * and calls C with a pointer to it.  The loader's stack is aligned down
 * to 16 bytes for the call, whatever the entry RSP was, so a misaligned
 * entry is reported rather than crashing the C code.
 *
 *   kentry_elf  the ELF header's e_entry
 *   kentry_req  the address the Entry Point request names
 *   ap_entry    what the BSP writes into each AP's goto_address
 *   isr_stubs   32 exception stubs, 16 bytes apart
 */
	.section .text, "ax"
	.code64

.macro CAPTURE
	pushfq
	push %rax
	push %rbx
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %rbp
	push %r8
	push %r9
	push %r10
	push %r11
	push %r12
	push %r13
	push %r14
	push %r15
	lea 128(%rsp), %rax
	push %rax
.endm

	.globl kentry_elf
	.type kentry_elf, @function
kentry_elf:
	CAPTURE
	mov %rsp, %rdi
	mov $1, %esi
	jmp 1f

	.globl kentry_req
	.type kentry_req, @function
kentry_req:
	CAPTURE
	mov %rsp, %rdi
	mov $2, %esi
1:	and $-16, %rsp
	call kmain
2:	cli
	hlt
	jmp 2b

	.globl ap_entry
	.type ap_entry, @function
ap_entry:
	CAPTURE
	mov %rsp, %rdi
	and $-16, %rsp
	call ap_main
3:	cli
	hlt
	jmp 3b

/* exceptions: push a zero where the CPU pushes no error code, then the
 * vector; trap() gets { vector, error, rip, cs, rflags, rsp, ss } */
.macro ISR vec
	.balign 16
.if (\vec == 8) || (\vec == 10) || (\vec == 11) || (\vec == 12) || (\vec == 13) || (\vec == 14) || (\vec == 17) || (\vec == 21) || (\vec == 29) || (\vec == 30)
	nop
	nop
.else
	pushq $0
.endif
	pushq $\vec
	jmp isr_common
.endm

	.balign 16
	.globl isr_stubs
isr_stubs:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	ISR \v
	.endr

isr_common:
	mov %rsp, %rdi
	and $-16, %rsp
	call trap
4:	cli
	hlt
	jmp 4b

	.section .note.GNU-stack, "", @progbits
