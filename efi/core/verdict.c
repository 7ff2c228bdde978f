/* SPDX-License-Identifier: MIT */
/* The run's verdict (see verdict.h).  No firmware calls. */
#include "core/verdict.h"
#include "report/fmt.h"

enum verdict verdict_of(const struct report *r, bool aborted)
{
	if (aborted)
		return VERDICT_ABORTED;
	if (!r || r->failed)
		return VERDICT_FAILED;
	return r->passed ? VERDICT_PASSED : VERDICT_NOTHING;
}

unsigned verdict_exit_code(enum verdict v)
{
	switch (v) {
	case VERDICT_PASSED:
		return PTLAB_EXIT_PASSED;
	case VERDICT_ABORTED:
		return PTLAB_EXIT_ABORTED;
	case VERDICT_NOTHING:
		return PTLAB_EXIT_NOTHING;
	case VERDICT_FAILED:
	default:
		return PTLAB_EXIT_FAILED;
	}
}

const char *verdict_word(enum verdict v)
{
	static const char *const word[] = {
		[VERDICT_PASSED] = "pass", [VERDICT_FAILED] = "fail",
		[VERDICT_ABORTED] = "aborted", [VERDICT_NOTHING] = "nothing checked",
	};

	return (unsigned)v < sizeof(word) / sizeof(word[0]) ? word[v] : "fail";
}

void verdict_line(const struct report *r, bool aborted, char *buf, size_t size)
{
	fmt_snprintf(buf, size, "%s (%u passed, %u failed, %u skipped)",
		     verdict_word(verdict_of(r, aborted)), r ? r->passed : 0, r ? r->failed : 0,
		     r ? r->skipped : 0);
}

unsigned end_steps(enum opts_end end, bool boot_services)
{
	/* after ExitBootServices: no return, no wait; halt when the machine goes on */
	const unsigned gone = boot_services ? 0 : END_STEP_HALT;

	switch (end) {
	case OPTS_END_RETURN:
		return boot_services ? 0 : END_STEP_RESET | gone;
	case OPTS_END_QEMU:
		/* no debug-exit device, or bare metal: shut down */
		return END_STEP_DEBUG_EXIT | END_STEP_RESET | gone;
	case OPTS_END_HALT:
		return END_STEP_HALT;
	case OPTS_END_WAIT:
		return (boot_services ? END_STEP_WAIT_KEY : 0) | END_STEP_RESET | gone;
	case OPTS_END_SHUTDOWN:
	case OPTS_END_REBOOT:
	default:
		return END_STEP_RESET | gone;
	}
}

void verdict_debug_exit(const struct cpu_caps *caps, enum verdict v)
{
	if (caps->hypervisor)
		outl(PTLAB_DEBUG_EXIT_PORT, verdict_exit_code(v));
}
