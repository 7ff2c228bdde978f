/* SPDX-License-Identifier: MIT */
/* The shadow address space's runs (see model.h).  No firmware calls. */
#include "lib/model.h"

#include <stddef.h>

void model_init(struct model *m, struct model_run *storage, unsigned cap)
{
	m->run = storage;
	m->n = 0;
	m->cap = cap;
}

/* Index of the first run that ends after @va. */
static unsigned first_after(const struct model *m, uint64_t va)
{
	unsigned lo = 0, hi = m->n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (m->run[mid].va + m->run[mid].len - 1 < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void move_runs(struct model *m, unsigned to, unsigned from)
{
	unsigned count = m->n - from;

	if (to < from)
		for (unsigned i = 0; i < count; i++)
			m->run[to + i] = m->run[from + i];
	else
		for (unsigned i = count; i-- > 0;)
			m->run[to + i] = m->run[from + i];
	m->n = to + count;
}

int model_set(struct model *m, uint64_t va, uint64_t len, bool mapped, uint64_t pa,
	      unsigned attrs)
{
	uint64_t last = va + len - 1;
	unsigned i = first_after(m, va), j = i;
	struct model_run head = { 0 }, tail = { 0 };
	unsigned keep = 0, need;

	/* runs i..j-1 intersect [va, last]; the first and last may stick out */
	while (j < m->n && m->run[j].va <= last)
		j++;
	if (i < j && m->run[i].va < va) {
		head = m->run[i];
		head.len = va - head.va;
		keep++;
	}
	if (i < j && m->run[j - 1].va + m->run[j - 1].len - 1 > last) {
		const struct model_run *r = &m->run[j - 1];

		tail = *r;
		tail.va = last + 1;
		tail.len = r->va + r->len - 1 - last;
		tail.pa = r->pa + (tail.va - r->va);
		keep++;
	}
	need = keep + (mapped ? 1 : 0);
	if (m->n - (j - i) + need > m->cap)
		return -1;
	move_runs(m, i + need, j);
	if (head.len)
		m->run[i++] = head;
	if (mapped)
		m->run[i++] = (struct model_run){ va, len, pa, attrs };
	if (tail.len)
		m->run[i++] = tail;
	return 0;
}

const struct model_run *model_find(const struct model *m, uint64_t va)
{
	unsigned i = first_after(m, va);

	return i < m->n && m->run[i].va <= va ? &m->run[i] : NULL;
}

const struct model_run *model_next(const struct model *m, uint64_t va)
{
	unsigned i = first_after(m, va);

	return i < m->n ? &m->run[i] : NULL;
}

void model_merge(struct model *m)
{
	unsigned w = 0;

	for (unsigned i = 0; i < m->n; i++) {
		struct model_run *p = w ? &m->run[w - 1] : NULL;
		const struct model_run *r = &m->run[i];

		if (p && p->va + p->len == r->va && p->pa + p->len == r->pa && p->attrs == r->attrs) {
			p->len += r->len;
			continue;
		}
		m->run[w++] = *r;
	}
	m->n = w;
}

uint64_t model_mapped_bytes(const struct model *m, uint64_t va, uint64_t len)
{
	uint64_t last = va + len - 1, bytes = 0;

	for (unsigned i = first_after(m, va); i < m->n && m->run[i].va <= last; i++) {
		uint64_t a = m->run[i].va > va ? m->run[i].va : va;
		uint64_t b = m->run[i].va + m->run[i].len - 1 < last ? m->run[i].va + m->run[i].len - 1 : last;

		bytes += b - a + 1;
	}
	return bytes;
}
