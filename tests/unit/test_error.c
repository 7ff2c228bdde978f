// SPDX-License-Identifier: MIT
/* covers: paging/error.c */
/* Host tests for paging/error.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include "unit.h"

#include <ptlab/pt.h>

#define FIRST_ERR PT_ECORRUPT   /* the most negative enum pt_err value */

static void test_every_code_has_its_own_name(void **state)
{
	const char *name[1 - FIRST_ERR];

	(void)state;
	for (int e = 0; e >= FIRST_ERR; e--) {
		name[-e] = pt_strerror(e);
		assert_non_null(name[-e]);
		assert_true(strncmp(name[-e], "PT_", 3) == 0);
		assert_string_not_equal(name[-e], "PT_E?");
		for (int o = 0; o > e; o--)
			assert_string_not_equal(name[-e], name[-o]);
	}
}

static void test_names_match_the_enum_spelling(void **state)
{
	/* the enum's spelling, taken by the preprocessor from the code itself */
#define SPELT(code) { code, #code }
	static const struct {
		int code;
		const char *name;
	} spelt[] = { SPELT(PT_OK), SPELT(PT_ENOMEM), SPELT(PT_EFRAME), SPELT(PT_EMAPBAD),
		      SPELT(PT_ECORRUPT) };
#undef SPELT

	(void)state;
	for (unsigned i = 0; i < sizeof(spelt) / sizeof(spelt[0]); i++)
		if (strcmp(pt_strerror(spelt[i].code), spelt[i].name) != 0)
			fail_msg("pt_strerror(%d) is \"%s\", not \"%s\"", spelt[i].code,
				 pt_strerror(spelt[i].code), spelt[i].name);
}

static void test_unknown_code_names_a_placeholder_and_is_stable(void **state)
{
	(void)state;
	assert_string_equal(pt_strerror(1), "PT_E?");
	assert_string_equal(pt_strerror(FIRST_ERR - 1), "PT_E?");
	assert_string_equal(pt_strerror(-1000), "PT_E?");
	assert_ptr_equal(pt_strerror(PT_ENOMEM), pt_strerror(PT_ENOMEM));
}

UNIT_MAIN(
	cmocka_unit_test(test_every_code_has_its_own_name),
	cmocka_unit_test(test_names_match_the_enum_spelling),
	cmocka_unit_test(test_unknown_code_names_a_placeholder_and_is_stable))
