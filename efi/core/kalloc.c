/* SPDX-License-Identifier: MIT */
/*
 * The one allocator of the kernel hand-off (kalloc.h): every page a boot
 * protocol places something in, recorded as the application's (owned.c)
 * and in the kernel's own list, so that a refused kernel gives back every
 * one; and files read at their size into such pages.
 *
 * Firmware calls (before ExitBootServices only): AllocatePages,
 * FreePages, the file protocols (fsfile.c).
 */
#include "lib/efistatus.h"
#include "core/kalloc.h"
#include "core/kernel.h"
#include "fw/fsfile.h"
#include "fw/owned.h"
#include "report/report.h"

#include <ptlab/pte.h>

EFI_STATUS kernel_alloc(struct ptlab_kernel *k, EFI_ALLOCATE_TYPE type, uint64_t bytes,
			uint64_t *pa)
{
	EFI_STATUS st;

	if (k->nalloc == PTLAB_KERNEL_ALLOC_MAX)
		return EFI_OUT_OF_RESOURCES;   /* it could not be given back: not taken */
	st = owned_alloc(type, EfiLoaderData, bytes, pa);
	if (st == EFI_SUCCESS)
		k->alloc[k->nalloc++] = (struct pt_range){ *pa, pt_align_up(bytes, PT_PAGE_SIZE) };
	return st;
}

/* Every page kernel_alloc() took, given back; the kernel's state @k cleared. */
void kernel_free_all(struct ptlab_kernel *k)
{
	for (unsigned i = 0; i < k->nalloc; i++)
		owned_free(k->alloc[i].va, k->alloc[i].len);
	*k = (struct ptlab_kernel){ 0 };
}

EFI_STATUS kernel_load_file(struct ptlab_kernel *k, struct report *rep, EFI_HANDLE device,
			    const char *what, const char *path, uint64_t max, uint64_t *pa,
			    uint64_t *len)
{
	const char *proto = k->proto ? k->proto->name : "kernel";
	struct fsfile f;
	char why[256];
	EFI_STATUS st;

	*pa = *len = 0;
	st = fsfile_open(device, path, &f, why, sizeof(why));
	if (st != EFI_SUCCESS) {
		report_fail(rep, "%s: %s %s", proto, what, why);
		return st;
	}
	if (f.size == 0) {
		report_fail(rep, "%s: %s %s is empty", proto, what, path);
		st = EFI_LOAD_ERROR;
	} else if (f.size > max) {
		report_fail(rep, "%s: %s %s is %llu bytes, more than the %llu read", proto, what,
			    path, (unsigned long long)f.size, (unsigned long long)max);
		st = EFI_BAD_BUFFER_SIZE;
	} else if ((st = kernel_alloc(k, AllocateAnyPages, f.size, pa)) != EFI_SUCCESS) {
		report_fail(rep, "%s: %s %s (%llu bytes): no memory for it: status 0x%llx (%s)",
			    proto, what, path, (unsigned long long)f.size, (unsigned long long)st,
			    efi_status_name(st));
	} else if ((st = fsfile_read_all(&f, (void *)(uintptr_t)*pa, why, sizeof(why))) !=
		   EFI_SUCCESS) {
		report_fail(rep, "%s: %s %s", proto, what, why);
	} else {
		/* the page's tail past the file, zero */
		ZeroMem((void *)(uintptr_t)(*pa + f.size),
			pt_align_up(f.size, PT_PAGE_SIZE) - f.size);
		*len = f.size;
	}
	fsfile_close(&f);
	return st;
}

bool kernel_verified(const struct verify_src *src, const char *proto, const char *what,
		     const char *path, const void *buf, uint64_t len, enum verify_kind kind)
{
	char why[256];

	if (verify_image(src, buf, len, path, kind, why, sizeof(why)) == 0)
		return true;
	report_fail(src->rep, "%s: %s %s refused: %s", proto, what, path, why);
	return false;
}
