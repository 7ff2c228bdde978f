/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a Limine kernel's ELF file through lm_elf_parse,
 * lm_elf_load, lm_scan and what reads the requests found.
 *
 * Input: u64 kaslr, u8 span selector (see max_span_of()), u8 options
 * (bits 4:0 the internal modules' room, modulo LM_INTERNAL_MAX + 1; bits
 * 7:5 the refusal buffer's size, see WHY_SIZES), then the file's bytes (all
 * little endian).
 *
 * An accepted file's plan is compared with its program headers as read
 * here: one segment per PT_LOAD with memory, at p_vaddr + slide (the slide
 * 0 for ET_EXEC, else LM_KERNEL_MIN_VA below it plus kaslr rounded down to
 * the alignment), its file bytes inside the file, p_filesz <= p_memsz,
 * p_vaddr == p_offset modulo the page and p_align, at or above
 * LM_KERNEL_MIN_VA, not wrapping, in ascending order, disjoint, no page
 * shared by two permission sets, each inside [va, va + span), the span
 * page-rounded and within max_span, every relocation RELATIVE (or a RELR
 * word) with its 8 bytes inside a segment.  A refusal leaves a non-empty
 * NUL-terminated message.
 *
 * A block of at most LOAD_MAX bytes is then loaded (into an exact-size
 * allocation, so ASan sees a write outside it; a block one byte short is
 * refused untouched): every byte no relocation writes equals the file's
 * byte or zero past p_filesz and between segments, and a RELA or RELR
 * target no other relocation touches holds slide + addend or its file
 * value + slide.  lm_scan's area, requests, tag and base revision, or its
 * refusal, are compared with a reading of the block here;
 * lm_paging_choose (with and without LA57), lm_stack_bytes and
 * lm_internal_modules with the documented rules applied to the block's
 * bytes; lm_base_rev_commit must write only the tag's third word.
 * Violations abort().
 */

#include "limine/limine.h"
#include "limine/lmelf.h"
#include "limine/lmreq.h"

#define FUZZ_NAME "fuzz_lmelf"
#include "fuzzkit.h"

#define PAGE UINT64_C(4096)
#define HDR 10u
#define PH_BYTES 56u
#define RELA_BYTES 24u
#define LOAD_MAX (UINT64_C(1) << 18)   /* larger blocks: parsed only (each pass over one costs) */
#define NO_SEG 0xffffffffu

/*
 * This target's own readings of a block, word by word: not instrumented for
 * coverage, since their branches are no part of the code under test and
 * tracing their comparisons on every word made a block of a few hundred
 * KiB cost milliseconds.
 */
#define READING __attribute__((no_sanitize("coverage"), noinline))


static const size_t WHY_SIZES[8] = { 200, 1, 2, 16, 64, 200, 200, 200 };

static uint8_t want_img[LOAD_MAX];   /* the block as the file says it is, before relocations */
static uint8_t mask[LOAD_MAX];       /* per block byte: relocations writing it (at most 2) */
static uint8_t saved[LOAD_MAX];      /* want_img with the relocated bytes taken from the block;
				      * later the block before lm_base_rev_commit */
static uint8_t pattern[LOAD_MAX];    /* 0xa5: a block lm_elf_load must leave alone */

/*
 * max_span from the selector: 0 the default, 1..127 that many pages,
 * 128..191 a power of two, 192..254 pages plus half a page, 255 no limit.
 */
static uint64_t max_span_of(unsigned sel)
{
	if (sel == 0)
		return 0;
	if (sel < 128)
		return (uint64_t)sel * PAGE;
	if (sel < 192)
		return UINT64_C(1) << (sel - 128);
	if (sel < 255)
		return (uint64_t)(sel - 192) * PAGE + PAGE / 2;
	return UINT64_MAX;
}

/* One PT_LOAD with memory, as its program header says. */
struct raw_load {
	uint64_t off, va, filesz, memsz, align;
	uint32_t flags;
};

/* Returns the segment of @e whose 8 bytes at slid @va lie inside its memory, or NO_SEG. */
static unsigned seg_holding8(const struct lm_elf *e, uint64_t va)
{
	for (unsigned i = 0; i < e->nseg; i++) {
		const struct lm_seg *s = &e->seg[i];

		if (va >= s->va && va - s->va <= s->memsz && s->memsz - (va - s->va) >= 8)
			return i;
	}
	return NO_SEG;
}

/* Adds one to the relocation count of the 8 block bytes at slid @va. */
static void mark8(const struct lm_elf *e, uint64_t va)
{
	uint64_t o = va - e->va;

	for (unsigned k = 0; k < 8; k++)
		if (mask[o + k] < 2)
			mask[o + k]++;
}

/* Whether the 8 bytes at slid @va are written by one relocation only. */
static bool alone8(const struct lm_elf *e, uint64_t va)
{
	uint64_t o = va - e->va;

	for (unsigned k = 0; k < 8; k++)
		if (mask[o + k] != 1)
			return false;
	return true;
}

enum reloc_step { R_CHECK, R_MARK, R_VERIFY };

/*
 * Walks @e's RELA and RELR tables in @file: R_CHECK that every entry is
 * RELATIVE with its target inside a segment, R_MARK the targets in mask[]
 * (and copies their 8 bytes from @blk into saved[]), R_VERIFY the value of
 * each target only one relocation writes in @blk.
 */
static void relocs(const uint8_t *file, uint64_t size, const struct lm_elf *e, const uint8_t *blk,
		   enum reloc_step step)
{
	uint64_t where = 0;
	bool have = false;

	if (e->rela_count) {
		if (e->rela_count > size / RELA_BYTES || e->rela_off > size ||
		    size - e->rela_off < e->rela_count * RELA_BYTES)
			fuzz_die("RELA table outside the file");
	}
	for (uint64_t i = 0; i < e->rela_count; i++) {
		const uint8_t *r = file + e->rela_off + i * RELA_BYTES;
		uint64_t t = le_ld64(r) + e->slide;

		if (step == R_CHECK) {
			if ((uint32_t)le_ld64(r + 8) != LM_R_X86_64_RELATIVE)
				fuzz_die("accepted a RELA entry that is not R_X86_64_RELATIVE");
			if (seg_holding8(e, t) == NO_SEG)
				fuzz_die("accepted a RELA target outside every segment");
		} else if (step == R_MARK) {
			mark8(e, t);
			memcpy(saved + (t - e->va), blk + (t - e->va), 8);
		} else if (alone8(e, t) && le_ld64(blk + (t - e->va)) != e->slide + le_ld64(r + 16)) {
			fuzz_die("RELA target does not hold slide + addend");
		}
	}
	if (e->relr_count) {
		if (e->relr_count > size / 8 || e->relr_off > size ||
		    size - e->relr_off < e->relr_count * 8)
			fuzz_die("RELR table outside the file");
	}
	for (uint64_t i = 0; i < e->relr_count; i++) {
		uint64_t w = le_ld64(file + e->relr_off + 8 * i), t[64];
		unsigned nt = 0;

		if (!(w & 1)) {
			t[nt++] = w + e->slide;
			where = w + e->slide + 8;
			have = true;
		} else {
			if (!have)
				fuzz_die("accepted a RELR bitmap before any address");
			for (unsigned b = 1; b < 64; b++)
				if ((w >> b) & 1)
					t[nt++] = where + 8 * (uint64_t)(b - 1);
			where += 63 * 8;
		}
		for (unsigned k = 0; k < nt; k++) {
			if (step == R_CHECK) {
				if (seg_holding8(e, t[k]) == NO_SEG)
					fuzz_die("accepted a RELR target outside every segment");
			} else if (step == R_MARK) {
				mark8(e, t[k]);
				memcpy(saved + (t[k] - e->va), blk + (t[k] - e->va), 8);
			} else if (alone8(e, t[k]) &&
				   le_ld64(blk + (t[k] - e->va)) !=
				   le_ld64(want_img + (t[k] - e->va)) + e->slide) {
				fuzz_die("RELR target does not hold its file value + slide");
			}
		}
	}
}

/* The plan of an accepted file against its program headers. */
static void check_plan(const uint8_t *file, uint64_t size, uint64_t kaslr, uint64_t max_span,
		       const struct lm_elf *e)
{
	struct raw_load raw[LM_ELF_MAX_SEGS];
	bool used[LM_ELF_MAX_SEGS] = { false };
	uint64_t phoff = le_ld64(file + 32), lo = UINT64_MAX, end = 0, align = PAGE, slide = 0;
	unsigned phnum = le_ld16(file + 56), n = 0;
	uint16_t type = le_ld16(file + 16);

	if (e->type != type || (type != LM_ET_EXEC && type != LM_ET_DYN))
		fuzz_die("type differs from e_type or is neither ET_EXEC nor ET_DYN");
	if (phoff > size || (size - phoff) / PH_BYTES < phnum)
		fuzz_die("accepted program headers outside the file");
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = file + phoff + (uint64_t)i * PH_BYTES;
		struct raw_load *r = &raw[n];

		if (le_ld32(ph) != 1 || !le_ld64(ph + 40))
			continue;
		if (n == LM_ELF_MAX_SEGS)
			fuzz_die("accepted more than LM_ELF_MAX_SEGS loads");
		r->flags = le_ld32(ph + 4) & (LM_SEG_R | LM_SEG_W | LM_SEG_X);
		r->off = le_ld64(ph + 8);
		r->va = le_ld64(ph + 16);
		r->filesz = le_ld64(ph + 32);
		r->memsz = le_ld64(ph + 40);
		r->align = le_ld64(ph + 48);
		if (r->filesz > r->memsz || r->off > size || r->filesz > size - r->off)
			fuzz_die("accepted a segment with p_filesz > p_memsz or bytes past the file");
		if (r->va + r->memsz < r->va)
			fuzz_die("accepted a segment wrapping at link time");
		if (r->align & (r->align - 1))
			fuzz_die("accepted a p_align that is not a power of two");
		if ((r->va - r->off) & (PAGE - 1) ||
		    (r->align > 1 && (r->va - r->off) & (r->align - 1)))
			fuzz_die("accepted p_vaddr != p_offset modulo the page or p_align");
		if (r->align > align)
			align = r->align;
		if ((r->va & ~(PAGE - 1)) < lo)
			lo = r->va & ~(PAGE - 1);
		if (r->va + r->memsz > end)
			end = r->va + r->memsz;
		n++;
	}
	if (!n || e->nseg != n)
		fuzz_die("segment count differs from the PT_LOADs with memory");
	if (e->align != align || e->align & (e->align - 1))
		fuzz_die("align is not the largest p_align (at least a page) or not a power of two");
	if (type == LM_ET_DYN)
		slide = (lo < LM_KERNEL_MIN_VA ? LM_KERNEL_MIN_VA : 0) + (kaslr & ~(align - 1));
	if (e->slide != slide)
		fuzz_die("slide differs from the documented one");
	if (e->va != lo + slide || e->va < lo)
		fuzz_die("va is not the lowest page plus the slide");
	if (end - lo > UINT64_MAX - (PAGE - 1) || e->span != ((end - lo + PAGE - 1) & ~(PAGE - 1)))
		fuzz_die("span is not the segments' extent rounded up to a page");
	if (!e->span || e->span & (PAGE - 1) || e->span > (max_span ? max_span : LM_ELF_MAX_SPAN))
		fuzz_die("span empty, not page-rounded or above max_span");
	if (e->va + (e->span - 1) < e->va)
		fuzz_die("block wraps past the top of the address space");
	if (e->entry != le_ld64(file + 24) + slide)
		fuzz_die("entry is not e_entry + slide");
	if (lm_elf_seg_of(e, e->va - 1) != -1)
		fuzz_die("lm_elf_seg_of finds a segment below the block");

	for (unsigned i = 0; i < e->nseg; i++) {
		const struct lm_seg *s = &e->seg[i];
		unsigned j;

		for (j = 0; j < n; j++)
			if (!used[j] && raw[j].va + slide == s->va && raw[j].off == s->file_off &&
			    raw[j].filesz == s->filesz && raw[j].memsz == s->memsz &&
			    raw[j].flags == s->flags)
				break;
		if (j == n)
			fuzz_die("segment matches no program header");
		used[j] = true;
		/* ending at 2^64 exactly is not past the top */
		if (s->va < LM_KERNEL_MIN_VA || s->va + (s->memsz - 1) < s->va)
			fuzz_die("segment below LM_KERNEL_MIN_VA or wrapping after the slide");
		if (s->off != s->va - e->va || s->off > e->span || s->memsz > e->span - s->off)
			fuzz_die("segment outside [va, va + span)");
		if (i + 1 < e->nseg && s->va + s->memsz > e->seg[i + 1].va)
			fuzz_die("segments not ascending or overlapping");
		if (lm_elf_seg_of(e, s->va) != (int)i ||
		    lm_elf_seg_of(e, s->va + s->memsz - 1) != (int)i ||
		    lm_elf_seg_of(e, s->va + s->memsz) == (int)i)
			fuzz_die("lm_elf_seg_of disagrees with the segment's bounds");
		for (unsigned k = i + 1; k < e->nseg; k++) {
			const struct lm_seg *t = &e->seg[k];

			if (s->flags != t->flags &&
			    ((s->va + s->memsz - 1) & ~(PAGE - 1)) >= (t->va & ~(PAGE - 1)))
				fuzz_die("a page shared by segments of different permissions");
		}
	}
	if (type != LM_ET_DYN && (e->rela_count || e->relr_count))
		fuzz_die("relocations planned for ET_EXEC");
	relocs(file, size, e, NULL, R_CHECK);
}

/* Returns whether @n words at @p are @w. */
static READING bool words(const uint8_t *p, const uint64_t *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (le_ld64(p + 8 * i) != w[i])
			return false;
	return true;
}

/* Request-specific words a request of @kind and @rev has (limine.h's offsets). */
static unsigned req_words(unsigned kind, uint64_t rev)
{
	if (kind == LM_REQ_STACK_SIZE || kind == LM_REQ_SMP || kind == LM_REQ_ENTRY_POINT)
		return 1;
	if (kind == LM_REQ_PAGING_MODE)
		return rev ? 3 : 1;
	if (kind == LM_REQ_MODULE)
		return rev ? 2 : 0;
	return 0;
}

/* What lm_scan must find in a block, read here. */
struct expect {
	uint64_t lo, hi;
	bool start, end;
	bool refuse;
	unsigned count[LM_REQ_COUNT], unknown, tags;
	uint64_t off[LM_REQ_COUNT], tag_off;
};

static READING void expect_scan(const uint8_t *img, uint64_t len, struct expect *x)
{
	static const uint64_t start[4] = {
		LM_START_MARKER0, LM_START_MARKER1, LM_START_MARKER2, LM_START_MARKER3,
	};
	static const uint64_t stop[2] = { LM_END_MARKER0, LM_END_MARKER1 };
	static const uint64_t magic[2] = { LM_MAGIC0, LM_MAGIC1 };
	static const uint64_t tag[2] = { LM_BASE_REV_MAGIC0, LM_BASE_REV_MAGIC1 };

	memset(x, 0, sizeof(*x));
	x->hi = len & ~UINT64_C(7);
	/* the last start marker: searched from the top down */
	for (uint64_t off = len >= 32 ? (len - 32) & ~UINT64_C(7) : 0; len >= 32; off -= 8) {
		if (words(img + off, start, 4)) {
			x->start = true;
			x->lo = off + 32;
			break;
		}
		if (!off)
			break;
	}
	for (uint64_t off = x->lo; off + 16 <= len; off += 8)
		if (words(img + off, stop, 2)) {
			x->end = true;
			x->hi = off;
			break;
		}
	for (uint64_t off = x->lo; off + 16 <= x->hi; off += 8) {
		unsigned k;

		if (words(img + off, tag, 2)) {
			x->tags++;
			x->tag_off = off;
			if (x->tags > 1 || x->hi - off < 24)
				x->refuse = true;
			continue;
		}
		if (!words(img + off, magic, 2))
			continue;
		if (x->hi - off < 32) {
			x->unknown++;
			continue;
		}
		for (k = 0; k < LM_REQ_COUNT; k++)
			if (le_ld64(img + off + 16) == lm_req_ids[k][0] &&
			    le_ld64(img + off + 24) == lm_req_ids[k][1])
				break;
		if (k == LM_REQ_COUNT) {
			x->unknown++;
			continue;
		}
		if (x->count[k]++ == 0)
			x->off[k] = off;
		if (x->count[k] > 1 || x->hi - off < 48 ||
		    x->hi - off < 48 + 8 * (uint64_t)req_words(k, le_ld64(img + off + 32)))
			x->refuse = true;
	}
}

static void check_scan(const uint8_t *img, uint64_t len, const struct lm_requests *r,
		       const struct expect *x)
{
	uint32_t have = 0;

	if (r->lo != x->lo || r->hi != x->hi || r->start_marker != x->start ||
	    r->end_marker != x->end || r->lo > r->hi || r->hi > len)
		fuzz_die("scanned area differs from the markers");
	for (unsigned k = 0; k < LM_REQ_COUNT; k++) {
		const struct lm_request *q = &r->req[k];
		unsigned nw;

		if (x->count[k])
			have |= UINT32_C(1) << k;
		if (lm_has(r, (enum lm_req_kind)k) != !!x->count[k])
			fuzz_die("lm_has differs from the requests in the block");
		if (!x->count[k])
			continue;
		nw = req_words(k, le_ld64(img + x->off[k] + 32));
		if (q->off != x->off[k] || q->off % 8 || q->off < r->lo ||
		    q->off + 48 + 8 * (uint64_t)nw > r->hi)
			fuzz_die("request offset wrong, unaligned or its words outside the area");
		if (q->revision != le_ld64(img + q->off + 32))
			fuzz_die("request revision differs from the block");
		for (unsigned i = 0; i < 3; i++)
			if (q->extra[i] != (i < nw ? le_ld64(img + q->off + 48 + 8 * i) : 0))
				fuzz_die("request words differ from the block");
	}
	if (r->have != have || lm_has(r, LM_REQ_COUNT))
		fuzz_die("have differs from the requests in the block");
	if (r->unknown != x->unknown)
		fuzz_die("unknown count differs from the block");
	if (r->tag != (x->tags == 1) || (r->tag && r->tag_off != x->tag_off))
		fuzz_die("base revision tag differs from the block");
	if (r->asked != (r->tag ? le_ld64(img + r->tag_off + 16) : 0))
		fuzz_die("asked revision differs from the tag");
	if (r->base_rev > LM_BASE_REV_HIGHEST ||
	    r->base_rev != (r->asked > LM_BASE_REV_HIGHEST ? LM_BASE_REV_HIGHEST : r->asked) ||
	    r->honoured != (r->asked == r->base_rev))
		fuzz_die("base revision chosen wrong");
}

/* lm_paging_choose against the documented rule, the mode words read from @img. */
static void check_paging(const uint8_t *img, const struct lm_requests *r, const struct expect *x,
			 bool la57, char *why, size_t wl)
{
	uint64_t want = LM_PAGING_DEFAULT, max = LM_PAGING_DEFAULT, min = LM_PAGING_MIN;
	uint64_t mode = UINT64_MAX, pick = UINT64_MAX;
	int rc;

	if (x->count[LM_REQ_PAGING_MODE]) {
		const uint8_t *q = img + x->off[LM_REQ_PAGING_MODE];

		want = le_ld64(q + LM_PAGING_MODE_OFF);
		max = le_ld64(q + 32) ? le_ld64(q + LM_PAGING_MAX_OFF) : want;
		min = le_ld64(q + 32) ? le_ld64(q + LM_PAGING_MIN_OFF) : LM_PAGING_MIN;
	}
	if (max > LM_PAGING_MAX)
		max = LM_PAGING_MAX;
	if (want > LM_PAGING_MAX)
		want = LM_PAGING_MAX;
	for (uint64_t m = min; m <= max; m++)
		if (m == LM_PAGING_4LVL || la57)
			pick = m;       /* the highest available */
	if (pick != UINT64_MAX && want >= min && want <= max && (want == LM_PAGING_4LVL || la57))
		pick = want;
	memset(why, 0xff, wl);
	rc = lm_paging_choose(r, la57, &mode, why, wl);
	if (pick == UINT64_MAX) {
		if (rc != -1)
			fuzz_die("lm_paging_choose chose with no mode of the range available");
		fuzz_check_why(why, wl, "lm_paging_choose");
		return;
	}
	if (rc != 0 || mode != pick)
		fuzz_die("lm_paging_choose did not choose the preferred or highest available mode");
	if (mode == LM_PAGING_5LVL && !la57)
		fuzz_die("5-level paging chosen without LA57");
}

static void check_stack(const uint8_t *img, const struct lm_requests *r, const struct expect *x)
{
	uint64_t want = LM_STACK_DEFAULT, got = lm_stack_bytes(r);

	if (x->count[LM_REQ_STACK_SIZE]) {
		uint64_t s = le_ld64(img + x->off[LM_REQ_STACK_SIZE] + LM_STACK_SIZE_OFF);

		if (s > UINT64_MAX - (PAGE - 1))
			want = UINT64_MAX & ~(PAGE - 1);
		else if (s > LM_STACK_DEFAULT)
			want = (s + PAGE - 1) & ~(PAGE - 1);
	}
	if (got != want || got < LM_STACK_DEFAULT || got & (PAGE - 1))
		fuzz_die("lm_stack_bytes is not the request rounded up to a page, at least 64 KiB");
}

/*
 * Whether the string at kernel address @sva lies in the block [va, va + len)
 * with its NUL within @cap bytes; its length in *@n.
 */
static bool block_string(const uint8_t *img, uint64_t len, uint64_t va, uint64_t sva, size_t cap,
			 size_t *n)
{
	const uint8_t *nul;
	uint64_t room;

	if (sva < va || sva - va >= len)
		return false;
	room = len - (sva - va);
	nul = memchr(img + (sva - va), 0, room < cap ? room : cap);
	if (!nul)
		return false;
	*n = (size_t)(nul - (img + (sva - va)));
	return true;
}

/* lm_internal_modules against the module request's array read from @img. */
static void check_internal(const uint8_t *img, uint64_t len, uint64_t va,
			   const struct lm_requests *r, const struct expect *x, unsigned max,
			   char *why, size_t wl)
{
	struct lm_internal *out = malloc(max ? max * sizeof(*out) : 1);
	const uint8_t *q = img + x->off[LM_REQ_MODULE];
	uint64_t n = 0, arr = 0;
	bool ok = true;
	int rc;

	if (!out)
		fuzz_die("malloc");
	if (x->count[LM_REQ_MODULE] && le_ld64(q + 32) >= 1) {
		n = le_ld64(q + LM_MODULE_COUNT_OFF);
		arr = le_ld64(q + LM_MODULE_LIST_OFF);
	}
	if (n > max || (n && (arr < va || arr - va > len || (len - (arr - va)) / 8 < n)))
		ok = false;
	for (uint64_t i = 0; ok && i < n; i++) {
		uint64_t m = le_ld64(img + (arr - va) + 8 * i), c;
		size_t pl = 0, cl = 0;

		if (m < va || m - va > len || len - (m - va) < sizeof(struct lm_internal_module)) {
			ok = false;
			break;
		}
		c = le_ld64(img + (m - va) + 8);
		if (!block_string(img, len, va, le_ld64(img + (m - va)), 256, &pl) || !pl ||
		    (c && !block_string(img, len, va, c, 256, &cl)))
			ok = false;
	}
	memset(why, 0xff, wl);
	rc = lm_internal_modules(img, len, va, r, out, max, why, wl);
	if (!ok) {
		if (rc != -1)
			fuzz_die("lm_internal_modules accepted a list that is not inside the image");
		fuzz_check_why(why, wl, "lm_internal_modules");
		free(out);
		return;
	}
	if (rc != (int)n)
		fuzz_die("lm_internal_modules refused a list inside the image or miscounted");
	for (int i = 0; i < rc; i++) {
		const uint8_t *m = img + (le_ld64(img + (arr - va) + 8 * (uint64_t)i) - va);
		uint64_t c = le_ld64(m + 8);
		size_t pl = 0, cl = 0;

		block_string(img, len, va, le_ld64(m), 256, &pl);
		if (c)
			block_string(img, len, va, c, 256, &cl);
		if (!memchr(out[i].path, 0, sizeof(out[i].path)) ||
		    !memchr(out[i].cmdline, 0, sizeof(out[i].cmdline)))
			fuzz_die("internal module string not NUL-terminated");
		if (strlen(out[i].path) != pl || memcmp(out[i].path, img + (le_ld64(m) - va), pl) ||
		    strlen(out[i].cmdline) != cl ||
		    (cl && memcmp(out[i].cmdline, img + (c - va), cl)))
			fuzz_die("internal module strings differ from the image");
		if (out[i].flags != le_ld64(m + 16))
			fuzz_die("internal module flags differ from the image");
	}
	free(out);
}

/* Loads, scans and reads the requests of a block of at most LOAD_MAX bytes. */
static void check_block(const uint8_t *file, uint64_t size, const struct lm_elf *e, unsigned max,
			char *why, size_t wl)
{
	uint8_t *blk = malloc(e->span);
	struct lm_requests r;
	struct expect x;
	int rc;

	if (!blk)
		fuzz_die("malloc");
	memset(blk, 0xa5, e->span);
	memset(why, 0xff, wl);
	if (lm_elf_load(file, size, e, blk, e->span - 1, why, wl) != -1)
		fuzz_die("lm_elf_load accepted a block one byte short");
	fuzz_check_why(why, wl, "lm_elf_load, short block");
	if (memcmp(blk, pattern, e->span))
		fuzz_die("lm_elf_load wrote a block it refused");
	if (lm_elf_load(file, size, e, blk, e->span, why, wl) != 0)
		fuzz_die("lm_elf_load refused a parsed file");

	memset(want_img, 0, e->span);
	memset(mask, 0, e->span);
	for (unsigned i = 0; i < e->nseg; i++)
		memcpy(want_img + e->seg[i].off, file + e->seg[i].file_off, e->seg[i].filesz);
	memcpy(saved, want_img, e->span);
	relocs(file, size, e, blk, R_MARK);
	if (memcmp(saved, blk, e->span))
		fuzz_die("a block byte no relocation writes differs from the file or zero");
	relocs(file, size, e, blk, R_VERIFY);

	expect_scan(blk, e->span, &x);
	memset(why, 0xff, wl);
	rc = lm_scan(blk, e->span, &r, why, wl);
	if (rc != (x.refuse ? -1 : 0))
		fuzz_die(x.refuse ? "lm_scan accepted a refused block" : "lm_scan refused a good block");
	if (rc) {
		fuzz_check_why(why, wl, "lm_scan");
		free(blk);
		return;
	}
	check_scan(blk, e->span, &r, &x);
	check_paging(blk, &r, &x, false, why, wl);
	check_paging(blk, &r, &x, true, why, wl);
	check_stack(blk, &r, &x);
	check_internal(blk, e->span, e->va, &r, &x, max, why, wl);

	memcpy(saved, blk, e->span);
	lm_base_rev_commit(blk, &r);
	if (r.tag && r.honoured) {
		if (le_ld64(blk + r.tag_off + 16) != 0)
			fuzz_die("an honoured tag's third word not set to 0");
		memcpy(blk + r.tag_off + 16, saved + r.tag_off + 16, 8);
	}
	if (memcmp(blk, saved, e->span))
		fuzz_die("lm_base_rev_commit wrote outside the honoured tag's third word");
	free(blk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	struct lm_elf e;
	uint64_t kaslr, max_span, len;
	unsigned max;
	size_t wl;
	uint8_t *file;
	char *why;

	if (size < HDR)
		return 0;
	if (!ready) {
		memset(pattern, 0xa5, sizeof(pattern));
		ready = true;
	}
	kaslr = le_ld64(data);
	max_span = max_span_of(data[8]);
	max = (data[9] & 0x1f) % (LM_INTERNAL_MAX + 1);
	wl = WHY_SIZES[data[9] >> 5];
	len = size - HDR;
	fuzz_copies(data + HDR, len, wl, &file, &why);
	if (lm_elf_parse(file, len, kaslr, max_span, &e, why, wl)) {
		fuzz_check_why(why, wl, "lm_elf_parse");
		goto done;
	}
	check_plan(file, len, kaslr, max_span, &e);
	if (e.span <= LOAD_MAX)
		check_block(file, len, &e, max, why, wl);
done:
	fuzz_free(file, why);
	return 0;
}
