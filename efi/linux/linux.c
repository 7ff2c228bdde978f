/* SPDX-License-Identifier: MIT */
/*
 * The Linux boot protocol below the kernel pipeline (core/kernel.c;
 * --kernel with a bzImage, --initrd, --cmdline); the setup header, the
 * zero page and the e820 table are linuxboot.c's (firmware-free).
 *
 * Before ExitBootServices: the setup header judged (linuxboot.c), the
 * protected-mode kernel placed at pref_address when that range is free,
 * else at the lowest kernel_alignment-aligned free range that holds
 * init_size; the initrds read at their size below initrd_addr_max; the
 * zero page and the command line below 4 GiB.  Every page comes from
 * kernel_alloc(), so the frame allocator after hand-off never hands one
 * out and a refusal gives each back.
 *
 * After the checks and the pipeline's rebuild by digest: the CPU reads
 * the kernel's entry and executes in its range through the tables to hand
 * over; the e820 table comes from the final memory map.  Then
 * linux_jump().
 *
 * Firmware calls (before ExitBootServices only): the file protocols
 * (fsfile.c), Secure Boot's verification (verify.c), AllocatePages
 * through kernel_alloc(), the configuration table (fw_config_table: the
 * ACPI RSDP; fw_smbios_vendor), GetVariable (fw_variable) for the facts
 * the kernel's view is compared with.
 */
#include <efi.h>
#include <efilib.h>

#include "lib/efistatus.h"
#include "linux/linux.h"
#include "lib/le.h"
#include "linux/linuxboot.h"
#include "acpi/acpi.h"
#include "linux/lxchecks.h"
#include "linux/lxplace.h"
#include "core/end.h"
#include "core/handoff.h"
#include "core/kalloc.h"
#include "core/kernel.h"
#include "fw/firmware.h"
#include "report/fmt.h"
#include "fw/fsfile.h"
#include "checks/inject.h"
#include "checks/checkkit.h"
#include "fw/verify.h"
#include "report/report.h"
#include "cpu/trap.h"
#include "smp/smp.h"
#include "live/live.h"

#include <ptlab/pte.h>

#define EFIVAR_MAX      64u                   /* bytes of the EFI variable the facts show */
#define RET_OPCODE      0xc3u
#define HDRS_OFF        0x202u
#define HDRS_MAGIC      0x53726448u           /* "HdrS" */
#define BDA_BASE_MEM_KIB 0x413u               /* BIOS data area: base memory size in KiB */

/* The Linux hand-off's state: where its pieces were placed (p->kern.priv, in pages of ours). */
struct lnx {
	uint64_t load_pa;            /* the protected-mode kernel, kernel_alignment aligned */
	uint64_t init_bytes;         /* init_size, page-rounded */
	uint64_t pm_bytes;           /* bytes of it copied from the file */
	uint64_t zero_page_pa;       /* boot_params, then the command line, below 4 GiB */
	uint64_t cmdline_pa;
	uint64_t initrd_pa, initrd_bytes;
	uint64_t ext_pa, ext_cap;    /* the SETUP_E820_EXT node's room (bytes), 0: none */
	uint64_t acpi_rsdp;
	struct lb_e820 *e820;        /* e820_cap entries */
	unsigned e820_cap, e820_n;
	uint8_t entry_bytes[16];     /* the file's bytes at the 64-bit entry */
	struct lb_kernel hdr;        /* its setup header, judged */
	uint8_t *setup;              /* the file's first LB_SETUP_COPY bytes */
	const char *how;             /* "pref_address" or "lowest fit" */
};

/* The hand-off's state of the run's kernel @k. */
static struct lnx *lnx_of(const struct ptlab_kernel *k)
{
	return k->priv;
}

/* The seam of lxplace.c: pages of kernel_alloc() for the run's kernel @ctx. */
static bool fw_at(void *ctx, uint64_t pa, uint64_t bytes)
{
	return kernel_alloc(ctx, AllocateAddress, bytes, &pa) == EFI_SUCCESS;
}

static uint64_t fw_below(void *ctx, uint64_t max, uint64_t bytes)
{
	uint64_t pa = max;

	return kernel_alloc(ctx, AllocateMaxAddress, bytes, &pa) == EFI_SUCCESS ? pa : 0;
}

/* The ACPI 2.0 RSDP, else the 1.0 one; 0 when the firmware has neither. */
/*
 * The RSDP for boot_params (0: none), as the firmware gives it; one that
 * does not read as an RSDP is handed over all the same, with a note.
 */
static uint64_t find_rsdp(struct report *rep)
{
	const struct acpi_mem identity = ACPI_MEM_IDENTITY;
	uint64_t pa = fw_acpi_rsdp();
	struct acpi_rsdp r;
	int err = pa ? acpi_rsdp_read(&identity, pa, &r) : ACPI_OK;

	if (err)
		report_note(rep, "linux: the firmware's RSDP at 0x%llx is malformed (%s): handed "
			    "over as it is", (unsigned long long)pa, acpi_strerror(err));
	return pa;
}

/*
 * The initrds of @o (--initrd) opened on @li's volume, their sizes into
 * @size; false after a failure line on @rep naming the file (an empty one
 * too).  *@n: how many are open (to close, also on failure).
 */
static bool open_initrds(const struct opts *o, EFI_LOADED_IMAGE *li, struct fsfile *f,
			 uint64_t *size, unsigned *n, struct report *rep)
{
	char why[256];

	for (*n = 0; *n < o->ninitrd; (*n)++) {
		if (fsfile_open(li->DeviceHandle, o->initrd[*n], &f[*n], why, sizeof(why)) !=
		    EFI_SUCCESS) {
			report_fail(rep, "linux: initrd %s", why);
			return false;
		}
		size[*n] = f[*n].size;
	}
	return true;
}

/*
 * The @n initrds @f of @o read into their places of @pl (each 4-byte
 * aligned, in the order given, the gaps zero); under Secure Boot each
 * verified (built-in digests) where it was read.  False after a failure
 * line on @rep naming the file.
 */
static bool read_initrds(const struct opts *o, struct fsfile *f, unsigned n,
			 const struct lx_place *pl, struct report *rep, const struct verify_src *src)
{
	char why[256];

	ZeroMem((void *)(uintptr_t)pl->initrd_pa, pl->initrd_bytes);   /* the alignment gaps */
	for (unsigned i = 0; i < n; i++) {
		uint64_t at = pl->initrd_pa + pl->initrd_at[i];

		if (fsfile_read_all(&f[i], (void *)(uintptr_t)at, why, sizeof(why)) != EFI_SUCCESS) {
			report_fail(rep, "linux: initrd %s", why);
			return false;
		}
		if (!kernel_verified(src, "linux", "initrd", o->initrd[i],
				     (const void *)(uintptr_t)at, f[i].size, VERIFY_DIGEST))
			return false;
	}
	if (n > 1)
		for (unsigned i = 0; i < n; i++)
			report_fact(rep, "linux-initrd", "%s at=0x%llx bytes=%llu", o->initrd[i],
				    (unsigned long long)(pl->initrd_pa + pl->initrd_at[i]),
				    (unsigned long long)f[i].size);
	return true;
}

/*
 * The pieces of @k (its header judged) placed by lx_place() for the run
 * @p with @n initrds of @size bytes and @map_cap e820 entries, into @pl;
 * false after a failure line naming the kernel or the initrd.
 */
static bool place(struct ptlab *p, struct lnx *k, const uint64_t *size, unsigned n,
		  unsigned map_cap, struct lx_place *pl)
{
	const struct lx_pages pages = { &p->kern, fw_at, fw_below };
	const struct opts *o = &p->opts;
	char why[256];

	*pl = (struct lx_place){ .map = &p->build.map, .maxphyaddr = p->cpu.caps.maxphyaddr,
				 .initrd_size = size, .ninitrd = n, .e820_cap = map_cap };
	if (lx_place(&pages, &k->hdr, pl, why, sizeof(why)) == LX_PLACE_OK)
		return true;
	if (pl->failed == LX_PIECE_KERNEL)
		report_fail(p->rep, "linux: kernel %s: %s", o->kernel, why);
	else if (pl->failed == LX_PIECE_INITRD && why[0] == '(')
		report_fail(p->rep, "linux: initrd %s%s %s", o->initrd[0], n > 1 ?
			    " and the rest" : "", why);
	else if (pl->failed == LX_PIECE_INITRD)
		report_fail(p->rep, "linux: initrd %s: %s", o->initrd[pl->bad], why);
	else
		report_fail(p->rep, "linux: kernel %s: %s", o->kernel, why);
	return false;
}

/*
 * Before ExitBootServices, what the kernel will find through the system
 * table, as facts for the test inside it: the SMBIOS type-1 manufacturer
 * (/sys/class/dmi/id/sys_vendor) and the PlatformLang variable's bytes
 * (efivarfs), on @rep.
 */
static void report_firmware_view(struct report *rep)
{
	uint8_t var[EFIVAR_MAX];
	char vendor[64], hex[2 * EFIVAR_MAX + 1];
	size_t n = fw_variable(L"PlatformLang", var, sizeof(var));

	for (size_t i = 0; i < n; i++)
		fmt_snprintf(hex + 2 * i, 3, "%02x", var[i]);
	hex[2 * n] = 0;
	fw_smbios_vendor(vendor, sizeof(vendor));
	report_fact(rep, "linux-firmware", "systab=0x%llx sys_vendor=\"%s\" "
		    "efivar=PlatformLang efivar_bytes=%s secure_boot=%u",
		    (unsigned long long)(uintptr_t)ST, vendor, n ? hex : "none",
		    fw_info.secure_boot && !fw_info.setup_mode ? LB_SECURE_BOOT_ENABLED :
		    LB_SECURE_BOOT_DISABLED);
}

/*
 * Before ExitBootServices, after the memory map was normalized: judge the
 * setup header of the kernel file @f (kernel.c read it at its size), read
 * the initrds, place the kernel, the initrds, the zero page and the
 * command line in pages of kernel_alloc().  Under Secure Boot the kernel
 * (a PE image) and the initrds (by the built-in digests) are verified as
 * read, and placed from the bytes verified.  @b: our image and its
 * handle.  @map_cap: memory-map ranges the final map may have.
 * Returns PT_OK, or an error after a failure line naming the file and the
 * reason (kernel.c then gives back every page).
 */
static int linux_load(struct ptlab *p, const struct kernel_file *f, const struct mode_boot *b,
		      unsigned map_cap)
{
	const struct verify_src src = { b->image, b->li->DeviceHandle, p->rep };
	struct ptlab_kernel *kern = &p->kern;
	struct lnx *k;
	const struct opts *o = &p->opts;
	const char *file = (const char *)f->buf;
	uint64_t len = f->len;
	size_t cmdline = fmt_strlen(o->cmdline);
	char why[256];
	uint64_t pa, size[OPTS_INITRD_MAX];
	struct fsfile initrd[OPTS_INITRD_MAX];
	struct lx_place pl;
	unsigned n = 0;
	bool ok;

	if (o->nmodules || o->kaslr) {
		report_fail(p->rep, "linux: kernel %s refused: --module and --kaslr are the Limine "
			    "protocol's; a bzImage takes --initrd", o->kernel);
		return PT_EINVAL;
	}
	if (!kernel_verified(&src, "linux", "kernel", o->kernel, file, len, VERIFY_PE))
		return PT_EINVAL;
	pa = 0;
	if (kernel_alloc(kern, AllocateAnyPages, sizeof(*k), &pa) != EFI_SUCCESS) {
		report_fail(p->rep, "linux: no memory for the hand-off's state");
		return PT_EINVAL;
	}
	k = (struct lnx *)(uintptr_t)pa;
	SetMem(k, sizeof(*k), 0);
	kern->priv = k;
	if (lb_parse((const uint8_t *)file, len, &k->hdr, why, sizeof(why)) != LB_OK ||
	    lb_check_run(&k->hdr, p->opts.levels ? p->opts.levels : p->build.levels,
			 p->cpu.caps.la57, cmdline, why, sizeof(why)) != LB_OK) {
		report_fail(p->rep, "linux: kernel %s refused: %s", o->kernel, why);
		return PT_EINVAL;
	}

	/* the initrds opened first: their sizes are part of the placement */
	ok = open_initrds(o, b->li, initrd, size, &n, p->rep) &&
	     place(p, k, size, n, map_cap, &pl);
	if (ok) {
		k->load_pa = pl.load_pa;
		k->init_bytes = pl.init_bytes;
		k->how = pl.how;
		k->pm_bytes = k->hdr.pm_bytes;
		CopyMem((void *)(uintptr_t)k->load_pa, (void *)(file + k->hdr.pm_offset),
			k->pm_bytes);
		CopyMem(k->entry_bytes, (void *)(file + k->hdr.pm_offset + LB_ENTRY64_OFF),
			sizeof(k->entry_bytes));
		k->setup = (uint8_t *)(uintptr_t)pl.setup_pa;
		CopyMem(k->setup, (void *)file, LB_SETUP_COPY);
		k->initrd_pa = pl.initrd_pa;
		k->initrd_bytes = pl.initrd_bytes;
		ok = read_initrds(o, initrd, n, &pl, p->rep, &src);
	}
	for (unsigned i = 0; i < n; i++)
		fsfile_close(&initrd[i]);
	if (!ok)
		return PT_EINVAL;

	/* the zero page, then the command line (cmd_line_ptr has 32 bits) */
	k->zero_page_pa = pl.zero_page_pa;
	k->cmdline_pa = pl.cmdline_pa;
	ZeroMem((void *)(uintptr_t)k->zero_page_pa, 2 * PT_PAGE_SIZE);
	CopyMem((void *)(uintptr_t)k->cmdline_pa, (void *)o->cmdline, cmdline + 1);
	/* the e820 table and the room for entries past the zero page's 128 */
	k->e820_cap = map_cap;
	k->e820 = (void *)(uintptr_t)pl.e820_pa;
	k->ext_cap = pl.ext_cap;
	k->ext_pa = pl.ext_pa;
	k->acpi_rsdp = find_rsdp(p->rep);
	if (k->hdr.version < LB_RSDP_VERSION)
		report_note(p->rep, "linux: boot protocol %u.%02u has no acpi_rsdp_addr (2.14): the "
			    "kernel finds ACPI through efi_info's system table", k->hdr.version >> 8,
			    k->hdr.version & 0xff);
	report_firmware_view(p->rep);
	report_fact(p->rep, "linux-load", "kernel=%s protocol=%u.%02u xloadflags=0x%x load=0x%llx "
		    "(%s) init_size=0x%x pref_address=0x%llx kernel_alignment=0x%x initrd=0x%llx+0x%llx "
		    "boot_params=0x%llx cmdline_bytes=%llu acpi_rsdp=0x%llx", o->kernel,
		    k->hdr.version >> 8, k->hdr.version & 0xff, k->hdr.xloadflags,
		    (unsigned long long)k->load_pa, k->how, k->hdr.init_size,
		    (unsigned long long)k->hdr.pref_address, k->hdr.kernel_alignment,
		    (unsigned long long)k->initrd_pa, (unsigned long long)k->initrd_bytes,
		    (unsigned long long)k->zero_page_pa, (unsigned long long)cmdline,
		    (unsigned long long)k->acpi_rsdp);
	return PT_OK;
}

/*
 * After the run's plan (run.c): the kernel's W^X exemptions, each made RWX in the
 * identity map and recorded in the run's list (ptlab_wx_identity): its
 * init_size range (the decompressor runs and writes there), and each piece
 * of RAM between page 1 and 640 KiB on its own (the decompressor copies its
 * 32-bit trampoline to RAM there, picked from the e820 table and the BIOS
 * data area, and runs it on these tables), never a reserved range between
 * them.  Returns PT_OK, or the first error after a failure line.
 */
static int linux_plan_exempt(struct ptlab *p)
{
	const struct lnx *k = lnx_of(&p->kern);
	struct pt_range low[PTLAB_WX_EXEMPT_MAX - 1];
	int n, err;

	if (!p->kern.on)
		return PT_OK;
	n = lb_low_ram(&p->build.map, low, PTLAB_WX_EXEMPT_MAX - 1);
	if (n < 0) {
		report_fail(p->rep, "linux: the RAM below 640 KiB is in more than %u pieces, more "
			    "W^X exemptions than the run keeps (%u)", PTLAB_WX_EXEMPT_MAX - 1,
			    PTLAB_WX_EXEMPT_MAX);
		return PT_ECAPACITY;
	}
	err = ptlab_wx_identity(&p->wx, &p->build, p->cpu.caps.pdpe1gb, k->load_pa, k->init_bytes,
				"Linux init_size range");
	for (int i = 0; !err && i < n; i++)
		err = ptlab_wx_identity(&p->wx, &p->build, p->cpu.caps.pdpe1gb, low[i].va,
					low[i].len, "RAM below 640 KiB");
	if (err)
		report_fail(p->rep, "linux: the kernel's W^X exemptions (%u recorded): %s", p->wx.n,
			    pt_strerror(err));
	return err;
}

/* ---- after ExitBootServices ----------------------------------------------------- */

struct probe {
	uint64_t va;
	unsigned want;      /* PT_WRITE | PT_EXEC bits the identity leaf must have */
	const char *what;
};

/* A load from a low address the compiler must not judge (page 0 is mapped here). */
static uint16_t peek16(uint64_t va)
{
	uint16_t v;

	__asm__ volatile("movw (%1), %0" : "=r"(v) : "r"(va) : "memory");
	return v;
}

/*
 * Through the handed-over tables, as the CPU walks them: the kernel's
 * entry bytes read back equal the file's, a 'ret' written at the end of
 * its init_size range is executed, and the first and last byte of the
 * zero page, the command line and the initrd are read.
 */
static int cpu_probe(struct ptlab *p)
{
	const struct lnx *k = lnx_of(&p->kern);
	volatile uint8_t *entry = (volatile uint8_t *)(uintptr_t)(k->load_pa + LB_ENTRY64_OFF);
	volatile uint8_t *slot = (volatile uint8_t *)(uintptr_t)(k->load_pa + k->init_bytes - 16);
	uint8_t saved = *slot;
	unsigned same = 0;
	uint64_t sum = 0;

	for (unsigned i = 0; i < sizeof(k->entry_bytes); i++)
		same += entry[i] == k->entry_bytes[i];
	*slot = RET_OPCODE;
	((void (*)(void))(uintptr_t)slot)();
	*slot = saved;
	sum += peek16(BDA_BASE_MEM_KIB);
	sum += *(volatile uint8_t *)(uintptr_t)k->zero_page_pa;
	sum += *(volatile uint8_t *)(uintptr_t)(k->cmdline_pa + PT_PAGE_SIZE - 1);
	if (k->initrd_bytes) {
		sum += *(volatile uint8_t *)(uintptr_t)k->initrd_pa;
		sum += *(volatile uint8_t *)(uintptr_t)(k->initrd_pa + k->initrd_bytes - 1);
	}
	(void)sum;
	if (same == sizeof(k->entry_bytes))
		check_report(p->rep, &check_linux_entry, true, "linux: on the tables handed over the CPU reads the kernel's 64-bit "
			  "entry as in the file, executes at the end of its init_size range and "
			  "reads the BIOS data area, the zero page, command line and initrd");
	else
		check_report(p->rep, &check_linux_entry, false,
			     "linux: the kernel's entry reads %u of %u bytes as in the file", same,
			     (unsigned)sizeof(k->entry_bytes));
	return 0;
}

/* The identity leaves over [va, va + len) are present with @want and map va to va. */
static bool identity_ok(const struct pt_space *s, uint64_t va, uint64_t len, unsigned want)
{
	for (uint64_t at = va; at < va + len;) {
		struct pt_leaf l;

		if (pt_translate(s, at, &l) != PT_OK || l.pa != at || (l.flags & want) != want)
			return false;
		at = (at & ~(l.size - 1)) + l.size;
	}
	return true;
}

/* Page 0, read/write and no-execute, in @s (the tables to hand over); pt_map's result. */
static int map_page0(struct pt_space *s)
{
	struct pt_flushlist fl;

	return pt_map(s, 0, 0, PT_PAGE_SIZE, PT_WRITE, PT_PAGE_4K, &fl);
}

/* The e820 table @e of @n entries as facts ("# e820:") on @rep. */
static void report_e820(struct report *rep, const struct lb_e820 *e, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		report_fact(rep, "e820", "0x%llx-0x%llx type=%u", (unsigned long long)e[i].addr,
			    (unsigned long long)(e[i].addr + e[i].size - 1), e[i].type);
}

/*
 * A note on @rep for each range of the final map @m whose EFI type has no
 * e820 equivalent (unaccepted memory; types the UEFI spec does not
 * define, which the normalized map counts as a quirk): the kernel gets
 * it as reserved.
 */
static void report_no_e820_equivalent(struct report *rep, const struct pt_memmap *m)
{
	for (unsigned i = 0; i < m->n; i++)
		if (!lb_e820_exact(m->range[i].type))
			report_note(rep, "linux: EFI type %u at 0x%llx-0x%llx has no e820 "
				    "equivalent: passed as reserved", m->range[i].type,
				    (unsigned long long)m->range[i].pa,
				    (unsigned long long)(m->range[i].pa + m->range[i].len - 1));
	if (m->quirks & (1u << PT_QUIRK_UNKNOWN_TYPE))
		report_note(rep, "linux: %u memory-map descriptor(s) of a type the UEFI spec does "
			    "not define have no e820 equivalent: passed as reserved",
			    m->quirk_count[PT_QUIRK_UNKNOWN_TYPE]);
}

/* The configuration tables the facts name; the kernel's names are in the comments. */
static const struct {
	const EFI_GUID *guid;
	const char *name;
} named_tables[] = {
	{ &fw_guid_acpi20, "acpi20" },		/* "ACPI 2.0" */
	{ &fw_guid_acpi10, "acpi" },		/* "ACPI" */
	{ &fw_guid_smbios, "smbios" },		/* "SMBIOS" */
	{ &fw_guid_smbios3, "smbios3" },	/* "SMBIOS 3.0" */
	{ &fw_guid_mat, "mat" },		/* "MEMATTR" */
	{ &fw_guid_rt_properties, "rt_properties" },	/* "RTPROP" */
};

/*
 * After ExitBootServices, nothing of the firmware's changes any more:
 * the configuration tables as the kernel will read them through the
 * system table ("# linux-tables:", each named one with its address, the
 * others counted), and what of the final map is boot-services code or
 * data at or above 1 MiB, with the descriptor that holds the Memory
 * Attributes Table ("# linux-bootsvc:").  The kernel frees boot-services
 * memory after SetVirtualAddressMap but keeps a descriptor it had to
 * reserve something in - the Memory Attributes Table, which the firmware
 * allocates as boot-services data - so the test predicts the amount the
 * kernel says it frees from these.  @m: the map ExitBootServices was
 * called with; the facts go to @rep.
 */
static void report_efi_view(struct report *rep, const struct rawmap *m)
{
	char line[512];
	size_t len = 0;
	unsigned i, other = 0;
	uint64_t pa, mat = 0, bs = 0, mat_start = 0, mat_end = 0;
	uint32_t mat_type = 0;
	EFI_GUID g;

	for (i = 0; fw_config_entry(i, &g, &pa); i++) {
		unsigned k;

		for (k = 0; k < sizeof(named_tables) / sizeof(named_tables[0]); k++)
			if (CompareGuid(&g, (EFI_GUID *)named_tables[k].guid) == 0)
				break;
		if (k == sizeof(named_tables) / sizeof(named_tables[0])) {
			other++;
			continue;
		}
		if (named_tables[k].guid == &fw_guid_mat && !mat)
			mat = pa;
		if (len < sizeof(line))
			len += (size_t)fmt_snprintf(line + len, sizeof(line) - len, " %s=0x%llx",
						    named_tables[k].name, (unsigned long long)pa);
	}
	line[len < sizeof(line) ? len : sizeof(line) - 1] = 0;
	report_fact(rep, "linux-tables", "entries=%u%s other=%u", i, line, other);

	for (uint64_t off = 0; m->desc_size && off + m->desc_size <= m->size; off += m->desc_size) {
		const EFI_MEMORY_DESCRIPTOR *d =
			(const EFI_MEMORY_DESCRIPTOR *)((const uint8_t *)m->buf + off);
		uint64_t start = d->PhysicalStart, end;

		/* a count that overflows the address space describes nothing */
		if (d->NumberOfPages > (UINT64_MAX - start) / PT_PAGE_SIZE)
			continue;
		end = start + d->NumberOfPages * PT_PAGE_SIZE;
		if (mat >= start && mat < end) {
			mat_start = start;
			mat_end = end;
			mat_type = d->Type;
		}
		if ((d->Type == EfiBootServicesCode || d->Type == EfiBootServicesData) &&
		    end > LX_LOW_LIMIT)
			bs += end - (start > LX_LOW_LIMIT ? start : LX_LOW_LIMIT);
	}
	if (mat_end)
		report_fact(rep, "linux-bootsvc", "above_1m_kib=%llu mat=0x%llx "
			    "mat_desc=0x%llx-0x%llx mat_desc_type=%u", (unsigned long long)(bs >> 10),
			    (unsigned long long)mat, (unsigned long long)mat_start,
			    (unsigned long long)(mat_end - 1), mat_type);
	else
		report_fact(rep, "linux-bootsvc", "above_1m_kib=%llu mat=%s",
			    (unsigned long long)(bs >> 10), mat ? "outside-the-map" : "none");
}

/*
 * After the checks and the rebuild (no boot services): page 0 added, the
 * CPU reading and executing through the tables to hand over, the e820
 * table and the zero page.  PT_OK when the jump may follow (every line
 * reported), an error otherwise.
 */
static int linux_prepare_jump(struct ptlab *p)
{
	struct lnx *k = lnx_of(&p->kern);
	struct ptlab_build *b = &p->build;
	struct lb_load ld;
	struct lb_efi efi;
	struct lb_fb fb;
	int err, n;

	/*
	 * Page 0, left out of every checked build as a null guard, is mapped
	 * RW+NX now: the decompressor reads the BIOS data area (0x40e, 0x413)
	 * through the identity map before it loads tables of its own.
	 */
	if (!inject_on(&p->opts, &check_linux_digest)) {
		err = map_page0(&b->space);
		if (err) {
			report_fail(p->rep, "linux: page 0 (the BIOS data area) could not be mapped: %s",
				    pt_strerror(err));
			return PT_EINVAL;
		}
	}
	if (inject_on(&p->opts, &check_linux_mapped)) {
		struct pt_flushlist fl;

		uint64_t mid = k->load_pa + (k->init_bytes / 2 & ~(uint64_t)(PT_PAGE_SIZE - 1));

		if (pt_unmap(&b->space, mid, PT_PAGE_SIZE, 0, &fl) == PT_OK)
			report_note(p->rep, "inject: linux-unmapped planted (page 0x%llx of the kernel's "
				    "range unmapped)", (unsigned long long)mid);
	}
	if (identity_ok(&b->space, k->load_pa, k->init_bytes, PT_WRITE | PT_EXEC) &&
	    identity_ok(&b->space, 0, PT_PAGE_SIZE, PT_WRITE) &&
	    identity_ok(&b->space, k->zero_page_pa, 2 * PT_PAGE_SIZE, PT_WRITE) &&
	    (!k->initrd_bytes || identity_ok(&b->space, k->initrd_pa,
					     pt_align_up(k->initrd_bytes, PT_PAGE_SIZE), 0)))
		check_report(p->rep, &check_linux_mapped, true, "linux: identity mapped: the kernel's init_size range 0x%llx+0x%llx "
			  "RWX, page 0 (BIOS data area, added after the comparison) RW, the zero page "
			  "and command line RW, the initrd", (unsigned long long)k->load_pa,
			  (unsigned long long)k->init_bytes);
	else
		check_report(p->rep, &check_linux_mapped, false, "linux: the kernel's range, page 0, "
			     "the zero page, command line or initrd is not identity mapped as the "
			     "64-bit boot protocol needs");
	if (inject_on(&p->opts, &check_linux_entry)) {
		k->entry_bytes[0] ^= 0xff;
		report_note(p->rep, "inject: linux-entry planted (an entry byte expected flipped)");
	}
	ptlab_live(p, cpu_probe, "linux: the tables handed over");

	n = lb_e820_build(&b->map, k->e820, k->e820_cap);
	if (n < 0 || lb_e820_ext_bytes((unsigned)n) > k->ext_cap) {
		report_fail(p->rep, "linux: the e820 table needs more than %u entries", k->e820_cap);
		return PT_EINVAL;
	}
	report_no_e820_equivalent(p->rep, &b->map);
	/*
	 * efi_info: the map ExitBootServices accepted, unchanged (descriptor
	 * size, version and attributes as the firmware wrote them), in our
	 * LoaderData pages, which the kernel reserves before it allocates;
	 * with the system table it calls SetVirtualAddressMap itself.
	 */
	efi = (struct lb_efi){
		.systab_pa = (uint64_t)(uintptr_t)ST,
		.memmap_pa = (uint64_t)(uintptr_t)p->exit.final_map.buf,
		.memmap_bytes = p->exit.final_map.size,
		.desc_size = (uint32_t)p->exit.final_map.desc_size,
		.desc_version = p->exit.final_map.version,
		.secure_boot = fw_info.secure_boot && !fw_info.setup_mode ? LB_SECURE_BOOT_ENABLED :
			       LB_SECURE_BOOT_DISABLED,
	};
	ld = (struct lb_load){
		.cmdline_pa = k->cmdline_pa,
		.initrd_pa = k->initrd_pa,
		.initrd_bytes = k->initrd_bytes,
		.acpi_rsdp = k->acpi_rsdp,
		.setup_data_pa = k->ext_pa,
		.efi = &efi,
	};
	if (p->fb.ok) {
		fb = (struct lb_fb){
			.base = p->fb.info.base_pa,
			.size = p->fb.info.size,
			.width = p->fb.info.width,
			.height = p->fb.info.height,
			.stride_bytes = p->fb.info.stride * 4,
			.bgr = p->fb.info.format == FB_FORMAT_BGRX,
		};
		ld.fb = &fb;
	}
	lb_fill_params((uint8_t *)(uintptr_t)k->zero_page_pa, k->setup, &k->hdr, &ld, k->e820,
		       (unsigned)n, (uint8_t *)(uintptr_t)k->ext_pa);
	report_e820(p->rep, k->e820, (unsigned)n);
	report_fact(p->rep, "linux-efi", "systab=0x%llx memmap=0x%llx memmap_size=%llu "
		    "desc_size=%u desc_version=%u secure_boot=%u", (unsigned long long)efi.systab_pa,
		    (unsigned long long)efi.memmap_pa, (unsigned long long)efi.memmap_bytes,
		    efi.desc_size, efi.desc_version, efi.secure_boot);
	report_efi_view(p->rep, &p->exit.final_map);
	k->e820_n = (unsigned)n;
	return p->rep->failed || p->aborted ? PT_EINVAL : PT_OK;
}

#define GDT_CODE64 UINT64_C(0x00af9a000000ffff)   /* present, DPL 0, L=1, D=0, execute/read */
#define GDT_DATA   UINT64_C(0x00cf92000000ffff)   /* present, DPL 0, read/write, 4 GiB */

/* __BOOT_CS = 0x10, __BOOT_DS = 0x18 (boot.rst, 64-bit boot protocol) */
#define BOOT_CS    0x10u
#define BOOT_DS    0x18u
static uint64_t boot_gdt[4] __attribute__((aligned(16))) = { 0, 0, GDT_CODE64, GDT_DATA };

/*
 * The jump: the firmware's PAT, CR4 without PGE/SMEP/SMAP/PKE/PCIDE, a
 * GDT with __BOOT_CS 0x10 and __BOOT_DS 0x18, no IDT, the handed-over
 * hierarchy @cr3 in CR3, RSI = @k's zero page, to @k's load address +
 * 0x200.  @caps: the CPU's (whether it has a PAT).
 */
static __attribute__((noreturn)) void linux_jump(const struct cpu_caps *caps,
						 const struct lnx *k, uint64_t cr3)
{
	static struct desc_ptr gdtr;
	struct kernel_jump j = {
		.entry = k->load_pa + LB_ENTRY64_OFF, .cr3 = cr3, .rsi = k->zero_page_pa,
		.gdtr = &gdtr, .cs = BOOT_CS, .ds = BOOT_DS,
	};

	gdtr.limit = sizeof(boot_gdt) - 1;
	gdtr.base = (uint64_t)(uintptr_t)boot_gdt;
	if (caps->pat && fw_info.entry.has_pat) {
		/* the firmware's PAT again */
		cpu_switch_pat(fw_info.entry.pat);
	}
	kernel_jump(&j);
}

/* ---- the protocol ------------------------------------------------------------------ */

/*
 * Every check passed on the tables handed over: the APs back to
 * wait-for-SIPI, the report closed with the kernel's facts, and the jump.
 */
static __attribute__((noreturn)) void hand_to_linux(struct ptlab *p)
{
	const struct lnx *k = lnx_of(&p->kern);
	unsigned parked = smp_handoff_init_aps(p->smp);

	report_fact(p->rep, "linux", "entry=0x%llx load=0x%llx init_size=0x%llx boot_params=0x%llx "
		    "e820=%u initrd=0x%llx+0x%llx levels=%u cpus_parked=%u",
		    (unsigned long long)(k->load_pa + LB_ENTRY64_OFF), (unsigned long long)k->load_pa,
		    (unsigned long long)k->hdr.init_size, (unsigned long long)k->zero_page_pa,
		    k->e820_n, (unsigned long long)k->initrd_pa, (unsigned long long)k->initrd_bytes,
		    p->build.levels, parked);
	handoff_emit_final(p->rep, &p->fb);
	end_say(&p->fb, false, "ptlab: handing over to Linux\n");
	linux_jump(&p->cpu.caps, k, p->build.our_cr3);
}

/* A bzImage: "HdrS" at 0x202 (boot.rst), whatever else it is (a PE image, with the EFI stub). */
static bool is_bzimage(const uint8_t *b, uint64_t len)
{
	return len >= HDRS_OFF + 4 && le_ld32(b + HDRS_OFF) == HDRS_MAGIC;
}

const struct kernel_proto kernel_linux = {
	.name = "linux",
	.format = "a bzImage",
	.magic = "\"HdrS\" at 0x202",
	.recognise = is_bzimage,
	.load = linux_load,
	.plan = linux_plan_exempt,
	.digest_check = &check_linux_digest,
	.prepare = linux_prepare_jump,
	.enter = hand_to_linux,
};
