/* SPDX-License-Identifier: MIT */
/*
 * Options from \ptlab.cfg (see cfgfile.h): what editors write, ASCII,
 * UTF-8 with a byte-order mark or UTF-16LE, with '#' comments.
 * Firmware-free.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opts/cfgfile.h"
#include "opts/lex.h"
#include "opts/opts.h"

/* Unit @i of @s and all after it are NUL: the file is padded (a disk image tool's block). */
static bool nul_to_the_end(const struct opts_text *s, size_t i)
{
	for (; i < s->n; i++)
		if (opts_unit(s, i) != 0)
			return false;
	return true;
}

int opts_parse_ascii(const char *s, size_t n, struct opts *o, char *err,
		     size_t errlen)
{
	struct opts_text src = { (const uint8_t *)s, s ? n : 0, 1 };
	size_t skip = 0;

	/* what editors put first: a UTF-8 BOM is skipped, UTF-16LE read as such */
	if (src.n >= 3 && src.b[0] == 0xef && src.b[1] == 0xbb && src.b[2] == 0xbf) {
		skip = 3;
	} else if (src.n >= 2 && src.b[0] == 0xff && src.b[1] == 0xfe) {
		if (src.n & 1) {
			opts_defaults(o);
			opts_set_err(err, errlen, "config starts as UTF-16LE (byte-order mark 0xff 0xfe) "
				"but has an odd number of bytes");
			return OPTS_ERROR;
		}
		src.width = 2;
		skip = 2;
	} else if (src.n >= 2 && src.b[0] == 0xfe && src.b[1] == 0xff) {
		opts_defaults(o);
		opts_set_err(err, errlen, "config is UTF-16 big-endian (byte-order mark 0xfe 0xff): "
			"save it as ASCII, UTF-8 or UTF-16LE");
		return OPTS_ERROR;
	}
	src.b += skip;
	src.n = (src.n - skip) / src.width;
	for (size_t i = 0; i < src.n; i++) {
		unsigned int c = opts_unit(&src, i);

		if (opts_is_text(c))
			continue;
		opts_defaults(o);
		if (c == 0 && i != 1 && nul_to_the_end(&src, i))
			opts_set_err(err, errlen, "ptlab.cfg: NUL byte at offset %zu: the file is "
				     "padded; save it as plain text", skip + src.width * i);
		else if (src.width == 2)
			opts_set_err(err, errlen, "character U+%04X at offset %zu of the UTF-16 config "
				"is not ASCII: options are ASCII only", c, skip + 2 * i);
		else if (c == 0 && i == 1)
			opts_set_err(err, errlen, "bad byte 0x00 at offset 1 in config: UTF-16 without "
				"a byte-order mark? save it as ASCII or UTF-8");
		else
			opts_set_err(err, errlen, "bad byte 0x%02x at offset %zu in config%s", c,
				skip + i, c >= 0x80 ? ": not ASCII (options are ASCII only)" : "");
		return OPTS_ERROR;
	}
	return opts_lex(&src, true, false, o, err, errlen);
}
