/* SPDX-License-Identifier: MIT */
/*
 * Whole files from the boot volume (see fsfile.h).
 *
 * Firmware calls: the Simple File System protocol (LibOpenRoot), the file
 * protocol's Open, Read and Close; AllocatePool/FreePool through owned.c.
 */
#include <efi.h>
#include <efilib.h>

#include "report/fmt.h"
#include "fw/fsfile.h"
#include "fw/owned.h"

#define FIRST_CAP  (64u << 10)
#define NAME_MAX16 256u

EFI_STATUS fsfile_read(EFI_HANDLE device, const char *name, uint64_t max, char **out,
		       UINTN *len, char *err, size_t errlen)
{
	CHAR16 path[NAME_MAX16];
	EFI_FILE_HANDLE root, file;
	EFI_STATUS st;
	char *buf = NULL;
	UINTN cap = 0, used = 0, i;

	*out = NULL;
	*len = 0;
	for (i = 0; name[i] && i + 1 < NAME_MAX16; i++)
		path[i] = name[i] == '/' ? L'\\' : (CHAR16)(unsigned char)name[i];
	path[i] = 0;
	root = LibOpenRoot(device);
	if (!root) {
		fmt_snprintf(err, errlen, "%s: the boot volume cannot be opened", name);
		return EFI_NOT_FOUND;
	}
	st = uefi_call_wrapper(root->Open, 5, root, &file, path, EFI_FILE_MODE_READ, 0);
	uefi_call_wrapper(root->Close, 1, root);
	if (st != EFI_SUCCESS) {
		fmt_snprintf(err, errlen, "%s cannot be opened: status 0x%llx%s", name,
			     (unsigned long long)st, st == EFI_NOT_FOUND ? " (not found)" : "");
		return st;
	}
	for (;;) {
		UINTN n;

		if (used == cap) {
			char *bigger, probe;

			if (cap >= max) {
				/* full: only the end of the file may follow */
				n = 1;
				st = uefi_call_wrapper(file->Read, 3, file, &n, &probe);
				if (st == EFI_SUCCESS && n == 0)
					break;
				fmt_snprintf(err, errlen, "%s is larger than %llu bytes: refused "
					     "rather than cut", name, (unsigned long long)max);
				st = EFI_BAD_BUFFER_SIZE;
				break;
			}
			cap = cap ? 2 * cap : FIRST_CAP;
			if (cap > max)
				cap = max;
			bigger = owned_pool(cap + 1);
			if (!bigger) {
				fmt_snprintf(err, errlen, "no memory to read %s (%llu bytes)", name,
					     (unsigned long long)cap);
				st = EFI_OUT_OF_RESOURCES;
				break;
			}
			if (buf)
				CopyMem(bigger, buf, used);
			owned_pool_free(buf);
			buf = bigger;
		}
		n = cap - used;
		st = uefi_call_wrapper(file->Read, 3, file, &n, buf + used);
		if (st != EFI_SUCCESS) {
			fmt_snprintf(err, errlen, "reading %s failed at byte %llu: status 0x%llx",
				     name, (unsigned long long)used, (unsigned long long)st);
			break;
		}
		if (n == 0)
			break;   /* end of file */
		used += n;
	}
	uefi_call_wrapper(file->Close, 1, file);
	if (st != EFI_SUCCESS) {
		owned_pool_free(buf);
		return st;
	}
	if (!buf) {
		/* an empty file */
		buf = owned_pool(1);
		if (!buf) {
			fmt_snprintf(err, errlen, "no memory to read %s", name);
			return EFI_OUT_OF_RESOURCES;
		}
	}
	buf[used] = 0;
	*out = buf;
	*len = used;
	return EFI_SUCCESS;
}
