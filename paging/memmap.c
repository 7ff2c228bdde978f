// SPDX-License-Identifier: MIT
/*
 * Memory-map normalization.
 *
 * Each usable descriptor becomes two events, "starts at x" and "ends at x",
 * written into the caller's output array (which is why it must hold two
 * entries per descriptor).  The events are heapsorted by address and swept
 * once: between two consecutive event addresses the set of covering
 * descriptors is constant, so that elementary interval gets one type (the
 * most restrictive covering type) and one attribute set.  The sweep writes
 * its result into the same array behind the read position: the k-th output
 * range ends at the (k+1)-th distinct event address, so it always lands on
 * an event already consumed.  O(n log n) time, no memory beyond the caller's
 * array and a few KiB of stack.
 */
#include <ptlab/memmap.h>
#include <ptlab/pt.h>

#include <string.h>

#include "internal.h"

#define PAGE_MASK   (PT_PAGE_SIZE - 1)
/* Highest page-aligned address; an end clamped here stands for 2^64. */
#define TOP         (UINT64_MAX & ~PAGE_MASK)

/* Event kinds, stored in the len field of an event entry. */
#define EV_START    0
#define EV_END      1

/*
 * Restrictiveness: where descriptors overlap, the type with the higher rank
 * wins.  A byte anyone says is not free is not free: reserved and unusable
 * memory beats everything; MMIO must never be treated as RAM; memory the
 * firmware keeps for itself (ACPI NVS, runtime code, runtime data, PAL)
 * beats firmware code that runs until ExitBootServices (boot-services code),
 * which beats memory that becomes free later (ACPI reclaim after the tables
 * are read, boot-services data, loader ranges when their owner is done);
 * persistent and conventional memory lose to all.  So every type outside
 * class PT_MEM_RAM outranks every type inside it, and no usable byte is
 * ever made up from a byte some descriptor withholds (at page granularity:
 * read_desc rounds an unaligned non-RAM descriptor outwards, so a page it
 * only partly holds is withheld whole).  Code beats data of
 * the same owner: the code must stay executable.
 *
 * Types in decreasing rank; the sweep takes the first one present.
 */
static const uint8_t by_rank[PT_EFI_TYPE_COUNT] = {
	PT_EFI_RESERVED, PT_EFI_UNUSABLE, PT_EFI_UNACCEPTED, PT_EFI_MMIO,
	PT_EFI_MMIO_PORT, PT_EFI_ACPI_NVS, PT_EFI_RT_CODE, PT_EFI_RT_DATA,
	PT_EFI_PAL_CODE, PT_EFI_BS_CODE, PT_EFI_ACPI_RECLAIM, PT_EFI_BS_DATA,
	PT_EFI_LOADER_CODE, PT_EFI_LOADER_DATA, PT_EFI_PERSISTENT, PT_EFI_CONVENTIONAL,
};

enum pt_mem_class pt_mem_class_of(uint32_t type)
{
	switch (type) {
	case PT_EFI_CONVENTIONAL:
	case PT_EFI_BS_DATA:
	case PT_EFI_LOADER_CODE:
	case PT_EFI_LOADER_DATA:
	case PT_EFI_ACPI_RECLAIM:
	case PT_EFI_PERSISTENT:
		return PT_MEM_RAM;
	case PT_EFI_BS_CODE:
	case PT_EFI_RT_CODE:
	case PT_EFI_PAL_CODE:
		return PT_MEM_FW_CODE;
	case PT_EFI_RT_DATA:
	case PT_EFI_ACPI_NVS:
		return PT_MEM_FW_DATA;
	case PT_EFI_MMIO:
	case PT_EFI_MMIO_PORT:
		return PT_MEM_MMIO;
	default:
		return PT_MEM_RESERVED;
	}
}

const char *pt_efi_type_name(uint32_t type)
{
	static const char *const name[PT_EFI_TYPE_COUNT] = {
		[PT_EFI_RESERVED] = "Reserved",
		[PT_EFI_LOADER_CODE] = "LoaderCode",
		[PT_EFI_LOADER_DATA] = "LoaderData",
		[PT_EFI_BS_CODE] = "BootServicesCode",
		[PT_EFI_BS_DATA] = "BootServicesData",
		[PT_EFI_RT_CODE] = "RuntimeServicesCode",
		[PT_EFI_RT_DATA] = "RuntimeServicesData",
		[PT_EFI_CONVENTIONAL] = "Conventional",
		[PT_EFI_UNUSABLE] = "Unusable",
		[PT_EFI_ACPI_RECLAIM] = "ACPIReclaim",
		[PT_EFI_ACPI_NVS] = "ACPINVS",
		[PT_EFI_MMIO] = "MMIO",
		[PT_EFI_MMIO_PORT] = "MMIOPortSpace",
		[PT_EFI_PAL_CODE] = "PalCode",
		[PT_EFI_PERSISTENT] = "Persistent",
		[PT_EFI_UNACCEPTED] = "Unaccepted",
	};

	return type < PT_EFI_TYPE_COUNT ? name[type] : "Unknown";
}

const char *pt_quirk_name(enum pt_memmap_quirk q)
{
	switch (q) {
	case PT_QUIRK_UNSORTED:		return "unsorted";
	case PT_QUIRK_OVERLAP:		return "overlap";
	case PT_QUIRK_ZERO_LENGTH:	return "zero-length";
	case PT_QUIRK_UNALIGNED:	return "unaligned";
	case PT_QUIRK_WRAP:		return "wrap";
	case PT_QUIRK_UNKNOWN_TYPE:	return "unknown-type";
	case PT_QUIRK_ABOVE_MAXPHYS:	return "above-maxphyaddr";
	case PT_QUIRK_ABOVE_IDENTITY:	return "above-identity";
	case PT_QUIRK_COUNT:
		break;
	}
	return "unknown";
}

static void quirk(struct pt_memmap *m, enum pt_memmap_quirk q)
{
	m->quirks |= UINT32_C(1) << q;
	m->quirk_count[q]++;
}

/* Events by address (pa); the sweep needs no order within one address. */
#define EVENT_PA(e) ((e).pa)
PT_DEFINE_HEAPSORT(sort_events, struct pt_mem_range, EVENT_PA)

/* What covers the sweep position: count per type and per type and attribute bit. */
struct cover {
	unsigned total;
	unsigned type[PT_EFI_TYPE_COUNT];
	unsigned bit[PT_EFI_TYPE_COUNT][64];
};

static void cover_apply(struct cover *c, uint32_t type, uint64_t attr, bool add)
{
	c->total += add ? 1 : (unsigned)-1;
	c->type[type] += add ? 1 : (unsigned)-1;
	while (attr) {
		unsigned b = (unsigned)__builtin_ctzll(attr);

		c->bit[type][b] += add ? 1 : (unsigned)-1;
		attr &= attr - 1;
	}
}

/*
 * The winning type and its attributes: the highest-ranked type present, with
 * the union of the attribute bits of its descriptors covering this point
 * (descriptors of one type that disagree lose no bit, EFI_MEMORY_RUNTIME in
 * particular).
 */
static void cover_winner(const struct cover *c, uint32_t *type, uint64_t *attr)
{
	uint32_t t = PT_EFI_RESERVED;
	uint64_t a = 0;

	for (unsigned r = 0; r < PT_EFI_TYPE_COUNT; r++) {
		if (c->type[by_rank[r]]) {
			t = by_rank[r];
			break;
		}
	}
	for (unsigned b = 0; b < 64; b++)
		if (c->bit[t][b])
			a |= UINT64_C(1) << b;
	*type = t;
	*attr = a;
}

/* Append [start, end) to the output at out->range[*w], merging with its left neighbour. */
static void emit(struct pt_memmap *out, unsigned *w, uint64_t start, uint64_t end,
		 uint32_t type, uint64_t attr)
{
	struct pt_mem_range *last = *w ? &out->range[*w - 1] : NULL;

	if (last && last->pa + last->len == start && last->type == type && last->attr == attr) {
		last->len += end - start;
		return;
	}
	out->range[*w].pa = start;
	out->range[*w].len = end - start;
	out->range[*w].type = type;
	out->range[*w].attr = attr;
	(*w)++;
}

/*
 * Read the descriptor at @d and turn it into [*start, *end), page-aligned and
 * below @limit, recording quirks.  A range reaching 2^64 (not representable
 * as an end) is clamped at TOP.  Returns false when nothing of it is left.
 */
static bool read_desc(const uint8_t *d, uint64_t limit, uint64_t *prev_start, bool *have_prev,
		      struct pt_memmap *out, uint64_t *start, uint64_t *end, uint32_t *type,
		      uint64_t *attr)
{
	uint64_t s = pt_load_le(d + PT_EFI_DESC_PA, 8), pages = pt_load_le(d + PT_EFI_DESC_PAGES, 8), e;

	*type = (uint32_t)pt_load_le(d + PT_EFI_DESC_TYPE, 4);
	*attr = pt_load_le(d + PT_EFI_DESC_ATTR, 8);
	if (*type >= PT_EFI_TYPE_COUNT) {
		quirk(out, PT_QUIRK_UNKNOWN_TYPE);
		*type = PT_EFI_RESERVED;
	}
	if (pages == 0) {
		quirk(out, PT_QUIRK_ZERO_LENGTH);
		return false;
	}
	if (*have_prev && s < *prev_start)
		quirk(out, PT_QUIRK_UNSORTED);
	*prev_start = s;
	*have_prev = true;

	if (pages > (UINT64_MAX >> 12) || s + (pages << 12) < s) {
		quirk(out, PT_QUIRK_WRAP);
		e = TOP;
	} else {
		e = s + (pages << 12);
	}
	/*
	 * The spec says PhysicalStart is 4 KiB aligned.  When it is not, a page
	 * the descriptor only partly holds must not come out as usable: RAM is
	 * trimmed inwards to the pages it holds whole, any other type is
	 * rounded outwards to every page it touches (and then outranks the RAM
	 * there like any overlap).  An end rounded up past TOP is clamped at
	 * TOP, as a wrapping one is.
	 */
	if (s & PAGE_MASK) {
		quirk(out, PT_QUIRK_UNALIGNED);
		if (pt_mem_class_of(*type) == PT_MEM_RAM) {
			if (s > TOP)
				return false;
			s = (s + PAGE_MASK) & ~PAGE_MASK;
			e &= ~PAGE_MASK;
		} else {
			s &= ~PAGE_MASK;
			e = e > TOP ? TOP : (e + PAGE_MASK) & ~PAGE_MASK;
		}
	}
	if (e > limit) {
		quirk(out, PT_QUIRK_ABOVE_MAXPHYS);
		e = limit;
	}
	if (e <= s)
		return false;
	*start = s;
	*end = e;
	return true;
}

int pt_memmap_normalize(const void *raw, size_t raw_len, unsigned count, unsigned desc_size,
			unsigned maxphyaddr, struct pt_memmap *out)
{
	const uint8_t *bytes = raw;
	uint64_t limit = maxphyaddr >= 64 ? UINT64_MAX : UINT64_C(1) << maxphyaddr;
	uint64_t prev_start = 0;
	bool have_prev = false;
	struct cover cover;
	size_t nev = 0, j;
	unsigned w = 0;

	if (!out)
		return PT_EINVAL;
	out->n = 0;
	if (out->cap && !out->range)
		return PT_EINVAL;
	out->descriptors = 0;
	out->desc_size = desc_size;
	out->quirks = 0;
	memset(out->quirk_count, 0, sizeof(out->quirk_count));
	out->usable_bytes = 0;

	if (desc_size < PT_EFI_DESC_MIN || desc_size > PT_EFI_DESC_MAX || desc_size % 8 ||
	    count > PT_MEMMAP_MAX_DESC || (count && !raw) ||
	    raw_len / desc_size < count)
		return PT_EMAPBAD;
	limit &= ~PAGE_MASK;

	for (unsigned i = 0; i < count; i++) {
		uint64_t start, end, attr;
		uint32_t type;
		struct pt_mem_range *ev;

		if (!read_desc(bytes + (size_t)i * desc_size, limit, &prev_start, &have_prev,
			       out, &start, &end, &type, &attr))
			continue;
		if (out->cap < 2 || nev > out->cap - 2) {
			out->descriptors = i;
			return PT_ECAPACITY;
		}
		ev = &out->range[nev++];
		ev->pa = start;
		ev->len = EV_START;
		ev->type = type;
		ev->attr = attr;
		ev = &out->range[nev++];
		ev->pa = end;
		ev->len = EV_END;
		ev->type = type;
		ev->attr = attr;
	}
	out->descriptors = count;

	sort_events(out->range, nev);

	memset(&cover, 0, sizeof(cover));
	for (j = 0; j < nev;) {
		uint64_t x = out->range[j].pa;
		unsigned before = cover.total, ends = 0, starts = 0;

		/* [previous event address, x) was covered by the state before x. */
		if (j > 0 && cover.total) {
			uint64_t prev_x = out->range[j - 1].pa;
			uint32_t type;
			uint64_t attr;

			/* Slot j - 1 is read before emit may overwrite it (w <= j - 1). */
			cover_winner(&cover, &type, &attr);
			emit(out, &w, prev_x, x, type, attr);
		}
		for (; j < nev && out->range[j].pa == x; j++) {
			bool start = out->range[j].len == EV_START;

			cover_apply(&cover, out->range[j].type, out->range[j].attr, start);
			if (start)
				starts++;
			else
				ends++;
		}
		/*
		 * Each descriptor starting where another is still in force (or
		 * starting together with another) overlaps it.
		 */
		if (starts) {
			unsigned overlaps = before - ends > 0 ? starts : starts - 1;

			for (unsigned k = 0; k < overlaps; k++)
				quirk(out, PT_QUIRK_OVERLAP);
		}
	}
	out->n = w;
	for (unsigned i = 0; i < w; i++)
		if (pt_mem_class_of(out->range[i].type) == PT_MEM_RAM)
			out->usable_bytes += out->range[i].len;
	return PT_OK;
}

/* ---- queries on a normalized map ---- */

PT_DEFINE_RANGE_SEARCH(search_ranges, struct pt_mem_range, PT_FIELD_PA, PT_FIELD_LEN)

const struct pt_mem_range *pt_memmap_find(const struct pt_memmap *m, uint64_t pa)
{
	return m && m->range ? search_ranges_holding(m->range, m->n, pa) : NULL;
}

bool pt_memmap_covers(const struct pt_memmap *m, uint64_t pa, uint64_t len, unsigned classes)
{
	uint64_t last;

	if (!m || !m->range || len == 0 || pa + (len - 1) < pa)
		return false;
	last = pa + (len - 1);
	for (unsigned i = search_ranges(m->range, m->n, pa); i < m->n; i++) {
		const struct pt_mem_range *r = &m->range[i];
		uint64_t r_last = r->pa + (r->len - 1);

		if (r->pa > pa || !(classes & PT_MEM_CLASS_BIT(pt_mem_class_of(r->type))))
			return false;
		if (r_last >= last)
			return true;
		pa = r_last + 1;
	}
	return false;
}

bool pt_memmap_overlaps(const struct pt_memmap *m, uint64_t pa, uint64_t len)
{
	uint64_t last;
	unsigned i;

	if (!m || !m->range || len == 0)
		return false;
	last = pa + (len - 1) < pa ? UINT64_MAX : pa + (len - 1);
	i = search_ranges(m->range, m->n, pa);
	return i < m->n && m->range[i].pa <= last;
}

uint64_t pt_memmap_class_bytes(const struct pt_memmap *m, uint64_t pa, uint64_t len,
			       unsigned classes)
{
	uint64_t last, bytes = 0;

	if (!m || !m->range || len == 0)
		return 0;
	last = pa + (len - 1) < pa ? UINT64_MAX : pa + (len - 1);
	for (unsigned i = search_ranges(m->range, m->n, pa); i < m->n && m->range[i].pa <= last;
	     i++) {
		const struct pt_mem_range *r = &m->range[i];
		uint64_t a = r->pa > pa ? r->pa : pa;
		uint64_t r_last = r->pa + (r->len - 1);
		uint64_t b = r_last < last ? r_last : last;

		if (classes & PT_MEM_CLASS_BIT(pt_mem_class_of(r->type)))
			bytes += b - a + 1;
	}
	return bytes;
}
