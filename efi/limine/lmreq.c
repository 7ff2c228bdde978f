/* SPDX-License-Identifier: MIT */
/*
 * The Limine requests of a loaded kernel (see lmreq.h).
 *
 * No firmware calls (firmware-free: in the host archive).  The load block
 * is read as little-endian words at 8-byte offsets, as the protocol places
 * requests, tags and markers; nothing here writes it but
 * lm_base_rev_commit().
 */
#include <string.h>

#include "lib/ckd.h"
#include "lib/le.h"
#include "limine/lmerr.h"
#include "limine/lmreq.h"
#include "report/fmt.h"

#include <ptlab/pte.h>


typedef unsigned long long ull;

const uint64_t lm_req_ids[LM_REQ_COUNT][2] = {
	[LM_REQ_BOOTLOADER_INFO]   = { UINT64_C(0xf55038d8e2a1202f), UINT64_C(0x279426fcf5f59740) },
	[LM_REQ_FIRMWARE_TYPE]     = { UINT64_C(0x8c2f75d90bef28a8), UINT64_C(0x7045a4688eac00c3) },
	[LM_REQ_STACK_SIZE]        = { UINT64_C(0x224ef0460a8e8926), UINT64_C(0xe1cb0fc25f46ea3d) },
	[LM_REQ_HHDM]              = { UINT64_C(0x48dcf1cb8ad2b852), UINT64_C(0x63984e959a98244b) },
	[LM_REQ_FRAMEBUFFER]       = { UINT64_C(0x9d5827dcd881dd75), UINT64_C(0xa3148604f6fab11b) },
	[LM_REQ_PAGING_MODE]       = { UINT64_C(0x95c1a0edab0944cb), UINT64_C(0xa4e5cb3842f7488a) },
	[LM_REQ_SMP]               = { UINT64_C(0x95a67b819a1b857e), UINT64_C(0xa0b61b723b6a73e0) },
	[LM_REQ_MEMMAP]            = { UINT64_C(0x67cf3d9d378a806f), UINT64_C(0xe304acdfc50c3c62) },
	[LM_REQ_ENTRY_POINT]       = { UINT64_C(0x13d86c035a1cd3e1), UINT64_C(0x2b0caa89d8f3026a) },
	[LM_REQ_KERNEL_FILE]       = { UINT64_C(0xad97e90e83f1ed67), UINT64_C(0x31eb5d1c5ff23b69) },
	[LM_REQ_MODULE]            = { UINT64_C(0x3e7e279702be32af), UINT64_C(0xca1c4f3bd1280cee) },
	[LM_REQ_RSDP]              = { UINT64_C(0xc5e77b6b397e7b43), UINT64_C(0x27637845accdcf3c) },
	[LM_REQ_SMBIOS]            = { UINT64_C(0x9e9046f11e095391), UINT64_C(0xaa4a520fefbde5ee) },
	[LM_REQ_EFI_SYSTEM_TABLE]  = { UINT64_C(0x5ceba5163eaaf6d6), UINT64_C(0x0a6981610cf65fcc) },
	[LM_REQ_EFI_MEMMAP]        = { UINT64_C(0x7df62a431d6872d5), UINT64_C(0xa4fcdfb3e57306c8) },
	[LM_REQ_BOOT_TIME]         = { UINT64_C(0x502746e184c088aa), UINT64_C(0xfbc5ec83e6327893) },
	[LM_REQ_KERNEL_ADDRESS]    = { UINT64_C(0x71ba76863cc55f63), UINT64_C(0xb2644a48c516a487) },
	[LM_REQ_DTB]               = { UINT64_C(0xb40ddb48fb54bac7), UINT64_C(0x545081493f81ffb7) },
	[LM_REQ_TERMINAL]          = { UINT64_C(0x0785a0aea5d0750f), UINT64_C(0x1c1936fee0d6cf6e) },
};

static const char *const names[LM_REQ_COUNT] = {
	[LM_REQ_BOOTLOADER_INFO]   = "bootloader info",
	[LM_REQ_FIRMWARE_TYPE]     = "firmware type",
	[LM_REQ_STACK_SIZE]        = "stack size",
	[LM_REQ_HHDM]              = "hhdm",
	[LM_REQ_FRAMEBUFFER]       = "framebuffer",
	[LM_REQ_PAGING_MODE]       = "paging mode",
	[LM_REQ_SMP]               = "smp",
	[LM_REQ_MEMMAP]            = "memmap",
	[LM_REQ_ENTRY_POINT]       = "entry point",
	[LM_REQ_KERNEL_FILE]       = "kernel file",
	[LM_REQ_MODULE]            = "module",
	[LM_REQ_RSDP]              = "rsdp",
	[LM_REQ_SMBIOS]            = "smbios",
	[LM_REQ_EFI_SYSTEM_TABLE]  = "efi system table",
	[LM_REQ_EFI_MEMMAP]        = "efi memmap",
	[LM_REQ_BOOT_TIME]         = "boot time",
	[LM_REQ_KERNEL_ADDRESS]    = "kernel address",
	[LM_REQ_DTB]               = "dtb",
	[LM_REQ_TERMINAL]          = "terminal",
};

const char *lm_req_name(unsigned kind)
{
	return kind < LM_REQ_COUNT ? names[kind] : "unknown";
}

bool lm_has(const struct lm_requests *r, enum lm_req_kind kind)
{
	return (unsigned)kind < LM_REQ_COUNT && (r->have >> kind & 1);
}

/*
 * Returns how many words past the response pointer a request of @kind and
 * @revision has (what the specification gives each revision).
 */
static unsigned extra_words(unsigned kind, uint64_t revision)
{
	switch (kind) {
	case LM_REQ_STACK_SIZE:
	case LM_REQ_SMP:
	case LM_REQ_ENTRY_POINT:
		return 1;
	case LM_REQ_PAGING_MODE:
		return revision >= 1 ? 3 : 1;
	case LM_REQ_MODULE:
		return revision >= 1 ? 2 : 0;
	default:
		return 0;
	}
}

/* Returns whether the words at @p are the @n words of @w. */
static bool words_are(const uint8_t *p, const uint64_t *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (le_ld64(p + 8 * i) != w[i])
			return false;
	return true;
}

/* Sets r->lo, r->hi from the delimiters: after the last start marker, before the first end marker after it. */
static void find_area(const uint8_t *img, uint64_t len, struct lm_requests *r)
{
	static const uint64_t start[LM_START_WORDS] = {
		LM_START_MARKER0, LM_START_MARKER1, LM_START_MARKER2, LM_START_MARKER3,
	};
	static const uint64_t end[LM_END_WORDS] = { LM_END_MARKER0, LM_END_MARKER1 };
	uint64_t off;

	r->lo = 0;
	r->hi = len & ~UINT64_C(7);
	for (off = 0; off + 8 * LM_START_WORDS <= len; off += 8)
		if (words_are(img + off, start, LM_START_WORDS)) {
			r->start_marker = true;
			r->lo = off + 8 * LM_START_WORDS;
		}
	for (off = r->lo; off + 8 * LM_END_WORDS <= len; off += 8)
		if (words_are(img + off, end, LM_END_WORDS)) {
			r->end_marker = true;
			r->hi = off;
			break;
		}
}

/* Returns the kind whose identifier's last two words are @a, @b, or LM_REQ_COUNT. */
static unsigned kind_of(uint64_t a, uint64_t b)
{
	for (unsigned k = 0; k < LM_REQ_COUNT; k++)
		if (lm_req_ids[k][0] == a && lm_req_ids[k][1] == b)
			return k;
	return LM_REQ_COUNT;
}

/* Reads the base revision tag at @off; returns 0 or -1 with @why. */
static int take_tag(const uint8_t *img, uint64_t off, struct lm_requests *r,
	char *why, size_t whylen)
{
	if (r->tag)
		return lm_refuse(why, whylen, "two base revision tags, at offsets 0x%llx and 0x%llx",
			(ull)r->tag_off, (ull)off);
	r->tag = true;
	r->tag_off = off;
	r->asked = le_ld64(img + off + 16);
	return 0;
}

/* Reads the request of @kind at @off; returns 0 or -1 with @why. */
static int take_req(const uint8_t *img, uint64_t off, unsigned kind, struct lm_requests *r,
	char *why, size_t whylen)
{
	struct lm_request *q = &r->req[kind];
	uint64_t rev, bytes;
	unsigned n;

	if (r->hi - off < LM_REQ_HDR_BYTES)
		return lm_refuse(why, whylen, "%s request at offset 0x%llx cut by the end of the requests' area (0x%llx)",
			names[kind], (ull)off, (ull)r->hi);
	if (lm_has(r, kind))
		return lm_refuse(why, whylen, "%s request twice, at offsets 0x%llx and 0x%llx",
			names[kind], (ull)q->off, (ull)off);
	rev = le_ld64(img + off + LM_REQ_REVISION);
	n = extra_words(kind, rev);
	bytes = LM_REQ_HDR_BYTES + 8 * (uint64_t)n;
	if (r->hi - off < bytes)
		return lm_refuse(why, whylen, "%s request (revision %llu, %llu bytes) at offset 0x%llx cut by the end of the requests' area (0x%llx)",
			names[kind], (ull)rev, (ull)bytes, (ull)off, (ull)r->hi);
	memset(q, 0, sizeof(*q));
	q->off = off;
	q->revision = rev;
	for (unsigned i = 0; i < n; i++)
		q->extra[i] = le_ld64(img + off + LM_REQ_EXTRA + 8 * i);
	r->have |= UINT32_C(1) << kind;
	return 0;
}

int lm_scan(const uint8_t *img, uint64_t len, struct lm_requests *r, char *why, size_t whylen)
{
	memset(r, 0, sizeof(*r));
	find_area(img, len, r);
	for (uint64_t off = r->lo; off + 16 <= r->hi; off += 8) {
		uint64_t w0 = le_ld64(img + off), w1 = le_ld64(img + off + 8);

		if (w0 == LM_BASE_REV_MAGIC0 && w1 == LM_BASE_REV_MAGIC1) {
			if (r->hi - off < 8 * LM_BASE_REV_WORDS)
				return lm_refuse(why, whylen, "base revision tag at offset 0x%llx cut by the end of the requests' area (0x%llx)",
					(ull)off, (ull)r->hi);
			if (take_tag(img, off, r, why, whylen))
				return -1;
			continue;
		}
		if (w0 != LM_MAGIC0 || w1 != LM_MAGIC1)
			continue;
		if (r->hi - off < 32) {
			r->unknown++;   /* not even an identifier: nothing to answer */
			continue;
		}
		unsigned kind = kind_of(le_ld64(img + off + 16), le_ld64(img + off + 24));

		if (kind == LM_REQ_COUNT) {
			r->unknown++;
			continue;
		}
		if (take_req(img, off, kind, r, why, whylen))
			return -1;
	}
	if (r->asked > LM_BASE_REV_HIGHEST) {
		/* newer than ptlab: boot with its highest, the tag says it was not honoured */
		r->base_rev = LM_BASE_REV_HIGHEST;
		r->honoured = false;
	} else {
		/* every revision up to the highest is kept: none is refused */
		r->base_rev = (unsigned)r->asked;
		r->honoured = true;
	}
	return 0;
}

void lm_base_rev_commit(uint8_t *img, const struct lm_requests *r)
{
	if (r->tag && r->honoured)
		le_st64(img + r->tag_off + 16, 0);
}

/* Returns whether the CPU can run paging mode @m. */
static bool available(uint64_t m, bool la57)
{
	return m == LM_PAGING_4LVL || (m == LM_PAGING_5LVL && la57);
}

int lm_paging_choose(const struct lm_requests *r, bool la57, uint64_t *mode,
	char *why, size_t whylen)
{
	uint64_t want = LM_PAGING_DEFAULT, max = LM_PAGING_DEFAULT, min = LM_PAGING_MIN;

	if (lm_has(r, LM_REQ_PAGING_MODE)) {
		const struct lm_request *q = &r->req[LM_REQ_PAGING_MODE];

		want = q->extra[0];
		if (q->revision >= 1) {
			max = q->extra[1];
			min = q->extra[2];
		} else {
			max = want;
		}
	}
	if (min > LM_PAGING_MAX)
		return lm_refuse(why, whylen, "lowest paging mode %llu is unknown (highest known %u)",
			(ull)min, LM_PAGING_MAX);
	if (max > LM_PAGING_MAX)
		max = LM_PAGING_MAX;
	if (want > LM_PAGING_MAX)
		want = LM_PAGING_MAX;
	if (min > max)
		return lm_refuse(why, whylen, "lowest paging mode %llu above the highest %llu",
			(ull)min, (ull)max);
	if (want >= min && want <= max && available(want, la57)) {
		*mode = want;
		return 0;
	}
	for (uint64_t m = max + 1; m-- > min;)
		if (available(m, la57)) {
			*mode = m;
			return 0;
		}
	return lm_refuse(why, whylen, "no paging mode between %llu and %llu is available (5-level paging needs LA57, which this CPU lacks)",
		(ull)min, (ull)max);
}

uint64_t lm_stack_bytes(const struct lm_requests *r)
{
	uint64_t s;

	if (!lm_has(r, LM_REQ_STACK_SIZE))
		return LM_STACK_DEFAULT;
	s = r->req[LM_REQ_STACK_SIZE].extra[0];
	if (s <= LM_STACK_DEFAULT)
		return LM_STACK_DEFAULT;
	/* saturated: lm_stack_size() (lmplace.c) refuses such a size before any use */
	if (!ckd_align_up(&s, s, PT_PAGE_SIZE))
		return UINT64_MAX & ~(PT_PAGE_SIZE - 1);
	return s;
}

/*
 * The NUL-terminated string at kernel address @sva of the block [va, va +
 * len) into @dst (@cap bytes with the NUL); false when it starts outside
 * the block or is not terminated within it and @cap.
 */
static bool block_str(const uint8_t *img, uint64_t len, uint64_t va, uint64_t sva, char *dst,
		      size_t cap)
{
	uint64_t off = sva - va;

	if (sva < va || off >= len)
		return false;
	for (size_t i = 0; i < cap && off + i < len; i++) {
		dst[i] = (char)img[off + i];
		if (!dst[i])
			return true;
	}
	return false;
}

int lm_internal_modules(const uint8_t *img, uint64_t len, uint64_t va, const struct lm_requests *r,
			struct lm_internal *out, unsigned max, char *why, size_t whylen)
{
	const struct lm_request *q = &r->req[LM_REQ_MODULE];
	uint64_t n, arr;

	if (!lm_has(r, LM_REQ_MODULE) || q->revision < 1)
		return 0;
	n = q->extra[0];
	arr = q->extra[1];
	if (!n)
		return 0;
	if (n > max)
		return lm_refuse(why, whylen, "the module request lists %llu internal modules, more than %u",
			      (ull)n, max);
	if (arr < va || arr - va > len || (len - (arr - va)) / 8 < n)
		return lm_refuse(why, whylen, "the module request's internal module array at 0x%llx "
			      "(%llu pointers) is not inside the kernel's image", (ull)arr, (ull)n);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t m = le_ld64(img + (arr - va) + 8 * i), moff = m - va;
		struct lm_internal *e = &out[i];

		if (m < va || moff > len || len - moff < sizeof(struct lm_internal_module))
			return lm_refuse(why, whylen, "internal module %llu: its structure at 0x%llx is "
				      "not inside the kernel's image", (ull)i, (ull)m);
		e->flags = le_ld64(img + moff + 16);
		if (!block_str(img, len, va, le_ld64(img + moff), e->path, sizeof(e->path)))
			return lm_refuse(why, whylen, "internal module %llu: its path is not a string of at "
				      "most %u bytes inside the kernel's image", (ull)i,
				      (unsigned)sizeof(e->path) - 1);
		if (!le_ld64(img + moff + 8))
			e->cmdline[0] = 0;
		else if (!block_str(img, len, va, le_ld64(img + moff + 8), e->cmdline,
				    sizeof(e->cmdline)))
			return lm_refuse(why, whylen, "internal module %llu (%s): its string is not a "
				      "string of at most %u bytes inside the kernel's image", (ull)i,
				      e->path, (unsigned)sizeof(e->cmdline) - 1);
		if (!e->path[0])
			return lm_refuse(why, whylen, "internal module %llu: an empty path", (ull)i);
	}
	return (int)n;
}
