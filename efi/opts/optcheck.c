/* SPDX-License-Identifier: MIT */
/*
 * Rules between options (see optcheck.h).  Firmware-free.
 */
#include <stdarg.h>

#include "report/fmt.h"
#include "opts/optcheck.h"

const char *const opts_deviation_names[OPTS_DEV_COUNT] = {
	[OPTS_DEV_RSVD_P0] = "rsvd-p0",
};

/* The length of the name at @s, up to a comma or the end. */
static size_t item_len(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != ',')
		n++;
	return n;
}

static int deviation_of(const char *s, size_t n)
{
	for (int d = 0; d < OPTS_DEV_COUNT; d++) {
		const char *name = opts_deviation_names[d];
		size_t i = 0;

		while (i < n && name[i] == s[i])
			i++;
		if (i == n && !name[i])
			return d;
	}
	return -1;
}

bool opts_deviation_listed(const struct opts *o, enum opts_deviation d)
{
	for (const char *s = o->deviations; *s; ) {
		size_t n = item_len(s);

		if (deviation_of(s, n) == (int)d)
			return true;
		s += n + (s[n] == ',');
	}
	return false;
}

/* The first name of --known-deviation that is no known deviation, or NULL. */
static const char *unknown_deviation(const struct opts *o, size_t *len)
{
	for (const char *s = o->deviations; *s; ) {
		size_t n = item_len(s);

		if (deviation_of(s, n) < 0) {
			*len = n;
			return s;
		}
		s += n + (s[n] == ',');
	}
	return NULL;
}

int opts_validate(const struct opts *o, char *err, size_t errlen)
{
	const char *why = NULL, *dev;
	size_t devlen = 0;

	if ((dev = unknown_deviation(o, &devlen))) {
		if (err && errlen)
			fmt_snprintf(err, errlen, "--known-deviation: unknown deviation '%.*s' "
				     "(known: rsvd-p0)", (int)(devlen > 40 ? 40 : devlen), dev);
		return -1;
	}

	uint64_t churn = o->injects & OPTS_INJECT_CHURN_SET;

	if (churn & (churn - 1))
		why = "--inject: at most one of wrong-frame, nx-cleared, missing-invlpg, freed-table "
		      "and missing-shootdown per run";
	else if (o->raise == OPTS_RAISE_TIMEOUT && !o->timeout)
		why = "--raise=timeout needs --timeout=S: nothing else ends its loop";
	else if (o->mode == OPTS_MODE_HANDOFF && o->end_given && !o->kernel[0] &&
		 (o->end == OPTS_END_WAIT || o->end == OPTS_END_RETURN))
		why = "--end=wait and --end=return cannot work after ExitBootServices; "
		      "use shutdown, reboot, halt or qemu";
	else if (o->mode == OPTS_MODE_HANDOFF && o->fragment)
		why = "--fragment works in firmware mode only: after ExitBootServices its "
		      "scattered runtime pages could not be given back";
	else if (o->kernel[0] && o->mode != OPTS_MODE_HANDOFF)
		why = "--kernel needs --mode=handoff: a kernel runs after ExitBootServices";
	else if (!o->kernel[0] && (o->ninitrd || o->cmdline[0]))
		why = "--initrd and --cmdline go with --kernel";
	else if (!o->kernel[0] && (o->nmodules || o->kaslr))
		why = "--module and --kaslr go with --kernel (a Limine-protocol kernel)";
	else if (o->kernel[0] && (o->hold || o->raise))
		why = "--kernel does not go with --hold or --raise: the run must end in the kernel";
	if (!why)
		return 0;
	if (err && errlen)
		fmt_snprintf(err, errlen, "%s", why);
	return -1;
}

uint64_t opts_deadline(uint64_t t0, uint64_t seconds, uint64_t tsc_per_us)
{
	uint64_t per_s = (tsc_per_us ? tsc_per_us : 1000) * UINT64_C(1000000);

	if (!seconds)
		return 0;
	/* tsc_per_us * 1e6 overflows only for a TSC beyond 18 THz: saturate too */
	if (per_s / UINT64_C(1000000) != (tsc_per_us ? tsc_per_us : 1000))
		return UINT64_MAX;
	if (seconds > (UINT64_MAX - t0) / per_s)
		return UINT64_MAX;
	return t0 + seconds * per_s;
}
