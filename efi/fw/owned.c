/* SPDX-License-Identifier: MIT */
/*
 * The application's own boot-services allocations, recorded (see owned.h).
 *
 * Firmware calls: AllocatePool, FreePool and AllocatePages, with boot
 * services alive.
 */
#include <efi.h>
#include <efilib.h>

#include <ptlab/pte.h>

#include "fw/owned.h"
#include "lib/ckd.h"

#define OWNED_MAX 64u

static struct pt_range owned[OWNED_MAX];
static unsigned nowned;
static bool owned_lost;       /* more allocations than slots: trust none */

/* Record [pa, pa+bytes) as ours, page-rounded. */
static void owned_add(uint64_t pa, uint64_t bytes)
{
	uint64_t a = pt_align_down(pa, PT_PAGE_SIZE), b = pt_align_up(pa + bytes, PT_PAGE_SIZE);

	if (nowned == OWNED_MAX) {
		owned_lost = true;
		return;
	}
	owned[nowned].va = a;
	owned[nowned].len = b - a;
	nowned++;
}

unsigned owned_list(const struct pt_range **r, bool *complete)
{
	*r = owned;
	*complete = !owned_lost;
	return nowned;
}

void *owned_pool(size_t bytes)
{
	void *p = NULL;

	if (uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, (UINTN)bytes, &p) != EFI_SUCCESS)
		return NULL;
	owned_add((uint64_t)(uintptr_t)p, bytes);
	return p;
}

void owned_pool_free(void *p)
{
	if (p)
		uefi_call_wrapper(BS->FreePool, 1, p);
}

EFI_STATUS owned_alloc(EFI_ALLOCATE_TYPE type, EFI_MEMORY_TYPE mem, uint64_t bytes, uint64_t *pa)
{
	uint64_t len;
	EFI_PHYSICAL_ADDRESS a = type == AllocateAnyPages ? 0 : *pa;
	EFI_STATUS st;

	/* a size whose pages wrap past 2^64 would ask for none and be recorded as none */
	if (!bytes || !ckd_align_up(&len, bytes, PT_PAGE_SIZE))
		return EFI_INVALID_PARAMETER;
	st = uefi_call_wrapper(BS->AllocatePages, 4, type, mem, len / PT_PAGE_SIZE, &a);
	if (st != EFI_SUCCESS)
		return st;
	owned_add(a, len);
	*pa = a;
	return EFI_SUCCESS;
}

void owned_free(uint64_t pa, uint64_t bytes)
{
	if (bytes)
		uefi_call_wrapper(BS->FreePages, 2, pa, pt_align_up(bytes, PT_PAGE_SIZE) / PT_PAGE_SIZE);
}

void *owned_pages(uint64_t bytes)
{
	uint64_t pa = 0;

	if (owned_alloc(AllocateAnyPages, EfiLoaderData, bytes, &pa) != EFI_SUCCESS)
		return NULL;
	return (void *)(uintptr_t)pa;
}
