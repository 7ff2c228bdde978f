/* SPDX-License-Identifier: MIT */
/* The sample memory maps in tests/data/memmap/, for host tests. */
#ifndef PTLAB_TEST_SAMPLES_H
#define PTLAB_TEST_SAMPLES_H

#include <stddef.h>

/*
 * The whole of tests/data/memmap/@name (paths are relative to the top of the
 * tree, where make runs the tests), malloc'd; *len its size.  Aborts with a
 * message when the file cannot be read: a missing sample is a broken test.
 */
void *sample_read(const char *name, size_t *len);

#endif
