/* SPDX-License-Identifier: MIT */
/* The run's verdict (see verdict.h).  No firmware calls. */
#include "core/verdict.h"
#include "report/fmt.h"

enum verdict verdict_of(const struct ptlab *p)
{
	const struct report *r = p->rep;

	if (p->aborted)
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

void verdict_line(const struct ptlab *p, char *buf, size_t size)
{
	const struct report *r = p->rep;

	fmt_snprintf(buf, size, "%s (%u passed, %u failed, %u skipped)",
		     verdict_word(verdict_of(p)), r ? r->passed : 0, r ? r->failed : 0,
		     r ? r->skipped : 0);
}

void verdict_debug_exit(const struct ptlab *p, enum verdict v)
{
	if (p->cpu.caps.hypervisor)
		outl(PTLAB_DEBUG_EXIT_PORT, verdict_exit_code(v));
}
