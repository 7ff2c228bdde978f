/* SPDX-License-Identifier: MIT */
/*
 * The Limine responses, firmware-free (host-tested): every response the
 * kernel asked for and the data it points to (strings, arrays of
 * pointers, file structures, memory map entries, the CPUs' lm_smp_info,
 * framebuffers and their video modes) laid out in one buffer the caller
 * gives with its physical address, every pointer an HHDM address
 * (hhdm + pa), then each request's response pointer written.
 *
 * The buffer's pages are bootloader-reclaimable: the caller lists them in
 * lm_map_in.reclaim before building the memory map this takes.  Sizes
 * first: lm_respond() with a NULL buffer only counts the bytes.  The
 * circle (the map holds the buffer, the buffer holds the map) is broken
 * by a bound, as the sizes only grow with the counts:
 *
 *   1. n = lm_map_bound(in) with one more reclaimable range than known;
 *   2. lm_respond(m with nmap = n, map any non-NULL, img NULL, buf NULL)
 *      counts the bytes; allocate that many (whole pages);
 *   3. add the buffer to in->reclaim, lm_map_build() the map (n entries
 *      at most), then lm_respond() for real with it.
 *
 * Counting reads no memory map entry, only their count.
 */
#ifndef PTLAB_EFI_LMRESP_H
#define PTLAB_EFI_LMRESP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "limine/limine.h"
#include "limine/lmreq.h"

#define LM_MAX_CPUS     1024u
#define LM_MAX_MODULES  64u
#define LM_MAX_FBS      8u
#define LM_MAX_MODES    1024u   /* video modes per framebuffer */
#define LM_MAX_EDID     65536u

/* A file the loader read and placed (the kernel's, or a module). */
struct lm_file_in {
	uint64_t pa;               /* where its bytes are, 4 KiB aligned */
	uint64_t size;
	const char *path;          /* with a leading slash */
	const char *cmdline;       /* NULL: "" */
	uint32_t partition_index;  /* 1-based, 0 unknown */
};

struct lm_fb_in {
	uint64_t pa;
	uint64_t width, height, pitch;
	uint16_t bpp;
	uint8_t red_size, red_shift, green_size, green_shift, blue_size, blue_shift;
	const struct lm_video_mode *modes;   /* copied as they are; may be NULL */
	unsigned nmodes;
	const uint8_t *edid;                 /* copied; NULL: none */
	uint64_t edid_size;
};

struct lm_cpu_in {
	uint32_t processor_id;     /* ACPI UID */
	uint32_t lapic_id;
};

/* The machine as the hand-off leaves it: what the responses say. */
struct lm_machine {
	const char *name, *version;          /* the loader's */
	uint64_t firmware_type;              /* LM_FIRMWARE_UEFI64 */
	uint64_t hhdm;                       /* HHDM offset */
	uint64_t paging_mode;                /* lm_paging_choose()'s */
	const struct lm_fb_in *fb;
	unsigned nfb;
	const struct lm_cpu_in *cpu;         /* every CPU, the BSP included */
	unsigned ncpu;
	uint32_t bsp_lapic_id;
	uint32_t smp_flags;                  /* LM_SMP_X2APIC when x2APIC is on */
	const struct lm_memmap_entry *map;   /* lm_map_build()'s */
	unsigned nmap;
	struct lm_file_in kernel;
	const struct lm_file_in *mod;
	unsigned nmod;
	uint64_t rsdp_pa;                    /* 0: no response */
	uint64_t smbios32_pa, smbios64_pa;   /* both 0: no response */
	uint64_t efi_st_pa;                  /* 0: no response */
	uint64_t efi_map_pa, efi_map_size, efi_desc_size, efi_desc_version;  /* pa 0: no response */
	bool have_time;
	int64_t boot_time;                   /* UNIX seconds */
	uint64_t kernel_pa, kernel_va;       /* the load block's */
};

/* What lm_respond() did. */
struct lm_answer {
	uint64_t used;                       /* bytes of the buffer used (8-aligned) */
	uint32_t answered;                   /* bit per enum lm_req_kind given a response */
	uint64_t resp_off[LM_REQ_COUNT];     /* each response's offset in the buffer */
	uint64_t smp_info_off;               /* offset of the first lm_smp_info; CPU i's is + 32 i */
	unsigned nsmp;                       /* lm_smp_info entries (0: no SMP response) */
};

/**
 * lm_respond - lay out the responses and point the requests at them
 * @m: the machine
 * @r: the kernel's requests (lm_scan())
 * @img: the load block, whose requests get their response pointer;
 *       NULL together with @buf NULL: size only
 * @buf: the responses' buffer, 8-byte aligned, NULL to count only (with
 *       @img NULL) or when nothing is answered (with @img: the base
 *       revision tag still answered)
 * @buf_pa: its physical address (the pointers are @m->hhdm + @buf_pa + offset)
 * @buf_len: its bytes
 * @a: receives what was done
 *
 * The requests answered: bootloader info, firmware type, stack size,
 * HHDM, framebuffer (when @m->nfb), paging mode, SMP (when @m->ncpu),
 * memory map, entry point, kernel file, module (even with no module),
 * RSDP, SMBIOS, EFI system table, EFI memory map (when their address is
 * known), boot time (when @m->have_time), kernel address.  DTB and the
 * withdrawn terminal are left unanswered, as unknown requests are.
 * Every lm_smp_info's goto_address is 0.
 *
 * The module response is of revision 1: the caller loaded the kernel's
 * internal modules and lists them first in @m->mod.
 * The buffer is filled first; the image is written only when everything
 * fitted: each answered request's response pointer, then the base
 * revision tag's answer (lm_base_rev_commit()).  Returns 0, or -1 with
 * @why set (buffer too small or not 8-byte aligned, a count above its
 * LM_MAX_*, a string missing, the BSP not among the CPUs, a memory map
 * asked for and none given) and the image unchanged.
 */
int lm_respond(const struct lm_machine *m, const struct lm_requests *r, uint8_t *img,
	uint8_t *buf, uint64_t buf_pa, uint64_t buf_len, struct lm_answer *a,
	char *why, size_t whylen);

#endif
