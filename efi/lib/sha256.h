/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4), for the digests of the files a signed ptlab may
 * boot without the firmware's judgement (lib/trust.c).  Firmware-free, no
 * allocation: the caller keeps the context.
 */
#ifndef PTLAB_EFI_SHA256_H
#define PTLAB_EFI_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32u
#define SHA256_BLOCK 64u

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;                 /* message length so far */
	uint8_t buf[SHA256_BLOCK];      /* a block not yet complete */
	unsigned fill;                  /* its bytes */
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
/* The digest into @out; @c must be initialized again before more use. */
void sha256_final(struct sha256 *c, uint8_t out[SHA256_BYTES]);
/* The digest of @len bytes at @data in one call. */
void sha256(const void *data, size_t len, uint8_t out[SHA256_BYTES]);

#endif
