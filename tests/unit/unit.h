/* SPDX-License-Identifier: MIT */
/*
 * What every host unit test of tests/unit/ starts from: cmocka, with the
 * headers it needs before it, and UNIT_MAIN(tests...), the test program's
 * main(): it runs the cmocka_unit_test() entries given, in that order,
 * and exits with the number that failed.
 */
#ifndef PTLAB_TEST_UNIT_H
#define PTLAB_TEST_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define UNIT_MAIN(...)                                                  \
	int main(void)                                                  \
	{                                                               \
		const struct CMUnitTest tests[] = { __VA_ARGS__ };      \
		return cmocka_run_group_tests(tests, NULL, NULL);       \
	}

#endif
