/* SPDX-License-Identifier: MIT */
/*
 * The park IDT's entry stubs (aptrap.c): 256 slots of 16 bytes, each
 * building struct trap_frame (trap.h) and calling smp_park_dispatch.
 */
#include "cpu/asm.h"
#include "cpu/trapentry.h"

	.text

	TRAP_ENTRY smp_park_stubs, smp_park_dispatch

	.section .note.GNU-stack, "", @progbits
