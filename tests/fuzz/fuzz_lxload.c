/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a bzImage's whole load plan, on the host, the firmware
 * replaced by a fake memory map and its page allocator.  The file goes the
 * way linux_load() takes it (linux.c): lb_parse and lb_check_run, then
 * lx_place (init_size at pref_address or the lowest aligned fit, the setup
 * copy, the initrds' run, the zero page and command line below 4 GiB, the
 * e820 table and its extension); then what linux.c does after
 * ExitBootServices: the final memory map (every allocation now loader
 * data), lb_e820_build and lb_fill_params into the zero page.
 *
 * Input: u8 map shape (as fuzz_lmload's), u8 flags (bit 0: 5 levels, bit
 * 1: LA57, bits 5:2 the initrd count modulo LX_INITRD_MAX + 2), u16 RAM
 * scale, u16 command line length, a u32 size per initrd, then the file
 * (little endian).
 *
 * What the kernel relies on, each compared with a computation of its own
 * here; violations abort():
 *  - the kernel at pref_address, or (relocatable) at a kernel_alignment
 *    multiple at or above 1 MiB whose init_size range ends below its limit
 *    (4 GiB, or 2^maxphyaddr with XLF_CAN_BE_LOADED_ABOVE_4G), init_size
 *    rounded to pages and holding the protected-mode bytes;
 *  - the initrds one after the other, each 4-byte aligned, their run of
 *    exactly their sum ending at or below initrd_addr_max (or anywhere for
 *    a kernel that takes them above 4 GiB); a sum past 2^40 refused naming
 *    the initrd, never placed; one within it never refused for its size;
 *  - the zero page and the command line below 4 GiB, one page each;
 *  - no two allocations overlap, each in free RAM, and each placement is
 *    what the allocator gave (address, bytes rounded to pages);
 *  - the zero page's cmd_line_ptr, ramdisk_image and ramdisk_size (with
 *    their ext_ high halves) are what was placed, and the e820 table it
 *    holds (and its SETUP_E820_EXT node) gives the kernel, the initrds,
 *    the zero page and the command line as RAM.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ptlab/memmap.h>
#include <ptlab/pte.h>

#include "linux/linuxboot.h"
#include "linux/lxplace.h"

#define PAGE        UINT64_C(4096)
#define MIB         (UINT64_C(1) << 20)
#define GIB         (UINT64_C(1) << 30)
#define HDR         6u
#define MAX_DESC    96u
#define MAX_ALLOC   32u
#define MAXPHY      46u
#define E820_CAP    (2 * (MAX_DESC + MAX_ALLOC) + 8)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct desc {
	uint32_t type;
	uint64_t pa, len;
};

struct alloc {
	uint64_t pa, bytes;
};

static struct {
	struct desc d[MAX_DESC];
	unsigned nd;
	struct alloc a[MAX_ALLOC];
	unsigned na;
	struct pt_mem_range r0[MAX_DESC * 2], r1[(MAX_DESC + MAX_ALLOC) * 2];
	struct pt_memmap map0, map;
	struct lb_kernel h;
	struct lx_place pl;
	uint64_t isize[LX_INITRD_MAX + 1];
	struct lb_e820 e820[E820_CAP];
	uint8_t zp[LB_ZERO_PAGE_BYTES];
	uint8_t ext[LB_SETUP_DATA_HDR + E820_CAP * LB_E820_ENTRY];
	char why[200];
} x;

static void die(const char *what, const char *why)
{
	fprintf(stderr, "fuzz_lxload: %s%s%s\n", what, why ? ": " : "", why ? why : "");
	abort();
}

static uint64_t rd(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}

static void add(uint32_t type, uint64_t pa, uint64_t len)
{
	if (x.nd < MAX_DESC && len)
		x.d[x.nd++] = (struct desc){ type, pa, len };
}

/* The firmware's map of shape @shape with RAM scaled by @scale (as fuzz_lmload's). */
static void add_shape(unsigned shape, unsigned scale)
{
	uint64_t low = (32 + (scale & 0x3ff)) * MIB, high = (uint64_t)(scale >> 10) * GIB;

	switch (shape % 4) {
	case 0:      /* like QEMU's q35: low RAM, ACPI, the firmware's, RAM above 4 GiB */
		if (low > 3 * GIB)
			low = 3 * GIB;
		add(PT_EFI_CONVENTIONAL, 0, 0xa0000);
		add(PT_EFI_CONVENTIONAL, MIB, 7 * MIB);
		add(PT_EFI_ACPI_NVS, 8 * MIB, 32 * 1024);
		add(PT_EFI_CONVENTIONAL, 8 * MIB + 32 * 1024, low - 10 * MIB - 32 * 1024);
		add(PT_EFI_BS_DATA, low - 2 * MIB, MIB);
		add(PT_EFI_RT_DATA, low - MIB, 512 * 1024);
		add(PT_EFI_ACPI_RECLAIM, low - 512 * 1024, 512 * 1024);
		add(PT_EFI_MMIO, 0xfec00000, PAGE);
		add(PT_EFI_CONVENTIONAL, 4 * GIB, high);
		break;
	case 1:      /* tiny: a few MiB */
		add(PT_EFI_CONVENTIONAL, MIB, (2 + (scale & 15)) * MIB);
		add(PT_EFI_RT_CODE, (3 + (scale & 15)) * MIB, PAGE);
		break;
	case 2:      /* fragmented: 64 KiB pieces between reserved pages */
		for (unsigned i = 0; i < 40; i++) {
			uint64_t at = MIB + i * (64 * 1024 + PAGE + (scale & 7) * PAGE);

			add(PT_EFI_CONVENTIONAL, at, 64 * 1024 + (i % 3) * 64 * 1024);
			add(PT_EFI_RESERVED, at + 64 * 1024 + (i % 3) * 64 * 1024, PAGE);
		}
		add(PT_EFI_CONVENTIONAL, 64 * MIB, low);
		break;
	default:     /* all above 4 GiB but a little low memory */
		add(PT_EFI_CONVENTIONAL, MIB, MIB);
		add(PT_EFI_CONVENTIONAL, 4 * GIB, low + high);
		break;
	}
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/* Free: in a conventional range of the firmware's map, and no allocation there. */
static bool is_free(uint64_t pa, uint64_t bytes)
{
	bool in = false;

	if (pa + bytes < pa)
		return false;
	for (unsigned i = 0; i < x.map0.n && !in; i++)
		in = x.map0.range[i].type == PT_EFI_CONVENTIONAL && pa >= x.map0.range[i].pa &&
		     pa + bytes <= x.map0.range[i].pa + x.map0.range[i].len;
	for (unsigned k = 0; k < x.na && in; k++)
		in = !overlaps(pa, bytes, x.a[k].pa, x.a[k].bytes);
	return in;
}

static void take(uint64_t pa, uint64_t bytes)
{
	if (!bytes || bytes % PAGE || pa % PAGE)
		die("an allocation of no page or not of whole pages", NULL);
	x.a[x.na++] = (struct alloc){ pa, bytes };
}

/* AllocateAddress */
static bool fake_at(void *ctx, uint64_t pa, uint64_t bytes)
{
	(void)ctx;
	if (x.na == MAX_ALLOC || !pa || !is_free(pa, bytes))
		return false;
	take(pa, bytes);
	return true;
}

/* AllocateMaxAddress: the highest free pages ending at or below @max. */
static uint64_t fake_below(void *ctx, uint64_t max, uint64_t bytes)
{
	(void)ctx;
	if (x.na == MAX_ALLOC || !bytes)
		return 0;
	for (unsigned i = x.map0.n; i-- > 0;) {
		const struct pt_mem_range *r = &x.map0.range[i];
		uint64_t top = r->pa + r->len, pa;

		if (r->type != PT_EFI_CONVENTIONAL || r->len < bytes)
			continue;
		if (top - 1 > max)
			top = (max + 1) & ~(PAGE - 1);
		if (top < r->pa + bytes)
			continue;
		pa = top - bytes;
		while (pa >= r->pa) {
			unsigned k;

			for (k = 0; k < x.na; k++)
				if (overlaps(pa, bytes, x.a[k].pa, x.a[k].bytes))
					break;
			if (k == x.na) {
				if (!pa)
					break;
				take(pa, bytes);
				return pa;
			}
			if (x.a[k].pa < r->pa + bytes)
				break;
			pa = x.a[k].pa - bytes;
		}
	}
	return 0;
}

static const struct alloc *find(uint64_t pa)
{
	for (unsigned k = 0; k < x.na; k++)
		if (x.a[k].pa == pa)
			return &x.a[k];
	return NULL;
}

/* The map with each allocation carved out as loader data (@final), or as given. */
static void normalize(bool final, struct pt_memmap *out, struct pt_mem_range *r, unsigned cap)
{
	static uint8_t raw[(MAX_DESC + MAX_ALLOC) * 40];
	unsigned n = 0;

	for (unsigned i = 0; i < x.nd + (final ? x.na : 0); i++, n++) {
		uint8_t *p = raw + 40 * n;
		uint32_t type = i < x.nd ? x.d[i].type : PT_EFI_LOADER_DATA;
		uint64_t pa = i < x.nd ? x.d[i].pa : x.a[i - x.nd].pa;
		uint64_t pages = (i < x.nd ? x.d[i].len : x.a[i - x.nd].bytes) / PAGE;

		memset(p, 0, 40);
		memcpy(p + PT_EFI_DESC_TYPE, &type, 4);
		memcpy(p + PT_EFI_DESC_PA, &pa, 8);
		memcpy(p + PT_EFI_DESC_PAGES, &pages, 8);
	}
	*out = (struct pt_memmap){ .range = r, .cap = cap };
	if (pt_memmap_normalize(raw, sizeof(raw), n, 40, MAXPHY, out))
		die("a fake map does not normalize", NULL);
}

/* The placement's facts against the allocations and the header's rules. */
static void check_placement(void)
{
	const struct lx_place *pl = &x.pl;
	const struct lb_kernel *h = &x.h;
	uint64_t limit, end;
	const struct { uint64_t pa, len; } got[] = {
		{ pl->load_pa, pl->init_bytes }, { pl->setup_pa, LB_SETUP_COPY },
		{ pl->initrd_pa, pl->initrd_bytes }, { pl->zero_page_pa, 2 * PAGE },
		{ pl->e820_pa, pl->e820_bytes }, { pl->ext_pa, pl->ext_cap },
	};

	for (unsigned k = 0; k < x.na; k++)
		for (unsigned j = k + 1; j < x.na; j++)
			if (overlaps(x.a[k].pa, x.a[k].bytes, x.a[j].pa, x.a[j].bytes))
				die("two allocations", "overlap");
	for (unsigned i = 0; i < sizeof(got) / sizeof(got[0]); i++) {
		const struct alloc *a = find(got[i].pa);

		if (!got[i].len && !got[i].pa)
			continue;
		if (!a || a->bytes != (got[i].len + PAGE - 1) / PAGE * PAGE)
			die("a placement", "its address or bytes are not the allocation's");
	}
	if (pl->init_bytes != ((uint64_t)h->init_size + PAGE - 1) / PAGE * PAGE ||
	    pl->init_bytes < h->pm_bytes)
		die("the kernel", "init_size not rounded to pages or short of the kernel");
	if (!strcmp(pl->how, "pref_address")) {
		if (pl->load_pa != h->pref_address)
			die("the kernel", "not at pref_address");
	} else {
		limit = h->xloadflags & LB_XLF_CAN_BE_LOADED_ABOVE_4G ?
			(UINT64_C(1) << MAXPHY) - 1 : LX_BELOW_4G;
		if (!h->relocatable || pl->load_pa % h->kernel_alignment ||
		    pl->load_pa < LX_LOW_LIMIT || pl->load_pa + pl->init_bytes - 1 > limit)
			die("the kernel", "not relocatable, not aligned, below 1 MiB or past its limit");
	}
	end = 0;
	for (unsigned i = 0; i < x.pl.ninitrd; i++) {
		if (pl->initrd_at[i] % LX_INITRD_ALIGN || pl->initrd_at[i] < end ||
		    pl->initrd_at[i] - end >= LX_INITRD_ALIGN)
			die("an initrd", "not 4-byte aligned right after the one before");
		end = pl->initrd_at[i] + x.isize[i];
	}
	if (end != pl->initrd_bytes)
		die("the initrds", "their run is not their sum");
	if (pl->initrd_bytes && !(h->xloadflags & LB_XLF_CAN_BE_LOADED_ABOVE_4G) &&
	    pl->initrd_pa + pl->initrd_bytes - 1 > h->initrd_addr_max)
		die("the initrds", "past initrd_addr_max");
	if (pl->zero_page_pa + 2 * PAGE - 1 > LX_BELOW_4G || pl->cmdline_pa != pl->zero_page_pa + PAGE)
		die("the zero page or the command line", "not below 4 GiB, one page each");
	if (pl->e820_bytes != (uint64_t)E820_CAP * sizeof(struct lb_e820) ||
	    pl->ext_cap != lb_e820_ext_bytes(E820_CAP))
		die("the e820 table", "not sized for its entries");
}

/* Whether the e820 entries @e (@n) give [pa, pa + len) as RAM (type 1). */
static bool e820_ram(const uint8_t *e, unsigned n, uint64_t pa, uint64_t len)
{
	for (uint64_t p = pa; p < pa + len;) {
		unsigned i;

		for (i = 0; i < n; i++) {
			uint64_t a = rd(e + LB_E820_ENTRY * i, 8), s = rd(e + LB_E820_ENTRY * i + 8, 8);

			if (rd(e + LB_E820_ENTRY * i + 16, 4) == 1 && p >= a && p - a < s) {
				p = a + s;
				break;
			}
		}
		if (i == n)
			return false;
	}
	return true;
}

/* The zero page as lb_fill_params() wrote it, read back field by field. */
static void check_zero_page(unsigned n)
{
	const struct lx_place *pl = &x.pl;
	unsigned inparams = n < LB_E820_IN_PARAMS ? n : LB_E820_IN_PARAMS;
	static uint8_t all[E820_CAP * LB_E820_ENTRY];

	if ((rd(x.zp + 0x228, 4) | rd(x.zp + 0x0c8, 4) << 32) != pl->cmdline_pa ||
	    (rd(x.zp + 0x218, 4) | rd(x.zp + 0x0c0, 4) << 32) != pl->initrd_pa ||
	    (rd(x.zp + 0x21c, 4) | rd(x.zp + 0x0c4, 4) << 32) != pl->initrd_bytes)
		die("the zero page", "command line or initrd pointers not what was placed");
	if (x.zp[0x1e8] != inparams)
		die("the zero page", "e820_entries not the table's");
	memcpy(all, x.zp + 0x2d0, (size_t)inparams * LB_E820_ENTRY);
	if (n > LB_E820_IN_PARAMS) {
		if (rd(x.zp + 0x250, 8) != pl->ext_pa || rd(x.ext + 8, 4) != LB_SETUP_E820_EXT ||
		    rd(x.ext + 12, 4) != (n - LB_E820_IN_PARAMS) * LB_E820_ENTRY)
			die("the zero page", "setup_data not the SETUP_E820_EXT node placed");
		memcpy(all + LB_E820_IN_PARAMS * LB_E820_ENTRY, x.ext + LB_SETUP_DATA_HDR,
		       (size_t)(n - LB_E820_IN_PARAMS) * LB_E820_ENTRY);
	}
	if (!e820_ram(all, n, pl->load_pa, pl->init_bytes) ||
	    !e820_ram(all, n, pl->initrd_pa, pl->initrd_bytes) ||
	    !e820_ram(all, n, pl->zero_page_pa, 2 * PAGE))
		die("the e820 table", "does not give what was placed as RAM");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned levels, ninitrd, cmdline;
	const struct lx_pages pg = { NULL, fake_at, fake_below };
	const uint8_t *file;
	size_t flen;
	unsigned __int128 sum = 0;
	struct lb_load ld;
	int err, n;

	if (size < HDR)
		return 0;
	memset(&x, 0, sizeof(x));
	levels = data[1] & 1 ? 5 : 4;
	ninitrd = (data[1] >> 2 & 15) % (LX_INITRD_MAX + 2);
	cmdline = (unsigned)rd(data + 4, 2);
	if (size < HDR + 4u * ninitrd)
		return 0;
	for (unsigned i = 0; i < ninitrd; i++) {
		uint64_t v = rd(data + HDR + 4 * i, 4);

		/* the top bit scales a size up to 2^40 and past it, the sums that must be refused */
		x.isize[i] = v & 0x80000000 ? (v & 0x7fffffff) << 10 : v;
		sum += x.isize[i];
	}
	file = data + HDR + 4 * ninitrd;
	flen = size - HDR - 4 * ninitrd;
	add_shape(data[0], (unsigned)rd(data + 2, 2));
	normalize(false, &x.map0, x.r0, sizeof(x.r0) / sizeof(x.r0[0]));
	if (lb_parse(file, flen, &x.h, x.why, sizeof(x.why)) != LB_OK ||
	    lb_check_run(&x.h, levels, data[1] & 2, cmdline, x.why, sizeof(x.why)) != LB_OK) {
		if (!x.why[0])
			die("lb_parse or lb_check_run refused without a reason", NULL);
		return 0;
	}
	x.pl = (struct lx_place){ .map = &x.map0, .maxphyaddr = MAXPHY, .initrd_size = x.isize,
				  .ninitrd = ninitrd, .e820_cap = E820_CAP };
	err = lx_place(&pg, &x.h, &x.pl, x.why, sizeof(x.why));
	if (getenv("FUZZ_LXLOAD_SAY"))
		fprintf(stderr, "fuzz_lxload: %s%s\n", err ? "refused: " : "placed ", err ? x.why :
			x.pl.how);
	if (err) {
		bool empty = false;

		for (unsigned i = 0; i < ninitrd; i++)
			empty |= !x.isize[i];
		if (!x.why[0])
			die("lx_place refused without a reason", NULL);
		if (err == LX_PLACE_REFUSED && ninitrd <= LX_INITRD_MAX && !empty &&
		    sum + 4 * ninitrd <= ((unsigned __int128)LX_INITRD_BYTES) - 4 * LX_INITRD_MAX)
			die("initrds well within the bound refused", x.why);
		return 0;
	}
	if (ninitrd > LX_INITRD_MAX || sum > LX_INITRD_BYTES)
		die("initrds beyond the bounds placed", NULL);
	check_placement();

	/* after ExitBootServices: the e820 table of the final map, the zero page */
	normalize(true, &x.map, x.r1, sizeof(x.r1) / sizeof(x.r1[0]));
	n = lb_e820_build(&x.map, x.e820, E820_CAP);
	if (n < 0 || lb_e820_ext_bytes((unsigned)n) > x.pl.ext_cap)
		die("lb_e820_build", "more entries than the table placed");
	ld = (struct lb_load){ .cmdline_pa = x.pl.cmdline_pa, .initrd_pa = x.pl.initrd_pa,
			       .initrd_bytes = x.pl.initrd_bytes, .setup_data_pa = x.pl.ext_pa };
	lb_fill_params(x.zp, file, &x.h, &ld, x.e820, (unsigned)n, x.pl.ext_cap ? x.ext : NULL);
	check_zero_page((unsigned)n);
	return 0;
}
