/* SPDX-License-Identifier: MIT */
/* covers: efi/lib/efistatus.c */
/*
 * efi/lib/efistatus.c, the one place an EFI status is named: each code of
 * the UEFI specification's Appendix D, written here as the number the
 * spec gives it (high bit for errors), has the spec's name; the holes in
 * the table (29, 30), a number past the last and an unknown warning get
 * the text for a status the spec does not name, never NULL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../efi/lib/efistatus.h"

#define ERR(n) (UINT64_C(0x8000000000000000) | (n))
#define UNNAMED "a status the UEFI spec does not name"

static void test_errors(void **state)
{
	(void)state;
	assert_string_equal(efi_status_name(ERR(0x0e)), "EFI_NOT_FOUND");
	assert_string_equal(efi_status_name(ERR(0x12)), "EFI_TIMEOUT");
	assert_string_equal(efi_status_name(ERR(0x17)), "EFI_TFTP_ERROR");
	assert_string_equal(efi_status_name(ERR(0x1a)), "EFI_SECURITY_VIOLATION");
	assert_string_equal(efi_status_name(ERR(0x0f)), "EFI_ACCESS_DENIED");
	assert_string_equal(efi_status_name(ERR(1)), "EFI_LOAD_ERROR");
	assert_string_equal(efi_status_name(ERR(0x1f)), "EFI_END_OF_FILE");
	assert_string_equal(efi_status_name(ERR(0x23)), "EFI_HTTP_ERROR");
}

static void test_warnings(void **state)
{
	(void)state;
	assert_string_equal(efi_status_name(0), "EFI_SUCCESS");
	assert_string_equal(efi_status_name(1), "EFI_WARN_UNKNOWN_GLYPH");
	assert_string_equal(efi_status_name(7), "EFI_WARN_RESET_REQUIRED");
}

static void test_unnamed(void **state)
{
	(void)state;
	assert_string_equal(efi_status_name(ERR(0)), UNNAMED);
	assert_string_equal(efi_status_name(ERR(29)), UNNAMED);
	assert_string_equal(efi_status_name(ERR(30)), UNNAMED);
	assert_string_equal(efi_status_name(ERR(36)), UNNAMED);
	assert_string_equal(efi_status_name(8), UNNAMED);
	assert_string_equal(efi_status_name(UINT64_MAX), UNNAMED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_unnamed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
