/* SPDX-License-Identifier: MIT */
/*
 * How a polled transmitter is written (serline.c): the wait for it per
 * line, what happens after a stall, and the bytes lost.  Firmware-free and
 * machine-free: the port's register reads, writes and the clock are the
 * caller's (report/serial.c: COM1 and the TSC), so a host test drives it
 * with a port of its own.
 *
 * A write waits for the transmitter up to a budget of clock ticks from its
 * start (@full): a stall shorter than that is waited out.  When the budget
 * runs out the rest of the text is counted as lost and the port is marked
 * stalled: later writes wait only @probe ticks for it, and the first byte
 * that goes out gives them the full budget again.  A port is given up for
 * good only when no byte ever went out.  A line whose end was lost is
 * ended ("\r\n") before the next text, so no two lines run together.
 */
#ifndef PTLAB_EFI_SERLINE_H
#define PTLAB_EFI_SERLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The port: may a byte be written now, write one, read the clock. */
struct serline_port {
	bool (*ready)(void *ctx);
	void (*put)(void *ctx, uint8_t c);
	uint64_t (*now)(void *ctx);
	void *ctx;
};

struct serline {
	uint64_t full;       /* ticks a write may wait for the transmitter */
	uint64_t probe;      /* the same while the port is stalled */
	uint64_t lost;       /* bytes of text not sent (a "\n" counts one) */
	uint64_t stalls;     /* writes whose budget ran out */
	bool worked;         /* a byte went out once */
	bool stalled;        /* the last write's budget ran out */
	bool at_start;       /* the last byte that went out ended a line (or none did) */
	bool cut;            /* a line lost its end: the next text starts a new one */
	bool dead;           /* the budget ran out before any byte ever went out */
};

/* A port never written, with the budgets @full and @probe (ticks). */
void serline_init(struct serline *s, uint64_t full, uint64_t probe);

/*
 * Send @n bytes of @text ("\n" as "\r\n") through @port.  Returns the bytes
 * of @text sent; the rest is added to s->lost.  A dead port sends nothing
 * and does not wait.
 */
size_t serline_write(struct serline *s, const struct serline_port *port, const char *text,
		     size_t n);

#endif
