/* SPDX-License-Identifier: MIT */
/*
 * ACPI, read only: see acpi.h.
 *
 * No firmware calls (firmware-free: in the host archive).
 */
#include <string.h>

#include "acpi/acpi.h"
#include "lib/le.h"

/* the RSDP (ACPI 6.5, 5.2.5.3) */
#define RSDP_V1_BYTES   20u
#define RSDP_V2_BYTES   36u
#define RSDP_OEMID      9u
#define RSDP_REVISION   15u
#define RSDP_RSDT       16u
#define RSDP_LENGTH     20u
#define RSDP_XSDT       24u

/* a system description table's header (5.2.6) */
#define SDT_LENGTH      4u

/* the MADT (5.2.12) */
#define MADT_LAPIC_ADDR 36u
#define MADT_FLAGS      40u
#define MADT_ENTRIES    44u
#define MADT_LAPIC      0u      /* processor local APIC: uid, APIC ID, flags */
#define MADT_IOAPIC     1u      /* I/O APIC: ID, address, GSI base */
#define MADT_X2APIC     9u      /* processor local x2APIC: x2APIC ID, flags, uid */
#define CPU_ENABLED     1u

const char *acpi_strerror(int err)
{
	switch (err) {
	case ACPI_OK:        return "ok";
	case ACPI_ENONE:     return "no table at that address";
	case ACPI_ESIG:      return "wrong signature";
	case ACPI_ESUM:      return "bad checksum";
	case ACPI_ELEN:      return "bad length";
	case ACPI_ENOTFOUND: return "not listed by the root table";
	}
	return "unknown error";
}

const uint8_t *acpi_at(const struct acpi_mem *m, uint64_t pa, uint64_t n)
{
	if (!pa || pa < m->first || pa > m->limit || n > m->limit - pa)
		return NULL;
	return (const uint8_t *)(m->base + (uintptr_t)pa);
}

/* Returns whether the @n bytes at @b are those of @s (no memcmp in the EFI build). */
static bool same(const uint8_t *b, const char *s, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (b[i] != (uint8_t)s[i])
			return false;
	return true;
}

/* Returns whether the @n bytes at @b sum to zero modulo 256. */
static bool sums_to_zero(const uint8_t *b, uint64_t n)
{
	uint8_t sum = 0;

	for (uint64_t i = 0; i < n; i++)
		sum = (uint8_t)(sum + b[i]);
	return sum == 0;
}

int acpi_rsdp_read(const struct acpi_mem *m, uint64_t pa, struct acpi_rsdp *r)
{
	const uint8_t *b = acpi_at(m, pa, RSDP_V1_BYTES);
	uint32_t len;

	if (!b)
		return ACPI_ENONE;
	if (!same(b, "RSD PTR ", 8))
		return ACPI_ESIG;
	if (!sums_to_zero(b, RSDP_V1_BYTES))
		return ACPI_ESUM;
	if (b[RSDP_REVISION] >= 2) {
		if (!(b = acpi_at(m, pa, RSDP_V2_BYTES)))
			return ACPI_ENONE;
		len = le_ld32(b + RSDP_LENGTH);
		if (len < RSDP_V2_BYTES || len > 4096 || !acpi_at(m, pa, len))
			return ACPI_ELEN;
		if (!sums_to_zero(b, len))
			return ACPI_ESUM;
	}
	r->revision = b[RSDP_REVISION];
	r->rsdt_pa = le_ld32(b + RSDP_RSDT);
	r->xsdt_pa = r->revision >= 2 ? le_ld64(b + RSDP_XSDT) : 0;
	memcpy(r->oem, b + RSDP_OEMID, 6);
	r->oem[6] = 0;
	return ACPI_OK;
}

int acpi_table_check(const struct acpi_mem *m, uint64_t pa, const char *sig, uint32_t *len)
{
	const uint8_t *b = acpi_at(m, pa, ACPI_SDT_HEADER);
	uint32_t n;

	if (!b)
		return ACPI_ENONE;
	if (!same(b, sig, 4))
		return ACPI_ESIG;
	n = le_ld32(b + SDT_LENGTH);
	if (n < ACPI_SDT_HEADER || n > ACPI_TABLE_MAX || !acpi_at(m, pa, n))
		return ACPI_ELEN;
	if (!sums_to_zero(b, n))
		return ACPI_ESUM;
	*len = n;
	return ACPI_OK;
}

int acpi_find(const struct acpi_mem *m, const struct acpi_rsdp *r, const char *sig,
	      uint64_t *pa, uint32_t *len)
{
	bool x = r->xsdt_pa != 0;
	uint64_t root = x ? r->xsdt_pa : r->rsdt_pa;
	unsigned step = x ? 8u : 4u;
	const uint8_t *b;
	uint32_t n;
	int err = acpi_table_check(m, root, x ? "XSDT" : "RSDT", &n);

	if (err)
		return err;
	b = acpi_at(m, root, n);
	for (uint32_t off = ACPI_SDT_HEADER; n - off >= step; off += step) {
		uint64_t t = x ? le_ld64(b + off) : le_ld32(b + off);
		const uint8_t *h = acpi_at(m, t, 4);

		if (!h || !same(h, sig, 4))
			continue;
		if ((err = acpi_table_check(m, t, sig, &n)))
			return err;
		*pa = t;
		*len = n;
		return ACPI_OK;
	}
	return ACPI_ENOTFOUND;
}

int acpi_madt_find_apic(const struct acpi_madt *m, uint32_t apic)
{
	for (unsigned i = 0; i < m->ncpu; i++)
		if (m->cpu[i].apic == apic)
			return (int)i;
	return -1;
}

/* Is the MADT in the @len bytes at @t whole: header, checksum, entry walk? */
static int madt_check(const uint8_t *t, uint64_t len, uint32_t *total)
{
	uint32_t n;

	if (!t || len < MADT_ENTRIES)
		return ACPI_ENONE;
	if (!same(t, "APIC", 4))
		return ACPI_ESIG;
	n = le_ld32(t + SDT_LENGTH);
	if (n < MADT_ENTRIES || n > len || n > ACPI_TABLE_MAX)
		return ACPI_ELEN;
	if (!sums_to_zero(t, n))
		return ACPI_ESUM;
	for (uint32_t off = MADT_ENTRIES; off < n; off += t[off + 1])
		if (n - off < 2 || t[off + 1] < 2 || t[off + 1] > n - off)
			return ACPI_ELEN;
	*total = n;
	return ACPI_OK;
}

/* Records the CPU @c of a MADT entry with @flags in @m. */
static void madt_cpu(struct acpi_madt *m, struct acpi_cpu c, uint32_t flags)
{
	if (!(flags & CPU_ENABLED))
		m->disabled++;
	else if (m->ncpu == ACPI_MADT_CPUS || acpi_madt_find_apic(m, c.apic) >= 0)
		m->dropped++;
	else
		m->cpu[m->ncpu++] = c;
}

int acpi_madt_read(const uint8_t *t, uint64_t len, struct acpi_madt *out)
{
	static const struct acpi_madt empty;
	struct acpi_madt m = empty;
	uint32_t total;
	int err = madt_check(t, len, &total);

	if (err)
		return err;
	m.lapic_pa = le_ld32(t + MADT_LAPIC_ADDR);
	m.flags = le_ld32(t + MADT_FLAGS);
	for (uint32_t off = MADT_ENTRIES; off < total; off += t[off + 1]) {
		const uint8_t *e = t + off;

		if (e[0] == MADT_LAPIC && e[1] >= 8)
			madt_cpu(&m, (struct acpi_cpu){ e[2], e[3] }, le_ld32(e + 4));
		else if (e[0] == MADT_X2APIC && e[1] >= 16)
			madt_cpu(&m, (struct acpi_cpu){ le_ld32(e + 12), le_ld32(e + 4) },
				 le_ld32(e + 8));
		else if (e[0] == MADT_IOAPIC && e[1] >= 12 && m.nioapic < ACPI_MADT_IOAPICS)
			m.ioapic[m.nioapic++] = (struct acpi_ioapic){ e[2], le_ld32(e + 4),
								      le_ld32(e + 8) };
	}
	*out = m;
	return (int)m.ncpu;
}
