// SPDX-License-Identifier: MIT
/*
 * Where a Linux hand-off puts what it allocates (lxplace.h): the sizes a
 * bzImage or an initrd controls added with checked arithmetic and bounded
 * before a page is taken.
 */
#include <ptlab/pte.h>

#include "lib/ckd.h"
#include "linux/lxplace.h"
#include "report/fmt.h"

typedef unsigned long long ull;

static int fail(struct lx_place *pl, char *why, size_t whylen, int err, const char *what,
		uint64_t bytes)
{
	pl->failed = LX_PIECE_OTHER;
	fmt_snprintf(why, whylen, "%s (0x%llx bytes)", what, (ull)bytes);
	return err;
}

/* @bytes rounded to pages, below @max; 0 when none or when the rounding wraps. */
static uint64_t below(const struct lx_pages *pg, uint64_t max, uint64_t bytes)
{
	uint64_t pages;

	if (!bytes || !ckd_align_up(&pages, bytes, PT_PAGE_SIZE))
		return 0;
	return pg->below(pg->ctx, max, pages);
}

/*
 * pref_address when [pref, pref + init) is free; else, for a relocatable
 * kernel, the lowest aligned slot of free conventional memory (below
 * 4 GiB unless XLF_CAN_BE_LOADED_ABOVE_4G) that the seam grants.
 */
static bool place_kernel(const struct lx_pages *pg, const struct lb_kernel *h,
			 struct lx_place *pl)
{
	uint64_t pa = h->pref_address, end, limit, from;

	if (pa >= LX_LOW_LIMIT && !(pa & (PT_PAGE_SIZE - 1)) &&
	    ckd_add(&end, pa, pl->init_bytes) && pg->at(pg->ctx, pa, pl->init_bytes)) {
		pl->load_pa = pa;
		pl->how = "pref_address";
		return true;
	}
	if (!h->relocatable)
		return false;
	limit = h->xloadflags & LB_XLF_CAN_BE_LOADED_ABOVE_4G ?
		(UINT64_C(1) << pl->maxphyaddr) - 1 : LX_BELOW_4G;
	for (from = LX_LOW_LIMIT; lb_next_slot(pl->map, from, pl->init_bytes,
					       h->kernel_alignment, limit, &pa); from = end) {
		if (pg->at(pg->ctx, pa, pl->init_bytes)) {
			pl->load_pa = pa;
			pl->how = "lowest fit";
			return true;
		}
		if (!ckd_add(&end, pa, h->kernel_alignment))
			break;
	}
	return false;
}

/* The initrds' run: each 4-byte aligned after the last, their sum bounded. */
static int place_initrds(const struct lx_pages *pg, const struct lb_kernel *h,
			 struct lx_place *pl, char *why, size_t whylen)
{
	uint64_t total = 0;

	pl->failed = LX_PIECE_INITRD;
	pl->bad = 0;
	if (pl->ninitrd > LX_INITRD_MAX) {
		fmt_snprintf(why, whylen, "%u initrds, more than %u", pl->ninitrd, LX_INITRD_MAX);
		return LX_PLACE_REFUSED;
	}
	for (unsigned i = 0; i < pl->ninitrd; i++) {
		pl->bad = i;
		if (!pl->initrd_size[i]) {
			fmt_snprintf(why, whylen, "it is empty");
			return LX_PLACE_REFUSED;
		}
		if (!ckd_align_up(&total, total, LX_INITRD_ALIGN) || total > LX_INITRD_BYTES ||
		    pl->initrd_size[i] > LX_INITRD_BYTES - total) {
			fmt_snprintf(why, whylen, "the initrds together pass %llu bytes",
				     (ull)LX_INITRD_BYTES);
			return LX_PLACE_REFUSED;
		}
		pl->initrd_at[i] = total;
		total += pl->initrd_size[i];
	}
	pl->initrd_bytes = total;
	if (!total)
		return LX_PLACE_OK;
	pl->initrd_pa = below(pg, h->initrd_addr_max, total);
	if (!pl->initrd_pa && (h->xloadflags & LB_XLF_CAN_BE_LOADED_ABOVE_4G))
		pl->initrd_pa = below(pg, (UINT64_C(1) << pl->maxphyaddr) - 1, total);
	if (!pl->initrd_pa) {
		pl->bad = 0;
		fmt_snprintf(why, whylen, "(%llu bytes) does not fit below the kernel's "
			     "initrd_addr_max 0x%x%s", (ull)total, h->initrd_addr_max,
			     h->xloadflags & LB_XLF_CAN_BE_LOADED_ABOVE_4G ? " nor anywhere" : "");
		return LX_PLACE_NOMEM;
	}
	return LX_PLACE_OK;
}

int lx_place(const struct lx_pages *pg, const struct lb_kernel *h, struct lx_place *pl,
	     char *why, size_t whylen)
{
	int err;

	pl->failed = LX_PIECE_KERNEL;
	if (!ckd_align_up(&pl->init_bytes, h->init_size, PT_PAGE_SIZE) || !pl->init_bytes ||
	    !place_kernel(pg, h, pl)) {
		fmt_snprintf(why, whylen, "no free RAM holds init_size 0x%x at pref_address "
			     "0x%llx%s", h->init_size, (ull)h->pref_address, h->relocatable ?
			     " or at any kernel_alignment-aligned address" : " (not relocatable)");
		return LX_PLACE_NOMEM;
	}
	pl->setup_pa = below(pg, UINT64_MAX, LB_SETUP_COPY);
	if (!pl->setup_pa)
		return fail(pl, why, whylen, LX_PLACE_NOMEM, "no memory for the setup header's copy",
			    LB_SETUP_COPY);
	err = place_initrds(pg, h, pl, why, whylen);
	if (err)
		return err;
	/* the zero page, then the command line (cmd_line_ptr has 32 bits) */
	pl->zero_page_pa = below(pg, LX_BELOW_4G, 2 * PT_PAGE_SIZE);
	if (!pl->zero_page_pa)
		return fail(pl, why, whylen, LX_PLACE_NOMEM, "no memory below 4 GiB for the zero page "
			    "and the command line", 2 * PT_PAGE_SIZE);
	pl->cmdline_pa = pl->zero_page_pa + PT_PAGE_SIZE;
	/* the e820 table and the room for entries past the zero page's 128 */
	if (!pl->e820_cap || !ckd_mul(&pl->e820_bytes, pl->e820_cap, sizeof(struct lb_e820)))
		return fail(pl, why, whylen, LX_PLACE_REFUSED, "an e820 table of no entry or past the "
			    "address space", pl->e820_cap);
	pl->e820_pa = below(pg, UINT64_MAX, pl->e820_bytes);
	if (!pl->e820_pa)
		return fail(pl, why, whylen, LX_PLACE_NOMEM, "no memory for the e820 table",
			    pl->e820_bytes);
	pl->ext_cap = lb_e820_ext_bytes(pl->e820_cap);
	pl->ext_pa = pl->ext_cap ? below(pg, UINT64_MAX, pl->ext_cap) : 0;
	if (pl->ext_cap && !pl->ext_pa)
		return fail(pl, why, whylen, LX_PLACE_NOMEM, "no memory for the e820 table's extension",
			    pl->ext_cap);
	return LX_PLACE_OK;
}
