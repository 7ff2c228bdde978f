/* SPDX-License-Identifier: MIT */
/* covers: efi/checks/churn.c efi/checks/churnjudge.c efi/checks/churntype.c */
/*
 * The machine's churn (efi/checks/churn.c with churnjudge.c and churntype.c,
 * linked from the host archive as they are) on the host, against a software MMU.
 *
 * What only the machine has is stood in for here, at the churn's link
 * seams (trap.h's probes; flush.h's ptlab_flush, ptlab_invlpg and
 * ptlab_wbinvd; ram.h's ptlab_is_ram; live.h's ptlab_deadline_passed;
 * inject.h's inject_begin and inject_end, the entry of the check they name and
 * registry.h's check_run_of, which makes the run's view they are given):
 *  - the fault probes translate with pt_translate on p->build.space (the
 *    effective flags) and raise #PF the way the CPU does: error 0 for an unmapped page
 *    (|W for writes, |I/D for fetches), 3 for a write to a read-only page,
 *    0x11 for a fetch from an NX page, CR2 = the address.  Accesses that
 *    translate are performed on the arena, which stands for physical memory
 *    at ARENA_BASE; a fetch executes only a 'ret' (0xC3);
 *  - an optional TLB: one entry per 4 KiB page, filled on access and
 *    dropped by ptlab_flush (the listed ranges, or all of it) and invlpg.
 *    Without it every access walks the tables, so a missing invalidation
 *    cannot be seen.  It caches leaf translations only (no paging-structure
 *    caches) and a hash collision evicts, where a CPU may keep more; but
 *    dropping a page never drops its neighbours in a large page, where a
 *    CPU may drop more;
 *  - ptlab_flush and ptlab_invlpg (privileged on the machine), ptlab_wbinvd
 *    (counted), ptlab_is_ram (the arena is the only RAM);
 *  - inject_begin and inject_end (--inject's faults, efi/checks/inject.c, plant
 *    on the machine's tables): the host runs plant nothing.
 * The report is the real one (efi/report/report.c) in a buffer.
 *
 * Physical layout (the arena, 16 MiB at ARENA_BASE, which is GiB aligned):
 *   [ARENA_BASE, +8 MiB)          the table frame pool (p->build.frames)
 *   [ARENA_BASE + 8 MiB, +8 MiB)  the data area, 2 MiB aligned
 *   [ARENA_BASE + 16 MiB, +64 KiB) the typed window (the only non-WB frames)
 * big_pa = ARENA_BASE: 1 GiB leaves map the GiB holding the data area, most
 * of which is no RAM here, so the churn only reads the arena part of it.
 * The HHDM of the arena is mapped as in the app (PT_HHDM_BASE + pa).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

#include "../../efi/checks/churn.h"
#include "../../efi/checks/inject.h"
#include "../../efi/checks/ram.h"
#include "../../efi/report/report.h"
#include "../../efi/state/state.h"
#include "../../efi/live/live.h"
#include "../../efi/cpu/trap.h"

#include "unit.h"

/* The churn's scratch windows (churnctx.h). */
#define WINDOW PTLAB_SCRATCH_BYTES
static const uint64_t window_base[2] = { PTLAB_SCRATCH_LOW, PTLAB_SCRATCH_HIGH };

/* wbinvd is privileged: counted instead (the seam ptlab_wbinvd) */
static unsigned long sim_wbinvd;

#define POOL_BYTES   (8 * UINT64_C(1) << 20)
#define DATA_BYTES   (8 * UINT64_C(1) << 20)
#define TYPED_BYTES  (64 * UINT64_C(1) << 10)
#define ARENA_FRAMES ((POOL_BYTES + DATA_BYTES + TYPED_BYTES) / PT_PAGE_SIZE)
#define REPORT_BYTES 16384u
#define DEFAULT_OPS  20000u
#define SHORT_OPS    5000u

#define TLB_BITS  16u
#define TLB_SLOTS (1u << TLB_BITS)

struct tlb_entry {
	uint64_t vpn;         /* va >> 12 */
	uint64_t pfn;         /* pa >> 12 */
	unsigned flags;       /* effective PT_* flags */
	bool valid;
};

struct sim {
	struct arena a;
	struct ptlab p;
	struct report rep;
	char buf[REPORT_BYTES];
	uint64_t *pool_bitmap;
	uint64_t tables_start, frames_start;   /* before churn_start */
	bool tlb_on;
	uint64_t tlb_hits, tlb_fills, flushes, invlpgs;
};

static struct sim *sim;
static struct tlb_entry tlb[TLB_SLOTS];

/* ---- the software MMU ---- */

static struct tlb_entry *tlb_slot(uint64_t vpn)
{
	return &tlb[(vpn * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - TLB_BITS)];
}

static void tlb_drop(uint64_t va)
{
	struct tlb_entry *e = tlb_slot(va >> PT_PAGE_SHIFT);

	if (e->valid && e->vpn == va >> PT_PAGE_SHIFT)
		e->valid = false;
}

static void tlb_drop_range(uint64_t va, uint64_t len)
{
	uint64_t first = va >> PT_PAGE_SHIFT, pages = len >> PT_PAGE_SHIFT;

	if (pages > TLB_SLOTS) {
		for (unsigned i = 0; i < TLB_SLOTS; i++)
			if (tlb[i].valid && tlb[i].vpn - first < pages)
				tlb[i].valid = false;
		return;
	}
	for (uint64_t i = 0; i < pages; i++)
		tlb_drop((first + i) << PT_PAGE_SHIFT);
}

/* invlpg is privileged: the seam ptlab_invlpg drops the software TLB's entry. */
void ptlab_invlpg(uint64_t va)
{
	sim->invlpgs++;
	tlb_drop(va);
}

void ptlab_wbinvd(void)
{
	sim_wbinvd++;
}

/* --inject's faults are planted on the machine only (efi/checks/inject.c). */
void inject_begin(struct check_run *run, const struct ptlab_check *c, uint64_t arg)
{
	(void)run;
	(void)c;
	(void)arg;
}

void inject_end(struct check_run *run, const struct ptlab_check *c)
{
	(void)run;
	(void)c;
}

/*
 * The checks' view of the run the churn hands those hooks (registry.c on
 * the machine, which needs the mode and the live phases): the run's parts.
 */
struct check_run *check_run_of(struct ptlab *p, struct check_run *c)
{
	*c = (struct check_run){ .rep = p->rep, .opts = &p->opts, .cpu = &p->cpu,
				 .build = &p->build, .data = &p->data, .live = &p->live,
				 .wx = &p->wx, .inject = &p->inject, .t = &p->t,
				 .aborted = &p->aborted, .state = p };
	return c;
}

/* The memory-type audit's registry entry (efi/checks/elsewhere.c on the machine). */
const struct ptlab_check check_memory_types = {
	"memory types: the typed-window rule", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "typed-alias", "planted on the machine only", PTLAB_FAULT_HOOK, NULL, NULL },
};

/* The frame and effective flags for @va; false when not mapped. */
static bool mmu_translate(uint64_t va, uint64_t *pa, unsigned *flags)
{
	uint64_t vpn = va >> PT_PAGE_SHIFT;
	struct tlb_entry *e = tlb_slot(vpn);
	struct pt_leaf l;

	if (sim->tlb_on && e->valid && e->vpn == vpn) {
		sim->tlb_hits++;
		*pa = (e->pfn << PT_PAGE_SHIFT) | (va & (PT_PAGE_SIZE - 1));
		*flags = e->flags;
		return true;
	}
	if (pt_translate(&sim->p.build.space, va, &l) != PT_OK)
		return false;   /* not present: never cached */
	*pa = l.pa;
	*flags = l.flags;
	if (sim->tlb_on) {
		sim->tlb_fills++;
		*e = (struct tlb_entry){ .vpn = vpn, .pfn = l.pa >> PT_PAGE_SHIFT,
					 .flags = l.flags, .valid = true };
	}
	return true;
}

static bool in_arena(uint64_t pa, uint64_t len)
{
	return pa >= sim->a.base && pa - sim->a.base <= sim->a.size - len;
}

static void set_fault(struct trap_fault *f, uint32_t vector, uint64_t error, uint64_t cr2,
		      uint64_t rip)
{
	*f = (struct trap_fault){ .vector = vector, .error = error, .cr2 = cr2, .rip = rip };
}

/*
 * The checks the CPU makes for a supervisor access with CR0.WP and EFER.NXE
 * set; fills *@pa and returns 0, or fills *@f and returns 1.
 */
static int mmu_access(uint64_t va, bool write, bool fetch, uint64_t *pa, struct trap_fault *f)
{
	uint64_t kind = (write ? PF_ERR_W : 0) | (fetch ? PF_ERR_ID : 0);
	unsigned flags;

	if (!pt_canonical(va, 4)) {
		set_fault(f, TRAP_VEC_GP, 0, 0, 0);
		return 1;
	}
	if (!fetch && (va & (PT_PAGE_SIZE - 1)) > PT_PAGE_SIZE - 8)
		fail_msg("probe at 0x%llx crosses a page", (unsigned long long)va);
	if (!mmu_translate(va, pa, &flags)) {
		set_fault(f, TRAP_VEC_PF, kind, va, fetch ? va : 0);
		return 1;
	}
	if ((write && !(flags & PT_WRITE)) || (fetch && !(flags & PT_EXEC))) {
		set_fault(f, TRAP_VEC_PF, kind | PF_ERR_P, va, fetch ? va : 0);
		return 1;
	}
	set_fault(f, TRAP_VEC_NONE, 0, 0, 0);
	return 0;
}

static int sim_read64(uint64_t va, uint64_t *out, struct trap_fault *f)
{
	uint64_t pa;

	if (mmu_access(va, false, false, &pa, f))
		return 1;
	if (in_arena(pa, 8))
		memcpy(out, arena_p2v(&sim->a, pa), 8);
	else
		*out = UINT64_MAX;   /* no memory there: the bus reads all ones */
	return 0;
}

static int sim_write64(uint64_t va, uint64_t val, struct trap_fault *f)
{
	uint64_t pa;

	if (mmu_access(va, true, false, &pa, f))
		return 1;
	if (in_arena(pa, 8))
		memcpy(arena_p2v(&sim->a, pa), &val, 8);
	return 0;
}

static int sim_exec(uint64_t va, struct trap_fault *f)
{
	uint64_t pa;

	if (mmu_access(va, false, true, &pa, f))
		return 1;
	if (in_arena(pa, 1) && *(uint8_t *)arena_p2v(&sim->a, pa) == 0xc3)
		return 0;
	/* anything but a 'ret' would not come back: shown as #UD at @va */
	set_fault(f, TRAP_VEC_UD, 0, 0, va);
	return 1;
}

static void sim_flush(const struct pt_flushlist *fl)
{
	sim->flushes++;
	if (!sim->tlb_on)
		return;
	if (fl->all || fl->global) {
		memset(tlb, 0, sizeof(tlb));
		return;
	}
	for (unsigned i = 0; i < fl->n; i++)
		tlb_drop_range(fl->r[i].va, fl->r[i].len);
}

bool ptlab_is_ram(const struct pt_memmap *map, uint64_t pa)
{
	(void)map;
	return in_arena(pa & ~(PT_PAGE_SIZE - 1), PT_PAGE_SIZE);
}

/* No --timeout on the host: the deadline never passes. */
static bool sim_deadline_passed(const struct ptlab_time *t, const struct opts *o,
				struct report *rep, bool *aborted)
{
	(void)o;
	(void)rep;
	(void)aborted;
	return t->deadline && rdtsc() >= t->deadline;
}

/* the one definition of the seams (tests/seams.h), through these hooks */
#define UNREACHED(what) fail_msg("%s called: the churn does not use it", what)
#define SEAM_HOOKS { .flush = sim_flush, .deadline_passed = sim_deadline_passed, \
		     .probe_read64 = sim_read64, .probe_write64 = sim_write64, .probe_exec = sim_exec }
#include "../seams.h"

/* ---- the environment, as the app's (live/live.c) but over the arena ---- */

static int env_alloc(void *ctx, uint64_t *pa)
{
	return pt_frames_alloc(&((struct ptlab *)ctx)->build.frames, pa);
}

static void env_free(void *ctx, uint64_t pa)
{
	if (pt_frames_free_checked(&((struct ptlab *)ctx)->build.frames, pa) != PT_OK)
		fail_msg("bad free of 0x%llx", (unsigned long long)pa);
}

static void *env_p2v(void *ctx, uint64_t pa)
{
	(void)ctx;
	return arena_p2v(&sim->a, pa);
}

static void env_flush(void *ctx, const struct pt_flushlist *fl)
{
	(void)ctx;
	ptlab_flush(fl);   /* the tables are live for the whole churn */
}

static void sim_init(struct sim *s, uint64_t seed, uint64_t ops, enum opts_inject inject,
		     bool tlb_on)
{
	struct ptlab *p = &s->p;
	struct pt_range pool = { .va = ARENA_BASE, .len = POOL_BYTES };
	size_t bytes = pt_frames_bitmap_bytes(&pool, 1);

	memset(s, 0, sizeof(*s));
	memset(tlb, 0, sizeof(tlb));
	sim = s;
	s->tlb_on = tlb_on;
	arena_init(&s->a, ARENA_FRAMES);
	s->pool_bitmap = calloc(1, bytes);
	assert_non_null(s->pool_bitmap);
	assert_int_equal(pt_frames_init(&p->build.frames, &pool, 1, s->pool_bitmap, bytes,
					env_p2v, NULL), PT_OK);
	p->build.env = (struct pt_env){
		.ctx = p,
		.alloc_frame = env_alloc,
		.free_frame = env_free,
		.phys_to_virt = env_p2v,
		.flush = env_flush,
		.maxphyaddr = 46,
		.has_1g = true,
	};
	pt_pat_default(&p->build.env.pat);
	p->cpu.caps.pdpe1gb = true;
	p->cpu.caps.nx = true;
	p->build.levels = 4;
	/* the HHDM where the app's plan puts it; the churn reads it from the plan */
	p->build.plan.hhdm_base = PT_HHDM_BASE;
	p->opts.seed = seed;
	p->opts.iterations = ops;
	p->opts.inject = inject;
	report_init(&s->rep, s->buf, sizeof(s->buf));
	p->rep = &s->rep;
	p->data.pa = ARENA_BASE + POOL_BYTES;
	p->data.len = DATA_BYTES;
	p->data.big_pa = p->data.pa & ~(PT_SIZE_1G - 1);
	p->data.typed_pa = p->data.pa + DATA_BYTES;
	p->data.typed_len = TYPED_BYTES;
	sim_wbinvd = 0;
	assert_int_equal(p->data.big_pa, ARENA_BASE);
	assert_int_equal(pt_create(&p->build.space, &p->build.env, 4), PT_OK);
	assert_int_equal(pt_map(&p->build.space, PT_HHDM_BASE + ARENA_BASE, ARENA_BASE, s->a.size,
				PT_WRITE, PT_PAGE_2M, NULL), PT_OK);
	s->tables_start = pt_table_count(&p->build.space);
	s->frames_start = p->build.frames.in_use;
}

/* As app_run_churn: slices until done or failed, then the cleanup and its report. */
static void sim_run(struct sim *s)
{
	churn_start(&s->p);
	while (churn_running(&s->p))
		churn_slice(&s->p);
	churn_finish(&s->p);
	report_finish(&s->rep);
}

static void sim_fini(struct sim *s)
{
	pt_destroy(&s->p.build.space);
	free(s->pool_bitmap);
	arena_fini(&s->a);
	sim = NULL;
}

/* ---- reading the report ---- */

/* The line holding @needle (a copy, without '\n'), or NULL. */
static char *line_with(const char *buf, const char *needle, char *out, size_t size)
{
	const char *hit = strstr(buf, needle), *start, *end;

	if (!hit)
		return NULL;
	for (start = hit; start > buf && start[-1] != '\n'; start--)
		;
	end = strchr(hit, '\n');
	if (!end)
		end = hit + strlen(hit);
	if ((size_t)(end - start) >= size)
		fail_msg("report line too long");
	memcpy(out, start, (size_t)(end - start));
	out[end - start] = '\0';
	return out;
}

static uint64_t fact_value(const char *fact, const char *key)
{
	char k[64];
	const char *at;

	snprintf(k, sizeof(k), " %s=", key);
	at = strstr(fact, k);
	if (!at)
		fail_msg("no %s in '%s'", key, fact);
	return strtoull(at + strlen(k), NULL, 10);
}

static void print_report(const struct sim *s)
{
	print_message("%s", s->buf);
}

static void assert_churn_passed(const struct sim *s)
{
	char fact[512];

	if (strstr(s->buf, "not ok") || !strstr(s->buf, "\nok 1 - memory types: ") ||
	    !strstr(s->buf, "\nok 2 - churn: ")) {
		print_report(s);
		fail_msg("the churn did not pass");
	}
	assert_non_null(line_with(s->buf, "# churn: ", fact, sizeof(fact)));
	assert_true(fact_value(fact, "faults_expected") > 0);
	assert_int_equal(fact_value(fact, "faults_expected"), fact_value(fact, "faults_seen"));
	assert_true(fact_value(fact, "cpu_samples") > 0);
	assert_int_equal(pt_table_count(&s->p.build.space), s->tables_start);
	assert_int_equal(s->p.build.frames.in_use, s->frames_start);
}

/*
 * The injection @what was noted, and the next line is the churn's CPU
 * failure at that same op, with the replay hint; nothing ran after it.
 */
static void assert_caught_at_injection(const struct sim *s, const char *what)
{
	char note[512], failure[512], hint[160];
	struct churn_stats st;
	const char *next;
	unsigned long long op;

	if (!line_with(s->buf, what, note, sizeof(note))) {
		print_report(s);
		fail_msg("no injection noted");
	}
	next = strstr(s->buf, note) + strlen(note) + 1;
	if (strncmp(next, "not ok ", 7) != 0 || !line_with(next, "not ok ", failure, sizeof(failure)) ||
	    !strstr(failure, " - churn: cpu: ")) {
		print_report(s);
		fail_msg("the injection was not caught by the CPU side right away");
	}
	churn_stats(&s->p, &st);
	assert_true(st.failed && st.injected);
	op = st.op - 1;   /* churn_slice counts the op it stopped in */
	assert_true(op >= st.inject_at);
	assert_int_equal(op, st.inject_op);
	snprintf(hint, sizeof(hint), "(seed=%llu op=%llu; replay with --seed=%llu --iterations=%llu)",
		 (unsigned long long)s->p.opts.seed, op, (unsigned long long)s->p.opts.seed, op + 1);
	if (!strstr(failure, hint))
		fail_msg("'%s' lacks '%s'", failure, hint);
	/* the one failure, and no passing churn line after it */
	assert_int_equal(s->rep.failed, 1);
	assert_int_equal(s->rep.passed, 0);
}

/* ---- tests ---- */

/* A simulation's room, freed by the test (too large for the stack). */
static struct sim *sim_new(void)
{
	struct sim *s = malloc(sizeof(*s));

	assert_non_null(s);
	return s;
}

static void test_default_churn_passes(void **state)
{
	struct sim *s = sim_new();
	struct churn_stats st;

	(void)state;
	sim_init(s, 1, DEFAULT_OPS, OPTS_INJECT_NONE, false);
	sim_run(s);
	assert_churn_passed(s);
	churn_stats(&s->p, &st);
	assert_int_equal(st.op, DEFAULT_OPS);
	assert_true(st.maps > 0 && st.unmaps > 0 && st.protects > 0 && st.remaps > 0);
	assert_true(s->flushes > 0);
	sim_fini(s);
	free(s);
}

/*
 * Memory types: UC and WT leaves exist, but only on the typed window; the
 * data area and the foreign GiB stay write-back; the window is out of the
 * HHDM during the churn and back after; caches were written back.
 */
static int type_leaf(void *arg, const struct pt_leaf *l)
{
	uint64_t *n = arg;

	if (PT_CACHE_OF(l->flags) != PT_CACHE_WB) {
		n[0]++;
		if (l->pa < sim->p.data.typed_pa || l->pa + l->size > sim->p.data.typed_pa + sim->p.data.typed_len)
			n[1]++;
	}
	return 0;
}

static void test_memory_types_only_on_the_typed_window(void **state)
{
	struct sim *s = sim_new();
	char fact[512];
	uint64_t n[2] = { 0, 0 };
	struct pt_leaf l;

	(void)state;
	sim_init(s, 3, SHORT_OPS, OPTS_INJECT_NONE, false);
	churn_start(&s->p);
	assert_int_equal(pt_translate(&s->p.build.space, PT_HHDM_BASE + s->p.data.typed_pa, &l), PT_ENOTMAPPED);
	while (churn_running(&s->p)) {
		churn_slice(&s->p);
		/* every leaf of both windows, independently of the churn's own audit */
		for (unsigned w = 0; w < 2; w++)
			pt_visit(&s->p.build.space, window_base[w], WINDOW, type_leaf, n);
	}
	churn_finish(&s->p);
	report_finish(&s->rep);
	assert_churn_passed(s);
	assert_true(n[0] > 0);
	assert_int_equal(n[1], 0);
	assert_non_null(line_with(s->buf, "# churn: ", fact, sizeof(fact)));
	assert_true(fact_value(fact, "typed_maps") > 0);
	assert_true(sim_wbinvd >= fact_value(fact, "type_changes"));
	assert_int_equal(pt_translate(&s->p.build.space, PT_HHDM_BASE + s->p.data.typed_pa, &l), PT_OK);
	assert_int_equal(l.flags, PT_WRITE);
	sim_fini(s);
	free(s);
}

/* The audit sees a UC leaf on a data-area frame (the old churn's mistake). */
static void test_memory_type_audit_catches_an_alias(void **state)
{
	struct sim *s = sim_new();
	struct pt_flushlist fl;

	(void)state;
	sim_init(s, 5, 200, OPTS_INJECT_NONE, false);
	churn_start(&s->p);
	while (churn_running(&s->p))
		churn_slice(&s->p);
	/* a frame of the data area, write-back in the HHDM, mapped UC in a window */
	assert_int_equal(pt_map(&s->p.build.space, PTLAB_SCRATCH_HIGH + WINDOW - PT_PAGE_SIZE,
				s->p.data.pa, PT_PAGE_SIZE, PT_WRITE | PT_CACHE(PT_CACHE_UC),
				PT_PAGE_4K, &fl), PT_OK);
	churn_finish(&s->p);
	report_finish(&s->rep);
	if (!strstr(s->buf, "not ok 1 - churn: a leaf that is not write-back maps a frame outside "
		    "the typed window at va=0xffffff03fffff000")) {
		print_report(s);
		fail_msg("the alias was not reported");
	}
	assert_null(strstr(s->buf, "memory types:"));
	sim_fini(s);
	free(s);
}

static void test_seeds_differ_and_replay_exactly(void **state)
{
	struct sim *s = sim_new();
	char first[REPORT_BYTES], f1[512], f2[512];

	(void)state;
	sim_init(s, 1, SHORT_OPS, OPTS_INJECT_NONE, false);
	sim_run(s);
	assert_churn_passed(s);
	memcpy(first, s->buf, sizeof(first));
	sim_fini(s);

	/* the same seed again: byte for byte the same report */
	sim_init(s, 1, SHORT_OPS, OPTS_INJECT_NONE, false);
	sim_run(s);
	assert_string_equal(s->buf, first);
	sim_fini(s);

	/* another seed: another mix of operations, not just another seed= */
	sim_init(s, 2, SHORT_OPS, OPTS_INJECT_NONE, false);
	sim_run(s);
	assert_churn_passed(s);
	assert_non_null(line_with(first, "# churn: ", f1, sizeof(f1)));
	assert_non_null(line_with(s->buf, "# churn: ", f2, sizeof(f2)));
	assert_string_not_equal(strstr(f1, " maps="), strstr(f2, " maps="));
	sim_fini(s);
	free(s);
}

static void test_injected_damage_is_caught(void **state)
{
	static const struct {
		enum opts_inject inject;
		const char *note;
	} cases[] = {
		{ OPTS_INJECT_WRONG_FRAME, "# inject: wrong-frame at 0x" },
		{ OPTS_INJECT_NX_CLEARED, "# inject: nx-cleared at 0x" },
	};
	struct sim *s = sim_new();
	struct churn_stats st;

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (unsigned tlb_on = 0; tlb_on < 2; tlb_on++) {
			sim_init(s, 1, SHORT_OPS, cases[i].inject, tlb_on);
			sim_run(s);
			assert_caught_at_injection(s, cases[i].note);
			churn_stats(&s->p, &st);
			assert_true(st.op < SHORT_OPS);
			sim_fini(s);
		}
	}
	free(s);
}

static void test_missing_invlpg_needs_a_tlb(void **state)
{
	struct sim *s = sim_new();

	(void)state;
	/* every access walks the tables: the missing invalidation is invisible */
	sim_init(s, 1, SHORT_OPS, OPTS_INJECT_MISSING_INVLPG, false);
	sim_run(s);
	assert_non_null(strstr(s->buf, "# inject: missing-invlpg after remapping 0x"));
	assert_churn_passed(s);
	sim_fini(s);

	/* with a TLB the stale translation shows at the very next sample */
	sim_init(s, 1, SHORT_OPS, OPTS_INJECT_MISSING_INVLPG, true);
	sim_run(s);
	assert_caught_at_injection(s, "# inject: missing-invlpg after remapping 0x");
	assert_true(s->tlb_hits > 0);
	sim_fini(s);
	free(s);
}

/* The library's flush lists (and its own env->flush calls) suffice for a TLB. */
/*
 * A pool refusal the run asked for (--fail-alloc) is counted as refused; the
 * same PT_ENOMEM without --fail-alloc, from a pool with frames to spare, is
 * a failure of the churn.
 */
static void test_enomem_is_refused_only_when_expected(void **state)
{
	struct sim *s = sim_new();
	char fact[512];

	(void)state;
	for (unsigned asked = 0; asked < 2; asked++) {
		sim_init(s, 1, SHORT_OPS, OPTS_INJECT_NONE, false);
		s->p.opts.fail_alloc = asked ? 3 : 0;
		pt_frames_fail_nth(&s->p.build.frames, 3);
		sim_run(s);
		assert_int_equal(s->p.build.frames.failed, 1);
		if (asked) {
			assert_churn_passed(s);
			assert_non_null(line_with(s->buf, "# churn: ", fact, sizeof(fact)));
			assert_int_equal(fact_value(fact, "refused"), 1);
		} else {
			char enomem[64];
			struct churn_stats st;

			snprintf(enomem, sizeof(enomem), "observed 0x%llx",
				 (unsigned long long)(uint64_t)(int64_t)PT_ENOMEM);
			if (!strstr(s->buf, "not ok 1 - churn: ") || !strstr(s->buf, enomem)) {
				print_report(s);
				fail_msg("an unexpected PT_ENOMEM was not reported");
			}
			churn_stats(&s->p, &st);
			assert_int_equal(st.refused, 0);
		}
		sim_fini(s);
	}
	free(s);
}

static void test_churn_passes_with_a_tlb(void **state)
{
	struct sim *s = sim_new();

	(void)state;
	for (uint64_t seed = 1; seed <= 2; seed++) {
		sim_init(s, seed, DEFAULT_OPS, OPTS_INJECT_NONE, true);
		sim_run(s);
		assert_churn_passed(s);
		assert_true(s->tlb_hits > 0 && s->tlb_fills > 0);
		sim_fini(s);
	}
	free(s);
}

/*
 * Two churns at once, slice by slice, each slice with its own machine in
 * place (the seams read `sim`): each must end as it ends alone, with the
 * same report byte for byte and the same counts.  The churn's state is the
 * run's (p->churn), so two runs cannot disturb each other; a churn that
 * kept it anywhere else would have the second run's start reset the first.
 */
static void churn_slices(struct sim *s)
{
	sim = s;
	if (churn_running(&s->p))
		churn_slice(&s->p);
}

static void test_two_runs_interleaved_end_as_each_alone(void **state)
{
	struct sim *alone = malloc(sizeof(*alone));
	struct sim *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct churn_stats st_alone, st_a;
	unsigned slices = 0;

	(void)state;
	assert_non_null(alone);
	assert_non_null(a);
	assert_non_null(b);
	sim_init(alone, 3, SHORT_OPS, OPTS_INJECT_NONE, false);
	sim_run(alone);
	assert_churn_passed(alone);
	churn_stats(&alone->p, &st_alone);

	sim_init(a, 3, SHORT_OPS, OPTS_INJECT_NONE, false);
	sim_init(b, 4, SHORT_OPS, OPTS_INJECT_NONE, false);
	/* slices of a few hundred operations: 1 TSC tick per microsecond */
	a->p.t.tsc_per_us = 1;
	b->p.t.tsc_per_us = 1;
	sim = a;
	churn_start(&a->p);
	sim = b;
	churn_start(&b->p);
	while (churn_running(&a->p) || churn_running(&b->p)) {
		churn_slices(a);
		churn_slices(b);
		slices++;
	}
	sim = a;
	churn_finish(&a->p);
	report_finish(&a->rep);
	sim = b;
	churn_finish(&b->p);
	report_finish(&b->rep);
	print_message("interleaved: %u rounds of slices\n", slices);
	assert_true(slices > 1);

	assert_churn_passed(a);
	assert_churn_passed(b);
	churn_stats(&a->p, &st_a);
	assert_int_equal(st_a.op, st_alone.op);
	assert_int_equal(st_a.maps, st_alone.maps);
	assert_int_equal(st_a.unmaps, st_alone.unmaps);
	assert_int_equal(st_a.protects, st_alone.protects);
	assert_int_equal(st_a.remaps, st_alone.remaps);
	assert_int_equal(st_a.refused, st_alone.refused);
	assert_string_equal(a->buf, alone->buf);
	assert_string_not_equal(b->buf, alone->buf);   /* another seed, another run */

	sim = b;
	sim_fini(b);
	sim = a;
	sim_fini(a);
	sim = alone;
	sim_fini(alone);
	free(b);
	free(a);
	free(alone);
}

UNIT_MAIN(
	cmocka_unit_test(test_default_churn_passes),
	cmocka_unit_test(test_seeds_differ_and_replay_exactly),
	cmocka_unit_test(test_memory_types_only_on_the_typed_window),
	cmocka_unit_test(test_memory_type_audit_catches_an_alias),
	cmocka_unit_test(test_injected_damage_is_caught),
	cmocka_unit_test(test_missing_invlpg_needs_a_tlb),
	cmocka_unit_test(test_churn_passes_with_a_tlb),
	cmocka_unit_test(test_enomem_is_refused_only_when_expected),
	cmocka_unit_test(test_two_runs_interleaved_end_as_each_alone))
