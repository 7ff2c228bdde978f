/* SPDX-License-Identifier: MIT */
/*
 * The Limine requests of a loaded kernel, firmware-free (host-tested):
 * found by their common magic on 8-byte boundaries of the load block
 * (between the last start marker and the first end marker after it when
 * the kernel has them), each identified by its identifier, and the base
 * revision tag read and answered.
 *
 * Scanning only reads the block; the two writes the protocol asks of the
 * loader in the kernel's image (the base revision's answer and each
 * response pointer) happen later, when the whole hand-off is decided
 * (lm_base_rev_commit(), lm_respond()).
 */
#ifndef PTLAB_EFI_LMREQ_H
#define PTLAB_EFI_LMREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "limine/limine.h"

/*
 * The base revisions ptlab honours: all the specification defines, 0 to
 * 2.  None has been dropped, so no revision is ever refused.
 */
#define LM_BASE_REV_HIGHEST  2u

/* One request found. */
struct lm_request {
	uint64_t off;          /* offset of its id[0] in the load block */
	uint64_t revision;     /* the request's revision */
	uint64_t extra[3];     /* the words at LM_REQ_EXTRA.. that the request has (0 past its end) */
};

struct lm_requests {
	uint32_t have;                        /* bit per enum lm_req_kind found */
	struct lm_request req[LM_REQ_COUNT];  /* valid where have says */
	unsigned unknown;                     /* magic found, identifier not known: left alone */
	/* the area scanned */
	uint64_t lo, hi;                      /* [lo, hi): offsets in the block */
	bool start_marker, end_marker;
	/* the base revision */
	bool tag;                             /* a base revision tag was found */
	uint64_t tag_off;                     /* its offset in the block */
	uint64_t asked;                       /* the revision asked for (0 without tag) */
	unsigned base_rev;                    /* the revision the hand-off follows */
	bool honoured;                        /* asked == base_rev: the tag's 3rd word becomes 0 */
};

/**
 * lm_req_name - short name of a request kind ("hhdm", "smp", ...)
 *
 * Returns a string constant; "unknown" outside enum lm_req_kind.
 */
const char *lm_req_name(unsigned kind);

/**
 * lm_scan - find the requests and the base revision tag in a load block
 * @img: the load block (as lm_elf_load() wrote it)
 * @len: its bytes
 * @r: receives what was found
 * @why, @whylen: the refusal's message
 *
 * The area is the whole block, or what lies after the last start marker
 * and before the first end marker following it.  A base revision above
 * LM_BASE_REV_HIGHEST is not honoured: the hand-off follows
 * LM_BASE_REV_HIGHEST and the tag stays as it is, as the specification
 * says.
 *
 * Returns 0, or -1 with the reason in @why: the same request twice, two
 * base revision tags, a request cut by the end of the area.  The block is
 * never written.
 */
int lm_scan(const uint8_t *img, uint64_t len, struct lm_requests *r, char *why, size_t whylen);

/**
 * lm_has - whether a request was found
 * Returns true when @r holds a request of @kind.
 */
bool lm_has(const struct lm_requests *r, enum lm_req_kind kind);

/**
 * lm_base_rev_commit - answer the base revision tag in the image
 * @img: the load block @r was scanned from
 * @r: its requests
 *
 * Sets the tag's third word to 0 when the revision asked for is honoured;
 * writes nothing otherwise (no tag, or a revision above what ptlab knows).
 */
void lm_base_rev_commit(uint8_t *img, const struct lm_requests *r);

/**
 * lm_paging_choose - the paging mode of the hand-off
 * @r: the kernel's requests (no paging mode request: the defaults)
 * @la57: whether the CPU can run 5-level paging
 * @mode: receives LM_PAGING_4LVL or LM_PAGING_5LVL
 *
 * The preferred mode when available, else the highest available mode
 * within [min, max].  A request of revision 0 has max = its mode and
 * min = LM_PAGING_MIN; no request means mode = max = LM_PAGING_DEFAULT,
 * min = LM_PAGING_MIN.  A preferred or highest mode above LM_PAGING_MAX
 * counts as LM_PAGING_MAX; a lowest mode above it is refused, ptlab
 * knowing no mode it could give.
 *
 * Returns 0, or -1 with @why set (the lowest mode unknown or above the
 * highest, or no mode of the range available).
 */
int lm_paging_choose(const struct lm_requests *r, bool la57, uint64_t *mode,
	char *why, size_t whylen);

/**
 * lm_stack_bytes - the stack each CPU gets
 * Returns the stack size request's value rounded up to 4 KiB, at least
 * LM_STACK_DEFAULT; LM_STACK_DEFAULT without the request.
 */
uint64_t lm_stack_bytes(const struct lm_requests *r);

/* An internal module a module request of revision 1 lists, as the kernel wrote it. */
#define LM_INTERNAL_MAX 16u           /* internal modules one kernel may list */
struct lm_internal {
	char path[256];               /* relative to the kernel's directory, or from the root with '/' */
	char cmdline[256];
	uint64_t flags;               /* LM_INTERNAL_MODULE_* */
};

/**
 * lm_internal_modules - the internal modules of the kernel's module request
 * @img, @len: the load block, relocated
 * @va: its virtual address (the kernel's pointers are into it)
 * @r: its requests
 * @out: receives them, in the kernel's order
 * @max: @out's entries
 *
 * Only a module request of revision 1 or more lists internal modules.
 * Returns their count (0 without), or -1 with @why set: more than @max, the
 * array, a structure or a string outside the image, a string longer than
 * the entry holds, an empty path.  Nothing is written in the block.
 */
int lm_internal_modules(const uint8_t *img, uint64_t len, uint64_t va, const struct lm_requests *r,
			struct lm_internal *out, unsigned max, char *why, size_t whylen);

#endif
