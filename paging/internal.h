/* SPDX-License-Identifier: MIT */
/* Library-internal helpers shared between paging/ files; not part of the API. */
#ifndef PTLAB_PAGING_INTERNAL_H
#define PTLAB_PAGING_INTERNAL_H

#include <stdint.h>

#include <ptlab/pt.h>

/* Leaf bits (P, W, US, G, NX, cache, PS above level 0) for PT_* @flags at @level. */
int pt_flags_to_bits(const struct pt_env *env, unsigned flags, unsigned level, uint64_t *bits);
/* PT_* attributes a leaf entry @e at @level carries by itself (not ANDed down a walk). */
unsigned pt_bits_to_flags(const struct pt_env *env, uint64_t e, unsigned level);

#endif
