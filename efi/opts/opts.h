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

/* The options one parse has applied so far (opts_apply()). */
struct opts_seen {
	uint64_t mask;		/* bit i: option i of the table was given */
	char first[64][48];	/* ... as it was written, "--name=value" (cut) */
};

/**
 * opts_apply() - apply one word "--name[=value]" of an option source to @o
 * @seen: what this parse has applied before; zeroed for the first word
 *
 * A single-valued option given a second time is refused, naming both
 * words ("--levels given twice, as '--levels=5' and '--levels=4' ..."):
 * the last one would otherwise win silently.  Flags, --inject, --initrd
 * and --module may repeat (their values add up).
 *
 * Return: true, or false with the reason in @err.
 */
bool opts_apply(struct opts *o, struct opts_seen *seen, char *tok, char *err, size_t errlen);

/* fmt_vsnprintf() into @err (nothing when @err is NULL or @errlen 0): a refusal's reason. */
void opts_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * opts_option() - the name of option @i of the table opts_apply() reads
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
