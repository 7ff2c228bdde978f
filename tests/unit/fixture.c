/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fixture.h"

int arena_space_setup(void **state, uint64_t frames, unsigned levels)
{
	struct arena_space *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	arena_init(&f->a, frames);
	assert_int_equal(pt_create(&f->s, &f->a.env, levels), PT_OK);
	*state = f;
	return 0;
}

int arena_space_teardown(void **state)
{
	struct arena_space *f = *state;

	/* every reservation of every call of the test was used exactly */
	assert_int_equal(f->s.stats.reserve_unused, 0);
	pt_destroy(&f->s);
	assert_int_equal(f->a.frames.in_use, 0);
	arena_fini(&f->a);
	free(f);
	return 0;
}
