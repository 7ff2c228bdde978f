/* SPDX-License-Identifier: MIT */
/*
 * The Linux/x86 boot protocol's data (see linuxboot.h).
 *
 * No firmware calls (firmware-free: in the host archive).  Every field is
 * read and written bytewise, little-endian, at the offsets boot.rst gives:
 * the file is not trusted to be aligned or long enough until checked.
 */
#include "linux/linuxboot.h"
#include "report/fmt.h"

/* setup header fields: offsets in the file and in the zero page alike */
#define H_SETUP_SECTS     0x1f1u
#define H_SYSSIZE         0x1f4u
#define H_BOOT_FLAG       0x1feu
#define H_JUMP_LEN        0x201u   /* second byte of the jump: header length - 0x202 + 0x200 */
#define H_MAGIC           0x202u
#define H_VERSION         0x206u
#define H_LOADFLAGS       0x211u
#define H_INITRD_ADDR_MAX 0x22cu
#define H_KERNEL_ALIGN    0x230u
#define H_RELOCATABLE     0x234u
#define H_XLOADFLAGS      0x236u
#define H_CMDLINE_SIZE    0x238u
#define H_PREF_ADDRESS    0x258u
#define H_INIT_SIZE       0x260u
#define ZP_HDR_LIMIT      0x290u   /* the zero page's room for the setup header ends here */

#define BOOT_FLAG         0xaa55u
#define HDRS_MAGIC        UINT32_C(0x53726448)   /* "HdrS" */
#define PAGE_BYTES        4096u

static uint64_t get(const uint8_t *b, unsigned off, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = n; i-- > 0;)
		v = v << 8 | b[off + i];
	return v;
}

static void put(uint8_t *b, unsigned off, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++, v >>= 8)
		b[off + i] = (uint8_t)v;
}

int lb_parse(const uint8_t *f, uint64_t len, struct lb_kernel *k, char *why, size_t whylen)
{
	uint64_t sys_bytes;
	unsigned sects;

	if (len < LB_MIN_FILE) {
		fmt_snprintf(why, whylen, "truncated: %llu bytes, shorter than a setup header "
			     "(0x%x)", (unsigned long long)len, LB_MIN_FILE);
		return LB_ETRUNCATED;
	}
	if (get(f, H_BOOT_FLAG, 2) != BOOT_FLAG || get(f, H_MAGIC, 4) != HDRS_MAGIC) {
		fmt_snprintf(why, whylen, "not a bzImage: boot_flag 0x%04llx (wants 0xaa55), "
			     "header magic 0x%08llx (wants \"HdrS\")",
			     (unsigned long long)get(f, H_BOOT_FLAG, 2),
			     (unsigned long long)get(f, H_MAGIC, 4));
		return LB_EMAGIC;
	}
	k->version = (uint16_t)get(f, H_VERSION, 2);
	if (k->version < LB_MIN_VERSION) {
		fmt_snprintf(why, whylen, "boot protocol %u.%02u: 2.12 or later is needed for the "
			     "64-bit entry", k->version >> 8, k->version & 0xff);
		return LB_EVERSION;
	}
	k->hdr_end = 0x202u + f[H_JUMP_LEN];
	if (k->hdr_end > ZP_HDR_LIMIT) {
		fmt_snprintf(why, whylen, "not a bzImage: setup header ends at 0x%x, past the "
			     "zero page's 0x%x", k->hdr_end, ZP_HDR_LIMIT);
		return LB_EMAGIC;
	}
	k->setup_sects = f[H_SETUP_SECTS];
	sects = k->setup_sects ? k->setup_sects : 4u;
	k->pm_offset = (uint64_t)(sects + 1) * LB_SECTOR;
	sys_bytes = get(f, H_SYSSIZE, 4) * 16;
	if (sys_bytes == 0 || len < k->pm_offset || len - k->pm_offset < sys_bytes) {
		fmt_snprintf(why, whylen, "truncated: %llu bytes, the header says %llu (%u setup "
			     "sectors and a %llu-byte kernel)", (unsigned long long)len,
			     (unsigned long long)(k->pm_offset + sys_bytes), sects + 1,
			     (unsigned long long)sys_bytes);
		return LB_ETRUNCATED;
	}
	k->pm_bytes = sys_bytes;
	k->loadflags = f[H_LOADFLAGS];
	k->xloadflags = (uint16_t)get(f, H_XLOADFLAGS, 2);
	k->relocatable = f[H_RELOCATABLE];
	k->kernel_alignment = (uint32_t)get(f, H_KERNEL_ALIGN, 4);
	k->pref_address = get(f, H_PREF_ADDRESS, 8);
	k->init_size = (uint32_t)get(f, H_INIT_SIZE, 4);
	k->initrd_addr_max = (uint32_t)get(f, H_INITRD_ADDR_MAX, 4);
	k->cmdline_size = (uint32_t)get(f, H_CMDLINE_SIZE, 4);
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
	if (k->kernel_alignment < PAGE_BYTES || (k->kernel_alignment & (k->kernel_alignment - 1))) {
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

int lb_e820_build(const struct pt_memmap *map, struct lb_e820 *out, unsigned cap)
{
	unsigned n = 0;

	for (unsigned i = 0; i < map->n; i++) {
		const struct pt_mem_range *r = &map->range[i];
		uint32_t t = lb_e820_type(r->type);

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

static void put_e820(uint8_t *b, unsigned off, const struct lb_e820 *e)
{
	put(b, off, 8, e->addr);
	put(b, off + 8, 8, e->size);
	put(b, off + 16, 4, e->type);
}

/* struct screen_info for an EFI framebuffer of 32-bit pixels, at zero-page offset 0. */
static void put_screen(uint8_t *zp, const struct lb_fb *fb)
{
	put(zp, 0x0f, 1, LB_VIDEO_TYPE_EFI);        /* orig_video_isVGA */
	put(zp, 0x12, 2, fb->width);                /* lfb_width */
	put(zp, 0x14, 2, fb->height);               /* lfb_height */
	put(zp, 0x16, 2, 32);                       /* lfb_depth */
	put(zp, 0x18, 4, (uint32_t)fb->base);       /* lfb_base */
	put(zp, 0x1c, 4, (uint32_t)fb->size);       /* lfb_size */
	put(zp, 0x24, 2, fb->stride_bytes);         /* lfb_linelength */
	put(zp, 0x26, 1, 8);                        /* red_size */
	put(zp, 0x27, 1, fb->bgr ? 16 : 0);         /* red_pos */
	put(zp, 0x28, 1, 8);                        /* green_size */
	put(zp, 0x29, 1, 8);                        /* green_pos */
	put(zp, 0x2a, 1, 8);                        /* blue_size */
	put(zp, 0x2b, 1, fb->bgr ? 0 : 16);         /* blue_pos */
	put(zp, 0x2c, 1, 8);                        /* rsvd_size */
	put(zp, 0x2d, 1, 24);                       /* rsvd_pos */
	put(zp, 0x32, 2, 1);                        /* pages */
	if (fb->base >> 32) {
		put(zp, 0x36, 4, LB_VIDEO_CAP_64BIT_BASE);  /* capabilities */
		put(zp, 0x3a, 4, fb->base >> 32);           /* ext_lfb_base */
	}
}

void lb_fill_params(uint8_t *zp, const uint8_t *file, const struct lb_kernel *k,
		    const struct lb_load *ld, const struct lb_e820 *e820, unsigned n, uint8_t *ext)
{
	unsigned in_zp = n < LB_E820_IN_PARAMS ? n : LB_E820_IN_PARAMS;

	for (unsigned i = 0; i < LB_ZERO_PAGE_BYTES; i++)
		zp[i] = 0;
	for (unsigned off = LB_HDR_OFF; off < k->hdr_end; off++)
		zp[off] = file[off];
	zp[LB_ZP_TYPE_OF_LOADER] = LB_LOADER_UNDEFINED;
	put(zp, LB_ZP_CMDLINE, 4, (uint32_t)ld->cmdline_pa);
	put(zp, LB_ZP_EXT_CMDLINE, 4, ld->cmdline_pa >> 32);
	if (ld->initrd_bytes) {
		put(zp, LB_ZP_RAMDISK, 4, (uint32_t)ld->initrd_pa);
		put(zp, LB_ZP_EXT_RAMDISK, 4, ld->initrd_pa >> 32);
		put(zp, LB_ZP_RAMDISK_SIZE, 4, (uint32_t)ld->initrd_bytes);
		put(zp, LB_ZP_EXT_RAMDISK_SIZE, 4, ld->initrd_bytes >> 32);
	}
	put(zp, LB_ZP_ACPI_RSDP, 8, ld->acpi_rsdp);
	if (ld->fb)
		put_screen(zp, ld->fb);
	zp[LB_ZP_E820_ENTRIES] = (uint8_t)in_zp;
	for (unsigned i = 0; i < in_zp; i++)
		put_e820(zp, LB_ZP_E820_TABLE + i * LB_E820_ENTRY, &e820[i]);
	if (n > LB_E820_IN_PARAMS && ext) {
		/* the rest in a SETUP_E820_EXT node, ahead of any list the header had */
		put(ext, 0, 8, get(zp, LB_ZP_SETUP_DATA, 8));
		put(ext, 8, 4, LB_SETUP_E820_EXT);
		put(ext, 12, 4, (uint64_t)(n - LB_E820_IN_PARAMS) * LB_E820_ENTRY);
		for (unsigned i = LB_E820_IN_PARAMS; i < n; i++)
			put_e820(ext, LB_SETUP_DATA_HDR + (i - LB_E820_IN_PARAMS) * LB_E820_ENTRY,
				 &e820[i]);
		put(zp, LB_ZP_SETUP_DATA, 8, ld->setup_data_pa);
	}
}
