/* SPDX-License-Identifier: MIT */
/*
 * What the kernel pipeline (kernel.c) and its protocols (linux.c,
 * limine.c) share, in a file of its own so that the calls go one way:
 * the recording page allocator, the whole-file read, the note that
 * nothing was handed over (kernel.h).
 *
 * Firmware calls (before ExitBootServices only): AllocatePages,
 * FreePages, the file protocols (fsfile.c).
 */
#include "core/kernel.h"
#include "fw/fsfile.h"
#include "fw/owned.h"
#include "fw/verify.h"
#include "report/report.h"

#include <ptlab/pte.h>

EFI_STATUS kernel_alloc(struct ptlab *p, EFI_ALLOCATE_TYPE type, uint64_t bytes, uint64_t *pa)
{
	struct ptlab_kernel *k = &p->kern;
	EFI_PHYSICAL_ADDRESS a = *pa;
	uint64_t len = pt_align_up(bytes, PT_PAGE_SIZE);
	EFI_STATUS st;

	if (!bytes)
		return EFI_INVALID_PARAMETER;
	if (k->nalloc == PTLAB_KERNEL_ALLOC_MAX)
		return EFI_OUT_OF_RESOURCES;   /* it could not be given back: not taken */
	if (type == AllocateAnyPages)
		a = 0;
	st = uefi_call_wrapper(BS->AllocatePages, 4, type, EfiLoaderData, len / PT_PAGE_SIZE, &a);
	if (st != EFI_SUCCESS)
		return st;
	owned_add(a, len);
	k->alloc[k->nalloc++] = (struct pt_range){ a, len };
	*pa = a;
	return EFI_SUCCESS;
}

void kernel_unload(struct ptlab *p)
{
	struct ptlab_kernel *k = &p->kern;

	for (unsigned i = 0; i < k->nalloc; i++)
		uefi_call_wrapper(BS->FreePages, 2, k->alloc[i].va, k->alloc[i].len / PT_PAGE_SIZE);
	*k = (struct ptlab_kernel){ 0 };
}

bool kernel_read(struct ptlab *p, EFI_LOADED_IMAGE *li, const char *what, const char *path,
		 uint64_t max, char **buf, UINTN *len)
{
	/* the kernel file is read before its protocol is known: "kernel: PATH ..." */
	const char *proto = p->kern.proto ? p->kern.proto->name : what;
	const char *sep = p->kern.proto ? " " : "", *name = p->kern.proto ? what : "";
	char why[256];

	if (fsfile_read(li->DeviceHandle, path, max, buf, len, why, sizeof(why)) != EFI_SUCCESS) {
		report_fail(p->rep, "%s: %s%s%s", proto, name, sep, why);
		return false;
	}
	if (*len == 0) {
		owned_pool_free(*buf);
		*buf = NULL;
		report_fail(p->rep, "%s: %s%s%s is empty", proto, name, sep, path);
		return false;
	}
	return true;
}

int kernel_not_handed_over(struct ptlab *p)
{
	report_note(p->rep, "%s: not handed over: %u check(s) failed%s", p->kern.proto->name,
		    p->rep->failed, p->aborted ? ", the run was aborted" : "");
	return PT_EINVAL;
}


bool kernel_verified(struct ptlab *p, const struct mode_boot *b, const char *what,
		     const char *path, const void *buf, uint64_t len, enum verify_kind kind)
{
	const struct verify_src src = { b->image, b->li->DeviceHandle, p->rep };
	const char *proto = p->kern.proto ? p->kern.proto->name : "kernel";
	char why[256];

	if (verify_image(&src, buf, (size_t)len, path, kind, why, sizeof(why)) == 0)
		return true;
	report_fail(p->rep, "%s: %s %s refused: %s", proto, what, path, why);
	return false;
}
