/* SPDX-License-Identifier: MIT */
/*
 * The test kernel's checks of the firmware's tables the loader answered
 * with (PROTOCOL.md: RSDP, SMBIOS, EFI system table, EFI memory map, boot
 * time): each found, mapped, checksummed and consistent with the memory
 * map; the MADT's CPUs for the SMP check; the legacy IRQ routing and A20.
 */
#include "kernel.h"

/* ---- the RTC: seconds since 1970 by the CMOS clock ---- */

u8 cmos(u8 reg)
{
	outb(0x70, reg);
	return inb(0x71);
}

static u64 bcd(u8 v, int binary)
{
	return binary ? v : (u64)(v >> 4) * 10 + (v & 15);
}

int64_t rtc_now(void)
{
	u8 s, m, h, d, mo, y, b;
	int spins, binary;
	int64_t yy, mm_, days, era;
	u64 yoe, doy, doe, hour;

	for (spins = 0; spins < 1000000 && (cmos(0x0a) & 0x80); spins++)
		cpu_relax();
	s = cmos(0);
	m = cmos(2);
	h = cmos(4);
	d = cmos(7);
	mo = cmos(8);
	y = cmos(9);
	b = cmos(0x0b);
	binary = b & 4;
	hour = bcd(h & 0x7f, binary);
	if (!(b & 2) && (h & 0x80))
		hour = (hour % 12) + 12;
	else if (!(b & 2) && hour == 12)
		hour = 0;
	yy = 2000 + (int64_t)bcd(y, binary);
	mm_ = (int64_t)bcd(mo, binary);
	/* days from 1970-01-01 of a proleptic Gregorian date */
	yy -= mm_ <= 2;
	era = yy / 400;
	yoe = (u64)(yy - era * 400);
	doy = (u64)((153 * (mm_ + (mm_ > 2 ? -3 : 9)) + 2) / 5) + bcd(d, binary) - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	days = era * 146097 + (int64_t)doe - 719468;
	return days * 86400 + (int64_t)(hour * 3600 + bcd(m, binary) * 60 + bcd(s, binary));
}

static u8 sum8(const volatile void *p, u64 n)
{
	const volatile u8 *b = p;
	u8 s = 0;

	while (n--)
		s = (u8)(s + *b++);
	return s;
}

/* fw_ptr: a firmware table address from a response as a pointer */
static void *fw_ptr(u64 a)
{
	return (void *)(BASE_REVISION >= 3 && a ? a + hhdm : a);
}

u32 madt_uid[MAX_CPUS * 2], madt_apic[MAX_CPUS * 2];
int madt_n = -1;
static u64 ioapic_pa[8];
static int ioapic_n;

static const u8 *acpi_table(const u8 *rsdp, const char *sig)
{
	int x = rsdp[15] >= 2 && *(const u64 *)(rsdp + 24);
	u64 root = x ? *(const u64 *)(rsdp + 24) : *(const u32 *)(rsdp + 16);
	const u8 *t = (const u8 *)(root + hhdm);
	u32 len, i, w = x ? 8 : 4;

	if (!mapped((u64)t, 36))
		return NULL;
	len = *(const u32 *)(t + 4);
	if (!mapped((u64)t, len) || sum8(t, len))
		return NULL;
	for (i = 36; i + w <= len; i += w) {
		u64 a = x ? *(const u64 *)(t + i) : *(const u32 *)(t + i);
		const u8 *s = (const u8 *)(a + hhdm);

		if (mapped((u64)s, 36) && !memcmp(s, sig, 4) && mapped((u64)s, *(const u32 *)(s + 4)))
			return s;
	}
	return NULL;
}

static void read_madt(const u8 *rsdp)
{
	const u8 *m = acpi_table(rsdp, "APIC");
	u32 len, i;

	if (!check(m && !sum8(m, *(const u32 *)(m + 4)), "ACPI: the MADT found through the RSDP, checksum 0"))
		return;
	len = *(const u32 *)(m + 4);
	madt_n = 0;
	for (i = 44; i + 2 <= len && m[i + 1] >= 2; i += m[i + 1]) {
		u32 uid, id, flags;

		if (m[i] == 0) {
			uid = m[i + 2];
			id = m[i + 3];
			flags = *(const u32 *)(m + i + 4);
		} else if (m[i] == 9) {
			id = *(const u32 *)(m + i + 4);
			flags = *(const u32 *)(m + i + 8);
			uid = *(const u32 *)(m + i + 12);
		} else {
			if (m[i] == 1 && ioapic_n < 8)
				ioapic_pa[ioapic_n++] = *(const u32 *)(m + i + 4);
			continue;
		}
		if ((flags & 3) && madt_n < MAX_CPUS * 2) {
			madt_uid[madt_n] = uid;
			madt_apic[madt_n++] = id;
		}
	}
	say("# madt: %d processors, %d I/O APICs", madt_n, ioapic_n);
}

struct guid {
	u32 a;
	u16 b, c;
	u8 d[8];
};

static const struct guid acpi20_guid = { 0x8868e871, 0xe4f1, 0x11d3, { 0xbc, 0x22, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81 } };
static const struct guid acpi10_guid = { 0xeb9d2d30, 0x2d88, 0x11d3, { 0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d } };
static const struct guid smbios_guid = { 0xeb9d2d31, 0x2d88, 0x11d3, { 0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d } };
static const struct guid smbios3_guid = { 0xf2fd1544, 0x9794, 0x4a2c, { 0x99, 0x2e, 0xe5, 0xbb, 0xcf, 0x20, 0xe3, 0x94 } };

/* the EFI configuration table's entries, physical */
static u64 cfg_acpi20, cfg_acpi10, cfg_smbios, cfg_smbios3;
static int cfg_seen;

void check_efi_st(void)
{
	struct lp_efi_system_table_resp *r = resp(&req_efist, "EFI system table", sizeof(*r));
	const u8 *st;
	u8 copy[128];
	u32 hsize, crc;
	u64 n, i, ct;

	if (!r)
		return;
	st = fw_ptr(r->address);
	if (!check(mapped((u64)st, 120) && *(const u64 *)st == 0x5453595320494249ULL,
		   "EFI system table at %p: signature \"IBI SYST\"", (const void *)st))
		return;
	hsize = *(const u32 *)(st + 12);
	if (hsize <= sizeof(copy) && hsize >= 24) {
		memcpy(copy, st, hsize);
		memset(copy + 16, 0, 4);
		crc = crc32(copy, hsize);
	} else {
		crc = ~*(const u32 *)(st + 16);
	}
	check(crc == *(const u32 *)(st + 16), "EFI system table: header CRC-32 right (0x%x, size %u)",
	      *(const u32 *)(st + 16), hsize);
	check(*(const u64 *)(st + 96) == 0,
	      "EFI system table: BootServices is NULL (boot services were exited)");
	n = *(const u64 *)(st + 104);
	ct = *(const u64 *)(st + 112);
	if (!check(n < 256 && mapped(ct + hhdm, n * 24),
		   "EFI system table: %llu configuration table entries, mapped through the HHDM",
		   (unsigned long long)n))
		return;
	for (i = 0; i < n; i++) {
		const u8 *e = (const u8 *)(ct + hhdm + i * 24);
		u64 a = *(const u64 *)(e + 16);

		if (!memcmp(e, &acpi20_guid, 16))
			cfg_acpi20 = a;
		if (!memcmp(e, &acpi10_guid, 16))
			cfg_acpi10 = a;
		if (!memcmp(e, &smbios_guid, 16))
			cfg_smbios = a;
		if (!memcmp(e, &smbios3_guid, 16))
			cfg_smbios3 = a;
	}
	cfg_seen = 1;
}

void check_rsdp(void)
{
	struct lp_rsdp_resp *r = resp(&req_rsdp, "RSDP", sizeof(*r));
	const u8 *p;
	u64 pa;

	if (!r)
		return;
	p = fw_ptr(r->address);
	if (!check(mapped((u64)p, 20) && !memcmp(p, "RSD PTR ", 8) && !sum8(p, 20),
		   "RSDP at %p: signature \"RSD PTR \", checksum of the first 20 bytes 0", (const void *)p))
		return;
	if (p[15] >= 2)
		check(mapped((u64)p, 36) && *(const u32 *)(p + 20) >= 36 &&
		      !sum8(p, *(const u32 *)(p + 20)), "RSDP revision %u: extended checksum 0", p[15]);
	pa = phys(p);
	if (cfg_seen)
		check(pa == cfg_acpi20 || pa == cfg_acpi10,
		      "RSDP is the EFI configuration table's ACPI entry (pa 0x%llx, table 0x%llx/0x%llx)",
		      (unsigned long long)pa, (unsigned long long)cfg_acpi20, (unsigned long long)cfg_acpi10);
	read_madt(p);
}

void check_smbios(void)
{
	struct lp_smbios_resp *r = resp(&req_smbios, "SMBIOS", sizeof(*r));
	const u8 *e32, *e64;

	if (!r)
		return;
	e32 = fw_ptr(r->entry_32);
	e64 = fw_ptr(r->entry_64);
	say("# smbios: entry_32=%p entry_64=%p", (const void *)e32, (const void *)e64);
	check(e32 || e64, "SMBIOS: at least one entry point");
	if (e32)
		check(mapped((u64)e32, 32) && !memcmp(e32, "_SM_", 4) && e32[5] >= 16 &&
		      mapped((u64)e32, e32[5]) && !sum8(e32, e32[5]),
		      "SMBIOS 32-bit entry point: anchor \"_SM_\", checksum 0");
	if (e64)
		check(mapped((u64)e64, 24) && !memcmp(e64, "_SM3_", 5) && e64[6] >= 24 &&
		      mapped((u64)e64, e64[6]) && !sum8(e64, e64[6]),
		      "SMBIOS 64-bit entry point: anchor \"_SM3_\", checksum 0");
	if (cfg_seen) {
		if (e32)
			check(phys(e32) == cfg_smbios, "SMBIOS 32-bit entry is the EFI configuration table's (0x%llx)",
			      (unsigned long long)cfg_smbios);
		if (e64)
			check(phys(e64) == cfg_smbios3, "SMBIOS 64-bit entry is the EFI configuration table's (0x%llx)",
			      (unsigned long long)cfg_smbios3);
	}
}

void check_efi_memmap(void)
{
	struct lp_efi_memmap_resp *r = resp(&req_efimm, "EFI memory map", sizeof(*r));
	u64 i, j, n, bad = 0, notfree = 0;
	const u8 *m;
	char what[160] = "";

	if (!r)
		return;
	m = r->memmap;
	say("# efi memmap: size=%llu desc_size=%llu version=%llu", (unsigned long long)r->memmap_size,
	    (unsigned long long)r->desc_size, (unsigned long long)r->desc_version);
	if (!check(r->desc_size >= 40 && r->desc_size % 8 == 0 && r->memmap_size &&
		   r->memmap_size % r->desc_size == 0 && r->desc_version == 1 &&
		   mapped((u64)m, r->memmap_size),
		   "EFI memory map: descriptor size >= 40, a multiple of 8, version 1, mapped"))
		return;
	check(in_reclaimable(m, r->memmap_size), "EFI memory map in bootloader-reclaimable memory");
	n = r->memmap_size / r->desc_size;
	for (i = 0; i < n; i++) {
		const u8 *d = m + i * r->desc_size;
		u32 type = *(const u32 *)d;
		u64 start = *(const u64 *)(d + 8), pages = *(const u64 *)(d + 24);

		if (type > 15 || start % PAGE || !pages)
			bad++;
	}
	check(!bad, "EFI memory map: %llu descriptors, types known, page aligned, not empty (%llu not)",
	      (unsigned long long)n, (unsigned long long)bad);
	/* usable and reclaimable memory is what the firmware left free (loader
	 * code and data, boot services code and data, conventional) */
	for (i = 0; i < mm_count; i++) {
		u64 b = mm[i]->base, e = b + mm[i]->length, got = 0;

		if (mm[i]->type != LP_MEM_USABLE && mm[i]->type != LP_MEM_BOOTLOADER_RECLAIMABLE)
			continue;
		for (j = 0; j < n; j++) {
			const u8 *d = m + j * r->desc_size;
			u32 type = *(const u32 *)d;
			u64 s = *(const u64 *)(d + 8), t = s + *(const u64 *)(d + 24) * PAGE;
			u64 lo = s > b ? s : b, hi = t < e ? t : e;

			if ((type == 1 || type == 2 || type == 3 || type == 4 || type == 7) && hi > lo)
				got += hi - lo;
		}
		if (got != e - b) {
			notfree++;
			fmt(what, sizeof(what), ": 0x%llx+0x%llx %s, %llu bytes free in the EFI map",
			    (unsigned long long)b, (unsigned long long)(e - b), type_name(mm[i]->type),
			    (unsigned long long)got);
		}
	}
	check(!notfree, "usable and reclaimable memory is free memory in the EFI memory map%s", what);
}

void check_boot_time(void)
{
	struct lp_boot_time_resp *r = resp(&req_time, "boot time", sizeof(*r));
	int64_t now = rtc_now();

	if (!r)
		return;
	say("# boot time: %lld, RTC now %lld", (long long)r->boot_time, (long long)now);
	check(r->boot_time > TIME_2020 && r->boot_time < TIME_2100, "boot time after 2020 (%lld)",
	      (long long)r->boot_time);
	check(now - r->boot_time >= -2 && now - r->boot_time < 900,
	      "boot time within 15 minutes before the RTC's now (%lld s)", (long long)(now - r->boot_time));
}

/* legacy PIC masked; I/O APIC entries with fixed or lowest-priority
 * delivery masked */
void check_irqs(void)
{
	int i, bad = 0, entries = 0;

	check(inb(0x21) == 0xff && inb(0xa1) == 0xff, "legacy PIC: every IRQ masked (0x%x 0x%x)",
	      inb(0x21), inb(0xa1));
	for (i = 0; i < ioapic_n; i++) {
		volatile u32 *io = (volatile u32 *)(ioapic_pa[i] + hhdm);
		u32 n, k;

		if (!mapped((u64)io, 0x20))
			continue;
		io[0] = 1;
		n = ((io[4] >> 16) & 0xff) + 1;
		for (k = 0; k < n; k++) {
			u32 lo;

			io[0] = 0x10 + 2 * k;
			lo = io[4];
			entries++;
			if (((lo >> 8) & 7) <= 1 && !(lo & (1u << 16)))
				bad++;
		}
	}
	if (ioapic_n)
		check(!bad, "I/O APIC: fixed and lowest-priority entries masked (%d of %d not)", bad, entries);
}

/* A20 open: a word of our own written with the 1 MiB bit of its physical
 * address flipped read back through the HHDM must not change with it
 * (port 0x92 alone does not say: the keyboard controller gates A20 too) */
static volatile u64 a20_probe;

void check_a20(void)
{
	u64 pa = phys(&a20_probe), before;
	volatile u64 *alias = (volatile u64 *)(hhdm + (pa ^ (1ULL << 20)));

	if (pa == ~0ULL || !mapped((u64)alias, 8))
		return (void)check(0, "A20: our probe word (pa 0x%llx) and its 1 MiB alias mapped",
				   (unsigned long long)pa);
	before = *alias;
	a20_probe = ~before;
	check(*alias == before && a20_probe == ~before,
	      "A20 open: a write to pa 0x%llx leaves pa 0x%llx alone", (unsigned long long)pa,
	      (unsigned long long)(pa ^ (1ULL << 20)));
}

