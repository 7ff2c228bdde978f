/* SPDX-License-Identifier: MIT */
/*
 * The application's own boot-services allocations (owned.c), each one
 * recorded page-rounded: after ExitBootServices the loader ranges less
 * these are free RAM (hand-off mode).  Every function that allocates needs
 * boot services.
 */
#ifndef PTLAB_EFI_OWNED_H
#define PTLAB_EFI_OWNED_H

#include <efi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ptlab/pt.h>

/*
 * The recorded pieces in *r; *complete is false when more allocations were
 * made than could be recorded (then none may be trusted).  No firmware.
 */
unsigned owned_list(const struct pt_range **r, bool *complete);

/* AllocatePool(EfiLoaderData), recorded; NULL when it fails. */
void *owned_pool(size_t bytes);
/* FreePool (NULL is fine); the record stays (it only ever widens what is kept out). */
void owned_pool_free(void *p);
/* AllocatePages(AllocateAnyPages, EfiLoaderData) for @bytes, recorded; NULL when it fails. */
void *owned_pages(uint64_t bytes);

/*
 * The one page allocator of the application: AllocatePages(@type, @mem)
 * for @bytes (rounded up to pages) at *@pa (the address for
 * AllocateAddress, the highest for AllocateMaxAddress, ignored for
 * AllocateAnyPages), recorded as ours on success, *@pa set.  The
 * firmware's status; nothing allocated on failure.
 */
EFI_STATUS owned_alloc(EFI_ALLOCATE_TYPE type, EFI_MEMORY_TYPE mem, uint64_t bytes, uint64_t *pa);

/* FreePages of what owned_alloc() gave (@bytes as asked; nothing for 0). */
void owned_free(uint64_t pa, uint64_t bytes);

#endif
