/* SPDX-License-Identifier: MIT */
/*
 * ACPI, read only: the RSDP, the table with a given signature through the
 * XSDT (or the RSDT), and the CPUs and I/O APICs of the MADT (ACPI 6.5,
 * sections 5.2.5 to 5.2.12).  SMP bring-up, the Linux hand-over and the
 * Limine hand-over all read ACPI through this one module.
 *
 * No firmware calls (firmware-free: in the host archive).  The tables are
 * the firmware's and are not trusted: every address is checked against
 * the window of struct acpi_mem before a byte is read, every length
 * against its table and the limit below, every checksum is summed.
 */
#ifndef PTLAB_EFI_ACPI_H
#define PTLAB_EFI_ACPI_H

#include <stdbool.h>
#include <stdint.h>

#define ACPI_SDT_HEADER     36u            /* a system description table's header */
#define ACPI_TABLE_MAX      (1u << 20)     /* a longer table is refused as malformed */
#define ACPI_MADT_CPUS      64u            /* enabled CPUs kept from a MADT */
#define ACPI_MADT_IOAPICS   8u             /* I/O APICs kept from a MADT */

/*
 * Where physical memory is seen: the byte at physical address pa is at
 * base + pa, for first <= pa and pa + n <= limit.  The firmware's identity
 * map is ACPI_MEM_IDENTITY; a test places its tables in a buffer.
 */
struct acpi_mem {
	uintptr_t base;
	uint64_t first, limit;
};

#define ACPI_MEM_IDENTITY ((struct acpi_mem){ 0, 0, UINT64_MAX })

/* The errors, negative; acpi_strerror() names them. */
enum {
	ACPI_OK = 0,
	ACPI_ENONE = -1,        /* address 0, or outside the window */
	ACPI_ESIG = -2,         /* a signature is not the one expected */
	ACPI_ESUM = -3,         /* a checksum does not sum to zero */
	ACPI_ELEN = -4,         /* a length is too short, too long or past its table */
	ACPI_ENOTFOUND = -5,    /* the root table lists no table with that signature */
};

/* What the RSDP says, after acpi_rsdp_read(). */
struct acpi_rsdp {
	uint8_t revision;       /* 0: ACPI 1.0 (RSDT only); 2 and later: XSDT too */
	uint32_t rsdt_pa;
	uint64_t xsdt_pa;       /* 0 when revision < 2 */
	char oem[7];            /* OEMID, NUL-terminated */
};

struct acpi_cpu {
	uint32_t uid;           /* ACPI processor UID */
	uint32_t apic;          /* local APIC ID (x2APIC ID from a type 9 entry) */
};

struct acpi_ioapic {
	uint32_t id, pa, gsi_base;
};

/* The MADT, after acpi_madt_read(). */
struct acpi_madt {
	uint32_t lapic_pa;                         /* the local APIC address field */
	uint32_t flags;                            /* bit 0: PC-AT compatible 8259s */
	unsigned ncpu;                             /* enabled CPUs kept in cpu[] */
	unsigned dropped;                          /* enabled ones not kept: repeats, or past cpu[] */
	unsigned disabled;                         /* entries neither enabled nor kept */
	unsigned nioapic;
	struct acpi_cpu cpu[ACPI_MADT_CPUS];       /* in the table's order */
	struct acpi_ioapic ioapic[ACPI_MADT_IOAPICS];
};

/* acpi_strerror() - a short phrase for an ACPI_E* code ("bad checksum"). */
const char *acpi_strerror(int err);

/*
 * acpi_at() - the bytes [pa, pa + n) as seen through @m, or NULL when pa
 * is 0 or the range leaves the window [first, limit) (or wraps).
 */
const uint8_t *acpi_at(const struct acpi_mem *m, uint64_t pa, uint64_t n);

/*
 * acpi_rsdp_read() - read and check the RSDP at @pa: its signature, the
 * ACPI 1.0 checksum over 20 bytes and, for revision 2 and later, its
 * length and extended checksum.  Returns ACPI_OK with @r filled, or an
 * error with @r untouched.
 */
int acpi_rsdp_read(const struct acpi_mem *m, uint64_t pa, struct acpi_rsdp *r);

/*
 * acpi_table_check() - check the table at @pa as a system description
 * table: its 36-byte header is in the window, the signature is @sig (4
 * bytes), the length at least the header and at most ACPI_TABLE_MAX, all
 * of it in the window, and the bytes sum to zero.  Returns ACPI_OK with the
 * table's length in *@len, or an error.
 */
int acpi_table_check(const struct acpi_mem *m, uint64_t pa, const char *sig, uint32_t *len);

/*
 * acpi_find() - the first table with signature @sig listed by the root
 * table of @r: the XSDT when the RSDP names one, else the RSDT.  The root
 * table is checked as acpi_table_check() does, and so is the table found.
 * Returns ACPI_OK with its address in *@pa and its length in *@len, or an
 * error (ACPI_ENOTFOUND when no entry has that signature) with both
 * untouched.
 */
int acpi_find(const struct acpi_mem *m, const struct acpi_rsdp *r, const char *sig,
	      uint64_t *pa, uint32_t *len);

/*
 * acpi_madt_read() - the enabled CPUs and the I/O APICs of the MADT in the
 * @len bytes at @t (a checked table: acpi_find() with "APIC").  The whole
 * table is checked first: signature, length at least 44 and at most @len,
 * checksum, and every entry's length at least 2 and inside the table.
 * Processor local APIC entries (type 0) and processor local x2APIC entries
 * (type 9) with the Enabled flag count as CPUs; an APIC ID seen before is
 * dropped; online-capable but not enabled ones are counted as disabled.
 * Returns the number of CPUs kept with @out filled, or an error with
 * @out untouched.
 */
int acpi_madt_read(const uint8_t *t, uint64_t len, struct acpi_madt *out);

/* acpi_madt_find_apic() - the index in @m's cpu[] of APIC ID @apic, or -1. */
int acpi_madt_find_apic(const struct acpi_madt *m, uint32_t apic);

#endif
