/* SPDX-License-Identifier: MIT */
/*
 * The LA57 switch trampoline (see la57tramp.h).  la57_blob .. la57_blob_end is a
 * template: la57tramp.c copies it to the trampoline's code page below 4 GiB and
 * runs it there, never here.  Everything in it is position independent: the
 * 64-bit parts address the data page RIP-relative (the data page follows
 * the code page), the 32-bit parts through %ebx = the code page's address.
 *
 * void la57_entry(void): interrupts off; the data page's parameters filled.
 */
#include "cpu/asm.h"
#include "live/la57tramp.h"

#define CR0_PG		0x80000000
#define CR4_PCIDE	0x00020000
#define COM1		0x3f8
#define DATA(x)		(la57_blob + LA57_DATA + (x))

/* Vectors for which the CPU pushes an error code (protected mode). */
#define HAS_ERRCODE(v)	((v) == 8 || (v) == 10 || (v) == 11 || (v) == 12 || \
			 (v) == 13 || (v) == 14 || (v) == 17 || (v) == 21)

	.text
	.balign	16
	.globl	la57_blob
	.hidden	la57_blob
la57_blob:

	.code64
	.globl	la57_entry
	.hidden	la57_entry
la57_entry:
	PUSH_CALLEE_SAVED
	pushfq
	cli
	movq	%rsp, DATA(LA57_P_RSP)(%rip)
	sgdt	DATA(LA57_P_GDTR_SAVE)(%rip)
	sidt	DATA(LA57_P_IDTR_SAVE)(%rip)
	movw	%cs, DATA(LA57_P_CS)(%rip)
	movw	%ss, DATA(LA57_P_SS)(%rip)
	movw	%ds, DATA(LA57_P_DS)(%rip)
	movw	%es, DATA(LA57_P_ES)(%rip)
	lgdt	DATA(LA57_P_GDTR_WIN)(%rip)
	leaq	DATA(LA57_P_STACK_TOP)(%rip), %rsp
	leaq	compat(%rip), %rax
	pushq	$LA57_SEL_CODE32
	pushq	%rax
	lretq

	.code32
compat:
	movl	$LA57_SEL_DATA, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	call	1f
1:	popl	%ebx
	subl	$(1b - la57_blob), %ebx
	/* PCIDE must be clear before CR0.PG is */
	movl	%cr4, %eax
	andl	$~CR4_PCIDE, %eax
	movl	%eax, %cr4
	movl	%cr0, %eax
	andl	$~CR0_PG, %eax
	movl	%eax, %cr0
	/* paging off, IA-32e mode inactive: exceptions use the 32-bit IDT */
	lidt	LA57_DATA + LA57_P_IDTR32(%ebx)
	cmpl	$0, LA57_DATA + LA57_P_RAISE(%ebx)
	je	2f
	ud2
2:	movl	LA57_DATA + LA57_P_CR4(%ebx), %eax
	movl	%eax, %cr4
	movl	LA57_DATA + LA57_P_CR3(%ebx), %eax
	movl	%eax, %cr3
	movl	%cr0, %eax
	orl	$CR0_PG, %eax
	movl	%eax, %cr0
	/* IA-32e mode again, compatibility mode: on to 64-bit code */
	leal	(long64 - la57_blob)(%ebx), %eax
	pushl	$LA57_SEL_CODE64
	pushl	%eax
	lretl

	.code64
long64:
	lidt	DATA(LA57_P_IDTR_SAVE)(%rip)
	lgdt	DATA(LA57_P_GDTR_SAVE)(%rip)
	movw	DATA(LA57_P_SS)(%rip), %ax
	movw	%ax, %ss
	movw	DATA(LA57_P_DS)(%rip), %ax
	movw	%ax, %ds
	movw	DATA(LA57_P_ES)(%rip), %ax
	movw	%ax, %es
	movq	DATA(LA57_P_RSP)(%rip), %rsp
	movzwl	DATA(LA57_P_CS)(%rip), %eax
	leaq	3f(%rip), %rcx
	pushq	%rax
	pushq	%rcx
	lretq
3:	popfq
	POP_CALLEE_SAVED
	ret

/*
 * The window's 32-bit exception handlers: 16-byte stubs at la57_stubs32 +
 * 16 * vector push (error code,) vector and go to window_fault, which
 * writes one line to COM1 and halts (or leaves QEMU when asked).
 */
	.code32
	.balign	16
	.globl	la57_stubs32
	.hidden	la57_stubs32
la57_stubs32:
	.set	vec, 0
	.rept	LA57_IDT32_VECTORS
	.org	la57_stubs32 + 16 * vec, 0xcc
	.if	!HAS_ERRCODE(vec)
	pushl	$0
	.endif
	pushl	$vec
	jmp	window_fault
	.set	vec, vec + 1
	.endr
	.org	la57_stubs32 + 16 * LA57_IDT32_VECTORS, 0xcc

/* FIELD msg, value: the string msg to COM1, then the 32-bit value in hex. */
	.macro	FIELD msg, value
	leal	(\msg - la57_blob)(%ebx), %esi
	call	puts32
	movl	\value, %eax
	call	puthex32
	.endm

/* Stack: vector, error code, EIP, CS, EFLAGS. */
window_fault:
	cli
	call	1f
1:	popl	%ebx
	subl	$(1b - la57_blob), %ebx
	FIELD	msg_head, 0(%esp)
	FIELD	msg_error, 4(%esp)
	FIELD	msg_eip, 8(%esp)
	FIELD	msg_cr0, %cr0
	FIELD	msg_cr4, %cr4
	leal	(msg_tail - la57_blob)(%ebx), %esi
	call	puts32
	cmpl	$0, LA57_DATA + LA57_P_EXIT(%ebx)
	je	2f
	movl	$LA57_EXIT_CODE, %eax
	movw	$0xf4, %dx
	outl	%eax, %dx
2:	hlt
	jmp	2b

/* puts32: the NUL-terminated string at %esi to COM1. */
puts32:
	movzbl	(%esi), %eax
	testl	%eax, %eax
	jz	1f
	call	putc32
	incl	%esi
	jmp	puts32
1:	ret

/* puthex32: %eax as 8 hex digits. */
puthex32:
	pushl	%ecx
	pushl	%ebp
	movl	%eax, %ebp
	movl	$8, %ecx
1:	roll	$4, %ebp
	movl	%ebp, %eax
	andl	$0xf, %eax
	addl	$'0', %eax
	cmpl	$'9', %eax
	jbe	2f
	addl	$('a' - '9' - 1), %eax
2:	pushl	%ecx
	call	putc32
	popl	%ecx
	loop	1b
	popl	%ebp
	popl	%ecx
	ret

/* putc32: %al to COM1, waiting (bounded) for the transmitter. */
putc32:
	pushl	%edx
	pushl	%edi
	movl	%eax, %edi
	movl	$1000000, %ecx
1:	movw	$(COM1 + 5), %dx
	inb	%dx, %al
	testb	$0x20, %al
	jnz	2f
	loop	1b
2:	movl	%edi, %eax
	movw	$COM1, %dx
	outb	%al, %dx
	popl	%edi
	popl	%edx
	ret

msg_head:	.asciz	"\r\nptlab: exception in the LA57 switch window (paging off): vector=0x"
msg_error:	.asciz	" error=0x"
msg_eip:	.asciz	" eip=0x"
msg_cr0:	.asciz	" cr0=0x"
msg_cr4:	.asciz	" cr4=0x"
msg_tail:	.asciz	"; halted\r\n"

	.globl	la57_blob_end
	.hidden	la57_blob_end
la57_blob_end:
	.code64

	.section .note.GNU-stack, "", @progbits
