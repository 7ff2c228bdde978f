/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the firmware's ACPI tables through acpi_rsdp_read,
 * acpi_find and acpi_madt_read.
 *
 * Input: the bytes of physical memory from PHYS on (the window); the RSDP
 * is at PHYS.  Every answer is judged from the bytes at ACPI 6.5's
 * offsets, read here independently of acpi.c:
 * - acpi_rsdp_read accepts exactly when the signature, the 20-byte
 *   checksum and (revision 2 and later) a length of 36 to 4096 inside the
 *   window with its checksum hold, and then reports the fields as stored;
 * - a table acpi_find returns lies inside the window, has the signature
 *   asked for, a length of at least 36 that sums to zero, and is listed by
 *   the root table (the XSDT when the RSDP names one, else the RSDT);
 * - acpi_madt_read's CPUs are the entries of type 0 and 9 with the Enabled
 *   flag, counted by a walk of this file's own: kept + dropped + disabled
 *   is every CPU entry, no APIC ID is kept twice, each kept one is an
 *   enabled entry's, and the I/O APICs are the first type 1 entries.
 * A refusal leaves the result untouched.  Violations abort().
 */

#include "acpi/acpi.h"

#define FUZZ_NAME "fuzz_acpi"
#include "fuzzkit.h"

#define PHYS UINT64_C(0x1000)

static const uint8_t *mem;
static uint64_t size;

/* Is [pa, pa + n) inside the input? */
static bool in(uint64_t pa, uint64_t n)
{
	return pa >= PHYS && pa - PHYS <= size && n <= size - (pa - PHYS);
}

static const uint8_t *at(uint64_t pa)
{
	return mem + (pa - PHYS);
}

static bool zero_sum(uint64_t pa, uint64_t n)
{
	uint8_t s = 0;

	for (uint64_t i = 0; i < n; i++)
		s = (uint8_t)(s + at(pa)[i]);
	return s == 0;
}

/* The RSDP's verdict from its bytes alone. */
static bool rsdp_good(void)
{
	uint32_t len;

	if (!in(PHYS, 20) || memcmp(at(PHYS), "RSD PTR ", 8) != 0 || !zero_sum(PHYS, 20))
		return false;
	if (at(PHYS)[15] < 2)
		return true;
	if (!in(PHYS, 36))
		return false;
	len = le_ld32(at(PHYS) + 20);
	return len >= 36 && len <= 4096 && in(PHYS, len) && zero_sum(PHYS, len);
}

/* Is @pa an entry of the root table @root (entries of @step bytes)? */
static bool listed(uint64_t root, unsigned step, uint64_t pa)
{
	uint32_t n = le_ld32(at(root) + 4);

	for (uint32_t off = 36; off + step <= n; off += step)
		if ((step == 8 ? le_ld64(at(root) + off) : le_ld32(at(root) + off)) == pa)
			return true;
	return false;
}

static void judge_madt(const uint8_t *t, uint32_t len)
{
	struct acpi_madt m, keep;
	unsigned cpus = 0, ioapics = 0;
	int n;

	memset(&keep, 0xa5, sizeof(keep));
	m = keep;
	n = acpi_madt_read(t, len, &m);
	if (n < 0) {
		FUZZ_CHECK(memcmp(&m, &keep, sizeof(m)) == 0);
		return;
	}
	FUZZ_CHECK((unsigned)n == m.ncpu && m.ncpu <= ACPI_MADT_CPUS);
	FUZZ_CHECK(m.nioapic <= ACPI_MADT_IOAPICS);
	for (uint32_t off = 44; off < len; off += t[off + 1]) {
		const uint8_t *e = t + off;

		FUZZ_CHECK(len - off >= 2 && e[1] >= 2 && e[1] <= len - off);
		if ((e[0] == 0 && e[1] >= 8) || (e[0] == 9 && e[1] >= 16)) {
			cpus++;
		} else if (e[0] == 1 && e[1] >= 12 && ioapics < m.nioapic) {
			FUZZ_CHECK(m.ioapic[ioapics].pa == le_ld32(e + 4));
			FUZZ_CHECK(m.ioapic[ioapics].gsi_base == le_ld32(e + 8));
			ioapics++;
		}
	}
	FUZZ_CHECK(ioapics == m.nioapic);
	FUZZ_CHECK(m.ncpu + m.dropped + m.disabled == cpus);
	for (unsigned i = 0; i < m.ncpu; i++) {
		bool found = false;

		for (unsigned j = 0; j < i; j++)
			FUZZ_CHECK(m.cpu[j].apic != m.cpu[i].apic);
		for (uint32_t off = 44; off < len && !found; off += t[off + 1]) {
			const uint8_t *e = t + off;

			if (e[0] == 0 && e[1] >= 8)
				found = (le_ld32(e + 4) & 1) && e[3] == m.cpu[i].apic &&
					e[2] == m.cpu[i].uid;
			else if (e[0] == 9 && e[1] >= 16)
				found = (le_ld32(e + 8) & 1) && le_ld32(e + 4) == m.cpu[i].apic &&
					le_ld32(e + 12) == m.cpu[i].uid;
		}
		FUZZ_CHECK(found);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct acpi_mem w = { (uintptr_t)data - (uintptr_t)PHYS, PHYS, PHYS + n };
	struct acpi_rsdp r, keep;
	static const char *const sigs[] = { "APIC", "FACP", "HPET" };

	mem = data;
	size = n;
	memset(&keep, 0x5a, sizeof(keep));
	r = keep;
	if (acpi_rsdp_read(&w, PHYS, &r) != ACPI_OK) {
		FUZZ_CHECK(!rsdp_good());
		FUZZ_CHECK(memcmp(&r, &keep, sizeof(r)) == 0);
		return 0;
	}
	FUZZ_CHECK(rsdp_good());
	FUZZ_CHECK(r.revision == at(PHYS)[15]);
	FUZZ_CHECK(r.rsdt_pa == le_ld32(at(PHYS) + 16));
	FUZZ_CHECK(r.xsdt_pa == (r.revision >= 2 ? le_ld64(at(PHYS) + 24) : 0));
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		uint64_t pa = 1;
		uint32_t len = 1;
		uint64_t root = r.xsdt_pa ? r.xsdt_pa : r.rsdt_pa;
		int err = acpi_find(&w, &r, sigs[i], &pa, &len);

		if (err) {
			FUZZ_CHECK(pa == 1 && len == 1);
			continue;
		}
		FUZZ_CHECK(in(root, 36) && in(root, le_ld32(at(root) + 4)));
		FUZZ_CHECK(memcmp(at(root), r.xsdt_pa ? "XSDT" : "RSDT", 4) == 0);
		FUZZ_CHECK(listed(root, r.xsdt_pa ? 8 : 4, pa));
		FUZZ_CHECK(len >= 36 && in(pa, len) && le_ld32(at(pa) + 4) == len);
		FUZZ_CHECK(memcmp(at(pa), sigs[i], 4) == 0 && zero_sum(pa, len));
		if (i == 0)
			judge_madt(at(pa), len);
	}
	return 0;
}
