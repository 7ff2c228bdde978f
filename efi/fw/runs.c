/* SPDX-License-Identifier: MIT */
/*
 * The runs of this boot in a volatile UEFI variable (see runs.h).
 *
 * Firmware calls: the runtime GetVariable and SetVariable, with boot
 * services alive.
 */
#include <efi.h>
#include <efilib.h>

#include "report/fmt.h"
#include "fw/runs.h"

#define RUNS_MAGIC 0x736e7572u          /* "runs" */
#define RUNS_ATTR  (EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)

/* ptlab's own vendor GUID for its variables */
static EFI_GUID runs_guid = { 0x85861139, 0x032c, 0x4b2c,
			      { 0x92, 0xde, 0x68, 0xb7, 0x1b, 0x19, 0x52, 0x67 } };
static CHAR16 runs_var[] = L"PtlabRuns";

struct runs_record {
	UINT32 magic;
	UINT32 run;                       /* the number of the run that wrote it */
	char verdict[RUNS_VERDICT_MAX];   /* NUL-terminated */
};

static struct runs_record earlier;
static unsigned this_run = 1, earlier_run;

const char *runs_file_name(unsigned n)
{
	static char name[24];

	if (n <= 1)
		return "PTLAB.TXT";
	fmt_snprintf(name, sizeof(name), "PTLAB-%u.TXT", n);
	return name;
}

static void store(const char *verdict)
{
	struct runs_record r = { .magic = RUNS_MAGIC, .run = this_run };
	unsigned i = 0;

	for (; verdict[i] && i + 1 < sizeof(r.verdict); i++)
		r.verdict[i] = verdict[i];
	r.verdict[i] = 0;
	uefi_call_wrapper(RT->SetVariable, 5, runs_var, &runs_guid, RUNS_ATTR,
			  sizeof(r), &r);
}

unsigned runs_begin(void)
{
	UINTN size = sizeof(earlier);
	UINT32 attr = 0;
	EFI_STATUS st;

	st = uefi_call_wrapper(RT->GetVariable, 5, runs_var, &runs_guid, &attr, &size, &earlier);
	/* only a record of our own shape, volatile as we write it, counts */
	if (st == EFI_SUCCESS && size == sizeof(earlier) && earlier.magic == RUNS_MAGIC &&
	    attr == RUNS_ATTR && earlier.run >= 1 && earlier.run < 100000) {
		earlier.verdict[sizeof(earlier.verdict) - 1] = 0;
		earlier_run = earlier.run;
		this_run = earlier.run + 1;
	}
	store("unfinished (no verdict recorded: it stopped or is still running)");
	return this_run;
}

unsigned runs_number(void)
{
	return this_run;
}

unsigned runs_earlier(const char **verdict, const char **file)
{
	static char name[24];

	if (!earlier_run)
		return 0;
	fmt_snprintf(name, sizeof(name), "%s", runs_file_name(earlier_run));
	*verdict = earlier.verdict;
	*file = name;
	return earlier_run;
}

void runs_end(const char *verdict)
{
	store(verdict);
}
