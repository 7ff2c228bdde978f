// SPDX-License-Identifier: MIT
/*
 * Host benchmark of the page-table library: range mapping, translation and
 * teardown, each measured against two references taken in the same run.
 *
 *  memset   clearing (table pages the call created x 4 KiB) bytes of a warm
 *           buffer: what building the tables costs if writing them were free
 *           beyond the bytes themselves;
 *  perpage  a per-page mapper kept here: for every leaf (every 4 KiB page in
 *           the 4 KiB cases) walk from the root, allocating tables as
 *           needed, the way typical bootloaders map.  It uses the same frame
 *           allocator and the same leaves, so it builds the same tables.
 *
 * Simulated physical memory: one malloc'd, page-aligned block stands for
 * [BENCH_BASE, BENCH_BASE + size), with frames from paging/frames.c.  Before
 * every repetition the allocator's next-fit cursor is reset, so each
 * repetition gets the same frames, as the memset reference reuses one buffer.
 *
 * Two environments:
 *  fast     the library's optional paths: a linear physical-to-virtual
 *           mapping (p2v_linear) and frames handed out unzeroed
 *           (frames_dirty; the library clears what it does not fill).
 *           Every case and every goal uses this one.
 *  callback phys_to_virt called for every table access and frames zeroed
 *           by the allocator, as before those options existed; map1g_4k
 *           and translate_cached are repeated with it for comparison.
 * The per-page reference always gets zeroed frames (it relies on them).
 *
 * Every case runs at least BENCH_REPS times and prints median, min and max.
 * The "bench: NAME value=X goal=Y met=yes|no" lines summarise the goals; the
 * process exits 0 whatever they say (timings are reported, not asserted) and
 * 1 only when a library call fails or a translation is wrong.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ptlab/frames.h>
#include <ptlab/pt.h>
#include <ptlab/pte.h>

#define BENCH_BASE  UINT64_C(0x0000004200000000)   /* fake physical base, not 0 */
#define BENCH_REPS  11u
#define NTRANSLATE  1000000u

#define VA0  UINT64_C(0x0000100000000000)          /* mappings start here (16 TiB) */
#define PA0  UINT64_C(0x0000200000000000)          /* ... pointing here (never touched) */

#define KiB UINT64_C(1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)

struct bench {
	uint8_t *mem;
	uint64_t base;
	uint64_t size;
	struct pt_frames frames;
	uint64_t *bitmap;
	struct pt_env env_fast;
	struct pt_env env_cb;
	const struct pt_env *env;   /* the one new_space uses */
	uint8_t *ref;          /* the memset reference's buffer */
	uint64_t ref_bytes;
};

static struct bench B;
static int failures;

static void die(const char *what, int err)
{
	fprintf(stderr, "bench: %s: %s\n", what, pt_strerror(err));
	exit(1);
}

static void *bench_p2v(void *ctx, uint64_t pa)
{
	struct bench *b = ctx;

	return b->mem + (pa - b->base);
}

static void *env_p2v(void *ctx, uint64_t pa)
{
	(void)ctx;
	return B.mem + (pa - B.base);
}

static uint64_t *tbl(uint64_t pa)
{
	return (uint64_t *)(void *)(B.mem + (pa - B.base));
}

static void bench_init(uint64_t frames, uint64_t ref_bytes)
{
	struct pt_range r;
	size_t bytes;
	int err;

	B.base = BENCH_BASE;
	B.size = frames * PT_PAGE_SIZE;
	B.mem = aligned_alloc(PT_PAGE_SIZE, B.size);
	B.ref_bytes = ref_bytes;
	B.ref = aligned_alloc(PT_PAGE_SIZE, ref_bytes);
	if (!B.mem || !B.ref) {
		fprintf(stderr, "bench: out of host memory\n");
		exit(1);
	}
	/* Fault everything in now, so no case pays for first touches. */
	memset(B.mem, 0xa5, B.size);
	memset(B.ref, 0x5a, ref_bytes);
	r.va = B.base;
	r.len = B.size;
	bytes = pt_frames_bitmap_bytes(&r, 1);
	B.bitmap = calloc(1, bytes);
	if (!B.bitmap)
		exit(1);
	err = pt_frames_init(&B.frames, &r, 1, B.bitmap, bytes, bench_p2v, &B);
	if (err)
		die("pt_frames_init", err);
	/*
	 * Filled by hand rather than by pt_frames_env(), which fixes the
	 * allocator's zeroing mode: the cases switch it.  One call from a
	 * physical address to the table, as efi/ has it (pt_frames_env's
	 * wrapper calls through the allocator: two indirect calls).
	 */
	B.env_cb.ctx = &B.frames;
	B.env_cb.alloc_frame = pt_frames_alloc;
	B.env_cb.free_frame = pt_frames_free;
	B.env_cb.phys_to_virt = env_p2v;
	B.env_cb.flush = NULL;         /* the tables are never live */
	B.env_cb.maxphyaddr = 46;
	B.env_cb.has_1g = true;
	pt_pat_default(&B.env_cb.pat);

	B.env_fast = B.env_cb;
	B.env_fast.p2v_linear = true;
	B.env_fast.p2v_offset = (uint64_t)(uintptr_t)B.mem - B.base;
	B.env_fast.frames_dirty = true;
	for (uint64_t pa = B.base; pa < B.base + B.size; pa += PT_PAGE_SIZE)
		if (env_p2v(NULL, pa) != (void *)(uintptr_t)(pa + B.env_fast.p2v_offset))
			die("p2v_offset", PT_EINVAL);
}

/*
 * Build with the fast environment (dirty frames) or the callback one
 * (zeroed frames).
 */
static void use_env(bool fast)
{
	B.env = fast ? &B.env_fast : &B.env_cb;
	pt_frames_set_zeroing(&B.frames, !fast);
}

/* ---- time ---------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct stat3 {
	double med, min, max;    /* nanoseconds */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static struct stat3 stat_of(uint64_t *t, unsigned n)
{
	struct stat3 s;

	qsort(t, n, sizeof(*t), cmp_u64);
	s.min = (double)t[0];
	s.max = (double)t[n - 1];
	s.med = n % 2 ? (double)t[n / 2] : ((double)t[n / 2 - 1] + (double)t[n / 2]) / 2;
	return s;
}

/* Start every repetition on the same frames. */
static void frames_rewind(void)
{
	B.frames.cursor = 0;
	B.frames.peak = B.frames.in_use;
}

/* ---- the per-page reference ------------------------------------------------ */

static uint64_t leaf_bits(unsigned level)
{
	return PTE_P | PTE_W | PTE_NX | (level ? PTE_PS : 0);
}

/*
 * Map [va, va+len) leaf by leaf (largest fit up to @max_level), each leaf
 * walked from the root with tables allocated on the way.
 */
static void perpage_map(uint64_t root, unsigned levels, uint64_t va, uint64_t pa,
			uint64_t len, unsigned max_level)
{
	uint64_t off = 0;

	while (off < len) {
		unsigned leaf = max_level;
		uint64_t *t = tbl(root);

		while (leaf && ((((va + off) | (pa + off)) & (pt_level_size(leaf) - 1)) ||
				len - off < pt_level_size(leaf)))
			leaf--;
		for (unsigned level = levels - 1; level > leaf; level--) {
			uint64_t *e = &t[pt_index(va + off, level)];

			if (!(*e & PTE_P)) {
				uint64_t npa;
				int err = pt_frames_alloc(&B.frames, &npa);

				if (err)
					die("perpage: frame", err);
				*e = npa | PTE_P | PTE_W;
			}
			t = tbl(*e & PTE_ADDR_MASK);
		}
		t[pt_index(va + off, leaf)] = (pa + off) | leaf_bits(leaf);
		off += pt_level_size(leaf);
	}
}

/* The reference lookup: four loads, no checks. */
static uint64_t perpage_translate(uint64_t root, unsigned levels, uint64_t va)
{
	uint64_t pa = root;

	for (unsigned level = levels - 1; ; level--) {
		uint64_t e = tbl(pa)[pt_index(va, level)];

		if (!(e & PTE_P))
			return 0;
		if (level == 0 || (e & PTE_PS)) {
			uint64_t mask = pt_level_size(level) - 1;

			return ((e & PTE_ADDR_MASK) & ~mask) | (va & mask);
		}
		pa = e & PTE_ADDR_MASK;
	}
}

/* ---- map cases ------------------------------------------------------------------ */

struct map_case {
	const char *name;
	uint64_t va, pa, len;
	enum pt_page_size max_size;
};

struct map_result {
	struct stat3 map, unmap, memset_ref, perpage;
	uint64_t created;            /* table pages one map call created */
	uint64_t peak;               /* frames in use at the peak, root included */
	struct pt_stats stats;
};

static void new_space(struct pt_space *s)
{
	int err = pt_create(s, B.env, 4);

	if (err)
		die("pt_create", err);
}

static void run_map_case(const struct map_case *c, struct map_result *r)
{
	uint64_t tm[BENCH_REPS], tu[BENCH_REPS], tr[BENCH_REPS], tp[BENCH_REPS];
	struct pt_space s;
	uint64_t t0;
	int err;

	memset(r, 0, sizeof(*r));
	for (unsigned k = 0; k < BENCH_REPS; k++) {
		frames_rewind();
		new_space(&s);
		t0 = now_ns();
		err = pt_map(&s, c->va, c->pa, c->len, PT_WRITE, c->max_size, NULL);
		tm[k] = now_ns() - t0;
		if (err)
			die(c->name, err);
		r->created = pt_table_count(&s) - 1;
		r->stats = s.stats;
		if (B.frames.peak > r->peak)
			r->peak = B.frames.peak;
		t0 = now_ns();
		err = pt_unmap(&s, c->va, c->len, 0, NULL);
		tu[k] = now_ns() - t0;
		if (err)
			die(c->name, err);
		if (pt_table_count(&s) != 1) {
			fprintf(stderr, "bench: %s: %" PRIu64 " tables left after unmap\n",
				c->name, pt_table_count(&s));
			failures++;
		}
		pt_destroy(&s);
	}
	if (r->created * PT_PAGE_SIZE > B.ref_bytes) {
		fprintf(stderr, "bench: %s: reference buffer too small\n", c->name);
		exit(1);
	}
	for (unsigned k = 0; k < BENCH_REPS; k++) {
		t0 = now_ns();
		memset(B.ref, (int)k, r->created * PT_PAGE_SIZE);
		__asm__ volatile("" : : "r"(B.ref) : "memory");
		tr[k] = now_ns() - t0;
	}
	pt_frames_set_zeroing(&B.frames, true);
	for (unsigned k = 0; k < BENCH_REPS; k++) {
		frames_rewind();
		new_space(&s);
		t0 = now_ns();
		perpage_map(s.root_pa, s.levels, c->va, c->pa, c->len, (unsigned)c->max_size);
		tp[k] = now_ns() - t0;
		pt_destroy(&s);
	}
	pt_frames_set_zeroing(&B.frames, B.env->frames_dirty ? false : true);
	r->map = stat_of(tm, BENCH_REPS);
	r->unmap = stat_of(tu, BENCH_REPS);
	r->memset_ref = stat_of(tr, BENCH_REPS);
	r->perpage = stat_of(tp, BENCH_REPS);
}

static void print_stat(const char *what, struct stat3 st, uint64_t pages)
{
	printf("  %-8s median %12.1f us  min %12.1f  max %12.1f  %8.3f ns/page\n", what,
	       st.med / 1e3, st.min / 1e3, st.max / 1e3, st.med / (double)pages);
}

static void print_map_result(const struct map_case *c, const struct map_result *r)
{
	uint64_t pages = c->len / PT_PAGE_SIZE;

	printf("%s: %" PRIu64 " MiB, va 0x%" PRIx64 ", %" PRIu64 " pages of 4 KiB\n",
	       c->name, c->len / MiB, c->va, pages);
	printf("  leaves   4K %" PRIu64 "  2M %" PRIu64 "  1G %" PRIu64 "\n",
	       r->stats.leaves[0], r->stats.leaves[1], r->stats.leaves[2]);
	printf("  tables   L3 %" PRIu64 " (root)  L2 %" PRIu64 "  L1 %" PRIu64 "  L0 %" PRIu64
	       "  created %" PRIu64 " (%.2f MiB)  peak frames in use %" PRIu64 "\n",
	       r->stats.tables[3], r->stats.tables[2], r->stats.tables[1], r->stats.tables[0],
	       r->created, (double)(r->created * PT_PAGE_SIZE) / (double)MiB, r->peak);
	print_stat("map", r->map, pages);
	print_stat("unmap", r->unmap, pages);
	print_stat("memset", r->memset_ref, pages);
	print_stat("perpage", r->perpage, pages);
	printf("  ratios   map/memset %.2f  perpage/map %.1f  unmap/map %.2f\n",
	       r->map.med / r->memset_ref.med, r->perpage.med / r->map.med,
	       r->unmap.med / r->map.med);
}

/* ---- translate cases ---------------------------------------------------------- */

static uint64_t rng = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t rand64(void)
{
	/* xorshift64*: deterministic, so every run looks up the same addresses */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * UINT64_C(0x2545f4914f6cdd1d);
}

struct xlate_result {
	struct stat3 lib, ref;
};

/* Translate every address of @va (n of them) into [VA0, ...) mapped at PA0. */
static void run_translate(const char *name, const struct pt_space *s, const uint64_t *va,
			  unsigned n, struct xlate_result *r)
{
	uint64_t tl[BENCH_REPS], tp[BENCH_REPS], sum = 0, sum_ref = 0;
	struct pt_leaf leaf;

	for (unsigned k = 0; k < BENCH_REPS; k++) {
		uint64_t t0 = now_ns(), acc = 0;

		for (unsigned i = 0; i < n; i++) {
			if (pt_translate(s, va[i], &leaf) != PT_OK) {
				fprintf(stderr, "bench: %s: 0x%" PRIx64 " not mapped\n", name, va[i]);
				exit(1);
			}
			acc += leaf.pa;
		}
		tl[k] = now_ns() - t0;
		sum = acc;
	}
	for (unsigned k = 0; k < BENCH_REPS; k++) {
		uint64_t t0 = now_ns(), acc = 0;

		for (unsigned i = 0; i < n; i++)
			acc += perpage_translate(s->root_pa, s->levels, va[i]);
		tp[k] = now_ns() - t0;
		sum_ref = acc;
	}
	/* Both must find every address where it was mapped. */
	{
		uint64_t want = 0;

		for (unsigned i = 0; i < n; i++)
			want += PA0 + (va[i] - VA0);
		if (sum != want || sum_ref != want) {
			fprintf(stderr, "bench: %s: wrong translations\n", name);
			failures++;
		}
	}
	r->lib = stat_of(tl, BENCH_REPS);
	r->ref = stat_of(tp, BENCH_REPS);
	printf("%s: %u random addresses\n", name, n);
	printf("  %-8s median %12.1f us  min %12.1f  max %12.1f  %8.2f ns/lookup\n", "library",
	       r->lib.med / 1e3, r->lib.min / 1e3, r->lib.max / 1e3, r->lib.med / n);
	printf("  %-8s median %12.1f us  min %12.1f  max %12.1f  %8.2f ns/lookup\n", "perpage",
	       r->ref.med / 1e3, r->ref.min / 1e3, r->ref.max / 1e3, r->ref.med / n);
	printf("  ratios   library/perpage %.2f  (memset: no tables are written)\n",
	       r->lib.med / r->ref.med);
}

static void fill_addresses(uint64_t *va, unsigned n, uint64_t len)
{
	for (unsigned i = 0; i < n; i++)
		va[i] = VA0 + (rand64() % len);
}

/* ---- goals ----------------------------------------------------------------------- */

static void goal(const char *name, double value, const char *op, double target)
{
	bool met = op[0] == '<' ? value <= target : value >= target;

	printf("bench: %s value=%.2f goal=%s%.1f met=%s\n", name, value, op, target,
	       met ? "yes" : "no");
}

int main(void)
{
	static const struct map_case cases[] = {
		{ "map1g_4k", VA0, PA0, GiB, PT_PAGE_4K },
		{ "map1g_2m", VA0, PA0, GiB, PT_PAGE_2M },
		{ "map64g_1g", VA0, PA0, 64 * GiB, PT_PAGE_1G },
		/* start 1 MiB past a 2 MiB boundary, so the end is off one too */
		{ "map1g_mixed", VA0 + MiB, PA0 + MiB, GiB, PT_PAGE_1G },
		{ "map64g_4k", VA0, PA0, 64 * GiB, PT_PAGE_4K },
	};
	const unsigned ncases = sizeof(cases) / sizeof(cases[0]);
	struct map_result res[sizeof(cases) / sizeof(cases[0])];
	static const struct map_case cb_case = {
		"map1g_4k (callback env: phys_to_virt calls, zeroed frames)",
		VA0, PA0, GiB, PT_PAGE_4K
	};
	struct map_result cb_res;
	struct xlate_result cached, cached_cb, spread;
	struct pt_space s;
	uint64_t *va, t0, t_free;
	/* 64 GiB of 4 KiB pages: 32768 PTs + 64 PDs + 1 PDPT + root, and slack */
	uint64_t frames = 32768 + 64 + 2 + 1024;
	int err;

	bench_init(frames, frames * PT_PAGE_SIZE);
	printf("bench: %u repetitions per case; arena %" PRIu64 " frames (%.1f MiB) at pa 0x%"
	       PRIx64 "\n", BENCH_REPS, frames, (double)B.size / (double)MiB, B.base);
	printf("bench: ns/page is per 4 KiB page of the range; memset = (tables created x 4 KiB)"
	       " bytes; perpage = root-to-leaf walk per leaf\n\n");

	use_env(true);
	for (unsigned i = 0; i < ncases; i++) {
		run_map_case(&cases[i], &res[i]);
		print_map_result(&cases[i], &res[i]);
		printf("\n");
	}
	use_env(false);
	run_map_case(&cb_case, &cb_res);
	print_map_result(&cb_case, &cb_res);
	printf("\n");

	va = malloc(NTRANSLATE * sizeof(*va));
	if (!va)
		return 1;

	/* cached: 2 MiB of 4 KiB pages, one PT; callback env first */
	frames_rewind();
	new_space(&s);
	err = pt_map(&s, VA0, PA0, 2 * MiB, PT_WRITE, PT_PAGE_4K, NULL);
	if (err)
		die("translate_cached: map", err);
	fill_addresses(va, NTRANSLATE, 2 * MiB);
	run_translate("translate_cached (callback env)", &s, va, NTRANSLATE, &cached_cb);
	pt_destroy(&s);
	printf("\n");

	use_env(true);
	frames_rewind();
	new_space(&s);
	err = pt_map(&s, VA0, PA0, 2 * MiB, PT_WRITE, PT_PAGE_4K, NULL);
	if (err)
		die("translate_cached: map", err);
	run_translate("translate_cached", &s, va, NTRANSLATE, &cached);
	pt_destroy(&s);
	printf("\n");

	/* spread: 64 GiB of 4 KiB pages, 32768 PTs */
	frames_rewind();
	new_space(&s);
	err = pt_map(&s, VA0, PA0, 64 * GiB, PT_WRITE, PT_PAGE_4K, NULL);
	if (err)
		die("translate_spread: map", err);
	fill_addresses(va, NTRANSLATE, 64 * GiB);
	run_translate("translate_spread", &s, va, NTRANSLATE, &spread);
	printf("  tables   %" PRIu64 " (%.1f MiB)\n", pt_table_count(&s),
	       (double)(pt_table_count(&s) * PT_PAGE_SIZE) / (double)MiB);

	/* and free all of it */
	t0 = now_ns();
	pt_destroy(&s);
	t_free = now_ns() - t0;
	printf("  destroy  %.1f us for 64 GiB of 4 KiB mappings; frames in use after: %" PRIu64 "\n\n",
	       (double)t_free / 1e3, B.frames.in_use);
	if (B.frames.in_use) {
		fprintf(stderr, "bench: %" PRIu64 " frames leaked\n", B.frames.in_use);
		failures++;
	}
	free(va);

	goal("map4k_vs_memset", res[0].map.med / res[0].memset_ref.med, "<=", 2.0);
	goal("map4k_speedup_vs_perpage", res[0].perpage.med / res[0].map.med, ">=", 10);
	goal("unmap_vs_map", res[0].unmap.med / res[0].map.med, "<=", 1.0);
	goal("translate_cached_ns", cached.lib.med / NTRANSLATE, "<=", 15);
	/* The same figures with the callback environment: no goal, for comparison. */
	printf("bench: compare map4k_vs_memset_callback value=%.2f\n",
	       cb_res.map.med / cb_res.memset_ref.med);
	printf("bench: compare translate_cached_ns_callback value=%.2f\n",
	       cached_cb.lib.med / NTRANSLATE);
	free(B.mem);
	free(B.ref);
	free(B.bitmap);
	return failures ? 1 : 0;
}
