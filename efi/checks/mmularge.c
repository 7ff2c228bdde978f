/* SPDX-License-Identifier: MIT */
/*
 * mmu-large-pre (see mmularge.h).  Our own tables map the image with 1 GiB
 * leaves where they can; a CPU that translates those wrongly (SDM 4.5,
 * Tables 4-16 and 4-18: a PS PDPTE maps 1 GiB, its offset is bits 29:0 of
 * the address) cannot deliver the first exception after the switch, and
 * the machine resets with no verdict.  So the large leaves are first
 * probed under a hierarchy whose every other mapping is the firmware's:
 *
 *  - a root frame of ours (the data area's pool, D + 4M) holding a copy of
 *    the firmware's root entries (firmware memory is only read), plus one
 *    root slot the firmware leaves empty, pointing at tables of ours with a
 *    1 GiB leaf over the data area's GiB (big_pa) and a 2 MiB leaf over
 *    D + 2M;
 *  - marker bytes at several offsets of D + 2M, each unlike the bytes a
 *    walk that lost offset bits 29:21 or 20:12, or took bit 12 (PAT) for an
 *    address bit, would reach instead;
 *  - with our IDT installed (interrupts off, no firmware call), that root
 *    loaded, each marker read through both leaves by the fault probes, the
 *    firmware's CR3 back; each byte compared with the one at the leaf's
 *    frame plus the offset, read through the firmware's identity map.
 */
#include <ptlab/pte.h>

#include "checks/inject.h"
#include "checks/mmularge.h"
#include "cpu/cpu.h"
#include "cpu/trap.h"
#include "report/report.h"
#include "state/state.h"

#define MID_OFF		(UINT64_C(2) << 20)	/* the 2 MiB leaf's frame, from D */
#define POOL_OFF	(UINT64_C(4) << 20)	/* our table frames, from D */
#define WRONG_OFF	(UINT64_C(6) << 20)	/* --inject: the 2 MiB leaf's frame instead */
#define NOFF		5u
#define NAME		"mmu-large-pre: 1 GiB and 2 MiB leaves before the switch"

/* Offsets in the 2 MiB frame: bits 20:12 set and clear, bit 12 both ways, no two alike mod 4 KiB. */
static const uint64_t offs[NOFF] = { 0x000a5, 0x01f3c, 0x5a6d7, 0x10b2e1, 0x1ff7f8 };

static uint64_t *tab(uint64_t pa)
{
	return (uint64_t *)(uintptr_t)pa;
}

static uint8_t byte_at(uint64_t pa)
{
	return *(volatile uint8_t *)(uintptr_t)pa;
}

static void zero(uint64_t pa)
{
	for (unsigned int i = 0; i < 512; i++)
		tab(pa)[i] = 0;
}

struct large {
	unsigned int levels, slot;
	bool big;
	uint64_t root, mid, big_pa, base;	/* base: the slot's first address */
	uint64_t pdpt, pd;
	uint8_t mark[NOFF];
};

/* The lowest empty slot of the firmware's root in the lower half, or 0. */
static unsigned int free_slot(uint64_t fw_root)
{
	for (unsigned int i = 1; i < 256; i++)
		if (!(tab(fw_root)[i] & PTE_P))
			return i;
	return 0;
}

/*
 * A marker for offset @k unlike every byte a wrong walk would read instead:
 * the PAT alias (bit 12 flipped), the 4 KiB piece of the frame's start (bits
 * 20:12 lost), the GiB's first 2 MiB at the same offset (bits 29:21 lost).
 */
static uint8_t marker_for(const struct large *L, unsigned int k)
{
	uint64_t x = offs[k];
	uint64_t alias[3] = { L->mid + (x ^ 0x1000), L->mid + (x & 0xfff), L->big_pa + x };

	for (unsigned int m = 0x5au + 37u * k; ; m++) {
		bool ok = true;

		for (unsigned int a = 0; a < 3; a++)
			if ((a < 2 || L->big) && (uint8_t)m == byte_at(alias[a]))
				ok = false;
		if (ok)
			return (uint8_t)m;
	}
}

/* Our tables and the markers, written through the firmware's identity map. */
static void build(struct large *L, uint64_t fw_root, uint64_t leaf2m)
{
	uint64_t pool = L->root, t, next;

	for (unsigned int i = 0; i < 512; i++)
		tab(L->root)[i] = tab(fw_root)[i];
	t = L->root;
	for (unsigned int l = L->levels - 1; l > 3; l--) {	/* a PML4 under a PML5 */
		next = pool += PT_PAGE_SIZE;
		zero(next);
		tab(t)[t == L->root ? L->slot : 0] = next | PTE_P | PTE_W;
		t = next;
	}
	L->pdpt = pool += PT_PAGE_SIZE;
	L->pd = pool += PT_PAGE_SIZE;
	zero(L->pdpt);
	zero(L->pd);
	tab(t)[t == L->root ? L->slot : 0] = L->pdpt | PTE_P | PTE_W;
	if (L->big)
		tab(L->pdpt)[0] = L->big_pa | PTE_P | PTE_W | PTE_PS;
	tab(L->pdpt)[1] = L->pd | PTE_P | PTE_W;
	tab(L->pd)[0] = leaf2m | PTE_P | PTE_W | PTE_PS;
	for (unsigned int k = 0; k < NOFF; k++) {
		L->mark[k] = marker_for(L, k);
		*(volatile uint8_t *)(uintptr_t)(L->mid + offs[k]) = L->mark[k];
		if (leaf2m != L->mid)
			*(volatile uint8_t *)(uintptr_t)(leaf2m + offs[k]) = (uint8_t)~L->mark[k];
	}
}

/* One read: res = { faulted, byte }, the fault in *@f. */
static void probe(uint64_t va, uint8_t res[2], struct trap_fault *f)
{
	uint64_t v = 0;

	res[0] = probe_read8(va, &v, f) != 0;
	res[1] = (uint8_t)v;
}

/* The reads, under our root: results[leaf][k] = { faulted, byte }, faults kept. */
static void read_all(const struct large *L, uint8_t res[2][NOFF][2], struct trap_fault f[2][NOFF])
{
	uint64_t fw_cr3 = read_cr3();

	write_cr3(L->root | (fw_cr3 & 0xfff));
	cpu_flush_tlb_all();
	for (unsigned int k = 0; k < NOFF; k++) {
		if (L->big)
			probe(L->base + (L->mid - L->big_pa) + offs[k], res[1][k], &f[1][k]);
		probe(L->base + PT_SIZE_1G + offs[k], res[0][k], &f[0][k]);
	}
	write_cr3(fw_cr3);
	cpu_flush_tlb_all();
}

/* Compare each read with the byte at the leaf's frame plus the offset (SDM 4.5). */
static unsigned int judge(struct check_run *run, const struct large *L, uint8_t res[2][NOFF][2],
			  const struct trap_fault f[2][NOFF])
{
	static const char *const name[2] = { "2 MiB", "1 GiB" };
	unsigned int bad = 0;

	for (unsigned int s = 0; s < 2; s++) {
		for (unsigned int k = 0; k < NOFF && (s == 0 || L->big); k++) {
			uint64_t off = s ? (L->mid - L->big_pa) + offs[k] : offs[k];
			uint64_t va = L->base + (s ? 0 : PT_SIZE_1G) + off;
			uint64_t pa = (s ? L->big_pa : L->mid) + off;
			uint8_t want = byte_at(pa);

			if (res[s][k][0]) {
				report_note(run->rep, "%s leaf: read of va 0x%llx (offset 0x%llx) "
					    "faulted: vector %u error 0x%llx cr2 0x%llx", name[s],
					    (unsigned long long)va, (unsigned long long)off,
					    f[s][k].vector, (unsigned long long)f[s][k].error,
					    (unsigned long long)f[s][k].cr2);
				bad++;
			} else if (res[s][k][1] != want) {
				report_note(run->rep, "%s leaf: va 0x%llx (offset 0x%llx): expected "
					    "pa 0x%llx (SDM 4.5: the leaf's frame plus the offset), "
					    "whose byte is 0x%02x; the CPU read 0x%02x", name[s],
					    (unsigned long long)va, (unsigned long long)off,
					    (unsigned long long)pa, want, res[s][k][1]);
				bad++;
			}
		}
	}
	return bad;
}

/* Why the check cannot run here, or NULL. */
static const char *cannot(const struct check_run *run, struct large *L)
{
	const struct ptlab_data *d = run->data;
	uint64_t fw_root = read_cr3() & PTE_ADDR_MASK;

	if (trap_installed() || run->live->on)
		return "the firmware's CR3 is not the one loaded (after the hand-off)";
	if (!(read_cr0() & CR0_PG) || !(read_efer() & EFER_LMA))
		return "the firmware is not in long mode with paging";
	if (d->len < WRONG_OFF + PT_SIZE_2M)
		return "the data area is too small";
	L->levels = (read_cr4() & CR4_LA57) ? 5 : 4;
	L->slot = free_slot(fw_root);
	if (!L->slot)
		return "no empty slot in the lower half of the firmware's root";
	return NULL;
}

static void check_large_pre(struct check_run *run, const struct ptlab_check *self)
{
	const struct ptlab_data *d = run->data;
	struct large L = { .big = d->big_ok };
	uint8_t res[2][NOFF][2] = { { { 0 } } };
	struct trap_fault f[2][NOFF];
	const char *why = cannot(run, &L);
	unsigned int bad;

	if (why) {
		report_skip(run->rep, NAME, "%s", why);
		return;
	}
	L.mid = d->pa + MID_OFF;
	L.big_pa = d->big_pa;
	L.root = d->pa + POOL_OFF;
	L.base = (uint64_t)L.slot << (12 + 9 * (L.levels - 1));
	if (trap_install() != 0) {
		report_skip(run->rep, NAME, "our IDT could not be installed");
		return;
	}
	/* --inject: the 2 MiB leaf maps another frame of ours, holding other bytes */
	build(&L, read_cr3() & PTE_ADDR_MASK,
	      inject_on(run->opts, self) ? d->pa + WRONG_OFF : L.mid);
	read_all(&L, res, f);
	trap_uninstall();
	bad = judge(run, &L, res, f);
	if (!L.big)
		report_skip(run->rep, "mmu-large-pre: 1 GiB leaves", "%s", run->cpu->caps.pdpe1gb ?
			    "no GiB of the data area is all RAM" :
			    "the CPU has no 1 GiB pages (CPUID.80000001h:EDX[26])");
	if (bad) {
		report_fail(run->rep, "%s: %u of %u reads differ from the SDM's translation", NAME,
			    bad, NOFF * (L.big ? 2u : 1u));
		/* our tables map with such leaves: after the switch the next exception may reset */
		*run->aborted = true;
	} else
		report_ok(run->rep, "%s: %u reads agree with the leaf's frame plus the offset",
			  NAME, NOFF * (L.big ? 2u : 1u));
}

const struct ptlab_check mmu_large_pre = {
	NAME, PTLAB_PHASE_STATIC, check_large_pre,
	{ "large-pre-frame", "the 2 MiB leaf of mmu-large-pre maps another frame than the "
	  "one the check expects", PTLAB_FAULT_HOOK, NULL, NULL },
};
