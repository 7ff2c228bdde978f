/* SPDX-License-Identifier: MIT */
/*
 * The words of an option source (see lex.h).  Firmware-free.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opts/lex.h"
#include "opts/opts.h"

#define TOKEN_MAX (OPTS_CMDLINE_MAX + 16)   /* "--cmdline=" and its value */

int opts_lex(const struct opts_text *s, bool comments, bool skip_argv0,
	     struct opts *out, char *err, size_t errlen)
{
	struct opts_seen seen = { 0 };
	struct opts o;
	size_t i = 0;
	unsigned int ntok = 0, nopt = 0;

	opts_defaults(&o);
	opts_defaults(out);
	for (;;) {
		char tok[TOKEN_MAX];
		size_t len = 0;
		bool quoted = false, any = false;

		while (i < s->n && (opts_is_blank(opts_unit(s, i)) ||
				    (comments && opts_unit(s, i) == '#'))) {
			if (opts_unit(s, i) == '#')
				while (i < s->n && opts_unit(s, i) != '\n')
					i++;
			else
				i++;
		}
		if (i >= s->n)
			break;
		for (; i < s->n; i++) {
			unsigned int c = opts_unit(s, i);
			bool escaped = false;

			/*
			 * \" is a quote that is text, in quotes or not: the one
			 * escape, so that a Linux command line can hold quotes.
			 * Any other backslash is text (UEFI path separators).
			 */
			if (c == '\\' && i + 1 < s->n && opts_unit(s, i + 1) == '"') {
				c = opts_unit(s, ++i);
				escaped = true;
			}
			if (c == '"' && !escaped) {
				quoted = !quoted;
				any = true;
				continue;
			}
			if (!quoted && (opts_is_blank(c) || (comments && c == '#')))
				break;
			if (len + 1 >= sizeof(tok)) {
				tok[len] = '\0';
				opts_set_err(err, errlen, "option too long: '%.40s...'",
					tok);
				return OPTS_ERROR;
			}
			tok[len++] = (char)c;
			any = true;
		}
		if (quoted) {
			opts_set_err(err, errlen, "unterminated quote");
			return OPTS_ERROR;
		}
		tok[len] = '\0';
		if (!any)
			continue;
		if (ntok++ == 0 && skip_argv0 && tok[0] != '-')
			continue;
		if (len == 0)
			continue;	/* "" */
		if (!opts_apply(&o, &seen, tok, err, errlen))
			return OPTS_ERROR;
		nopt++;
	}
	if (!nopt)
		return OPTS_EMPTY;
	*out = o;
	return OPTS_OK;
}
