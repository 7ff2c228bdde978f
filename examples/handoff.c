/* SPDX-License-Identifier: MIT */
/*
 * Kernel hand-off with the ptlab library alone: the page tables a loader
 * builds before jumping to a higher-half kernel.
 *
 *   identity  [4 KiB, 64 MiB)             RW, NX   (page 0 left out: null guard)
 *   HHDM      0xffff800000000000 + [0, 64 MiB)   RW, NX
 *   kernel    0xffffffff80000000:
 *             +0 MiB   text    2 MiB   RX, global
 *             +2 MiB   rodata  1 MiB   R,  NX, global
 *             +3 MiB   data    1 MiB   RW, NX, global
 *             loaded at physical 16 MiB
 *
 * Everything the library needs comes from this file: a frame allocator
 * over a static array (the tables' "physical memory"), phys_to_virt into
 * that array, MAXPHYADDR, 1 GiB support and the PAT layout.  Only the
 * public API (<ptlab/ptlab.h>) is used.
 *
 * The building part is freestanding C: it is compiled with the firmware's
 * flags (no C library, no firmware headers) to prove it embeds.  Hosted
 * builds also get main(), which builds the tables, prints each leaf and
 * the table counts, checks sample addresses with pt_translate, tears the
 * tables down and exits non-zero on any mismatch.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ptlab/ptlab.h>

#define MIB             (UINT64_C(1) << 20)
#define RAM_SIZE        (64 * MIB)
#define KERNEL_PA       (16 * MIB)
#define KERNEL_VA       PT_IMAGE_BASE
#define TEXT_LEN        (2 * MIB)
#define RODATA_LEN      (1 * MIB)
#define DATA_LEN        (1 * MIB)

/*
 * The frames page tables are built in.  A loader would take them from RAM
 * it owns; here they are a static array that pretends to sit at physical
 * POOL_PA.  phys_to_virt is the only way the library reaches them.
 */
#define POOL_FRAMES     32u
#define POOL_PA         (UINT64_C(0x3f000000))

struct pool {
	uint8_t (*mem)[4096];
	uint64_t next;                  /* frames handed out so far, bump order */
	uint64_t free_list[POOL_FRAMES];
	unsigned nfree;
	unsigned in_use;
};

static uint8_t pool_mem[POOL_FRAMES][4096] __attribute__((aligned(4096)));

static void *pool_p2v(void *ctx, uint64_t pa)
{
	struct pool *p = ctx;

	if (pa < POOL_PA || pa >= POOL_PA + POOL_FRAMES * UINT64_C(4096))
		return NULL;    /* never a table of ours: the library gets no pointer */
	return p->mem[(pa - POOL_PA) / 4096];
}

static int pool_alloc(void *ctx, uint64_t *pa)
{
	struct pool *p = ctx;
	uint64_t *words;
	unsigned i;

	if (p->nfree)
		*pa = p->free_list[--p->nfree];
	else if (p->next < POOL_FRAMES)
		*pa = POOL_PA + 4096 * p->next++;
	else
		return PT_ENOMEM;
	/* The library expects zeroed frames. */
	words = pool_p2v(ctx, *pa);
	for (i = 0; i < 512; i++)
		words[i] = 0;
	p->in_use++;
	return PT_OK;
}

static void pool_free(void *ctx, uint64_t pa)
{
	struct pool *p = ctx;

	p->free_list[p->nfree++] = pa;
	p->in_use--;
}

struct handoff {
	struct pool pool;
	struct pt_env env;
	struct pt_space space;
};

/* One mapping of the hand-off layout. */
struct handoff_map {
	const char *name;
	uint64_t va, pa, len;
	unsigned flags;
};

static const struct handoff_map handoff_maps[] = {
	{ "identity", 0x1000, 0x1000, RAM_SIZE - 0x1000, PT_WRITE },
	{ "hhdm", PT_HHDM_BASE, 0, RAM_SIZE, PT_WRITE },
	{ "kernel text", KERNEL_VA, KERNEL_PA, TEXT_LEN, PT_EXEC | PT_GLOBAL },
	{ "kernel rodata", KERNEL_VA + TEXT_LEN, KERNEL_PA + TEXT_LEN, RODATA_LEN, PT_GLOBAL },
	{ "kernel data", KERNEL_VA + TEXT_LEN + RODATA_LEN,
	  KERNEL_PA + TEXT_LEN + RODATA_LEN, DATA_LEN, PT_WRITE | PT_GLOBAL },
};

#define HANDOFF_NMAPS (sizeof(handoff_maps) / sizeof(handoff_maps[0]))

/*
 * Build the hand-off tables in @h.  Returns PT_OK, or the failing call's
 * error with @h's space destroyed again (no frame left in use).
 */
static int handoff_build(struct handoff *h)
{
	unsigned i;
	int err;

	h->pool.mem = pool_mem;
	h->pool.next = 0;
	h->pool.nfree = 0;
	h->pool.in_use = 0;

	h->env.ctx = &h->pool;
	h->env.alloc_frame = pool_alloc;
	h->env.free_frame = pool_free;
	h->env.phys_to_virt = pool_p2v;
	h->env.flush = NULL;            /* not live yet: nothing to invalidate */
	h->env.maxphyaddr = 46;
	h->env.has_1g = true;
	pt_pat_default(&h->env.pat);

	err = pt_env_check(&h->env);
	if (err)
		return err;
	err = pt_create(&h->space, &h->env, 4);
	if (err)
		return err;
	for (i = 0; i < HANDOFF_NMAPS; i++) {
		const struct handoff_map *m = &handoff_maps[i];

		err = pt_map(&h->space, m->va, m->pa, m->len, m->flags, PT_PAGE_1G, NULL);
		if (err) {
			pt_destroy(&h->space);
			return err;
		}
	}
	return PT_OK;
}

#if __STDC_HOSTED__
#include <inttypes.h>
#include <stdio.h>

static unsigned passed, failed;

static void check(bool ok, const char *what, uint64_t va)
{
	if (ok)
		passed++;
	else
		failed++;
	printf("%s - %s at 0x%016" PRIx64 "\n", ok ? "ok" : "not ok", what, va);
}

/* A run of leaves of one size and one set of flags, contiguous in va and pa. */
struct run {
	struct pt_leaf first;
	uint64_t count;
};

static void print_run(const struct run *r)
{
	static const char *const size[] = { "4K", "2M", "1G" };
	const struct pt_leaf *l = &r->first;

	if (!r->count)
		return;
	printf("# leaves %4" PRIu64 " x %s va 0x%016" PRIx64 " -> pa 0x%010" PRIx64 " R%c%c%c\n",
	       r->count, size[l->level], l->va, l->pa, l->flags & PT_WRITE ? 'W' : '-',
	       l->flags & PT_EXEC ? 'X' : '-', l->flags & PT_GLOBAL ? 'G' : '-');
}

static int print_leaf(void *arg, const struct pt_leaf *l)
{
	struct run *r = arg;
	uint64_t off = r->count * r->first.size;

	if (r->count && l->level == r->first.level && l->flags == r->first.flags &&
	    l->va == r->first.va + off && l->pa == r->first.pa + off) {
		r->count++;
		return 0;
	}
	print_run(r);
	r->first = *l;
	r->count = 1;
	return 0;
}

/* @va must translate to @pa with exactly @flags. */
static void expect(const struct pt_space *s, const char *what, uint64_t va,
		   uint64_t pa, unsigned flags)
{
	struct pt_leaf l;
	int err = pt_translate(s, va, &l);

	if (err) {
		printf("# %s: %s\n", what, pt_strerror(err));
		check(false, what, va);
		return;
	}
	if (l.pa != pa || (l.flags & PT_ATTR_MASK) != flags)
		printf("# %s: pa 0x%" PRIx64 " flags 0x%x, want pa 0x%" PRIx64 " flags 0x%x\n",
		       what, l.pa, l.flags, pa, flags);
	check(l.pa == pa && (l.flags & PT_ATTR_MASK) == flags, what, va);
}

static void expect_unmapped(const struct pt_space *s, const char *what, uint64_t va)
{
	struct pt_leaf l;

	check(pt_translate(s, va, &l) == PT_ENOTMAPPED, what, va);
}

int main(void)
{
	static struct handoff h;
	const struct pt_space *s = &h.space;
	struct run run = { .count = 0 };
	uint64_t k = KERNEL_VA;
	int err;

	err = handoff_build(&h);
	if (err) {
		printf("not ok - build: %s\n", pt_strerror(err));
		printf("handoff: 0 passed, 1 failed\n");
		return 1;
	}
	pt_visit(s, 0, 0, print_leaf, &run);
	print_run(&run);
	printf("# tables: pml4 %" PRIu64 " pdpt %" PRIu64 " pd %" PRIu64 " pt %" PRIu64
	       " total %" PRIu64 ", frames in use %u\n",
	       s->stats.tables[3], s->stats.tables[2], s->stats.tables[1],
	       s->stats.tables[0], pt_table_count(s), h.pool.in_use);
	printf("# leaves: 4K %" PRIu64 " 2M %" PRIu64 " 1G %" PRIu64 "\n",
	       s->stats.leaves[0], s->stats.leaves[1], s->stats.leaves[2]);

	expect_unmapped(s, "null page unmapped", 0);
	expect_unmapped(s, "null page end unmapped", 0xfff);
	expect(s, "identity first page", 0x1000, 0x1000, PT_WRITE);
	expect(s, "identity last byte", RAM_SIZE - 1, RAM_SIZE - 1, PT_WRITE);
	expect_unmapped(s, "identity ends at 64 MiB", RAM_SIZE);
	expect(s, "hhdm of page 0", PT_HHDM_BASE, 0, PT_WRITE);
	expect(s, "hhdm of the kernel", PT_HHDM_BASE + KERNEL_PA + 5, KERNEL_PA + 5, PT_WRITE);
	expect_unmapped(s, "hhdm ends at 64 MiB", PT_HHDM_BASE + RAM_SIZE);
	expect(s, "kernel text", k + 0x1234, KERNEL_PA + 0x1234, PT_EXEC | PT_GLOBAL);
	expect(s, "kernel rodata", k + TEXT_LEN, KERNEL_PA + TEXT_LEN, PT_GLOBAL);
	expect(s, "kernel data", k + TEXT_LEN + RODATA_LEN + 8,
	       KERNEL_PA + TEXT_LEN + RODATA_LEN + 8, PT_WRITE | PT_GLOBAL);
	expect_unmapped(s, "kernel ends after data", k + TEXT_LEN + RODATA_LEN + DATA_LEN);
	expect_unmapped(s, "below the kernel", k - 1);
	/* identity: 2 MiB..64 MiB in 2 MiB leaves, the first 2 MiB in 4 KiB ones */
	/* 4 KiB leaves only where 2 MiB ones cannot go: next to the null page
	 * and in the kernel's 1 MiB rodata and data; no 1 GiB leaf fits */
	check(s->stats.leaves[0] == 511 + 512 && s->stats.leaves[1] == 31 + 32 + 1 &&
	      s->stats.leaves[2] == 0, "leaf sizes: 1023 x 4K, 64 x 2M", 0);
	/* pml4, one pdpt + pd each for low, hhdm and kernel, one pt for the
	 * null page, one for the kernel's 1 MiB parts */
	check(pt_table_count(s) == 1 + 3 * 2 + 2 && h.pool.in_use == pt_table_count(s),
	      "tables: 9, all from the pool", 0);

	pt_destroy(&h.space);
	check(h.pool.in_use == 0, "every frame returned after pt_destroy", 0);

	printf("handoff: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
#else
/* Freestanding builds: the entry point a loader would call. */
int handoff_entry(uint64_t *root_pa);

int handoff_entry(uint64_t *root_pa)
{
	static struct handoff h;
	int err = handoff_build(&h);

	if (!err)
		*root_pa = h.space.root_pa;
	return err;
}
#endif
