/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a Limine kernel's whole load plan, on the host, the
 * firmware replaced by a fake memory map and its page allocator.  The
 * file goes the way limine_load() takes it (lmload.c): lm_elf_parse (with
 * the --kaslr slide), lm_block_place (the load block, its requests, entry
 * and paging mode), its internal modules and --module's given pages, then
 * lm_place (the file's copy, the stacks, the GDT and park blocks, the
 * memory map, the responses); then what lmhandoff.c does after
 * ExitBootServices: the final memory map (every allocation now loader
 * data, the tables' frames bootloader-reclaimable), lm_map_build,
 * lm_respond for real, and the page-table plan (pt_plan_build,
 * lm_plan_add).
 *
 * Input: u8 map shape (see add_shape()), u8 CPUs (1 + v % 64), u8 flags
 * (bit 0: 5 levels, 1: --kaslr, 2: 1 GiB leaves, 3: a framebuffer, bits
 * 6:4 --module count), u16 RAM scale, u64 random slide, a u16 size per
 * module (in 256-byte units, + 1), then the ELF file (little endian).
 *
 * What the kernel relies on, each compared with a computation of its own
 * here; violations abort():
 *  - each stack is at least LM_STACK_DEFAULT, at least what the stack size
 *    request asks, whole pages, and the stacks take exactly ncpu + 1 of
 *    them (the product computed in 128 bits); a request beyond the bounds
 *    (a quarter of RAM each, half for all) is refused naming it, never
 *    placed; one within them is never refused for its size;
 *  - no two allocations overlap, each lies in free RAM of the map and at
 *    its alignment;
 *  - every response pointer (each response, the memory map's entries, the
 *    SMP info, the files and their strings) lies in the responses' buffer
 *    or in a file placed, all of it in an entry of the Limine memory map
 *    the kernel is given (bootloader-reclaimable, or kernel and modules)
 *    and in the HHDM of the plan;
 *  - what lm_place() reports (the "limine-load" fact's stack, stacks and
 *    responses) is what the allocator gave: the same address and the
 *    bytes asked, rounded to pages;
 *  - a kernel that asks for nothing gets no response buffer and boots.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ptlab/memmap.h>
#include <ptlab/plan.h>
#include <ptlab/pte.h>

#include "limine/limine.h"
#include "limine/lmelf.h"
#include "limine/lmmap.h"
#include "limine/lmplace.h"
#include "limine/lmplan.h"
#include "limine/lmreq.h"
#include "limine/lmresp.h"

#define PAGE        UINT64_C(4096)
#define MIB         (UINT64_C(1) << 20)
#define GIB         (UINT64_C(1) << 30)
#define HDR         13u
#define MAX_SPAN    (512 * 1024)        /* blocks the fake memory backs (larger: parsed only) */
#define MAX_DESC    96u
#define MAX_ALLOC   64u
#define MAX_MOD     (LM_INTERNAL_MAX + 7)
#define PLAN_CAP    2048u
#define GDT_HEAD    (7 * 8 + 64)        /* as lmload.c: limine_gdt and 64 bytes */
#define PARK_BYTES  64u                 /* LP_BYTES */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct desc {
	uint32_t type;
	uint64_t pa, len;
};

struct alloc {
	uint64_t pa, bytes, align;
	uint8_t *mem;          /* backing, made at the first at() */
};

struct fake {
	struct desc d[MAX_DESC];      /* the firmware's map before any allocation */
	unsigned nd;
	struct alloc a[MAX_ALLOC];
	unsigned na;
	const struct pt_memmap *map;  /* d[] normalized: the allocator's free RAM */
};

static void die(const char *what, const char *why)
{
	fprintf(stderr, "fuzz_lmload: %s%s%s\n", what, why ? ": " : "", why ? why : "");
	abort();
}

static void add(struct fake *f, uint32_t type, uint64_t pa, uint64_t len)
{
	if (f->nd < MAX_DESC && len)
		f->d[f->nd++] = (struct desc){ type, pa, len };
}

/* The firmware's map of shape @shape with RAM scaled by @scale. */
static void add_shape(struct fake *f, unsigned shape, unsigned scale)
{
	uint64_t low = (32 + (scale & 0x3ff)) * MIB, high = (uint64_t)(scale >> 10) * GIB;

	switch (shape % 4) {
	case 0:      /* like QEMU's q35: low RAM, ACPI, the firmware's, RAM above 4 GiB */
		if (low > 3 * GIB)
			low = 3 * GIB;
		add(f, PT_EFI_CONVENTIONAL, 0, 0xa0000);
		add(f, PT_EFI_CONVENTIONAL, MIB, 7 * MIB);
		add(f, PT_EFI_ACPI_NVS, 8 * MIB, 32 * 1024);
		add(f, PT_EFI_CONVENTIONAL, 8 * MIB + 32 * 1024, low - 10 * MIB - 32 * 1024);
		add(f, PT_EFI_BS_DATA, low - 2 * MIB, MIB);
		add(f, PT_EFI_RT_DATA, low - MIB, 512 * 1024);
		add(f, PT_EFI_ACPI_RECLAIM, low - 512 * 1024, 512 * 1024);
		add(f, PT_EFI_MMIO, 0xfec00000, PAGE);
		add(f, PT_EFI_CONVENTIONAL, 4 * GIB, high);
		break;
	case 1:      /* tiny: a few MiB */
		add(f, PT_EFI_CONVENTIONAL, MIB, (2 + (scale & 15)) * MIB);
		add(f, PT_EFI_RT_CODE, (3 + (scale & 15)) * MIB, PAGE);
		break;
	case 2:      /* fragmented: 64 KiB pieces between reserved pages */
		for (unsigned i = 0; i < 40; i++) {
			uint64_t at = MIB + i * (64 * 1024 + PAGE + (scale & 7) * PAGE);

			add(f, PT_EFI_CONVENTIONAL, at, 64 * 1024 + (i % 3) * 64 * 1024);
			add(f, PT_EFI_RESERVED, at + 64 * 1024 + (i % 3) * 64 * 1024, PAGE);
		}
		add(f, PT_EFI_CONVENTIONAL, 64 * MIB, low);
		break;
	default:     /* all above 4 GiB but a little low memory */
		add(f, PT_EFI_CONVENTIONAL, MIB, MIB);
		add(f, PT_EFI_CONVENTIONAL, 4 * GIB, low + high);
		break;
	}
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* The seam's alloc: the highest fit in conventional memory of the normalized map, as firmware often does. */
static uint64_t fake_alloc(void *ctx, uint64_t bytes, uint64_t align)
{
	struct fake *f = ctx;

	if (!bytes || bytes % PAGE || align < PAGE || (align & (align - 1)))
		die("alloc: bad arguments", NULL);
	if (f->na == MAX_ALLOC)
		return 0;
	for (unsigned i = f->map->n; i-- > 0;) {
		const struct pt_mem_range *d = &f->map->range[i];
		uint64_t top = d->pa + d->len, pa;

		if (d->type != PT_EFI_CONVENTIONAL || d->len < bytes)
			continue;
		pa = (top - bytes) & ~(align - 1);
		while (pa >= d->pa && pa + bytes <= top) {
			unsigned k;

			for (k = 0; k < f->na; k++)
				if (overlaps(pa, bytes, f->a[k].pa, f->a[k].bytes))
					break;
			if (k == f->na) {
				if (!pa)
					break;     /* page 0 never given: 0 means none */
				f->a[f->na++] = (struct alloc){ pa, bytes, align, NULL };
				return pa;
			}
			if (f->a[k].pa < bytes)
				break;
			pa = (f->a[k].pa - bytes) & ~(align - 1);
		}
	}
	return 0;
}

static struct alloc *find(struct fake *f, uint64_t pa)
{
	for (unsigned k = 0; k < f->na; k++)
		if (f->a[k].pa == pa)
			return &f->a[k];
	return NULL;
}

/* The seam's at: backing for the allocations the code writes (never the stacks). */
static uint8_t *fake_at(void *ctx, uint64_t pa)
{
	struct alloc *a = find(ctx, pa);

	if (!a)
		die("at: not an allocation", NULL);
	if (a->bytes > 64 * MIB)
		die("at: the code touches a large allocation", NULL);
	if (!a->mem) {
		a->mem = calloc(1, a->bytes);
		if (!a->mem)
			die("at: out of host memory", NULL);
	}
	return a->mem;
}

static void release(struct fake *f)
{
	for (unsigned k = 0; k < f->na; k++)
		free(f->a[k].mem);
}

/* The map at the jump: each allocation carved out of its range as loader data. */
static int final_map(const struct fake *f, struct pt_memmap *out, struct pt_mem_range *r,
		     unsigned cap)
{
	static uint8_t raw[(MAX_DESC + MAX_ALLOC) * 40];
	unsigned n = 0;

	for (unsigned i = 0; i < f->nd; i++, n++) {
		uint8_t *p = raw + 40 * n;
		uint64_t pages = f->d[i].len / PAGE;

		memset(p, 0, 40);
		memcpy(p + PT_EFI_DESC_TYPE, &f->d[i].type, 4);
		memcpy(p + PT_EFI_DESC_PA, &f->d[i].pa, 8);
		memcpy(p + PT_EFI_DESC_PAGES, &pages, 8);
	}
	for (unsigned k = 0; k < f->na; k++, n++) {
		uint8_t *p = raw + 40 * n;
		uint32_t type = PT_EFI_LOADER_DATA;
		uint64_t pages = f->a[k].bytes / PAGE;

		memset(p, 0, 40);
		memcpy(p + PT_EFI_DESC_TYPE, &type, 4);
		memcpy(p + PT_EFI_DESC_PA, &f->a[k].pa, 8);
		memcpy(p + PT_EFI_DESC_PAGES, &pages, 8);
	}
	*out = (struct pt_memmap){ .range = r, .cap = cap };
	return pt_memmap_normalize(raw, sizeof(raw), n, 40, 46, out);
}

static uint64_t rd(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}

/* The Limine map's entry holding [pa, pa + len), or NULL. */
static const struct lm_memmap_entry *entry_of(const struct lm_memmap_entry *m, unsigned n,
					      uint64_t pa, uint64_t len)
{
	for (unsigned i = 0; i < n; i++)
		if (pa >= m[i].base && pa - m[i].base <= m[i].length &&
		    len <= m[i].length - (pa - m[i].base))
			return &m[i];
	return NULL;
}

/* Whether the plan's HHDM entries map [pa, pa + len) at hhdm + pa (entry by entry). */
static bool in_hhdm(const struct pt_plan *pl, uint64_t hhdm, uint64_t pa, uint64_t len)
{
	uint64_t p = pa & ~(PAGE - 1), end = pa + len;

	while (p < end) {
		unsigned i;

		for (i = 0; i < pl->n; i++) {
			const struct pt_plan_entry *e = &pl->entry[i];

			if (e->kind == PT_PLAN_HHDM && hhdm + p >= e->va && hhdm + p - e->va < e->len &&
			    e->pa + (hhdm + p - e->va) == p)
				break;
		}
		if (i == pl->n)
			return false;
		p = pl->entry[i].pa + pl->entry[i].len;
	}
	return true;
}

struct run {
	struct fake f;
	struct lm_elf elf;
	struct lm_block blk;
	struct lm_file_in mod[MAX_MOD];
	char mpath[MAX_MOD][24];
	struct lm_internal im[LM_INTERNAL_MAX];
	unsigned nmod;
	struct lm_cpu_in cpu[64];
	struct lm_fb_in fb;
	struct lm_video_mode mode;
	struct lm_machine m;
	struct lm_place pl;
	struct pt_mem_range r0[MAX_DESC * 2], r1[(MAX_DESC + MAX_ALLOC) * 2];
	struct pt_memmap map0, map;
	struct lm_range reclaim[1], kern[MAX_MOD + 2];
	struct pt_plan_entry e[PLAN_CAP];
	struct pt_plan plan;
	char why[200];
	bool placing;           /* lm_place() was called */
};

/* A pointer the responses hold: in the buffer or a file placed, in the map, in the HHDM. */
static void pointer(const struct run *x, const struct lm_memmap_entry *map, unsigned nmap,
		    uint64_t v, uint64_t len, const char *what)
{
	const struct lm_place *pl = &x->pl;
	uint64_t pa = v - x->m.hhdm;
	const struct lm_memmap_entry *e;
	bool inside = pa >= pl->resp_pa && pa - pl->resp_pa <= pl->answer.used &&
		      len <= pl->answer.used - (pa - pl->resp_pa);

	if (v < x->m.hhdm)
		die(what, "not an HHDM address");
	for (unsigned i = 0; i < x->nmod && !inside; i++)
		inside = pa >= x->mod[i].pa && pa - x->mod[i].pa <= x->mod[i].size &&
			 len <= x->mod[i].size - (pa - x->mod[i].pa);
	inside |= pa >= pl->kfile_pa && pa - pl->kfile_pa <= pl->kfile_len &&
		  len <= pl->kfile_len - (pa - pl->kfile_pa);
	if (!inside) {
		fprintf(stderr, "fuzz_lmload: 0x%llx (pa 0x%llx, %llu bytes); responses at 0x%llx, "
			"0x%llx bytes\n", (unsigned long long)v, (unsigned long long)pa,
			(unsigned long long)len, (unsigned long long)pl->resp_pa,
			(unsigned long long)pl->answer.used);
		die(what, "outside the responses and the files");
	}
	e = entry_of(map, nmap, pa, len);
	if (!e || (e->type != LM_MEM_BOOTLOADER_RECLAIMABLE && e->type != LM_MEM_KERNEL_AND_MODULES))
		die(what, "not in reclaimable or kernel memory of the map handed over");
	if (!in_hhdm(&x->plan, x->m.hhdm, pa, len))
		die(what, "not in the plan's HHDM");
}

/* Every pointer of every response answered. */
static void check_responses(struct run *x, const uint8_t *img, const struct lm_memmap_entry *map,
			    unsigned nmap)
{
	const struct lm_requests *r = &x->blk.req;
	const uint8_t *buf = x->pl.resp_len ? fake_at(&x->f, x->pl.resp_pa) : NULL;

	for (unsigned k = 0; k < LM_REQ_COUNT; k++) {
		uint64_t v, off;

		if (!(x->pl.answer.answered >> k & 1))
			continue;
		v = rd(img + r->req[k].off + LM_REQ_RESPONSE, 8);
		pointer(x, map, nmap, v, 8, "a response pointer");   /* its revision, at least */
		off = v - x->m.hhdm - x->pl.resp_pa;
		if (off != x->pl.answer.resp_off[k])
			die("a response pointer", "not at the offset lm_respond reported");
		if (k == LM_REQ_MEMMAP) {
			uint64_t n = rd(buf + off + 8, 8), arr = rd(buf + off + 16, 8);

			if (n != nmap)
				die("the memory map response", "count differs from the map built");
			pointer(x, map, nmap, arr, 8 * n, "the memory map's array");
			for (uint64_t i = 0; i < n; i++) {
				uint64_t ev = rd(buf + (arr - x->m.hhdm - x->pl.resp_pa) + 8 * i, 8);

				pointer(x, map, nmap, ev, 24, "a memory map entry");
			}
		}
		if (k == LM_REQ_SMP) {
			uint64_t n = rd(buf + off + 16, 8), arr = rd(buf + off + 24, 8);

			if (n != x->m.ncpu)
				die("the SMP response", "count differs from the CPUs");
			pointer(x, map, nmap, arr, 8 * n, "the SMP array");
			for (uint64_t i = 0; i < n; i++)
				pointer(x, map, nmap, rd(buf + (arr - x->m.hhdm - x->pl.resp_pa) + 8 * i,
							 8), 32, "an lm_smp_info");
		}
		if (k == LM_REQ_MODULE) {
			uint64_t n = rd(buf + off + 8, 8), arr = rd(buf + off + 16, 8);

			if (n != x->nmod)
				die("the module response", "count differs from the modules");
			for (uint64_t i = 0; i < n; i++) {
				uint64_t fv = rd(buf + (arr - x->m.hhdm - x->pl.resp_pa) + 8 * i, 8);
				uint64_t fo = fv - x->m.hhdm - x->pl.resp_pa;

				pointer(x, map, nmap, fv, sizeof(struct lm_file), "a module's file");
				if (rd(buf + fo + 8, 8) != x->m.hhdm + x->mod[i].pa ||
				    rd(buf + fo + 16, 8) != x->mod[i].size)
					die("a module's file", "address or size not the module's");
				pointer(x, map, nmap, rd(buf + fo + 8, 8), x->mod[i].size,
					"a module's bytes");
			}
		}
	}
}

/* The load as limine_load() does it; false when refused (a refusal must say why). */
static bool load(struct run *x, const uint8_t *file, size_t len, unsigned levels, bool kaslr,
		 uint64_t rnd, unsigned nmods, const uint8_t *msz)
{
	const struct lm_pages pg = { &x->f, fake_alloc, fake_at };
	int n, err;

	if (lm_elf_parse(file, len, 0, MAX_SPAN, &x->elf, x->why, sizeof(x->why)))
		return false;
	x->m.nmod = 0;
	if (kaslr && x->elf.type == LM_ET_DYN) {
		uint64_t room = UINT64_C(0) - x->elf.va - x->elf.span;

		room = room < GIB ? room : GIB;
		if (lm_elf_parse(file, len, room ? rnd % room : 0, MAX_SPAN, &x->elf, x->why,
				 sizeof(x->why)))
			return false;
	}
	for (unsigned i = 0; i < x->elf.nseg; i++)
		if ((x->elf.seg[i].flags & (LM_SEG_W | LM_SEG_X)) == (LM_SEG_W | LM_SEG_X)) {
			snprintf(x->why, sizeof(x->why), "segment %u is writable and executable", i);
			return false;
		}
	if (lm_block_place(&pg, file, len, &x->elf, levels, "--levels", &x->blk, x->why, sizeof(x->why)))
		return false;
	n = lm_internal_modules(fake_at(&x->f, x->blk.pa), x->elf.span, x->elf.va, &x->blk.req,
				x->im, LM_INTERNAL_MAX, x->why, sizeof(x->why));
	if (n < 0)
		return false;
	/* the internal modules, then --module's: pages of their size (the reads are the firmware's) */
	for (unsigned i = 0; i < (unsigned)n + nmods; i++) {
		uint64_t sz = (rd(msz + 2 * (i % (nmods ? nmods : 1)), nmods ? 2 : 0) + 1) * 256;
		struct lm_file_in *mf = &x->mod[x->nmod];

		snprintf(x->mpath[x->nmod], sizeof(x->mpath[0]), "/m%u", i);
		mf->pa = fake_alloc(&x->f, (sz + PAGE - 1) & ~(PAGE - 1), PAGE);
		if (!mf->pa) {
			snprintf(x->why, sizeof(x->why), "no memory for module %u", i);
			return false;
		}
		mf->size = sz;
		mf->path = x->mpath[x->nmod];
		mf->cmdline = i < (unsigned)n ? x->im[i].cmdline : "";
		x->nmod++;
	}
	x->m.nmod = x->nmod;
	x->placing = true;
	err = lm_place(&pg, &x->blk.req, &x->m, &x->pl, x->why, sizeof(x->why));
	if (err && !x->why[0])
		die("lm_place refused without a reason", NULL);
	return !err;
}

/* The stacks: bounded as documented, refused when beyond, placed exactly when within. */
static void check_stacks(const struct run *x, bool placed)
{
	const struct lm_requests *r = &x->blk.req;
	uint64_t asked = lm_has(r, LM_REQ_STACK_SIZE) ? r->req[LM_REQ_STACK_SIZE].extra[0] : 0;
	unsigned __int128 each = asked < LM_STACK_DEFAULT ? LM_STACK_DEFAULT : asked, all;
	uint64_t ram = x->map0.usable_bytes;
	const struct alloc *a;

	each = (each + PAGE - 1) / PAGE * PAGE;
	all = each * (x->pl.ncpu + 1);
	if (each > ram / 4 || all > ram / 2) {
		if (placed || strncmp(x->why, "stack size request 0x", 21))
			die("a stack size beyond the bounds", placed ? "placed" : x->why);
		return;
	}
	if (!placed) {
		if (!strncmp(x->why, "stack size", 10))
			die("a stack size within the bounds refused", x->why);
		return;
	}
	if (x->pl.stack_bytes != each || x->pl.stacks_len != all || x->pl.stack_bytes % PAGE ||
	    x->pl.stack_bytes < LM_STACK_DEFAULT || x->pl.stack_bytes < asked)
		die("the stacks", "not the size asked, rounded, at least the default");
	a = find((struct fake *)&x->f, x->pl.stacks_pa);
	if (!a || a->bytes != x->pl.stacks_len)
		die("the stacks", "the fact is not what was allocated");
}

/* Allocations: disjoint, in conventional memory of the firmware's map, aligned. */
static void check_allocs(const struct fake *f)
{
	for (unsigned k = 0; k < f->na; k++) {
		const struct alloc *a = &f->a[k];
		bool in = false;

		if (a->pa % a->align)
			die("an allocation", "not at its alignment");
		for (unsigned i = 0; i < f->map->n && !in; i++)
			in = f->map->range[i].type == PT_EFI_CONVENTIONAL &&
			     a->pa >= f->map->range[i].pa &&
			     a->pa + a->bytes <= f->map->range[i].pa + f->map->range[i].len;
		if (!in)
			die("an allocation", "not in free RAM");
		for (unsigned j = k + 1; j < f->na; j++)
			if (overlaps(a->pa, a->bytes, f->a[j].pa, f->a[j].bytes))
				die("two allocations", "overlap");
	}
}

/* The facts lm_place() gives against what the allocator handed out. */
static void check_facts(struct run *x)
{
	const struct lm_place *pl = &x->pl;
	const struct { uint64_t pa, len; } got[] = {
		{ pl->kfile_pa, pl->kfile_len }, { pl->gdt_pa, pl->gdt_len },
		{ pl->map_pa, pl->map_len }, { pl->resp_pa, pl->resp_len },
	};

	for (unsigned i = 0; i < sizeof(got) / sizeof(got[0]); i++) {
		const struct alloc *a = find(&x->f, got[i].pa);

		if (!got[i].len && !got[i].pa)
			continue;
		if (!a || a->bytes != (got[i].len + PAGE - 1) / PAGE * PAGE)
			die("a placement", "its address or bytes are not the allocation's");
	}
	if (pl->gdt_len != GDT_HEAD + (uint64_t)PARK_BYTES * pl->ncpu ||
	    pl->map_len != (uint64_t)pl->map_cap * sizeof(struct lm_memmap_entry))
		die("the GDT or the map", "not the size of its count");
	if (!x->blk.req.have && (pl->resp_len || pl->resp_pa))
		die("a kernel that asks for nothing", "got a response buffer");
	if (pl->resp_len != pl->answer.used)
		die("the responses", "the buffer is not the bytes counted");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run x;
	unsigned levels, nmods, flags;
	const uint8_t *file;
	size_t flen;
	struct lm_memmap_entry *map;
	struct lm_map_in in;
	struct pt_plan_caps caps;
	struct lm_plan_in pin;
	uint8_t *img;
	unsigned nmap;
	bool ok;

	if (size < HDR)
		return 0;
	memset(&x, 0, sizeof(x));
	flags = data[2];
	levels = flags & 1 ? 5 : 4;
	nmods = (flags >> 4) & 7;
	if (size < HDR + 2u * nmods)
		return 0;
	file = data + HDR + 2 * nmods;
	flen = size - HDR - 2 * nmods;
	add_shape(&x.f, data[0], (unsigned)rd(data + 3, 2));
	if (final_map(&x.f, &x.map0, x.r0, sizeof(x.r0) / sizeof(x.r0[0])))
		die("the firmware's map does not normalize", NULL);
	x.f.map = &x.map0;
	x.pl = (struct lm_place){ .ram = x.map0.usable_bytes, .ncpu = 1 + data[1] % 64,
				  .kfile_len = flen, .gdt_head = GDT_HEAD, .park_bytes = PARK_BYTES,
				  .map_cap = 2 * (MAX_DESC + MAX_ALLOC) + 8 };
	for (unsigned i = 0; i < x.pl.ncpu; i++)
		x.cpu[i] = (struct lm_cpu_in){ i, i == 0 ? 0 : i + 1 };
	x.fb = (struct lm_fb_in){ .pa = 0x80000000, .width = 640, .height = 480, .pitch = 2560,
				  .bpp = 32, .modes = &x.mode, .nmodes = 1 };
	x.m = (struct lm_machine){ .name = "ptlab", .version = "1",
				   .firmware_type = LM_FIRMWARE_UEFI64,
				   .hhdm = lm_hhdm_offset(levels),
				   .paging_mode = levels == 5 ? LM_PAGING_5LVL : LM_PAGING_4LVL,
				   .fb = &x.fb, .nfb = flags & 8 ? 1 : 0, .cpu = x.cpu,
				   .ncpu = x.pl.ncpu, .bsp_lapic_id = 0, .mod = x.mod,
				   .kernel = { .path = "/kernel.elf", .cmdline = "console" },
				   .rsdp_pa = 0xe0000, .efi_st_pa = 0x7f000000, .have_time = true };
	ok = load(&x, file, flen, levels, flags & 2, rd(data + 5, 8), nmods, data + HDR);
	x.m.nmod = x.nmod;
	check_allocs(&x.f);
	if (getenv("FUZZ_LMLOAD_SAY"))
		fprintf(stderr, "fuzz_lmload: %s%s\n", ok ? "placed" : "refused: ", ok ? "" : x.why);
	if (!ok) {
		if (!x.why[0])
			die("refused without a reason", NULL);
		if (x.placing)
			check_stacks(&x, false);
		release(&x.f);
		return 0;
	}
	check_stacks(&x, true);
	check_facts(&x);
	x.m.kernel.pa = x.pl.kfile_pa;
	x.m.kernel.size = x.pl.kfile_len;
	x.m.kernel_pa = x.blk.pa;
	x.m.kernel_va = x.elf.va;
	memcpy(fake_at(&x.f, x.pl.kfile_pa), file, flen);

	/* after ExitBootServices: the tables' frames, the final map, the responses, the plan */
	x.reclaim[0].len = 16 * PAGE;
	x.reclaim[0].pa = fake_alloc(&x.f, x.reclaim[0].len, PAGE);
	if (!x.reclaim[0].pa) {
		release(&x.f);
		return 0;
	}
	if (final_map(&x.f, &x.map, x.r1, sizeof(x.r1) / sizeof(x.r1[0])))
		die("the final map does not normalize", NULL);
	x.kern[0] = (struct lm_range){ x.blk.pa, x.elf.span };
	x.kern[1] = (struct lm_range){ x.pl.kfile_pa, (flen + PAGE - 1) & ~(PAGE - 1) };
	for (unsigned i = 0; i < x.nmod; i++)
		x.kern[2 + i] = (struct lm_range){ x.mod[i].pa, (x.mod[i].size + PAGE - 1) & ~(PAGE - 1) };
	in = (struct lm_map_in){ .fw = &x.map, .reclaim = x.reclaim, .nreclaim = 1,
				 .kernel = x.kern, .nkernel = 2 + x.nmod };
	map = (struct lm_memmap_entry *)fake_at(&x.f, x.pl.map_pa);
	if (lm_map_build(&in, map, x.pl.map_cap, &nmap, x.why, sizeof(x.why)))
		die("lm_map_build", x.why);
	x.m.map = map;
	x.m.nmap = nmap;
	img = fake_at(&x.f, x.blk.pa);
	if (lm_respond(&x.m, &x.blk.req, img, x.pl.resp_len ? fake_at(&x.f, x.pl.resp_pa) : NULL,
		       x.pl.resp_pa, (x.pl.resp_len + PAGE - 1) & ~(PAGE - 1), &x.pl.answer, x.why,
		       sizeof(x.why)))
		die("lm_respond", x.why);
	if (x.pl.answer.used > x.pl.resp_len)
		die("the responses", "grew past the buffer sized for them");
	caps = (struct pt_plan_caps){ .has_1g = flags & 4, .levels = levels, .maxphyaddr = 46,
				      .boot_services_gone = true, .hhdm_base = x.m.hhdm };
	x.plan = (struct pt_plan){ .entry = x.e, .cap = PLAN_CAP };
	if (pt_plan_build(&x.map, NULL, &caps, &x.plan))
		die("pt_plan_build", NULL);
	pin = (struct lm_plan_in){ .elf = &x.elf, .block_pa = x.blk.pa,
				   .identity_low = x.blk.req.base_rev == 0, .levels = levels,
				   .has_1g = caps.has_1g };
	if (lm_plan_add(&x.plan, &pin))
		die("lm_plan_add", NULL);
	check_responses(&x, img, map, nmap);
	if (!in_hhdm(&x.plan, x.m.hhdm, x.pl.stacks_pa, x.pl.stacks_len) ||
	    !entry_of(map, nmap, x.pl.stacks_pa, x.pl.stacks_len))
		die("the stacks", "not in the HHDM or not in one entry of the map handed over");
	if (getenv("FUZZ_LMLOAD_SAY"))
		fprintf(stderr, "fuzz_lmload: handed over: %u map entries, %u plan entries, "
			"responses 0x%llx bytes\n", nmap, x.plan.n, (unsigned long long)x.pl.answer.used);
	release(&x.f);
	return 0;
}
