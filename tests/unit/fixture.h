/* SPDX-License-Identifier: MIT */
/*
 * The fixture most host tests share: an arena (arena.h) with an empty
 * address space in it, as cmocka setup and teardown.  The teardown is a
 * check of its own: every frame the space reserved was used, and every
 * frame is back in the arena once the space is destroyed.
 */
#ifndef PTLAB_TEST_FIXTURE_H
#define PTLAB_TEST_FIXTURE_H

#include <stdint.h>

#include <ptlab/pt.h>

#include "arena.h"

struct arena_space {
	struct arena a;
	struct pt_space s;
};

/* *state = an arena of @frames frames holding an empty @levels-level space. */
int arena_space_setup(void **state, uint64_t frames, unsigned levels);
/* arena_space_setup with 4096 frames and 4 levels: the walker tests' default. */
int arena_space_setup4(void **state);
/* Checks the reservations and the frames (see above), then frees *state. */
int arena_space_teardown(void **state);

/* pt_lint finds nothing wrong in @s (the counts printed when it does). */
void assert_lint_clean(const struct pt_space *s);
/* assert_lint_clean of the fixture's space. */
void assert_fx_clean(struct arena_space *f);
/* @va translates in @s (of arena @a) to @pa at leaf @level with @flags,
 * read from the very entry the walk names. */
void assert_xlat_in(struct arena *a, const struct pt_space *s, uint64_t va, uint64_t pa,
		    unsigned level, unsigned flags);
/* assert_xlat_in in the fixture's space. */
void assert_xlat(struct arena_space *f, uint64_t va, uint64_t pa, unsigned level,
		 unsigned flags);
/* @va is not mapped in the fixture's space. */
void assert_unmapped(struct arena_space *f, uint64_t va);

#endif
