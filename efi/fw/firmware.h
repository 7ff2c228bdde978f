/* SPDX-License-Identifier: MIT */
/*
 * What the application ran on: the firmware's identity, Secure Boot state,
 * which runtime services it still offers after ExitBootServices, and the CPU
 * state it handed over.  One "# firmware:" fact line, so a report from a real
 * machine says where it came from.
 */
#ifndef PTLAB_EFI_FIRMWARE_H
#define PTLAB_EFI_FIRMWARE_H

#include <efi.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "report/report.h"

/* EFI_RT_PROPERTIES_TABLE.RuntimeServicesSupported bit (UEFI 2.10 §4.6.2). */
#define FW_RT_SUPPORTED_RESET_SYSTEM	0x0400u

struct fw_info {
	struct cpu_state entry;		/* the CPU as efi_main found it */
	bool gdt_writable;		/* entry GDT in RAM that the tables let us write */
	bool secure_boot, setup_mode;
	bool rt_table;			/* an EFI_RT_PROPERTIES_TABLE exists */
	uint32_t rt_supported;		/* its RuntimeServicesSupported (valid if rt_table) */
};

extern struct fw_info fw_info;

/* Record the entry CPU state: the first thing efi_main does. */
void firmware_capture_entry(void);

/* Variables, configuration tables, the GDT's memory (boot services needed). */
void firmware_probe(EFI_SYSTEM_TABLE *st);

/* The "# firmware:" fact line. */
void firmware_report(struct report *r, EFI_SYSTEM_TABLE *st);

/* Configuration-table GUIDs (UEFI 2.10 §4.6), each defined once, in firmware.c. */
extern const EFI_GUID fw_guid_acpi20, fw_guid_acpi10, fw_guid_smbios, fw_guid_smbios3;
extern const EFI_GUID fw_guid_mat, fw_guid_rt_properties;

/*
 * fw_config_table() - the VendorTable of the system table's configuration
 * table entry with @guid: the first such entry with a non-NULL table, or
 * NULL when there is none.  Boot services or not: it reads only ST.
 */
void *fw_config_table(const EFI_GUID *guid);

/*
 * fw_acpi_rsdp() - the RSDP's address as the configuration table gives it:
 * the ACPI 2.0 entry, else the ACPI 1.0 one, else 0.  Not checked: the
 * ACPI module (acpi/acpi.h) reads and checks it.
 */
uint64_t fw_acpi_rsdp(void);

/*
 * fw_config_entry() - the configuration table's entry @i (0-based): its
 * GUID into @guid, its VendorTable address into @pa.  Return: false past
 * the last entry (@guid and @pa untouched).  It reads only ST, so it
 * serves after ExitBootServices too, as the kernel reads the table.
 */
bool fw_config_entry(unsigned i, EFI_GUID *guid, uint64_t *pa);

/*
 * fw_smbios_vendor() - the SMBIOS type-1 (System Information) Manufacturer
 * string, found through the SMBIOS 3.x entry point, else the 2.x one, as
 * Linux's DMI scan finds it; printable ASCII only, at most @len - 1 bytes.
 * Return: true with @out set, false (@out "") when there is no entry point,
 * no type-1 structure or no such string.
 */
bool fw_smbios_vendor(char *out, size_t len);

/*
 * fw_variable() - the EFI global variable @name's bytes (GetVariable, boot
 * services needed): up to @cap into @out.  Return: the variable's size, 0
 * when it cannot be read or is larger than @cap.
 */
size_t fw_variable(CHAR16 *name, uint8_t *out, size_t cap);

/*
 * Whether runtime ResetSystem may be called after ExitBootServices: false
 * only when the firmware says in its EFI_RT_PROPERTIES_TABLE that it is not
 * supported (no table: the UEFI 2.8 default, every service supported).
 */
bool firmware_runtime_reset_supported(void);

#endif
