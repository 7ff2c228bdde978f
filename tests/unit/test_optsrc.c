/* SPDX-License-Identifier: MIT */
/* covers: efi/opts/cfgfile.c efi/opts/lex.c efi/opts/loadopts.c efi/opts/opts.c */
/*
 * efi/opts/: what the option sources refuse that a person may write by
 * mistake - a single-valued option given twice (opts.c), a \ptlab.cfg
 * padded with NULs (cfgfile.c) - and whether a run that runs nothing
 * waits for a key (loadopts.c), wherever its --help came from.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"
#include "optsfx.h"

#include "../../efi/opts/cfgfile.h"
#include "../../efi/opts/loadopts.h"
#include "../../efi/opts/opts.h"

/* Every single-valued option given twice: refused, both words named, nothing kept. */
static void test_single_valued_option_twice_refused(void **state)
{
	static const struct {
		const char *line, *err;
	} cases[] = {
		{ "--levels=5 --levels=4", "--levels given twice, as '--levels=5' and '--levels=4': "
		  "it takes one value; give it once" },
		{ "--end=qemu --end=return", "--end given twice, as '--end=qemu' and '--end=return': "
		  "it takes one value; give it once" },
		/* the same value twice is still twice: one of them is a slip */
		{ "--seed=7 --hold --seed=7", "--seed given twice, as '--seed=7' and '--seed=7': "
		  "it takes one value; give it once" },
		{ "--dump --dump=leaves", "--dump given twice, as '--dump' and '--dump=leaves': "
		  "it takes one value; give it once" },
		{ "--kernel=\\a.efi --kernel=\\b.efi", "--kernel given twice, as '--kernel=\\a.efi' "
		  "and '--kernel=\\b.efi': it takes one value; give it once" },
		{ "--cmdline=x \"--cmdline=a b\"", "--cmdline given twice, as '--cmdline=x' and "
		  "'--cmdline=a b': it takes one value; give it once" },
		/* a long value is cut in the message, not the buffer */
		{ "--cmdline=0123456789012345678901234567890123456789 --cmdline=",
		  "--cmdline given twice, as '--cmdline=012345678901234567890123456789...' and "
		  "'--cmdline=': it takes one value; give it once" },
	};
	struct opts o;
	char err[300];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(ascii(cases[i].line, &o, err, sizeof(err)), OPTS_ERROR);
		assert_string_equal(err, cases[i].err);
		assert_defaults(&o);
		/* the same from a shell's command line (argv[0] first) */
		char line[200];

		snprintf(line, sizeof(line), "ptlab.efi %s", cases[i].line);
		assert_int_equal(parse_cmdline(line, &o, err, sizeof(err)), OPTS_ERROR);
		assert_string_equal(err, cases[i].err);
	}
	/* every option of the table that takes a value, once each, is accepted */
	ascii_ok("--levels=5 --end=qemu --seed=3 --iterations=9 --dump=ranges "
		 "--mode=handoff --kernel=\\k --cmdline=c --serial=on", &o);
	assert_int_equal(o.levels, 5);
	assert_int_equal(o.end, OPTS_END_QEMU);
}

/* The options whose values add up stay repeatable, and flags may repeat. */
static void test_repeatable_options_stay_repeatable(void **state)
{
	struct opts o;
	char err[300] = "";

	(void)state;
	ascii_ok("--kernel=\\k --initrd=\\a --initrd=\\b --module=\\m1 --module=\\m2 "
		 "--inject=wrong-frame --inject=nx-cleared --hold --hold", &o);
	assert_int_equal(o.ninitrd, 2);
	assert_string_equal(o.initrd[1], "\\b");
	assert_int_equal(o.nmodules, 2);
	assert_true(opts_injected(&o, OPTS_INJECT_WRONG_FRAME));
	assert_true(opts_injected(&o, OPTS_INJECT_NX_CLEARED));
	assert_true(o.hold);
	/* a refusal of another option still names that option, not a repeat */
	assert_int_equal(ascii("--levels=6", &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "--levels needs one of 4|5");
	/* "--dump-memmap" is not "--dump" given again */
	ascii_ok("--dump --dump-memmap --dump-firmware=leaves", &o);
	assert_int_equal(o.dump, OPTS_DUMP_LEAVES);
	assert_true(o.dump_memmap);
}

/* A \ptlab.cfg padded with NULs to a block: refused, naming the padding and where it starts. */
static void test_nul_padded_cfg_refused_with_a_hint(void **state)
{
	static const char padded[] = "--seed=5\n\0\0\0\0\0\0\0";
	static const char padded16[] = "\xff\xfe-\0-\0h\0o\0l\0d\0\0\0\0\0";
	static const char all_nul[4] = { 0 };
	struct opts o;
	char err[200] = "";

	(void)state;
	assert_int_equal(opts_parse_ascii(padded, sizeof(padded) - 1, &o, err, sizeof(err)),
			 OPTS_ERROR);
	assert_string_equal(err, "ptlab.cfg: NUL byte at offset 9: the file is padded; save it "
			    "as plain text");
	assert_defaults(&o);
	assert_int_equal(opts_parse_ascii(padded16, sizeof(padded16) - 1, &o, err, sizeof(err)),
			 OPTS_ERROR);
	assert_string_equal(err, "ptlab.cfg: NUL byte at offset 14: the file is padded; save it "
			    "as plain text");
	assert_int_equal(opts_parse_ascii(all_nul, sizeof(all_nul), &o, err, sizeof(err)),
			 OPTS_ERROR);
	assert_string_equal(err, "ptlab.cfg: NUL byte at offset 0: the file is padded; save it "
			    "as plain text");
	/* a NUL with text after it is no padding: the byte is named as before */
	assert_int_equal(opts_parse_ascii("--hold\0--dump", 13, &o, err, sizeof(err)), OPTS_ERROR);
	assert_string_equal(err, "bad byte 0x00 at offset 6 in config");
}

/*
 * --help read from \ptlab.cfg or a boot entry's data, with a boot menu
 * (not a shell) having started us, waits as a refusal does; from a shell it
 * does not, and neither does a refusal there.
 */
static void test_help_waits_as_a_refusal_does(void **state)
{
	static const uint16_t entry[] = { '-', '-', 'h', 'e', 'l', 'p', 0 };
	struct opts o;
	char err[200] = "";

	(void)state;
	ascii_ok("--help\n", &o);
	assert_true(o.help);
	assert_true(opts_stop_waits(&o, false, false));
	assert_false(opts_stop_waits(&o, false, true));
	assert_int_equal(opts_parse_boot_options(entry, sizeof(entry), false, &o, err,
						 sizeof(err)), OPTS_OK);
	assert_true(o.help);
	assert_true(opts_stop_waits(&o, false, false));
	/* a refusal waits the same way; a run that goes on does not stop */
	assert_int_equal(ascii("--levels=9\n", &o, err, sizeof(err)), OPTS_ERROR);
	assert_true(opts_stop_waits(&o, true, false));
	assert_false(opts_stop_waits(&o, true, true));
	ascii_ok("--seed=2\n", &o);
	assert_false(opts_stop_waits(&o, false, false));
}

UNIT_MAIN(
	cmocka_unit_test(test_single_valued_option_twice_refused),
	cmocka_unit_test(test_repeatable_options_stay_repeatable),
	cmocka_unit_test(test_nul_padded_cfg_refused_with_a_hint),
	cmocka_unit_test(test_help_waits_as_a_refusal_does))
