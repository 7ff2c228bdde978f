/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

int arena_space_setup4(void **state)
{
	return arena_space_setup(state, 4096, 4);
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

void assert_lint_clean(const struct pt_space *s)
{
	uint64_t scratch[8192];
	struct pt_lint l;
	int err = pt_lint(s, scratch, 8192, NULL, NULL, &l);

	if (err != PT_OK)
		fprintf(stderr, "lint: %s errors=%llu reserved=%llu ps=%llu empty=%llu shared=%llu stats=%llu va=0x%llx level=%d\n",
			pt_strerror(err), (unsigned long long)l.errors,
			(unsigned long long)l.reserved_bits, (unsigned long long)l.bad_ps,
			(unsigned long long)l.empty_tables, (unsigned long long)l.shared_tables,
			(unsigned long long)l.stats_mismatch, (unsigned long long)l.first_bad_va,
			l.first_bad_level);
	assert_int_equal(err, PT_OK);
	/* clean: no first problem to name (level -1, not a real level 0) */
	assert_int_equal(l.errors, 0);
	assert_int_equal(l.first_bad_level, -1);
}

void assert_fx_clean(struct arena_space *f)
{
	assert_lint_clean(&f->s);
}

/* Translate @va in @s and check pa, leaf level and flags. */
void assert_xlat_in(struct arena *a, const struct pt_space *s, uint64_t va, uint64_t pa,
			   unsigned level, unsigned flags)
{
	struct pt_leaf l;

	assert_int_equal(pt_translate(s, va, &l), PT_OK);
	assert_int_equal(l.pa, pa);
	assert_int_equal(l.level, level);
	assert_int_equal(l.flags, flags);
	/* entry_pa names the very entry that was read */
	assert_int_equal(*(uint64_t *)arena_p2v(a, l.entry_pa), l.entry);
}

void assert_xlat(struct arena_space *f, uint64_t va, uint64_t pa, unsigned level, unsigned flags)
{
	assert_xlat_in(&f->a, &f->s, va, pa, level, flags);
}

void assert_unmapped(struct arena_space *f, uint64_t va)
{
	struct pt_leaf l;

	assert_int_equal(pt_translate(&f->s, va, &l), PT_ENOTMAPPED);
}
