/* SPDX-License-Identifier: MIT */
/*
 * The LA57 trampoline's code page in the plan.  Firmware-free.
 */
#ifndef PTLAB_EFI_LA57PLAN_H
#define PTLAB_EFI_LA57PLAN_H

#include <stdbool.h>
#include <stdint.h>

struct pt_plan;

/*
 * Make the identity-map page at @code (4 KiB aligned) read-only and
 * executable in @pl: the identity entry holding it is split into up to
 * three entries (before, the page, after), the others keep their
 * attributes, and the minimum table count is computed again for @levels
 * and @has_1g.  The HHDM alias is not touched (it stays RW+NX: W^X holds).
 * Returns PT_OK (also when the page is RX already), PT_EINVAL (unaligned),
 * PT_ENOTMAPPED (no identity entry holds it) or PT_ECAPACITY (no room for
 * two more entries); on error @pl is unchanged.
 */
int la57_plan_exec_page(struct pt_plan *pl, uint64_t code, unsigned levels, bool has_1g);

#endif /* PTLAB_EFI_LA57PLAN_H */
