/* SPDX-License-Identifier: MIT */
/*
 * The Limine hand-over's checks as registry entries (lmchecks.h): reported by
 * lmhandoff.c, which names them (check_report, inject_on); their faults are
 * hooks there.  Firmware-free: the registry's host tools list them.
 */
#include "limine/lmchecks.h"

const struct ptlab_check check_limine_digest = {
	"limine: the tables handed over are the checked plan built again", PTLAB_PHASE_ELSEWHERE,
	NULL, { "limine-digest", "page 0 mapped before the comparison with the checked build",
		PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_limine_segments = {
	"limine: the kernel's segments mapped at their addresses with their permissions",
	PTLAB_PHASE_ELSEWHERE, NULL,
	{ "limine-segment", "the W (or else X) bit of the last page of the kernel's first segment flipped",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_limine_read = {
	"limine: the CPU reads the responses through the HHDM and the entry as in the file",
	PTLAB_PHASE_ELSEWHERE, NULL,
	{ "limine-entry", "the entry bytes expected with one byte flipped", PTLAB_FAULT_HOOK,
	  NULL, NULL },
};

const struct ptlab_check check_limine_layout = {
	"limine: the HHDM and paging mode responses as the paging mode's layout fixes them",
	PTLAB_PHASE_ELSEWHERE, NULL,
	{ "limine-layout", "the other paging mode's HHDM offset written into the HHDM response",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_limine_identity = {
	"limine: base revision 0: the identity map RWX as the protocol lays it out",
	PTLAB_PHASE_ELSEWHERE, NULL,
	{ "limine-identity", "the page below 4 GiB left no-execute after the identity map was widened",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

const struct ptlab_check check_limine_masked = {
	"limine: the legacy PIC and the I/O APICs' lines masked", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "limine-unmasked", "the first I/O APIC line to mask unmasked instead", PTLAB_FAULT_HOOK,
	  NULL, NULL },
};

const struct ptlab_check check_limine_aps = {
	"limine: every AP parked on the tables handed over", PTLAB_PHASE_ELSEWHERE, NULL,
	{ "limine-park", "the first AP's CR3 as it reported it taken for wrong",
	  PTLAB_FAULT_HOOK, NULL, NULL },
};

ptlab_check_table limine_checks_table = {
	&check_limine_digest, &check_limine_segments, &check_limine_read, &check_limine_layout,
	&check_limine_identity, &check_limine_aps, &check_limine_masked, NULL,
};
