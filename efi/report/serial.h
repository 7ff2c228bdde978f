/* SPDX-License-Identifier: MIT */
/*
 * COM1 (16550 at I/O port 0x3F8) by port I/O.
 *
 * Needs no firmware service and no memory, so it also works after
 * ExitBootServices and while our own page tables are loaded.
 */
#ifndef PTLAB_EFI_SERIAL_H
#define PTLAB_EFI_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * How long one write (a line, or its line break) may wait for the
 * transmitter, and the same while it is stalled (report/serline.h): a
 * stall shorter than SERIAL_LINE_US is waited out, a longer one loses the
 * rest of that write, and later writes try again.
 */
#define SERIAL_LINE_US  3000000u
#define SERIAL_PROBE_US 20000u

/**
 * serial_init() - probe COM1 and program it to 115200 8N1, FIFO on
 *
 * Probes through the scratch register (writes 0x5A and 0xA5, reads them
 * back) before touching anything else.  When the port is absent every later
 * serial_write() does nothing.  Called again, it keeps what was counted
 * (bytes lost, whether the port ever worked).
 *
 * Return: true when a UART answered.
 */
bool serial_init(void);

/**
 * serial_present() - true while COM1 is present and not given up: it is
 * given up only when a write ran out of time before any byte ever went out
 */
bool serial_present(void);

/**
 * serial_set_clock() - the TSC's rate, for the budgets (0: keep the guess)
 */
void serial_set_clock(uint64_t tsc_per_us);

/**
 * serial_write() - send @n bytes of @s, "\n" as "\r\n"
 *
 * Waits for THRE before each byte, up to SERIAL_LINE_US from the start of
 * the write (SERIAL_PROBE_US while the port is stalled); what does not go
 * out in time is counted in serial_lost() and the next write tries again.
 * No-op before serial_init() or when the port is absent.
 */
void serial_write(const char *s, size_t n);

/**
 * serial_write_line_again() - @s and a line break, with the full budget even
 * while the port is stalled (the closing line, when part of it was lost)
 *
 * Return: the bytes of it lost this time (0: it went out whole).
 */
uint64_t serial_write_line_again(const char *s, size_t n);

/**
 * serial_lost() - bytes of text serial_write() could not send, this boot
 */
uint64_t serial_lost(void);

#endif
