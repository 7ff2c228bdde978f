// SPDX-License-Identifier: MIT
/*
 * Frame allocator: one bit per 4 KiB frame over a sorted list of ranges.
 *
 * Bitmap layout.  Each range starts on a fresh 64-bit word, at the bit whose
 * position in the word equals its first frame number modulo 64:
 *
 *   word:   |  range 0 .......................|  range 1 ..........|
 *   bits:   |1111 0000 ... 0000|0000 ... 0011 |11 0000 .. 0000|1111|
 *            ^pad  ^pfn0 % 64          pad^    ^pad           ^pad
 *
 * Padding bits before and after a range are set (never free), so a frame
 * number that is a multiple of 64 always sits at bit 0 of a word and a
 * naturally aligned 2 MiB or 1 GiB run is a sequence of whole words: the run
 * search tests 64 frames per comparison.  Padding bits are outside every
 * range, so no free can reach them.
 */
#include <ptlab/frames.h>

#include <string.h>

#include "internal.h"

#define FRAME_SHIFT PT_PAGE_SHIFT
#define FRAME_SIZE PT_PAGE_SIZE
#define WORD_BITS 64u

/* Trim [pa, pa+len) inwards to whole frames; false when no frame is left. */
static bool trim(const struct pt_range *r, uint64_t *pfn, uint64_t *frames)
{
	uint64_t start, end;

	if (r->len == 0 || r->va + r->len < r->va)
		return false;
	if (r->va > UINT64_MAX - (FRAME_SIZE - 1))
		return false;
	start = pt_align_up(r->va, FRAME_SIZE);
	end = pt_align_down(r->va + r->len, FRAME_SIZE);
	if (end <= start)
		return false;
	*pfn = start >> FRAME_SHIFT;
	*frames = (end - start) >> FRAME_SHIFT;
	return true;
}

/* Bitmap words a range of @frames starting at frame number @pfn occupies. */
static uint64_t range_words(uint64_t pfn, uint64_t frames)
{
	return ((pfn % WORD_BITS) + frames + WORD_BITS - 1) / WORD_BITS;
}

size_t pt_frames_bitmap_bytes(const struct pt_range *ranges, unsigned n)
{
	uint64_t words = 0, pfn, frames;

	if (!ranges)
		return 0;
	for (unsigned i = 0; i < n; i++)
		if (trim(&ranges[i], &pfn, &frames))
			words += range_words(pfn, frames);
	return (size_t)(words * sizeof(uint64_t));
}

static void set_bits(uint64_t *bm, uint64_t bit, uint64_t count)
{
	while (count && (bit % WORD_BITS)) {
		bm[bit / WORD_BITS] |= UINT64_C(1) << (bit % WORD_BITS);
		bit++;
		count--;
	}
	while (count >= WORD_BITS) {
		bm[bit / WORD_BITS] = ~UINT64_C(0);
		bit += WORD_BITS;
		count -= WORD_BITS;
	}
	while (count) {
		bm[bit / WORD_BITS] |= UINT64_C(1) << (bit % WORD_BITS);
		bit++;
		count--;
	}
}

static void clear_bits(uint64_t *bm, uint64_t bit, uint64_t count)
{
	while (count && (bit % WORD_BITS)) {
		bm[bit / WORD_BITS] &= ~(UINT64_C(1) << (bit % WORD_BITS));
		bit++;
		count--;
	}
	while (count >= WORD_BITS) {
		bm[bit / WORD_BITS] = 0;
		bit += WORD_BITS;
		count -= WORD_BITS;
	}
	while (count) {
		bm[bit / WORD_BITS] &= ~(UINT64_C(1) << (bit % WORD_BITS));
		bit++;
		count--;
	}
}

static bool test_bit(const uint64_t *bm, uint64_t bit)
{
	return (bm[bit / WORD_BITS] >> (bit % WORD_BITS)) & 1;
}

int pt_frames_init(struct pt_frames *f, const struct pt_range *ranges, unsigned n,
		   uint64_t *bitmap, size_t bitmap_bytes,
		   void *(*phys_to_virt)(void *ctx, uint64_t pa), void *p2v_ctx)
{
	uint64_t words = 0, pfn, frames;
	unsigned i, j;

	if (!f || !phys_to_virt || (n && !ranges) || n > PT_FRAMES_MAX_RANGES)
		return PT_EINVAL;

	/* Validate everything before writing anything. */
	for (i = 0; i < n; i++) {
		const struct pt_range *a = &ranges[i];

		if (a->len == 0)
			continue;
		if (a->va + a->len < a->va)
			return PT_EINVAL;
		for (j = i + 1; j < n; j++) {
			const struct pt_range *b = &ranges[j];

			if (b->len && a->va < b->va + b->len && b->va < a->va + a->len)
				return PT_EINVAL;
		}
	}
	words = pt_frames_bitmap_bytes(ranges, n) / sizeof(uint64_t);
	if (words && !bitmap)
		return PT_EINVAL;
	if (bitmap_bytes / sizeof(uint64_t) < words)
		return PT_ECAPACITY;

	memset(f, 0, sizeof(*f));
	f->bitmap = bitmap;
	f->phys_to_virt = phys_to_virt;
	f->p2v_ctx = p2v_ctx;

	/* Insertion sort by address: at most PT_FRAMES_MAX_RANGES entries. */
	for (i = 0; i < n; i++) {
		if (!trim(&ranges[i], &pfn, &frames))
			continue;
		for (j = f->nranges; j > 0 && f->range[j - 1].pa > (pfn << FRAME_SHIFT); j--)
			f->range[j] = f->range[j - 1];
		f->range[j].pa = pfn << FRAME_SHIFT;
		f->range[j].frames = frames;
		f->nranges++;
		f->total += frames;
	}

	/* Lay the ranges out word by word; padding bits set. */
	if (words)
		memset(bitmap, 0xff, words * sizeof(uint64_t));
	words = 0;
	for (i = 0; i < f->nranges; i++) {
		struct pt_frames_range *r = &f->range[i];

		pfn = r->pa >> FRAME_SHIFT;
		r->bit0 = words * WORD_BITS + pfn % WORD_BITS;
		clear_bits(bitmap, r->bit0, r->frames);
		words += range_words(pfn, r->frames);
	}
	return PT_OK;
}

/* Total bits of the bitmap (padding included). */
static uint64_t nbits(const struct pt_frames *f)
{
	const struct pt_frames_range *r;

	if (!f->nranges)
		return 0;
	r = &f->range[f->nranges - 1];
	return pt_align_up(r->bit0 + r->frames, WORD_BITS);
}

#define FR_BYTES(r) ((r).frames << FRAME_SHIFT)
PT_DEFINE_RANGE_SEARCH(search_ranges, struct pt_frames_range, PT_FIELD_PA, FR_BYTES)

/* Index of the range holding @pa, or -1. */
static int range_of_pa(const struct pt_frames *f, uint64_t pa)
{
	const struct pt_frames_range *r = search_ranges_holding(f->range, f->nranges, pa);

	return r ? (int)(r - f->range) : -1;
}

/* Physical address of bitmap @bit, which must belong to a range. */
static uint64_t pa_of_bit(const struct pt_frames *f, uint64_t bit)
{
	unsigned lo = 0, hi = f->nranges;

	/* The last range with bit0 <= bit. */
	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;

		if (f->range[mid].bit0 <= bit)
			lo = mid;
		else
			hi = mid;
	}
	return f->range[lo].pa + ((bit - f->range[lo].bit0) << FRAME_SHIFT);
}

/* Consume one armed injection step; true when this allocation must fail. */
static bool inject(struct pt_frames *f)
{
	if (!f->fail_at)
		return false;
	return --f->fail_at == 0;
}

static void account_alloc(struct pt_frames *f, uint64_t frames)
{
	f->allocated += frames;
	f->in_use += frames;
	if (f->in_use > f->peak)
		f->peak = f->in_use;
}

/*
 * Next free bit at or after the cursor, wrapping; -1 when none.  Called for
 * every frame a map takes: no division on the way (the cursor is kept below
 * nbits(); one a caller stored out of range is wrapped once).
 */
static int64_t find_free_bit(const struct pt_frames *f)
{
	uint64_t bits = nbits(f), words = bits / WORD_BITS, c = f->cursor, w, v;

	if (!bits)
		return -1;
	if (c >= bits)
		c %= bits;
	w = c / WORD_BITS;
	v = ~f->bitmap[w] & (~UINT64_C(0) << (c % WORD_BITS));
	/* words more steps: the cursor word is seen again for its low bits. */
	for (uint64_t k = 0;; k++) {
		if (v)
			return (int64_t)(w * WORD_BITS + (uint64_t)__builtin_ctzll(v));
		if (k == words)
			return -1;
		if (++w == words)
			w = 0;
		v = ~f->bitmap[w];
	}
}

int pt_frames_alloc(void *ctx, uint64_t *pa)
{
	struct pt_frames *f = ctx;
	uint64_t frame;
	int64_t bit;
	void *p;

	if (inject(f))
		goto fail;
	bit = find_free_bit(f);
	if (bit < 0)
		goto fail;
	frame = pa_of_bit(f, (uint64_t)bit);
	if (!f->dirty) {
		p = f->phys_to_virt(f->p2v_ctx, frame);
		if (!p)
			goto fail;
		memset(p, 0, FRAME_SIZE);
	}
	f->bitmap[bit / WORD_BITS] |= UINT64_C(1) << (bit % WORD_BITS);
	f->cursor = (uint64_t)bit + 1 < nbits(f) ? (uint64_t)bit + 1 : 0;
	account_alloc(f, 1);
	*pa = frame;
	return PT_OK;
fail:
	f->failed++;
	return PT_ENOMEM;
}

int pt_frames_free_checked(struct pt_frames *f, uint64_t pa)
{
	const struct pt_frames_range *r;
	uint64_t bit;
	int i;

	if (pa % FRAME_SIZE)
		goto bad;
	i = range_of_pa(f, pa);
	if (i < 0)
		goto bad;
	r = &f->range[i];
	bit = r->bit0 + ((pa - r->pa) >> FRAME_SHIFT);
	if (!test_bit(f->bitmap, bit))
		goto bad;
	f->bitmap[bit / WORD_BITS] &= ~(UINT64_C(1) << (bit % WORD_BITS));
	f->freed++;
	f->in_use--;
	return PT_OK;
bad:
	f->bad_frees++;
	return PT_EFRAME;
}

void pt_frames_free(void *ctx, uint64_t pa)
{
	(void)pt_frames_free_checked(ctx, pa);
}

static bool run_size_ok(uint64_t size)
{
	return size == PT_SIZE_4K || size == PT_SIZE_2M || size == PT_SIZE_1G;
}

/*
 * First set bit in [bit, bit + count), or -1 when all are clear.  Whole words
 * are compared at once.
 */
static int64_t first_busy(const uint64_t *bm, uint64_t bit, uint64_t count)
{
	while (count && (bit % WORD_BITS)) {
		if (test_bit(bm, bit))
			return (int64_t)bit;
		bit++;
		count--;
	}
	while (count >= WORD_BITS) {
		uint64_t v = bm[bit / WORD_BITS];

		if (v)
			return (int64_t)(bit + (uint64_t)__builtin_ctzll(v));
		bit += WORD_BITS;
		count -= WORD_BITS;
	}
	while (count) {
		if (test_bit(bm, bit))
			return (int64_t)bit;
		bit++;
		count--;
	}
	return -1;
}

int pt_frames_alloc_run(struct pt_frames *f, uint64_t size, uint64_t *pa)
{
	uint64_t k = size >> FRAME_SHIFT;

	if (!run_size_ok(size))
		return PT_EINVAL;
	if (inject(f))
		goto fail;
	for (unsigned i = 0; i < f->nranges; i++) {
		const struct pt_frames_range *r = &f->range[i];
		uint64_t pfn0 = r->pa >> FRAME_SHIFT;
		uint64_t end = pfn0 + r->frames;
		uint64_t p = pt_align_up(pfn0, k);

		while (p < end && end - p >= k) {
			uint64_t bit = r->bit0 + (p - pfn0);
			int64_t busy = first_busy(f->bitmap, bit, k);

			if (busy < 0) {
				set_bits(f->bitmap, bit, k);
				account_alloc(f, k);
				*pa = p << FRAME_SHIFT;
				return PT_OK;
			}
			/* No aligned run can hold the busy frame: skip past it. */
			p = pt_align_up(pfn0 + ((uint64_t)busy - r->bit0) + 1, k);
		}
	}
fail:
	f->failed++;
	return PT_ENOMEM;
}

int pt_frames_free_run(struct pt_frames *f, uint64_t pa, uint64_t size)
{
	const struct pt_frames_range *r;
	uint64_t k = size >> FRAME_SHIFT, bit;
	int i;

	if (!run_size_ok(size) || pa % size)
		goto bad;
	i = range_of_pa(f, pa);
	if (i < 0)
		goto bad;
	r = &f->range[i];
	if (((pa - r->pa) >> FRAME_SHIFT) + k > r->frames)
		goto bad;
	bit = r->bit0 + ((pa - r->pa) >> FRAME_SHIFT);
	for (uint64_t j = 0; j < k; j++)
		if (!test_bit(f->bitmap, bit + j))
			goto bad;
	clear_bits(f->bitmap, bit, k);
	f->freed += k;
	f->in_use -= k;
	return PT_OK;
bad:
	f->bad_frees++;
	return PT_EFRAME;
}

/* True when the frame holding @pa is managed by @f. */
bool pt_frames_contains(const struct pt_frames *f, uint64_t pa)
{
	return range_of_pa(f, pa) >= 0;
}

/* True when the frame holding @pa is managed by @f and handed out. */
bool pt_frames_in_use(const struct pt_frames *f, uint64_t pa)
{
	const struct pt_frames_range *r;
	int i = range_of_pa(f, pa);

	if (i < 0)
		return false;
	r = &f->range[i];
	return test_bit(f->bitmap, r->bit0 + ((pa - r->pa) >> FRAME_SHIFT));
}

/* Arm (@n > 0) or disarm (@n == 0) the failure of the @n-th allocation from now. */
void pt_frames_fail_nth(struct pt_frames *f, uint64_t n)
{
	f->fail_at = n;
}

/* Frames currently free. */
uint64_t pt_frames_available(const struct pt_frames *f)
{
	return f->total - f->in_use;
}

static void *frames_p2v(void *ctx, uint64_t pa)
{
	struct pt_frames *f = ctx;

	return f->phys_to_virt(f->p2v_ctx, pa);
}

int pt_frames_set_zeroing(struct pt_frames *f, bool zero)
{
	if (f->dirty == !zero)
		return PT_OK;
	if (f->env_bound)
		return PT_EINVAL;
	f->dirty = !zero;
	return PT_OK;
}

/*
 * pt_frames_env - point @env's ctx, alloc_frame, free_frame and phys_to_virt
 * at @f, and set frames_dirty to match its zeroing.  The other fields are
 * left as they are.  From now on @f's zeroing mode is fixed (see
 * pt_frames_set_zeroing), so @env stays right.
 */
void pt_frames_env(struct pt_frames *f, struct pt_env *env)
{
	env->ctx = f;
	env->alloc_frame = pt_frames_alloc;
	env->free_frame = pt_frames_free;
	env->phys_to_virt = frames_p2v;
	env->frames_dirty = f->dirty;
	f->env_bound = true;
}
