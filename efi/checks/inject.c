/* SPDX-License-Identifier: MIT */
/*
 * The per-check faults of --inject (see inject.h).  Each is an ordinary
 * change made with the library's own calls - a page protected, remapped or
 * mapped, a root entry given a reserved bit, another root loaded - and
 * each is recorded in the run's state (run->inject) so that inject_end()
 * undoes exactly it: tables, frames and TLB as they were, so the rest of
 * the run judges the tables it built.
 *
 * Which change a check's fault is, is its registry entry's plant function,
 * next to the check; the faults that leave something out (an invlpg, a CR3
 * reload, a reserved bit, CR0.WP, SMEP, stac/clac) are a condition in the
 * check's body instead (inject_on).
 */
#include "live/flush.h"
#include "checks/inject.h"
#include "state/state.h"
#include "live/live.h"
#include "report/report.h"

#include <ptlab/pte.h>

enum undo_kind { UNDO_PROTECT, UNDO_REMAP, UNDO_MAP, UNDO_ROOT_ENTRY, UNDO_CR3 };

bool inject_on(const struct opts *o, const struct ptlab_check *c)
{
	return opts_fault_given(o, c->fault.name);
}

static void flush(const struct check_run *run, const struct pt_flushlist *fl)
{
	if (run->live->on)
		ptlab_flush(fl);
}

static struct ptlab_inject_undo *push(struct check_run *run, const struct ptlab_check *c,
				      enum undo_kind kind, uint64_t va)
{
	struct ptlab_inject *in = run->inject;

	if (in->n == PTLAB_INJECT_UNDO_MAX) {
		report_note(run->rep, "inject: %s: no room to record the fault; not planted",
			    c->fault.name);
		return NULL;
	}
	in->undo[in->n] = (struct ptlab_inject_undo){ .owner = c, .kind = kind, .va = va };
	return &in->undo[in->n++];
}

int inject_protect(struct check_run *run, const struct ptlab_check *c, uint64_t va,
		   unsigned flags)
{
	struct ptlab_inject_undo *u;
	struct pt_flushlist fl;
	struct pt_leaf l;

	va &= ~(PT_PAGE_SIZE - 1);
	if (pt_translate(&run->build->space, va, &l) != PT_OK || !(u = push(run, c, UNDO_PROTECT, va)))
		return -1;
	u->flags = l.flags;
	if (pt_protect(&run->build->space, va, PT_PAGE_SIZE, flags, &fl) != PT_OK) {
		run->inject->n--;
		return -1;
	}
	flush(run, &fl);
	return 0;
}

int inject_remap(struct check_run *run, const struct ptlab_check *c, uint64_t va)
{
	struct ptlab_inject_undo *u;
	struct pt_flushlist fl;
	struct pt_leaf l;
	uint64_t f;

	va &= ~(PT_PAGE_SIZE - 1);
	if (pt_translate(&run->build->space, va, &l) != PT_OK ||
	    pt_frames_alloc(&run->build->frames, &f) != PT_OK)
		return -1;
	if (!(u = push(run, c, UNDO_REMAP, va))) {
		pt_frames_free(&run->build->frames, f);
		return -1;
	}
	u->pa = l.pa & ~(PT_PAGE_SIZE - 1);
	u->frame = f;
	for (unsigned i = 0; i < PT_PAGE_SIZE / 8; i++)
		((volatile uint64_t *)(uintptr_t)f)[i] = ~((volatile uint64_t *)(uintptr_t)u->pa)[i];
	if (pt_remap(&run->build->space, va, PT_PAGE_SIZE, f, 0, &fl) != PT_OK) {
		pt_frames_free(&run->build->frames, f);
		run->inject->n--;
		return -1;
	}
	flush(run, &fl);
	return 0;
}

int inject_map(struct check_run *run, const struct ptlab_check *c, uint64_t va, uint64_t pa,
	       unsigned flags)
{
	struct ptlab_inject_undo *u;
	struct pt_flushlist fl;
	uint64_t f = 0;

	va &= ~(PT_PAGE_SIZE - 1);
	if (!pa && pt_frames_alloc(&run->build->frames, &f) != PT_OK)
		return -1;
	if (!(u = push(run, c, UNDO_MAP, va)))
		goto fail;
	u->frame = f;
	if (pt_map(&run->build->space, va, f ? f : pa, PT_PAGE_SIZE, flags, PT_PAGE_4K, &fl) != PT_OK) {
		run->inject->n--;
		goto fail;
	}
	flush(run, &fl);
	return 0;
fail:
	if (f)
		pt_frames_free(&run->build->frames, f);
	return -1;
}

int inject_root_bits(struct check_run *run, const struct ptlab_check *c, unsigned index,
		     uint64_t bits)
{
	uint64_t *root = (uint64_t *)(uintptr_t)run->build->space.root_pa;
	struct ptlab_inject_undo *u;

	if (index >= PT_ENTRIES || !(u = push(run, c, UNDO_ROOT_ENTRY, index)))
		return -1;
	u->pa = root[index];
	root[index] |= bits;
	flush(run, &(struct pt_flushlist){ .all = true });
	return 0;
}

int inject_root_copy(struct check_run *run, const struct ptlab_check *c)
{
	const uint64_t *root = (const uint64_t *)(uintptr_t)run->build->space.root_pa;
	struct ptlab_inject_undo *u;
	uint64_t f;

	if (pt_frames_alloc(&run->build->frames, &f) != PT_OK)
		return -1;
	if (!(u = push(run, c, UNDO_CR3, 0))) {
		pt_frames_free(&run->build->frames, f);
		return -1;
	}
	u->frame = f;
	for (unsigned i = 0; i < PT_ENTRIES; i++)
		((uint64_t *)(uintptr_t)f)[i] = root[i];
	write_cr3(f);
	return 0;
}

void inject_begin(struct check_run *run, const struct ptlab_check *c, uint64_t arg)
{
	if (!inject_on(run->opts, c) || !c->fault.plant)
		return;
	if (c->fault.plant(run, c, arg))
		report_note(run->rep, "inject: %s could not be planted (va 0x%llx)", c->fault.name,
			    (unsigned long long)arg);
	else
		report_note(run->rep, "inject: %s planted", c->fault.name);
}

/* Take back one recorded change; PT_OK when done. */
static int undo_one(struct check_run *run, const struct ptlab_inject_undo *u)
{
	struct pt_flushlist fl = { .n = 0 };
	int err = PT_OK;

	switch ((enum undo_kind)u->kind) {
	case UNDO_PROTECT:
		err = pt_protect(&run->build->space, u->va, PT_PAGE_SIZE, u->flags, &fl);
		break;
	case UNDO_REMAP:
		err = pt_remap(&run->build->space, u->va, PT_PAGE_SIZE, u->pa, 0, &fl);
		break;
	case UNDO_MAP:
		err = pt_unmap(&run->build->space, u->va, PT_PAGE_SIZE, 0, &fl);
		break;
	case UNDO_ROOT_ENTRY:
		((uint64_t *)(uintptr_t)run->build->space.root_pa)[u->va] = u->pa;
		fl = (struct pt_flushlist){ .all = true };
		break;
	case UNDO_CR3:
		write_cr3(run->build->our_cr3);   /* a reload: nothing else to flush */
		break;
	}
	if (err == PT_OK)
		flush(run, &fl);
	return err;
}

void inject_end(struct check_run *run, const struct ptlab_check *c)
{
	struct ptlab_inject *in = run->inject;

	if (!inject_on(run->opts, c))
		return;
	for (unsigned i = in->n; i-- > 0;) {
		const struct ptlab_inject_undo u = in->undo[i];
		int err;

		if (u.owner != c)
			continue;
		err = undo_one(run, &u);
		if (err != PT_OK)
			report_note(run->rep, "inject: %s: undoing it at 0x%llx failed: %s",
				    c->fault.name, (unsigned long long)u.va, pt_strerror(err));
		else if (u.frame)
			pt_frames_free(&run->build->frames, u.frame);
		/* close the gap */
		for (unsigned k = i; k + 1 < in->n; k++)
			in->undo[k] = in->undo[k + 1];
		in->n--;
	}
	if (c->fault.remove)
		c->fault.remove(run, c);
}
