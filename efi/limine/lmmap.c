/* SPDX-License-Identifier: MIT */
/*
 * The Limine memory map and the HHDM's ranges (see lmmap.h).
 *
 * No firmware calls (firmware-free: in the host archive).  The map is
 * made by a sweep over every boundary of the inputs: between two
 * consecutive boundaries one type holds (a list's over the firmware's),
 * so the output is sorted and overlap-free by construction, and every
 * boundary is a page boundary because the lists are rounded outwards
 * and the normalized map is page-aligned already.
 */
#include <string.h>

#include "limine/lmerr.h"
#include "limine/lmmap.h"

#include <ptlab/pte.h>

#define FOUR_GIB (UINT64_C(1) << 32)

typedef unsigned long long ull;

unsigned lm_mem_type_of(uint32_t efi_type)
{
	switch (efi_type) {
	case PT_EFI_CONVENTIONAL:
	case PT_EFI_BS_CODE:
	case PT_EFI_BS_DATA:
		return LM_MEM_USABLE;
	case PT_EFI_LOADER_CODE:
	case PT_EFI_LOADER_DATA:
		return LM_MEM_BOOTLOADER_RECLAIMABLE;
	case PT_EFI_ACPI_RECLAIM:
		return LM_MEM_ACPI_RECLAIMABLE;
	case PT_EFI_ACPI_NVS:
		return LM_MEM_ACPI_NVS;
	case PT_EFI_UNUSABLE:
		return LM_MEM_BAD_MEMORY;
	default:
		return LM_MEM_RESERVED;
	}
}

unsigned lm_map_bound(const struct lm_map_in *in)
{
	/* each list range splits one entry in three at most; page 0 splits one */
	return in->fw->n + 2 * (in->nreclaim + in->nkernel + in->nfb) + 2;
}

/* The three lists, walked as one: index i over reclaim, kernel, fb. */
struct item {
	uint64_t a, b;       /* [a, b), rounded outwards to pages */
	unsigned type;
	const char *what;
};

static unsigned nitems(const struct lm_map_in *in)
{
	return in->nreclaim + in->nkernel + in->nfb;
}

/* Returns list item @i of @in, rounded; false when it is empty or wraps. */
static bool item(const struct lm_map_in *in, unsigned i, struct item *it)
{
	const struct lm_range *r;

	if (i < in->nreclaim) {
		r = &in->reclaim[i];
		it->type = LM_MEM_BOOTLOADER_RECLAIMABLE;
		it->what = "bootloader-reclaimable";
	} else if (i < in->nreclaim + in->nkernel) {
		r = &in->kernel[i - in->nreclaim];
		it->type = LM_MEM_KERNEL_AND_MODULES;
		it->what = "kernel/modules";
	} else {
		r = &in->fb[i - in->nreclaim - in->nkernel];
		it->type = LM_MEM_FRAMEBUFFER;
		it->what = "framebuffer";
	}
	it->a = r->pa & ~(PT_PAGE_SIZE - 1);
	if (!r->len || r->pa + r->len < r->pa || r->pa + r->len > UINT64_MAX - (PT_PAGE_SIZE - 1)) {
		it->b = r->pa + r->len;
		return false;
	}
	it->b = (r->pa + r->len + PT_PAGE_SIZE - 1) & ~(PT_PAGE_SIZE - 1);
	return true;
}

/* Returns whether [a, b) is wholly covered by firmware ranges of RAM (usable or loader). */
static bool on_ram(const struct pt_memmap *fw, uint64_t a, uint64_t b)
{
	for (unsigned i = 0; i < fw->n && a < b; i++) {
		const struct pt_mem_range *r = &fw->range[i];
		unsigned t = lm_mem_type_of(r->type);

		if (r->pa + r->len <= a)
			continue;
		if (r->pa > a)
			return false;
		if (t != LM_MEM_USABLE && t != LM_MEM_BOOTLOADER_RECLAIMABLE)
			return false;
		a = r->pa + r->len;
	}
	return a >= b;
}

/* Checks the lists; returns 0 or -1 with @why. */
static int check_lists(const struct lm_map_in *in, char *why, size_t whylen)
{
	unsigned n = nitems(in);
	struct item x, y;

	for (unsigned i = 0; i < n; i++) {
		if (!item(in, i, &x))
			return lm_refuse(why, whylen, "%s range [0x%llx, 0x%llx) is empty or wraps",
				x.what, (ull)x.a, (ull)x.b);
		if (x.type != LM_MEM_FRAMEBUFFER && !on_ram(in->fw, x.a, x.b))
			return lm_refuse(why, whylen, "%s range [0x%llx, 0x%llx) is not all RAM of the firmware's map",
				x.what, (ull)x.a, (ull)x.b);
		for (unsigned j = 0; j < i; j++) {
			item(in, j, &y);
			if (x.a < y.b && y.a < x.b)
				return lm_refuse(why, whylen, "%s range [0x%llx, 0x%llx) overlaps %s range [0x%llx, 0x%llx)",
					x.what, (ull)x.a, (ull)x.b, y.what, (ull)y.a, (ull)y.b);
		}
	}
	return 0;
}

/*
 * Returns the type at @p: the list range's holding it, else the firmware's,
 * else -1 (a hole).  Page 0 is never usable.
 */
static int type_at(const struct lm_map_in *in, uint64_t p)
{
	unsigned n = nitems(in);
	int t = -1;
	struct item it;

	/* the lists never overlap one another (check_lists): one holds @p at most */
	for (unsigned i = 0; i < n && t < 0; i++) {
		item(in, i, &it);
		if (p >= it.a && p < it.b)
			t = (int)it.type;
	}
	if (t < 0)
		for (unsigned i = 0; i < in->fw->n; i++) {
			const struct pt_mem_range *r = &in->fw->range[i];

			if (p >= r->pa && p - r->pa < r->len) {
				t = (int)lm_mem_type_of(r->type);
				break;
			}
		}
	if (t == LM_MEM_USABLE && p < PT_PAGE_SIZE)
		t = LM_MEM_RESERVED;
	return t;
}

/* Returns the lowest boundary above @p (UINT64_MAX: none); 4 KiB is one, for page 0. */
static uint64_t next_edge(const struct lm_map_in *in, uint64_t p)
{
	uint64_t q = p < PT_PAGE_SIZE ? PT_PAGE_SIZE : UINT64_MAX;
	unsigned n = nitems(in);
	struct item it;

	for (unsigned i = 0; i < n; i++) {
		item(in, i, &it);
		if (it.a > p && it.a < q)
			q = it.a;
		if (it.b > p && it.b < q)
			q = it.b;
	}
	for (unsigned i = 0; i < in->fw->n; i++) {
		uint64_t a = in->fw->range[i].pa, b = a + in->fw->range[i].len;

		if (a > p && a < q)
			q = a;
		if (b > p && b < q)
			q = b;
	}
	return q;
}

/* Returns the lowest start of any input range (UINT64_MAX: none). */
static uint64_t first_start(const struct lm_map_in *in)
{
	uint64_t q = UINT64_MAX;
	unsigned n = nitems(in);
	struct item it;

	for (unsigned i = 0; i < n; i++) {
		item(in, i, &it);
		if (it.a < q)
			q = it.a;
	}
	if (in->fw->n && in->fw->range[0].pa < q)
		q = in->fw->range[0].pa;
	return q;
}

int lm_map_build(const struct lm_map_in *in, struct lm_memmap_entry *out, unsigned cap,
	unsigned *n, char *why, size_t whylen)
{
	uint64_t p, q;

	*n = 0;
	if (check_lists(in, why, whylen))
		return -1;
	for (p = first_start(in); p != UINT64_MAX; p = q) {
		int t = type_at(in, p);

		q = next_edge(in, p);
		if (t < 0 || q == UINT64_MAX)
			continue;     /* a hole: no entry (no range reaches 2^64) */
		if (*n && out[*n - 1].type == (uint64_t)t &&
		    out[*n - 1].base + out[*n - 1].length == p) {
			out[*n - 1].length += q - p;
			continue;
		}
		if (*n == cap)
			return lm_refuse(why, whylen, "the memory map needs more than %u entries", cap);
		out[*n].base = p;
		out[*n].length = q - p;
		out[*n].type = (uint64_t)t;
		(*n)++;
	}
	return 0;
}

bool lm_hhdm_maps(unsigned base_rev, uint64_t type)
{
	if (base_rev == 0)
		return true;
	return type != LM_MEM_RESERVED && type != LM_MEM_BAD_MEMORY;
}

bool lm_identity_mapped(unsigned base_rev)
{
	return base_rev == 0;
}

int lm_hhdm_ranges(unsigned base_rev, const struct lm_memmap_entry *map, unsigned n,
	struct lm_range *out, unsigned cap)
{
	uint64_t a = 0, b = FOUR_GIB;
	unsigned k = 0;

	/* map is sorted by base: one pass merges it onto [0, 4 GiB) */
	for (unsigned i = 0; i < n; i++) {
		uint64_t ea = map[i].base & ~(PT_PAGE_SIZE - 1);
		uint64_t eb = (map[i].base + map[i].length + PT_PAGE_SIZE - 1) & ~(PT_PAGE_SIZE - 1);

		if (!map[i].length || !lm_hhdm_maps(base_rev, map[i].type) || eb <= FOUR_GIB)
			continue;
		if (ea <= b) {
			if (eb > b)
				b = eb;
			continue;
		}
		if (k == cap)
			return -1;
		out[k].pa = a;
		out[k++].len = b - a;
		a = ea;
		b = eb;
	}
	if (k == cap)
		return -1;
	out[k].pa = a;
	out[k++].len = b - a;
	return (int)k;
}
