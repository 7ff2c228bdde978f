/* SPDX-License-Identifier: MIT */
/*
 * The BSP's side of the SMP checks (see smp.h and bsp.h): commands to the
 * APs and the shootdown IPIs with their acknowledgements, the shootdown
 * scenarios and the SMP churn on our tables, the per-CPU checks' verdicts,
 * and the SMP area's test pages.  The BSP reaches the shared state through
 * the run's state (p->smp) only.
 *
 * No firmware calls: the BSP runs this on our tables (through ptlab_live),
 * in firmware and in hand-off mode.
 */
#include "checks/checkkit.h"
#include "checks/elsewhere.h"
#include "live/flush.h"
#include "report/report.h"
#include "checks/inject.h"
#include "smp/smp.h"
#include "smp/apic.h"
#include "live/live.h"

#include <ptlab/pte.h>

/* ---- the BSP's sequence ---- */

const char *smp_cpu_name(const struct smp_cpu *c)
{
	return c->name;
}

static bool active(const struct smp_cpu *c)
{
	return c && !c->bsp && c->state == SMP_ST_CHECKED && !c->faulted && !c->lost;
}

/*
 * Publish @cmd to @sh's APs and wait for every active AP to complete it;
 * one that does not is marked lost after a failure line on @rep.
 */
static void command(struct smp_shared *sh, struct report *rep, uint32_t cmd)
{
	uint32_t seq;
	uint64_t end;

	sh->cmd = cmd;
	barrier();
	seq = sh->seq + 1;
	sh->seq = seq;
	end = smp_deadline_us(sh, WAIT_US);
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		while (active(c) && c->done_seq != seq && rdtsc() < end)
			cpu_pause();
		if (active(c) && c->done_seq != seq) {
			c->lost = true;
			report_fail(rep, "smp: %s did not answer command %u within %u s", smp_cpu_name(c),
				    seq, WAIT_US / 1000000);
		}
	}
}

/*
 * Invalidate @fl on every active AP of @sh but @skip (an index, or -1)
 * with an IPI; wait for the acks.  Returns the APs that acknowledged; one
 * that did not is marked lost after a failure line on @rep.
 */
static unsigned shootdown(struct smp_shared *sh, struct report *rep, const struct pt_flushlist *fl,
			  int skip)
{
	unsigned acked = 0;
	uint32_t seq;
	uint64_t end;

	sh->shoot = *fl;
	barrier();
	seq = sh->shoot_seq + 1;
	sh->shoot_seq = seq;
	barrier();
	for (unsigned i = 0; i < sh->ncpu; i++)
		if (active(sh->cpu[i]) && (int)i != skip && !apic_send_ipi(sh, sh->cpu[i]->apic))
			report_fail(rep, "smp: the local APIC did not accept the IPI to %s",
				    smp_cpu_name(sh->cpu[i]));
	end = smp_deadline_us(sh, WAIT_US);
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		if (!active(c) || (int)i == skip)
			continue;
		while (active(c) && c->shoot_ack != seq && rdtsc() < end)
			cpu_pause();
		if (c->shoot_ack == seq) {
			acked++;
		} else if (active(c)) {
			c->lost = true;
			report_fail(rep, "smp: %s did not acknowledge shootdown %u within %u s",
				    smp_cpu_name(c), seq, WAIT_US / 1000000);
		}
	}
	return acked;
}

static unsigned nactive(const struct smp_shared *sh)
{
	unsigned n = 0;

	for (unsigned i = 0; i < sh->ncpu; i++)
		n += active(sh->cpu[i]);
	return n;
}

static uint64_t pattern_of(uint64_t pa)
{
	return UINT64_C(0x534d500000000000) | (pa >> 3);
}

static uint64_t plant(uint64_t pa)
{
	uint64_t v = pattern_of(pa);

	*(volatile uint64_t *)(uintptr_t)pa = v;
	return v;
}

static struct smp_expect want_value(uint64_t v)
{
	return (struct smp_expect){ .value = v };
}

static struct smp_expect want_fault(uint64_t va, uint32_t error)
{
	return (struct smp_expect){ .fault = true, .error = error, .cr2 = va };
}

/*
 * What the BSP's shootdown checks use of the run: the page every CPU
 * shares, the report, the options (--inject) and the tables in CR3.
 */
struct bsp {
	struct smp_shared *sh;
	struct report *rep;
	const struct opts *o;
	struct pt_space *space;
};

/*
 * Every AP of @sh reads @n addresses; each must see @before (the
 * translation is cached then).  False after a failure line on @rep.
 */
static bool cache_all(struct smp_shared *sh, struct report *rep, const char *name,
		      const uint64_t *va, const struct smp_expect *before, unsigned n)
{
	char got[64];

	for (unsigned k = 0; k < n; k++)
		sh->probe_va[k] = va[k];
	sh->nprobe = n;
	command(sh, rep, SMP_CMD_PROBE);
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		if (!active(c))
			continue;
		for (unsigned k = 0; k < n; k++) {
			if (smp_obs_matches(&c->obs[k], &before[k]))
				continue;
			smp_obs_text(&c->obs[k], got, sizeof(got));
			check_report(rep, &check_smp_shootdowns, false,
				     "%s: %s could not read 0x%llx before the change: %s",
				     name, smp_cpu_name(c), (unsigned long long)va[k], got);
			return false;
		}
	}
	return true;
}

/*
 * Every AP of v->sh reads @n addresses after the shootdown; judge each
 * against @now / @before, on v->rep (check_smp_shootdowns).
 */
static void judge_all(const struct bsp *v, const char *name, const uint64_t *va,
		      const struct smp_expect *now, const struct smp_expect *before, unsigned n,
		      int skip, unsigned acked)
{
	struct smp_shared *sh = v->sh;
	unsigned bad = 0, seen = 0;
	char got[64], want[64];

	command(sh, v->rep, SMP_CMD_PROBE);
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];

		if (!active(c))
			continue;
		seen++;
		for (unsigned k = 0; k < n; k++) {
			enum smp_verdict vd = smp_judge(&c->obs[k], &now[k], &before[k]);
			struct smp_obs w = { .value = now[k].value, .faulted = now[k].fault,
					     .vector = now[k].fault ? TRAP_VEC_PF : 0,
					     .error = now[k].error, .cr2 = now[k].cr2 };

			if (vd == SMP_SAW_NEW) {
				/* an unchanged neighbour proves nothing about the withheld IPI */
				if ((int)i == skip && !smp_obs_matches(&w, &before[k]))
					report_note(v->rep, "inject: missing-shootdown not provoked: "
						    "%s dropped the stale translation of 0x%llx by itself",
						    smp_cpu_name(c), (unsigned long long)va[k]);
				continue;
			}
			bad++;
			smp_obs_text(&c->obs[k], got, sizeof(got));
			smp_obs_text(&w, want, sizeof(want));
			check_report(v->rep, &check_smp_shootdowns, false,
				     "%s: %s at 0x%llx %s: %s, expected %s%s", name, smp_cpu_name(c),
				     (unsigned long long)va[k],
				     vd == SMP_SAW_OLD ? "still used the stale translation" :
				     "saw neither translation", got, want,
				     (int)i != skip ? "" :
				     inject_on(v->o, &check_smp_shootdowns) ?
				     " (IPI withheld: --inject=missing-shootdown-all)" :
				     " (IPI withheld: --inject=missing-shootdown)");
		}
	}
	if (!bad && seen)
		check_report(v->rep, &check_smp_shootdowns, true,
			     "%s: %u AP%s saw the change after the IPI (%u acknowledged), "
			     "%u probe%s each", name, seen, seen == 1 ? "" : "s", acked, n,
			     n == 1 ? "" : "s");
}

/*
 * The AP whose shootdown IPI --inject=missing-shootdown (once, *@used
 * then) or missing-shootdown-all (every time) withholds: the last active
 * one, named in a note the first time; -1 when none is withheld.
 */
static int skip_for_inject(const struct bsp *v, bool *used)
{
	bool all = inject_on(v->o, &check_smp_shootdowns);

	if ((v->o->inject != OPTS_INJECT_MISSING_SHOOTDOWN || *used) && !all)
		return -1;
	for (int i = (int)v->sh->ncpu - 1; i >= 0; i--)
		if (active(v->sh->cpu[i])) {
			if (!*used)
				report_note(v->rep, "inject: missing-shootdown%s: no IPI to %s",
					    all ? "-all" : "", smp_cpu_name(v->sh->cpu[i]));
			*used = true;
			return i;
		}
	return -1;
}

/* Remove a test mapping from v->space everywhere: our CPU, and every AP by IPI. */
static void clean(const struct bsp *v, uint64_t va, uint64_t len)
{
	struct pt_flushlist fl;

	if (pt_unmap(v->space, va, len, PT_SPARSE, &fl) == PT_OK) {
		ptlab_flush(&fl);
		shootdown(v->sh, v->rep, &fl, -1);
	}
}

struct scenario {
	const char *name;
	uint64_t va, len;           /* the test mapping */
	uint64_t pa;
	uint64_t to;                /* where a remap points the mapping */
	enum pt_page_size size;
	unsigned flags;
	unsigned n;                 /* probes */
	uint64_t probe[2];
	struct smp_expect before[2], now[2];
	bool smap;
};

/*
 * Map in v->space, cache on every AP, change on the BSP (@change), shoot
 * down, judge, clean up; reported on v->rep.
 */
static void run_scenario(const struct bsp *v, struct scenario *s,
			 int (*change)(struct pt_space *sp, const struct scenario *s,
				       struct pt_flushlist *fl),
			 bool *injected)
{
	struct smp_shared *sh = v->sh;
	struct pt_flushlist fl;
	unsigned acked;
	int skip, err;

	if (!nactive(sh)) {
		report_skip(v->rep, s->name, "no AP is running on the tables");
		return;
	}
	err = pt_map(v->space, s->va, s->pa, s->len, s->flags, s->size, &fl);
	if (err) {
		check_report(v->rep, &check_smp_shootdowns, false,
			     "%s: could not map the test leaf: %s", s->name, pt_strerror(err));
		return;
	}
	ptlab_flush(&fl);
	sh->probe_smap = s->smap;
	if (!cache_all(sh, v->rep, s->name, s->probe, s->before, s->n)) {
		sh->probe_smap = false;
		clean(v, s->va, s->len);
		return;
	}
	err = change(v->space, s, &fl);
	if (err) {
		sh->probe_smap = false;
		check_report(v->rep, &check_smp_shootdowns, false,
			     "%s: the change was refused: %s", s->name, pt_strerror(err));
		clean(v, s->va, s->len);
		return;
	}
	ptlab_flush(&fl);
	skip = skip_for_inject(v, injected);
	acked = shootdown(sh, v->rep, &fl, skip);
	judge_all(v, s->name, s->probe, s->now, s->before, s->n, skip, acked);
	sh->probe_smap = false;
	clean(v, s->va, s->len);
}

/* The scenarios' changes in @sp, the tables in CR3: the library's result, @fl to flush. */
static int ch_remap(struct pt_space *sp, const struct scenario *s, struct pt_flushlist *fl)
{
	return pt_remap(sp, s->va, s->len, s->to, PT_NOSPLIT, fl);
}

static int ch_unmap(struct pt_space *sp, const struct scenario *s, struct pt_flushlist *fl)
{
	return pt_unmap(sp, s->va, s->len, 0, fl);
}

static int ch_protect_user(struct pt_space *sp, const struct scenario *s, struct pt_flushlist *fl)
{
	return pt_protect(sp, s->va, s->len, PT_USER, fl);
}

static int ch_split(struct pt_space *sp, const struct scenario *s, struct pt_flushlist *fl)
{
	return pt_unmap(sp, s->probe[0], PT_PAGE_SIZE, 0, fl);
}

/* Frames in the data area (D = data_pa): 2 MiB X = D, Y = D + 2M, Z = D + 6M; 4 KiB pages at D + 4M. */
#define FRAME_4K_A(d)     ((d) + (UINT64_C(4) << 20) + 0x40000)
#define FRAME_CHURN(d, j) ((d) + (UINT64_C(4) << 20) + 0x80000 + (uint64_t)(j) * PT_PAGE_SIZE)
#define FRAME_OWN(d, i)   ((d) + (UINT64_C(4) << 20) + (uint64_t)(i) * PT_PAGE_SIZE)
#define FRAME_ANCHOR(d)   ((d) + (UINT64_C(4) << 20) + 0x42000)
#define VA_4K             (SMP_AREA + 16 * PT_PAGE_SIZE)
#define VA_ANCHOR         (SMP_AREA + 511 * PT_PAGE_SIZE)
#define VA_AD(i)          (SMP_AREA + (64 + (uint64_t)(i)) * PT_PAGE_SIZE)
#define VA_2M             (SMP_AREA + PT_SIZE_2M)
#define VA_SPLIT          (SMP_AREA + 2 * PT_SIZE_2M)
#define OFF_2M            0x7000u

/*
 * The shootdown scenarios on v's tables, with frames of the data area at
 * @data_pa; the protect scenario only when the CPU has SMAP (@smap).
 */
static void shootdown_checks(const struct bsp *v, uint64_t data_pa, bool smap)
{
	uint64_t a = FRAME_4K_A(data_pa), b = a + PT_PAGE_SIZE;
	uint64_t x = data_pa, y = data_pa + PT_SIZE_2M, z = data_pa + 3 * PT_SIZE_2M;
	bool injected = false;
	struct scenario s;

	/* 4 KiB remap: A -> B */
	s = (struct scenario){ .name = "shootdown 4K remap", .va = VA_4K, .len = PT_PAGE_SIZE, .pa = a,
			       .to = b, .size = PT_PAGE_4K, .n = 1, .probe = { VA_4K } };
	s.before[0] = want_value(plant(a));
	s.now[0] = want_value(plant(b));
	run_scenario(v, &s, ch_remap, &injected);

	/* 4 KiB unmap */
	s = (struct scenario){ .name = "shootdown 4K unmap", .va = VA_4K, .len = PT_PAGE_SIZE, .pa = a,
			       .size = PT_PAGE_4K, .n = 1, .probe = { VA_4K } };
	s.before[0] = want_value(plant(a));
	s.now[0] = want_fault(VA_4K, 0);
	run_scenario(v, &s, ch_unmap, &injected);

	/* 4 KiB protect: supervisor -> user, seen by a read with SMAP on */
	s = (struct scenario){ .name = "shootdown 4K protect", .va = VA_4K, .len = PT_PAGE_SIZE, .pa = a,
			       .size = PT_PAGE_4K, .n = 1, .probe = { VA_4K }, .smap = true };
	s.before[0] = want_value(plant(a));
	s.now[0] = want_fault(VA_4K, PF_ERR_P);
	if (smap)
		run_scenario(v, &s, ch_protect_user, &injected);
	else
		report_skip(v->rep, s.name, "no SMAP: a permission change a read can see needs it");

	/* 2 MiB leaf remap: X -> Y */
	s = (struct scenario){ .name = "shootdown 2M remap", .va = VA_2M, .len = PT_SIZE_2M, .pa = x,
			       .to = y, .size = PT_PAGE_2M, .n = 1, .probe = { VA_2M + OFF_2M } };
	s.before[0] = want_value(plant(x + OFF_2M));
	s.now[0] = want_value(plant(y + OFF_2M));
	run_scenario(v, &s, ch_remap, &injected);

	/* 2 MiB leaf unmap */
	s = (struct scenario){ .name = "shootdown 2M unmap", .va = VA_2M, .len = PT_SIZE_2M, .pa = x,
			       .size = PT_PAGE_2M, .n = 1, .probe = { VA_2M + OFF_2M } };
	s.before[0] = want_value(plant(x + OFF_2M));
	s.now[0] = want_fault(VA_2M + OFF_2M, 0);
	run_scenario(v, &s, ch_unmap, &injected);

	/* a 2 MiB leaf split by unmapping one page: that page faults, its neighbour keeps its frame */
	s = (struct scenario){ .name = "shootdown 2M split", .va = VA_SPLIT, .len = PT_SIZE_2M,
			       .pa = z, .size = PT_PAGE_2M, .n = 2,
			       .probe = { VA_SPLIT + 5 * PT_PAGE_SIZE, VA_SPLIT + 6 * PT_PAGE_SIZE } };
	s.before[0] = want_value(plant(z + 5 * PT_PAGE_SIZE));
	s.before[1] = want_value(plant(z + 6 * PT_PAGE_SIZE));
	s.now[0] = want_fault(VA_SPLIT + 5 * PT_PAGE_SIZE, 0);
	s.now[1] = s.before[1];
	run_scenario(v, &s, ch_split, &injected);
}

#define CHURN_STEPS 32u

/*
 * The churn's verdict on @steps steps of v->sh's APs, on v->rep: each
 * AP's first disagreement with the shadow model, or that every AP agreed
 * at every step; a note when the AP at index @withheld (-1: none) missed
 * its IPI but dropped the stale translation by itself.
 */
static void churn_verdict(const struct bsp *v, unsigned steps, int withheld)
{
	struct smp_shared *sh = v->sh;
	unsigned bad = 0, seen = 0;
	char got[64], want[64];

	if (withheld >= 0 && !sh->cpu[withheld]->mismatches)
		report_note(v->rep, "inject: missing-shootdown not provoked in the churn: %s dropped "
			    "the stale translation by itself", smp_cpu_name(sh->cpu[withheld]));
	for (unsigned i = 0; i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];
		struct smp_obs w;

		if (!c || c->bsp || !c->compared)
			continue;
		seen++;
		if (!c->mismatches)
			continue;
		bad++;
		w = (struct smp_obs){ .value = c->bad_want.value, .faulted = c->bad_want.fault,
				      .vector = c->bad_want.fault ? TRAP_VEC_PF : 0,
				      .error = c->bad_want.error, .cr2 = c->bad_want.cr2 };
		smp_obs_text(&c->bad_got, got, sizeof(got));
		smp_obs_text(&w, want, sizeof(want));
		check_report(v->rep, &check_smp_shootdowns, false,
			     "smp churn: %s disagreed with the shadow model %llu times; first "
			     "at step %u va=0x%llx: expected %s, observed %s", smp_cpu_name(c),
			     (unsigned long long)c->mismatches, c->bad_step,
			     (unsigned long long)c->bad_va, want, got);
	}
	if (!bad && seen && steps == CHURN_STEPS)
		check_report(v->rep, &check_smp_shootdowns, true,
			     "smp churn: %u map/unmap/remap/protect steps with shootdowns, %u AP%s "
			     "agreed with the shadow model at every step (%u pages each)", steps, seen,
			     seen == 1 ? "" : "s", SMP_CHURN_PAGES);
	else if (!bad)
		check_report(v->rep, &check_smp_shootdowns, false,
			     "smp churn: only %u of %u steps ran with %u APs", steps,
			     CHURN_STEPS, seen);
}

/*
 * The SMP churn: seeded map/unmap/remap/protect steps in the SMP area of
 * v's tables, each shot down and compared by every AP with the shadow
 * model, seeded with v's --seed; the frames in the data area at @data_pa.
 * Stops at the deadline in @t (marking *@aborted, live.h's
 * ptlab_deadline_passed).
 */
static void churn_checks(const struct bsp *v, const struct ptlab_time *t, bool *aborted,
			 uint64_t data_pa)
{
	struct smp_shared *sh = v->sh;
	uint64_t fv[SMP_CHURN_FRAMES];
	struct smp_churn ch;
	unsigned steps = 0;
	bool injected = false;
	int skip, withheld = -1;

	if (!nactive(sh)) {
		report_skip(v->rep, "smp churn", "no AP is running on the tables");
		return;
	}
	for (unsigned j = 0; j < SMP_CHURN_FRAMES; j++)
		fv[j] = plant(FRAME_CHURN(data_pa, j));
	smp_churn_init(&ch, v->o->seed);
	for (unsigned k = 0; k < SMP_CHURN_PAGES; k++)
		sh->probe_va[k] = SMP_AREA + k * PT_PAGE_SIZE;
	sh->nprobe = SMP_CHURN_PAGES;
	sh->read_va = SMP_AREA;
	sh->read_pages = SMP_CHURN_PAGES;
	barrier();
	sh->reading = 1;
	for (; steps < CHURN_STEPS && nactive(sh) && !ptlab_deadline_passed(t, v->o, v->rep, aborted);
	     steps++) {
		struct smp_step st = smp_churn_next(&ch);
		uint64_t va = SMP_AREA + st.page * PT_PAGE_SIZE;
		unsigned fl_w = st.writable ? PT_WRITE : 0;
		struct pt_flushlist fl;
		int err;

		switch (st.op) {
		case SMP_OP_MAP:
			err = pt_map(v->space, va, FRAME_CHURN(data_pa, st.frame), PT_PAGE_SIZE, fl_w, PT_PAGE_4K, &fl);
			break;
		case SMP_OP_UNMAP:
			err = pt_unmap(v->space, va, PT_PAGE_SIZE, 0, &fl);
			break;
		case SMP_OP_REMAP:
			err = pt_remap(v->space, va, PT_PAGE_SIZE, FRAME_CHURN(data_pa, st.frame), 0, &fl);
			break;
		default:
			err = pt_protect(v->space, va, PT_PAGE_SIZE, fl_w, &fl);
			break;
		}
		if (err) {
			check_report(v->rep, &check_smp_shootdowns, false,
				     "smp churn: step %u op %u at 0x%llx refused: %s", steps,
				     (unsigned)st.op, (unsigned long long)va, pt_strerror(err));
			break;
		}
		ptlab_flush(&fl);
		/* --inject=missing-shootdown: one AP misses the first visible change too */
		skip = -1;
		if (st.op == SMP_OP_REMAP || st.op == SMP_OP_UNMAP)
			skip = skip_for_inject(v, &injected);
		if (skip >= 0)
			withheld = skip;
		shootdown(sh, v->rep, &fl, skip);
		/* the agreed point: every AP compares the whole window with the shadow */
		for (unsigned k = 0; k < SMP_CHURN_PAGES; k++)
			sh->want[k] = smp_churn_expect(&ch, k, SMP_AREA + k * PT_PAGE_SIZE, fv);
		sh->step = steps;
		sh->probe_compare = true;
		command(sh, v->rep, SMP_CMD_PROBE);
		sh->probe_compare = false;
	}
	sh->reading = 0;
	clean(v, SMP_AREA, SMP_CHURN_PAGES * PT_PAGE_SIZE);
	churn_verdict(v, steps, withheld);
}

/* The BSP's view of run @p for the shootdown checks. */
static struct bsp bsp_of(struct ptlab *p)
{
	return (struct bsp){ p->smp, p->rep, &p->opts, &p->build.space };
}

int smp_bsp_live(struct ptlab *p)
{
	const struct bsp v = bsp_of(p);

	shootdown_checks(&v, p->data.pa, p->cpu.caps.smap);
	churn_checks(&v, &p->t, &p->aborted, p->data.pa);
	smp_send_exit(p->smp);
	return 0;
}

void smp_send_exit(struct smp_shared *sh)
{
	sh->cmd = SMP_CMD_EXIT;
	barrier();
	sh->seq = sh->seq + 1;
}

/* ---- per-CPU results ---- */

void smp_report_cpu(struct report *rep, struct smp_cpu *c)
{
	const char *n = smp_cpu_name(c);
	char a[64], b[64];

	if (!c->checks_done)
		return;
	if (!c->alias_ident.faulted && !c->alias_hhdm.faulted && !c->alias_back.faulted &&
	    c->alias_ident.value == pattern_of(c->own_pa) && c->alias_hhdm.value == pattern_of(c->own_pa) &&
	    c->alias_back.value == c->alias_write)
		check_report(rep, &check_smp_ap_alias, true,
			     "smp %s: its own frame read through identity and HHDM, written "
			     "through the HHDM and read back through identity", n);
	else
		check_report(rep, &check_smp_ap_alias, false,
			     "smp %s: aliases: identity 0x%llx hhdm 0x%llx back 0x%llx, expected "
			     "0x%llx and 0x%llx", n, (unsigned long long)c->alias_ident.value,
			     (unsigned long long)c->alias_hhdm.value,
			     (unsigned long long)c->alias_back.value,
			     (unsigned long long)pattern_of(c->own_pa), (unsigned long long)c->alias_write);
	if (c->call_got == (uint64_t)c->apic * 5 + 7)
		check_report(rep, &check_smp_ap_call, true,
			     "smp %s: a call through the image alias at 0x%llx returned", n,
			     (unsigned long long)c->sh->image_va);
	else
		check_report(rep, &check_smp_ap_call, false,
			     "smp %s: the image alias call returned 0x%llx, expected 0x%llx", n,
			     (unsigned long long)c->call_got, (unsigned long long)c->apic * 5 + 7);
	{
		struct smp_expect r = want_fault(c->pf_va, 0), w = want_fault(c->pf_va, PF_ERR_W);

		if (smp_obs_matches(&c->pf_read, &r) && smp_obs_matches(&c->pf_write, &w)) {
			check_report(rep, &check_smp_ap_pf, true,
				     "smp %s: #PF on its own unmapped page, cr2=0x%llx errors 0x0 "
				     "(read) and 0x2 (write)", n, (unsigned long long)c->pf_va);
		} else {
			smp_obs_text(&c->pf_read, a, sizeof(a));
			smp_obs_text(&c->pf_write, b, sizeof(b));
			check_report(rep, &check_smp_ap_pf, false,
				     "smp %s: at 0x%llx a read gave %s and a write %s, expected "
				     "#PF errors 0x0 and 0x2", n, (unsigned long long)c->pf_va, a, b);
		}
	}
	if (c->ad_read == PTE_A && c->ad_write == PTE_AD_MASK)
		check_report(rep, &check_smp_ap_ad, true,
			     "smp %s: A/D on its own page: a read set A only, a write A and D", n);
	else
		check_report(rep, &check_smp_ap_ad, false,
			     "smp %s: A/D on its own page: after a read 0x%llx, after a write "
			     "0x%llx (expected 0x20 and 0x60)", n, (unsigned long long)c->ad_read,
			     (unsigned long long)c->ad_write);
}

/* ---- the SMP area ---- */

int smp_map_area(struct ptlab *p)
{
	struct smp_shared *sh = p->smp;
	int err = pt_map(&p->build.space, VA_ANCHOR, FRAME_ANCHOR(p->data.pa), PT_PAGE_SIZE, 0, PT_PAGE_4K, NULL);

	for (unsigned i = 0; !err && i < sh->ncpu; i++) {
		struct smp_cpu *c = sh->cpu[i];
		struct pt_leaf l;

		c->own_pa = FRAME_OWN(p->data.pa, i);
		c->alias_write = ~plant(c->own_pa);
		c->pf_va = PTLAB_UNMAPPED_VA + PT_SIZE_2M + (uint64_t)i * PT_PAGE_SIZE;
		c->ad_va = VA_AD(i);
		err = pt_map(&p->build.space, c->ad_va, c->own_pa, PT_PAGE_SIZE,
			     inject_on(&p->opts, &check_smp_ap_ad) ? 0 : PT_WRITE, PT_PAGE_4K, NULL);
		if (!err)
			err = pt_translate(&p->build.space, c->ad_va, &l);
		if (!err)
			c->ad_pte_pa = l.entry_pa;
		if (!err && !c->bsp) {
			inject_begin(CHECK_RUN(p), &check_smp_ap_alias, p->build.plan.hhdm_base + c->own_pa);
			inject_begin(CHECK_RUN(p), &check_smp_ap_pf, c->pf_va);
		}
	}
	return err;
}

void smp_unmap_area(struct ptlab *p)
{
	inject_end(CHECK_RUN(p), &check_smp_ap_alias);
	inject_end(CHECK_RUN(p), &check_smp_ap_pf);
	pt_unmap(&p->build.space, SMP_AREA, 3 * PT_SIZE_2M, PT_SPARSE, NULL);
}
