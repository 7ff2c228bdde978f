/* SPDX-License-Identifier: MIT */
/* covers: efi/opts/opts.c efi/opts/usage.c */
/*
 * efi/opts/opts.c: LoadOptions as the shell and boot entries pass them, config
 * files, every option, and the exact error messages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "optsfx.h"

#include "../../efi/report/fmt.h"
#include "../../efi/opts/cfgfile.h"
#include "../../efi/opts/loadopts.h"
#include "../../efi/opts/opts.h"
#include "../../efi/opts/usage.h"

static void test_opts_defaults(void **state)
{
	struct opts o;

	(void)state;
	memset(&o, 0xff, sizeof(o));
	opts_defaults(&o);
	assert_int_equal(o.seed, 1);
	assert_int_equal(o.iterations, 20000);
	assert_int_equal(o.end, OPTS_END_WAIT);
	assert_int_equal(o.mode, OPTS_MODE_FIRMWARE);
	assert_int_equal(o.timeout, 0);
	assert_int_equal(o.fail_alloc, 0);
	assert_int_equal(o.inject, OPTS_INJECT_NONE);
	assert_int_equal(o.raise, OPTS_RAISE_NONE);
	assert_int_equal(o.levels, 0);
	assert_false(o.help || o.dump || o.dump_memmap || o.hold || o.fragment);
}

static void test_opts_shell_argv0_is_skipped(void **state)
{
	struct opts o;
	char err[200] = "";

	(void)state;
	assert_int_equal(parse_cmdline("\\EFI\\BOOT\\BOOTX64.EFI --seed=7", &o, err,
				       sizeof(err)), OPTS_OK);
	assert_int_equal(o.seed, 7);
	assert_string_equal(err, "");
	/* Only argv[0]: no options. */
	assert_int_equal(parse_cmdline("\\EFI\\BOOT\\BOOTX64.EFI", &o, err,
				       sizeof(err)), OPTS_EMPTY);
	assert_defaults(&o);
	/* A boot entry passing options without argv[0]. */
	assert_int_equal(parse_cmdline("--seed=9", &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.seed, 9);
	/* argv[0] is only ever the first token. */
	assert_int_equal(parse_cmdline("a.efi b", &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "unexpected argument 'b'" STRAY_HINT);
}

static void test_opts_every_option(void **state)
{
	struct opts o;
	char err[128];

	(void)state;
	assert_int_equal(parse_cmdline(
		"ptlab.efi --help --seed=0xDEADbeef --iterations=123 --end=qemu "
		"--dump-memmap --dump --hold --mode=handoff --inject=freed-table "
		"--fail-alloc=5 --timeout=30 --fragment --raise=badstack",
		&o, err, sizeof(err)), OPTS_OK);
	assert_true(o.help && o.dump_memmap && o.dump && o.hold && o.fragment);
	assert_int_equal(o.seed, 0xdeadbeef);
	assert_int_equal(o.iterations, 123);
	assert_int_equal(o.end, OPTS_END_QEMU);
	assert_int_equal(o.mode, OPTS_MODE_HANDOFF);
	assert_int_equal(o.inject, OPTS_INJECT_FREED_TABLE);
	assert_int_equal(o.fail_alloc, 5);
	assert_int_equal(o.timeout, 30);
	assert_int_equal(o.raise, OPTS_RAISE_BADSTACK);
}

static void test_opts_every_choice_value(void **state)
{
	static const struct { const char *arg; int field, want; } cases[] = {
		{ "--end=wait", 0, OPTS_END_WAIT },
		{ "--end=return", 0, OPTS_END_RETURN },
		{ "--end=shutdown", 0, OPTS_END_SHUTDOWN },
		{ "--end=reboot", 0, OPTS_END_REBOOT },
		{ "--end=halt", 0, OPTS_END_HALT },
		{ "--end=qemu", 0, OPTS_END_QEMU },
		{ "--mode=firmware", 1, OPTS_MODE_FIRMWARE },
		{ "--mode=handoff", 1, OPTS_MODE_HANDOFF },
		{ "--inject=wrong-frame", 2, OPTS_INJECT_WRONG_FRAME },
		{ "--inject=nx-cleared", 2, OPTS_INJECT_NX_CLEARED },
		{ "--inject=missing-invlpg", 2, OPTS_INJECT_MISSING_INVLPG },
		{ "--inject=freed-table", 2, OPTS_INJECT_FREED_TABLE },
		{ "--inject=missing-shootdown", 2, OPTS_INJECT_MISSING_SHOOTDOWN },
		{ "--raise=gp", 3, OPTS_RAISE_GP },
		{ "--raise=badstack", 3, OPTS_RAISE_BADSTACK },
		{ "--raise=timeout", 3, OPTS_RAISE_TIMEOUT },
		{ "--raise=la57-window", 3, OPTS_RAISE_LA57_WINDOW },
		{ "--raise=la57-root-high", 3, OPTS_RAISE_LA57_ROOT_HIGH },
		{ "--raise=ap-fault", 3, OPTS_RAISE_AP_FAULT },
		{ "--levels=4", 4, 4 },
		{ "--levels=5", 4, 5 },
	};
	struct opts o;
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got;

		assert_int_equal(opts_parse_ascii(cases[i].arg, strlen(cases[i].arg),
						  &o, err, sizeof(err)), OPTS_OK);
		got = cases[i].field == 0 ? (int)o.end :
		      cases[i].field == 1 ? (int)o.mode :
		      cases[i].field == 2 ? (int)o.inject :
		      cases[i].field == 3 ? (int)o.raise : (int)o.levels;
		assert_int_equal(got, cases[i].want);
	}
}

/*
 * --inject takes lists: the churn's five are bits (inject the one given),
 * every other name is kept as given, once, for the check registry.
 */
static void test_opts_inject_lists(void **state)
{
	struct opts o;
	char err[200], buf[768];

	(void)state;
	assert_int_equal(parse_cmdline("x --inject=lint-ps,wx-page --inject=la57-refuse-later,wx-page",
				       &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.nfaults, 3);
	assert_true(opts_fault_given(&o, "lint-ps"));
	assert_true(opts_fault_given(&o, "wx-page"));
	assert_true(opts_fault_given(&o, "la57-refuse-later"));
	assert_false(opts_fault_given(&o, "la57-refuse"));
	assert_false(opts_fault_given(&o, "lint-p"));
	assert_false(opts_injected(&o, OPTS_INJECT_NONE));
	assert_int_equal(o.injects, 0);
	assert_int_equal(o.inject, OPTS_INJECT_NONE);
	opts_describe(&o, buf, sizeof(buf));
	assert_non_null(strstr(buf, " inject=lint-ps,wx-page,la57-refuse-later fail-alloc="));

	assert_int_equal(parse_cmdline("x --inject=ap-call,missing-invlpg", &o, err, sizeof(err)),
			 OPTS_OK);
	assert_int_equal(o.inject, OPTS_INJECT_MISSING_INVLPG);
	assert_true(opts_injected(&o, OPTS_INJECT_MISSING_INVLPG));
	assert_true(opts_fault_given(&o, "ap-call"));
	assert_false(opts_fault_given(&o, "missing-invlpg"));
	opts_describe(&o, buf, sizeof(buf));
	assert_non_null(strstr(buf, " inject=missing-invlpg,ap-call fail-alloc="));

	/* every churn fault parses to its own value, and back */
	for (int v = 1; v < OPTS_INJECT_COUNT; v++) {
		char line[96];

		snprintf(line, sizeof(line), "x --inject=%s", opts_inject_name((enum opts_inject)v));
		assert_int_equal(parse_cmdline(line, &o, err, sizeof(err)), OPTS_OK);
		assert_true(o.injects == UINT64_C(1) << v);
		assert_int_equal(o.nfaults, 0);
		for (int w = 1; w < v; w++)
			assert_string_not_equal(opts_inject_name((enum opts_inject)v),
						opts_inject_name((enum opts_inject)w));
	}
	assert_string_equal(opts_inject_name(OPTS_INJECT_COUNT), "none");

	/* a name as long as faults[] holds (31 characters), and not one longer */
	assert_int_equal(parse_cmdline("x --inject=abcdefghijklmnopqrstuvwxyz-1234", &o, err,
				       sizeof(err)), OPTS_OK);
	assert_true(opts_fault_given(&o, "abcdefghijklmnopqrstuvwxyz-1234"));
	assert_int_equal(parse_cmdline("x --inject=abcdefghijklmnopqrstuvwxyz-12345", &o, err,
				       sizeof(err)), OPTS_ERROR);
	assert_non_null(strstr(err, "no fault 'abcdefghijklmnopqrstuvwxyz-12345'"));

	/* as many names as faults[] holds, and not one more */
	{
		char line[OPTS_FAULTS_MAX * 8 + 32];
		size_t n = (size_t)snprintf(line, sizeof(line), "x --inject=");

		for (unsigned i = 0; i < OPTS_FAULTS_MAX; i++)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%sf-%u", i ? "," : "", i);
		assert_int_equal(parse_cmdline(line, &o, err, sizeof(err)), OPTS_OK);
		assert_int_equal(o.nfaults, OPTS_FAULTS_MAX);
		snprintf(line + n, sizeof(line) - n, ",f-x");
		assert_int_equal(parse_cmdline(line, &o, err, sizeof(err)), OPTS_ERROR);
		assert_string_equal(err, "--inject: more than 48 faults");
	}
}

static void test_opts_numbers(void **state)
{
	struct opts o;
	char err[128];

	(void)state;
	assert_int_equal(parse_cmdline("x --seed=18446744073709551615", &o, err,
				       sizeof(err)), OPTS_OK);
	assert_true(o.seed == UINT64_MAX);
	assert_int_equal(parse_cmdline("x --seed=0xffffffffffffffff", &o, err,
				       sizeof(err)), OPTS_OK);
	assert_true(o.seed == UINT64_MAX);
	assert_int_equal(parse_cmdline("x --seed=0", &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.seed, 0);
	assert_int_equal(parse_cmdline("x --seed=0X10", &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.seed, 16);
	assert_int_equal(parse_cmdline("x --seed=007", &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.seed, 7);	/* decimal, not octal */
}

/* The message and the defaults for each kind of bad input. */
static void expect_error(const char *cmdline, const char *msg)
{
	struct opts o;
	char err[200] = "";

	memset(&o, 0x55, sizeof(o));
	assert_int_equal(parse_cmdline(cmdline, &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, msg);
	assert_defaults(&o);
}

static void test_opts_errors_name_the_problem(void **state)
{
	(void)state;
	expect_error("x --foo", "unknown option '--foo'");
	expect_error("x --seed=3 --foo=1", "unknown option '--foo'");
	expect_error("x --seed=x", "bad number in '--seed=x'");
	expect_error("x --seed=", "bad number in '--seed='");
	expect_error("x --seed", "bad number in '--seed'");
	expect_error("x --seed=0x", "bad number in '--seed=0x'");
	expect_error("x --seed=12a", "bad number in '--seed=12a'");
	expect_error("x --seed=-1", "bad number in '--seed=-1'");
	expect_error("x --seed=18446744073709551616",
		     "bad number in '--seed=18446744073709551616'");
	expect_error("x --seed=0x10000000000000000",
		     "bad number in '--seed=0x10000000000000000'");
	expect_error("x --iterations=1e3", "bad number in '--iterations=1e3'");
	expect_error("x --timeout=ten", "bad number in '--timeout=ten'");
	expect_error("x --fail-alloc=", "bad number in '--fail-alloc='");
	expect_error("x --end=never",
		     "--end needs one of wait|return|shutdown|reboot|halt|qemu");
	expect_error("x --end", "--end needs one of wait|return|shutdown|reboot|halt|qemu");
	expect_error("x --mode=os", "--mode needs one of firmware|handoff");
	expect_error("x --inject=none",
		     "--inject: no fault 'none'; it needs fault names, comma-separated "
		     "(docs/faults.md)");
	expect_error("x --inject=lint-ps,,wx-page", "--inject: no fault ''; it needs fault names, "
		     "comma-separated (docs/faults.md)");
	expect_error("x --inject=lint-ps,", "--inject: no fault ''; it needs fault names, "
		     "comma-separated (docs/faults.md)");
	expect_error("x --inject", "--inject: no fault ''; it needs fault names, "
		     "comma-separated (docs/faults.md)");
	expect_error("x --inject=Lint-ps", "--inject: no fault 'Lint-ps'; it needs fault names, "
		     "comma-separated (docs/faults.md)");

	expect_error("x --raise=ud", "--raise needs one of gp|badstack|timeout|la57-window|"
		     "la57-root-high|ap-fault");
	expect_error("x --levels=3", "--levels needs one of 4|5");
	expect_error("x --levels=firmware", "--levels needs one of 4|5");
	expect_error("x --levels", "--levels needs one of 4|5");
	expect_error("x --help=1", "--help takes no value");
	expect_error("x --Help", "unknown option '--Help'");
	expect_error("x --", "unexpected argument '--'");
	expect_error("x -h", "unexpected argument '-h'");
	expect_error("x \"--seed=1", "unterminated quote");
}

static void test_opts_quotes_and_extra_spaces(void **state)
{
	struct opts o;
	char err[128];

	(void)state;
	assert_int_equal(parse_cmdline("   \"\\EFI\\BOOT\\BOOTX64.EFI\"  \t --seed=\"5\"   "
				       "\"--end=halt\"\r\n  --hold  ", &o, err,
				       sizeof(err)), OPTS_OK);
	assert_int_equal(o.seed, 5);
	assert_int_equal(o.end, OPTS_END_HALT);
	assert_true(o.hold);
	/* An empty quoted argument is ignored. */
	assert_int_equal(parse_cmdline("x \"\" --dump", &o, err, sizeof(err)), OPTS_OK);
	assert_true(o.dump);
	/* Whitespace only. */
	assert_int_equal(parse_cmdline("  \t ", &o, err, sizeof(err)), OPTS_EMPTY);
	/* Given twice: refused (test_optsrc.c has the cases), never the last one silently. */
	assert_int_equal(parse_cmdline("--seed=1 --seed=2", &o, err, sizeof(err)), OPTS_ERROR);
	assert_defaults(&o);
}

static void test_opts_dump_formats(void **state)
{
	struct opts o;
	char err[128];

	(void)state;
	assert_int_equal(parse_cmdline("--dump", &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.dump, OPTS_DUMP_LEAVES);
	assert_int_equal(o.dump_firmware, OPTS_DUMP_NONE);
	assert_int_equal(parse_cmdline("--dump=ranges --dump-firmware=leaves", &o, err,
				       sizeof(err)), OPTS_OK);
	assert_int_equal(o.dump, OPTS_DUMP_RANGES);
	assert_int_equal(o.dump_firmware, OPTS_DUMP_LEAVES);
	assert_int_equal(parse_cmdline("--dump=leaves --dump-firmware=ranges", &o, err,
				       sizeof(err)), OPTS_OK);
	assert_int_equal(o.dump, OPTS_DUMP_LEAVES);
	assert_int_equal(o.dump_firmware, OPTS_DUMP_RANGES);
	/* bad values are refused and leave the defaults */
	assert_int_equal(parse_cmdline("--dump=none", &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "--dump needs one of leaves|ranges");
	assert_defaults(&o);
	assert_int_equal(parse_cmdline("--dump=", &o, err, sizeof(err)), OPTS_ERROR);
	assert_int_equal(parse_cmdline("--dump-firmware", &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "--dump-firmware needs one of leaves|ranges");
	assert_defaults(&o);
}

static void test_opts_binary_load_options_are_ignored(void **state)
{
	/* What a firmware boot entry may carry: a GUID-ish blob. */
	static const uint8_t blob[] = {
		0x52, 0x43, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
		0xa1, 0x31, 0x1b, 0x5b, 0x62, 0x95, 0xd2, 0x11,
	};
	uint8_t bytes[64];
	struct opts o;
	char err[64] = "";
	uint16_t w[64];
	size_t n;

	(void)state;
	memset(&o, 0x55, sizeof(o));
	assert_int_equal(opts_parse_load_options(blob, sizeof(blob), &o, err,
						 sizeof(err)), OPTS_BINARY);
	assert_defaults(&o);
	/* Odd byte count. */
	n = ucs2("x --seed=3", w, 64);
	memcpy(bytes, w, 2 * n);
	assert_int_equal(opts_parse_load_options(bytes, 2 * n - 1, &o, err,
						 sizeof(err)), OPTS_BINARY);
	/* Same bytes, even and unaligned: parsed. */
	memcpy(bytes + 1, w, 2 * n);
	assert_int_equal(opts_parse_load_options(bytes + 1, 2 * n, &o, err,
						 sizeof(err)), OPTS_OK);
	assert_int_equal(o.seed, 3);
	/* NUL in the middle, then more text. */
	w[1] = 0;
	assert_int_equal(opts_parse_ucs2(w, n, &o, err, sizeof(err)), OPTS_BINARY);
	/* Several trailing NULs are fine. */
	n = ucs2("x --seed=4", w, 64);
	w[n] = 0;
	w[n + 1] = 0;
	assert_int_equal(opts_parse_ucs2(w, n + 2, &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.seed, 4);
	/* Unterminated text is fine too. */
	assert_int_equal(opts_parse_ucs2(w, n - 1, &o, err, sizeof(err)), OPTS_OK);
	/* Non-printable, DEL, non-ASCII. */
	n = ucs2("x --seed=4", w, 64);
	w[3] = 0x07;
	assert_int_equal(opts_parse_ucs2(w, n, &o, err, sizeof(err)), OPTS_BINARY);
	w[3] = 0x7f;
	assert_int_equal(opts_parse_ucs2(w, n, &o, err, sizeof(err)), OPTS_BINARY);
	w[3] = 0x2d00;	/* '-' in the wrong byte: big-endian text */
	assert_int_equal(opts_parse_ucs2(w, n, &o, err, sizeof(err)), OPTS_BINARY);
	assert_defaults(&o);
	assert_string_equal(err, "");
	/* Empty and NULL. */
	assert_int_equal(opts_parse_load_options(NULL, 0, &o, err, sizeof(err)),
			 OPTS_EMPTY);
	w[0] = 0;
	assert_int_equal(opts_parse_ucs2(w, 1, &o, err, sizeof(err)), OPTS_EMPTY);
}

/*
 * A shell line with a character beyond ASCII is a command line the options
 * cannot hold: refused, naming the character, never dropped as binary data.
 */
static void test_opts_non_ascii_shell_line_is_refused(void **state)
{
	struct opts o;
	char err[160] = "";
	uint16_t w[64];
	size_t n;

	(void)state;
	n = ucs2("\\EFI\\BOOT\\BOOTX64.EFI --seed=5 --end=qemu x", w, 64);
	w[n - 2] = 0x00e9;	/* the last character: U+00E9 */
	memset(&o, 0x55, sizeof(o));
	assert_int_equal(opts_parse_ucs2(w, n, &o, err, sizeof(err)), OPTS_ERROR);
	assert_defaults(&o);
	assert_string_equal(err, "character U+00E9 at position 42 of the command line is not "
			    "ASCII: options are ASCII only");
	/* inside a value, as raw LoadOptions bytes */
	n = ucs2("x --seed=4", w, 64);
	w[8] = 0x20ac;		/* the euro sign */
	assert_int_equal(opts_parse_load_options(w, 2 * n, &o, err, sizeof(err)), OPTS_ERROR);
	assert_non_null(strstr(err, "U+20AC at position 8"));
	/* no option in it, or mostly wide characters: boot-entry data, ignored */
	n = ucs2("WINDOWS x", w, 64);
	w[7] = 0x00e9;
	assert_int_equal(opts_parse_ucs2(w, n, &o, err, sizeof(err)), OPTS_BINARY);
	n = ucs2("--abcdefgh", w, 64);
	for (size_t i = 2; i < 10; i++)
		w[i] = (uint16_t)(0x4e00 + i);
	assert_int_equal(opts_parse_ucs2(w, n, &o, err, sizeof(err)), OPTS_BINARY);
	/* a surrogate or a control character beside it: binary */
	n = ucs2("x --seed=4 ab", w, 64);
	w[11] = 0x00e9;
	w[12] = 0xd800;
	assert_int_equal(opts_parse_ucs2(w, n, &o, err, sizeof(err)), OPTS_BINARY);
	w[12] = 0x0085;
	assert_int_equal(opts_parse_ucs2(w, n, &o, err, sizeof(err)), OPTS_BINARY);
}

/* Every 2-byte pattern as a one-unit command line: never crashes, sane codes. */
static void test_opts_all_single_units(void **state)
{
	struct opts o;
	char err[64];

	(void)state;
	for (uint32_t v = 0; v <= 0xffff; v++) {
		uint16_t u = (uint16_t)v;
		int rc = opts_parse_ucs2(&u, 1, &o, err, sizeof(err));

		if (v == 0 || v == ' ' || v == '\t' || v == '\r' || v == '\n' ||
		    (v > ' ' && v <= 0x7e && v != '-' && v != '"'))
			assert_int_equal(rc, OPTS_EMPTY);	/* argv[0] only */
		else if (v == '-')
			assert_int_equal(rc, OPTS_ERROR);
		else if (v == '"')
			assert_int_equal(rc, OPTS_ERROR);	/* unterminated */
		else
			assert_int_equal(rc, OPTS_BINARY);
	}
}

static void test_opts_config_file(void **state)
{
	static const char cfg[] =
		"# ptlab config\n"
		"--seed=0x2a   # the answer\r\n"
		"\n"
		"\t--end=shutdown\n"
		"--iterations=10#no space before comment\n"
		"# --hold is commented out\n"
		"--dump";
	struct opts o;
	char err[200];

	(void)state;
	assert_int_equal(opts_parse_ascii(cfg, strlen(cfg), &o, err, sizeof(err)),
			 OPTS_OK);
	assert_int_equal(o.seed, 42);
	assert_int_equal(o.end, OPTS_END_SHUTDOWN);
	assert_int_equal(o.iterations, 10);
	assert_true(o.dump);
	assert_false(o.hold);
	/* No argv[0] in a config file: the first token is an option. */
	assert_int_equal(opts_parse_ascii("--hold", 6, &o, err, sizeof(err)), OPTS_OK);
	assert_true(o.hold);
	assert_int_equal(opts_parse_ascii("hold", 4, &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "unexpected argument 'hold'" STRAY_HINT);
	assert_int_equal(opts_parse_ascii("# nothing\n\n", 11, &o, err, sizeof(err)),
			 OPTS_EMPTY);
	assert_int_equal(opts_parse_ascii("", 0, &o, err, sizeof(err)), OPTS_EMPTY);
	/* Length is honoured: the text after n is not read. */
	assert_int_equal(opts_parse_ascii("--dump --foo", 6, &o, err, sizeof(err)),
			 OPTS_OK);
	/* A non-text byte is an error with its offset; defaults kept. */
	assert_int_equal(opts_parse_ascii("--dump\n--s\x01", 11, &o, err, sizeof(err)),
			 OPTS_ERROR);
	assert_string_equal(err, "bad byte 0x01 at offset 10 in config");
	assert_defaults(&o);
	assert_int_equal(opts_parse_ascii("--seed=1\n--bogus\n", 17, &o, err,
					  sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "unknown option '--bogus'");
	assert_defaults(&o);
}

static void test_opts_long_token_and_small_err_buffer(void **state)
{
	char line[400], err[8];
	struct opts o;

	(void)state;
	memset(line, 'a', sizeof(line));
	memcpy(line, "x --", 4);
	line[sizeof(line) - 1] = '\0';
	assert_int_equal(parse_cmdline(line, &o, err, sizeof(err)), OPTS_ERROR);
	assert_int_equal(strlen(err), sizeof(err) - 1);
	assert_int_equal(parse_cmdline("x --foo", &o, NULL, 0), OPTS_ERROR);
}

/* Does the usage line at @at start NAME OPEN LIST CLOSE, then a blank or its end? */
static bool usage_has(const char *at, const char *name, const char *open, const char *list,
		      const char *close)
{
	char want[128];
	size_t n = (size_t)snprintf(want, sizeof(want), "%s%s%s%s", name, open, list, close);

	return n < sizeof(want) && !strncmp(at, want, n) && (at[n] == ' ' || at[n] == '\n');
}

/*
 * The usage text and the option table agree: every option has its line
 * ("  --NAME" then '=', "[=", a blank or the end of the line), with its
 * choices as the table lists them; every "  --NAME" line names an option.
 */
static void test_opts_usage_matches_the_table(void **state)
{
	const char *usage = opts_usage(), *name, *list;
	unsigned n = 0;

	(void)state;
	for (unsigned i = 0; (name = opts_option(i, &list)); i++, n++) {
		const char *at = usage, *hit = NULL;
		size_t len = strlen(name);

		while ((at = strstr(at, "\n  --"))) {
			at += 5;
			if (!strncmp(at, name, len) && strchr("=[ \n", at[len])) {
				hit = at;
				break;
			}
		}
		if (!hit)
			fail_msg("--%s: no line of the usage text starts with it", name);
		if (list && !usage_has(hit, name, "=", list, "") && !usage_has(hit, name, "[=", list, "]"))
			fail_msg("--%s: the usage text's choices are not %s", name, list);
	}
	assert_true(n > 20);
	assert_string_equal(opts_option(0, NULL), "help");   /* @list may be NULL */
	for (const char *at = usage; (at = strstr(at, "\n  --")); ) {
		size_t len;
		unsigned i;

		at += 5;
		len = strcspn(at, "=[ \n");
		for (i = 0; (name = opts_option(i, NULL)); i++)
			if (strlen(name) == len && !strncmp(at, name, len))
				break;
		if (!name)
			fail_msg("the usage text names --%.*s, which is no option", (int)len, at);
	}
}

static void test_opts_usage_and_describe(void **state)
{
	struct opts o;
	char buf[512];

	(void)state;
	assert_non_null(strstr(opts_usage(), "--seed=N"));
	assert_non_null(strstr(opts_usage(), "--end=wait|return|shutdown|reboot|halt|qemu"));
	opts_defaults(&o);
	opts_describe(&o, buf, sizeof(buf));
	assert_string_equal(buf, "seed=0x1 iterations=20000 end=wait mode=firmware "
			    "dump-memmap=0 dump=0 hold=0 inject=none fail-alloc=0 "
			    "timeout=0 fragment=0 raise=none levels=firmware serial=auto wrong-restore=0");
	assert_int_equal(parse_cmdline("x --levels=5 --raise=la57-window", &o, NULL, 0), OPTS_OK);
	opts_describe(&o, buf, sizeof(buf));
	assert_non_null(strstr(buf, " raise=la57-window levels=5 "));
}

/* ---- --kernel, --initrd, --cmdline --------------------------------------- */

/* opts_parse_ascii() on a C string. */
#define DEFAULT_DESCRIBE "seed=0x1 iterations=20000 end=wait mode=firmware dump-memmap=0 dump=0 " \
	"hold=0 inject=none fail-alloc=0 timeout=0 fragment=0 raise=none levels=firmware " \
	"serial=auto wrong-restore=0"

static void test_opts_kernel_initrd_cmdline_from_config_file(void **state)
{
	static const char cfg[] =
		"# boot Linux on the checked tables\n"
		"--mode=handoff --end=qemu\n"
		"--kernel=\\EFI\\linux\\vmlinuz   # the bzImage\n"
		"--initrd=\\EFI\\linux\\initrd.img\n"
		"\"--cmdline=console=ttyS0 quiet\"\n";
	struct opts o;
	char err[128] = "";

	(void)state;
	assert_int_equal(opts_parse_ascii(cfg, strlen(cfg), &o, err, sizeof(err)), OPTS_OK);
	assert_string_equal(o.kernel, "\\EFI\\linux\\vmlinuz");
	assert_int_equal(o.ninitrd, 1);
	assert_string_equal(o.initrd[0], "\\EFI\\linux\\initrd.img");
	assert_string_equal(o.cmdline, "console=ttyS0 quiet");
	assert_int_equal(o.mode, OPTS_MODE_HANDOFF);
	assert_int_equal(o.end, OPTS_END_QEMU);
	/* quotes around the value only, tabs inside kept */
	assert_int_equal(ascii("--cmdline=\"root=/dev/vda1\tro  init=/init\"", &o,
					  err, sizeof(err)), OPTS_OK);
	assert_string_equal(o.cmdline, "root=/dev/vda1\tro  init=/init");
	assert_string_equal(o.kernel, "");
	assert_int_equal(o.ninitrd, 0);
	/* '#' inside quotes is text, not a comment */
	assert_int_equal(ascii("\"--cmdline=a #b\" --hold", &o, err, sizeof(err)),
			 OPTS_OK);
	assert_string_equal(o.cmdline, "a #b");
	assert_true(o.hold);
	/* an empty command line is allowed; a second one is refused (test_optsrc.c) */
	assert_int_equal(ascii("--cmdline=", &o, err, sizeof(err)), OPTS_OK);
	assert_string_equal(o.cmdline, "");
	assert_int_equal(ascii("--kernel=a --kernel=b", &o, err, sizeof(err)),
			 OPTS_ERROR);
	assert_string_equal(o.kernel, "");
}

static void test_opts_kernel_initrd_cmdline_from_ucs2(void **state)
{
	struct opts o;
	char err[128] = "";

	(void)state;
	assert_int_equal(parse_cmdline("\\EFI\\BOOT\\BOOTX64.EFI --mode=handoff --kernel=vmlinuz "
				       "--initrd=initrd.img \"--cmdline=root=/dev/sda1 ro quiet\"",
				       &o, err, sizeof(err)), OPTS_OK);
	assert_string_equal(o.kernel, "vmlinuz");
	assert_int_equal(o.ninitrd, 1);
	assert_string_equal(o.initrd[0], "initrd.img");
	assert_string_equal(o.cmdline, "root=/dev/sda1 ro quiet");
	assert_string_equal(err, "");
	/* a boot manager's text with no argv[0] */
	assert_int_equal(parse_cmdline("--kernel=\\vmlinuz-6.1 --cmdline=console=ttyS0,115200", &o,
				       err, sizeof(err)), OPTS_OK);
	assert_string_equal(o.kernel, "\\vmlinuz-6.1");
	assert_int_equal(o.ninitrd, 0);
	assert_string_equal(o.cmdline, "console=ttyS0,115200");
}

static void test_opts_kernel_and_initrd_need_a_path(void **state)
{
	(void)state;
	expect_error("x --kernel=", "--kernel needs a file path on the boot volume");
	expect_error("x --kernel", "--kernel needs a file path on the boot volume");
	expect_error("x --kernel=\"\"", "--kernel needs a file path on the boot volume");
	expect_error("x --initrd=", "--initrd needs a file path on the boot volume");
	expect_error("x --kernel=vmlinuz --initrd", "--initrd needs a file path on the boot volume");
	expect_error("x --cmdline", "--cmdline needs a value (\"\" for none)");
}

/* "--@name=" and @n copies of 'k', as a config file holds it. */
static int parse_long_value(const char *name, size_t n, struct opts *o, char *err, size_t errlen)
{
	char *line = malloc(n + 32);
	size_t pre;
	int rc;

	assert_non_null(line);
	pre = (size_t)snprintf(line, 32, "--%s=", name);
	memset(line + pre, 'k', n);
	rc = opts_parse_ascii(line, pre + n, o, err, errlen);
	free(line);
	return rc;
}

static void expect_value_length(const char *name, size_t fits, const char *msg)
{
	struct opts o;
	char err[128] = "";
	const char *got;

	assert_int_equal(parse_long_value(name, fits, &o, err, sizeof(err)), OPTS_OK);
	got = name[0] == 'k' ? o.kernel : name[0] == 'i' ? o.initrd[0] : o.cmdline;
	assert_int_equal(strlen(got), fits);
	for (size_t i = 0; i < fits; i++)
		assert_int_equal(got[i], 'k');
	memset(&o, 0x55, sizeof(o));
	assert_int_equal(parse_long_value(name, fits + 1, &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, msg);
	assert_non_null(strstr(err, "longer than"));
	assert_defaults(&o);
}

static void test_opts_kernel_initrd_cmdline_longer_than_the_buffer_refused(void **state)
{
	struct opts o;
	char line[200], err[128] = "";

	(void)state;
	expect_value_length("kernel", 127, "--kernel: longer than 127 characters");
	expect_value_length("initrd", 127, "--initrd: longer than 127 characters");
	expect_value_length("cmdline", 4095, "--cmdline: longer than 4095 characters");
	/* the same from UCS-2 */
	snprintf(line, sizeof(line), "x --kernel=%0128d", 0);
	memset(&o, 0x55, sizeof(o));
	assert_int_equal(parse_cmdline(line, &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "--kernel: longer than 127 characters");
	assert_defaults(&o);
	snprintf(line, sizeof(line), "x --initrd=%0127d", 0);
	assert_int_equal(parse_cmdline(line, &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(strlen(o.initrd[0]), 127);
}

static void test_opts_describe_names_the_kernel_only_when_given(void **state)
{
	struct opts o;
	char buf[2048];
	int w;

	(void)state;
	assert_int_equal(ascii("--mode=handoff --kernel=\\vmlinuz", &o, NULL, 0),
			 OPTS_OK);
	w = opts_describe(&o, buf, sizeof(buf));
	assert_string_equal(buf, "seed=0x1 iterations=20000 end=wait mode=handoff dump-memmap=0 "
			    "dump=0 hold=0 inject=none fail-alloc=0 timeout=0 fragment=0 "
			    "raise=none levels=firmware serial=auto wrong-restore=0 "
			    "kernel=\\vmlinuz initrd=none cmdline=\"\"");
	assert_int_equal(w, strlen(buf));

	assert_int_equal(ascii("--kernel=k.efi --initrd=i.img "
					  "\"--cmdline=console=ttyS0 quiet\"", &o, NULL, 0),
			 OPTS_OK);
	w = opts_describe(&o, buf, sizeof(buf));
	assert_string_equal(buf, DEFAULT_DESCRIBE
			    " kernel=k.efi initrd=i.img cmdline=\"console=ttyS0 quiet\"");
	assert_int_equal(w, strlen(buf));

	/* without a kernel: the line as before, whatever --initrd and --cmdline say */
	opts_defaults(&o);
	w = opts_describe(&o, buf, sizeof(buf));
	assert_string_equal(buf, DEFAULT_DESCRIBE);
	assert_int_equal(w, strlen(DEFAULT_DESCRIBE));
	assert_int_equal(ascii("--initrd=i.img --cmdline=quiet", &o, NULL, 0),
			 OPTS_OK);
	w = opts_describe(&o, buf, sizeof(buf));
	assert_string_equal(buf, DEFAULT_DESCRIBE);
	assert_int_equal(w, strlen(DEFAULT_DESCRIBE));
}

/* The longest values: the line is cut at the buffer, never past it; the length is the full one. */
static void test_opts_describe_longest_kernel_line_cut_at_the_buffer(void **state)
{
	struct opts o;
	char full[8192], cut[300];
	size_t want;
	int w;

	(void)state;
	opts_defaults(&o);
	memset(o.kernel, 'k', sizeof(o.kernel) - 1);
	memset(o.initrd[0], 'i', sizeof(o.initrd[0]) - 1);
	o.ninitrd = 1;
	memset(o.cmdline, 'c', sizeof(o.cmdline) - 1);
	want = strlen(DEFAULT_DESCRIBE) + strlen(" kernel= initrd= cmdline=\"\"") + 127 + 127 + 4095;
	w = opts_describe(&o, full, sizeof(full));
	assert_int_equal(w, want);
	assert_int_equal(strlen(full), want);
	assert_memory_equal(full, DEFAULT_DESCRIBE " kernel=kkk", strlen(DEFAULT_DESCRIBE) + 11);
	/* cut inside the kernel part */
	memset(cut, 0x55, sizeof(cut));
	w = opts_describe(&o, cut, sizeof(cut));
	assert_int_equal(w, want);
	assert_int_equal(strlen(cut), sizeof(cut) - 1);
	assert_memory_equal(cut, full, sizeof(cut) - 1);
	/* cut before the kernel part: still the whole length */
	w = opts_describe(&o, cut, 64);
	assert_int_equal(w, want);
	assert_int_equal(strlen(cut), 63);
	assert_memory_equal(cut, full, 63);
}

/* @times words "@word0 @word1 ...", parsed as \ptlab.cfg gives them. */
static int repeated(const char *word, unsigned times, struct opts *o, char *err, size_t errlen)
{
	char line[4096] = "";
	size_t n = 0;

	for (unsigned i = 0; i < times; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%u ", word, i);
	assert_true(n < sizeof(line));
	return ascii(line, o, err, errlen);
}

/* @max + 1 words @word: refused with @why, the options left at their defaults. */
static void one_too_many(const char *word, unsigned max, const char *why)
{
	struct opts o;
	char err[128] = "";

	memset(&o, 0x55, sizeof(o));
	assert_int_equal(repeated(word, max + 1, &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, why);
	assert_defaults(&o);
}

/* --initrd repeats: every path kept in order, up to OPTS_INITRD_MAX; describe lists them. */
static void test_opts_initrd_repeatable_in_order(void **state)
{
	struct opts o;
	char err[128] = "", buf[4096];

	(void)state;
	assert_int_equal(ascii("--mode=handoff --kernel=k --initrd=\\boot\\ucode.img "
			       "--initrd=\\boot\\initrd.img", &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.ninitrd, 2);
	assert_string_equal(o.initrd[0], "\\boot\\ucode.img");
	assert_string_equal(o.initrd[1], "\\boot\\initrd.img");
	opts_describe(&o, buf, sizeof(buf));
	assert_non_null(strstr(buf, " initrd=\\boot\\ucode.img,\\boot\\initrd.img cmdline="));
	assert_int_equal(repeated("--initrd=r", OPTS_INITRD_MAX, &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.ninitrd, OPTS_INITRD_MAX);
	assert_string_equal(o.initrd[OPTS_INITRD_MAX - 1], "r7");
	one_too_many("--initrd=r", OPTS_INITRD_MAX, "--initrd: more than 8");
}

/* --module repeats up to OPTS_MODULES_MAX, each value kept as given; --kaslr and --wrong-restore are flags. */
static void test_opts_modules_kaslr_and_wrong_restore(void **state)
{
	struct opts o;
	char err[128] = "", buf[2048];

	(void)state;
	assert_int_equal(ascii("--mode=handoff --kernel=k \"--module=\\boot\\m1,first module\" "
			       "--module=m2 --kaslr --wrong-restore", &o, err, sizeof(err)),
			 OPTS_OK);
	assert_int_equal(o.nmodules, 2);
	assert_string_equal(o.module[0], "\\boot\\m1,first module");
	assert_string_equal(o.module[1], "m2");
	assert_true(o.kaslr && o.wrong_restore);
	opts_describe(&o, buf, sizeof(buf));
	assert_non_null(strstr(buf, " wrong-restore=1 kernel=k "));
	assert_non_null(strstr(buf, " modules=2 kaslr=1"));

	assert_int_equal(repeated("--module=m", OPTS_MODULES_MAX, &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(o.nmodules, OPTS_MODULES_MAX);
	assert_string_equal(o.module[OPTS_MODULES_MAX - 1], "m15");
	one_too_many("--module=m", OPTS_MODULES_MAX, "--module: at most 16 modules");

	/* as long as module[] holds (255 characters), and not one longer */
	assert_int_equal(parse_long_value("module", 255, &o, err, sizeof(err)), OPTS_OK);
	assert_int_equal(strlen(o.module[0]), 255);
	memset(&o, 0x55, sizeof(o));
	assert_int_equal(parse_long_value("module", 256, &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "--module: longer than 255 characters");
	assert_defaults(&o);

	expect_error("x --module=", "--module needs a file path on the boot volume");
	expect_error("x --module", "--module needs a file path on the boot volume");
	expect_error("x --kaslr=1", "--kaslr takes no value");
	expect_error("x --wrong-restore=", "--wrong-restore takes no value");
}

/* \" is a quote that is text; every other backslash is text too. */
static void test_opts_escaped_quotes(void **state)
{
	struct opts o;
	char err[200] = "";

	(void)state;
	/* what make install-esp writes for CMDLINE='acpi_osi="!Windows 2015" quiet' */
	assert_int_equal(ascii("--mode=handoff --kernel=\\EFI\\ptlab\\vmlinuz "
			       "\"--cmdline=acpi_osi=\\\"!Windows 2015\\\" quiet\"", &o, err,
			       sizeof(err)), OPTS_OK);
	assert_string_equal(o.cmdline, "acpi_osi=\"!Windows 2015\" quiet");
	assert_string_equal(o.kernel, "\\EFI\\ptlab\\vmlinuz");
	/* the same from a boot manager's LoadOptions */
	assert_int_equal(parse_cmdline("--kernel=\\vmlinuz \"--cmdline=a=\\\"b c\\\"\"", &o, err,
				       sizeof(err)), OPTS_OK);
	assert_string_equal(o.cmdline, "a=\"b c\"");
	/* outside quotes too; a backslash before anything else stays */
	assert_int_equal(ascii("--cmdline=x\\\"y\\z\\\\", &o, err, sizeof(err)), OPTS_OK);
	assert_string_equal(o.cmdline, "x\"y\\z\\\\");
	/* a backslash before the escape is text: \\\" is \ then a quote */
	assert_int_equal(ascii("\"--cmdline=a\\\\\"b\"", &o, err, sizeof(err)), OPTS_OK);
	assert_string_equal(o.cmdline, "a\\\"b");
	/* a trailing backslash closes no quote: written after the quotes */
	assert_int_equal(ascii("\"--cmdline=a b\"\\", &o, err, sizeof(err)), OPTS_OK);
	assert_string_equal(o.cmdline, "a b\\");
	/* an escaped quote does not close one: still unterminated */
	assert_int_equal(ascii("\"--cmdline=a\\\"", &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "unterminated quote");
}

/* A stray word says how to quote a value with blanks through a boot manager. */
static void test_opts_stray_word_says_how_to_quote(void **state)
{
	struct opts o;
	char err[200] = "";

	(void)state;
	/* "--cmdline=console=ttyS0 quiet" after GRUB took the quotes away */
	assert_int_equal(parse_cmdline("--mode=handoff --kernel=vmlinuz --cmdline=console=ttyS0 quiet",
				       &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "unexpected argument 'quiet'" STRAY_HINT);
	assert_defaults(&o);
	/* a dash that is no option is named alone */
	expect_error("x -h", "unexpected argument '-h'");
}

/* \ptlab.cfg as editors save it: a BOM, UTF-16, characters beyond ASCII. */
static void test_opts_config_encodings(void **state)
{
	static const char utf8_bom[] = "\xef\xbb\xbf--seed=7 --hold\r\n";
	/* "--seed=9 # c\r\n" as UTF-16LE with its byte-order mark */
	static const char utf16le[] = "\xff\xfe-\0-\0s\0e\0e\0d\0=\0" "9\0 \0#\0 \0c\0\r\0\n\0";
	static const char utf16be[] = "\xfe\xff\0-\0-\0s";
	static const char no_bom[] = "-\0-\0h\0o\0l\0d\0";
	struct opts o;
	char err[200] = "";

	(void)state;
	assert_int_equal(opts_parse_ascii(utf8_bom, sizeof(utf8_bom) - 1, &o, err, sizeof(err)),
			 OPTS_OK);
	assert_int_equal(o.seed, 7);
	assert_true(o.hold);
	assert_int_equal(opts_parse_ascii(utf16le, sizeof(utf16le) - 1, &o, err, sizeof(err)),
			 OPTS_OK);
	assert_int_equal(o.seed, 9);
	/* an odd length after the UTF-16LE mark */
	assert_int_equal(opts_parse_ascii(utf16le, sizeof(utf16le) - 2, &o, err, sizeof(err)),
			 OPTS_ERROR);
	assert_string_equal(err, "config starts as UTF-16LE (byte-order mark 0xff 0xfe) but has an "
			    "odd number of bytes");
	assert_defaults(&o);
	/* UTF-16LE with a character beyond ASCII: named with its byte offset */
	assert_int_equal(opts_parse_ascii("\xff\xfe-\0\xe9\0", 6, &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "character U+00E9 at offset 4 of the UTF-16 config is not ASCII: "
			    "options are ASCII only");
	assert_int_equal(opts_parse_ascii(utf16be, sizeof(utf16be) - 1, &o, err, sizeof(err)),
			 OPTS_ERROR);
	assert_string_equal(err, "config is UTF-16 big-endian (byte-order mark 0xfe 0xff): save it "
			    "as ASCII, UTF-8 or UTF-16LE");
	assert_int_equal(opts_parse_ascii(no_bom, sizeof(no_bom) - 1, &o, err, sizeof(err)),
			 OPTS_ERROR);
	assert_string_equal(err, "bad byte 0x00 at offset 1 in config: UTF-16 without a byte-order "
			    "mark? save it as ASCII or UTF-8");
	/* UTF-8 beyond ASCII (a typographic quote), after a BOM: offset in the file */
	assert_int_equal(opts_parse_ascii("\xef\xbb\xbf--cmdline=\xe2\x80\x9cx", 17, &o, err,
					  sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "bad byte 0xe2 at offset 13 in config: not ASCII (options are "
			    "ASCII only)");
	assert_defaults(&o);
}

/* The number after @key in @text and, through @next, the one after the ';' behind it. */
static long number_after(const char *text, const char *key, long *next)
{
	const char *p = strstr(text, key);
	char *end;
	long v;

	*next = -1;
	if (!p)
		return -1;
	v = strtol(p + strlen(key), &end, 10);
	if (*end == ';')
		*next = strtol(end + 1, NULL, 10);	/* strtol skips the blanks */
	return v;
}

/*
 * --help says the churn's defaults the code has: opts_defaults() and, in
 * hand-off mode, opts_handoff_defaults() (what the mode's option_defaults
 * runs); docs/options.md and README are compared with --help by the docs
 * suite (tests/check-links.py).
 */
static void test_opts_help_says_the_iteration_defaults(void **state)
{
	const char *line = strstr(opts_usage(), "--iterations=N");
	struct opts o;
	char err[128];
	long handoff;

	(void)state;
	assert_non_null(line);
	opts_defaults(&o);
	assert_int_equal(number_after(line, "(default ", &handoff), (long)o.iterations);
	opts_handoff_defaults(&o);
	assert_int_equal(handoff, (long)o.iterations);
	assert_non_null(strstr(line, "in hand-off mode)"));
	assert_int_equal(o.end, OPTS_END_SHUTDOWN);
	/* what was given stays */
	assert_int_equal(parse_cmdline("--iterations=7 --end=qemu --mode=handoff", &o, err,
				       sizeof(err)), OPTS_OK);
	opts_handoff_defaults(&o);
	assert_int_equal(o.iterations, 7);
	assert_int_equal(o.end, OPTS_END_QEMU);
}

UNIT_MAIN(
	cmocka_unit_test(test_opts_defaults),
	cmocka_unit_test(test_opts_shell_argv0_is_skipped),
	cmocka_unit_test(test_opts_every_option),
	cmocka_unit_test(test_opts_every_choice_value),
	cmocka_unit_test(test_opts_inject_lists),
	cmocka_unit_test(test_opts_numbers),
	cmocka_unit_test(test_opts_errors_name_the_problem),
	cmocka_unit_test(test_opts_quotes_and_extra_spaces),
	cmocka_unit_test(test_opts_binary_load_options_are_ignored),
	cmocka_unit_test(test_opts_non_ascii_shell_line_is_refused),
	cmocka_unit_test(test_opts_all_single_units),
	cmocka_unit_test(test_opts_config_file),
	cmocka_unit_test(test_opts_escaped_quotes),
	cmocka_unit_test(test_opts_help_says_the_iteration_defaults),
	cmocka_unit_test(test_opts_stray_word_says_how_to_quote),
	cmocka_unit_test(test_opts_config_encodings),
	cmocka_unit_test(test_opts_long_token_and_small_err_buffer),
	cmocka_unit_test(test_opts_usage_and_describe),
	cmocka_unit_test(test_opts_usage_matches_the_table),
	cmocka_unit_test(test_opts_dump_formats),
	cmocka_unit_test(test_opts_kernel_initrd_cmdline_from_config_file),
	cmocka_unit_test(test_opts_kernel_initrd_cmdline_from_ucs2),
	cmocka_unit_test(test_opts_kernel_and_initrd_need_a_path),
	cmocka_unit_test(test_opts_kernel_initrd_cmdline_longer_than_the_buffer_refused),
	cmocka_unit_test(test_opts_initrd_repeatable_in_order),
	cmocka_unit_test(test_opts_modules_kaslr_and_wrong_restore),
	cmocka_unit_test(test_opts_describe_names_the_kernel_only_when_given),
	cmocka_unit_test(test_opts_describe_longest_kernel_line_cut_at_the_buffer))
