/* SPDX-License-Identifier: MIT */
/*
 * Command-line and config-file options of the app.
 *
 * Firmware-free: LoadOptions arrive as plain bytes or 16-bit units so the
 * host tests feed the parser whatever a shell or a boot entry might pass.
 */
#ifndef PTLAB_EFI_OPTS_H
#define PTLAB_EFI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Return values of the parsers. */
#define OPTS_OK		0	/* at least one option parsed */
#define OPTS_EMPTY	1	/* valid text without options: try the config file */
#define OPTS_BINARY	2	/* not UCS-2 text (boot entry data): ignored */
#define OPTS_FOREIGN	3	/* a boot manager's text without a "--" word: not ours */
#define OPTS_ERROR	(-1)	/* unknown or malformed option; message in err */

#define OPTS_PATH_MAX    128u	/* --kernel=, --initrd=: bytes with the NUL */
#define OPTS_INITRD_MAX  8u	/* --initrd= options one run may give */
/*
 * --cmdline=: bytes with the NUL; above any x86 kernel's cmdline_size
 * (2047 for Debian's), so the kernel's own limit is the one that refuses.
 */
#define OPTS_CMDLINE_MAX 4096u
#define OPTS_MODULES_MAX 16u	/* --module= given at most this often */
#define OPTS_MODULE_MAX  256u	/* --module=PATH[,STRING]: bytes with the NUL */

enum opts_end {
	OPTS_END_WAIT,		/* wait for a key (or 60 s), then shut down */
	OPTS_END_RETURN,
	OPTS_END_SHUTDOWN,
	OPTS_END_REBOOT,
	OPTS_END_HALT,
	OPTS_END_QEMU,		/* isa-debug-exit with the result */
};

enum opts_mode {
	OPTS_MODE_FIRMWARE,	/* boot services stay up */
	OPTS_MODE_HANDOFF,	/* after ExitBootServices */
};

/*
 * The churn's and the SMP shootdowns' own faults (--inject=NAME): at most
 * one of them per run (opts_validate), planted somewhere in the churn.
 * Every other --inject name is the fault of one check, which the check
 * registry knows (efi/checks/registry.h): opts keeps those names as given
 * (faults[]) and the registry accepts or refuses them.
 */
enum opts_inject {
	OPTS_INJECT_NONE,
	OPTS_INJECT_WRONG_FRAME,
	OPTS_INJECT_NX_CLEARED,
	OPTS_INJECT_MISSING_INVLPG,
	OPTS_INJECT_FREED_TABLE,
	OPTS_INJECT_MISSING_SHOOTDOWN,	/* SMP: one AP gets no shootdown IPI */
	OPTS_INJECT_COUNT
};

/* Every one of the five: at most one of them per run (opts_validate). */
#define OPTS_INJECT_CHURN_SET ((UINT64_C(1) << OPTS_INJECT_COUNT) - 2)

#define OPTS_FAULTS_MAX     48u	/* checks' fault names one run may give */
#define OPTS_FAULT_NAME_MAX 32u	/* bytes of one, with the NUL */

/* --dump, --dump-firmware: what to list (index 0 is not accepted as a value) */
enum opts_dump {
	OPTS_DUMP_NONE,
	OPTS_DUMP_LEAVES,	/* every leaf (firmware tables: capped) */
	OPTS_DUMP_RANGES,	/* ptdump-style coalesced runs */
};

enum opts_raise {
	OPTS_RAISE_NONE,
	OPTS_RAISE_GP,
	OPTS_RAISE_BADSTACK,
	OPTS_RAISE_TIMEOUT,
	OPTS_RAISE_LA57_WINDOW,		/* a fault inside the LA57 switch window */
	OPTS_RAISE_LA57_ROOT_HIGH,	/* the 5-level root above 4 GiB: switch refused */
	OPTS_RAISE_AP_FAULT,	/* SMP: one AP takes a #GP on our tables */
};

/* --matrix: how many cases the MMU matrix runs (docs/mmu.md). */
enum opts_matrix {
	OPTS_MATRIX_REDUCED,	/* every bit at every level, seeded: seconds */
	OPTS_MATRIX_FULL,	/* the whole product */
};

/* --known-deviation: the CPU deviations a user lists, reported as TODO (docs/mmu.md). */
enum opts_deviation {
	OPTS_DEV_RSVD_P0,	/* "rsvd-p0": a reserved-bit #PF with P=0 in its error code */
	OPTS_DEV_COUNT,
};

#define OPTS_DEVIATIONS_MAX	128	/* the --known-deviation list, with its NUL */

enum opts_serial {
	OPTS_SERIAL_AUTO,	/* COM1 directly unless ConOut already reaches a UART */
	OPTS_SERIAL_ON,		/* COM1 directly, always */
	OPTS_SERIAL_OFF,	/* never COM1 directly */
};

struct opts {
	bool help;
	uint64_t seed;		/* default 1 */
	uint64_t iterations;	/* default OPTS_ITERATIONS (hand-off: OPTS_HANDOFF_ITERATIONS) */
	bool iterations_given;	/* --iterations was given */
	enum opts_end end;
	bool end_given;		/* --end was on the command line or in the file */
	bool dump_memmap;
	enum opts_dump dump;	/* --dump[=leaves|ranges]: the plan and the built tables */
	enum opts_dump dump_firmware;	/* --dump-firmware=leaves|ranges */
	bool hold;
	enum opts_mode mode;
	enum opts_inject inject;	/* the one of the churn's five given, or none */
	uint64_t injects;	/* every one of the five given: bit (1 << enum opts_inject) */
	/* the checks' faults given (--inject), each once, in the order given */
	char faults[OPTS_FAULTS_MAX][OPTS_FAULT_NAME_MAX];
	unsigned nfaults;
	uint64_t fail_alloc;	/* fail the Nth frame allocation; 0 = never */
	uint64_t timeout;	/* seconds; 0 = none */
	bool fragment;		/* test-only: fragment the frame pool */
	enum opts_raise raise;	/* test-only: raise an exception */
	unsigned levels;	/* paging levels: 0 = the firmware's own mode, 4 or 5 */
	enum opts_serial serial;
	bool wrong_restore;	/* test-only: leave CR0.WP flipped at the end */
	/* hand-off mode ending in a Linux kernel ("" when not given) */
	char kernel[OPTS_PATH_MAX];	/* --kernel=PATH on the boot volume */
	char initrd[OPTS_INITRD_MAX][OPTS_PATH_MAX];	/* --initrd=PATH, in the order given */
	unsigned ninitrd;
	char cmdline[OPTS_CMDLINE_MAX];	/* --cmdline=TEXT, the kernel's command line */
	/* Limine-protocol kernels: --module=PATH[,STRING] as given, in order */
	char module[OPTS_MODULES_MAX][OPTS_MODULE_MAX];
	unsigned nmodules;
	bool kaslr;		/* --kaslr: a random slide for a relocatable kernel */
	enum opts_matrix matrix;	/* --matrix=reduced|full */
	char deviations[OPTS_DEVIATIONS_MAX];	/* --known-deviation=NAME[,NAME] as given */
};

/* Whether --inject named the churn's fault @v (in any list). */
static inline bool opts_injected(const struct opts *o, enum opts_inject v)
{
	return v != OPTS_INJECT_NONE && ((o->injects >> v) & 1);
}

/* Whether --inject named the check's fault @name (in any list). */
bool opts_fault_given(const struct opts *o, const char *name);

/**
 * opts_inject_name() - the --inject spelling of the churn's fault @v
 * ("none" out of range)
 */
const char *opts_inject_name(enum opts_inject v);

#define OPTS_ITERATIONS         20000u	/* the churn's operations by default */
#define OPTS_HANDOFF_ITERATIONS 50000u	/* ... in hand-off mode: all of RAM is ours */

/**
 * opts_defaults() - fill @o with the defaults
 *
 * seed 1, iterations 20000, end wait, mode firmware, timeout 0, everything
 * else off.
 */
void opts_defaults(struct opts *o);

/**
 * opts_handoff_defaults() - the defaults hand-off mode changes, on parsed @o
 *
 * --end shutdown (nothing to return to) unless given, the churn
 * OPTS_HANDOFF_ITERATIONS long unless --iterations was given.
 */
void opts_handoff_defaults(struct opts *o);

/**
 * opts_parse_ucs2() - parse a UCS-2 command line (LoadOptions)
 * @s:      the text, @nchars 16-bit units; need not be NUL-terminated
 * @nchars: number of units in @s
 * @o:      result; set to the defaults first, then the options applied
 * @err:    message buffer for OPTS_ERROR (may be NULL when @errlen is 0)
 * @errlen: bytes in @err
 *
 * Tokens are separated by blanks; double quotes group and are removed;
 * \" is a quote that is text, in quotes or not (the one escape: any other
 * backslash is text, as in UEFI paths).  The
 * UEFI shell puts argv[0] first, so a first token that does not start with
 * '-' is skipped.  Text is 0x20..0x7e plus tab/CR/LF, ended by the end of
 * the buffer or by NULs that run to the end; anything else means the data
 * is not a command line - except a line that is mostly ASCII, holds "--"
 * and has printable characters beyond ASCII (no controls or surrogates):
 * that is what a person typed, refused with the first such character
 * ("character U+00E9 at position 12 ...").
 *
 * Return: OPTS_OK, OPTS_EMPTY, OPTS_BINARY (@o holds the defaults) or
 * OPTS_ERROR (@o holds the defaults, @err the reason).
 */
int opts_parse_ucs2(const uint16_t *s, size_t nchars, struct opts *o,
		    char *err, size_t errlen);

/**
 * opts_parse_load_options() - opts_parse_ucs2() on raw LoadOptions bytes
 * @data:  LoadedImage->LoadOptions, any alignment, may be NULL if @bytes is 0
 * @bytes: LoadedImage->LoadOptionsSize
 *
 * An odd byte count cannot be UCS-2 text: OPTS_BINARY.
 * Return: as opts_parse_ucs2().
 */
int opts_parse_load_options(const void *data, size_t bytes, struct opts *o,
			    char *err, size_t errlen);

/**
 * opts_parse_boot_options() - LoadOptions by who passed them
 * @from_shell: the image has the shell's parameters protocol
 *
 * From a shell: opts_parse_load_options() (argv[0] first, strict).  From a
 * boot manager (U-Boot passes its "bootargs", a boot entry its optional
 * data), with no argv[0]: binary data is OPTS_BINARY; text in which no word
 * starts with "--" is not meant for ptlab: OPTS_FOREIGN, with the text
 * (printable ASCII, shortened) in @err for the report; text with any "--"
 * word is parsed strictly, every word an option, so a typo is never dropped.
 *
 * Return: as opts_parse_ucs2(), or OPTS_FOREIGN (@o holds the defaults).
 */
int opts_parse_boot_options(const void *data, size_t bytes, bool from_shell,
			    struct opts *o, char *err, size_t errlen);

/**
 * opts_parse_ascii() - parse a config file's content (\ptlab.cfg)
 * @s: the bytes, @n of them
 *
 * The same options separated by blanks or newlines; '#' starts a comment
 * that runs to the end of the line.  No argv[0].  A UTF-8 byte-order mark
 * is skipped; a file starting with the UTF-16LE one (0xff 0xfe) is read
 * as UTF-16LE.  A byte (character) outside ASCII text is an error naming
 * it and its offset, and UTF-16 big-endian or without a byte-order mark
 * is named as such.
 *
 * Return: OPTS_OK, OPTS_EMPTY or OPTS_ERROR (@o holds the defaults then).
 */
int opts_parse_ascii(const char *s, size_t n, struct opts *o, char *err,
		     size_t errlen);

/**
 * opts_option() - the name of option @i of the table apply() reads
 * @list: when not NULL, receives its choices as opts_usage() writes them
 *        ("a|b|c"; NULL for an option without named choices)
 *
 * Return: the name without "--", or NULL when @i is past the last option.
 * The unit tests hold opts_usage() to it.
 */
const char *opts_option(unsigned i, const char **list);

/**
 * opts_describe() - one line naming every option's value, for the report
 *
 * Return: as fmt_snprintf().
 */
int opts_describe(const struct opts *o, char *buf, size_t size);

#endif
