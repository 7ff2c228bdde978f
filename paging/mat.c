// SPDX-License-Identifier: MIT
/*
 * UEFI Memory Attributes Table parsing (see include/ptlab/mat.h).
 *
 * Fields are read byte by byte, little endian: the table is only 8-byte
 * aligned by convention, the descriptors need not be, and nothing here may
 * depend on a library call.
 */
#include <ptlab/mat.h>
#include <ptlab/memmap.h>
#include <ptlab/pt.h>

#include "internal.h"

const char *pt_mat_why_name(enum pt_mat_why why)
{
	static const char *const names[PT_MAT_WHY_COUNT] = {
		[PT_MAT_OK] = "ok",
		[PT_MAT_SHORT] = "short",
		[PT_MAT_VERSION] = "version",
		[PT_MAT_DESC_SIZE] = "descriptor size",
		[PT_MAT_COUNT] = "entry count",
		[PT_MAT_TYPE] = "type",
		[PT_MAT_UNALIGNED] = "unaligned",
		[PT_MAT_EMPTY] = "empty",
		[PT_MAT_WRAP] = "wrap",
		[PT_MAT_ABOVE_MAXPHYS] = "above maxphyaddr",
		[PT_MAT_ORDER] = "order",
	};

	if ((unsigned)why >= PT_MAT_WHY_COUNT)
		return "?";
	return names[why];
}

static int bad(struct pt_mat *out, enum pt_mat_why why, unsigned index)
{
	out->n = 0;
	out->rwx = 0;
	out->rp = 0;
	out->why = why;
	out->bad_index = index;
	return PT_EMAPBAD;
}

int pt_mat_parse(const void *raw, size_t raw_len, unsigned maxphyaddr, struct pt_mat *out)
{
	const uint8_t *p = raw;
	uint64_t count, size, prev_end = 0, top;
	unsigned i;

	if (!out)
		return PT_EINVAL;
	*out = (struct pt_mat){ .range = out->range, .cap = out->cap, .why = PT_MAT_OK };
	if (!raw || maxphyaddr < 32 || maxphyaddr > 52 || (!out->range && out->cap))
		return PT_EINVAL;
	top = UINT64_C(1) << maxphyaddr;

	if (raw_len < PT_MAT_HEADER_SIZE)
		return bad(out, PT_MAT_SHORT, 0);
	out->version = (uint32_t)pt_load_le(p, 4);
	count = pt_load_le(p + 4, 4);
	size = pt_load_le(p + 8, 4);
	out->desc_size = (uint32_t)size;
	out->flags = (uint32_t)pt_load_le(p + 12, 4);
	if (out->version != 1 && out->version != 2)
		return bad(out, PT_MAT_VERSION, 0);
	if (size < PT_EFI_DESC_MIN || size > PT_EFI_DESC_MAX || size % 8)
		return bad(out, PT_MAT_DESC_SIZE, 0);
	if (count > PT_MEMMAP_MAX_DESC)
		return bad(out, PT_MAT_COUNT, 0);
	/* count <= 2^16 and size <= 2^12: the product cannot overflow */
	if (count * size > raw_len - PT_MAT_HEADER_SIZE)
		return bad(out, PT_MAT_SHORT, 0);
	if (count > out->cap)
		return PT_ECAPACITY;

	for (i = 0; i < count; i++) {
		const uint8_t *d = p + PT_MAT_HEADER_SIZE + i * size;
		struct pt_mat_range *r = &out->range[i];
		uint32_t type = (uint32_t)pt_load_le(d + PT_EFI_DESC_TYPE, 4);
		uint64_t pa = pt_load_le(d + PT_EFI_DESC_PA, 8);
		uint64_t pages = pt_load_le(d + PT_EFI_DESC_PAGES, 8);
		uint64_t attr = pt_load_le(d + PT_EFI_DESC_ATTR, 8);

		if (type != PT_EFI_RT_CODE && type != PT_EFI_RT_DATA)
			return bad(out, PT_MAT_TYPE, i);
		if (pa % PT_PAGE_SIZE)
			return bad(out, PT_MAT_UNALIGNED, i);
		if (!pages)
			return bad(out, PT_MAT_EMPTY, i);
		/* pa is aligned: (UINT64_MAX - pa) / PT_PAGE_SIZE + 1 pages reach 2^64 */
		if (pages >= (UINT64_MAX - pa) / PT_PAGE_SIZE + 1)
			return bad(out, PT_MAT_WRAP, i);
		if (pa >= top || pages > (top - pa) / PT_PAGE_SIZE)
			return bad(out, PT_MAT_ABOVE_MAXPHYS, i);
		if (i && pa < prev_end)
			return bad(out, PT_MAT_ORDER, i);

		r->pa = pa;
		r->len = pages * PT_PAGE_SIZE;
		r->type = type;
		r->attr = attr;
		r->rp = (attr & PT_EFI_MEMORY_RP) != 0;
		r->rwx = false;
		if (r->rp) {
			r->flags = 0;
		} else {
			r->flags = 0;
			if (!(attr & PT_EFI_MEMORY_RO))
				r->flags |= PT_WRITE;
			if (!(attr & PT_EFI_MEMORY_XP))
				r->flags |= PT_EXEC;
			r->rwx = (r->flags & (PT_WRITE | PT_EXEC)) == (PT_WRITE | PT_EXEC);
		}
		prev_end = pa + r->len;
	}

	out->n = (unsigned)count;
	for (i = 0; i < out->n; i++) {
		out->rwx += out->range[i].rwx;
		out->rp += out->range[i].rp;
	}
	return PT_OK;
}

PT_DEFINE_RANGE_SEARCH(search_mat, struct pt_mat_range, PT_FIELD_PA, PT_FIELD_LEN)

const struct pt_mat_range *pt_mat_find(const struct pt_mat *mat, uint64_t pa)
{
	return search_mat_holding(mat->range, mat->n, pa);
}
