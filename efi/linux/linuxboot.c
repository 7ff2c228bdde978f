/* SPDX-License-Identifier: MIT */
/*
 * The Linux/x86 boot protocol's data (see linuxboot.h).
 *
 * No firmware calls (firmware-free: in the host archive).  The file is
 * not trusted to be aligned or long enough until checked: its setup header
 * is copied out whole (struct lb_setup_header, packed) once the length is
 * known; the zero page is written through struct lb_boot_params, whose
 * offsets linuxboot.h asserts.
 */
#include "linux/linuxboot.h"
#include "report/fmt.h"

#include <ptlab/pte.h>

#include <string.h>

#define BOOT_FLAG         0xaa55u
#define HDRS_MAGIC        UINT32_C(0x53726448)   /* "HdrS" */
#define PARAGRAPH         16u                    /* syssize's unit */
/* file offset past the last header field lb_parse reads (init_size, 2.10) */
#define HDR_READ_END      ((uint32_t)(offsetof(struct lb_boot_params, hdr.init_size) + 4))

int lb_parse(const uint8_t *f, uint64_t len, struct lb_kernel *k, char *why, size_t whylen)
{
	struct lb_setup_header h;
	uint64_t sys_bytes, have;
	unsigned sects;

	if (len < LB_MIN_FILE) {
		fmt_snprintf(why, whylen, "truncated: %llu bytes, shorter than a setup header "
			     "(0x%x)", (unsigned long long)len, LB_MIN_FILE);
		return LB_ETRUNCATED;
	}
	memcpy(&h, f + LB_HDR_OFF, sizeof(h));
	if (h.boot_flag != BOOT_FLAG || h.header != HDRS_MAGIC) {
		fmt_snprintf(why, whylen, "not a bzImage: boot_flag 0x%04x (wants 0xaa55), "
			     "header magic 0x%08x (wants \"HdrS\")", h.boot_flag, h.header);
		return LB_EMAGIC;
	}
	k->version = h.version;
	if (k->version < LB_MIN_VERSION) {
		fmt_snprintf(why, whylen, "boot protocol %u.%02u: 2.12 or later is needed for the "
			     "64-bit entry", k->version >> 8, k->version & 0xff);
		return LB_EVERSION;
	}
	k->hdr_end = (uint32_t)offsetof(struct lb_boot_params, hdr.header) + h.jump[1];
	if (k->hdr_end > LB_SETUP_COPY) {
		fmt_snprintf(why, whylen, "not a bzImage: setup header ends at 0x%x, past the "
			     "zero page's 0x%x", k->hdr_end, LB_SETUP_COPY);
		return LB_EMAGIC;
	}
	/* the fields judged below must be the header's, and lb_fill_params() copies only it */
	if (k->hdr_end < HDR_READ_END) {
		fmt_snprintf(why, whylen, "not a bzImage: setup header ends at 0x%x, before its "
			     "init_size field ends (0x%x)", k->hdr_end, HDR_READ_END);
		return LB_EMAGIC;
	}
	k->setup_sects = h.setup_sects;
	sects = k->setup_sects ? k->setup_sects : 4u;
	k->pm_offset = (uint64_t)(sects + 1) * LB_SECTOR;
	/*
	 * syssize counts 16-byte paragraphs, rounded up: the file may end up to
	 * 15 bytes before syssize * 16 (memtest86+ does), never earlier.
	 */
	sys_bytes = (uint64_t)h.syssize * PARAGRAPH;
	have = len > k->pm_offset ? len - k->pm_offset : 0;
	if (sys_bytes == 0 || have + (PARAGRAPH - 1) < sys_bytes) {
		fmt_snprintf(why, whylen, "truncated: %llu bytes, the header says %llu (%u setup "
			     "sectors and a %llu-byte kernel, syssize %u paragraphs)",
			     (unsigned long long)len,
			     (unsigned long long)(k->pm_offset + sys_bytes), sects + 1,
			     (unsigned long long)sys_bytes, h.syssize);
		return LB_ETRUNCATED;
	}
	k->pm_bytes = have < sys_bytes ? have : sys_bytes;
	k->loadflags = h.loadflags;
	k->xloadflags = h.xloadflags;
	k->relocatable = h.relocatable_kernel;
	k->kernel_alignment = h.kernel_alignment;
	k->pref_address = h.pref_address;
	k->init_size = h.init_size;
	k->initrd_addr_max = h.initrd_addr_max;
	k->cmdline_size = h.cmdline_size;
	if (!(k->xloadflags & LB_XLF_KERNEL_64)) {
		fmt_snprintf(why, whylen, "a 32-bit-only kernel: xloadflags 0x%x has no "
			     "XLF_KERNEL_64, so there is no 64-bit entry", k->xloadflags);
		return LB_E32BIT;
	}
	if (k->init_size < k->pm_bytes) {
		fmt_snprintf(why, whylen, "init_size 0x%x is smaller than the 0x%llx-byte kernel it "
			     "must hold", k->init_size, (unsigned long long)k->pm_bytes);
		return LB_EINITSIZE;
	}
	if (k->kernel_alignment < PT_PAGE_SIZE || (k->kernel_alignment & (k->kernel_alignment - 1))) {
		fmt_snprintf(why, whylen, "kernel_alignment 0x%x is not a power of two of at "
			     "least 4 KiB", k->kernel_alignment);
		return LB_EALIGN;
	}
	return LB_OK;
}

int lb_check_run(const struct lb_kernel *k, unsigned levels, bool la57, size_t cmdline,
		 char *why, size_t whylen)
{
	if (levels == 5 && !(k->xloadflags & LB_XLF_5LEVEL)) {
		fmt_snprintf(why, whylen, "--levels=5, but the kernel cannot be entered in 5-level "
			     "mode (xloadflags 0x%x has no XLF_5LEVEL): boot it with --levels=4",
			     k->xloadflags);
		return LB_ELEVELS;
	}
	if (levels == 5 && !la57) {
		fmt_snprintf(why, whylen, "--levels=5, but the CPU has no LA57 "
			     "(CPUID.(EAX=7,ECX=0):ECX[16]): it would be handed over at 4 levels; "
			     "boot it with --levels=4");
		return LB_ELEVELS;
	}
	if (cmdline > k->cmdline_size) {
		fmt_snprintf(why, whylen, "the command line has %llu bytes, the kernel takes at "
			     "most cmdline_size=%u", (unsigned long long)cmdline, k->cmdline_size);
		return LB_ECMDLINE;
	}
	return LB_OK;
}

bool lb_next_slot(const struct pt_memmap *map, uint64_t from, uint64_t size, uint64_t align,
		  uint64_t limit, uint64_t *pa)
{
	for (unsigned i = 0; i < map->n; i++) {
		const struct pt_mem_range *r = &map->range[i];
		uint64_t end = r->pa + r->len, a = r->pa > from ? r->pa : from;

		if (r->type != PT_EFI_CONVENTIONAL || a >= end)
			continue;
		if (a > UINT64_MAX - (align - 1))
			return false;
		a = (a + align - 1) & ~(align - 1);
		if (a >= end || end - a < size)
			continue;
		if (a > limit || limit - a < size)
			return false;   /* ranges are sorted: every later slot ends higher */
		*pa = a;
		return true;
	}
	return false;
}

int lb_low_ram(const struct pt_memmap *map, struct pt_range *out, unsigned cap)
{
	unsigned n = 0;
	bool over = false;

	for (unsigned i = 0; i < map->n && map->range[i].pa < LB_LOW_RAM_END; i++) {
		const struct pt_mem_range *r = &map->range[i];
		uint64_t a = r->pa < PT_PAGE_SIZE ? PT_PAGE_SIZE : r->pa;
		uint64_t b = r->len < LB_LOW_RAM_END - r->pa ? r->pa + r->len : LB_LOW_RAM_END;

		if (lb_e820_type(r->type) != LB_E820_RAM || a >= b)
			continue;
		/* a range that continues the last piece belongs to it */
		if (n && out[n - 1].va + out[n - 1].len == a) {
			out[n - 1].len = b - out[n - 1].va;
			continue;
		}
		if (n == cap) {
			over = true;
			continue;
		}
		out[n++] = (struct pt_range){ a, b - a };
	}
	return over ? -1 : (int)n;
}

uint32_t lb_e820_type(uint32_t efi_type)
{
	switch (efi_type) {
	case PT_EFI_CONVENTIONAL:
	case PT_EFI_LOADER_CODE:
	case PT_EFI_LOADER_DATA:
	case PT_EFI_BS_CODE:
	case PT_EFI_BS_DATA:
		return LB_E820_RAM;
	case PT_EFI_ACPI_RECLAIM:
		return LB_E820_ACPI;
	case PT_EFI_ACPI_NVS:
		return LB_E820_NVS;
	case PT_EFI_UNUSABLE:
		return LB_E820_UNUSABLE;
	case PT_EFI_PERSISTENT:
		return LB_E820_PMEM;
	default:
		return LB_E820_RESERVED;
	}
}

uint32_t lb_e820_of(const struct pt_mem_range *r)
{
	uint32_t t = lb_e820_type(r->type);

	return t == LB_E820_RAM && (r->attr & LB_EFI_MEMORY_SP) ? LB_E820_SOFT_RESERVED : t;
}

bool lb_e820_exact(uint32_t efi_type)
{
	return efi_type < PT_EFI_UNACCEPTED;
}

int lb_e820_build(const struct pt_memmap *map, struct lb_e820 *out, unsigned cap)
{
	unsigned n = 0;

	for (unsigned i = 0; i < map->n; i++) {
		const struct pt_mem_range *r = &map->range[i];
		uint32_t t = lb_e820_of(r);

		if (n && out[n - 1].type == t && out[n - 1].addr + out[n - 1].size == r->pa) {
			out[n - 1].size += r->len;
			continue;
		}
		if (n == cap)
			return -1;
		out[n++] = (struct lb_e820){ r->pa, r->len, t };
	}
	return (int)n;
}

/* struct screen_info for an EFI framebuffer of 32-bit pixels. */
static void put_screen(struct lb_screen_info *si, const struct lb_fb *fb)
{
	si->orig_video_isVGA = LB_VIDEO_TYPE_EFI;
	si->lfb_width = (uint16_t)fb->width;
	si->lfb_height = (uint16_t)fb->height;
	si->lfb_depth = 32;
	si->lfb_base = (uint32_t)fb->base;
	si->lfb_size = (uint32_t)fb->size;
	si->lfb_linelength = (uint16_t)fb->stride_bytes;
	si->red_size = 8;
	si->red_pos = fb->bgr ? 16 : 0;
	si->green_size = 8;
	si->green_pos = 8;
	si->blue_size = 8;
	si->blue_pos = fb->bgr ? 0 : 16;
	si->rsvd_size = 8;
	si->rsvd_pos = 24;
	si->pages = 1;
	if (fb->base >> 32) {
		si->capabilities = LB_VIDEO_CAP_64BIT_BASE;
		si->ext_lfb_base = (uint32_t)(fb->base >> 32);
	}
}

/* efi_info for a 64-bit EFI loader: each address split into its 32-bit halves. */
static void put_efi(struct lb_boot_params *bp, const struct lb_efi *e)
{
	bp->efi_info.loader_signature = LB_EFI_SIGNATURE_64;
	bp->efi_info.systab = (uint32_t)e->systab_pa;
	bp->efi_info.systab_hi = (uint32_t)(e->systab_pa >> 32);
	bp->efi_info.memmap = (uint32_t)e->memmap_pa;
	bp->efi_info.memmap_hi = (uint32_t)(e->memmap_pa >> 32);
	bp->efi_info.memmap_size = (uint32_t)e->memmap_bytes;
	bp->efi_info.memdesc_size = e->desc_size;
	bp->efi_info.memdesc_version = e->desc_version;
	bp->secure_boot = e->secure_boot;
}

void lb_fill_params(uint8_t *zp, const uint8_t *file, const struct lb_kernel *k,
		    const struct lb_load *ld, const struct lb_e820 *e820, unsigned n, uint8_t *ext)
{
	struct lb_boot_params *bp = (struct lb_boot_params *)zp;
	unsigned in_zp = n < LB_E820_IN_PARAMS ? n : LB_E820_IN_PARAMS;
	struct lb_setup_data_hdr node;

	memset(bp, 0, sizeof(*bp));
	memcpy(zp + LB_HDR_OFF, file + LB_HDR_OFF, k->hdr_end - LB_HDR_OFF);
	bp->hdr.type_of_loader = LB_LOADER_UNDEFINED;
	bp->hdr.cmd_line_ptr = (uint32_t)ld->cmdline_pa;
	bp->ext_cmd_line_ptr = (uint32_t)(ld->cmdline_pa >> 32);
	/*
	 * The loader's fields, never the file's: an initrd and a setup_data
	 * list the file names would be pointers the kernel follows into
	 * memory nobody placed (found by fuzz_lxload).
	 */
	bp->hdr.ramdisk_image = 0;
	bp->hdr.ramdisk_size = 0;
	bp->hdr.setup_data = 0;
	if (ld->initrd_bytes) {
		bp->hdr.ramdisk_image = (uint32_t)ld->initrd_pa;
		bp->ext_ramdisk_image = (uint32_t)(ld->initrd_pa >> 32);
		bp->hdr.ramdisk_size = (uint32_t)ld->initrd_bytes;
		bp->ext_ramdisk_size = (uint32_t)(ld->initrd_bytes >> 32);
	}
	if (k->version >= LB_RSDP_VERSION)
		bp->acpi_rsdp_addr = ld->acpi_rsdp;
	if (ld->fb)
		put_screen(&bp->screen_info, ld->fb);
	if (ld->efi)
		put_efi(bp, ld->efi);
	bp->e820_entries = (uint8_t)in_zp;
	for (unsigned i = 0; i < in_zp; i++)
		bp->e820_table[i] = (struct lb_e820_entry){ e820[i].addr, e820[i].size, e820[i].type };
	if (n > LB_E820_IN_PARAMS && ext) {
		/* the rest in a SETUP_E820_EXT node, the list's only one */
		node = (struct lb_setup_data_hdr){
			.next = 0,
			.type = LB_SETUP_E820_EXT,
			.len = (n - LB_E820_IN_PARAMS) * LB_E820_ENTRY,
		};
		memcpy(ext, &node, sizeof(node));
		for (unsigned i = LB_E820_IN_PARAMS; i < n; i++) {
			struct lb_e820_entry e = { e820[i].addr, e820[i].size, e820[i].type };

			memcpy(ext + sizeof(node) + (i - LB_E820_IN_PARAMS) * sizeof(e), &e, sizeof(e));
		}
		bp->hdr.setup_data = ld->setup_data_pa;
	}
}
