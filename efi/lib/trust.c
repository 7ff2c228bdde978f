/* SPDX-License-Identifier: MIT */
/*
 * The digest list's lookup: a file is accepted when its SHA-256 equals
 * one of the list's digests, byte for byte; nothing else (its name, its
 * size) counts.
 */
#include "lib/trust.h"

const struct trust_digest *trust_find(const struct trust_list *l,
				      const uint8_t digest[SHA256_BYTES])
{
	for (unsigned i = 0; i < l->n; i++) {
		unsigned diff = 0;

		for (unsigned j = 0; j < SHA256_BYTES; j++)
			diff |= l->d[i].sha256[j] ^ digest[j];
		if (!diff)
			return &l->d[i];
	}
	return NULL;
}

void trust_hex(const uint8_t d[SHA256_BYTES], char out[2 * SHA256_BYTES + 1])
{
	static const char hex[] = "0123456789abcdef";

	for (unsigned i = 0; i < SHA256_BYTES; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 0xf];
	}
	out[2 * SHA256_BYTES] = '\0';
}

/* @s then @t into @why as far as it holds, NUL-terminated (no formatter here). */
static void say(char *why, size_t whylen, const char *s, const char *t)
{
	size_t n = 0;

	if (!whylen)
		return;
	while (*s && n + 1 < whylen)
		why[n++] = *s++;
	while (*t && n + 1 < whylen)
		why[n++] = *t++;
	why[n] = '\0';
}

const struct trust_digest *trust_check(const struct trust_list *l, const void *buf, size_t len,
				       char *why, size_t whylen)
{
	uint8_t d[SHA256_BYTES];
	const struct trust_digest *e;
	char hex[2 * SHA256_BYTES + 1], msg[128];

	sha256(buf, len, d);
	e = trust_find(l, d);
	if (e)
		return e;
	trust_hex(d, hex);
	say(msg, sizeof(msg), "sha256 ", hex);
	say(why, whylen, msg, l->n ? " is not in the built-in digest list" :
		" is not in the built-in digest list (it is empty: built without TRUST=)");
	return NULL;
}
