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

/*
 * Whether runtime ResetSystem may be called after ExitBootServices: false
 * only when the firmware says in its EFI_RT_PROPERTIES_TABLE that it is not
 * supported (no table: the UEFI 2.8 default, every service supported).
 */
bool firmware_runtime_reset_supported(void);

#endif
