/* SPDX-License-Identifier: MIT */
/*
 * Options from \ptlab.cfg (cfgfile.c), the file on the boot volume read
 * when LoadOptions hold none.  Firmware-free.
 */
#ifndef PTLAB_EFI_OPTS_CFGFILE_H
#define PTLAB_EFI_OPTS_CFGFILE_H

#include <stddef.h>

#include "opts/opts.h"

/**
 * opts_parse_ascii() - parse a config file's content (\ptlab.cfg)
 * @s: the bytes, @n of them
 *
 * The same options separated by blanks or newlines; '#' starts a comment
 * that runs to the end of the line.  No argv[0].  A UTF-8 byte-order mark
 * is skipped; a file starting with the UTF-16LE one (0xff 0xfe) is read
 * as UTF-16LE.  A byte (character) outside ASCII text is an error naming
 * it and its offset, and UTF-16 big-endian or without a byte-order mark
 * is named as such.  NULs that run to the end of the file (a padded
 * file) are refused as padding, with the offset of the first.
 *
 * Return: OPTS_OK, OPTS_EMPTY or OPTS_ERROR (@o holds the defaults then).
 */
int opts_parse_ascii(const char *s, size_t n, struct opts *o, char *err,
		     size_t errlen);

#endif /* PTLAB_EFI_OPTS_CFGFILE_H */
