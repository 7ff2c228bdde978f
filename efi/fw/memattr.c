/* SPDX-License-Identifier: MIT */
/*
 * Pages of ours made executable in the firmware's tables, and given back
 * (see memattr.h).
 *
 * Firmware calls: LocateProtocol, and EFI_MEMORY_ATTRIBUTE_PROTOCOL's
 * GetMemoryAttributes, SetMemoryAttributes and ClearMemoryAttributes
 * (UEFI 2.10), with boot services alive.
 */
#include <efi.h>
#include <efilib.h>
#include <stddef.h>

#include <ptlab/pte.h>

#include "fw/memattr.h"

/* EFI_MEMORY_ATTRIBUTE_PROTOCOL_GUID (UEFI 2.10) */
static EFI_GUID memattr_guid = { 0xf4560cf6, 0x40ec, 0x4b4a,
				 { 0xa1, 0x92, 0xbf, 0x1d, 0x57, 0xd0, 0xb1, 0x89 } };

struct memattr_proto;
typedef EFI_STATUS (EFIAPI *memattr_get_fn)(struct memattr_proto *self, EFI_PHYSICAL_ADDRESS base,
					    UINT64 len, UINT64 *attrs);
typedef EFI_STATUS (EFIAPI *memattr_set_fn)(struct memattr_proto *self, EFI_PHYSICAL_ADDRESS base,
					    UINT64 len, UINT64 attrs);

/* The protocol's interface: Get, Set, Clear, in that order. */
struct memattr_proto {
	memattr_get_fn get;
	memattr_set_fn set;
	memattr_set_fn clear;
};

#define MEMATTR_MAX 4u

/* The ranges changed, with the attributes they had. */
static struct {
	uint64_t pa, len, before;
} changed[MEMATTR_MAX];
static unsigned nchanged;

/* The firmware's protocol, NULL when it has none (asked each time: no state kept). */
static struct memattr_proto *memattr_proto(void)
{
	void *iface = NULL;

	if (uefi_call_wrapper(BS->LocateProtocol, 3, &memattr_guid, NULL, &iface) != EFI_SUCCESS)
		return NULL;
	return iface;
}

bool memattr_present(void)
{
	return memattr_proto() != NULL;
}

/* Back to @before's RO and XP over [pa, pa+len). */
static EFI_STATUS memattr_put_back(struct memattr_proto *m, uint64_t pa, uint64_t len,
				   uint64_t before)
{
	EFI_STATUS st = EFI_SUCCESS;

	if (before & MEMATTR_XP)
		st = uefi_call_wrapper(m->set, 4, m, pa, len, MEMATTR_XP);
	if (st == EFI_SUCCESS && !(before & MEMATTR_RO))
		st = uefi_call_wrapper(m->clear, 4, m, pa, len, MEMATTR_RO);
	return st;
}

EFI_STATUS memattr_make_code(uint64_t pa, uint64_t bytes, uint64_t *before)
{
	struct memattr_proto *m = memattr_proto();
	uint64_t len = pt_align_up(bytes, PT_PAGE_SIZE);
	UINT64 had = 0;
	EFI_STATUS st;

	*before = 0;
	if (!m)
		return EFI_SUCCESS;
	if ((pa & (PT_PAGE_SIZE - 1)) || !bytes)
		return EFI_INVALID_PARAMETER;
	if (nchanged == MEMATTR_MAX)
		return EFI_OUT_OF_RESOURCES;
	/* a range of mixed attributes answers EFI_NO_MAPPING: one range at a time */
	st = uefi_call_wrapper(m->get, 4, m, pa, len, &had);
	if (st != EFI_SUCCESS)
		return st;
	st = uefi_call_wrapper(m->set, 4, m, pa, len, MEMATTR_RO);
	if (st == EFI_SUCCESS)
		st = uefi_call_wrapper(m->clear, 4, m, pa, len, MEMATTR_XP);
	if (st != EFI_SUCCESS) {
		memattr_put_back(m, pa, len, had);
		return st;
	}
	changed[nchanged].pa = pa;
	changed[nchanged].len = len;
	changed[nchanged].before = had;
	nchanged++;
	*before = had;
	return EFI_SUCCESS;
}

EFI_STATUS memattr_restore(uint64_t pa)
{
	for (unsigned i = 0; i < nchanged; i++) {
		struct memattr_proto *m;
		EFI_STATUS st;

		if (changed[i].pa != pa)
			continue;
		m = memattr_proto();
		st = m ? memattr_put_back(m, pa, changed[i].len, changed[i].before) : EFI_NOT_FOUND;
		changed[i] = changed[--nchanged];
		return st;
	}
	return EFI_SUCCESS;
}
