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

/* LSR polls per byte before the UART is declared dead. */
#define SERIAL_POLL_LIMIT 100000

/**
 * serial_init() - probe COM1 and program it to 115200 8N1, FIFO on
 *
 * Probes through the scratch register (writes 0x5A and 0xA5, reads them
 * back) before touching anything else.  When the port is absent every later
 * serial_write() does nothing.
 *
 * Return: true when a UART answered.
 */
bool serial_init(void);

/**
 * serial_present() - true while COM1 is present and not declared dead
 */
bool serial_present(void);

/**
 * serial_write() - send @n bytes of @s, "\n" as "\r\n"
 *
 * Waits for THRE before each byte, at most SERIAL_POLL_LIMIT polls; on
 * timeout the UART is marked dead and the rest (and all later writes) are
 * dropped.  No-op before serial_init() or when the port is absent.
 */
void serial_write(const char *s, size_t n);

#endif
