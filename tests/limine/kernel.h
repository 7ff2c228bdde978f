/* SPDX-License-Identifier: MIT */
/*
 * What the test kernel's files share (tests/limine/kernel.c, the entry
 * state, memory map, paging, modules, framebuffer, SMP and placement
 * checks; fwtables.c, the firmware's tables): the build's constants, the
 * requests and state they read, and the helpers over the memory map.
 */
#ifndef PTLAB_LIMINE_KERNEL_H
#define PTLAB_LIMINE_KERNEL_H

#include "lib.h"
#include "proto.h"

#ifndef BASE_REVISION
#define BASE_REVISION 2
#endif
#ifndef VARIANT
#define VARIANT "unknown"
#endif

#define STACK_SIZE (128 * 1024ULL)
#define MAX_CPUS 64
#define HHDM_4LVL 0xffff800000000000ULL
#define HHDM_5LVL 0xff00000000000000ULL
#define KERNEL_FLOOR 0xffffffff80000000ULL
/* 2020-01-01T00:00:00Z and 2100-01-01T00:00:00Z */
#define TIME_2020 1577836800LL
#define TIME_2100 4102444800LL

/* the internal module: \boot\imod.bin next to the kernel, whose bytes
 * are imod_byte(i) for i < IMOD_SIZE (tests/boot/limine.sh writes it) */
#define IMOD_SIZE 12345u
#define IMOD_CMDLINE "internal module of the test kernel"

/* the registers entry.S saves at entry, in its push order */
struct frame {
	u64 rsp, r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax, rflags;
};

/* entry.S: where the loader's goto_address starts an AP */
void ap_entry(void);

/* kernel.c: the IDT every CPU loads */
extern struct dtr idtr;
/* kernel.c: the HHDM offset and the memory map the loader answered with */
extern u64 hhdm;
extern struct lp_memmap_entry **mm;
extern u64 mm_count;
/* kernel.c: the firmware's table requests (in .limine_requests) */
extern volatile struct lp_req req_rsdp, req_smbios, req_efist, req_efimm, req_time;
extern volatile struct lp_mp_req req_mp;

/* kernel.c: the name of memory map type @t */
const char *type_name(u64 t);
/* kernel.c: the physical address of @va, through the HHDM or the kernel's
 * own mapping */
u64 phys(const volatile void *va);
/* kernel.c: whether [@va, +@len) lies in bootloader-reclaimable memory */
int in_reclaimable(const volatile void *va, u64 len);
/* kernel.c: @r's response, checked for @name (present, mapped, @size
 * bytes readable), or NULL */
void *resp(volatile struct lp_req *r, const char *name, u64 size);
/* fwtables.c: seconds since 1970 by the CMOS clock */
int64_t rtc_now(void);
/* fwtables.c: CMOS register @reg */
u8 cmos(u8 reg);
/* kernel.c: this CPU's local APIC ID */
u64 lapic_id(void);
/* kernel.c: the number given as "@name=N" on the command line, -1 without */
long arg(const char *name);

/* smp.c: the CPUs of the MP response, and the check of them */
extern struct lp_mp_info **cpus;
extern u64 ncpus;
void check_smp(u64 bsp_cr3, u64 bsp_cr4);

/* fwtables.c: the firmware's tables the loader answered with */
void check_efi_st(void);
void check_rsdp(void);
void check_smbios(void);
void check_efi_memmap(void);
void check_boot_time(void);
void check_irqs(void);
void check_a20(void);
/* the CPUs the MADT lists as enabled (or online-capable): (uid, apic id);
 * madt_n -1 until the MADT was read */
extern u32 madt_uid[MAX_CPUS * 2], madt_apic[MAX_CPUS * 2];
extern int madt_n;

#endif
