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
#include "report/fmt.h"

#define PTE_P		(UINT64_C(1) << 0)
#define PTE_W		(UINT64_C(1) << 1)
#define PTE_PS		(UINT64_C(1) << 7)
#define PTE_ADDR	UINT64_C(0x000ffffffffff000)

struct fw_info fw_info;

static EFI_GUID rt_properties_guid = { 0xeb66918a, 0x7eef, 0x402a,
				       { 0x84, 0x2e, 0x93, 0x1d, 0x21, 0xc3, 0x8a, 0xe9 } };

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

			if (pa < d->PhysicalStart || pa - d->PhysicalStart >= d->NumberOfPages * 4096)
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
	for (UINTN i = 0; i < st->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *t = &st->ConfigurationTable[i];

		if (CompareGuid(&t->VendorGuid, &rt_properties_guid) == 0 && t->VendorTable) {
			const struct rt_properties *p = t->VendorTable;

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
