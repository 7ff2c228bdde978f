/* SPDX-License-Identifier: MIT */
/*
 * The walk's bookkeeping (walk.h): the flush list a changing call fills
 * (pt_fl_add) and hands to the environment (pt_fl_barrier), and the frame
 * lists - the frames a call reserves before it changes anything, the
 * tables it unlinks until the flush (pt_list_push, pt_list_free,
 * pt_reserve_frames).  Calls nothing of the walk: pt.c and bulk.c call it.
 */
#include <ptlab/pt.h>

#include "walk.h"

/* ---- flush lists ---------------------------------------------------------- */

void pt_fl_add(struct pt_flushlist *fl, uint64_t va, uint64_t last, bool global)
{
	struct pt_range *r;

	fl->global |= global;
	if (fl->all)
		return;
	if (fl->n) {
		r = &fl->r[fl->n - 1];
		/*
		 * Adjacent or overlapping: va at most one past r's last byte.
		 * Measured from r->va, since r->va + r->len is 0 (wrapped) for
		 * a range that ends at 2^64, the last page of the address space.
		 */
		if (va >= r->va && va - r->va <= r->len) {
			if (last - r->va + 1 > r->len)
				r->len = last - r->va + 1;
			return;
		}
	}
	if (fl->n == PT_FLUSHLIST_MAX) {
		fl->all = true;
		return;
	}
	fl->r[fl->n].va = va;
	fl->r[fl->n].len = last - va + 1;
	fl->n++;
}

void pt_fl_barrier(const struct walk *w, const struct pt_flushlist *fl)
{
	if (w->env->flush)
		w->env->flush(w->env->ctx, fl);
}

/* ---- frames ----------------------------------------------------------------- */

/* The lists' encoding, list_take and take_frame: walk.h. */

/*
 * Frame @pa becomes @l's last list page, empty; the first one when @l has
 * none (the caller links it after the current last page otherwise).
 */
static uint64_t *list_page_start(const struct pt_env *env, struct frame_list *l, uint64_t pa)
{
	uint64_t *t = tab(env, pa);

	if (!l->head) {
		l->head = pa;
		l->taken = 0;
	}
	t[0] = 0;
	t[1] = 0;
	l->tail = pa;
	return t;
}

void pt_list_push(const struct pt_env *env, struct frame_list *l, uint64_t pa)
{
	uint64_t *t, n;

	if (l->head) {
		t = tab(env, l->tail);
		n = t[1] >> LIST_COUNT_SHIFT;
		if (n < LIST_SLOTS) {
			t[2 + n] = pa;
			t[1] = (n + 1) << LIST_COUNT_SHIFT;
			return;
		}
		t[0] = pa;   /* a new list page after this one */
	}
	list_page_start(env, l, pa);
}

uint64_t pt_list_free(const struct pt_env *env, struct frame_list *l)
{
	uint64_t n = 0;

	for (; l->head; n++)
		env->free_frame(env->ctx, list_take(env, l));
	return n;
}

/*
 * Allocate w->need frames into w->reserve: list_push's work with the list
 * page and its count kept in locals (a map of a GiB of 4 KiB pages takes
 * 514 frames), the count stored once per list page.
 */
int pt_reserve_frames(struct walk *w)
{
	const struct pt_env *env = w->env;
	struct frame_list *l = &w->reserve;
	uint64_t *page = NULL, n = 0, pa;

	for (uint64_t i = 0; i < w->need; i++) {
		if (env->alloc_frame(env->ctx, &pa) != PT_OK) {
			if (page)
				page[1] = n << LIST_COUNT_SHIFT;
			pt_list_free(env, l);
			return PT_ENOMEM;
		}
		if (page && n < LIST_SLOTS) {
			page[2 + n++] = pa;
			continue;
		}
		/* pa becomes a list page, after the current one if any */
		if (page) {
			page[1] = n << LIST_COUNT_SHIFT;
			page[0] = pa;
		}
		page = list_page_start(env, l, pa);
		n = 0;
	}
	if (page)
		page[1] = n << LIST_COUNT_SHIFT;
	return PT_OK;
}
