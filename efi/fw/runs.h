/* SPDX-License-Identifier: MIT */
/*
 * The runs of this boot: a volatile UEFI variable (boot-services and runtime
 * access, never non-volatile) under ptlab's own GUID counts the runs since
 * power-on and keeps the last one's verdict.  Run 1 writes \PTLAB.TXT, run N
 * \PTLAB-N.TXT, so a later run (the shell's startup.nsh after a failed one,
 * say) never replaces an earlier run's report, and says what it found.
 *
 * Needs boot services.
 */
#ifndef PTLAB_EFI_RUNS_H
#define PTLAB_EFI_RUNS_H

#include <stdbool.h>

#define RUNS_VERDICT_MAX 120

/**
 * runs_begin() - take this run's number
 *
 * Reads the variable (absent: this is run 1), records this run as
 * "unfinished" under the next number.  When the variable cannot be read or
 * written the run still goes on as run 1 of an unknown count (said in the
 * report through runs_earlier()).
 *
 * Return: this run's number, 1 for the first run of the boot.
 */
unsigned runs_begin(void);

/** runs_number() - the number runs_begin() took (1 before it). */
unsigned runs_number(void);

/**
 * runs_earlier() - the run before this one in the same boot
 * @verdict: set to its recorded verdict text
 * @file:    set to its report file's name ("PTLAB.TXT", "PTLAB-2.TXT", ...)
 *
 * Return: its number, or 0 when this is the first run of the boot.
 */
unsigned runs_earlier(const char **verdict, const char **file);

/** runs_file_name() - the report file's name for run @n, ASCII ("PTLAB-3.TXT"). */
const char *runs_file_name(unsigned n);

/**
 * runs_end() - record this run's verdict for a later run to read
 * @verdict: one line, at most RUNS_VERDICT_MAX - 1 bytes are kept
 */
void runs_end(const char *verdict);

#endif
