/* SPDX-License-Identifier: MIT */
/*
 * Freestanding snprintf subset for report lines.
 *
 * No firmware types: the same code runs in the UEFI app and in host tests,
 * where it is checked against the host C library.
 */
#ifndef PTLAB_EFI_FMT_H
#define PTLAB_EFI_FMT_H

#include <stdarg.h>
#include <stddef.h>

/**
 * fmt_vsnprintf() - format into a bounded buffer
 * @buf:  destination, may be NULL when @size is 0
 * @size: bytes available in @buf including the terminating NUL
 * @fmt:  format string
 * @ap:   arguments
 *
 * Conversions: %s %c %d %i %u %x %X %p %%, length modifiers hh h l ll z,
 * flags '-' and '0', a width, a precision (digits or '*'; for %s the
 * maximum number of bytes, for integers the minimum number of digits as in
 * C).  %p prints 0x followed by lowercase hex (0x0 for NULL); %s of NULL
 * prints "(null)".  An unknown conversion is copied to the output as is.
 *
 * Return: the length the full output would have (excluding the NUL), as
 * snprintf does.  When @size > 0 the output is always NUL-terminated and
 * never longer than @size - 1 bytes.
 */
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

/**
 * fmt_snprintf() - fmt_vsnprintf() with a variable argument list
 *
 * Return: as fmt_vsnprintf().
 */
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The length of the string @s, without its NUL (no C library here). */
size_t fmt_strlen(const char *s);

#endif
