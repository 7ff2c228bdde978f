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
/* Checks the reservations and the frames (see above), then frees *state. */
int arena_space_teardown(void **state);

#endif
