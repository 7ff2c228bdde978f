/* SPDX-License-Identifier: MIT */
/*
 * The Linux hand-over's checks as registry entries (lxchecks.h): reported by
 * linux.c, which names them (check_report, inject_on); their faults are
 * hooks there.  Firmware-free: the registry's host tools list them.
 */
#include "linux/lxchecks.h"

const struct ptlab_check check_linux_digest = {
	"linux: the tables handed over are the checked plan built again", PTLAB_PHASE_ELSEWHERE,
	NULL, { "linux-digest", "page 0 mapped before the comparison with the checked build",
		PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_linux_mapped = {
	"linux: identity mapped as the boot protocol needs", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "linux-unmapped", "a page of the kernel's range unmapped from them", PTLAB_FAULT_HOOK,
	  NULL, NULL },
};

const struct ptlab_check check_linux_entry = {
	"linux: the CPU reads the kernel's entry on the tables handed over", PTLAB_PHASE_ELSEWHERE,
	NULL, { "linux-entry", "the entry bytes expected with one byte flipped", PTLAB_FAULT_HOOK,
		NULL, NULL },
};

ptlab_check_table linux_checks_table = {
	&check_linux_digest, &check_linux_mapped, &check_linux_entry, NULL,
};
