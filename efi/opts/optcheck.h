/* SPDX-License-Identifier: MIT */
/*
 * Rules between options, and what a number of seconds becomes.
 * Firmware-free, so the host tests compile it as is.
 */
#ifndef PTLAB_EFI_OPTCHECK_H
#define PTLAB_EFI_OPTCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opts/opts.h"

/**
 * opts_validate() - refuse a combination of options that could not do what
 *                   it says, before anything runs
 * @o:      parsed options (opts_parse_*)
 * @err:    the reason, when refused
 * @errlen: bytes in @err
 *
 * Refused: two of the original five --inject values at once (each is
 * judged alone); --raise=timeout without --timeout (nothing would end the loop);
 * --mode=handoff with --end=wait or --end=return (no boot services to wait
 * or return with) or with --fragment (it scatters boot-time allocations
 * the firmware mode frees again; after hand-off they would stay); a
 * --known-deviation name that is none of opts_deviation_names.
 *
 * Return: 0 when the options may run, -1 with @err set otherwise.
 */
int opts_validate(const struct opts *o, char *err, size_t errlen);

/* The names --known-deviation takes, in enum opts_deviation order. */
extern const char *const opts_deviation_names[OPTS_DEV_COUNT];

/* Whether --known-deviation lists @d. */
bool opts_deviation_listed(const struct opts *o, enum opts_deviation d);

/**
 * opts_deadline() - the TSC value @seconds after @t0
 * @tsc_per_us: TSC ticks per microsecond (0: unknown, 1000 is assumed)
 *
 * Saturates: a deadline beyond the TSC's range is UINT64_MAX (never).
 * Return: 0 (no deadline) when @seconds is 0.
 */
uint64_t opts_deadline(uint64_t t0, uint64_t seconds, uint64_t tsc_per_us);

#endif
