/* SPDX-License-Identifier: MIT */
/* covers: efi/lib/sha256.c */
/*
 * efi/lib/sha256.c: the FIPS 180-2 example messages (appendix B: "abc",
 * the 448-bit two-block message, one million 'a') and the 896-bit message
 * of the NIST examples, each pinned; the same digests when the message is
 * fed in pieces of every size from 1 to 130 bytes; and messages of the
 * lengths around the padding's boundaries judged by coreutils' sha256sum,
 * an implementation of its own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include "../../efi/lib/sha256.h"

struct vector {
	const char *msg;
	size_t repeat;          /* msg this many times */
	const char *hex;
};

static const struct vector vectors[] = {
	{ "", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ "abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
	  "klmnopqrlmnopqrsmnopqrstnopqrstu", 1,
	  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1" },
	/* the long message: 1,000,000 repetitions of 'a' */
	{ "a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
};

static void hex_of(const uint8_t d[SHA256_BYTES], char out[65])
{
	for (unsigned i = 0; i < SHA256_BYTES; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* The vector's message, built in a heap buffer of exactly its length. */
static uint8_t *message(const struct vector *v, size_t *len)
{
	size_t n = strlen(v->msg);
	uint8_t *m = malloc(n * v->repeat + 1);

	assert_non_null(m);
	for (size_t i = 0; i < v->repeat; i++)
		memcpy(m + i * n, v->msg, n);
	*len = n * v->repeat;
	return m;
}

static void test_fips_vectors(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		uint8_t d[SHA256_BYTES];
		char hex[65];
		size_t len;
		uint8_t *m = message(&vectors[i], &len);

		sha256(m, len, d);
		hex_of(d, hex);
		assert_string_equal(hex, vectors[i].hex);
		free(m);
	}
}

/* Every vector fed in pieces of @step bytes gives the same digest. */
static void test_pieces_give_the_same_digest(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		size_t len;
		uint8_t *m = message(&vectors[i], &len);
		uint8_t want[SHA256_BYTES];

		sha256(m, len, want);
		for (size_t step = 1; step <= 130; step += vectors[i].repeat > 1 ? 43 : 1) {
			struct sha256 c;
			uint8_t d[SHA256_BYTES];

			sha256_init(&c);
			for (size_t at = 0; at < len; at += step)
				sha256_update(&c, m + at, len - at < step ? len - at : step);
			sha256_final(&c, d);
			assert_memory_equal(d, want, SHA256_BYTES);
		}
		free(m);
	}
}

/* sha256sum's digest of @len bytes at @m, through a temporary file. */
static void sha256sum_of(const uint8_t *m, size_t len, char hex[65])
{
	char path[] = "/tmp/ptlab-sha256-XXXXXX", cmd[96];
	FILE *f, *p;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(m, 1, len, f), len);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "sha256sum %s", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%64s", hex), 1);
	pclose(p);
	remove(path);
}

/*
 * Lengths where the padding changes: the length field fits the last block
 * up to 55 bytes of it, 56 to 63 need one more block, 64 fills one.
 */
static void test_padding_boundaries_against_sha256sum(void **state)
{
	static const size_t lens[] = { 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000 };
	uint8_t m[1000];

	(void)state;
	for (size_t i = 0; i < sizeof(m); i++)
		m[i] = (uint8_t)(i * 131 + 7);
	for (unsigned i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		uint8_t d[SHA256_BYTES];
		char got[65], want[65];

		sha256(m, lens[i], d);
		hex_of(d, got);
		sha256sum_of(m, lens[i], want);
		assert_string_equal(got, want);
	}
}

UNIT_MAIN(
	cmocka_unit_test(test_fips_vectors),
	cmocka_unit_test(test_pieces_give_the_same_digest),
	cmocka_unit_test(test_padding_boundaries_against_sha256sum))
