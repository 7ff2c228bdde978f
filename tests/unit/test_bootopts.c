/* SPDX-License-Identifier: MIT */
/* covers: efi/opts/opts.c efi/opts/loadopts.c efi/opts/lex.c */
/*
 * efi/opts/opts.c: whose LoadOptions are ours.  From a shell they are strict as
 * always; from a boot manager (U-Boot's bootargs, a boot entry's data) text
 * without a "--" word is named and ignored, text with one is strict, with no
 * argv[0].  Also --serial.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "unit.h"
#include "optsfx.h"

#include "../../efi/report/fmt.h"
#include "../../efi/opts/cfgfile.h"
#include "../../efi/opts/loadopts.h"
#include "../../efi/opts/opts.h"
#include "../../efi/opts/usage.h"

/* @s as UCS-2 bytes with a terminating NUL unit, as LoadOptions carry it. */
static size_t ucs2_bytes(const char *s, uint8_t *out, size_t max)
{
	size_t n = strlen(s);

	assert_true(2 * (n + 1) <= max);
	for (size_t i = 0; i <= n; i++) {
		out[2 * i] = (uint8_t)s[i];
		out[2 * i + 1] = 0;
	}
	return 2 * (n + 1);
}

static int boot(const char *s, bool shell, struct opts *o, char *err, size_t errlen)
{
	uint8_t b[1024];
	size_t n = ucs2_bytes(s, b, sizeof(b));

	return opts_parse_boot_options(b, n, shell, o, err, errlen);
}

static void test_uboot_bootargs_are_foreign(void **state)
{
	struct opts o;
	char err[160];

	(void)state;
	memset(&o, 0x5a, sizeof(o));
	assert_int_equal(boot("root=/dev/sdb3 init=/sbin/init rootwait ro", false, &o, err,
			      sizeof(err)), OPTS_FOREIGN);
	assert_string_equal(err, "root=/dev/sdb3 init=/sbin/init rootwait ro");
	assert_defaults(&o);
	/* blanks folded, quotes made harmless for the report line */
	assert_int_equal(boot("  console=ttyS0\t \"a b\"\r\n", false, &o, err, sizeof(err)),
			 OPTS_FOREIGN);
	assert_string_equal(err, "console=ttyS0 'a b'");
	/* "--" inside a word is not an option word */
	assert_int_equal(boot("a--b x=--y", false, &o, err, sizeof(err)), OPTS_FOREIGN);
	assert_string_equal(err, "a--b x=--y");
}

static void test_same_text_from_a_shell_is_strict(void **state)
{
	struct opts o;
	char err[160];

	(void)state;
	/* argv[0] skipped, the next word is no option */
	assert_int_equal(boot("root=/dev/sdb3 init=/sbin/init", true, &o, err, sizeof(err)),
			 OPTS_ERROR);
	assert_string_equal(err, "unexpected argument 'init=/sbin/init'" STRAY_HINT);
	assert_int_equal(boot("ptlab.efi --seed=3", true, &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.seed, 3);
	assert_int_equal(boot("ptlab.efi", true, &o, err, sizeof(err)), OPTS_EMPTY);
}

static void test_dashdash_words_make_boot_options_strict(void **state)
{
	struct opts o;
	char err[160];

	(void)state;
	assert_int_equal(boot("--end=qemu --seed=0x10", false, &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.end, OPTS_END_QEMU);
	assert_int_equal(o.seed, 16);
	/* no argv[0] from a boot manager: a stray word is an error, not skipped */
	assert_int_equal(boot("root=/dev/sda --end=qemu", false, &o, err, sizeof(err)),
			 OPTS_ERROR);
	assert_string_equal(err, "unexpected argument 'root=/dev/sda'" STRAY_HINT);
	assert_defaults(&o);
	/* a typo is never dropped */
	assert_int_equal(boot("--edn=qemu", false, &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "unknown option '--edn'");
	assert_int_equal(boot("\"--end=qemu\"", false, &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.end, OPTS_END_QEMU);
}

static void test_empty_and_binary_boot_options(void **state)
{
	static const uint8_t entry_data[] = { 0x4e, 0xac, 0x08, 0x81, 0x11, 0x9f, 0x59, 0x4d };
	struct opts o;
	char err[160];

	(void)state;
	assert_int_equal(opts_parse_boot_options(NULL, 0, false, &o, err, sizeof(err)),
			 OPTS_EMPTY);
	assert_int_equal(boot("", false, &o, err, sizeof(err)), OPTS_EMPTY);
	assert_int_equal(boot(" \t ", false, &o, err, sizeof(err)), OPTS_EMPTY);
	assert_int_equal(opts_parse_boot_options(entry_data, sizeof(entry_data), false, &o, err,
						 sizeof(err)), OPTS_BINARY);
	assert_int_equal(opts_parse_boot_options(entry_data, 3, false, &o, err, sizeof(err)),
			 OPTS_BINARY);
	assert_defaults(&o);
}

static void test_foreign_text_is_shortened(void **state)
{
	char line[400], err[160], small[8];
	struct opts o;

	(void)state;
	memset(line, 'k', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	assert_int_equal(boot(line, false, &o, err, sizeof(err)), OPTS_FOREIGN);
	assert_int_equal(strlen(err), 103);
	assert_string_equal(err + 100, "...");
	assert_int_equal(boot(line, false, &o, small, sizeof(small)), OPTS_FOREIGN);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(boot(line, false, &o, NULL, 0), OPTS_FOREIGN);
}

static void test_serial_option(void **state)
{
	struct opts o;
	char err[160];

	(void)state;
	opts_defaults(&o);
	assert_int_equal(o.serial, OPTS_SERIAL_AUTO);
	assert_int_equal(boot("--serial=on", false, &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.serial, OPTS_SERIAL_ON);
	assert_int_equal(boot("--serial=off", false, &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.serial, OPTS_SERIAL_OFF);
	assert_int_equal(opts_parse_ascii("--serial=auto\n", 14, &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.serial, OPTS_SERIAL_AUTO);
	assert_int_equal(boot("--serial=yes", false, &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "--serial needs one of auto|on|off");
	assert_int_equal(boot("--serial", false, &o, err, sizeof(err)), OPTS_ERROR);
	assert_non_null(strstr(opts_usage(), "--serial=auto|on|off"));
}

UNIT_MAIN(
	cmocka_unit_test(test_uboot_bootargs_are_foreign),
	cmocka_unit_test(test_same_text_from_a_shell_is_strict),
	cmocka_unit_test(test_dashdash_words_make_boot_options_strict),
	cmocka_unit_test(test_empty_and_binary_boot_options),
	cmocka_unit_test(test_foreign_text_is_shortened),
	cmocka_unit_test(test_serial_option))
