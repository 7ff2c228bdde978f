/* SPDX-License-Identifier: MIT */
/*
 * Whole files from the boot volume (\ptlab.cfg, a kernel, initrds, boot
 * modules), read with boot services into memory of ours of exactly their
 * size: the size is asked first (EFI_FILE_INFO, or TFTP's tsize), then the
 * file is read once.  An image booted over PXE, whose device has no file
 * system, reads them from its TFTP server.
 */
#ifndef PTLAB_EFI_FSFILE_H
#define PTLAB_EFI_FSFILE_H

#include <efi.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FSFILE_TFTP_NAME 256u   /* a TFTP file name, with the NUL */

/*
 * An open file and its size: on the boot volume (h), or, when the image
 * was loaded over the network and its device has no file system, on the
 * TFTP server it came from (pxe: the device's PXE base code, its DHCP
 * answer in place; tftp the path on the server).
 */
struct fsfile {
	EFI_FILE_HANDLE h;
	EFI_PXE_BASE_CODE *pxe;
	EFI_IP_ADDRESS server;
	uint8_t tftp[FSFILE_TFTP_NAME];
	uint64_t size;
	const char *name;
};

/**
 * fsfile_network() - whether @device is a network boot's, without a volume
 * @what:  on true, "TFTP server A.B.C.D (boot file NAME)" for the report
 *
 * True when @device has no Simple File System protocol and has a started
 * PXE base code with a DHCP answer: files are then read from the server
 * the DHCP answer names (siaddr, a proxy offer's first), a path of the
 * volume taken as one from the server's root ('\' as '/', the leading
 * one dropped).
 */
bool fsfile_network(EFI_HANDLE device, char *what, size_t whatlen);

/**
 * fsfile_open() - open @name on the volume @device for reading, with its size
 * @name:  ASCII path; '/' is taken as '\'
 * @err:   on failure, a message naming the file and why: not found, a
 *         directory, a device name, or the firmware's status
 *
 * Return: EFI_SUCCESS with @f open (fsfile_close() it); EFI_NOT_FOUND
 * when there is no such file; EFI_INVALID_PARAMETER for a directory or a
 * device; another error otherwise.  On failure nothing stays open.
 */
EFI_STATUS fsfile_open(EFI_HANDLE device, const char *name, struct fsfile *f, char *err,
		       size_t errlen);

/**
 * fsfile_read_all() - all f->size bytes of @f into @buf, from its start
 *
 * Return: EFI_SUCCESS; else @err says at which byte the read failed or
 * the file ended early (@buf then holds what was read).
 */
EFI_STATUS fsfile_read_all(struct fsfile *f, void *buf, char *err, size_t errlen);

/* Close @f (f->h NULL afterwards; closing twice is harmless). */
void fsfile_close(struct fsfile *f);

/**
 * fsfile_load() - all of @name into new pages of ours (EfiLoaderData,
 * recorded by owned.c) of exactly its size, page-rounded
 * @max:    a larger file is refused before anything is allocated
 * @max_pa: the pages' highest byte may be at most this (UINT64_MAX: any)
 * @pa:     where the file now is
 * @len:    its bytes
 *
 * Return: EFI_SUCCESS; otherwise an error with @err naming the file and
 * its size (too large, no pages for it, a failed read); then nothing
 * stays allocated.  An empty file is loaded with *@pa 0 and *@len 0.
 */
EFI_STATUS fsfile_load(EFI_HANDLE device, const char *name, uint64_t max, uint64_t max_pa,
		       uint64_t *pa, uint64_t *len, char *err, size_t errlen);

/* Give back pages fsfile_load() allocated (@len its *len; nothing for 0). */
void fsfile_unload(uint64_t pa, uint64_t len);

/**
 * fsfile_read() - all of @name on the volume @device into a new pool buffer
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
