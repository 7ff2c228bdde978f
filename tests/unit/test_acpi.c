/* SPDX-License-Identifier: MIT */
/* covers: efi/acpi/acpi.c */
/*
 * efi/acpi/acpi.c: the RSDP (ACPI 1.0 and 2.0 forms, both checksums), the
 * table lookup through the XSDT and through the RSDT, the window every
 * address is checked against, and the MADT's CPUs and I/O APICs.  The
 * tables are built here byte by byte in a buffer that stands for physical
 * memory from PHYS; each malformation is made on a good set, so each
 * refusal names one fault.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "unit.h"

#include "../../efi/acpi/acpi.h"
#include "lib/le.h"

#define PHYS       UINT64_C(0x7f000000)     /* the buffer's first byte's physical address */
#define RSDP_AT    0x000u
#define RSDT_AT    0x100u
#define XSDT_AT    0x200u
#define FACP_AT    0x300u
#define MADT_AT    0x400u

static uint8_t mem[0x1000];
static struct acpi_mem w;                       /* the window onto mem, set by good() */

/* Sets the byte at @sum so the @n bytes at @b sum to zero. */
static void fix_sum(uint8_t *b, uint32_t n, uint8_t *sum)
{
	uint8_t s = 0;

	*sum = 0;
	for (uint32_t i = 0; i < n; i++)
		s = (uint8_t)(s + b[i]);
	*sum = (uint8_t)(0x100 - s);
}

/* A table header with @sig and length @len at offset @at, checksum fixed. */
static void sdt(unsigned at, const char *sig, uint32_t len)
{
	memcpy(mem + at, sig, 4);
	le_st32(mem + at + 4, len);
	mem[at + 8] = 1;
	memcpy(mem + at + 10, "PTLABX", 6);
	fix_sum(mem + at, len, mem + at + 9);
}

static void rsdp(unsigned rev)
{
	memcpy(mem + RSDP_AT, "RSD PTR ", 8);
	memcpy(mem + RSDP_AT + 9, "PTLAB ", 6);
	mem[RSDP_AT + 15] = (uint8_t)rev;
	le_st32(mem + RSDP_AT + 16, (uint32_t)(PHYS + RSDT_AT));
	fix_sum(mem + RSDP_AT, 20, mem + RSDP_AT + 8);
	if (rev >= 2) {
		le_st32(mem + RSDP_AT + 20, 36);
		le_st64(mem + RSDP_AT + 24, PHYS + XSDT_AT);
		fix_sum(mem + RSDP_AT, 36, mem + RSDP_AT + 32);
	}
}

/* A MADT at MADT_AT: header, entries appended by madt_add, madt_close. */
static uint32_t madt_len;

static void madt_open(void)
{
	memset(mem + MADT_AT, 0, 0x400);
	le_st32(mem + MADT_AT + 36, 0xfee00000u);
	le_st32(mem + MADT_AT + 40, 1);
	madt_len = 44;
}

static void madt_add(const uint8_t *e, uint8_t n)
{
	memcpy(mem + MADT_AT + madt_len, e, n);
	madt_len += n;
}

static void madt_lapic(uint8_t uid, uint8_t id, uint32_t flags)
{
	uint8_t e[8] = { 0, 8, uid, id, (uint8_t)flags, (uint8_t)(flags >> 8), 0, 0 };

	madt_add(e, 8);
}

static void madt_x2apic(uint32_t id, uint32_t flags, uint32_t uid)
{
	uint8_t e[16] = { 9, 16 };

	le_st32(e + 4, id);
	le_st32(e + 8, flags);
	le_st32(e + 12, uid);
	madt_add(e, 16);
}

static void madt_close(void)
{
	sdt(MADT_AT, "APIC", madt_len);
}

/*
 * The good set: an RSDP of revision @rev, an RSDT and an XSDT each listing
 * a FACP and the MADT (one CPU), all checksums right.
 */
static void good(unsigned rev)
{
	memset(mem, 0, sizeof(mem));
	w.base = (uintptr_t)mem - (uintptr_t)PHYS;
	w.first = PHYS;
	w.limit = PHYS + sizeof(mem);
	rsdp(rev);
	le_st32(mem + RSDT_AT + 36, (uint32_t)(PHYS + FACP_AT));
	le_st32(mem + RSDT_AT + 40, (uint32_t)(PHYS + MADT_AT));
	sdt(RSDT_AT, "RSDT", 44);
	le_st64(mem + XSDT_AT + 36, PHYS + FACP_AT);
	le_st64(mem + XSDT_AT + 44, PHYS + MADT_AT);
	sdt(XSDT_AT, "XSDT", 52);
	sdt(FACP_AT, "FACP", 116);
	madt_open();
	madt_lapic(0, 0, 1);
	madt_close();
}

static void test_window(void **state)
{
	(void)state;
	good(2);
	assert_ptr_equal(acpi_at(&w, PHYS, 16), mem);
	assert_ptr_equal(acpi_at(&w, PHYS + 0xff0, 16), mem + 0xff0);
	assert_null(acpi_at(&w, PHYS + 0xff1, 16));              /* one byte past the end */
	assert_null(acpi_at(&w, 0, 1));                           /* address 0 is none */
	assert_null(acpi_at(&w, PHYS - 1, 1));                    /* below the window */
	assert_null(acpi_at(&w, UINT64_MAX, 2));                  /* wraps */
	assert_string_equal(acpi_strerror(ACPI_ESUM), "bad checksum");
	assert_string_equal(acpi_strerror(42), "unknown error");
}

static void test_rsdp(void **state)
{
	struct acpi_rsdp r, keep;

	(void)state;
	good(2);
	assert_int_equal(acpi_rsdp_read(&w, PHYS + RSDP_AT, &r), ACPI_OK);
	assert_int_equal(r.revision, 2);
	assert_int_equal(r.rsdt_pa, PHYS + RSDT_AT);
	assert_true(r.xsdt_pa == PHYS + XSDT_AT);
	assert_string_equal(r.oem, "PTLAB ");

	good(0);
	assert_int_equal(acpi_rsdp_read(&w, PHYS + RSDP_AT, &r), ACPI_OK);
	assert_int_equal(r.revision, 0);
	assert_true(r.xsdt_pa == 0);                              /* ACPI 1.0 has no XSDT */

	/* each refusal leaves the result untouched */
	memset(&keep, 0x5a, sizeof(keep));
	r = keep;
	good(2);
	mem[RSDP_AT] = 'r';
	assert_int_equal(acpi_rsdp_read(&w, PHYS + RSDP_AT, &r), ACPI_ESIG);
	good(2);
	mem[RSDP_AT + 16] ^= 1;                                   /* the ACPI 1.0 checksum */
	assert_int_equal(acpi_rsdp_read(&w, PHYS + RSDP_AT, &r), ACPI_ESUM);
	good(2);
	mem[RSDP_AT + 24] ^= 1;                                   /* only the extended checksum */
	assert_int_equal(acpi_rsdp_read(&w, PHYS + RSDP_AT, &r), ACPI_ESUM);
	good(2);
	le_st32(mem + RSDP_AT + 20, 20);                            /* shorter than the 2.0 form */
	assert_int_equal(acpi_rsdp_read(&w, PHYS + RSDP_AT, &r), ACPI_ELEN);
	good(2);
	le_st32(mem + RSDP_AT + 20, 0x2000);                        /* past the window */
	assert_int_equal(acpi_rsdp_read(&w, PHYS + RSDP_AT, &r), ACPI_ELEN);
	assert_int_equal(acpi_rsdp_read(&w, 0, &r), ACPI_ENONE);
	assert_int_equal(acpi_rsdp_read(&w, PHYS + 0xff0, &r), ACPI_ENONE);
	assert_memory_equal(&r, &keep, sizeof(r));
}

static void test_find(void **state)
{
	struct acpi_rsdp r;
	uint64_t pa = 7;
	uint32_t len = 7;

	(void)state;
	/* through the XSDT (revision 2), then through the RSDT (revision 0) */
	for (unsigned rev = 0; rev <= 2; rev += 2) {
		good(rev);
		assert_int_equal(acpi_rsdp_read(&w, PHYS + RSDP_AT, &r), ACPI_OK);
		assert_int_equal(acpi_find(&w, &r, "APIC", &pa, &len), ACPI_OK);
		assert_true(pa == PHYS + MADT_AT);
		assert_int_equal(len, 52);
		assert_int_equal(acpi_find(&w, &r, "FACP", &pa, &len), ACPI_OK);
		assert_true(pa == PHYS + FACP_AT);
		assert_int_equal(acpi_find(&w, &r, "HPET", &pa, &len), ACPI_ENOTFOUND);
		assert_true(pa == PHYS + FACP_AT);                 /* untouched */
	}

	/* the XSDT is the one read when the RSDP names it: break the RSDT, still found */
	good(2);
	acpi_rsdp_read(&w, PHYS + RSDP_AT, &r);
	mem[RSDT_AT + 40] ^= 1;
	assert_int_equal(acpi_find(&w, &r, "APIC", &pa, &len), ACPI_OK);
	mem[XSDT_AT + 44] ^= 1;                                   /* its checksum now fails */
	assert_int_equal(acpi_find(&w, &r, "APIC", &pa, &len), ACPI_ESUM);

	good(2);
	acpi_rsdp_read(&w, PHYS + RSDP_AT, &r);
	memcpy(mem + XSDT_AT, "RSDT", 4);
	assert_int_equal(acpi_find(&w, &r, "APIC", &pa, &len), ACPI_ESIG);
	good(2);
	le_st32(mem + XSDT_AT + 4, 35);                             /* shorter than a header */
	assert_int_equal(acpi_find(&w, &r, "APIC", &pa, &len), ACPI_ELEN);
	good(2);
	le_st32(mem + XSDT_AT + 4, 0x2000);                         /* past the window */
	assert_int_equal(acpi_find(&w, &r, "APIC", &pa, &len), ACPI_ELEN);
	good(2);
	mem[MADT_AT + 40] ^= 1;                                   /* the table found: checksum */
	assert_int_equal(acpi_find(&w, &r, "APIC", &pa, &len), ACPI_ESUM);
	good(2);
	le_st64(mem + XSDT_AT + 44, UINT64_C(0x100000000000));      /* an entry outside: skipped */
	sdt(XSDT_AT, "XSDT", 52);
	assert_int_equal(acpi_find(&w, &r, "APIC", &pa, &len), ACPI_ENOTFOUND);
	good(2);
	sdt(XSDT_AT, "XSDT", 51);                                 /* half an entry: not read */
	assert_int_equal(acpi_find(&w, &r, "APIC", &pa, &len), ACPI_ENOTFOUND);
	assert_int_equal(acpi_find(&w, &r, "FACP", &pa, &len), ACPI_OK);
}

static void test_madt(void **state)
{
	static const uint8_t ioapic[12] = { 1, 12, 2, 0, 0, 0, 0xc0, 0xfe, 24, 0, 0, 0 };
	struct acpi_madt m, keep;
	const uint8_t *t = mem + MADT_AT;

	(void)state;
	good(2);
	madt_open();
	madt_lapic(0, 0, 1);
	madt_add(ioapic, sizeof(ioapic));
	madt_lapic(1, 2, 1);
	madt_lapic(2, 4, 0);                                      /* disabled */
	madt_lapic(3, 6, 2);                                      /* online capable only */
	madt_x2apic(300, 1, 7);
	madt_x2apic(2, 1, 8);                                     /* repeats APIC ID 2 */
	madt_close();
	assert_int_equal(acpi_madt_read(t, madt_len, &m), 3);
	assert_int_equal(m.ncpu, 3);
	assert_int_equal(m.dropped, 1);
	assert_int_equal(m.disabled, 2);
	assert_int_equal(m.cpu[0].apic, 0);
	assert_int_equal(m.cpu[1].apic, 2);
	assert_int_equal(m.cpu[1].uid, 1);
	assert_int_equal(m.cpu[2].apic, 300);
	assert_int_equal(m.cpu[2].uid, 7);
	assert_int_equal(m.lapic_pa, 0xfee00000u);
	assert_int_equal(m.flags, 1);
	assert_int_equal(m.nioapic, 1);
	assert_int_equal(m.ioapic[0].id, 2);
	assert_int_equal(m.ioapic[0].pa, 0xfec00000u);
	assert_int_equal(m.ioapic[0].gsi_base, 24);
	assert_int_equal(acpi_madt_find_apic(&m, 300), 2);
	assert_int_equal(acpi_madt_find_apic(&m, 4), -1);

	/* malformed: refused, the result untouched */
	memset(&keep, 0x5a, sizeof(keep));
	m = keep;
	mem[MADT_AT + 9] ^= 1;                                    /* checksum */
	assert_int_equal(acpi_madt_read(t, madt_len, &m), ACPI_ESUM);
	mem[MADT_AT + 9] ^= 1;
	assert_int_equal(acpi_madt_read(t, madt_len - 1, &m), ACPI_ELEN);   /* beyond the bytes */
	memcpy(mem + MADT_AT, "FACP", 4);
	assert_int_equal(acpi_madt_read(t, madt_len, &m), ACPI_ESIG);
	memcpy(mem + MADT_AT, "APIC", 4);
	assert_int_equal(acpi_madt_read(NULL, 0, &m), ACPI_ENONE);
	madt_open();
	madt_lapic(0, 0, 1);
	mem[MADT_AT + madt_len - 7] = 1;                          /* entry length 1: no walk */
	madt_close();
	assert_int_equal(acpi_madt_read(t, madt_len, &m), ACPI_ELEN);
	madt_open();
	madt_lapic(0, 0, 1);
	mem[MADT_AT + madt_len - 7] = 20;                         /* runs past the table's end */
	madt_close();
	assert_int_equal(acpi_madt_read(t, madt_len, &m), ACPI_ELEN);
	assert_memory_equal(&m, &keep, sizeof(m));

	/* an empty MADT is well formed; more CPUs than kept are counted as dropped */
	madt_open();
	madt_close();
	assert_int_equal(acpi_madt_read(t, madt_len, &m), 0);
	madt_open();
	for (uint32_t i = 0; i < ACPI_MADT_CPUS + 3; i++)
		madt_x2apic(i, 1, i);
	madt_close();
	assert_int_equal(acpi_madt_read(t, madt_len, &m), ACPI_MADT_CPUS);
	assert_int_equal(m.dropped, 3);
	assert_int_equal(m.cpu[ACPI_MADT_CPUS - 1].apic, ACPI_MADT_CPUS - 1);
}

UNIT_MAIN(
	cmocka_unit_test(test_window),
	cmocka_unit_test(test_rsdp),
	cmocka_unit_test(test_find),
	cmocka_unit_test(test_madt))
