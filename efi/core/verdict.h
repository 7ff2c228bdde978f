/* SPDX-License-Identifier: MIT */
/*
 * The run's verdict (verdict.c), the one place it is computed: from the
 * report's counts and whether the run was aborted, and what it becomes -
 * the isa-debug-exit code, the word in the runs variable - and the steps
 * of the --end action.  Firmware-free (the host tests link it);
 * core/end.c takes the steps and turns the verdict into the firmware's
 * status.
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

/*
 * The verdict of a run whose report is @r (NULL: none yet) and which was
 * @aborted (struct ptlab's flag): aborted first, then failed, then
 * passed; nothing checked else (no report: failed).
 */
enum verdict verdict_of(const struct report *r, bool aborted);

/* PTLAB_EXIT_PASSED .. PTLAB_EXIT_NOTHING (0x10 .. 0x13) for @v. */
unsigned verdict_exit_code(enum verdict v);

/* "pass", "fail", "aborted", "nothing checked". */
const char *verdict_word(enum verdict v);

/* For the runs variable, verdict_of(@r, @aborted) with @r's counts: "pass (3 passed, 0 failed, 1 skipped)". */
void verdict_line(const struct report *r, bool aborted, char *buf, size_t size);

/* The steps of an --end action, in this order. */
#define END_STEP_DEBUG_EXIT (1u << 0)   /* isa-debug-exit with the verdict's code */
#define END_STEP_WAIT_KEY   (1u << 1)   /* a key or the timeout first */
#define END_STEP_RESET      (1u << 2)   /* ResetSystem: shutdown, or cold for --end=reboot */
#define END_STEP_HALT       (1u << 3)   /* "ptlab: halted", then hlt for good */

/*
 * The steps of --end=@end; @boot_services: still there.  Without them
 * there is nothing to return to and nobody to wait for: return and wait
 * shut down, and the CPU halts when nothing ended the machine.  With
 * them, after a ResetSystem that returned the caller returns.
 */
unsigned end_steps(enum opts_end end, bool boot_services);

/*
 * Leave QEMU through isa-debug-exit with @v's code: only under a
 * hypervisor (@caps, the CPU's; bare metal has no such device at port 0xf4); returns when
 * the write did not end the machine.
 */
void verdict_debug_exit(const struct cpu_caps *caps, enum verdict v);

#endif /* PTLAB_EFI_VERDICT_H */
