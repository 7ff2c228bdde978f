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
 * Give the identity-map range [@pa, @pa + @len) (4 KiB aligned, non-empty)
 * the permissions @perm (PT_WRITE, PT_EXEC, PT_ALLOW_WX; cache type and the
 * rest stay): each identity entry it touches is split into up to three
 * entries (before, the range, after), entries that already have @perm are
 * left whole, and the minimum table count is computed again for @levels
 * and @has_1g.  Other kinds (HHDM, image) are not touched.  Returns PT_OK,
 * PT_EINVAL (unaligned, empty, wrapping, other bits, or W with X but
 * without PT_ALLOW_WX),
 * PT_ENOTMAPPED (a page no identity entry holds) or PT_ECAPACITY (no room
 * for the pieces); on error @pl is unchanged.
 */
int plan_identity_perm(struct pt_plan *pl, uint64_t pa, uint64_t len, unsigned perm,
		       unsigned levels, bool has_1g);

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
