/* SPDX-License-Identifier: MIT */
/*
 * Option parsing for LoadOptions (UCS-2) and \ptlab.cfg (ASCII).
 * Firmware-free: only compiler headers, so the host tests compile this file
 * as is.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/fmt.h"
#include "opts/opts.h"

#define TOKEN_MAX (OPTS_CMDLINE_MAX + 16)   /* "--cmdline=" and its value */

/* Input as 8- or 16-bit little-endian units, read bytewise (any alignment). */
struct src {
	const uint8_t *b;
	size_t n;		/* units */
	unsigned int width;	/* 1 or 2 bytes per unit */
};

static unsigned int unit(const struct src *s, size_t i)
{
	if (s->width == 1)
		return s->b[i];
	return s->b[2 * i] | (unsigned int)s->b[2 * i + 1] << 8;
}

static bool is_blank(unsigned int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_text(unsigned int c)
{
	return (c >= 0x20 && c <= 0x7e) || is_blank(c);
}

static const char *const end_names[] = {
	[OPTS_END_WAIT] = "wait", [OPTS_END_RETURN] = "return",
	[OPTS_END_SHUTDOWN] = "shutdown", [OPTS_END_REBOOT] = "reboot",
	[OPTS_END_HALT] = "halt", [OPTS_END_QEMU] = "qemu", NULL,
};

static const char *const mode_names[] = {
	[OPTS_MODE_FIRMWARE] = "firmware", [OPTS_MODE_HANDOFF] = "handoff", NULL,
};

/* The churn's five; index 0 (none) is not accepted on the command line. */
static const char *const inject_names[] = {
	[OPTS_INJECT_NONE] = "none", [OPTS_INJECT_WRONG_FRAME] = "wrong-frame",
	[OPTS_INJECT_NX_CLEARED] = "nx-cleared",
	[OPTS_INJECT_MISSING_INVLPG] = "missing-invlpg",
	[OPTS_INJECT_FREED_TABLE] = "freed-table",
	[OPTS_INJECT_MISSING_SHOOTDOWN] = "missing-shootdown",
	NULL,
};

_Static_assert(sizeof(inject_names) / sizeof(inject_names[0]) == OPTS_INJECT_COUNT + 1,
	       "every churn fault has a name");

const char *opts_inject_name(enum opts_inject v)
{
	return (unsigned)v < OPTS_INJECT_COUNT ? inject_names[v] : inject_names[0];
}

static const char *const dump_names[] = {
	[OPTS_DUMP_NONE] = "none", [OPTS_DUMP_LEAVES] = "leaves",
	[OPTS_DUMP_RANGES] = "ranges", NULL,
};

static const char *const serial_names[] = {
	[OPTS_SERIAL_AUTO] = "auto", [OPTS_SERIAL_ON] = "on",
	[OPTS_SERIAL_OFF] = "off", NULL,
};

static const char *const raise_names[] = {
	[OPTS_RAISE_NONE] = "none", [OPTS_RAISE_GP] = "gp",
	[OPTS_RAISE_BADSTACK] = "badstack", [OPTS_RAISE_TIMEOUT] = "timeout",
	[OPTS_RAISE_LA57_WINDOW] = "la57-window",
	[OPTS_RAISE_LA57_ROOT_HIGH] = "la57-root-high",
	[OPTS_RAISE_AP_FAULT] = "ap-fault", NULL,
};

/* Index 0 (the firmware's own mode) is not accepted on the command line. */
static const char *const matrix_names[] = { "reduced", "full", NULL };
static const char *const levels_names[] = { "firmware", "4", "5", NULL };
static const unsigned int levels_values[] = { 0, 4, 5 };	/* what struct opts holds */

_Static_assert(sizeof(levels_values) / sizeof(levels_values[0]) + 1 ==
	       sizeof(levels_names) / sizeof(levels_names[0]), "every level has a value");

void opts_defaults(struct opts *o)
{
	*o = (struct opts){
		.seed = 1,
		.iterations = OPTS_ITERATIONS,
		.end = OPTS_END_WAIT,
		.mode = OPTS_MODE_FIRMWARE,
		.inject = OPTS_INJECT_NONE,
		.raise = OPTS_RAISE_NONE,
		.serial = OPTS_SERIAL_AUTO,
	};
}

void opts_handoff_defaults(struct opts *o)
{
	if (!o->end_given)
		o->end = OPTS_END_SHUTDOWN;
	if (!o->iterations_given)
		o->iterations = OPTS_HANDOFF_ITERATIONS;
}

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* Decimal or 0x-prefixed hex, the whole string, no overflow. */
static bool parse_u64(const char *s, uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

/* Index of @val in @names starting at @first, or -1. */
static int choice(const char *const *names, int first, const char *val)
{
	for (int i = first; names[i]; i++)
		if (str_eq(names[i], val))
			return i;
	return -1;
}

/* Copy @val into @dst of @size bytes; false when it does not fit. */
static bool copy_str(char *dst, size_t size, const char *val)
{
	size_t n = 0;

	while (val[n] && n + 1 < size)
		n++;
	if (val[n])
		return false;
	for (size_t i = 0; i <= n; i++)
		dst[i] = val[i];
	return true;
}

static void __attribute__((format(printf, 3, 4)))
set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	fmt_vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

bool opts_fault_given(const struct opts *o, const char *name)
{
	for (unsigned i = 0; i < o->nfaults; i++)
		if (str_eq(o->faults[i], name))
			return true;
	return false;
}

/* A check's fault name: 'a'-'z', '0'-'9' and '-', not empty, fits faults[]. */
static bool fault_name_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '-'))
			return false;
	return n > 0 && n < OPTS_FAULT_NAME_MAX;
}

/*
 * The comma-separated fault names in @val: the churn's five added to
 * @o->injects (@o->inject the last of them by number), every other name
 * added to @o->faults once (the check registry judges those).  False with
 * a message on "none", an empty or malformed name ('a'-'z', '0'-'9', '-'),
 * or more names than faults[] holds; @o->injects is then left as it was.
 */
static bool apply_faults(struct opts *o, char *val, char *err, size_t errlen)
{
	uint64_t mask = 0;

	for (char *item = val;;) {
		char *end = item;
		int c;

		while (*end && *end != ',')
			end++;
		bool last = !*end;

		*end = '\0';
		c = choice(inject_names, 0, item);
		if (c > 0) {
			mask |= UINT64_C(1) << c;
		} else if (c == 0 || !fault_name_ok(item)) {
			/* "none" is no fault: index 0 is not accepted */
			set_err(err, errlen, "--inject: no fault '%.40s'; it needs fault names, "
				"comma-separated (docs/faults.md)", item);
			return false;
		} else if (!opts_fault_given(o, item)) {
			if (o->nfaults == OPTS_FAULTS_MAX) {
				set_err(err, errlen, "--inject: more than %u faults", OPTS_FAULTS_MAX);
				return false;
			}
			copy_str(o->faults[o->nfaults++], OPTS_FAULT_NAME_MAX, item);
		}
		if (last)
			break;
		item = end + 1;
	}
	/* values add up over several --inject options */
	o->injects |= mask;
	for (int i = 1; i < OPTS_INJECT_COUNT; i++)
		if (mask & (UINT64_C(1) << i))
			o->inject = (enum opts_inject)i;
	return true;
}

/* What an option's value is, and what it stores at its field of struct opts. */
enum opt_kind {
	OPT_FLAG,		/* no value: a bool, set */
	OPT_NUM,		/* a number (parse_u64): a uint64_t */
	OPT_CHOICE,		/* one of its names: its index, or its value, an enum */
	OPT_CHOICE_BARE,	/* the same, or no value: the first accepted */
	OPT_FAULTS,		/* --inject's comma-separated fault names (apply_faults) */
	OPT_PATH,		/* a file path, not empty: a string of its size */
	OPT_TEXT,		/* any value, "" too: the same */
};

/* Every choice is stored as an unsigned int: the enums of opts.h are that wide. */
#define UINT_WIDE(e) (sizeof(enum e) == sizeof(unsigned int))
_Static_assert(UINT_WIDE(opts_end) && UINT_WIDE(opts_mode) && UINT_WIDE(opts_dump) &&
	       UINT_WIDE(opts_raise) && UINT_WIDE(opts_serial) && UINT_WIDE(opts_matrix), "a choice is an unsigned int");

struct opt_def {
	const char *name;
	enum opt_kind kind;
	size_t field;			/* offsetof(struct opts, ...) */
	size_t given;			/* offsetof a bool set too; 0 (help's): none */
	const char *const *names;	/* choices */
	const unsigned int *values;	/* what each choice stores; NULL: its index */
	int first;			/* first accepted choice */
	const char *list;		/* choices, for the message */
	size_t size;			/* strings: bytes of one, with the NUL */
	unsigned int max;		/* repeatable strings: @field holds @max */
	size_t count;			/* ... and the unsigned at @count how many */
	const char *limit, *unit;	/* the refusal of one more: "--NAME: LIMIT MAX UNIT" */
};

#define FIELD(f) offsetof(struct opts, f)
#define SIZE(f) sizeof(((struct opts *)0)->f)
#define OPT(n, k, f) .name = n, .kind = k, .field = FIELD(f)

static const struct opt_def defs[] = {
	{ OPT("help", OPT_FLAG, help) },
	{ OPT("seed", OPT_NUM, seed) },
	{ OPT("iterations", OPT_NUM, iterations), .given = FIELD(iterations_given) },
	{ OPT("end", OPT_CHOICE, end), .given = FIELD(end_given), .names = end_names,
	  .list = "wait|return|shutdown|reboot|halt|qemu" },
	{ OPT("dump-memmap", OPT_FLAG, dump_memmap) },
	{ OPT("dump", OPT_CHOICE_BARE, dump), .names = dump_names, .first = 1,
	  .list = "leaves|ranges" },
	{ OPT("hold", OPT_FLAG, hold) },
	{ OPT("mode", OPT_CHOICE, mode), .names = mode_names, .list = "firmware|handoff" },
	{ .name = "inject", .kind = OPT_FAULTS },
	{ OPT("fail-alloc", OPT_NUM, fail_alloc) },
	{ OPT("timeout", OPT_NUM, timeout) },
	{ OPT("fragment", OPT_FLAG, fragment) },
	{ OPT("raise", OPT_CHOICE, raise), .names = raise_names, .first = 1,
	  .list = "gp|badstack|timeout|la57-window|la57-root-high|ap-fault" },
	{ OPT("levels", OPT_CHOICE, levels), .names = levels_names, .values = levels_values,
	  .first = 1, .list = "4|5" },
	{ OPT("dump-firmware", OPT_CHOICE, dump_firmware), .names = dump_names, .first = 1,
	  .list = "leaves|ranges" },
	{ OPT("serial", OPT_CHOICE, serial), .names = serial_names, .list = "auto|on|off" },
	{ OPT("wrong-restore", OPT_FLAG, wrong_restore) },
	{ OPT("kernel", OPT_PATH, kernel), .size = SIZE(kernel) },
	/* repeatable: the initrds are concatenated in the order given */
	{ OPT("initrd", OPT_PATH, initrd), .size = SIZE(initrd[0]), .max = OPTS_INITRD_MAX,
	  .count = FIELD(ninitrd), .limit = "more than", .unit = "" },
	{ OPT("cmdline", OPT_TEXT, cmdline), .size = SIZE(cmdline) },
	{ OPT("module", OPT_PATH, module), .size = SIZE(module[0]), .max = OPTS_MODULES_MAX,
	  .count = FIELD(nmodules), .limit = "at most", .unit = " modules" },
	{ OPT("kaslr", OPT_FLAG, kaslr) },
	{ OPT("matrix", OPT_CHOICE, matrix), .names = matrix_names, .list = "reduced|full" },
	{ OPT("known-deviation", OPT_TEXT, deviations), .size = SIZE(deviations) },
};

/* Copy @val into string option @d's field of @o (its next one when repeatable). */
static bool set_string(struct opts *o, const struct opt_def *d, const char *val,
		       char *err, size_t errlen)
{
	unsigned int *count = (unsigned int *)((char *)o + d->count), i = d->max ? *count : 0;

	if (d->max && i == d->max) {
		set_err(err, errlen, "--%s: %s %u%s", d->name, d->limit, d->max, d->unit);
		return false;
	}
	if (!copy_str((char *)o + d->field + i * d->size, d->size, val)) {
		set_err(err, errlen, "--%s: longer than %u characters", d->name,
			(unsigned)d->size - 1);
		return false;
	}
	if (d->max)
		(*count)++;
	return true;
}

/* Check @val (NULL when none was given) as option @d takes it, and store it in @o. */
static bool set_opt(struct opts *o, const struct opt_def *d, char *val, char *err, size_t errlen)
{
	void *field = (char *)o + d->field;
	uint64_t num = 0;
	int c;

	switch (d->kind) {
	case OPT_FLAG:
		if (val) {
			set_err(err, errlen, "--%s takes no value", d->name);
			return false;
		}
		*(bool *)field = true;
		break;
	case OPT_NUM:
		if (!val || !parse_u64(val, &num)) {
			set_err(err, errlen, "bad number in '--%s%s%.40s'", d->name,
				val ? "=" : "", val ? val : "");
			return false;
		}
		*(uint64_t *)field = num;
		break;
	case OPT_CHOICE:
	case OPT_CHOICE_BARE:
		c = val ? choice(d->names, d->first, val) : d->kind == OPT_CHOICE_BARE ? d->first : -1;
		if (c < 0) {
			set_err(err, errlen, "--%s needs one of %s", d->name, d->list);
			return false;
		}
		*(unsigned int *)field = d->values ? d->values[c] : (unsigned int)c;
		break;
	case OPT_PATH:
	case OPT_TEXT:
		if (!val || (d->kind == OPT_PATH && !*val)) {
			set_err(err, errlen, "--%s needs a %s", d->name,
				d->kind == OPT_PATH ? "file path on the boot volume" : "value (\"\" for none)");
			return false;
		}
		return set_string(o, d, val, err, errlen);
	case OPT_FAULTS:
		return apply_faults(o, val ? val : (char[]){ "" }, err, errlen);
	}
	if (d->given)
		*(bool *)((char *)o + d->given) = true;
	return true;
}

/* Apply one token "--name[=value]" to @o; false with a message on error. */
static bool apply(struct opts *o, char *tok, char *err, size_t errlen)
{
	char *name = tok + 2, *val = NULL;

	if (tok[0] != '-') {
		/* most often the rest of a value whose quotes a boot manager ate */
		set_err(err, errlen, "unexpected argument '%.40s': a value with blanks is one "
			"quoted word, \"--cmdline=a b\"; GRUB strips quotes: write "
			"'\"--cmdline=a b\"'", tok);
		return false;
	}
	if (tok[1] != '-' || !tok[2]) {
		set_err(err, errlen, "unexpected argument '%.60s'", tok);
		return false;
	}
	for (char *p = name; *p; p++) {
		if (*p == '=') {
			*p = '\0';
			val = p + 1;
			break;
		}
	}
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		if (str_eq(defs[i].name, name))
			return set_opt(o, &defs[i], val, err, errlen);
	set_err(err, errlen, "unknown option '--%.60s'", name);
	return false;
}

/*
 * Tokenize and apply.  The caller has checked that every unit is text.
 * @comments: '#' outside quotes starts a comment to the end of the line.
 * @skip_argv0: skip a first token that does not start with '-'.
 */
static int parse(const struct src *s, bool comments, bool skip_argv0,
		 struct opts *out, char *err, size_t errlen)
{
	struct opts o;
	size_t i = 0;
	unsigned int ntok = 0, nopt = 0;

	opts_defaults(&o);
	opts_defaults(out);
	for (;;) {
		char tok[TOKEN_MAX];
		size_t len = 0;
		bool quoted = false, any = false;

		while (i < s->n && (is_blank(unit(s, i)) ||
				    (comments && unit(s, i) == '#'))) {
			if (unit(s, i) == '#')
				while (i < s->n && unit(s, i) != '\n')
					i++;
			else
				i++;
		}
		if (i >= s->n)
			break;
		for (; i < s->n; i++) {
			unsigned int c = unit(s, i);
			bool escaped = false;

			/*
			 * \" is a quote that is text, in quotes or not: the one
			 * escape, so that a Linux command line can hold quotes.
			 * Any other backslash is text (UEFI path separators).
			 */
			if (c == '\\' && i + 1 < s->n && unit(s, i + 1) == '"') {
				c = unit(s, ++i);
				escaped = true;
			}
			if (c == '"' && !escaped) {
				quoted = !quoted;
				any = true;
				continue;
			}
			if (!quoted && (is_blank(c) || (comments && c == '#')))
				break;
			if (len + 1 >= sizeof(tok)) {
				tok[len] = '\0';
				set_err(err, errlen, "option too long: '%.40s...'",
					tok);
				return OPTS_ERROR;
			}
			tok[len++] = (char)c;
			any = true;
		}
		if (quoted) {
			set_err(err, errlen, "unterminated quote");
			return OPTS_ERROR;
		}
		tok[len] = '\0';
		if (!any)
			continue;
		if (ntok++ == 0 && skip_argv0 && tok[0] != '-')
			continue;
		if (len == 0)
			continue;	/* "" */
		if (!apply(&o, tok, err, errlen))
			return OPTS_ERROR;
		nopt++;
	}
	if (!nopt)
		return OPTS_EMPTY;
	*out = o;
	return OPTS_OK;
}

/* The text units of @s (checked by text_units()) hold a word starting with "--". */
static bool has_dashdash_word(const struct src *s)
{
	for (size_t i = 0; i + 1 < s->n; i++)
		if ((i == 0 || is_blank(unit(s, i - 1)) || unit(s, i - 1) == '"') &&
		    unit(s, i) == '-' && unit(s, i + 1) == '-')
			return true;
	return false;
}

/* Number of text units before trailing NULs, or -1 if @s is not text. */
static long text_units(const struct src *s)
{
	size_t n;

	for (n = 0; n < s->n && unit(s, n) != 0; n++)
		if (!is_text(unit(s, n)))
			return -1;
	for (size_t i = n; i < s->n; i++)
		if (unit(s, i) != 0)
			return -1;
	return (long)n;
}

/* A printable character outside ASCII: not a control, surrogate or noncharacter. */
static bool is_wide_text(unsigned int c)
{
	return c >= 0xa0 && !(c >= 0xd800 && c <= 0xdfff) && c != 0xfffe && c != 0xffff;
}

/*
 * Text as the shell passes it, but with characters beyond ASCII: a command
 * line with a character the options cannot hold, not boot-entry data.
 * Index of the first such character, or -1 when @s is not such a line.
 */
static long wide_command_line(const struct src *s)
{
	size_t n, ascii = 0;
	long first = -1;

	if (s->width != 2)
		return -1;
	for (n = 0; n < s->n && unit(s, n) != 0; n++) {
		unsigned int c = unit(s, n);

		if (is_text(c))
			ascii++;
		else if (is_wide_text(c) && first < 0)
			first = (long)n;
		else if (!is_wide_text(c))
			return -1;
	}
	for (size_t i = n; i < s->n; i++)
		if (unit(s, i) != 0)
			return -1;
	/* mostly ASCII, with an option in it: what a person typed */
	if (first < 0 || ascii < 2 * (n - ascii))
		return -1;
	for (size_t i = 0; i + 1 < n; i++)
		if (unit(s, i) == '-' && unit(s, i + 1) == '-')
			return first;
	return -1;
}

static int parse_units(struct src *s, struct opts *o, char *err, size_t errlen)
{
	/* Text, then optionally NULs up to the very end. */
	long n = text_units(s), wide;

	if (n >= 0) {
		s->n = (size_t)n;
		return parse(s, false, true, o, err, errlen);
	}
	opts_defaults(o);
	wide = wide_command_line(s);
	if (wide >= 0) {
		set_err(err, errlen, "character U+%04X at position %ld of the command line is "
			"not ASCII: options are ASCII only", unit(s, (size_t)wide), wide);
		return OPTS_ERROR;
	}
	return OPTS_BINARY;
}

int opts_parse_ucs2(const uint16_t *s, size_t nchars, struct opts *o,
		    char *err, size_t errlen)
{
	struct src src = { (const uint8_t *)s, s ? nchars : 0, 2 };

	return parse_units(&src, o, err, errlen);
}

int opts_parse_load_options(const void *data, size_t bytes, struct opts *o,
			    char *err, size_t errlen)
{
	struct src src = { data, data ? bytes / 2 : 0, 2 };

	if (bytes & 1) {
		opts_defaults(o);
		return OPTS_BINARY;
	}
	return parse_units(&src, o, err, errlen);
}

int opts_parse_boot_options(const void *data, size_t bytes, bool from_shell,
			    struct opts *o, char *err, size_t errlen)
{
	struct src src = { data, data ? bytes / 2 : 0, 2 };
	long n;

	if (from_shell)
		return opts_parse_load_options(data, bytes, o, err, errlen);
	opts_defaults(o);
	if ((bytes & 1) || (n = text_units(&src)) < 0)
		return OPTS_BINARY;
	src.n = (size_t)n;
	if (!has_dashdash_word(&src)) {
		size_t k = 0, i = 0;

		while (i < src.n && is_blank(unit(&src, i)))
			i++;
		if (i == src.n)
			return OPTS_EMPTY;
		/* the text for the report: blanks folded, at most 100 characters */
		for (; i < src.n && err && k + 4 < errlen && k < 100; i++) {
			unsigned int c = unit(&src, i);

			if (is_blank(c) && (k == 0 || err[k - 1] == ' '))
				continue;
			err[k++] = is_blank(c) ? ' ' : c == '"' ? '\'' : (char)c;
		}
		while (k && err[k - 1] == ' ')
			k--;
		if (err && errlen) {
			if (i < src.n && k + 4 <= errlen) {
				err[k++] = '.';
				err[k++] = '.';
				err[k++] = '.';
			}
			err[k < errlen ? k : errlen - 1] = '\0';
		}
		return OPTS_FOREIGN;
	}
	return parse(&src, false, false, o, err, errlen);
}

int opts_parse_ascii(const char *s, size_t n, struct opts *o, char *err,
		     size_t errlen)
{
	struct src src = { (const uint8_t *)s, s ? n : 0, 1 };
	size_t skip = 0;

	/* what editors put first: a UTF-8 BOM is skipped, UTF-16LE read as such */
	if (src.n >= 3 && src.b[0] == 0xef && src.b[1] == 0xbb && src.b[2] == 0xbf) {
		skip = 3;
	} else if (src.n >= 2 && src.b[0] == 0xff && src.b[1] == 0xfe) {
		if (src.n & 1) {
			opts_defaults(o);
			set_err(err, errlen, "config starts as UTF-16LE (byte-order mark 0xff 0xfe) "
				"but has an odd number of bytes");
			return OPTS_ERROR;
		}
		src.width = 2;
		skip = 2;
	} else if (src.n >= 2 && src.b[0] == 0xfe && src.b[1] == 0xff) {
		opts_defaults(o);
		set_err(err, errlen, "config is UTF-16 big-endian (byte-order mark 0xfe 0xff): "
			"save it as ASCII, UTF-8 or UTF-16LE");
		return OPTS_ERROR;
	}
	src.b += skip;
	src.n = (src.n - skip) / src.width;
	for (size_t i = 0; i < src.n; i++) {
		unsigned int c = unit(&src, i);

		if (is_text(c))
			continue;
		opts_defaults(o);
		if (src.width == 2)
			set_err(err, errlen, "character U+%04X at offset %zu of the UTF-16 config "
				"is not ASCII: options are ASCII only", c, skip + 2 * i);
		else if (c == 0 && i == 1)
			set_err(err, errlen, "bad byte 0x00 at offset 1 in config: UTF-16 without "
				"a byte-order mark? save it as ASCII or UTF-8");
		else
			set_err(err, errlen, "bad byte 0x%02x at offset %zu in config%s", c,
				skip + i, c >= 0x80 ? ": not ASCII (options are ASCII only)" : "");
		return OPTS_ERROR;
	}
	return parse(&src, true, false, o, err, errlen);
}

const char *opts_option(unsigned i, const char **list)
{
	if (i >= sizeof(defs) / sizeof(defs[0]))
		return NULL;
	if (list)
		*list = defs[i].list;
	return defs[i].name;
}

int opts_describe(const struct opts *o, char *buf, size_t size)
{
	char inj[512];
	size_t n = 0;

	inj[0] = '\0';
	/* the churn's five first, then the checks' faults as given */
	for (unsigned i = 1; i < OPTS_INJECT_COUNT + o->nfaults; i++) {
		if (i < OPTS_INJECT_COUNT && !opts_injected(o, (enum opts_inject)i))
			continue;
		int w = fmt_snprintf(inj + n, sizeof(inj) - n, "%s%s", n ? "," : "",
				     i < OPTS_INJECT_COUNT ? inject_names[i] :
				     o->faults[i - OPTS_INJECT_COUNT]);

		if (w < 0 || (size_t)w >= sizeof(inj) - n)
			break;
		n += (size_t)w;
	}
	int w = fmt_snprintf(buf, size,
			    "seed=0x%llx iterations=%llu end=%s mode=%s dump-memmap=%d dump=%d hold=%d inject=%s fail-alloc=%llu timeout=%llu fragment=%d raise=%s levels=%s serial=%s wrong-restore=%d",
			    (unsigned long long)o->seed,
			    (unsigned long long)o->iterations,
			    end_names[o->end], mode_names[o->mode],
			    o->dump_memmap, o->dump, o->hold,
			    n ? inj : inject_names[o->inject],
			    (unsigned long long)o->fail_alloc,
			    (unsigned long long)o->timeout, o->fragment,
			    raise_names[o->raise],
			    levels_names[o->levels == 4 ? 1 : o->levels == 5 ? 2 : 0],
			    serial_names[o->serial], o->wrong_restore);

	char full[1], lim[40] = "";

	if (w < 0 || !o->kernel[0])
		return w;
	/* a Limine kernel's options, only when given */
	if (o->nmodules || o->kaslr)
		fmt_snprintf(lim, sizeof(lim), " modules=%u kaslr=%d", o->nmodules, o->kaslr);
	char rds[OPTS_INITRD_MAX * OPTS_PATH_MAX];
	size_t r = 0;

	rds[0] = '\0';
	for (unsigned i = 0; i < o->ninitrd; i++) {
		int k = fmt_snprintf(rds + r, sizeof(rds) - r, "%s%s", i ? "," : "", o->initrd[i]);

		if (k < 0 || (size_t)k >= sizeof(rds) - r)
			break;
		r += (size_t)k;
	}
	/* the whole length, as fmt_snprintf() says it, also when the buffer is full */
	return w + fmt_snprintf((size_t)w < size ? buf + w : full,
				(size_t)w < size ? size - (size_t)w : sizeof(full),
				" kernel=%s initrd=%s cmdline=\"%s\"%s", o->kernel,
				r ? rds : "none", o->cmdline, lim);
}
