/* SPDX-License-Identifier: MIT */
/*
 * Options from LoadOptions (loadopts.c): the UCS-2 command line a shell
 * passes, and what a boot manager passes (binary entry data, another
 * program's text, or ours), told apart by the heuristics below.
 * Firmware-free.
 */
#ifndef PTLAB_EFI_OPTS_LOADOPTS_H
#define PTLAB_EFI_OPTS_LOADOPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opts/opts.h"

/**
 * opts_parse_ucs2() - parse a UCS-2 command line (LoadOptions)
 * @s:      the text, @nchars 16-bit units; need not be NUL-terminated
 * @nchars: number of units in @s
 * @o:      result; set to the defaults first, then the options applied
 * @err:    message buffer for OPTS_ERROR (may be NULL when @errlen is 0)
 * @errlen: bytes in @err
 *
 * Tokens are separated by blanks; double quotes group and are removed;
 * \" is a quote that is text, in quotes or not (the one escape: any other
 * backslash is text, as in UEFI paths).  The
 * UEFI shell puts argv[0] first, so a first token that does not start with
 * '-' is skipped.  Text is 0x20..0x7e plus tab/CR/LF, ended by the end of
 * the buffer or by NULs that run to the end; anything else means the data
 * is not a command line - except a line that is mostly ASCII, holds "--"
 * and has printable characters beyond ASCII (no controls or surrogates):
 * that is what a person typed, refused with the first such character
 * ("character U+00E9 at position 12 ...").
 *
 * Return: OPTS_OK, OPTS_EMPTY, OPTS_BINARY (@o holds the defaults) or
 * OPTS_ERROR (@o holds the defaults, @err the reason).
 */
int opts_parse_ucs2(const uint16_t *s, size_t nchars, struct opts *o,
		    char *err, size_t errlen);

/**
 * opts_parse_load_options() - opts_parse_ucs2() on raw LoadOptions bytes
 * @data:  LoadedImage->LoadOptions, any alignment, may be NULL if @bytes is 0
 * @bytes: LoadedImage->LoadOptionsSize
 *
 * An odd byte count cannot be UCS-2 text: OPTS_BINARY.
 * Return: as opts_parse_ucs2().
 */
int opts_parse_load_options(const void *data, size_t bytes, struct opts *o,
			    char *err, size_t errlen);

/**
 * opts_parse_boot_options() - LoadOptions by who passed them
 * @from_shell: the image has the shell's parameters protocol
 *
 * From a shell: opts_parse_load_options() (argv[0] first, strict).  From a
 * boot manager (U-Boot passes its "bootargs", a boot entry its optional
 * data), with no argv[0]: binary data is OPTS_BINARY; text in which no word
 * starts with "--" is not meant for ptlab: OPTS_FOREIGN, with the text
 * (printable ASCII, shortened) in @err for the report; text with any "--"
 * word is parsed strictly, every word an option, so a typo is never dropped.
 *
 * Return: as opts_parse_ucs2(), or OPTS_FOREIGN (@o holds the defaults).
 */
int opts_parse_boot_options(const void *data, size_t bytes, bool from_shell,
			    struct opts *o, char *err, size_t errlen);

/**
 * opts_stop_waits() - whether the run stops here and waits for a key first
 * @o:          the options read
 * @refused:    they were refused (nothing runs)
 * @from_shell: a shell started the image (its parameters protocol)
 *
 * A run stops before it starts for --help (the usage printed) or for a
 * refusal.  A shell keeps its screen, so the text stays; a boot menu (a
 * firmware entry, GRUB, systemd-boot, U-Boot) redraws the screen at once,
 * so a run it started waits, wherever its options came from (its
 * LoadOptions or \ptlab.cfg).
 *
 * Return: true to wait for a key (or a time) before returning.
 */
bool opts_stop_waits(const struct opts *o, bool refused, bool from_shell);

#endif /* PTLAB_EFI_OPTS_LOADOPTS_H */
