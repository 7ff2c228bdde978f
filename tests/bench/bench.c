// SPDX-License-Identifier: MIT
/*
 * Host benchmark of the page-table library: range mapping, translation and
 * teardown, each measured against references the benchmark writes itself
 * and times in the same run.
 *
 *  fill     the physical limit of building the same tables: the same table
 *           frames from the same allocator (so allocation costs the same on
 *           both sides), every entry of them stored in tight loops (leaves,
 *           links, zeroes outside the range), no checks, no rollback, no
 *           statistics, no flush list;
 *  memset   clearing (table pages the call created x 4 KiB) bytes of a warm
 *           buffer: writing the tables' bytes with the fastest store loop
 *           the C library has, without computing them or allocating;
 *  perpage  a per-page mapper: for every leaf walk from the root,
 *           allocating tables as needed, the way typical bootloaders map;
 *  baseline the tightest correct walk, written here from the SDM and not
 *           from pt_translate (ref_walk): one load per level, no calls, no
 *           checks but P and PS, inlined into the loop; it computes the
 *           leaf's frame, its size and the rights of the walk, and every
 *           lookup's answer is compared with the library's before timing.
 *
 * Simulated physical memory: one malloc'd, page-aligned block stands for
 * [BENCH_BASE, BENCH_BASE + size), with frames from paging/frames.c.  Every
 * sample starts with the allocator rewound, so each sample gets the same
 * frames.
 *
 * Timing: every sample runs at least BENCH_SAMPLE_NS.  A short call is
 * repeated over a batch of address spaces created beforehand (outside the
 * timed region), and only the calls themselves are timed; a sample's value
 * is the time per call.  A repetition takes one sample of every side of a
 * case in turn (pt_map, the fill, the per-page mapper, memset; pt_translate,
 * pt_translate_many, the baseline walk), so a burst of load lands on the
 * sides of one repetition alike; a ratio is taken within each repetition
 * (paired), and its median over the repetitions is the figure a goal
 * judges.  Its spread is the half-width of the 95 % confidence interval of
 * that median (order statistics, no assumption about the noise's shape),
 * relative to it.  A case takes BENCH_REPS repetitions, and more, up to
 * REPS_MAX, until the spread of every ratio of it is within SPREAD_GOAL
 * (the range sweep takes SWEEP_REPS, and no goal reads it).  Times print
 * as median, min and max.
 *
 * Two environments:
 *  fast     the library's optional paths: a linear physical-to-virtual
 *           mapping (p2v_linear), frames handed out unzeroed
 *           (frames_dirty; the library clears what it does not fill) and,
 *           where pt_cpu_wide_stores() allows it, 32-byte stores of page
 *           tables (wide_stores).  Every case and every goal uses this one.
 *  callback phys_to_virt called for every table access and frames zeroed
 *           by the allocator; map1g_4k and the cached lookup are repeated
 *           with it for comparison.
 *
 * Output: per-case figures, a markdown results table (also written to the
 * file given with --md), an SVG plot of ns per page against range size
 * (--svg), and "bench: NAME value=X goal=Y met=yes|no" lines.  The process
 * exits 0 whatever the goals say (timings are reported, not asserted) and
 * 1 only when a library call fails or a result is wrong.
 *
 * Built twice by "make bench": once as the host compiler likes, once with
 * the library compiled without SSE (-DBENCH_SCALAR, paging/ with -mno-sse
 * as in the firmware build); the scalar build runs the map cases only.
 */
#include "bench.h"

struct bench B;
int failures;

void die(const char *what, int err)
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
	 * allocator's zeroing mode: the cases switch it.
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
	B.env_fast.wide_stores = pt_cpu_wide_stores();
	for (uint64_t pa = B.base; pa < B.base + B.size; pa += PT_PAGE_SIZE)
		if (env_p2v(NULL, pa) != (void *)(uintptr_t)(pa + B.env_fast.p2v_offset))
			die("p2v_offset", PT_EINVAL);
}

/* Build with the fast environment (dirty frames) or the callback one (zeroed frames). */
static void use_env(bool fast)
{
	B.env = fast ? &B.env_fast : &B.env_cb;
	pt_frames_set_zeroing(&B.frames, !fast);
}

/* Start a sample on the same frames as every other. */
void frames_rewind(void)
{
	if (B.frames.in_use) {
		fprintf(stderr, "bench: %" PRIu64 " frames still in use\n", B.frames.in_use);
		exit(1);
	}
	B.frames.cursor = 0;
	B.frames.peak = 0;
}

/* ---- map cases ------------------------------------------------------------------ */

static void new_space(struct pt_space *s)
{
	int err = pt_create(s, B.env, 4);

	if (err)
		die("pt_create", err);
}

/* Fewest table pages below the root that hold the leaves of @s (computed from the leaves). */
struct min_count {
	uint64_t last_block[3];      /* last 2 MiB / 1 GiB / 512 GiB block seen, +1 */
	uint64_t n;
};

static int count_leaf(void *arg, const struct pt_leaf *leaf)
{
	struct min_count *m = arg;

	/* a leaf at level L needs one table at each level L..2 above it */
	for (unsigned l = leaf->level; l < 3; l++) {
		uint64_t block = (leaf->va >> (PT_PAGE_SHIFT + PT_LEVEL_BITS * (l + 1))) + 1;

		if (m->last_block[l] != block) {   /* leaves come in VA order */
			m->last_block[l] = block;
			m->n++;
		}
	}
	return 0;
}

static uint64_t min_tables(const struct pt_space *s)
{
	struct min_count m = { { 0, 0, 0 }, 0 };
	int err = pt_visit(s, 0, 0, count_leaf, &m);

	if (err)
		die("pt_visit", err);
	return m.n;
}

/* Frames one space of case @c uses after the map, root included (measured once). */
static uint64_t frames_per_space(const struct map_case *c, struct map_result *r)
{
	struct pt_space s;
	uint64_t before;
	int err;

	frames_rewind();
	new_space(&s);
	before = B.frames.in_use;
	B.frames.peak = before;
	err = pt_map(&s, c->va, c->pa, c->len, PT_WRITE, c->max_size, NULL);
	if (err)
		die(c->name, err);
	r->peak_map = B.frames.peak;
	r->created = pt_table_count(&s) - 1;
	r->stats = s.stats;
	r->min_tables = min_tables(&s);
	B.frames.peak = B.frames.in_use;
	err = pt_unmap(&s, c->va, c->len, 0, NULL);
	if (err)
		die(c->name, err);
	r->peak_unmap = B.frames.peak;
	if (pt_table_count(&s) != 1 || B.frames.in_use != before) {
		fprintf(stderr, "bench: %s: %" PRIu64 " tables left after unmap\n", c->name,
			pt_table_count(&s));
		failures++;
	}
	pt_destroy(&s);
	return r->created + 1;
}

/*
 * One sample of @side for case @c: batches of @batch fresh spaces, each
 * mapped once (timed), then unmapped (timed, for SIDE_MAP) and destroyed,
 * until BENCH_SAMPLE_NS of mapping has been timed.  Returns ns per map
 * call; *unmap_ns gets ns per unmap call.
 */
static double sample_map(const struct map_case *c, enum side side, unsigned batch,
			 double *unmap_ns)
{
	static struct pt_space sp[MAX_BATCH];
	uint64_t t_map = 0, t_unmap = 0, calls = 0, t0;
	int err;

	if (side == SIDE_PERPAGE)
		pt_frames_set_zeroing(&B.frames, true);
	while (t_map < BENCH_SAMPLE_NS) {
		frames_rewind();
		for (unsigned k = 0; k < batch; k++)
			new_space(&sp[k]);
		t0 = now_ns();
		switch (side) {
		case SIDE_MAP:
			for (unsigned k = 0; k < batch; k++) {
				err = pt_map(&sp[k], c->va, c->pa, c->len, PT_WRITE, c->max_size, NULL);
				if (err)
					die(c->name, err);
			}
			break;
		case SIDE_FILL:
			for (unsigned k = 0; k < batch; k++)
				fill_map(sp[k].root_pa, 4, c->va, c->pa, c->len, (unsigned)c->max_size);
			break;
		default:
			for (unsigned k = 0; k < batch; k++)
				perpage_map(sp[k].root_pa, 4, c->va, c->pa, c->len,
					    (unsigned)c->max_size);
			break;
		}
		t_map += now_ns() - t0;
		calls += batch;
		if (side == SIDE_MAP) {
			t0 = now_ns();
			for (unsigned k = 0; k < batch; k++) {
				err = pt_unmap(&sp[k], c->va, c->len, 0, NULL);
				if (err)
					die(c->name, err);
			}
			t_unmap += now_ns() - t0;
		}
		for (unsigned k = 0; k < batch; k++)
			pt_destroy(&sp[k]);
	}
	if (side == SIDE_PERPAGE)
		pt_frames_set_zeroing(&B.frames, !B.env->frames_dirty);
	if (unmap_ns)
		*unmap_ns = (double)t_unmap / (double)calls;
	return (double)t_map / (double)calls;
}

/* Frames the fill reference creates for @c (so the sides can be compared). */
static uint64_t fill_frames(const struct map_case *c)
{
	struct pt_space s;
	uint64_t n;

	frames_rewind();
	new_space(&s);
	fill_map(s.root_pa, 4, c->va, c->pa, c->len, (unsigned)c->max_size);
	n = B.frames.in_use - 1;
	pt_destroy(&s);
	return n;
}

/* One sample of memset over @bytes of the reference buffer: ns per call. */
static double sample_memset(uint64_t bytes, unsigned k)
{
	uint64_t t = 0, calls = 0, t0, inner = MiB / bytes + 1;

	while (t < BENCH_SAMPLE_NS) {
		t0 = now_ns();
		for (unsigned j = 0; j < inner; j++) {
			memset(B.ref, (int)(k + j), bytes);
			__asm__ volatile("" : : "r"(B.ref) : "memory");
		}
		t += now_ns() - t0;
		calls += inner;
	}
	return (double)t / (double)calls;
}

/*
 * Case @c: at least @reps repetitions, at most @reps_max, until the spread
 * of every paired ratio is within SPREAD_GOAL.  Each repetition samples
 * every side in turn, so a burst of load hits all of them.
 */
static void run_map_case(const struct map_case *c, struct map_result *r, unsigned reps,
			 unsigned reps_max, bool with_perpage)
{
	static double tm[REPS_MAX], tu[REPS_MAX], tr[REPS_MAX], tf[REPS_MAX], tp[REPS_MAX];
	uint64_t per_space, batch, bytes;
	unsigned k;

	memset(r, 0, sizeof(*r));
	per_space = frames_per_space(c, r);
	r->fill_created = fill_frames(c);
	if (r->fill_created != r->created) {
		fprintf(stderr, "bench: %s: fill created %" PRIu64 " tables, pt_map %" PRIu64 "\n",
			c->name, r->fill_created, r->created);
		failures++;
	}
	/*
	 * Spaces per batch: enough to time short calls together, few enough
	 * that a batch's tables stay within BATCH_FRAMES (cache-warm across
	 * samples, as the memset reference's buffer is).  Calls that need
	 * more run one per batch.
	 */
	batch = BATCH_FRAMES / per_space;
	if (batch > MAX_BATCH)
		batch = MAX_BATCH;
	if (!batch)
		batch = 1;
	bytes = r->created * PT_PAGE_SIZE;
	if (bytes > B.ref_bytes) {
		fprintf(stderr, "bench: %s: reference buffer too small\n", c->name);
		exit(1);
	}
	for (k = 0; k < reps_max; k++) {
		tm[k] = sample_map(c, SIDE_MAP, (unsigned)batch, &tu[k]);
		tf[k] = sample_map(c, SIDE_FILL, (unsigned)batch, NULL);
		tp[k] = with_perpage ? sample_map(c, SIDE_PERPAGE, (unsigned)batch, NULL) : 0;
		tr[k] = sample_memset(bytes, k);
		if (k + 1 < reps)
			continue;
		r->map_fill = paired(tm, tf, k + 1);
		r->map_memset = paired(tm, tr, k + 1);
		r->unmap_map = paired(tu, tm, k + 1);
		if (with_perpage)
			r->perpage_map = paired(tp, tm, k + 1);
		if (spread(r->map_fill) <= SPREAD_GOAL && spread(r->map_memset) <= SPREAD_GOAL &&
		    spread(r->unmap_map) <= SPREAD_GOAL && spread(r->perpage_map) <= SPREAD_GOAL) {
			k++;
			break;
		}
	}
	r->reps = k;
	r->t[SIDE_MAP] = stat_of(tm, k);
	r->t[SIDE_FILL] = stat_of(tf, k);
	if (with_perpage)
		r->t[SIDE_PERPAGE] = stat_of(tp, k);
	r->unmap = stat_of(tu, k);
	r->memset_ref = stat_of(tr, k);
}

static void print_stat(const char *what, struct stat3 st, uint64_t pages)
{
	printf("  %-8s median %12.3f us  min %12.3f  max %12.3f  %10.5f ns/page\n", what,
	       st.med / 1e3, st.min / 1e3, st.max / 1e3, st.med / (double)pages);
}

static void print_map_result(const struct map_case *c, const struct map_result *r)
{
	uint64_t pages = c->len / PT_PAGE_SIZE;

	printf("%s: %s; %" PRIu64 " MiB at va 0x%" PRIx64 ", %" PRIu64 " pages of 4 KiB\n",
	       c->name, c->what, c->len / MiB, c->va, pages);
	printf("  leaves   4K %" PRIu64 "  2M %" PRIu64 "  1G %" PRIu64 "\n",
	       r->stats.leaves[0], r->stats.leaves[1], r->stats.leaves[2]);
	printf("  tables   L3 %" PRIu64 " (root)  L2 %" PRIu64 "  L1 %" PRIu64 "  L0 %" PRIu64
	       "  created %" PRIu64 " (fewest possible %" PRIu64 ", %.0f bytes per GiB mapped)\n",
	       r->stats.tables[3], r->stats.tables[2], r->stats.tables[1], r->stats.tables[0],
	       r->created, r->min_tables,
	       (double)(r->created * PT_PAGE_SIZE) / ((double)c->len / (double)GiB));
	printf("  frames   peak in use during map %" PRIu64 ", during unmap %" PRIu64
	       " (root included)\n", r->peak_map, r->peak_unmap);
	print_stat("map", r->t[SIDE_MAP], pages);
	print_stat("unmap", r->unmap, pages);
	print_stat("fill", r->t[SIDE_FILL], pages);
	print_stat("memset", r->memset_ref, pages);
	if (r->t[SIDE_PERPAGE].med > 0)
		print_stat("perpage", r->t[SIDE_PERPAGE], pages);
	printf("  ratios   paired, median (spread) of %u repetitions: map/fill %.2f (%.1f %%)  "
	       "map/memset %.2f (%.1f %%)  perpage/map %.1f (%.1f %%)  unmap/map %.2f (%.1f %%)\n",
	       r->reps, r->map_fill.med, 100 * spread(r->map_fill), r->map_memset.med,
	       100 * spread(r->map_memset), r->perpage_map.med, 100 * spread(r->perpage_map),
	       r->unmap_map.med, 100 * spread(r->unmap_map));
	if (r->created != r->min_tables) {
		fprintf(stderr, "bench: %s: %" PRIu64 " tables, the leaves need %" PRIu64 "\n",
			c->name, r->created, r->min_tables);
		failures++;
	}
}

/* ---- translate ------------------------------------------------------------------ */

static uint64_t rng = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t rand64(void)
{
	/* xorshift64*: deterministic, so every run looks up the same addresses */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * UINT64_C(0x2545f4914f6cdd1d);
}

/*
 * The baseline walk: the tightest correct 4- or 5-level walk, written from
 * the SDM (Vol. 3A §4.5, "4-level paging and 5-level paging") and nothing
 * else: one load per level, the present bit, PS to stop at a 2 MiB or 1 GiB
 * leaf, no calls and no other checks.  It reports what every translation
 * must: the leaf's frame (its physical base), its size, and the access
 * rights the walk grants (R/W and U/S ANDed over every level, XD ORed;
 * SDM Vol. 3A §4.6.1), as the entry bits PTE_W, PTE_US and PTE_NX.
 * @off is what a table's physical address is added to for a pointer.
 */
struct ref_xlate {
	uint64_t frame;
	uint64_t size;
	uint64_t attr;
};

static inline __attribute__((always_inline))
bool ref_walk(uintptr_t off, uint64_t root, unsigned levels, uint64_t va, struct ref_xlate *r)
{
	uint64_t t = root, e, and_e = PTE_W | PTE_US, or_e = 0, size;
	unsigned shift = 12 + 9 * (levels - 1);

	for (;;) {
		e = *(const uint64_t *)(off + t + ((va >> shift) & 511) * 8);
		if (!(e & PTE_P))
			return false;
		and_e &= e;
		or_e |= e;
		if (shift == 12 || (e & PTE_PS))
			break;
		t = e & UINT64_C(0x000ffffffffff000);
		shift -= 9;
	}
	size = UINT64_C(1) << shift;
	r->frame = e & UINT64_C(0x000ffffffffff000) & ~(size - 1);
	r->size = size;
	r->attr = and_e | (or_e & PTE_NX);
	return true;
}

/* Addresses per pt_translate_many call. */
#define XLATE_BATCH 64u

/* pt_translate's answer in the baseline's terms. */
static struct ref_xlate ref_of_leaf(const struct pt_leaf *l)
{
	struct ref_xlate r = {
		.frame = l->pa & ~(l->size - 1),
		.size = l->size,
		.attr = (l->flags & PT_WRITE ? PTE_W : 0) | (l->flags & PT_USER ? PTE_US : 0) |
			(l->flags & PT_EXEC ? 0 : PTE_NX),
	};

	return r;
}

/* Does the library's answer (@err, @leaf) say what the baseline's (@ok, @want) does? */
static bool same_answer(int err, const struct pt_leaf *leaf, bool ok, const struct ref_xlate *want)
{
	struct ref_xlate got;

	if (!ok)
		return err == PT_ENOTMAPPED;
	if (err != PT_OK)
		return false;
	got = ref_of_leaf(leaf);
	return got.frame == want->frame && got.size == want->size && got.attr == want->attr;
}

/*
 * Every address of @va: pt_translate, pt_translate_many and the baseline
 * all fail, or all succeed with the same frame, size and access rights
 * (and the library's two paths with the same struct pt_leaf).  Returns
 * the number of unmapped addresses; a disagreement is a failure.
 */
static uint64_t check_translate(const char *name, const struct pt_space *s, const uint64_t *va,
				unsigned n)
{
	uintptr_t off = (uintptr_t)B.mem - (uintptr_t)B.base;
	static struct pt_leaf many[XLATE_BATCH];
	static int many_err[XLATE_BATCH];
	uint64_t miss = 0, bad = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned j = i % XLATE_BATCH;
		struct ref_xlate want;
		struct pt_leaf leaf;
		bool ok = ref_walk(off, s->root_pa, s->levels, va[i], &want);
		int err = pt_translate(s, va[i], &leaf);

		if (!j && pt_translate_many(s, va + i, n - i < XLATE_BATCH ? n - i : XLATE_BATCH,
					    many, many_err) != PT_OK)
			die("pt_translate_many", PT_EINVAL);
		miss += !ok;
		if (same_answer(err, &leaf, ok, &want) && many_err[j] == err &&
		    (err || !memcmp(&many[j], &leaf, sizeof(leaf))))
			continue;
		if (!bad++)
			fprintf(stderr, "bench: %s: va 0x%" PRIx64 ": the library and the baseline "
				"disagree\n", name, va[i]);
	}
	if (bad)
		failures++;
	return miss;
}

static volatile uint64_t sink;

/* One sample of pt_translate over @va: ns per lookup. */
static double sample_one(const struct pt_space *s, const uint64_t *va, unsigned n)
{
	uint64_t t = 0, calls = 0;

	while (t < BENCH_SAMPLE_NS) {
		uint64_t t0 = now_ns(), acc = 0;
		struct pt_leaf leaf;

		for (unsigned i = 0; i < n; i++)
			if (pt_translate(s, va[i], &leaf) == PT_OK)
				acc += leaf.pa ^ leaf.size ^ leaf.flags;
		t += now_ns() - t0;
		calls += n;
		sink = acc;
	}
	return (double)t / (double)calls;
}

/* One sample of pt_translate_many over @va, XLATE_BATCH addresses a call. */
static double sample_many(const struct pt_space *s, const uint64_t *va, unsigned n)
{
	static struct pt_leaf leaf[XLATE_BATCH];
	static int err[XLATE_BATCH];
	uint64_t t = 0, calls = 0;

	while (t < BENCH_SAMPLE_NS) {
		uint64_t t0 = now_ns(), acc = 0;

		for (unsigned i = 0; i < n; i += XLATE_BATCH) {
			unsigned m = n - i < XLATE_BATCH ? n - i : XLATE_BATCH;

			pt_translate_many(s, va + i, m, leaf, err);
			/* a failed lookup's leaf is all zero */
			for (unsigned j = 0; j < m; j++)
				acc += leaf[j].pa ^ leaf[j].size ^ leaf[j].flags;
		}
		t += now_ns() - t0;
		calls += n;
		sink = acc;
	}
	return (double)t / (double)calls;
}

/* One sample of the baseline walk over @va. */
static double sample_ref(const struct pt_space *s, const uint64_t *va, unsigned n)
{
	uintptr_t off = (uintptr_t)B.mem - (uintptr_t)B.base;
	uint64_t t = 0, calls = 0, root = s->root_pa;
	unsigned levels = s->levels;

	while (t < BENCH_SAMPLE_NS) {
		uint64_t t0 = now_ns(), acc = 0;

		for (unsigned i = 0; i < n; i++) {
			struct ref_xlate x;

			if (ref_walk(off, root, levels, va[i], &x))
				acc += x.frame ^ x.size ^ x.attr;
		}
		t += now_ns() - t0;
		calls += n;
		sink = acc;
	}
	return (double)t / (double)calls;
}

/*
 * Look up every address of @va (n of them) with pt_translate, with
 * pt_translate_many and with the baseline walk, taking turns, at least
 * @reps times and at most @reps_max, until both paired ratios' spreads are
 * within SPREAD_GOAL; every answer is compared first.
 */
static void run_translate(const char *name, const struct pt_space *s, const uint64_t *va,
			  unsigned n, unsigned reps, unsigned reps_max, struct xlate_result *r)
{
	static double t1[REPS_MAX], tm[REPS_MAX], tw[REPS_MAX];
	unsigned k;

	r->unmapped = check_translate(name, s, va, n);
	for (k = 0; k < reps_max; k++) {
		t1[k] = sample_one(s, va, n);
		tm[k] = sample_many(s, va, n);
		tw[k] = sample_ref(s, va, n);
		if (k + 1 < reps)
			continue;
		r->one_ref = paired(t1, tw, k + 1);
		r->many_ref = paired(tm, tw, k + 1);
		if (spread(r->one_ref) <= SPREAD_GOAL && spread(r->many_ref) <= SPREAD_GOAL) {
			k++;
			break;
		}
	}
	r->reps = k;
	r->one = stat_of(t1, k);
	r->many = stat_of(tm, k);
	r->ref = stat_of(tw, k);
	printf("%s: %u addresses, %" PRIu64 " of them unmapped\n", name, n, r->unmapped);
	printf("  %-17s median %8.2f ns/lookup  min %8.2f  max %8.2f\n", "pt_translate",
	       r->one.med, r->one.min, r->one.max);
	printf("  %-17s median %8.2f ns/lookup  min %8.2f  max %8.2f\n", "pt_translate_many",
	       r->many.med, r->many.min, r->many.max);
	printf("  %-17s median %8.2f ns/lookup  min %8.2f  max %8.2f\n", "baseline walk",
	       r->ref.med, r->ref.min, r->ref.max);
	printf("  ratios   paired, median (spread) of %u repetitions: pt_translate/walk %.2f "
	       "(%.1f %%)  pt_translate_many/walk %.2f (%.1f %%)\n", r->reps, r->one_ref.med,
	       100 * spread(r->one_ref), r->many_ref.med, 100 * spread(r->many_ref));
}

/*
 * The lookup table set: leaves of every size with different permissions
 * and cache types, and gaps at every level.
 */
struct region {
	uint64_t va, len;
	unsigned flags;
	enum pt_page_size size;
};

static const struct region xlate_regions[] = {
	{ VA0,                    64 * MiB, PT_WRITE, PT_PAGE_4K },
	{ VA0 + 64 * MiB,         15 * MiB, PT_WRITE | PT_USER, PT_PAGE_4K },
	{ VA0 + 1 * GiB,           1 * GiB, PT_EXEC, PT_PAGE_2M },
	{ VA0 + 2 * GiB,         510 * MiB, PT_WRITE | PT_CACHE(PT_CACHE_UC), PT_PAGE_2M },
	{ VA0 + 4 * GiB,           4 * GiB, PT_WRITE | PT_GLOBAL, PT_PAGE_1G },
	{ VA0 + 8 * GiB,           2 * GiB, PT_CACHE(PT_CACHE_WT), PT_PAGE_1G },
};
/*
 * Unmapped: not present at the root, in a PDPT, in a PD and in a PT; the
 * last one only in a 5-level space (not present in its root, and not
 * canonical with 4 levels).
 */
static const struct region xlate_holes[] = {
	{ VA0 + 512 * GiB,        64 * GiB, 0, 0 },
	{ VA0 + 16 * GiB,         16 * GiB, 0, 0 },
	{ VA0 + 2 * GiB + 510 * MiB, 2 * MiB, 0, 0 },
	{ VA0 + 79 * MiB,          1 * MiB, 0, 0 },
	{ VA0 + 80 * MiB,        944 * MiB, 0, 0 },
	{ UINT64_C(1) << 48,      64 * GiB, 0, 0 },
};
#define XLATE_UNMAPPED_PERCENT 10u

static void build_xlate_space(struct pt_space *s, unsigned levels)
{
	int err = pt_create(s, B.env, levels);

	if (err)
		die("translate: pt_create", err);
	for (unsigned i = 0; i < sizeof(xlate_regions) / sizeof(xlate_regions[0]); i++) {
		const struct region *g = &xlate_regions[i];

		err = pt_map(s, g->va, PA0 + (g->va - VA0), g->len, g->flags, g->size, NULL);
		if (err)
			die("translate: map", err);
	}
}

static void fill_xlate_addresses(uint64_t *va, unsigned n, unsigned levels)
{
	const unsigned nm = sizeof(xlate_regions) / sizeof(xlate_regions[0]);
	const unsigned nh = sizeof(xlate_holes) / sizeof(xlate_holes[0]) - (levels == 4);

	for (unsigned i = 0; i < n; i++) {
		const struct region *g = rand64() % 100 < XLATE_UNMAPPED_PERCENT ?
			&xlate_holes[rand64() % nh] : &xlate_regions[rand64() % nm];

		va[i] = g->va + rand64() % g->len;
	}
}

static void fill_addresses(uint64_t *va, unsigned n, uint64_t len)
{
	for (unsigned i = 0; i < n; i++)
		va[i] = VA0 + (rand64() % len);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The goal's lookup cases (bench.h). */
const struct xl_goal_case xl_case[XL_GOAL_CASES] = {
	{ "translate4_random", "4K/2M/1G leaves, 10% unmapped, 4 levels, random order" },
	{ "translate4_seq", "same, ascending order" },
	{ "translate5_random", "same, 5 levels, random order" },
	{ "translate5_seq", "same, 5 levels, ascending order" },
};

/* The largest paired pt_translate_many/walk ratio of @r, with its spread. */
struct ratio worst_ratio(const struct xlate_result *r, unsigned n)
{
	struct ratio w = r[0].many_ref;

	for (unsigned i = 1; i < n; i++)
		if (r[i].many_ref.med > w.med)
			w = r[i].many_ref;
	return w;
}

static void run_mixed(uint64_t *va, struct xlate_result r[XL_GOAL_CASES])
{
	struct pt_space s;

	for (unsigned levels = 4; levels <= 5; levels++) {
		unsigned c = levels == 4 ? XL_4_RANDOM : XL_5_RANDOM;

		frames_rewind();
		build_xlate_space(&s, levels);
		fill_xlate_addresses(va, NTRANSLATE, levels);
		run_translate(xl_case[c].name, &s, va, NTRANSLATE, BENCH_REPS, REPS_MAX, &r[c]);
		qsort(va, NTRANSLATE, sizeof(*va), cmp_u64);
		run_translate(xl_case[c + 1].name, &s, va, NTRANSLATE, BENCH_REPS, REPS_MAX,
			      &r[c + 1]);
		printf("  tables   %" PRIu64 " (%.1f KiB)\n\n", pt_table_count(&s),
		       (double)(pt_table_count(&s) * PT_PAGE_SIZE) / (double)KiB);
		pt_destroy(&s);
	}
}

/* ---- main ------------------------------------------------------------------------------ */

static const struct map_case cases[] = {
	{ "map1g_4k", "1 GiB, 4 KiB leaves", VA0, PA0, GiB, PT_PAGE_4K },
	{ "map64g_2m", "64 GiB, 2 MiB leaves", VA0, PA0, 64 * GiB, PT_PAGE_2M },
	{ "map1t_1g", "1 TiB, 1 GiB leaves", VA0, PA0, TiB, PT_PAGE_1G },
	/* start 1 MiB past a 2 MiB boundary, so the end is off one too */
	{ "map1g_mixed", "1 GiB, ends off 2 MiB", VA0 + MiB, PA0 + MiB, GiB, PT_PAGE_1G },
	{ "map64g_4k", "64 GiB, 4 KiB leaves", VA0, PA0, 64 * GiB, PT_PAGE_4K },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* The range sweep for the plot. */
static struct sweep sw[3] = {
	{ "4 KiB leaves", PT_PAGE_4K,
	  { 2 * MiB, 16 * MiB, 128 * MiB, GiB, 8 * GiB, 64 * GiB }, 6, { { 0 } } },
	{ "2 MiB leaves", PT_PAGE_2M,
	  { 64 * MiB, 512 * MiB, 4 * GiB, 32 * GiB, 256 * GiB }, 5, { { 0 } } },
	{ "1 GiB leaves", PT_PAGE_1G,
	  { 4 * GiB, 32 * GiB, 256 * GiB, TiB, 4 * TiB }, 5, { { 0 } } },
};
#define NSWEEP (sizeof(sw) / sizeof(sw[0]))

/* What a run measured: the map cases, the lookups and the plot's lookup rows. */
static struct {
	struct map_result res[NCASES], cb_res;
	struct xlate_result mixed[XL_GOAL_CASES], cached, cached_cb, spread64;
	struct lookup_row row[XL_GOAL_CASES + 3];
	unsigned nrow;
} run;

struct opts {
	const char *md_path, *svg_path;
	bool maps_only, lookups_only;
};

/* Returns 0, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--md") && i + 1 < argc) {
			o->md_path = argv[++i];
		} else if (!strcmp(argv[i], "--svg") && i + 1 < argc) {
			o->svg_path = argv[++i];
		} else if (!strcmp(argv[i], "--maps")) {
			o->maps_only = true;
		} else if (!strcmp(argv[i], "--lookups") && !SCALAR) {
			o->lookups_only = true;
		} else {
			fprintf(stderr, "usage: %s [--md FILE] [--svg FILE] [--maps | --lookups]\n"
				"  --maps     the map cases only (no lookups, no sweep, no goal lines)\n"
				"  --lookups  the lookup goal's cases and its goal line only\n",
				argv[0]);
			return 2;
		}
	}
	return 0;
}

/* @len of 4 KiB pages mapped at VA0, looked up at @va (filled when @fill), into @r. */
static void run_lookup_case(const char *name, uint64_t *va, uint64_t len, bool fill,
			    unsigned reps, struct xlate_result *r)
{
	struct pt_space s;

	frames_rewind();
	new_space(&s);
	if (pt_map(&s, VA0, PA0, len, PT_WRITE, PT_PAGE_4K, NULL))
		die(name, PT_EINVAL);
	if (fill)
		fill_addresses(va, NTRANSLATE, len);
	run_translate(name, &s, va, NTRANSLATE, reps, reps, r);
	pt_destroy(&s);
	printf("\n");
}

/* The lookups beside the goal's: cached (and with the callback env) and spread. */
static void run_lookups(uint64_t *va)
{
	/* the goal's cases: every leaf size, 10% unmapped, 4 and 5 levels */
	run_mixed(va, run.mixed);

	/* cached: 2 MiB of 4 KiB pages, one PT */
	run_lookup_case("translate_cached (2 MiB of 4 KiB pages)", va, 2 * MiB, true, BENCH_REPS,
			&run.cached);
	use_env(false);
	run_lookup_case("translate_cached (callback env)", va, 2 * MiB, false, BENCH_REPS,
			&run.cached_cb);
	use_env(true);

	/* spread: 64 GiB of 4 KiB pages, 32768 PTs (128 MiB of tables, cache misses) */
	run_lookup_case("translate_spread (64 GiB of 4 KiB pages)", va, 64 * GiB, true, 5,
			&run.spread64);
	for (unsigned c = 0; c < XL_GOAL_CASES; c++)
		run.row[run.nrow++] = (struct lookup_row){ xl_case[c].what, &run.mixed[c], XLATE_GOAL };
	run.row[run.nrow++] = (struct lookup_row){ "2 MiB of 4 KiB pages (cached), random",
						   &run.cached, 0 };
	run.row[run.nrow++] = (struct lookup_row){ "same, callback env (phys_to_virt per level)",
						   &run.cached_cb, 0 };
	run.row[run.nrow++] = (struct lookup_row){ "64 GiB of 4 KiB pages (128 MiB of tables), random",
						   &run.spread64, 0 };
}

/* The sweep for the plot: ns per 4 KiB page of every side, every range. */
static void run_sweep(void)
{
	for (unsigned i = 0; i < NSWEEP; i++)
		for (unsigned j = 0; j < sw[i].n; j++) {
			struct map_case c = { "sweep", sw[i].label, VA0, PA0, sw[i].len[j], sw[i].size };
			struct map_result r;
			/* the per-page mapper on 64 GiB of 4 KiB pages takes 70 ms a call */
			bool pp = sw[i].len[j] / pt_level_size(sw[i].size) <= (UINT64_C(1) << 22);

			run_map_case(&c, &r, SWEEP_REPS, SWEEP_REPS, pp);
			for (unsigned k = 0; k < SIDE_COUNT; k++)
				sw[i].ns[k][j] = r.t[k].med / (double)(c.len / PT_PAGE_SIZE);
		}
}

int main(int argc, char **argv)
{
	static const struct map_case cb_case = {
		"map1g_4k_callback", "1 GiB, 4 KiB leaves, callback env (phys_to_virt, zeroed frames)",
		VA0, PA0, GiB, PT_PAGE_4K
	};
	struct opts o = { NULL, NULL, false, false };
	uint64_t *va;
	/* 64 GiB of 4 KiB pages: 32768 PTs + 64 PDs + 1 PDPT + root, and slack */
	uint64_t frames = 32768 + 64 + 2 + 1024;
	int err = parse_args(argc, argv, &o);

	if (err)
		return err;
	bench_init(frames, frames * PT_PAGE_SIZE);
	printf("bench: %s build; %u to %u repetitions per case (until every paired ratio's "
	       "spread is within %.0f %%), each sample >= %.0f ms; "
	       "arena %" PRIu64 " frames (%.1f MiB)\n", BUILD_NAME, BENCH_REPS, REPS_MAX,
	       100 * SPREAD_GOAL,
	       (double)BENCH_SAMPLE_NS / 1e6, frames, (double)B.size / (double)MiB);
	printf("bench: times are per call; ns/page is per 4 KiB page of the range; "
	       "wide_stores %s\n\n", B.env_fast.wide_stores ? "on (AVX2)" : "off");

	use_env(true);
	va = malloc(NTRANSLATE * sizeof(*va));
	if (!va)
		return 1;
	if (o.lookups_only) {
		run_mixed(va, run.mixed);
		goal("translate_vs_walk", worst_ratio(run.mixed, XL_GOAL_CASES), "<=", XLATE_GOAL);
		return failures ? 1 : 0;
	}
	for (unsigned i = 0; i < NCASES; i++) {
		run_map_case(&cases[i], &run.res[i], BENCH_REPS, REPS_MAX, true);
		print_map_result(&cases[i], &run.res[i]);
		printf("\n");
	}
	if (!SCALAR && !o.maps_only) {
		use_env(false);
		run_map_case(&cb_case, &run.cb_res, BENCH_REPS, BENCH_REPS, true);
		print_map_result(&cb_case, &run.cb_res);
		printf("\n");
		use_env(true);
		run_lookups(va);
		run_sweep();
	}
	free(va);
	err = report(o.md_path, o.svg_path, o.maps_only, cases, run.res, NCASES, sw, NSWEEP,
		     run.row, run.nrow);
	if (err)
		return err;
	if (!o.maps_only)
		report_goals(run.res, &run.cb_res, run.mixed, &run.cached);
	free(B.mem);
	free(B.ref);
	free(B.bitmap);
	return failures ? 1 : 0;
}
