/* SPDX-License-Identifier: MIT */
/*
 * COM1 by port I/O.  Register offsets from the 16550 data sheet.
 *
 * No firmware calls.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "report/serial.h"

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

static enum { SERIAL_UNKNOWN, SERIAL_ABSENT, SERIAL_OK, SERIAL_DEAD } state;

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
	state = SERIAL_OK;
	return true;

absent:
	state = SERIAL_ABSENT;
	return false;
}

bool serial_present(void)
{
	return state == SERIAL_OK;
}

static bool put(uint8_t c)
{
	for (unsigned int i = 0; i < SERIAL_POLL_LIMIT; i++) {
		if (inb(COM1 + UART_LSR) & LSR_THRE) {
			outb(COM1 + UART_THR, c);
			return true;
		}
	}
	state = SERIAL_DEAD;
	return false;
}

void serial_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n && state == SERIAL_OK; i++) {
		if (s[i] == '\n' && !put('\r'))
			break;
		put((uint8_t)s[i]);
	}
}
