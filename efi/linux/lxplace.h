/* SPDX-License-Identifier: MIT */
/*
 * Where a Linux hand-off puts what it allocates, firmware-free
 * (host-tested, and fuzzed whole by tests/fuzz/fuzz_lxload.c): the
 * protected-mode kernel's init_size range (at pref_address when that is
 * free, else for a relocatable kernel the lowest kernel_alignment-aligned
 * free slot below its limit), the setup header's copy, the initrds in one
 * run below initrd_addr_max (anywhere the CPU reaches when the kernel
 * takes them above 4 GiB), the zero page and the command line below
 * 4 GiB, the e820 table and the room of its SETUP_E820_EXT node.  Every
 * size the bzImage or an initrd controls is added and rounded with
 * checked arithmetic (lib/ckd.h) and bounded before the pages of what it
 * sizes are taken (the initrds' limits are judged after the kernel's and the
 * setup copy's pages; a refusal gives every page back: kernel_free_all()).
 *
 * The firmware stays behind struct lx_pages: linux.c gives AllocatePages
 * (through kernel_alloc()), the fuzz target a fake memory map.  The bytes
 * (the kernel's, the initrds', the command line) are the caller's to copy.
 */
#ifndef PTLAB_EFI_LINUX_LXPLACE_H
#define PTLAB_EFI_LINUX_LXPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ptlab/memmap.h>

#include "linux/linuxboot.h"

#define LX_INITRD_MAX    8u                      /* initrds one run may give (OPTS_INITRD_MAX) */
#define LX_INITRD_BYTES  (UINT64_C(1) << 40)     /* larger initrds together are refused */
#define LX_INITRD_ALIGN  4u                      /* each starts 4-byte aligned (cpio) */
#define LX_LOW_LIMIT     (UINT64_C(1) << 20)     /* the kernel goes above real-mode memory */
#define LX_BELOW_4G      UINT64_C(0xffffffff)

/* The firmware seam: pages, each call a whole number of 4 KiB pages (never 0). */
struct lx_pages {
	void *ctx;
	/* @bytes at exactly @pa (AllocateAddress); false when they are not free */
	bool (*at)(void *ctx, uint64_t pa, uint64_t bytes);
	/* @bytes ending at or below @max (AllocateMaxAddress); 0 when none */
	uint64_t (*below)(void *ctx, uint64_t max, uint64_t bytes);
};

enum lx_place_err {
	LX_PLACE_OK = 0,
	LX_PLACE_REFUSED = -1,     /* the kernel or its initrds ask for the impossible */
	LX_PLACE_NOMEM = -2,       /* no free RAM for a legal request */
};

/* What a failure is about (struct lx_place.failed). */
enum lx_piece {
	LX_PIECE_KERNEL,           /* init_size */
	LX_PIECE_INITRD,           /* the initrd at index .bad (all of them from it on, for room) */
	LX_PIECE_OTHER,            /* the setup copy, the zero page, the e820 table */
};

/* What lx_place() takes and gives. */
struct lx_place {
	/* in */
	const struct pt_memmap *map;          /* normalized, for the lowest fit */
	unsigned maxphyaddr;
	const uint64_t *initrd_size;          /* each initrd's bytes, not 0 */
	unsigned ninitrd;                     /* at most LX_INITRD_MAX */
	unsigned e820_cap;                    /* e820 entries to size for, not 0 */
	/* out */
	uint64_t load_pa, init_bytes;         /* init_size rounded to pages */
	const char *how;                      /* "pref_address" or "lowest fit" */
	uint64_t setup_pa;                    /* LB_SETUP_COPY bytes */
	uint64_t initrd_pa, initrd_bytes;     /* one run, 0 bytes: none */
	uint64_t initrd_at[LX_INITRD_MAX];    /* each initrd's offset in it */
	uint64_t zero_page_pa, cmdline_pa;    /* one page each, below 4 GiB */
	uint64_t e820_pa, e820_bytes;
	uint64_t ext_pa, ext_cap;             /* 0 bytes: every entry fits the zero page */
	enum lx_piece failed;                 /* on error: what @why is about */
	unsigned bad;                         /*   LX_PIECE_INITRD: which */
};

/**
 * lx_place - every page a Linux hand-off takes, for the judged header @h
 * @pg: the pages
 * @h: the setup header, as lb_parse() judged it
 * @pl: the inputs; receives the placement
 * @why, @whylen: the reason on error, naming the field and its value
 *                (@pl->failed and @pl->bad say which piece: the caller
 *                names the file)
 *
 * Returns LX_PLACE_OK; LX_PLACE_REFUSED for initrds past LX_INITRD_BYTES
 * together, more than LX_INITRD_MAX, an empty one; LX_PLACE_NOMEM when no
 * free RAM holds init_size (at pref_address or, relocatable, any aligned
 * slot), the initrds below initrd_addr_max (or anywhere, for a kernel that
 * takes them above 4 GiB), or the small pieces.
 */
int lx_place(const struct lx_pages *pg, const struct lb_kernel *h, struct lx_place *pl,
	     char *why, size_t whylen);

#endif
