/* SPDX-License-Identifier: MIT */
#include "samples.h"

#include <stdio.h>
#include <stdlib.h>

void *sample_read(const char *name, size_t *len)
{
	char path[256];
	FILE *f;
	void *buf = NULL;
	long n = -1;

	snprintf(path, sizeof(path), "tests/data/memmap/%s", name);
	f = fopen(path, "rb");
	if (f && fseek(f, 0, SEEK_END) == 0)
		n = ftell(f);
	if (n > 0 && fseek(f, 0, SEEK_SET) == 0)
		buf = malloc((size_t)n);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "cannot read %s (run from the top of the tree)\n", path);
		abort();
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}
