/* SPDX-License-Identifier: MIT */
/*
 * The run's verdict (verdict.c), the one place it is computed: from the
 * report's counts and whether the run was aborted, and what it becomes -
 * the isa-debug-exit code, the word in the runs variable.  Firmware-free
 * (the host tests link it); core/end.c turns it into the firmware's status.
 */
#ifndef PTLAB_EFI_VERDICT_H
#define PTLAB_EFI_VERDICT_H

#include <stddef.h>

#include "state/state.h"

enum verdict {
	VERDICT_PASSED,     /* test points passed, none failed, not aborted */
	VERDICT_FAILED,     /* a test point failed */
	VERDICT_ABORTED,    /* an unexpected exception or the timeout ended the checks */
	VERDICT_NOTHING,    /* not one test point passed or failed (e.g. no NX) */
};

/* Aborted first, then failed, then passed; nothing checked else (no report: failed). */
enum verdict verdict_of(const struct ptlab *p);

/* PTLAB_EXIT_PASSED .. PTLAB_EXIT_NOTHING (0x10 .. 0x13) for @v. */
unsigned verdict_exit_code(enum verdict v);

/* "pass", "fail", "aborted", "nothing checked". */
const char *verdict_word(enum verdict v);

/* For the runs variable: "pass (3 passed, 0 failed, 1 skipped)". */
void verdict_line(const struct ptlab *p, char *buf, size_t size);

/*
 * Leave QEMU through isa-debug-exit with @v's code: only under a
 * hypervisor (bare metal has no such device at port 0xf4); returns when
 * the write did not end the machine.
 */
void verdict_debug_exit(const struct ptlab *p, enum verdict v);

#endif /* PTLAB_EFI_VERDICT_H */
