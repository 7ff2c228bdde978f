/* SPDX-License-Identifier: MIT */
/*
 * The digest list: SHA-256 digests of the files a signed ptlab boots
 * without the firmware's judgement (what is no PE image: ELF kernels,
 * modules, initrds), compiled into the image that is signed ("make
 * signed-image TRUST=..."), so the signature covers the list.  The
 * unsigned default build's list is empty.  Firmware-free.
 */
#ifndef PTLAB_EFI_TRUST_H
#define PTLAB_EFI_TRUST_H

#include <stddef.h>
#include <stdint.h>

#include "lib/sha256.h"

struct trust_digest {
	uint8_t sha256[SHA256_BYTES];
	const char *name;               /* the file's name when the list was built */
};

struct trust_list {
	const struct trust_digest *d;
	unsigned n;
};

/* The entry of @l whose digest is @digest; NULL when there is none. */
const struct trust_digest *trust_find(const struct trust_list *l,
				      const uint8_t digest[SHA256_BYTES]);

/*
 * Whether the @len bytes at @buf are in @l by their SHA-256.  Returns the
 * entry; NULL after writing into @why their digest and that the list does
 * not hold it (the caller names the file).
 */
const struct trust_digest *trust_check(const struct trust_list *l, const void *buf, size_t len,
				       char *why, size_t whylen);

/* @d as 64 lowercase hex digits and a NUL into @out. */
void trust_hex(const uint8_t d[SHA256_BYTES], char out[2 * SHA256_BYTES + 1]);

#endif
