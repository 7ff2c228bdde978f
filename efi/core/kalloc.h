/* SPDX-License-Identifier: MIT */
/*
 * The kernel hand-off's allocator (kalloc.c): pages of ours that a
 * refused kernel gives back, and files read at their size into them.
 * Boot services needed.
 */
#ifndef PTLAB_EFI_CORE_KALLOC_H
#define PTLAB_EFI_CORE_KALLOC_H

#include <efi.h>
#include <efilib.h>

#include "fw/verify.h"
#include "state/state.h"

/*
 * @bytes of pages (rounded up) of ours: AllocatePages(@type, EfiLoaderData)
 * at *@pa (the address for AllocateAddress, the limit for
 * AllocateMaxAddress, ignored for AllocateAnyPages), recorded as the
 * application's (owned.c) and in @k's list (the run's kernel), so that a
 * refused kernel gives every one back.  The firmware's status; *@pa set
 * on success; nothing taken when @k's list is full.
 */
EFI_STATUS kernel_alloc(struct ptlab_kernel *k, EFI_ALLOCATE_TYPE type, uint64_t bytes,
			uint64_t *pa);

/*
 * All of @path (the @what: "initrd", "module") on the volume @device into
 * pages of kernel_alloc() of exactly its size (the size asked first, one
 * read; the last page's tail zero), at most @max bytes, recorded in @k.
 * EFI_SUCCESS with *@pa and *@len set; else an error after a failure line
 * on @rep naming @k's protocol, the file and why (an empty file too),
 * *@pa 0.
 */
EFI_STATUS kernel_load_file(struct ptlab_kernel *k, struct report *rep, EFI_HANDLE device,
			    const char *what, const char *path, uint64_t max, uint64_t *pa,
			    uint64_t *len);

/*
 * Secure Boot's judgement (fw/verify.c) of the @what ("kernel", "initrd",
 * "module") read from @path into @buf, as @kind asks (a PE image through
 * shim or LoadImage, or the digests built into the signed image): true
 * when it may be run; false after a failure line on @src's report naming
 * @proto ("linux", "limine"), the file, the reason and the firmware's
 * status.
 */
bool kernel_verified(const struct verify_src *src, const char *proto, const char *what,
		     const char *path, const void *buf, uint64_t len, enum verify_kind kind);

/* Every page kernel_alloc() took for @k, given back; @k cleared. */
void kernel_free_all(struct ptlab_kernel *k);

#endif
