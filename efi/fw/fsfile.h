/* SPDX-License-Identifier: MIT */
/*
 * Whole files from the boot volume (\ptlab.cfg, a kernel, an initrd), read
 * with boot services into a pool buffer of ours.
 */
#ifndef PTLAB_EFI_FSFILE_H
#define PTLAB_EFI_FSFILE_H

#include <efi.h>

#include <stddef.h>
#include <stdint.h>

/**
 * fsfile_read() - all of @name on the volume @device into a new buffer
 * @name:  ASCII path; '/' is taken as '\'
 * @max:   a larger file is refused, never cut
 * @out:   the bytes, NUL-terminated (owned_pool; free with owned_pool_free)
 * @len:   their number, without the NUL
 * @err:   on failure, a message naming the file and the firmware's status
 *
 * Return: EFI_SUCCESS; EFI_NOT_FOUND when there is no such file (@err set
 * too); another error otherwise.  On failure nothing stays allocated.
 */
EFI_STATUS fsfile_read(EFI_HANDLE device, const char *name, uint64_t max, char **out,
		       UINTN *len, char *err, size_t errlen);

#endif
