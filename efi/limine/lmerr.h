/* SPDX-License-Identifier: MIT */
/*
 * The Limine core's refusals (lmerr.c): every function of efi/limine/
 * that refuses says why in a caller's buffer and returns -1.
 */
#ifndef PTLAB_EFI_LMERR_H
#define PTLAB_EFI_LMERR_H

#include <stddef.h>

/* Formats the reason into @why (@whylen bytes; NULL or 0: none); returns -1. */
int lm_refuse(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
