/* SPDX-License-Identifier: MIT */
/*
 * What the option tests (test_opts.c, test_optsrc.c, test_bootopts.c) share:
 * a line given as the shell gives it (ASCII widened to UCS-2 with its NUL),
 * as \ptlab.cfg gives it (ASCII), the check that nothing moved from the
 * defaults, and what a refused stray word adds.  Include after unit.h.
 */
#ifndef PTLAB_TEST_OPTSFX_H
#define PTLAB_TEST_OPTSFX_H

#include <string.h>

#include "../../efi/opts/cfgfile.h"
#include "../../efi/opts/loadopts.h"
#include "../../efi/opts/opts.h"

/* what the refusal of a stray word adds: how to quote through a boot manager */
#define STRAY_HINT ": a value with blanks is one quoted word, \"--cmdline=a b\"; " \
	"GRUB strips quotes: write '\"--cmdline=a b\"'"

/* ASCII -> UCS-2 with the terminating NUL, as LoadOptions carries it. */
static inline size_t ucs2(const char *s, uint16_t *out, size_t max)
{
	size_t n = strlen(s);

	assert_true(n + 1 <= max);
	for (size_t i = 0; i <= n; i++)
		out[i] = (uint8_t)s[i];
	return n + 1;
}

/* @s parsed as a shell passes it: UCS-2 LoadOptions. */
static inline int parse_cmdline(const char *s, struct opts *o, char *err, size_t errlen)
{
	uint16_t w[512];
	size_t n = ucs2(s, w, 512);

	return opts_parse_ucs2(w, n, o, err, errlen);
}

/* @s parsed as \ptlab.cfg gives it: ASCII. */
static inline int ascii(const char *s, struct opts *o, char *err, size_t errlen)
{
	return opts_parse_ascii(s, strlen(s), o, err, errlen);
}

/* @s as \ptlab.cfg gives it: accepted, into @o (the refusal's message if not). */
static inline void ascii_ok(const char *s, struct opts *o)
{
	char err[300] = "";
	int rc = ascii(s, o, err, sizeof(err));

	if (rc != OPTS_OK)
		fail_msg("\"%s\": %d, want OPTS_OK (%s)", s, rc, err);
}

/* @o is the defaults, to the byte. */
static inline void assert_defaults(const struct opts *o)
{
	struct opts d;

	opts_defaults(&d);
	assert_memory_equal(o, &d, sizeof(d));
}

#endif
