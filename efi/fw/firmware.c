/* SPDX-License-Identifier: MIT */
/*
 * The firmware's identity, Secure Boot state, runtime-services support and
 * entry CPU state, for the report's "# firmware:" line and the hand-off end.
 *
 * Firmware calls (firmware_probe, with boot services alive): GetVariable
 * (SecureBoot, SetupMode), the configuration table, GetMemoryMap with
 * AllocatePool/FreePool (where the entry GDT lives).  The other functions
 * make none.
 */
#include <efi.h>
#include <efilib.h>

#include "fw/firmware.h"
#include "lib/le.h"
#include "report/fmt.h"

#include <ptlab/pte.h>

#define PTE_P		(UINT64_C(1) << 0)
#define PTE_W		(UINT64_C(1) << 1)
#define PTE_PS		(UINT64_C(1) << 7)
#define PTE_ADDR	UINT64_C(0x000ffffffffff000)

struct fw_info fw_info;

/* the configuration tables' GUIDs gnu-efi names (efiapi.h), then two it does not */
const EFI_GUID fw_guid_acpi20 = ACPI_20_TABLE_GUID;
const EFI_GUID fw_guid_acpi10 = ACPI_TABLE_GUID;
const EFI_GUID fw_guid_smbios = SMBIOS_TABLE_GUID;
const EFI_GUID fw_guid_smbios3 = SMBIOS3_TABLE_GUID;
const EFI_GUID fw_guid_rt_properties = { 0xeb66918a, 0x7eef, 0x402a,
				   { 0x84, 0x2e, 0x93, 0x1d, 0x21, 0xc3, 0x8a, 0xe9 } };
const EFI_GUID fw_guid_mat = { 0xdcfa911d, 0x26eb, 0x469f,
			 { 0xa2, 0x20, 0x38, 0xb7, 0xdc, 0x46, 0x12, 0x20 } };

/* SMBIOS entry points and structures (DMTF DSP0134) */
#define SMBIOS3_TABLE_LEN   0x0c    /* u32: the structure table's maximum size */
#define SMBIOS3_TABLE_PA    0x10    /* u64 */
#define SMBIOS2_TABLE_LEN   0x16    /* u16 */
#define SMBIOS2_TABLE_PA    0x18    /* u32 */
#define SMBIOS_TABLE_MAX    (1u << 20)   /* a larger table is not believed */
#define SMBIOS_TYPE_SYSTEM  1u
#define SMBIOS_TYPE_END     127u
#define SMBIOS_SYS_VENDOR   4u      /* type 1: Manufacturer, a string number */

struct rt_properties {
	UINT16 version;
	UINT16 length;
	UINT32 supported;
};

void firmware_capture_entry(void)
{
	cpu_state_save(&fw_info.entry);
}

static bool variable_byte(EFI_SYSTEM_TABLE *st, CHAR16 *name)
{
	UINT8 v = 0;
	UINTN size = sizeof(v);
	UINT32 attr;

	if (uefi_call_wrapper(st->RuntimeServices->GetVariable, 5, name, &EfiGlobalVariable, &attr,
			      &size, &v) != EFI_SUCCESS || size != 1)
		return false;
	return v == 1;
}

/*
 * Whether the firmware's tables (identity mapped: firmware mode) let a
 * supervisor write at @va: every level writable, or CR0.WP clear.
 */
static bool tables_writable(uint64_t va, const struct cpu_state *s)
{
	unsigned levels = (s->cr4 & CR4_LA57) ? 5 : 4;
	uint64_t table = s->cr3 & PTE_ADDR;
	bool w = true;

	for (unsigned l = levels; l >= 1; l--) {
		uint64_t e = ((volatile uint64_t *)(uintptr_t)table)[(va >> (12 + 9 * (l - 1))) & 511];

		if (!(e & PTE_P))
			return false;
		w = w && (e & PTE_W);
		if (l == 1 || (l <= 3 && (e & PTE_PS)))
			break;
		table = e & PTE_ADDR;
	}
	return w || !(s->cr0 & CR0_WP);
}

/* @pa lies in a memory-map range of RAM (writable memory, not flash or MMIO). */
static bool in_ram(EFI_SYSTEM_TABLE *st, uint64_t pa)
{
	UINTN size = 0, key, dsize = 0;
	UINT32 ver;
	EFI_MEMORY_DESCRIPTOR *map = NULL;
	bool ram = false;

	if (uefi_call_wrapper(st->BootServices->GetMemoryMap, 5, &size, NULL, &key, &dsize,
			      &ver) != EFI_BUFFER_TOO_SMALL || !dsize)
		return false;
	size += 8 * dsize;
	if (uefi_call_wrapper(st->BootServices->AllocatePool, 3, EfiLoaderData, size,
			      (void **)&map) != EFI_SUCCESS)
		return false;
	if (uefi_call_wrapper(st->BootServices->GetMemoryMap, 5, &size, map, &key, &dsize,
			      &ver) == EFI_SUCCESS) {
		for (UINTN off = 0; off + dsize <= size; off += dsize) {
			EFI_MEMORY_DESCRIPTOR *d = (EFI_MEMORY_DESCRIPTOR *)((UINT8 *)map + off);

			if (pa < d->PhysicalStart || pa - d->PhysicalStart >= d->NumberOfPages * PT_PAGE_SIZE)
				continue;
			switch (d->Type) {
			case EfiLoaderCode:
			case EfiLoaderData:
			case EfiBootServicesCode:
			case EfiBootServicesData:
			case EfiRuntimeServicesCode:
			case EfiRuntimeServicesData:
			case EfiConventionalMemory:
			case EfiACPIReclaimMemory:
			case EfiACPIMemoryNVS:
				ram = true;
				break;
			default:
				break;
			}
		}
	}
	uefi_call_wrapper(st->BootServices->FreePool, 1, map);
	return ram;
}

void firmware_probe(EFI_SYSTEM_TABLE *st)
{
	const struct cpu_state *s = &fw_info.entry;

	fw_info.secure_boot = variable_byte(st, L"SecureBoot");
	fw_info.setup_mode = variable_byte(st, L"SetupMode");
	fw_info.rt_table = false;
	{
		const struct rt_properties *p = fw_config_table(&fw_guid_rt_properties);

		if (p) {
			fw_info.rt_table = true;
			fw_info.rt_supported = p->supported;
		}
	}
	/* the whole descriptor table: its first and last byte */
	fw_info.gdt_writable = in_ram(st, s->gdtr.base) &&
			       in_ram(st, s->gdtr.base + s->gdtr.limit) &&
			       tables_writable(s->gdtr.base, s) &&
			       tables_writable(s->gdtr.base + s->gdtr.limit, s);
}

void *fw_config_table(const EFI_GUID *guid)
{
	for (UINTN i = 0; ST && i < ST->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &ST->ConfigurationTable[i];

		if (t->VendorTable && CompareGuid(&t->VendorGuid, (EFI_GUID *)guid) == 0)
			return t->VendorTable;
	}
	return NULL;
}

uint64_t fw_acpi_rsdp(void)
{
	void *t = fw_config_table(&fw_guid_acpi20);

	if (!t)
		t = fw_config_table(&fw_guid_acpi10);
	return (uint64_t)(uintptr_t)t;
}

bool fw_config_entry(unsigned i, EFI_GUID *guid, uint64_t *pa)
{
	if (!ST || i >= ST->NumberOfTableEntries)
		return false;
	*guid = ST->ConfigurationTable[i].VendorGuid;
	*pa = (uint64_t)(uintptr_t)ST->ConfigurationTable[i].VendorTable;
	return true;
}

/*
 * String @idx (1-based) of the structure at @s (formatted length @flen)
 * in the table ending at @end, copied printable into @out.
 */
static bool smbios_string(const uint8_t *s, unsigned flen, const uint8_t *end, unsigned idx,
			  char *out, size_t len)
{
	const uint8_t *c = s + flen;

	for (unsigned n = 1; idx && c < end && *c; n++) {
		const uint8_t *str = c;

		while (c < end && *c)
			c++;
		if (c == end)
			return false;
		if (n == idx) {
			size_t k = 0;

			for (; str < c && k + 1 < len; str++)
				if (*str >= 0x20 && *str < 0x7f && *str != '"' && *str != '\\')
					out[k++] = (char)*str;
			out[k] = 0;
			return true;
		}
		c++;
	}
	return false;
}

bool fw_smbios_vendor(char *out, size_t len)
{
	const uint8_t *ep = fw_config_table(&fw_guid_smbios3), *s, *end;
	uint64_t pa, bytes;

	out[0] = 0;
	if (ep && CompareMem((void *)ep, "_SM3_", 5) == 0) {
		bytes = le_ld32(ep + SMBIOS3_TABLE_LEN);
		pa = le_ld64(ep + SMBIOS3_TABLE_PA);
	} else {
		ep = fw_config_table(&fw_guid_smbios);
		if (!ep || CompareMem((void *)ep, "_SM_", 4) != 0)
			return false;
		bytes = le_ld16(ep + SMBIOS2_TABLE_LEN);
		pa = le_ld32(ep + SMBIOS2_TABLE_PA);
	}
	if (!pa || bytes < 4 || bytes > SMBIOS_TABLE_MAX)
		return false;
	s = (const uint8_t *)(uintptr_t)pa;
	end = s + bytes;
	while (end - s >= 4 && s[0] != SMBIOS_TYPE_END) {
		const uint8_t *next = s + s[1];

		if (s[1] < 4 || next > end)
			return false;
		if (s[0] == SMBIOS_TYPE_SYSTEM)
			return s[1] > SMBIOS_SYS_VENDOR &&
			       smbios_string(s, s[1], end, s[SMBIOS_SYS_VENDOR], out, len);
		/* past the strings: two NULs end them */
		while (next + 1 < end && (next[0] || next[1]))
			next++;
		s = next + 2;
	}
	return false;
}

size_t fw_variable(CHAR16 *name, uint8_t *out, size_t cap)
{
	UINTN size = cap;
	UINT32 attr;

	if (uefi_call_wrapper(RT->GetVariable, 5, name, &EfiGlobalVariable, &attr, &size,
			      out) != EFI_SUCCESS)
		return 0;
	return size;
}

bool firmware_runtime_reset_supported(void)
{
	return !fw_info.rt_table || (fw_info.rt_supported & FW_RT_SUPPORTED_RESET_SYSTEM);
}

void firmware_report(struct report *r, EFI_SYSTEM_TABLE *st)
{
	const struct cpu_state *s = &fw_info.entry;
	char vendor[64];
	unsigned major = st->Hdr.Revision >> 16, minor = st->Hdr.Revision & 0xffff, n = 0;
	char rt[24], uefi[24];

	/* vendor as printable ASCII, quotes and backslashes left out */
	for (const CHAR16 *v = st->FirmwareVendor; v && *v && n + 1 < sizeof(vendor); v++)
		if (*v >= 0x20 && *v < 0x7f && *v != '"' && *v != '\\')
			vendor[n++] = (char)*v;
	vendor[n] = '\0';
	if (fw_info.rt_table)
		fmt_snprintf(rt, sizeof(rt), "0x%x", fw_info.rt_supported);
	else
		fmt_snprintf(rt, sizeof(rt), "none");
	/* UEFI writes 2.10 as minor 100, 2.7 as 70 and 2.3.1 as 31 */
	if (minor % 10)
		fmt_snprintf(uefi, sizeof(uefi), "%u.%u.%u", major, minor / 10, minor % 10);
	else
		fmt_snprintf(uefi, sizeof(uefi), "%u.%u%s", major, minor / 10,
			     minor / 10 < 10 ? "0" : "");
	report_fact(r, "firmware", "vendor=\"%s\" revision=0x%x uefi=%s secure_boot=%s "
		    "setup_mode=%d entry_cr0=0x%llx entry_cr4=0x%llx entry_efer=0x%llx "
		    "entry_pat=0x%llx entry_if=%d tss=%d gdt_writable=%d rt_supported=%s",
		    vendor, st->FirmwareRevision, uefi, fw_info.secure_boot ? "on" : "off", fw_info.setup_mode,
		    (unsigned long long)s->cr0, (unsigned long long)s->cr4,
		    (unsigned long long)s->efer, (unsigned long long)s->pat, s->irq_on,
		    s->tr != 0, fw_info.gdt_writable, rt);
}
