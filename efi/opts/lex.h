/* SPDX-License-Identifier: MIT */
/*
 * The words of an option source (lex.c): text as 8- or 16-bit units, cut
 * into "--name[=value]" tokens, each applied to the option table
 * (opts_apply()).  The sources (loadopts.c: LoadOptions; cfgfile.c:
 * \ptlab.cfg) decide what text is theirs; this file only splits it.
 * Firmware-free.
 */
#ifndef PTLAB_EFI_OPTS_LEX_H
#define PTLAB_EFI_OPTS_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opts/opts.h"

/* Input as 8- or 16-bit little-endian units, read bytewise (any alignment). */
struct opts_text {
	const uint8_t *b;
	size_t n;		/* units */
	unsigned int width;	/* 1 or 2 bytes per unit */
};

static inline unsigned int opts_unit(const struct opts_text *s, size_t i)
{
	if (s->width == 1)
		return s->b[i];
	return s->b[2 * i] | (unsigned int)s->b[2 * i + 1] << 8;
}

static inline bool opts_is_blank(unsigned int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static inline bool opts_is_text(unsigned int c)
{
	return (c >= 0x20 && c <= 0x7e) || opts_is_blank(c);
}

/**
 * opts_lex() - split @s into words and apply each as an option
 * @s:          text units, every one text (the caller has checked)
 * @comments:   '#' outside quotes starts a comment to the end of the line
 * @skip_argv0: skip a first word that does not start with '-'
 * @out:        the options (the defaults unless OPTS_OK)
 *
 * A word is blank-separated; "..." quotes blanks, \" is a literal quote.
 * Return: OPTS_OK, OPTS_EMPTY (no option) or OPTS_ERROR (@err says why).
 */
int opts_lex(const struct opts_text *s, bool comments, bool skip_argv0,
	     struct opts *out, char *err, size_t errlen);

#endif /* PTLAB_EFI_OPTS_LEX_H */
