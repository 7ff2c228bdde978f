/* SPDX-License-Identifier: MIT */
/* covers: efi/report/fmt.c */
/*
 * efi/report/fmt.c against the host C library's snprintf, the independent oracle.
 * Formats are literals so both calls are format-checked by the compiler.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

#include "../../efi/report/fmt.h"

#define GUARD 0x7e

/*
 * Format with both implementations into buffers of @size bytes and compare
 * the bytes written, the return value and that nothing past @size changed.
 */
#define SAME(size, ...)                                                     \
	do {                                                                \
		char want[512], got[512];                                   \
		int nw, ng;                                                 \
		memset(want, GUARD, sizeof(want));                          \
		memset(got, GUARD, sizeof(got));                            \
		nw = snprintf(want, (size), __VA_ARGS__);                   \
		ng = fmt_snprintf(got, (size), __VA_ARGS__);                \
		if (nw != ng || memcmp(want, got, sizeof(want))) {          \
			print_error("%s:%d size %zu: libc %d \"%s\", fmt %d \"%s\"\n", \
				    __FILE__, __LINE__, (size_t)(size), nw, \
				    (size) ? want : "", ng, (size) ? got : ""); \
			fail();                                             \
		}                                                           \
	} while (0)

/* Full buffer and a handful of truncating sizes. */
#define SAME_ALL(...)                                                       \
	do {                                                                \
		static const size_t sizes[] = { 512, 1, 2, 3, 5, 8, 13, 0 }; \
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) \
			SAME(sizes[si], __VA_ARGS__);                       \
	} while (0)

static const long long sval[] = {
	0, 1, -1, 7, -7, 9, 10, 42, -42, 99, 100, 12345, -12345, 65535, 65536,
	INT_MAX, INT_MIN, (long long)INT_MAX + 1, LLONG_MAX, LLONG_MIN,
	0x123456789abcdefLL, -0x123456789abcdefLL,
};

static const unsigned long long uval[] = {
	0, 1, 9, 10, 15, 16, 255, 256, 4095, 4096, 0xdeadbeef, UINT_MAX,
	(unsigned long long)UINT_MAX + 1, 0xffffffff80000000ULL,
	0xffff800000000000ULL, ULLONG_MAX, 0x000fffffffffff000ULL,
};

static void test_fmt_signed_matches_libc(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(sval) / sizeof(sval[0]); i++) {
		long long v = sval[i];
		int iv = (int)v;
		long lv = (long)v;

		SAME_ALL("%d", iv);
		SAME_ALL("%i", iv);
		SAME_ALL("[%5d]", iv);
		SAME_ALL("[%-5d]", iv);
		SAME_ALL("[%05d]", iv);
		SAME_ALL("[%.3d]", iv);
		SAME_ALL("[%8.3d]", iv);
		SAME_ALL("[%.0d]", iv);
		SAME_ALL("[%3.0d]", iv);
		SAME_ALL("%ld", lv);
		SAME_ALL("[%20ld]", lv);
		SAME_ALL("%lld", v);
		SAME_ALL("[%025lld]", v);
		SAME_ALL("[%-25lli|]", v);
		SAME_ALL("%zd", (ptrdiff_t)v);
		SAME_ALL("%hd %hhd", (short)v, (signed char)v);
	}
}

static void test_fmt_unsigned_matches_libc(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(uval) / sizeof(uval[0]); i++) {
		unsigned long long v = uval[i];
		unsigned int uv = (unsigned int)v;
		unsigned long lv = (unsigned long)v;

		SAME_ALL("%u %x %X", uv, uv, uv);
		SAME_ALL("[%10u][%-10x][%010X]", uv, uv, uv);
		SAME_ALL("[%.5x][%8.5x][%-8.5X]", uv, uv, uv);
		SAME_ALL("[%.0u][%.0x]", uv, uv);
		SAME_ALL("%lu %lx %lX", lv, lv, lv);
		SAME_ALL("%llu %llx %llX", v, v, v);
		SAME_ALL("0x%016llx", v);
		SAME_ALL("[%-20llu]", v);
		SAME_ALL("%zu %zx", (size_t)v, (size_t)v);
		SAME_ALL("%hu %hx %hhu %hhx", (unsigned short)v, (unsigned short)v,
			 (unsigned char)v, (unsigned char)v);
	}
}

static void test_fmt_strings_and_chars_match_libc(void **state)
{
	static const char *const strs[] = {
		"", "a", "ok", "page table", "0123456789abcdefghijklmnopqrstuvwxyz",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		const char *s = strs[i];

		SAME_ALL("%s", s);
		SAME_ALL("[%10s]", s);
		SAME_ALL("[%-10s]", s);
		SAME_ALL("[%.3s]", s);
		SAME_ALL("[%.0s]", s);
		SAME_ALL("[%8.2s]", s);
		SAME_ALL("[%-8.2s]", s);
		SAME_ALL("[%*s]", 7, s);
		SAME_ALL("[%*s]", -7, s);
		SAME_ALL("[%.*s]", 4, s);
		SAME_ALL("[%.*s]", -1, s);
		SAME_ALL("<%s|%s>", s, s);
	}
	SAME_ALL("%c%c%c", 'o', 'k', '!');
	SAME_ALL("[%3c][%-3c]", 'x', 'y');
	SAME_ALL("100%%");
	SAME_ALL("%%d%%");
	SAME_ALL("no conversions at all, just a longer text line");
	SAME_ALL("%s", "(null) is what glibc prints for NULL");
}

static void test_fmt_pointer_matches_libc_for_non_null(void **state)
{
	int x;
	static const uintptr_t pv[] = { 1, 0x1000, 0xdeadbeef, 0x7fffffffe000 };

	(void)state;
	SAME_ALL("%p", (void *)&x);
	for (size_t i = 0; i < sizeof(pv) / sizeof(pv[0]); i++) {
		SAME_ALL("%p", (void *)pv[i]);
		SAME_ALL("[%20p][%-20p]", (void *)pv[i], (void *)pv[i]);
	}
}

/* Where we choose to differ from glibc, pinned down explicitly. */
static void test_fmt_null_pointer_prints_0x0(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(fmt_snprintf(buf, sizeof(buf), "%p", (void *)0), 3);
	assert_string_equal(buf, "0x0");
}

static void test_fmt_null_string_prints_null(void **state)
{
	char buf[32];
	const char *volatile nul = NULL;

	(void)state;
	assert_int_equal(fmt_snprintf(buf, sizeof(buf), "[%s]", nul), 8);
	assert_string_equal(buf, "[(null)]");
}

static int via_va(char *buf, size_t size, const char *f, ...)
	__attribute__((format(printf, 3, 4)));

static int via_va(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = fmt_vsnprintf(buf, size, f, ap);
	va_end(ap);
	return n;
}

/* via_va without the format attribute: lets the tests pass formats printf
 * would reject (a call through a pointer is not checked). */
static int (*const unchecked)(char *buf, size_t size, const char *f, ...) = via_va;

static void test_fmt_unknown_conversion_is_copied(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(unchecked(buf, sizeof(buf), "a%qb", 0), 4);
	assert_string_equal(buf, "a%qb");
	assert_int_equal(unchecked(buf, sizeof(buf), "end%"), 4);
	assert_string_equal(buf, "end%");
}

/* '0' is ignored with '-' and with a precision, as in C. */
static void test_fmt_zero_flag_ignored_with_minus_or_precision(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(unchecked(buf, sizeof(buf), "[%-05d]", -3), 7);
	assert_string_equal(buf, "[-3   ]");
	assert_int_equal(unchecked(buf, sizeof(buf), "[%08.3d]", 7), 10);
	assert_string_equal(buf, "[     007]");
}

static void test_fmt_size_zero_writes_nothing(void **state)
{
	char buf[4] = { 'x', 'y', 'z', 'w' };

	(void)state;
	assert_int_equal(fmt_snprintf(buf, 0, "%d", 12345), 5);
	assert_memory_equal(buf, "xyzw", 4);
	assert_int_equal(fmt_snprintf(NULL, 0, "%s", "abc"), 3);
}

static void test_fmt_always_terminates(void **state)
{
	char buf[6];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(fmt_snprintf(buf, sizeof(buf), "%s-%u", "abcdef", 77u), 9);
	assert_string_equal(buf, "abcde");
	assert_int_equal(fmt_snprintf(buf, 1, "%d", 1), 1);
	assert_int_equal(buf[0], '\0');
}


static void test_fmt_vsnprintf_consumes_arguments_in_order(void **state)
{
	char buf[128];

	(void)state;
	assert_int_equal(via_va(buf, sizeof(buf), "%llx %d %s %c %zu", 0x1234ULL, -5,
				"s", 'c', (size_t)99), 14);
	assert_string_equal(buf, "1234 -5 s c 99");
}

UNIT_MAIN(
	cmocka_unit_test(test_fmt_signed_matches_libc),
	cmocka_unit_test(test_fmt_unsigned_matches_libc),
	cmocka_unit_test(test_fmt_strings_and_chars_match_libc),
	cmocka_unit_test(test_fmt_pointer_matches_libc_for_non_null),
	cmocka_unit_test(test_fmt_null_pointer_prints_0x0),
	cmocka_unit_test(test_fmt_null_string_prints_null),
	cmocka_unit_test(test_fmt_unknown_conversion_is_copied),
	cmocka_unit_test(test_fmt_zero_flag_ignored_with_minus_or_precision),
	cmocka_unit_test(test_fmt_size_zero_writes_nothing),
	cmocka_unit_test(test_fmt_always_terminates),
	cmocka_unit_test(test_fmt_vsnprintf_consumes_arguments_in_order))
