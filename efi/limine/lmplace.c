// SPDX-License-Identifier: MIT
/*
 * Where a Limine hand-off puts what it allocates (lmplace.h): the sizes a
 * kernel file controls bounded and multiplied with checked arithmetic
 * before any page is taken for them.
 */
#include <string.h>

#include <ptlab/pte.h>

#include "lib/ckd.h"
#include "limine/limine.h"
#include "limine/lmerr.h"
#include "limine/lmplace.h"

typedef unsigned long long ull;

/* @bytes rounded up to whole pages from @pg at @align; 0 when none (or @bytes 0 or too large). */
static uint64_t take(const struct lm_pages *pg, uint64_t bytes, uint64_t align)
{
	uint64_t pages;

	if (!bytes || !ckd_align_up(&pages, bytes, PT_PAGE_SIZE))
		return 0;
	return pg->alloc(pg->ctx, pages, align < PT_PAGE_SIZE ? PT_PAGE_SIZE : align);
}

/* take(), the pages zeroed. */
static uint64_t take_zeroed(const struct lm_pages *pg, uint64_t bytes)
{
	uint64_t pa = take(pg, bytes, PT_PAGE_SIZE);

	if (pa)
		memset(pg->at(pg->ctx, pa), 0, (size_t)((bytes + PT_PAGE_SIZE - 1) & ~(PT_PAGE_SIZE - 1)));
	return pa;
}

int lm_block_place(const struct lm_pages *pg, const uint8_t *buf, uint64_t len,
		   const struct lm_elf *elf, unsigned levels, const char *cause,
		   struct lm_block *o, char *why, size_t whylen)
{
	const struct lm_seg *s;
	uint64_t at;
	uint8_t *img;
	int seg;

	memset(o, 0, sizeof(*o));
	o->pa = take(pg, elf->span, elf->align);
	if (!o->pa) {
		lm_refuse(why, whylen, "no free RAM holds its 0x%llx bytes (aligned to 0x%llx) in "
			  "one piece", (ull)elf->span, (ull)elf->align);
		return LM_PLACE_NOMEM;
	}
	img = pg->at(pg->ctx, o->pa);
	if (lm_elf_load(buf, len, elf, img, elf->span, why, whylen) ||
	    lm_scan(img, elf->span, &o->req, why, whylen))
		return LM_PLACE_REFUSED;
	o->entry = elf->entry;
	if (lm_has(&o->req, LM_REQ_ENTRY_POINT))
		o->entry = o->req.req[LM_REQ_ENTRY_POINT].extra[0];
	seg = lm_elf_seg_of(elf, o->entry);
	if (seg < 0 || !(elf->seg[seg].flags & LM_SEG_X)) {
		lm_refuse(why, whylen, "its entry 0x%llx%s is in no executable segment",
			  (ull)o->entry, lm_has(&o->req, LM_REQ_ENTRY_POINT) ?
			  " (entry point request)" : "");
		return LM_PLACE_REFUSED;
	}
	/* the bytes the CPU must read at the entry: the file's, or zeros past filesz */
	s = &elf->seg[seg];
	at = o->entry - s->va;
	o->entry_len = s->memsz - at < LM_ENTRY_BYTES ? (unsigned)(s->memsz - at) : LM_ENTRY_BYTES;
	for (unsigned i = 0; i < o->entry_len; i++)
		o->entry_bytes[i] = at + i < s->filesz ? buf[s->file_off + at + i] : 0;
	if (lm_paging_choose(&o->req, levels == 5, &o->paging_mode, why, whylen) ||
	    o->paging_mode != (levels == 5 ? LM_PAGING_5LVL : LM_PAGING_4LVL)) {
		lm_refuse(why, whylen, "the run has %u-level paging (%s) and the kernel %s",
			  levels, cause, lm_has(&o->req, LM_REQ_PAGING_MODE) ? "does not allow it" :
			  "has no paging mode request (4 levels only)");
		return LM_PLACE_REFUSED;
	}
	return LM_PLACE_OK;
}

int lm_stack_size(const struct lm_requests *r, unsigned ncpu, uint64_t ram, uint64_t *each,
		  uint64_t *total, char *why, size_t whylen)
{
	uint64_t asked = lm_has(r, LM_REQ_STACK_SIZE) ? r->req[LM_REQ_STACK_SIZE].extra[0] : 0;
	uint64_t one = ram >> LM_STACK_RAM_SHIFT, all = ram >> LM_STACKS_RAM_SHIFT;

	if (!ckd_align_up(each, asked < LM_STACK_DEFAULT ? LM_STACK_DEFAULT : asked, PT_PAGE_SIZE) ||
	    *each > one)
		return lm_refuse(why, whylen, "stack size request 0x%llx is larger than a quarter of "
				 "the RAM (0x%llx bytes)", (ull)asked, (ull)one);
	if (!ckd_mul(total, *each, (uint64_t)ncpu + 1) || *total > all)
		return lm_refuse(why, whylen, "stack size request 0x%llx times %u stacks (%u CPUs "
				 "and the BSP's own) is larger than half the RAM (0x%llx bytes)",
				 (ull)asked, ncpu + 1, ncpu, (ull)all);
	return 0;
}

int lm_place(const struct lm_pages *pg, const struct lm_requests *r, struct lm_machine *m,
	     struct lm_place *pl, char *why, size_t whylen)
{
	const char *what;
	uint64_t bytes;

	if (!pl->ncpu || pl->ncpu > LM_MAX_CPUS)
		return lm_refuse(why, whylen, "%u CPUs (1 to %u)", pl->ncpu, LM_MAX_CPUS);
	if (lm_stack_size(r, pl->ncpu, pl->ram, &pl->stack_bytes, &pl->stacks_len, why, whylen))
		return LM_PLACE_REFUSED;
	/* the counts are ours (CPUs at most LM_MAX_CPUS, the map's capacity): checked all the same */
	if (!ckd_muladd(&pl->gdt_len, pl->park_bytes, pl->ncpu, pl->gdt_head) ||
	    !ckd_mul(&pl->map_len, pl->map_cap, sizeof(struct lm_memmap_entry)))
		return lm_refuse(why, whylen, "the GDT or the memory map of %u CPUs and %u entries "
				 "is larger than the address space", pl->ncpu, pl->map_cap);
	what = "the kernel file's copy";
	bytes = pl->kfile_len;
	pl->kfile_pa = take(pg, pl->kfile_len, PT_PAGE_SIZE);
	if (!pl->kfile_pa)
		goto nomem;
	what = "the stacks";
	bytes = pl->stacks_len;
	pl->stacks_pa = take(pg, pl->stacks_len, PT_PAGE_SIZE);
	if (!pl->stacks_pa)
		goto nomem;
	what = "the GDT";
	bytes = pl->gdt_len;
	pl->gdt_pa = take_zeroed(pg, pl->gdt_len);
	if (!pl->gdt_pa)
		goto nomem;
	what = "the memory map";
	bytes = pl->map_len;
	pl->map_pa = pl->map_len ? take_zeroed(pg, pl->map_len) : 0;
	if (pl->map_len && !pl->map_pa)
		goto nomem;
	/* sized with the bound on the map; the final map is never longer */
	m->map = pl->map_pa ? (const struct lm_memmap_entry *)pg->at(pg->ctx, pl->map_pa) : NULL;
	m->nmap = pl->map_pa ? pl->map_cap : 0;
	if (lm_respond(m, r, NULL, NULL, 0, 0, &pl->answer, why, whylen))
		return LM_PLACE_REFUSED;
	/* a kernel that asks for nothing gets no buffer: there is nothing to point to */
	pl->resp_len = pl->answer.used;
	pl->resp_pa = 0;
	if (!pl->resp_len)
		return LM_PLACE_OK;
	what = "the responses";
	bytes = pl->resp_len;
	pl->resp_pa = take_zeroed(pg, pl->resp_len);
	if (!pl->resp_pa)
		goto nomem;
	return LM_PLACE_OK;

nomem:
	lm_refuse(why, whylen, "no memory for %s (0x%llx bytes)", what, (ull)bytes);
	return LM_PLACE_NOMEM;
}
