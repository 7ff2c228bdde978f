/* SPDX-License-Identifier: MIT */
/*
 * Options from LoadOptions (see loadopts.h): UCS-2 text as a shell passes
 * it, or a boot manager's optional data, which may be binary, another
 * program's text, or ours.  Firmware-free.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opts/lex.h"
#include "opts/loadopts.h"
#include "opts/opts.h"

/* The text units of @s (checked by text_units()) hold a word starting with "--". */
static bool has_dashdash_word(const struct opts_text *s)
{
	for (size_t i = 0; i + 1 < s->n; i++)
		if ((i == 0 || opts_is_blank(opts_unit(s, i - 1)) || opts_unit(s, i - 1) == '"') &&
		    opts_unit(s, i) == '-' && opts_unit(s, i + 1) == '-')
			return true;
	return false;
}

/* Number of text units before trailing NULs, or -1 if @s is not text. */
static long text_units(const struct opts_text *s)
{
	size_t n;

	for (n = 0; n < s->n && opts_unit(s, n) != 0; n++)
		if (!opts_is_text(opts_unit(s, n)))
			return -1;
	for (size_t i = n; i < s->n; i++)
		if (opts_unit(s, i) != 0)
			return -1;
	return (long)n;
}

/* A printable character outside ASCII: not a control, surrogate or noncharacter. */
static bool is_wide_text(unsigned int c)
{
	return c >= 0xa0 && !(c >= 0xd800 && c <= 0xdfff) && c != 0xfffe && c != 0xffff;
}

/*
 * Text as the shell passes it, but with characters beyond ASCII: a command
 * line with a character the options cannot hold, not boot-entry data.
 * Index of the first such character, or -1 when @s is not such a line.
 */
static long wide_command_line(const struct opts_text *s)
{
	size_t n, ascii = 0;
	long first = -1;

	if (s->width != 2)
		return -1;
	for (n = 0; n < s->n && opts_unit(s, n) != 0; n++) {
		unsigned int c = opts_unit(s, n);

		if (opts_is_text(c))
			ascii++;
		else if (is_wide_text(c) && first < 0)
			first = (long)n;
		else if (!is_wide_text(c))
			return -1;
	}
	for (size_t i = n; i < s->n; i++)
		if (opts_unit(s, i) != 0)
			return -1;
	/* mostly ASCII, with an option in it: what a person typed */
	if (first < 0 || ascii < 2 * (n - ascii))
		return -1;
	for (size_t i = 0; i + 1 < n; i++)
		if (opts_unit(s, i) == '-' && opts_unit(s, i + 1) == '-')
			return first;
	return -1;
}

static int parse_units(struct opts_text *s, struct opts *o, char *err, size_t errlen)
{
	/* Text, then optionally NULs up to the very end. */
	long n = text_units(s), wide;

	if (n >= 0) {
		s->n = (size_t)n;
		return opts_lex(s, false, true, o, err, errlen);
	}
	opts_defaults(o);
	wide = wide_command_line(s);
	if (wide >= 0) {
		opts_set_err(err, errlen, "character U+%04X at position %ld of the command line is "
			"not ASCII: options are ASCII only", opts_unit(s, (size_t)wide), wide);
		return OPTS_ERROR;
	}
	return OPTS_BINARY;
}

int opts_parse_ucs2(const uint16_t *s, size_t nchars, struct opts *o,
		    char *err, size_t errlen)
{
	struct opts_text src = { (const uint8_t *)s, s ? nchars : 0, 2 };

	return parse_units(&src, o, err, errlen);
}

int opts_parse_load_options(const void *data, size_t bytes, struct opts *o,
			    char *err, size_t errlen)
{
	struct opts_text src = { data, data ? bytes / 2 : 0, 2 };

	if (bytes & 1) {
		opts_defaults(o);
		return OPTS_BINARY;
	}
	return parse_units(&src, o, err, errlen);
}

int opts_parse_boot_options(const void *data, size_t bytes, bool from_shell,
			    struct opts *o, char *err, size_t errlen)
{
	struct opts_text src = { data, data ? bytes / 2 : 0, 2 };
	long n;

	if (from_shell)
		return opts_parse_load_options(data, bytes, o, err, errlen);
	opts_defaults(o);
	if ((bytes & 1) || (n = text_units(&src)) < 0)
		return OPTS_BINARY;
	src.n = (size_t)n;
	if (!has_dashdash_word(&src)) {
		size_t k = 0, i = 0;

		while (i < src.n && opts_is_blank(opts_unit(&src, i)))
			i++;
		if (i == src.n)
			return OPTS_EMPTY;
		/* the text for the report: blanks folded, at most 100 characters */
		for (; i < src.n && err && k + 4 < errlen && k < 100; i++) {
			unsigned int c = opts_unit(&src, i);

			if (opts_is_blank(c) && (k == 0 || err[k - 1] == ' '))
				continue;
			err[k++] = opts_is_blank(c) ? ' ' : c == '"' ? '\'' : (char)c;
		}
		while (k && err[k - 1] == ' ')
			k--;
		if (err && errlen) {
			if (i < src.n && k + 4 <= errlen) {
				err[k++] = '.';
				err[k++] = '.';
				err[k++] = '.';
			}
			err[k < errlen ? k : errlen - 1] = '\0';
		}
		return OPTS_FOREIGN;
	}
	return opts_lex(&src, false, false, o, err, errlen);
}

bool opts_stop_waits(const struct opts *o, bool refused, bool from_shell)
{
	return (refused || o->help) && !from_shell;
}
