/* SPDX-License-Identifier: MIT */
/*
 * Where a Limine hand-off puts what it allocates, firmware-free
 * (host-tested, and fuzzed whole by tests/fuzz/fuzz_lmload.c): the
 * kernel's load block (loaded, its requests scanned, its entry and paging
 * mode judged), then, once the CPUs are known, the kernel file's copy, the
 * stacks, the GDT with the APs' park blocks, the memory map's entries and
 * the responses' buffer.  Every size a kernel file controls (its span,
 * its stack size request, the responses it asks for) is bounded here with
 * checked arithmetic (lib/ckd.h) before anything is allocated for it, and
 * a refusal names the field and its value.
 *
 * The firmware stays behind struct lm_pages: lmload.c gives AllocatePages
 * (through kernel_alloc()) and the identity, the fuzz target a fake memory
 * map.  Nothing is freed here: a refused kernel's pages are the seam's to
 * give back.
 */
#ifndef PTLAB_EFI_LIMINE_LMPLACE_H
#define PTLAB_EFI_LIMINE_LMPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "limine/lmelf.h"
#include "limine/lmreq.h"
#include "limine/lmresp.h"

/*
 * The most RAM the stacks may take: half of it (the kernel, its modules
 * and the tables need the rest).  One stack may take at most a quarter.
 */
#define LM_STACKS_RAM_SHIFT  1u
#define LM_STACK_RAM_SHIFT   2u
#define LM_ENTRY_BYTES       16u

/* The firmware seam: pages, and where their bytes are. */
struct lm_pages {
	void *ctx;
	/*
	 * @bytes (a whole number of 4 KiB pages, never 0) at an address
	 * aligned to @align (a power of two, at least 4 KiB); their content
	 * unspecified.  Returns the physical address, 0 when there is none.
	 */
	uint64_t (*alloc)(void *ctx, uint64_t bytes, uint64_t align);
	/* The bytes at @pa, the start of an allocation of ours. */
	uint8_t *(*at)(void *ctx, uint64_t pa);
};

/* The load block, as lm_block_place() made it. */
struct lm_block {
	uint64_t pa;                          /* elf->span bytes, elf->va maps here */
	struct lm_requests req;
	uint64_t entry;                       /* e_entry, or the entry point request's */
	uint8_t entry_bytes[LM_ENTRY_BYTES];  /* what the file has there (zeros past filesz) */
	unsigned entry_len;
	uint64_t paging_mode;                 /* LM_PAGING_4LVL or LM_PAGING_5LVL */
};

/* Why a placement failed: the kernel's fault, or the machine's lack of memory. */
enum lm_place_err {
	LM_PLACE_OK = 0,
	LM_PLACE_REFUSED = -1,                /* the file asks for something impossible */
	LM_PLACE_NOMEM = -2,                  /* no free RAM for a legal request */
};

/**
 * lm_block_place - the load block of a parsed kernel
 * @pg: the pages
 * @buf, @len: the file, as lm_elf_parse() read it into @elf
 * @elf: its plan (slide applied), no segment writable and executable
 * @levels: the run's paging levels, 4 or 5 (the kernel must allow them)
 * @cause: why the run has @levels ("--levels=5", the CPU without LA57, ...),
 *          named in a refusal
 * @o: receives the block
 * @why, @whylen: the reason, on error
 *
 * Returns LM_PLACE_OK; LM_PLACE_NOMEM when no pages hold the span at its
 * alignment; LM_PLACE_REFUSED for a file lm_elf_load() or lm_scan()
 * refuses, an entry in no executable segment, a paging mode the kernel
 * does not allow at @levels.
 */
int lm_block_place(const struct lm_pages *pg, const uint8_t *buf, uint64_t len,
		   const struct lm_elf *elf, unsigned levels, const char *cause,
		   struct lm_block *o, char *why, size_t whylen);

/**
 * lm_stack_size - the stacks a kernel asks for, bounded
 * @r: its requests
 * @ncpu: the CPUs, the BSP among them (ncpu + 1 stacks: one per CPU, and
 *        the BSP's own at slot ncpu)
 * @ram: bytes of RAM of the memory map
 * @each: receives each stack's bytes: the request rounded up to 4 KiB, at
 *        least LM_STACK_DEFAULT
 * @total: receives @each * (@ncpu + 1)
 *
 * Returns 0, or -1 with @why naming the request and its value: a stack
 * above a quarter of @ram (or one that rounds past 2^64), the stacks
 * together above half of it (or past 2^64).
 */
int lm_stack_size(const struct lm_requests *r, unsigned ncpu, uint64_t ram, uint64_t *each,
		  uint64_t *total, char *why, size_t whylen);

/* What lm_place() takes and gives. */
struct lm_place {
	/* in */
	uint64_t ram;              /* bytes of RAM of the memory map */
	unsigned ncpu;             /* 1..LM_MAX_CPUS */
	uint64_t kfile_len;        /* the kernel file's bytes (copied by the caller), not 0 */
	uint64_t gdt_head;         /* bytes of the GDT page before the park blocks */
	uint64_t park_bytes;       /* one AP's park block */
	unsigned map_cap;          /* memory map entries to size for */
	/* out: each allocation's address and the bytes asked for (the pages round them up) */
	uint64_t stack_bytes;      /* each CPU's stack */
	uint64_t stacks_pa, stacks_len;     /* ncpu + 1 stacks, CPU i's at slot i */
	uint64_t kfile_pa;
	uint64_t gdt_pa, gdt_len;           /* zeroed */
	uint64_t map_pa, map_len;           /* zeroed */
	uint64_t resp_pa, resp_len;         /* zeroed; resp_len 0: nothing to answer, no buffer */
	struct lm_answer answer;            /* lm_respond()'s count */
};

/**
 * lm_place - everything the hand-off allocates after the load block
 * @pg: the pages
 * @r: the kernel's requests
 * @m: the machine as the responses will describe it, but for the memory
 *     map: lm_place() points it at its map buffer of @pl->map_cap entries
 * @pl: the inputs; receives the placement
 * @why, @whylen: the reason, on error
 *
 * The sizes are checked first (lm_stack_size(), the GDT's and the map's
 * products, the responses laid out), then allocated in that order: the
 * file's copy, the stacks, the GDT, the map, the responses (none when they
 * take no byte: a kernel that asks for nothing has no buffer).
 *
 * Returns LM_PLACE_OK; LM_PLACE_REFUSED with @why for a stack size beyond
 * the bounds, @pl->ncpu 0 or above LM_MAX_CPUS, responses that cannot be
 * laid out; LM_PLACE_NOMEM with @why naming what found no pages.
 */
int lm_place(const struct lm_pages *pg, const struct lm_requests *r, struct lm_machine *m,
	     struct lm_place *pl, char *why, size_t whylen);

#endif
