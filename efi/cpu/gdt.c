/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the CPU state restore that execute no privileged instruction,
 * so the host tests run them: GDT lookups on tables in ordinary memory, and
 * the order of the register writes.
 *
 * No firmware calls (firmware-free: in the host archive).
 */
#include <stddef.h>

#include "cpu/gdt.h"

#define DESC_TYPE_BYTE	5		/* P | DPL | S | type, SDM Vol. 3A §3.4.5 */
#define TSS64_BUSY	0x8bu		/* present, DPL 0, system, busy 64-bit TSS */
#define TSS64_MASK	0x9fu		/* P, S and type; DPL ignored */
#define TSS_BUSY_BIT	0x02u		/* type 0xB (busy) vs 0x9 (available) */

#define GDT_CODE64	UINT64_C(0x00af9a000000ffff)	/* present, DPL 0, L=1, execute/read */
#define GDT_DATA	UINT64_C(0x00cf92000000ffff)	/* present, DPL 0, read/write, 4 GiB */

bool cpu_gdt_layout(uint64_t *gdt, unsigned int cap, uint16_t cs, uint16_t ss,
		    uint64_t tss_base, uint32_t tss_limit, uint16_t *limit, uint16_t *tss_sel)
{
	unsigned int ci = cs >> 3, si = ss >> 3, t, top;

	if ((cs & 7) || (ss & 7) || !ci || (si && si == ci))
		return false;
	for (t = 1; t == ci || t + 1 == ci || (si && (t == si || t + 1 == si)); t++)
		;
	top = t + 1;
	if (ci > top)
		top = ci;
	if (si > top)
		top = si;
	if (top >= cap)
		return false;
	for (unsigned int i = 0; i <= top; i++)
		gdt[i] = 0;
	gdt[ci] = GDT_CODE64;
	if (si)
		gdt[si] = GDT_DATA;
	/* Type 9: available 64-bit TSS (SDM Vol. 3A §8.2.3); ltr marks it busy. */
	gdt[t] = (tss_limit & 0xffff) | ((tss_base & 0xffffff) << 16) | (UINT64_C(0x89) << 40) |
		 ((uint64_t)((tss_limit >> 16) & 0xf) << 48) | (((tss_base >> 24) & 0xff) << 56);
	gdt[t + 1] = tss_base >> 32;
	*limit = (uint16_t)(8 * (top + 1) - 1);
	*tss_sel = (uint16_t)(t << 3);
	return true;
}

/* Selector @sel names a 16-byte system descriptor inside @gdtr's limit. */
static bool sel_in_gdt(const struct desc_ptr *gdtr, uint16_t sel)
{
	uint32_t off = sel & ~7u;

	return off && !(sel & 4) && off + 15 <= gdtr->limit;
}

bool cpu_gdt_has_busy_tss(const struct desc_ptr *gdtr, uint16_t tr)
{
	const volatile uint8_t *type;

	if (!sel_in_gdt(gdtr, tr))
		return false;
	type = (const volatile uint8_t *)(uintptr_t)(gdtr->base + (tr & ~7u) + DESC_TYPE_BYTE);
	return (*type & TSS64_MASK) == TSS64_BUSY;
}

bool cpu_gdt_copy_for_ltr(const struct desc_ptr *gdtr, uint16_t tr, void *scratch,
			  uint32_t scratch_bytes, struct desc_ptr *copy)
{
	const volatile uint8_t *src = (const volatile uint8_t *)(uintptr_t)gdtr->base;
	uint8_t *dst = scratch;
	uint32_t off = tr & ~7u, n = off + 16;

	if (!sel_in_gdt(gdtr, tr) || !scratch || n > scratch_bytes)
		return false;
	/* bytewise and volatile: the source may be flash, read it once */
	for (uint32_t i = 0; i < n; i++)
		dst[i] = src[i];
	dst[off + DESC_TYPE_BYTE] &= (uint8_t)~TSS_BUSY_BIT;
	copy->base = (uint64_t)(uintptr_t)scratch;
	copy->limit = (uint16_t)(n - 1);
	return true;
}

unsigned cpu_restore_steps(const struct cpu_state *s, uint64_t cur_cr3, uint64_t cur_cr4,
			   uint64_t cur_efer, struct cpu_step *out)
{
	unsigned n = 0;

	/* every TLB entry of every PCID: any CR4 write that changes PGE */
	if (!s->has_pge) {
		out[n++] = (struct cpu_step){ CPU_REG_CR3, cur_cr3 };
	} else if (cur_cr4 & CR4_PGE) {
		out[n++] = (struct cpu_step){ CPU_REG_CR4, cur_cr4 & ~CR4_PGE };
	} else {
		out[n++] = (struct cpu_step){ CPU_REG_CR4, cur_cr4 | CR4_PGE };
		out[n++] = (struct cpu_step){ CPU_REG_CR4, cur_cr4 };
	}
	out[n++] = (struct cpu_step){ CPU_REG_CR3, s->cr3 };
	out[n++] = (struct cpu_step){ CPU_REG_CR4, s->cr4 };
	if (cur_efer != s->efer)
		out[n++] = (struct cpu_step){ CPU_REG_EFER, s->efer };
	if (s->has_pat)
		out[n++] = (struct cpu_step){ CPU_REG_PAT, s->pat };
	out[n++] = (struct cpu_step){ CPU_REG_CR0, s->cr0 };
	return n;
}
