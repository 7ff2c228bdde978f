/* SPDX-License-Identifier: MIT */
/*
 * The one pseudo-random generator of ptlab's checks and tests: splitmix64
 * (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
 * OOPSLA 2014).  Seeded, so a run is replayed by its seed; every seed,
 * 0 included, gives a full-period sequence; the same sequence on the host
 * and on the machine.  Header-only, no state of its own: the caller keeps
 * the struct prng (in its run's state or on its stack).
 *
 * lib/ is the bottom folder: it uses nothing, every folder may use it.
 */
#ifndef PTLAB_EFI_PRNG_H
#define PTLAB_EFI_PRNG_H

#include <stdint.h>

struct prng {
	uint64_t s;
};

static inline void prng_seed(struct prng *r, uint64_t seed)
{
	r->s = seed;
}

static inline uint64_t prng_next(struct prng *r)
{
	uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A value in [0, n); 0 for @n 0.  The modulo's bias is below n / 2^64. */
static inline uint64_t prng_below(struct prng *r, uint64_t n)
{
	return n ? prng_next(r) % n : 0;
}

#endif /* PTLAB_EFI_PRNG_H */
