/* SPDX-License-Identifier: MIT */
/*
 * COM1 by port I/O.  Register offsets from the 16550 data sheet.  How long
 * a line waits for the transmitter, and what a stall costs, is serline.c's.
 *
 * No firmware calls.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "report/serial.h"
#include "report/serline.h"

#define COM1 0x3f8

#define UART_THR 0	/* transmit holding (DLAB=0) */
#define UART_DLL 0	/* divisor low (DLAB=1) */
#define UART_IER 1	/* interrupt enable (DLAB=0) */
#define UART_DLM 1	/* divisor high (DLAB=1) */
#define UART_FCR 2	/* FIFO control */
#define UART_LCR 3	/* line control */
#define UART_MCR 4	/* modem control */
#define UART_LSR 5	/* line status */
#define UART_SCR 7	/* scratch */

#define LCR_8N1  0x03
#define LCR_DLAB 0x80
#define FCR_ENABLE_CLEAR_14 0xc7	/* enable, clear both FIFOs, trigger 14 */
#define MCR_DTR_RTS_OUT2 0x0b
#define LSR_THRE 0x20

static enum { SERIAL_UNKNOWN, SERIAL_ABSENT, SERIAL_OK } state;
static struct serline line;

/* Until the TSC is calibrated (serial_set_clock) a tick is taken for a nanosecond. */
#define TICKS_PER_US_GUESS 1000u

static bool thre(void *ctx)
{
	(void)ctx;
	return inb(COM1 + UART_LSR) & LSR_THRE;
}

static void thr(void *ctx, uint8_t c)
{
	(void)ctx;
	outb(COM1 + UART_THR, c);
}

static uint64_t tsc(void *ctx)
{
	(void)ctx;
	return rdtsc();
}

static const struct serline_port com1 = { .ready = thre, .put = thr, .now = tsc };

void serial_set_clock(uint64_t tsc_per_us)
{
	if (!line.full)
		serline_init(&line, 0, 0);
	if (tsc_per_us) {
		line.full = SERIAL_LINE_US * tsc_per_us;
		line.probe = SERIAL_PROBE_US * tsc_per_us;
	}
}

uint64_t serial_lost(void)
{
	return line.lost;
}

bool serial_init(void)
{
	uint8_t saved = inb(COM1 + UART_SCR);

	outb(COM1 + UART_SCR, 0x5a);
	if (inb(COM1 + UART_SCR) != 0x5a)
		goto absent;
	outb(COM1 + UART_SCR, 0xa5);
	if (inb(COM1 + UART_SCR) != 0xa5)
		goto absent;
	outb(COM1 + UART_SCR, saved);

	outb(COM1 + UART_IER, 0);		/* polled, no interrupts */
	outb(COM1 + UART_LCR, LCR_DLAB);
	outb(COM1 + UART_DLL, 1);		/* 115200 = 1.8432 MHz / 16 / 1 */
	outb(COM1 + UART_DLM, 0);
	outb(COM1 + UART_LCR, LCR_8N1);
	outb(COM1 + UART_FCR, FCR_ENABLE_CLEAR_14);
	outb(COM1 + UART_MCR, MCR_DTR_RTS_OUT2);
	if (!line.full) {
		/* the first time: budgets by the guess until the clock is set */
		serline_init(&line, SERIAL_LINE_US * TICKS_PER_US_GUESS,
			     SERIAL_PROBE_US * TICKS_PER_US_GUESS);
	}
	state = SERIAL_OK;
	return true;

absent:
	state = SERIAL_ABSENT;
	return false;
}

bool serial_present(void)
{
	return state == SERIAL_OK && !line.dead;
}

void serial_write(const char *s, size_t n)
{
	if (state == SERIAL_OK)
		serline_write(&line, &com1, s, n);
}

uint64_t serial_write_line_again(const char *s, size_t n)
{
	uint64_t before = line.lost;

	if (state != SERIAL_OK)
		return 0;
	line.stalled = false;   /* the full budget, not the stalled port's */
	serline_write(&line, &com1, s, n);
	serline_write(&line, &com1, "\n", 1);
	return line.lost - before;
}
