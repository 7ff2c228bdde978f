/* SPDX-License-Identifier: MIT */
/* Writing a polled transmitter with a budget per line (see serline.h).  No firmware calls. */
#include "report/serline.h"

void serline_init(struct serline *s, uint64_t full, uint64_t probe)
{
	*s = (struct serline){ .full = full, .probe = probe, .at_start = true };
}

/*
 * One byte out, waiting for the transmitter until *@deadline; a byte that
 * goes out after a stall gives the write the full budget again.  Returns
 * false when the deadline passed first.
 */
static bool put_one(struct serline *s, const struct serline_port *port, uint8_t c,
		    uint64_t *deadline)
{
	while (!port->ready(port->ctx))
		if (port->now(port->ctx) >= *deadline)
			return false;
	port->put(port->ctx, c);
	s->worked = true;
	s->at_start = c == '\n';
	if (s->stalled) {
		s->stalled = false;
		*deadline = port->now(port->ctx) + s->full;
	}
	return true;
}

size_t serline_write(struct serline *s, const struct serline_port *port, const char *text,
		     size_t n)
{
	uint64_t deadline;
	size_t i = 0;

	if (s->dead) {
		s->lost += n;
		return 0;
	}
	deadline = port->now(port->ctx) + (s->stalled ? s->probe : s->full);
	/* a line cut short before: end it, unless this text does */
	if (s->cut && n && text[0] != '\n') {
		if (!put_one(s, port, '\r', &deadline) || !put_one(s, port, '\n', &deadline))
			goto stall;
		s->cut = false;
	}
	for (; i < n; i++) {
		if (text[i] == '\n' && !put_one(s, port, '\r', &deadline))
			goto stall;
		if (!put_one(s, port, (uint8_t)text[i], &deadline))
			goto stall;
	}
	if (n && s->at_start)
		s->cut = false;
	return n;

stall:
	s->lost += n - i;
	s->stalls++;
	s->stalled = true;
	s->cut = !s->at_start;
	if (!s->worked)
		s->dead = true;   /* it never worked at all */
	return i;
}
