// SPDX-License-Identifier: MIT
/* covers: efi/fw/memattr.c */
/*
 * efi/fw/memattr.c, built as it is for the host, against a fake
 * EFI_MEMORY_ATTRIBUTE_PROTOCOL (UEFI 2.10) that keeps one RO/XP word per
 * page, answers EFI_NO_MAPPING for a range of mixed attributes, and can be
 * told to refuse a call.  No Debian OVMF offers the protocol (edk2 2022.11
 * has none), so this is where its use is exercised: absent, nothing is
 * asked and the answer is success; present, a page is made read-only and
 * executable without ever being writable and executable, and gets its
 * attributes back; a refusal puts back what was changed; bad input changes
 * nothing.
 */
#include <stdbool.h>
#include <string.h>

#include "unit.h"

#include <ptlab/pte.h>

#include "efi.h"
#include "efilib.h"
#include "fw/memattr.h"

#define BASE   UINT64_C(0x3ec00000)
#define NPAGES 8u

/* The fake protocol's interface, laid out as memattr.c expects: Get, Set, Clear. */
struct fake_proto {
	EFI_STATUS (EFIAPI *get)(struct fake_proto *self, EFI_PHYSICAL_ADDRESS base, UINT64 len,
				 UINT64 *attrs);
	EFI_STATUS (EFIAPI *set)(struct fake_proto *self, EFI_PHYSICAL_ADDRESS base, UINT64 len,
				 UINT64 attrs);
	EFI_STATUS (EFIAPI *clear)(struct fake_proto *self, EFI_PHYSICAL_ADDRESS base, UINT64 len,
				   UINT64 attrs);
};

static struct {
	bool present;
	UINT64 attr[NPAGES];
	unsigned calls, locates;
	UINT64 refuse_clear;       /* Clear of these bits refused */
	bool wx_seen;              /* a page became writable and executable */
} fake;

static int range(EFI_PHYSICAL_ADDRESS base, UINT64 len, unsigned *first, unsigned *n)
{
	if (base < BASE || (base - BASE) % PT_PAGE_SIZE || !len || len % PT_PAGE_SIZE ||
	    (base - BASE) / PT_PAGE_SIZE + len / PT_PAGE_SIZE > NPAGES)
		return -1;
	*first = (unsigned)((base - BASE) / PT_PAGE_SIZE);
	*n = (unsigned)(len / PT_PAGE_SIZE);
	return 0;
}

/* A page neither read-only nor no-execute is writable and executable. */
static void note_wx(unsigned first, unsigned n, const UINT64 *before)
{
	for (unsigned i = first; i < first + n; i++)
		if (!(fake.attr[i] & (MEMATTR_RO | MEMATTR_XP)) &&
		    (before[i] & (MEMATTR_RO | MEMATTR_XP)))
			fake.wx_seen = true;
}

static EFI_STATUS EFIAPI fake_get(struct fake_proto *self, EFI_PHYSICAL_ADDRESS base, UINT64 len,
				  UINT64 *attrs)
{
	unsigned f, n;

	(void)self;
	fake.calls++;
	if (range(base, len, &f, &n))
		return EFI_INVALID_PARAMETER;
	for (unsigned i = f + 1; i < f + n; i++)
		if (fake.attr[i] != fake.attr[f])
			return EFI_NO_MAPPING;
	*attrs = fake.attr[f];
	return EFI_SUCCESS;
}

static EFI_STATUS fake_change(EFI_PHYSICAL_ADDRESS base, UINT64 len, UINT64 set, UINT64 clear)
{
	UINT64 before[NPAGES];
	unsigned f, n;

	fake.calls++;
	if (range(base, len, &f, &n))
		return EFI_INVALID_PARAMETER;
	if (clear & fake.refuse_clear)
		return EFI_ACCESS_DENIED;
	memcpy(before, fake.attr, sizeof(before));
	for (unsigned i = f; i < f + n; i++)
		fake.attr[i] = (fake.attr[i] | set) & ~clear;
	note_wx(f, n, before);
	return EFI_SUCCESS;
}

static EFI_STATUS EFIAPI fake_set(struct fake_proto *self, EFI_PHYSICAL_ADDRESS base, UINT64 len,
				  UINT64 attrs)
{
	(void)self;
	return fake_change(base, len, attrs, 0);
}

static EFI_STATUS EFIAPI fake_clear(struct fake_proto *self, EFI_PHYSICAL_ADDRESS base, UINT64 len,
				    UINT64 attrs)
{
	(void)self;
	return fake_change(base, len, 0, attrs);
}

static struct fake_proto proto = { fake_get, fake_set, fake_clear };

/* The UEFI 2.10 GUID, written out here on its own */
static const EFI_GUID want_guid = { 0xf4560cf6, 0x40ec, 0x4b4a,
				    { 0xa1, 0x92, 0xbf, 0x1d, 0x57, 0xd0, 0xb1, 0x89 } };

static EFI_STATUS EFIAPI fake_locate(EFI_GUID *guid, VOID *reg, VOID **iface)
{
	(void)reg;
	fake.locates++;
	if (!fake.present || memcmp(guid, &want_guid, sizeof(want_guid)))
		return EFI_NOT_FOUND;
	*iface = &proto;
	return EFI_SUCCESS;
}

static EFI_BOOT_SERVICES boot_services = { fake_locate };
EFI_BOOT_SERVICES *BS = &boot_services;

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	for (unsigned i = 0; i < NPAGES; i++)
		fake.attr[i] = MEMATTR_XP;     /* loader pages on NX firmware: rw-, no-execute */
	fake.present = true;
	return 0;
}

static void test_absent_asks_nothing(void **state)
{
	uint64_t before = 1;

	(void)state;
	fake.present = false;
	assert_false(memattr_present());
	assert_int_equal(memattr_make_code(BASE, PT_PAGE_SIZE, &before), EFI_SUCCESS);
	assert_int_equal(before, 0);
	assert_int_equal(memattr_restore(BASE), EFI_SUCCESS);
	assert_int_equal(fake.calls, 0);
	assert_int_equal(fake.attr[0], MEMATTR_XP);
}

static void test_made_rx_then_given_back(void **state)
{
	uint64_t before = 0;

	(void)state;
	assert_true(memattr_present());
	assert_int_equal(memattr_make_code(BASE + PT_PAGE_SIZE, PT_PAGE_SIZE, &before), EFI_SUCCESS);
	assert_int_equal(before, MEMATTR_XP);
	assert_int_equal(fake.attr[1], MEMATTR_RO);          /* r-x */
	assert_int_equal(fake.attr[0], MEMATTR_XP);          /* its neighbours untouched */
	assert_int_equal(fake.attr[2], MEMATTR_XP);
	assert_false(fake.wx_seen);
	assert_int_equal(memattr_restore(BASE + PT_PAGE_SIZE), EFI_SUCCESS);
	assert_int_equal(fake.attr[1], MEMATTR_XP);          /* rw- again */
	assert_false(fake.wx_seen);
	/* given back once: a second restore asks nothing */
	fake.calls = 0;
	fake.locates = 0;
	assert_int_equal(memattr_restore(BASE + PT_PAGE_SIZE), EFI_SUCCESS);
	assert_int_equal(fake.calls + fake.locates, 0);
}

static void test_read_only_before_stays_read_only(void **state)
{
	uint64_t before = 0;

	(void)state;
	fake.attr[3] = fake.attr[4] = MEMATTR_RO | MEMATTR_XP;
	assert_int_equal(memattr_make_code(BASE + 3 * PT_PAGE_SIZE, 2 * PT_PAGE_SIZE, &before),
			 EFI_SUCCESS);
	assert_int_equal(before, MEMATTR_RO | MEMATTR_XP);
	assert_int_equal(fake.attr[3], MEMATTR_RO);
	assert_int_equal(fake.attr[4], MEMATTR_RO);
	assert_int_equal(memattr_restore(BASE + 3 * PT_PAGE_SIZE), EFI_SUCCESS);
	assert_int_equal(fake.attr[3], MEMATTR_RO | MEMATTR_XP);
	assert_int_equal(fake.attr[4], MEMATTR_RO | MEMATTR_XP);
}

static void test_refusal_puts_back(void **state)
{
	uint64_t before = 0;

	(void)state;
	fake.refuse_clear = MEMATTR_XP;
	assert_int_equal(memattr_make_code(BASE, PT_PAGE_SIZE, &before), EFI_ACCESS_DENIED);
	assert_int_equal(fake.attr[0], MEMATTR_XP);          /* RO taken off again */
	fake.calls = 0;
	assert_int_equal(memattr_restore(BASE), EFI_SUCCESS);   /* nothing recorded */
	assert_int_equal(fake.calls, 0);
}

static void test_bad_input_changes_nothing(void **state)
{
	uint64_t before = 0;

	(void)state;
	assert_int_equal(memattr_make_code(BASE + 8, PT_PAGE_SIZE, &before), EFI_INVALID_PARAMETER);
	assert_int_equal(memattr_make_code(BASE, 0, &before), EFI_INVALID_PARAMETER);
	/* two pages of different attributes: the firmware's EFI_NO_MAPPING */
	fake.attr[6] = MEMATTR_RO | MEMATTR_XP;
	assert_int_equal(memattr_make_code(BASE + 5 * PT_PAGE_SIZE, 2 * PT_PAGE_SIZE, &before),
			 EFI_NO_MAPPING);
	assert_int_equal(fake.attr[5], MEMATTR_XP);
	assert_int_equal(fake.attr[6], MEMATTR_RO | MEMATTR_XP);
	for (unsigned i = 0; i < NPAGES; i++)
		if (i != 6)
			assert_int_equal(fake.attr[i], MEMATTR_XP);
}

static void test_slots_run_out_cleanly(void **state)
{
	uint64_t before = 0;
	unsigned made = 0;
	EFI_STATUS st = EFI_SUCCESS;

	(void)state;
	for (unsigned i = 0; i < NPAGES && st == EFI_SUCCESS; i++) {
		st = memattr_make_code(BASE + i * PT_PAGE_SIZE, PT_PAGE_SIZE, &before);
		made += st == EFI_SUCCESS;
	}
	assert_int_equal(st, EFI_OUT_OF_RESOURCES);
	assert_true(made >= 1 && made < NPAGES);
	assert_int_equal(fake.attr[made], MEMATTR_XP);     /* the refused one unchanged */
	for (unsigned i = 0; i < made; i++) {
		assert_int_equal(fake.attr[i], MEMATTR_RO);
		assert_int_equal(memattr_restore(BASE + i * PT_PAGE_SIZE), EFI_SUCCESS);
		assert_int_equal(fake.attr[i], MEMATTR_XP);
	}
	assert_false(fake.wx_seen);
}

UNIT_MAIN(
	cmocka_unit_test_setup(test_absent_asks_nothing, setup),
	cmocka_unit_test_setup(test_made_rx_then_given_back, setup),
	cmocka_unit_test_setup(test_read_only_before_stays_read_only, setup),
	cmocka_unit_test_setup(test_refusal_puts_back, setup),
	cmocka_unit_test_setup(test_bad_input_changes_nothing, setup),
	cmocka_unit_test_setup(test_slots_run_out_cleanly, setup))
