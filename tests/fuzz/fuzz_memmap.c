/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: pt_memmap_normalize on arbitrary descriptor bytes.
 *
 * Input: u32 desc_size, u32 count, u8 maxphyaddr, u8 capacity mode, then the
 * raw descriptors (all little endian).  Any descriptor size and count is
 * passed through; bad ones must be refused with PT_EMAPBAD.  On success the
 * output must be sorted, disjoint, page-aligned and non-empty, cover exactly
 * the pages the input descriptors cover (an unaligned RAM descriptor trimmed
 * inwards, any other rounded outwards), never offer a RAM page that holds a
 * byte of a non-RAM descriptor as given or a byte no RAM descriptor offers,
 * and report quirks that match a brute-force reading of the input.
 * Violations abort().
 */

#include <ptlab/memmap.h>
#include <ptlab/pt.h>

#define FUZZ_NAME "fuzz_memmap"
#include "fuzzkit.h"

#define PAGE UINT64_C(4096)
#define TOP (UINT64_MAX & ~(PAGE - 1))
#define HDR 10u


/*
 * One input descriptor: its bytes as given, and the whole pages it counts
 * for (a RAM-class one trimmed inwards to the pages it holds whole, any
 * other rounded outwards to every page it touches).
 */
struct in_desc {
	uint64_t first, last;  /* bytes as given, [first, last]; last 2^64 - 1 when it wraps */
	uint64_t start, end;   /* pages: [start, end), end TOP when it reaches 2^64 */
	uint32_t type;
	bool kept;
	bool zero, unaligned, wrap, above;
};

static void read_in(const uint8_t *d, uint64_t limit, struct in_desc *o)
{
	uint64_t s = le_ld64(d + 8), pages = le_ld64(d + 24), e;

	memset(o, 0, sizeof(*o));
	o->type = le_ld32(d);
	if (o->type >= PT_EFI_TYPE_COUNT)
		o->type = PT_EFI_RESERVED;
	if (!pages) {
		o->zero = true;
		return;
	}
	o->first = s;
	if (pages > (UINT64_MAX >> 12) || s + (pages << 12) < s) {
		o->wrap = true;
		o->last = UINT64_MAX;
		e = TOP;
	} else {
		e = s + (pages << 12);
		o->last = e - 1;
	}
	if (s & (PAGE - 1)) {
		o->unaligned = true;
		if (pt_mem_class_of(o->type) == PT_MEM_RAM) {
			if (s > TOP)
				return;
			s = (s + PAGE - 1) & ~(PAGE - 1);
			e &= ~(PAGE - 1);
		} else {
			s &= ~(PAGE - 1);
			e = e > TOP ? TOP : (e + PAGE - 1) & ~(PAGE - 1);
		}
	}
	if (e > limit) {
		o->above = true;
		e = limit;
	}
	if (e <= s)
		return;
	o->start = s;
	o->end = e;
	o->kept = true;
}

/* Is every byte of [a, b) covered by a kept descriptor (a RAM-class one if @ram_only)? */
static bool covered(const struct in_desc *in, unsigned n, uint64_t a, uint64_t b,
		    bool ram_only)
{
	while (a < b) {
		uint64_t best = a;

		for (unsigned i = 0; i < n; i++) {
			if (!in[i].kept || in[i].start > a || in[i].end <= a)
				continue;
			if (ram_only && pt_mem_class_of(in[i].type) != PT_MEM_RAM)
				continue;
			if (in[i].end > best)
				best = in[i].end;
		}
		if (best == a)
			return false;
		a = best;
	}
	return true;
}

static int cmp_start(const void *x, const void *y)
{
	const struct in_desc *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* Bytes covered by the union of the kept descriptors. */
static uint64_t union_bytes(struct in_desc *in, unsigned n)
{
	uint64_t total = 0, cur_s = 0, cur_e = 0;
	bool open = false;

	qsort(in, n, sizeof(*in), cmp_start);
	for (unsigned i = 0; i < n; i++) {
		if (!in[i].kept)
			continue;
		if (open && in[i].start <= cur_e) {
			if (in[i].end > cur_e)
				cur_e = in[i].end;
			continue;
		}
		if (open)
			total += cur_e - cur_s;
		cur_s = in[i].start;
		cur_e = in[i].end;
		open = true;
	}
	if (open)
		total += cur_e - cur_s;
	return total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t desc_size, count;
	unsigned maxphy, mode, cap, want_quirk[PT_QUIRK_COUNT] = { 0 };
	size_t raw_len;
	uint8_t *raw;
	struct pt_mem_range *range;
	struct pt_memmap out;
	struct in_desc *in;
	uint64_t limit, prev = 0, usable = 0, out_bytes = 0;
	bool have_prev = false, any_overlap = false;
	int err;

	if (size < HDR)
		return 0;
	desc_size = le_ld32(data);
	count = le_ld32(data + 4);
	maxphy = data[8] % 65;
	mode = data[9];
	raw_len = size - HDR;
	/* an exact-size copy, so reading past raw_len is an ASan report */
	raw = malloc(raw_len ? raw_len : 1);
	if (!raw)
		fuzz_die("malloc");
	memcpy(raw, data + HDR, raw_len);

	/* the capacity: the documented bound, or (mode bit 0) something smaller */
	cap = count <= PT_MEMMAP_MAX_DESC ? 2 * count : 16;
	if ((mode & 1) && cap)
		cap = (mode >> 1) % (cap + 1);
	range = calloc(cap ? cap : 1, sizeof(*range));
	if (!range)
		fuzz_die("calloc");
	memset(&out, 0, sizeof(out));
	out.range = range;
	out.cap = cap;
	out.n = 12345;

	err = pt_memmap_normalize(raw, raw_len, count, desc_size, maxphy, &out);

	if (desc_size < 40 || desc_size > 4096 || desc_size % 8 || count > PT_MEMMAP_MAX_DESC ||
	    raw_len / desc_size < count) {
		if (err != PT_EMAPBAD)
			fuzz_die("bad descriptor size, count or length not refused with PT_EMAPBAD");
		goto done;
	}
	if (err == PT_ECAPACITY && cap < 2 * count)
		goto check_err;
	if (err != PT_OK)
		fuzz_die("good input refused");

	/* shape */
	for (unsigned i = 0; i < out.n; i++) {
		const struct pt_mem_range *r = &range[i];

		if (r->len == 0 || (r->pa | r->len) & (PAGE - 1) || r->pa + r->len < r->pa)
			fuzz_die("empty, unaligned or wrapping output range");
		if (r->type >= PT_EFI_TYPE_COUNT)
			fuzz_die("unknown type in the output");
		if (i && range[i - 1].pa + range[i - 1].len > r->pa)
			fuzz_die("output not sorted or overlapping");
		if (i && range[i - 1].pa + range[i - 1].len == r->pa &&
		    range[i - 1].type == r->type && range[i - 1].attr == r->attr)
			fuzz_die("equal neighbours not merged");
		if (pt_mem_class_of(r->type) == PT_MEM_RAM)
			usable += r->len;
		out_bytes += r->len;
	}
	if (usable != out.usable_bytes)
		fuzz_die("usable_bytes differs from the RAM ranges");
	if (out.descriptors != count || out.desc_size != desc_size)
		fuzz_die("descriptors or desc_size wrong");

	/* the input, read independently */
	limit = maxphy >= 64 ? UINT64_MAX : UINT64_C(1) << maxphy;
	limit &= ~(PAGE - 1);
	in = calloc(count ? count : 1, sizeof(*in));
	if (!in)
		fuzz_die("calloc");
	for (unsigned i = 0; i < count; i++) {
		const uint8_t *d = raw + (size_t)i * desc_size;

		read_in(d, limit, &in[i]);
		if (le_ld32(d) >= PT_EFI_TYPE_COUNT)
			want_quirk[PT_QUIRK_UNKNOWN_TYPE]++;
		if (in[i].zero) {
			want_quirk[PT_QUIRK_ZERO_LENGTH]++;
			continue;
		}
		if (have_prev && le_ld64(d + 8) < prev)
			want_quirk[PT_QUIRK_UNSORTED]++;
		prev = le_ld64(d + 8);
		have_prev = true;
		want_quirk[PT_QUIRK_WRAP] += in[i].wrap;
		want_quirk[PT_QUIRK_UNALIGNED] += in[i].unaligned;
		want_quirk[PT_QUIRK_ABOVE_MAXPHYS] += in[i].above;
	}
	for (unsigned i = 0; i < count; i++)
		for (unsigned j = i + 1; j < count; j++)
			if (in[i].kept && in[j].kept && in[i].start < in[j].end &&
			    in[j].start < in[i].end)
				any_overlap = true;

	/* no usable byte invented, no byte of any kind invented */
	for (unsigned i = 0; i < out.n; i++) {
		const struct pt_mem_range *r = &range[i];
		uint64_t a = r->pa, b = r->pa + r->len;

		if (!covered(in, count, a, b, false))
			fuzz_die("output range covers bytes no descriptor has");
		if (pt_mem_class_of(r->type) != PT_MEM_RAM)
			continue;
		if (!covered(in, count, a, b, true))
			fuzz_die("RAM output range covers bytes no RAM descriptor offers");
		/*
		 * Judged on the bytes as given, not on the rounding above: a
		 * byte both usable and withheld is withheld, for the whole page.
		 */
		for (unsigned k = 0; k < count; k++)
			if (!in[k].zero && pt_mem_class_of(in[k].type) != PT_MEM_RAM &&
			    in[k].first <= b - 1 && a <= in[k].last)
				fuzz_die("RAM output page holds a byte of a non-RAM descriptor");
	}
	if (union_bytes(in, count) != out_bytes)
		fuzz_die("output does not cover exactly the bytes of the input");
	free(in);

	/* quirks */
	for (unsigned q = 0; q < PT_QUIRK_COUNT; q++)
		if (!!(out.quirks & (UINT32_C(1) << q)) != !!out.quirk_count[q])
			fuzz_die("quirk bit and count disagree");
	if (out.quirks >> PT_QUIRK_COUNT || out.quirk_count[PT_QUIRK_ABOVE_IDENTITY])
		fuzz_die("quirk the normalizer does not own");
	for (unsigned q = 0; q < PT_QUIRK_COUNT; q++)
		if (q != PT_QUIRK_OVERLAP && q != PT_QUIRK_ABOVE_IDENTITY &&
		    out.quirk_count[q] != want_quirk[q])
			fuzz_die("quirk count differs from the input");
	if (any_overlap != !!out.quirk_count[PT_QUIRK_OVERLAP])
		fuzz_die("overlap quirk differs from the input");
	goto done;

check_err:
	if (out.n != 0)
		fuzz_die("failure left out.n non-zero");
done:
	if (err != PT_OK && out.n != 0)
		fuzz_die("failure left out.n non-zero");
	free(range);
	free(raw);
	return 0;
}
