/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the option parsers of efi/opts/opts.h on arbitrary
 * text.
 *
 * Input: u8 selector (bits 1:0 the parser: opts_parse_ascii,
 * opts_parse_load_options, opts_parse_boot_options from a boot manager or
 * from the shell; bit 2 the UCS-2 bytes at an odd address; bits 7:5 the
 * message buffer's size, see ERR_SIZES, 0 being no buffer), then the bytes.
 *
 * Every result must be a code the parser documents.  Any result but
 * OPTS_OK leaves the defaults (memcmp with opts_defaults()); OPTS_ERROR
 * leaves a non-empty NUL-terminated message, OPTS_FOREIGN the text folded
 * to printable ASCII.  On OPTS_OK every string is NUL-terminated in its
 * array and non-empty where the option needs a value, every count within
 * its maximum, every choice one of its values, the churn's faults and the
 * checks' fault names as --inject accepts them; opts_describe gives the
 * same length into a full and a short buffer, NUL-terminated, the short
 * one a prefix; opts_validate refuses with a message or accepts.
 *
 * And the parsers against each other: the same input parsed again gives
 * the same result byte for byte; an ASCII config without '#' (after its
 * byte-order mark) read as the UCS-2 units it holds by opts_parse_ucs2
 * gives the same options or emptiness; raw LoadOptions bytes at any
 * alignment the same as opts_parse_ucs2 on an aligned copy; the shell's
 * opts_parse_boot_options the same as opts_parse_load_options, and a boot
 * manager's accepted or empty text the same as from the shell.
 * Violations abort().
 */

#include "opts/optcheck.h"
#include "opts/cfgfile.h"
#include "opts/loadopts.h"
#include "opts/opts.h"

#define FUZZ_NAME "fuzz_opts"
#include "fuzzkit.h"

#define HDR 1u
#define DESCRIBE_MAX 16384u


static const size_t ERR_SIZES[8] = { 256, 0, 1, 2, 5, 40, 104, 4096 };

/* the churn's five, as --inject spells them (opts.h's enum order) */
static const char *const CHURN[OPTS_INJECT_COUNT] = {
	"none", "wrong-frame", "nx-cleared", "missing-invlpg", "freed-table", "missing-shootdown",
};

static struct opts defaults, got, again, other;

/* Whether @s holds a NUL within @n bytes and is not empty. */
static bool str_in(const char *s, size_t n)
{
	return memchr(s, 0, n) && s[0];
}

/*
 * OPTS_FOREIGN's text: NUL-terminated, printable ASCII without double
 * quotes, blanks folded to single spaces, none first or last but before
 * "...".
 */
static void check_foreign(const char *err, size_t len)
{
	size_t n;

	if (!len)
		return;
	if (!memchr(err, 0, len))
		fuzz_die("OPTS_FOREIGN text not NUL-terminated");
	n = strlen(err);
	if (len >= 5 && !n)
		fuzz_die("OPTS_FOREIGN text empty with room for it");
	for (size_t i = 0; i < n; i++)
		if (err[i] < 0x20 || err[i] > 0x7e || err[i] == '"' ||
		    (err[i] == ' ' && (i == 0 || err[i - 1] == ' ')))
			fuzz_die("OPTS_FOREIGN text not folded to printable ASCII");
	if (n && err[n - 1] == ' ')
		fuzz_die("OPTS_FOREIGN text ends in a blank");
}

/* A check's fault name as --inject takes it: 'a'-'z', '0'-'9', '-', 1..31 bytes. */
static bool fault_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= OPTS_FAULT_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	for (unsigned c = 0; c < OPTS_INJECT_COUNT; c++)
		if (!strcmp(s, CHURN[c]))
			return false;
	return true;
}

/* Accepted options: within their arrays and ranges; describe and validate on them. */
static void check_ok(const struct opts *o)
{
	static char full[DESCRIBE_MAX], small[17];
	char verr[128];
	int w, ws;

	if (!memchr(o->kernel, 0, sizeof(o->kernel)) || !memchr(o->cmdline, 0, sizeof(o->cmdline)))
		fuzz_die("kernel or cmdline not NUL-terminated");
	if (o->ninitrd > OPTS_INITRD_MAX || o->nmodules > OPTS_MODULES_MAX ||
	    o->nfaults > OPTS_FAULTS_MAX)
		fuzz_die("a count above its maximum");
	for (unsigned i = 0; i < o->ninitrd; i++)
		if (!str_in(o->initrd[i], sizeof(o->initrd[i])))
			fuzz_die("an initrd empty or not NUL-terminated");
	for (unsigned i = 0; i < o->nmodules; i++)
		if (!str_in(o->module[i], sizeof(o->module[i])))
			fuzz_die("a module empty or not NUL-terminated");
	for (unsigned i = 0; i < o->nfaults; i++) {
		if (!memchr(o->faults[i], 0, sizeof(o->faults[i])) || !fault_ok(o->faults[i]))
			fuzz_die("a fault name --inject does not take");
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(o->faults[i], o->faults[j]))
				fuzz_die("a fault name kept twice");
	}
	if ((unsigned)o->end > OPTS_END_QEMU || (unsigned)o->mode > OPTS_MODE_HANDOFF ||
	    (unsigned)o->dump > OPTS_DUMP_RANGES || (unsigned)o->dump_firmware > OPTS_DUMP_RANGES ||
	    (unsigned)o->raise > OPTS_RAISE_AP_FAULT || (unsigned)o->serial > OPTS_SERIAL_OFF ||
	    (o->levels != 0 && o->levels != 4 && o->levels != 5))
		fuzz_die("a choice outside its values");
	if (o->injects & ~(uint64_t)OPTS_INJECT_CHURN_SET ||
	    (unsigned)o->inject >= OPTS_INJECT_COUNT ||
	    (o->inject == OPTS_INJECT_NONE) != !o->injects ||
	    (o->inject != OPTS_INJECT_NONE && !opts_injected(o, o->inject)))
		fuzz_die("inject and injects disagree");

	memset(full, 0xff, sizeof(full));
	memset(small, 0xff, sizeof(small));
	w = opts_describe(o, full, sizeof(full));
	ws = opts_describe(o, small, sizeof(small));
	if (w < 0 || ws != w || (size_t)w >= sizeof(full) || strlen(full) != (size_t)w)
		fuzz_die("opts_describe's length differs from what it wrote or between buffers");
	if (!memchr(small, 0, sizeof(small)) ||
	    strncmp(small, full, sizeof(small) - 1) || strlen(small) != sizeof(small) - 1)
		fuzz_die("opts_describe into a short buffer is not the full text's prefix");

	memset(verr, 0xff, sizeof(verr));
	w = opts_validate(o, verr, sizeof(verr));
	if (w != 0 && (w != -1 || !str_in(verr, sizeof(verr))))
		fuzz_die("opts_validate refused without a message or returned neither 0 nor -1");
}

enum parser { P_ASCII, P_LOAD, P_BOOT, P_SHELL };

/* Runs @p on @b (@n bytes) into @o, the message into @err (@errlen bytes, NULL when 0). */
static int run(enum parser p, const uint8_t *b, size_t n, struct opts *o, char *err, size_t errlen)
{
	if (err)
		memset(err, 0xff, errlen);
	switch (p) {
	case P_ASCII:
		return opts_parse_ascii((const char *)b, n, o, err, errlen);
	case P_LOAD:
		return opts_parse_load_options(b, n, o, err, errlen);
	case P_BOOT:
		return opts_parse_boot_options(b, n, false, o, err, errlen);
	default:
		return opts_parse_boot_options(b, n, true, o, err, errlen);
	}
}

/* The result of one parser: the code, the defaults, the message, the options. */
static void check_result(enum parser p, int rc, const struct opts *o, const char *err,
			 size_t errlen)
{
	bool ok = rc == OPTS_OK || rc == OPTS_EMPTY || rc == OPTS_ERROR ||
		  (p != P_ASCII && rc == OPTS_BINARY) || (p == P_BOOT && rc == OPTS_FOREIGN);

	if (!ok)
		fuzz_die("a return value the parser does not document");
	if (rc != OPTS_OK && memcmp(o, &defaults, sizeof(*o)))
		fuzz_die("options other than the defaults after a result other than OPTS_OK");
	if (rc == OPTS_ERROR)
		fuzz_check_why(err, errlen, "OPTS_ERROR");
	if (rc == OPTS_FOREIGN)
		check_foreign(err, errlen);
	if (rc == OPTS_OK)
		check_ok(o);
}

/* The UCS-2 units an ASCII config holds after its byte-order mark; false when it has '#'. */
static bool ascii_units(const uint8_t *b, size_t n, uint16_t **u, size_t *nu)
{
	size_t skip = 0, w = 1;

	if (n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf) {
		skip = 3;
	} else if (n >= 2 && b[0] == 0xff && b[1] == 0xfe) {
		skip = 2;
		w = 2;
	}
	*nu = (n - skip) / w;
	*u = malloc(*nu ? *nu * 2 : 2);
	if (!*u)
		fuzz_die("malloc");
	for (size_t i = 0; i < *nu; i++) {
		const uint8_t *c = b + skip + w * i;

		(*u)[i] = w == 1 ? c[0] : (uint16_t)(c[0] | c[1] << 8);
		if ((*u)[i] == '#') {
			free(*u);
			return false;
		}
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char err2[4096];
	enum parser p;
	size_t n, errlen;
	uint8_t *buf, *b;
	char *err;
	int rc, rc2;

	if (size < HDR)
		return 0;
	opts_defaults(&defaults);
	p = (enum parser)(data[0] & 3);
	errlen = ERR_SIZES[data[0] >> 5];
	n = size - HDR;
	/* exact-size copies, so reading or writing past either is an ASan report */
	buf = malloc(n + 1);
	err = errlen ? malloc(errlen) : NULL;
	if (!buf || (errlen && !err))
		fuzz_die("malloc");
	b = (p != P_ASCII && (data[0] & 4)) ? buf + 1 : buf;
	memcpy(b, data + HDR, n);

	rc = run(p, b, n, &got, err, errlen);
	check_result(p, rc, &got, err, errlen);

	/* again: the same bytes, the same result */
	rc2 = run(p, b, n, &again, err2, sizeof(err2));
	if (rc2 != rc || memcmp(&got, &again, sizeof(got)))
		fuzz_die("the same input parsed twice gives different results");

	if (p == P_ASCII && (rc == OPTS_OK || rc == OPTS_EMPTY)) {
		uint16_t *u;
		size_t nu;

		if (ascii_units(b, n, &u, &nu)) {
			rc2 = opts_parse_ucs2(u, nu, &other, err2, sizeof(err2));
			if (rc2 != rc || memcmp(&got, &other, sizeof(got)))
				fuzz_die("opts_parse_ucs2 differs from opts_parse_ascii on its text");
			free(u);
		}
	}
	if (p == P_LOAD && !(n & 1)) {
		uint16_t *u = malloc(n ? n : 2);
		static char err3[4096];

		if (!u)
			fuzz_die("malloc");
		memcpy(u, b, n);
		memset(err2, 0, sizeof(err2));
		memset(err3, 0, sizeof(err3));
		rc = opts_parse_load_options(b, n, &got, err3, sizeof(err3));
		rc2 = opts_parse_ucs2(u, n / 2, &other, err2, sizeof(err2));
		if (rc2 != rc || memcmp(&got, &other, sizeof(got)) ||
		    (rc == OPTS_ERROR && strcmp(err2, err3)))
			fuzz_die("opts_parse_load_options differs from opts_parse_ucs2 on a copy");
		free(u);
	}
	if (p == P_LOAD && (n & 1) && rc != OPTS_BINARY)
		fuzz_die("an odd byte count not OPTS_BINARY");
	if (p == P_SHELL || p == P_BOOT) {
		rc2 = opts_parse_load_options(b, n, &other, err2, sizeof(err2));
		if (p == P_SHELL && (rc2 != rc || memcmp(&got, &other, sizeof(got))))
			fuzz_die("the shell's boot options differ from opts_parse_load_options");
		if (p == P_BOOT && (rc == OPTS_OK || rc == OPTS_EMPTY) &&
		    (rc2 != rc || memcmp(&got, &other, sizeof(got))))
			fuzz_die("a boot manager's options differ from the same from the shell");
		if (p == P_BOOT && rc == OPTS_BINARY && rc2 != OPTS_BINARY && rc2 != OPTS_ERROR)
			fuzz_die("a boot manager's binary data is text from the shell");
	}
	free(err);
	free(buf);
	return 0;
}
