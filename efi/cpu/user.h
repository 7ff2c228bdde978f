/* SPDX-License-Identifier: MIT */
/*
 * CPL 3 for the MMU probes (user.c, user_asm.S): user code and data
 * descriptors beside ours, RSP0 in our TSS for the way back, a gate of DPL 3
 * the user stub returns through, and one excursion to CPL 3 that ends in
 * that gate or in any exception.
 *
 *	user_enable(&why);	(traps installed, interrupts off)
 *	user_run(rip, rsp, rdi, rflags, &f);	CPL 3 at rip with rdi, back at
 *						the first exception or int
 *	user_disable();		GDT, selectors, FS/GS bases, RSP0, gate as before
 *
 * The way back is trap_guard(): the exception that ends the excursion (the
 * stub's int USER_VEC_RETURN, a #PF, a #GP ...) reaches the guard, which
 * resumes at CPL 0 with our CS and SS.  An IRET to CPL 3 may null DS, ES,
 * FS and GS (SDM Vol. 3A, IRET, "return to outer privilege level"), so
 * while enabled a GDT of this module is loaded that holds a data
 * descriptor at each of their indices, and user_disable() loads the
 * selectors back and writes the FS/GS bases; no firmware table is written.
 * Firmware-free, single processor.
 */
#ifndef PTLAB_EFI_USER_H
#define PTLAB_EFI_USER_H

#include <stdbool.h>
#include <stdint.h>

struct trap_fault;

/* The vector of the DPL 3 gate a user stub returns through (int $0x80). */
#define USER_VEC_RETURN	0x80u

/*
 * Load the user GDT (ours plus DPL 3 code and data), RSP0, gate DPL 3.
 * Returns 0, or -1 with *@why set (nothing changed): traps not installed,
 * a firmware data selector in the LDT or beyond 62 entries, our GDT too
 * large.
 */
int user_enable(const char **why);

/* Everything user_enable() changed, back; a no-op when not enabled. */
void user_disable(void);

/*
 * Enter CPL 3 at @rip with RSP @rsp, RDI @rdi and RFLAGS @rflags (IF is
 * forced off, bit 1 on).  Returns 0 when the stub came back through the
 * gate (f->vector USER_VEC_RETURN, f->rip after the int), 1 for any other
 * exception, *@f describing it (vector, error, CR2, RIP); -1 when not
 * enabled.
 */
int user_run(uint64_t rip, uint64_t rsp, uint64_t rdi, uint64_t rflags, struct trap_fault *f);

/* The user code and stack selectors (RPL 3) while enabled. */
uint16_t user_cs(void);
uint16_t user_ss(void);

/* PKRU (SDM Vol. 3A 4.6.2): only with CR4.PKE set. */
static inline uint32_t rdpkru(void)
{
	uint32_t eax, edx;

	__asm__ volatile(".byte 0x0f, 0x01, 0xee" : "=a"(eax), "=d"(edx) : "c"(0));
	return eax;
}

static inline void wrpkru(uint32_t v)
{
	__asm__ volatile(".byte 0x0f, 0x01, 0xef" : : "a"(v), "c"(0), "d"(0) : "memory");
}

#endif
