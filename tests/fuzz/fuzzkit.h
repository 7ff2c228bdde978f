/* SPDX-License-Identifier: MIT */
/*
 * What the libFuzzer targets of tests/fuzz/ share: how a target stops on a
 * finding (a message naming the target, then abort(), which libFuzzer
 * reports with the input), the checks every parser's refusal must pass,
 * and the little-endian loads and stores of efi/lib/le.h (le_ld32,
 * le_ldn, le_stn, ...), the ones the parsers under test use.
 *
 * A target defines FUZZ_NAME ("fuzz_acpi") before including this file.
 * A paging target that defines FUZZ_ARENA_FRAMES (after including
 * tests/unit/arena.h) also gets one arena of that many frames, reset to
 * the same allocator state for every input.
 */
#ifndef PTLAB_FUZZKIT_H
#define PTLAB_FUZZKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/le.h"

#ifndef FUZZ_NAME
#error "define FUZZ_NAME (the target's name) before including fuzzkit.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A finding: @what on stderr, after the target's name, and abort(). */
static inline __attribute__((noreturn)) void fuzz_die(const char *what)
{
	fprintf(stderr, FUZZ_NAME ": %s\n", what);
	abort();
}

/* A finding unless @c holds: the condition and its line on stderr. */
#define FUZZ_CHECK(c)                                                                  \
	do {                                                                           \
		if (!(c)) {                                                            \
			fprintf(stderr, FUZZ_NAME ": %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                       \
		}                                                                      \
	} while (0)

/*
 * A refusal's message, written into @len bytes: NUL-terminated and, when
 * there is room for more than the NUL, not empty (@what says which call).
 */
static inline void fuzz_check_why(const char *why, size_t len, const char *what)
{
	if (len && (!memchr(why, 0, len) || (len > 1 && !why[0]))) {
		fprintf(stderr, FUZZ_NAME ": %s\n", what);
		fuzz_die("refusal without a NUL-terminated message");
	}
}

/*
 * The input's @len bytes at @data as a file of exactly that size, and a
 * message buffer of exactly @wl bytes filled with 0xff, both malloc'd: a
 * read past either is an ASan report.  fuzz_free() frees them.
 */
static inline void fuzz_copies(const uint8_t *data, size_t len, size_t wl, uint8_t **file,
			       char **why)
{
	*file = malloc(len ? len : 1);
	*why = malloc(wl);
	if (!*file || !*why)
		fuzz_die("malloc");
	memcpy(*file, data, len);
	memset(*why, 0xff, wl);
}

static inline void fuzz_free(uint8_t *file, char *why)
{
	free(why);
	free(file);
}

#ifdef FUZZ_ARENA_FRAMES
#ifndef PTLAB_TEST_ARENA_H
#error "include tests/unit/arena.h before fuzzkit.h with FUZZ_ARENA_FRAMES"
#endif
static struct arena fuzz_arena;
static struct pt_frames fuzz_fresh;     /* the allocator as arena_init left it */
static bool fuzz_arena_ready;

/* Every input starts from the same allocator state (cursor, counters). */
static inline void fuzz_arena_reset(void)
{
	if (!fuzz_arena_ready) {
		arena_init(&fuzz_arena, FUZZ_ARENA_FRAMES);
		fuzz_fresh = fuzz_arena.frames;
		fuzz_arena_ready = true;
		return;
	}
	if (fuzz_arena.frames.in_use != 0)
		fuzz_die("frames still in use from the previous input");
	fuzz_arena.frames = fuzz_fresh;
	fuzz_arena.flushes = 0;
	memset(&fuzz_arena.last_flush, 0, sizeof(fuzz_arena.last_flush));
}

/* pt_lint's owner test: is @pa a frame the arena @ctx handed out? */
static inline bool fuzz_owns(void *ctx, uint64_t pa)
{
	return pt_frames_in_use(&((struct arena *)ctx)->frames, pa);
}
#endif

#endif
