/* SPDX-License-Identifier: MIT */
/*
 * Pure helpers of the CPU state's restore (gdt.c, host-tested): the GDT
 * copied for LTR, laid out around the firmware's selectors and read for a
 * busy TSS, and the paging registers' restore as a list of writes.
 * Firmware-free.
 */
#ifndef PTLAB_EFI_GDT_H
#define PTLAB_EFI_GDT_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu/cpu.h"

/*
 * The firmware-side part of restoring TR.  Copy @gdtr's table up to selector @tr's 16-byte
 * descriptor into @scratch, clear the busy bit there, and return the GDTR of
 * the copy in *@copy.  Returns false (nothing written) when @tr is null, uses
 * the LDT, lies beyond @gdtr's limit or does not fit into @scratch_bytes.
 */
bool cpu_gdt_copy_for_ltr(const struct desc_ptr *gdtr, uint16_t tr, void *scratch,
			  uint32_t scratch_bytes, struct desc_ptr *copy);

/*
 * The paging part of cpu_state_restore() as a list of register writes, in
 * order (host-tested against a model of the SDM's rules): flush
 * every TLB entry of every PCID (toggle CR4.PGE; without PGE support reload
 * @cur_cr3), CR3 = s->cr3 with its PCID, CR4 = s->cr4, EFER (only if it
 * differs from @cur_efer), PAT (if s->has_pat), CR0.  PCIDE and LA57 are
 * never changed by these writes as long as @cur_cr4 agrees with s->cr4 in
 * them; CET is written while CR0.WP is as the caller left it (set by ptlab).
 * Returns the number of steps (at most CPU_RESTORE_STEPS_MAX).
 */
enum cpu_reg { CPU_REG_CR0, CPU_REG_CR3, CPU_REG_CR4, CPU_REG_EFER, CPU_REG_PAT };

struct cpu_step {
	enum cpu_reg reg;
	uint64_t val;
};

#define CPU_RESTORE_STEPS_MAX	7u

unsigned cpu_restore_steps(const struct cpu_state *s, uint64_t cur_cr3, uint64_t cur_cr4,
			   uint64_t cur_efer, struct cpu_step *out);

/*
 * Lay out a GDT around the firmware's @cs and @ss selectors (host-tested), so
 * that no segment register ever needs loading: a flat
 * 64-bit code descriptor at @cs's index, a data descriptor at @ss's (none
 * for a null SS), an available 64-bit TSS (@tss_base, @tss_limit) in the
 * first two free slots, every other entry up to the highest used one zero.
 * On success *@limit is the GDTR limit and *@tss_sel the TSS selector.
 * Returns false, with @gdt untouched, when that is impossible: a selector in
 * the LDT or with RPL other than 0, a null CS, CS and SS sharing an index, or
 * a layout larger than @cap entries.
 */
bool cpu_gdt_layout(uint64_t *gdt, unsigned int cap, uint16_t cs, uint16_t ss,
		    uint64_t tss_base, uint32_t tss_limit, uint16_t *limit, uint16_t *tss_sel);

/* 1 if a present busy 64-bit TSS descriptor is at @tr in the GDT @gdtr. */
bool cpu_gdt_has_busy_tss(const struct desc_ptr *gdtr, uint16_t tr);

#endif
