/* SPDX-License-Identifier: MIT */
/*
 * A minimal Limine-protocol kernel for ptlab's boot tests: it judges the
 * state ptlab entered it with and ends QEMU through isa-debug-exit (port
 * 0xf4): 0x31 (QEMU status 99) when every point held, else 0x40 + the
 * number of the first point that did not.  It also writes one line to
 * the debug console (port 0xe9).
 *
 *  1 the return address on the stack is 0          7 SMP response present
 *  2 IF clear, DF clear                           8 every AP reached ap_entry
 *  3 CS = 0x28, SS = 0x30                           (RDI = its lm_smp_info,
 *  4 the base revision tag answered (word 3 = 0)     return address 0)
 *  5 HHDM response, offset in the higher half     9 the kernel address
 *  6 memory map response with entries                response names our va
 *                                                 10 a pointer in the data (a
 *                                                    relocation when linked
 *                                                    -pie) holds _start's address
 * It asks for base revision 2, or the one --defsym BASEREV=N names.
 * With --defsym IMOD=1 its module request (revision 1) lists a required
 * internal module, inothere.bin beside it (for a refusal).
 * Assembled with --defsym PAGING5=1 it also asks for 5-level paging
 * (paging mode request revision 1: mode 5 levels, max 5, min 4; with
 * --defsym MIN5=1 too, min 5: a kernel that cannot run at 4 levels) and
 * checks:                                         11 the paging mode response
 *                                                    names the mode CR4.LA57 has
 */
.ifndef BASEREV
	.set	BASEREV, 2
.endif

	.section .text, "ax"
	.globl	_start
_start:
	cmpq	$0, (%rsp)
	jne	fail1
	pushfq
	popq	%rax
	testq	$0x600, %rax		/* IF (bit 9), DF (bit 10) */
	jnz	fail2
	movw	%cs, %ax
	cmpw	$0x28, %ax
	jne	fail3
	movw	%ss, %ax
	cmpw	$0x30, %ax
	jne	fail3
	cmpq	$0, base_rev+16(%rip)
	jne	fail4
	movq	hhdm_req+40(%rip), %rax
	testq	%rax, %rax
	jz	fail5
	movq	8(%rax), %rbx
	btq	$63, %rbx
	jnc	fail5
	movq	memmap_req+40(%rip), %rax
	testq	%rax, %rax
	jz	fail6
	cmpq	$0, 8(%rax)
	je	fail6
	movq	kaddr_req+40(%rip), %rax
	testq	%rax, %rax
	jz	fail9
	leaq	_start(%rip), %rbx
	andq	$~0xfff, %rbx
	cmpq	%rbx, 16(%rax)
	jne	fail9
	leaq	_start(%rip), %rbx
	cmpq	%rbx, self_ptr(%rip)
	jne	fail10
.ifdef PAGING5
	movq	paging_req+40(%rip), %rax
	testq	%rax, %rax
	jz	fail11
	movq	%cr4, %rbx
	shrq	$12, %rbx		/* LA57 */
	andq	$1, %rbx
	cmpq	%rbx, 8(%rax)
	jne	fail11
.endif
	/* every AP to ap_entry, then wait for all of them */
	movq	smp_req+40(%rip), %rax
	testq	%rax, %rax
	jz	fail7
	movl	12(%rax), %r8d		/* bsp_lapic_id */
	movq	16(%rax), %rcx		/* cpu_count */
	movq	24(%rax), %rsi		/* cpus */
	leaq	ap_entry(%rip), %r9
	xorq	%r10, %r10		/* APs sent */
	xorq	%rdx, %rdx
1:	cmpq	%rcx, %rdx
	jae	2f
	movq	(%rsi,%rdx,8), %rdi
	cmpl	4(%rdi), %r8d
	je	3f
	movq	%r9, 16(%rdi)		/* goto_address: one 8-byte store */
	incq	%r10
3:	incq	%rdx
	jmp	1b
2:	movq	$2000000000, %rcx	/* bounded wait */
4:	cmpq	%r10, ap_count(%rip)
	je	5f
	pause
	decq	%rcx
	jnz	4b
	jmp	fail8
5:	leaq	msg(%rip), %rsi
	movw	$0xe9, %dx
6:	lodsb
	testb	%al, %al
	jz	7f
	outb	%al, %dx
	jmp	6b
7:	movb	$0x31, %al
	outb	%al, $0xf4
	jmp	halt

ap_entry:
	cmpq	$0, (%rsp)
	jne	9f
	movq	smp_req+40(%rip), %rax
	movq	24(%rax), %rsi
	xorq	%rdx, %rdx
8:	cmpq	%rdi, (%rsi,%rdx,8)	/* RDI is one of the lm_smp_info pointers */
	je	10f
	incq	%rdx
	cmpq	16(%rax), %rdx
	jb	8b
	jmp	9f
10:	lock incq ap_count(%rip)
9:	cli
	hlt
	jmp	9b

fail1:	movb	$0x41, %al
	jmp	out
fail2:	movb	$0x42, %al
	jmp	out
fail3:	movb	$0x43, %al
	jmp	out
fail4:	movb	$0x44, %al
	jmp	out
fail5:	movb	$0x45, %al
	jmp	out
fail6:	movb	$0x46, %al
	jmp	out
fail7:	movb	$0x47, %al
	jmp	out
fail8:	movb	$0x48, %al
	jmp	out
fail9:	movb	$0x49, %al
	jmp	out
fail10:	movb	$0x4a, %al
	jmp	out
fail11:	movb	$0x4b, %al
out:	outb	%al, $0xf4
halt:	cli
	hlt
	jmp	halt

	.section .rodata, "a"
msg:	.asciz	"limine-mini: every point held\n"

	.section .data, "aw"
	.balign	8
base_rev:
	.quad	0xf9562b2d5c95a6c8, 0x6a7b384944536bdc, BASEREV
hhdm_req:
	.quad	0xc7b1dd30df4c8b88, 0x0a82e883a194f07b, 0x48dcf1cb8ad2b852, 0x63984e959a98244b, 0, 0
memmap_req:
	.quad	0xc7b1dd30df4c8b88, 0x0a82e883a194f07b, 0x67cf3d9d378a806f, 0xe304acdfc50c3c62, 0, 0
smp_req:
	.quad	0xc7b1dd30df4c8b88, 0x0a82e883a194f07b, 0x95a67b819a1b857e, 0xa0b61b723b6a73e0, 0, 0, 0
kaddr_req:
	.quad	0xc7b1dd30df4c8b88, 0x0a82e883a194f07b, 0x71ba76863cc55f63, 0xb2644a48c516a487, 0, 0
ap_count:
	.quad	0
self_ptr:
	.quad	_start
.ifdef PAGING5
paging_req:
	.quad	0xc7b1dd30df4c8b88, 0x0a82e883a194f07b, 0x95c1a0edab0944cb, 0xa4e5cb3842f7488a, 1, 0
.ifdef MIN5
	.quad	1, 1, 1			/* 5 levels and nothing less: refused without LA57 */
.else
	.quad	1, 1, 0
.endif
.endif
.ifdef IMOD
/* a module request of revision 1 with one internal module, marked required */
module_req:
	.quad	0xc7b1dd30df4c8b88, 0x0a82e883a194f07b, 0x3e7e279702be32af, 0xca1c4f3bd1280cee, 1, 0
	.quad	1, imod_list
imod_list:
	.quad	imod
imod:
	.quad	imod_path, imod_string, 1
imod_path:
	.asciz	"inothere.bin"
imod_string:
	.asciz	"a required internal module"
.endif

	.section .note.GNU-stack, "", @progbits
