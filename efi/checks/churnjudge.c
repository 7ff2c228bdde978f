/* SPDX-License-Identifier: MIT */
/*
 * The churn's judgement of each call (churn.c makes the calls): the
 * software side, pt_translate against the shadow model at the call's key
 * points, and the CPU side, a sampled page read, written, fetched and
 * faulted on through the scratch address and the HHDM alias (churn.c's
 * comment says what each kind of page must show).  The first disagreement
 * is reported as the churn's failure, with its replay.
 *
 * No firmware calls (firmware-free: in the host archive).
 */
#include "checks/churnjudge.h"
#include "checks/checkkit.h"
#include "checks/ram.h"
#include "report/report.h"
#include "cpu/trap.h"

#include "lib/model.h"

#define EXEC_OFF         0xff0u   /* where a 'ret' goes for fetch checks */

/* ---- failures ---- */

void churn_fail(const struct churn_ctx *cc, const char *what, uint64_t va, uint64_t want,
		uint64_t got)
{
	struct ptlab_churn *c = cc->c;

	if (c->failed)
		return;
	c->failed = true;
	report_fail(cc->rep, "churn: %s at va=0x%llx expected 0x%llx observed 0x%llx "
		    "(seed=%llu op=%llu; replay with --seed=%llu --iterations=%llu)", what,
		    (unsigned long long)va, (unsigned long long)want, (unsigned long long)got,
		    (unsigned long long)cc->o->seed, (unsigned long long)c->op,
		    (unsigned long long)cc->o->seed, (unsigned long long)(c->op + 1));
}

/* ---- the software side ---- */

void churn_key_point(const struct churn_ctx *cc, uint64_t va)
{
	struct ptlab_churn *c = cc->c;
	const struct model_run *r = model_find(&c->m, va);
	struct pt_leaf l;
	int err = pt_translate(&cc->b->space, va, &l);

	if (!r) {
		if (err != PT_ENOTMAPPED)
			churn_fail(cc, "translate: mapped where the model has nothing", va, 0, l.pa);
		return;
	}
	if (err)
		churn_fail(cc, "translate: not mapped where the model has a mapping", va,
			   r->pa + (va - r->va), 0);
	else if (l.pa != r->pa + (va - r->va))
		churn_fail(cc, "translate: wrong frame", va, r->pa + (va - r->va), l.pa);
	else if (l.flags != r->attrs)
		churn_fail(cc, "translate: wrong attributes", va, r->attrs, l.flags);
}

void churn_key_points(const struct churn_ctx *cc, uint64_t va, uint64_t len)
{
	struct ptlab_churn *c = cc->c;
	uint64_t pts[4] = { va, va + len - PT_PAGE_SIZE, va - PT_PAGE_SIZE, va + len };

	for (unsigned i = 0; i < 4 && !c->failed; i++)
		churn_key_point(cc, pts[i]);
}

/* ---- the CPU side ---- */

static void expect_fault(const struct churn_ctx *cc, const char *what, uint64_t va, int faulted,
			 const struct trap_fault *f, uint64_t error)
{
	struct ptlab_churn *c = cc->c;

	c->faults_expected++;
	if (faulted)
		c->faults_seen++;
	if (!faulted)
		churn_fail(cc, what, va, error, UINT64_C(0xffffffffffffffff));
	else if (f->vector != TRAP_VEC_PF || f->cr2 != va)
		churn_fail(cc, what, va, va, f->vector == TRAP_VEC_PF ? f->cr2 : f->vector);
	else if (f->error != error)
		churn_fail(cc, what, va, error, f->error);
}

void churn_sample(const struct churn_ctx *cc, uint64_t va)
{
	struct ptlab_churn *c = cc->c;
	const struct model_run *r = model_find(&c->m, va);
	struct trap_fault f;
	uint64_t got = 0, pa, hh, want;
	int faulted;

	va &= ~(PT_PAGE_SIZE - 1);
	c->samples++;
	if (!r) {
		faulted = probe_read64(va, &got, &f);
		expect_fault(cc, "cpu: read of an unmapped page", va, faulted, &f, 0);
		return;
	}
	pa = r->pa + (va - r->va);
	hh = cc->b->plan.hhdm_base + pa;
	if (in_typed(cc->d, pa, PT_PAGE_SIZE)) {
		/* out of the HHDM for the churn: only the scratch address reaches it */
		faulted = probe_read64(hh + 24, &got, &f);
		expect_fault(cc, "cpu: the HHDM alias of a typed frame", hh + 24, faulted, &f, 0);
		if (c->failed)
			return;
		if (r->attrs & PT_WRITE) {
			want = ptlab_pattern(pa, c->op);
			if (probe_write64(va + 8, want, &f) || probe_read64(va + 8, &got, &f) ||
			    got != want)
				churn_fail(cc, "cpu: pattern written and read back through a typed mapping", va,
					   want, got);
		} else {
			faulted = probe_write64(va + 8, 0, &f);
			expect_fault(cc, "cpu: write to a read-only page", va + 8, faulted, &f,
				     PF_ERR_P | PF_ERR_W);
		}
		return;
	}
	if (!in_data(cc->d, pa)) {
		uint64_t a = 0, b = 0;

		/* RAM we do not own: read both aliases, never write */
		if (!ptlab_is_ram(&cc->b->map, pa))
			return;
		if (probe_read64(va + 16, &a, &f) || probe_read64(hh + 16, &b, &f) || a != b)
			churn_fail(cc, "cpu: foreign RAM differs between scratch and HHDM alias", va, b, a);
		return;
	}
	want = ptlab_pattern(pa, c->op);
	if (probe_write64(hh, want, &f) || probe_read64(va, &got, &f) || got != want) {
		churn_fail(cc, "cpu: pattern written through the HHDM alias, read through the scratch address",
			   va, want, got);
		return;
	}
	if (r->attrs & PT_WRITE) {
		want = ~ptlab_pattern(pa, c->op);
		if (probe_write64(va + 8, want, &f) || probe_read64(hh + 8, &got, &f) || got != want)
			churn_fail(cc, "cpu: pattern written through the scratch address, read through the HHDM alias",
				   va, want, got);
	} else {
		faulted = probe_write64(va + 8, 0, &f);
		expect_fault(cc, "cpu: write to a read-only page", va + 8, faulted, &f,
			     PF_ERR_P | PF_ERR_W);
	}
	if (c->failed)
		return;
	*(volatile uint8_t *)phys(cc->b, pa + EXEC_OFF) = 0xc3;   /* ret */
	faulted = probe_exec(va + EXEC_OFF, &f);
	if (r->attrs & PT_EXEC) {
		if (faulted)
			churn_fail(cc, "cpu: fetch from an executable page faulted", va + EXEC_OFF, 0,
				   f.error);
	} else {
		expect_fault(cc, "cpu: fetch from an NX page", va + EXEC_OFF, faulted, &f,
			     PF_ERR_P | PF_ERR_ID);
	}
}
