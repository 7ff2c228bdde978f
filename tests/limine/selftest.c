// SPDX-License-Identifier: MIT
/*
 * Host check of the test kernel's SHA-256, CRC-32 and formatting
 * (tests/limine/lib.c, built for the host with -fno-builtin):
 *
 *   selftest FILE   prints "SHA256 CRC32" of FILE, read in odd-sized
 *                   pieces, then one formatted line
 *
 * mk/limine.mk compares the output with sha256sum and Python's zlib.crc32
 * of the same file and the line with the one printf(1) makes.
 */
#include "lib.h"

int printf(const char *f, ...);
void *fopen(const char *p, const char *m);
size_t fread(void *b, size_t s, size_t n, void *f);

static u8 data[1 << 22];

int main(int argc, char **argv)
{
	struct sha256 s;
	u8 out[32];
	char line[200];
	size_t n = 0, got, off, piece = 1;
	void *f;
	int i;

	if (argc != 2 || !(f = fopen(argv[1], "rb")))
		return 2;
	while ((got = fread(data + n, 1, sizeof(data) - n, f)) > 0)
		n += got;
	sha256_init(&s);
	for (off = 0; off < n; off += piece, piece = piece * 3 % 200 + 1)
		sha256_add(&s, data + off, off + piece <= n ? piece : n - off);
	sha256_end(&s, out);
	for (i = 0; i < 32; i++)
		printf("%02x", out[i]);
	printf(" %08x\n", crc32(data, n));
	fmt(line, sizeof(line), "%d %u %x %llx %s %05d %p %lld", -5, 7u, 255u,
	    0xffffffff80000000ULL, "str", 42, (void *)0x10, -9LL);
	printf("%s\n", line);
	return 0;
}
