/* SPDX-License-Identifier: MIT */
/* covers: efi/lib/trust.c */
/*
 * efi/lib/trust.c, the digest list a signed ptlab accepts what no firmware
 * can judge by: a file is found exactly when its SHA-256 is in the list
 * (digests pinned from sha256sum here, not computed by the code under
 * test); a digest that differs in its first or last byte, a file with one
 * byte flipped and any file against the empty list are refused, with their
 * digest in the reason; a short reason buffer is cut, never overrun.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../efi/lib/trust.h"

/* sha256sum of "abc", of "" and of "ptlab\n" */
#define ABC_HEX   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define EMPTY_HEX "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define PTLAB_HEX "52faf4e9e69c512a1770bbda469259f6b60be22260864c0e1945aadb426a413c"

static void from_hex(const char *hex, uint8_t out[SHA256_BYTES])
{
	for (unsigned i = 0; i < SHA256_BYTES; i++) {
		char two[3] = { hex[2 * i], hex[2 * i + 1], 0 };

		out[i] = (uint8_t)strtoul(two, NULL, 16);
	}
}

static struct trust_digest entries[3];
static struct trust_list list = { entries, 3 };

static int setup(void **state)
{
	(void)state;
	from_hex(ABC_HEX, entries[0].sha256);
	entries[0].name = "abc";
	from_hex(EMPTY_HEX, entries[1].sha256);
	entries[1].name = "empty";
	from_hex(PTLAB_HEX, entries[2].sha256);
	entries[2].name = "ptlab";
	return 0;
}

static void test_find_each_entry_and_no_neighbour(void **state)
{
	uint8_t d[SHA256_BYTES];

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		memcpy(d, entries[i].sha256, SHA256_BYTES);
		assert_ptr_equal(trust_find(&list, d), &entries[i]);
		d[0] ^= 0x01;
		assert_null(trust_find(&list, d));
		d[0] ^= 0x01;
		d[SHA256_BYTES - 1] ^= 0x80;
		assert_null(trust_find(&list, d));
	}
}

static void test_check_accepts_the_listed_files(void **state)
{
	char why[160] = "untouched";

	(void)state;
	assert_ptr_equal(trust_check(&list, "abc", 3, why, sizeof(why)), &entries[0]);
	assert_ptr_equal(trust_check(&list, "", 0, why, sizeof(why)), &entries[1]);
	assert_ptr_equal(trust_check(&list, "ptlab\n", 6, why, sizeof(why)), &entries[2]);
	assert_string_equal(why, "untouched");
}

static void test_check_refuses_a_flipped_byte_naming_its_digest(void **state)
{
	char why[160];
	char file[] = "ptlab\n";

	(void)state;
	file[2] ^= 0x20;                 /* "pTlab\n" */
	assert_null(trust_check(&list, file, 6, why, sizeof(why)));
	assert_non_null(strstr(why, "is not in the built-in digest list"));
	assert_null(strstr(why, PTLAB_HEX));
	assert_int_equal(strncmp(why, "sha256 ", 7), 0);
	for (unsigned i = 7; i < 7 + 64; i++)
		assert_non_null(strchr("0123456789abcdef", why[i]));
	/* one byte fewer is another file too */
	assert_null(trust_check(&list, "ptlab", 5, why, sizeof(why)));
}

static void test_empty_list_refuses_everything_and_says_so(void **state)
{
	const struct trust_list none = { entries, 0 };
	char why[160];

	(void)state;
	assert_null(trust_find(&none, entries[0].sha256));
	assert_null(trust_check(&none, "abc", 3, why, sizeof(why)));
	assert_string_equal(why, "sha256 " ABC_HEX " is not in the built-in digest list "
			    "(it is empty: built without TRUST=)");
}

static void test_short_reason_is_cut(void **state)
{
	char *why = malloc(12);       /* ASan sees a write past it */

	(void)state;
	assert_non_null(why);
	assert_null(trust_check(&list, "abd", 3, why, 12));
	assert_int_equal(strlen(why), 11);
	assert_int_equal(strncmp(why, "sha256 ", 7), 0);
	free(why);
	assert_null(trust_check(&list, "abd", 3, NULL, 0));
}

static void test_hex(void **state)
{
	char hex[2 * SHA256_BYTES + 1];

	(void)state;
	trust_hex(entries[0].sha256, hex);
	assert_string_equal(hex, ABC_HEX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_each_entry_and_no_neighbour),
		cmocka_unit_test(test_check_accepts_the_listed_files),
		cmocka_unit_test(test_check_refuses_a_flipped_byte_naming_its_digest),
		cmocka_unit_test(test_empty_list_refuses_everything_and_says_so),
		cmocka_unit_test(test_short_reason_is_cut),
		cmocka_unit_test(test_hex),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
