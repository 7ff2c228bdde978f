/* SPDX-License-Identifier: MIT */
/*
 * The Limine protocol before ExitBootServices (see lmhandoff.c for the whole
 * hand-off): the kernel file judged and its load block placed with the
 * slide applied (--kaslr: RDSEED, RDRAND or EFI_RNG_PROTOCOL), the
 * requests scanned, the modules read, the firmware's answers (RSDP,
 * SMBIOS, system table, time of boot, the framebuffer, the CPUs and I/O
 * APICs of the MADT) taken, and every page the hand-off needs allocated:
 * the responses' buffer, the stacks, the GDT, the APs' park blocks.
 *
 * Firmware calls: through kernel.c the file protocols and AllocatePages;
 * the configuration table, GetTime, EFI_RNG_PROTOCOL.
 */
#include <efi.h>
#include <efilib.h>

#include "acpi/acpi.h"
#include "checks/elsewhere.h"
#include "core/end.h"
#include "core/handoff.h"
#include "core/kalloc.h"
#include "core/kernel.h"
#include "limine/lmhandoff.h"
#include "limine/lmload.h"
#include "limine/lmpark.h"
#include "core/run.h"
#include "checks/checkkit.h"
#include "checks/inject.h"
#include "cpu/trap.h"
#include "fw/firmware.h"
#include "fw/fsfile.h"
#include "fw/owned.h"
#include "fw/verify.h"
#include "lib/ckd.h"
#include "limine/limine.h"
#include "limine/lmelf.h"
#include "limine/lmmap.h"
#include "limine/lmplace.h"
#include "limine/lmplan.h"
#include "limine/lmreq.h"
#include "limine/lmresp.h"
#include "report/fmt.h"
#include "report/report.h"
#include "cpu/claim.h"
#include "smp/smp.h"
#include "live/live.h"

#include <ptlab/pte.h>


static EFI_GUID rng_guid = { 0x3152bca5, 0xeade, 0x433d,
			     { 0x86, 0x2e, 0xc0, 0x1c, 0xdc, 0x29, 0x1f, 0x44 } };

/* EFI_RNG_PROTOCOL (UEFI 2.x, 37.5): GetInfo, then GetRNG. */
typedef struct rng_protocol {
	EFI_STATUS (EFIAPI *get_info)(struct rng_protocol *self, UINTN *size, EFI_GUID *list);
	EFI_STATUS (EFIAPI *get_rng)(struct rng_protocol *self, EFI_GUID *alg, UINTN len,
				     UINT8 *out);
} rng_protocol;

/* The protocol's GDT: null, 16-bit code and data, 32-bit code and data, 64-bit code and data. */
const uint64_t limine_gdt[7] = {
	0,
	UINT64_C(0x00009a000000ffff),   /* 16-bit code: base 0, limit 0xffff, readable */
	UINT64_C(0x000092000000ffff),   /* 16-bit data: writable */
	UINT64_C(0x00cf9a000000ffff),   /* 32-bit code: limit 4 GiB, readable */
	UINT64_C(0x00cf92000000ffff),   /* 32-bit data: writable */
	UINT64_C(0x00af9b000000ffff),   /* 64-bit code (0x28): L=1, readable */
	UINT64_C(0x00cf93000000ffff),   /* 64-bit data (0x30): writable */
};

/* The protocol's PAT: WB WT UC- UC WP WC, then UC- UC in the two it leaves open. */
const uint8_t limine_pat[8] = { PT_PAT_WB, PT_PAT_WT, PT_PAT_UCM, PT_PAT_UC,
				       PT_PAT_WP, PT_PAT_WC, PT_PAT_UCM, PT_PAT_UC };

/* ---- before ExitBootServices: what the firmware knows ----------------------------------- */

static void find_tables(struct lim *l)
{
	l->rsdp = fw_acpi_rsdp();
	l->smbios32 = (uint64_t)(uintptr_t)fw_config_table(&fw_guid_smbios);
	l->smbios64 = (uint64_t)(uintptr_t)fw_config_table(&fw_guid_smbios3);
	l->st = (uint64_t)(uintptr_t)ST;
}

/*
 * The enabled CPUs of the MADT (ACPI processor UID, APIC ID), the BSP
 * among them, and the I/O APICs.  Without a MADT, or with one that is
 * malformed or lacks the BSP: the BSP alone, with a note on @rep.
 */
static void find_cpus(struct lim *l, struct report *rep)
{
	const struct acpi_mem identity = ACPI_MEM_IDENTITY;
	struct acpi_rsdp r;
	struct acpi_madt m;
	uint64_t pa;
	uint32_t len = 0;
	int err = !l->rsdp ? ACPI_ENOTFOUND : acpi_rsdp_read(&identity, l->rsdp, &r);

	if (!err)
		err = acpi_find(&identity, &r, "APIC", &pa, &len);
	if (!err)
		err = acpi_madt_read(acpi_at(&identity, pa, len), len, &m);
	l->bsp_apic = cpu_apic_id();
	l->ncpu = 0;
	l->nioapic = 0;
	if (err >= 0) {
		for (unsigned i = 0; i < m.ncpu && l->ncpu < MAX_CPUS; i++)
			l->cpu[l->ncpu++] = (struct lm_cpu_in){ m.cpu[i].uid, m.cpu[i].apic };
		for (unsigned i = 0; i < m.nioapic && l->nioapic < MAX_IOAPICS; i++)
			l->ioapic[l->nioapic++] = m.ioapic[i].pa;
		if (acpi_madt_find_apic(&m, l->bsp_apic) >= 0)
			return;
	}
	report_note(rep, "limine: %s%s: the SMP response lists the BSP alone",
		    err >= 0 ? "the MADT does not list the BSP" : "no usable MADT: ",
		    err >= 0 ? "" : acpi_strerror(err));
	l->ncpu = 1;
	l->cpu[0] = (struct lm_cpu_in){ 0, l->bsp_apic };
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_of(int64_t y, unsigned m, unsigned d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void boot_time(struct lim *l)
{
	EFI_TIME t;

	if (uefi_call_wrapper(RT->GetTime, 2, &t, NULL) != EFI_SUCCESS || t.Month < 1 ||
	    t.Month > 12 || t.Day < 1 || t.Day > 31)
		return;
	l->boot_time = days_of(t.Year, t.Month, t.Day) * 86400 + t.Hour * 3600 + t.Minute * 60 +
		       t.Second;
	/* the RTC's local time, made UTC when the firmware knows its offset */
	if (t.TimeZone != EFI_UNSPECIFIED_TIMEZONE && t.TimeZone >= -1440 && t.TimeZone <= 1440)
		l->boot_time -= (int64_t)t.TimeZone * 60;
	l->have_time = true;
}

static bool rdrand64(uint64_t *v, bool seed)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned char ok;

		if (seed)
			__asm__ volatile("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok));
		else
			__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok));
		if (ok)
			return true;
	}
	return false;
}

/* 64 random bits for the slide: RDSEED, RDRAND, else EFI_RNG_PROTOCOL; NULL when none. */
static const char *random64(uint64_t *v)
{
	uint32_t r[4];
	rng_protocol *rng = NULL;

	cpuid(7, 0, r);
	if ((r[1] & (1u << 18)) && rdrand64(v, true))
		return "rdseed";
	cpuid(1, 0, r);
	if ((r[2] & (1u << 30)) && rdrand64(v, false))
		return "rdrand";
	if (uefi_call_wrapper(BS->LocateProtocol, 3, &rng_guid, NULL, (void **)&rng) == EFI_SUCCESS &&
	    rng && uefi_call_wrapper(rng->get_rng, 4, rng, NULL, sizeof(*v), (UINT8 *)v) ==
	    EFI_SUCCESS)
		return "EFI_RNG_PROTOCOL";
	return NULL;
}

/* The GOP framebuffer @fb (the run's) as the protocol describes it, with its one mode. */
static void describe_fb(const struct ptlab_fb *fb, struct lim *l)
{
	const struct fb_info *f = &fb->info;
	bool bgr = f->format == FB_FORMAT_BGRX;
	struct lm_video_mode *m = &l->modes[0];

	if (!fb->ok)
		return;
	l->fb = (struct lm_fb_in){
		.pa = f->base_pa, .width = f->width, .height = f->height,
		.pitch = (uint64_t)f->stride * 4, .bpp = 32,
		.red_size = 8, .red_shift = bgr ? 16 : 0,
		.green_size = 8, .green_shift = 8,
		.blue_size = 8, .blue_shift = bgr ? 0 : 16,
		.modes = l->modes, .nmodes = 1,
	};
	*m = (struct lm_video_mode){ .pitch = l->fb.pitch, .width = f->width, .height = f->height,
				     .bpp = 32, .memory_model = LM_FB_RGB,
				     .red_mask_size = 8, .red_mask_shift = l->fb.red_shift,
				     .green_mask_size = 8, .green_mask_shift = 8,
				     .blue_mask_size = 8, .blue_mask_shift = l->fb.blue_shift };
	l->nfb = 1;
}

/* ---- before ExitBootServices: the kernel and its modules ------------------------------- */

/*
 * Pages for @bytes aligned to @align (a power of two), from kernel_alloc()
 * for the run's kernel @k; 0 when none.
 */
static uint64_t alloc_aligned(struct ptlab_kernel *k, uint64_t bytes, uint64_t align)
{
	uint64_t pa = 0, extra = align > PT_PAGE_SIZE ? align - PT_PAGE_SIZE : 0, total;

	if (!ckd_add(&total, bytes, extra) ||
	    kernel_alloc(k, AllocateAnyPages, total, &pa) != EFI_SUCCESS)
		return 0;
	return pt_align_up(pa, align);
}

/* The seam of lmplace.c: pages of kernel_alloc() for the run's kernel @ctx, at their address. */
static uint64_t fw_pages(void *ctx, uint64_t bytes, uint64_t align)
{
	return alloc_aligned(ctx, bytes, align);
}

static uint8_t *fw_at(void *ctx, uint64_t pa)
{
	(void)ctx;
	return (uint8_t *)(uintptr_t)pa;
}

/* Zeroed pages for @bytes from kernel_alloc() for the run's kernel @k; 0 when none. */
static uint64_t alloc_any(struct ptlab_kernel *k, uint64_t bytes)
{
	uint64_t pa = 0;

	if (kernel_alloc(k, AllocateAnyPages, bytes, &pa) != EFI_SUCCESS)
		return 0;
	ZeroMem((void *)(uintptr_t)pa, pt_align_up(bytes, PT_PAGE_SIZE));
	return pa;
}

/* "/PATH" with '\' made '/', for the protocol's file structure. */
static void slash_path(char *dst, size_t cap, const char *src)
{
	size_t n = 0;

	if (src[0] != '\\' && src[0] != '/')
		dst[n++] = '/';
	for (; *src && n + 1 < cap; src++)
		dst[n++] = *src == '\\' ? '/' : *src;
	dst[n] = 0;
}

/*
 * Secure Boot's judgement of the @what read from @path (kernel_verified):
 * an ELF kernel or a module is no PE image, so only the digests built into
 * the signed image admit it.
 */
static bool verified(struct report *rep, const struct mode_boot *b, const char *what,
		     const char *path, const void *buf, uint64_t len)
{
	const struct verify_src src = { b->image, b->li->DeviceHandle, rep };

	return kernel_verified(&src, "limine", what, path, buf, len, VERIFY_DIGEST);
}

/*
 * One module read at its size into pages of ours, judged, and listed with
 * its path and string (copied into @s); its pages recorded in @k, the
 * run's kernel.  False after a failure line on @rep.
 */
static bool add_module(struct ptlab_kernel *k, struct report *rep, struct lim *l,
		       const struct mode_boot *b, struct lim_module *s, const char *file,
		       const char *cmdline)
{
	uint64_t pa, len;

	if (kernel_load_file(k, rep, b->li->DeviceHandle, "module", file, FILE_MAX, &pa, &len) !=
	    EFI_SUCCESS || !verified(rep, b, "module", file, (const void *)(uintptr_t)pa, len))
		return false;
	CopyMem(s->cmdline, (void *)cmdline, fmt_strlen(cmdline) + 1);
	slash_path(s->path, sizeof(s->path), file);
	l->mod[l->nmod++] = (struct lm_file_in){ .pa = pa, .size = len, .path = s->path,
						 .cmdline = s->cmdline };
	return true;
}

/*
 * The internal modules the kernel's module request lists (revision 1), in
 * its order, before --module's: a path with a leading slash from the
 * volume's root, else beside the kernel file.  A missing one that is not
 * marked required is left out with a note; a required one that cannot be
 * loaded, or a compressed one, refuses the kernel.  Their pages are
 * recorded in @k, the run's kernel.  False after a failure line on @rep.
 */
static bool load_internal(struct ptlab_kernel *k, struct report *rep, struct lim *l,
			  const struct mode_boot *b, const char *kpath)
{
	struct lm_internal im[LM_INTERNAL_MAX];
	char why[200], file[OPTS_MODULE_MAX];
	size_t dir = 0;
	int n = lm_internal_modules((const uint8_t *)(uintptr_t)l->block_pa, l->elf.span,
				    l->elf.va, &l->req, im, LM_INTERNAL_MAX, why, sizeof(why));

	if (n < 0) {
		report_fail(rep, "limine: kernel %s refused: %s", kpath, why);
		return false;
	}
	for (size_t i = 0; kpath[i]; i++)
		if (kpath[i] == '\\' || kpath[i] == '/')
			dir = i + 1;
	for (int i = 0; i < n; i++) {
		bool root = im[i].path[0] == '/' || im[i].path[0] == '\\';
		bool required = im[i].flags & LM_INTERNAL_MODULE_REQUIRED;
		size_t pre = root ? 0 : dir, plen = fmt_strlen(im[i].path);
		struct fsfile f;

		if (pre + plen + 1 > sizeof(file)) {
			report_fail(rep, "limine: kernel %s refused: internal module %s: the path "
				    "beside the kernel is longer than %u bytes", kpath, im[i].path,
				    (unsigned)sizeof(file) - 1);
			return false;
		}
		CopyMem(file, (void *)kpath, pre);
		CopyMem(file + pre, im[i].path, plen + 1);
		if (im[i].flags & LM_INTERNAL_MODULE_COMPRESSED) {
			if (!required) {
				report_note(rep, "limine: internal module %s is compressed, which "
					    "ptlab does not support: left out (not required)", file);
				continue;
			}
			report_fail(rep, "limine: kernel %s refused: its required internal module "
				    "%s is compressed, which ptlab does not support", kpath, file);
			return false;
		}
		if (!required) {
			/* a module the kernel can do without: absent, it is left out */
			EFI_STATUS st = fsfile_open(b->li->DeviceHandle, file, &f, why, sizeof(why));

			if (st == EFI_NOT_FOUND) {
				report_note(rep, "limine: internal module %s not found: left out (not "
					    "required)", file);
				continue;
			}
			if (st == EFI_SUCCESS)
				fsfile_close(&f);
		}
		if (!add_module(k, rep, l, b, &l->mod_str[l->nmod], file, im[i].cmdline))
			return false;
		report_fact(rep, "limine-module", "internal=%d path=%s bytes=%llu required=%d",
			    i, file, (unsigned long long)l->mod[l->nmod - 1].size, required);
	}
	return true;
}

/*
 * Every --module of @o read at its size into pages of ours (recorded in
 * @k, the run's kernel) and judged; false after a failure line on @rep.
 */
static bool load_modules(struct ptlab_kernel *k, struct report *rep, const struct opts *o,
			 struct lim *l, const struct mode_boot *b)
{
	for (unsigned i = 0; i < o->nmodules; i++) {
		const char *given = o->module[i];
		char file[OPTS_MODULE_MAX];
		unsigned n = 0;

		while (given[n] && given[n] != ',' && n + 1 < sizeof(file)) {
			file[n] = given[n];
			n++;
		}
		file[n] = 0;
		if (!add_module(k, rep, l, b, &l->mod_str[l->nmod], file,
				given[n] == ',' ? given + n + 1 : ""))
			return false;
	}
	return true;
}

/*
 * Why the run has @levels-level paging, for a refusal of a kernel that
 * does not allow them: "--levels=N" when @o gave it; else the CPU's lack
 * of LA57 (limine_levels() then kept the firmware's 4 levels), or the
 * firmware's paging mode, which the run keeps.
 */
static void levels_cause(const struct opts *o, unsigned levels, char *buf, size_t size)
{
	struct cpu_caps caps;

	cpu_caps_read(&caps);
	if (o->levels)
		fmt_snprintf(buf, size, "--levels=%u", o->levels);
	else if (levels == 4 && !caps.la57)
		fmt_snprintf(buf, size, "the CPU has no LA57, CPUID.(EAX=07H,ECX=0):ECX[16]");
	else
		fmt_snprintf(buf, size, "no --levels: the firmware's paging mode");
}

/*
 * The load block placed (in pages recorded in @k, the run's kernel),
 * written and scanned, with a slide when @o asks for --kaslr; the entry
 * and the paging mode judged against the run's @levels.  false after a
 * failure line on @rep naming the kernel and the reason.
 */
static bool load_kernel(struct ptlab_kernel *k, struct report *rep, const struct opts *o,
			unsigned levels, struct lim *l, const struct kernel_file *f)
{
	const char *path = f->path;
	char why[200], cause[80];
	const struct lm_pages pages = { k, fw_pages, fw_at };
	struct lm_block blk;
	uint64_t rnd = 0;

	if (lm_elf_parse(f->buf, f->len, 0, 0, &l->elf, why, sizeof(why))) {
		report_fail(rep, "limine: kernel %s refused: %s", path, why);
		return false;
	}
	if (o->kaslr && l->elf.type == LM_ET_DYN) {
		uint64_t room = UINT64_C(0) - l->elf.va - l->elf.span;

		l->rng = random64(&rnd);
		if (!l->rng) {
			report_fail(rep, "limine: --kaslr: no random source (no RDSEED, RDRAND or "
				    "EFI_RNG_PROTOCOL)");
			return false;
		}
		room = room < KASLR_RANGE ? room : KASLR_RANGE;
		l->kaslr = room ? rnd % room : 0;
		if (lm_elf_parse(f->buf, f->len, l->kaslr, 0, &l->elf, why, sizeof(why))) {
			report_fail(rep, "limine: kernel %s refused with the slide 0x%llx: %s", path,
				    (unsigned long long)l->kaslr, why);
			return false;
		}
	}
	for (unsigned i = 0; i < l->elf.nseg; i++)
		if ((l->elf.seg[i].flags & (LM_SEG_W | LM_SEG_X)) == (LM_SEG_W | LM_SEG_X)) {
			report_fail(rep, "limine: kernel %s refused: segment %u at 0x%llx is writable "
				    "and executable (ptlab maps every page W^X)", path, i,
				    (unsigned long long)l->elf.seg[i].va);
			return false;
		}
	levels_cause(o, levels, cause, sizeof(cause));
	if (lm_block_place(&pages, f->buf, f->len, &l->elf, levels, cause, &blk, why,
			   sizeof(why))) {
		report_fail(rep, "limine: kernel %s refused: %s", path, why);
		return false;
	}
	l->block_pa = blk.pa;
	l->req = blk.req;
	l->entry = blk.entry;
	CopyMem(l->entry_bytes, blk.entry_bytes, sizeof(l->entry_bytes));
	l->entry_len = blk.entry_len;
	l->paging_mode = blk.paging_mode;
	return true;
}

void lim_describe(const struct opts *o, const struct rawmap *fm, const struct lim *l,
		     struct lm_machine *m, unsigned nmap, uint64_t efi_size, uint64_t desc_size,
		     uint64_t desc_version)
{
	*m = (struct lm_machine){
		.name = "ptlab",
		.version = "1",
		.firmware_type = LM_FIRMWARE_UEFI64,
		.hhdm = l->hhdm,
		.paging_mode = l->paging_mode,
		.fb = &l->fb,
		.nfb = l->nfb,
		.cpu = l->cpu,
		.ncpu = l->ncpu,
		.bsp_lapic_id = l->bsp_apic,
		.smp_flags = l->x2apic ? LM_SMP_X2APIC : 0,
		.map = (const struct lm_memmap_entry *)(uintptr_t)l->map_pa,
		.nmap = nmap,
		.kernel = { .pa = l->kfile_pa, .size = l->kfile_len, .path = l->kpath,
			    .cmdline = o->cmdline },
		.mod = l->mod,
		.nmod = l->nmod,
		.rsdp_pa = l->rsdp,
		.smbios32_pa = l->smbios32,
		.smbios64_pa = l->smbios64,
		.efi_st_pa = l->st,
		.efi_map_pa = (uint64_t)(uintptr_t)fm->buf,
		.efi_map_size = efi_size,
		.efi_desc_size = desc_size,
		.efi_desc_version = desc_version,
		.have_time = l->have_time,
		.boot_time = l->boot_time,
		.kernel_pa = l->block_pa,
		.kernel_va = l->elf.va,
	};
}

int limine_load(struct ptlab *p, const struct kernel_file *f, const struct mode_boot *b,
		unsigned map_cap)
{
	struct lim *l;
	uint64_t pa = alloc_any(&p->kern, sizeof(*l));
	const struct lm_pages pages = { &p->kern, fw_pages, fw_at };
	struct lm_machine m;
	struct lm_place pl;
	char why[160];
	int err;

	if (!pa) {
		report_fail(p->rep, "limine: no memory for the hand-off's state");
		return PT_ENOMEM;
	}
	l = (struct lim *)(uintptr_t)pa;
	p->kern.priv = l;
	if (p->opts.ninitrd) {
		report_fail(p->rep, "limine: kernel %s refused: --initrd is the Linux protocol's; a "
			    "Limine-protocol kernel takes --module", f->path);
		return PT_EINVAL;
	}
	slash_path(l->kpath, sizeof(l->kpath), f->path);
	/* the HHDM where the reference loader puts it for the paging mode: the plan's too */
	l->hhdm = lm_hhdm_offset(p->build.levels);
	p->build.hhdm_base = l->hhdm;
	if (!verified(p->rep, b, "kernel", f->path, f->buf, f->len) ||
	    !load_kernel(&p->kern, p->rep, &p->opts, p->build.levels, l, f))
		return PT_EINVAL;
	if (l->req.unknown)
		report_note(p->rep, "limine: kernel %s: %u request(s) of an identifier ptlab does "
			    "not know, left unanswered as PROTOCOL.md says", f->path, l->req.unknown);
	if (!load_internal(&p->kern, p->rep, l, b, f->path) ||
	    !load_modules(&p->kern, p->rep, &p->opts, l, b))
		return PT_EINVAL;
	find_tables(l);
	find_cpus(l, p->rep);
	boot_time(l);
	describe_fb(&p->fb, l);
	{
		uint32_t r[4];

		cpuid(1, 0, r);
		l->x2apic = lm_has(&l->req, LM_REQ_SMP) &&
			    (l->req.req[LM_REQ_SMP].extra[0] & LM_SMP_X2APIC) &&
			    ((r[2] & (1u << 21)) || (rdmsr(MSR_APIC_BASE) & APIC_BASE_X2));
	}

	/*
	 * The file's copy, the stacks (CPU i's at slot i, the BSP's at slot
	 * ncpu), the GDT and the park blocks, the memory map for the largest
	 * the final one can be, the responses' buffer sized with it.
	 */
	l->kfile_len = f->len;
	l->map_cap = map_cap + MAP_EXTRA;
	pl = (struct lm_place){ .ram = p->build.map.usable_bytes, .ncpu = l->ncpu,
				.kfile_len = f->len, .gdt_head = sizeof(limine_gdt) + 64,
				.park_bytes = LP_BYTES, .map_cap = l->map_cap };
	lim_describe(&p->opts, &p->exit.final_map, l, &m, l->map_cap, p->exit.final_map.cap,
		 sizeof(EFI_MEMORY_DESCRIPTOR), 1);
	err = lm_place(&pages, &l->req, &m, &pl, why, sizeof(why));
	if (err) {
		report_fail(p->rep, "limine: kernel %s refused: %s", f->path, why);
		return err == LM_PLACE_NOMEM ? PT_ENOMEM : PT_EINVAL;
	}
	l->kfile_pa = pl.kfile_pa;
	CopyMem((void *)(uintptr_t)l->kfile_pa, f->buf, f->len);
	l->stack_bytes = pl.stack_bytes;
	l->stacks_pa = pl.stacks_pa;
	l->stacks_len = pl.stacks_len;
	l->gdt_pa = pl.gdt_pa;
	CopyMem((void *)(uintptr_t)l->gdt_pa, (void *)limine_gdt, sizeof(limine_gdt));
	l->map_pa = pl.map_pa;
	l->resp_pa = pl.resp_pa;
	l->resp_len = pl.resp_len;
	l->answer = pl.answer;

	/* the run's PAT: the protocol's layout, so the tables encode their types for it */
	for (unsigned i = 0; i < 8; i++)
		p->build.env.pat.type[i] = limine_pat[i];
	report_fact(p->rep, "limine-load", "kernel=%s type=%s load=0x%llx+0x%llx va=0x%llx "
		    "slide=0x%llx%s%s entry=0x%llx base_revision=%u (asked %llu) requests=0x%x "
		    "levels=%u stack=0x%llx stacks=0x%llx+0x%llx responses=0x%llx+0x%llx "
		    "modules=%u cpus=%u ioapics=%u", p->opts.kernel,
		    l->elf.type == LM_ET_DYN ? "dyn" : "exec", (unsigned long long)l->block_pa,
		    (unsigned long long)l->elf.span, (unsigned long long)l->elf.va,
		    (unsigned long long)l->elf.slide, l->rng ? " from " : "", l->rng ? l->rng : "",
		    (unsigned long long)l->entry, l->req.base_rev, (unsigned long long)l->req.asked,
		    l->req.have, p->build.levels, (unsigned long long)l->stack_bytes,
		    (unsigned long long)l->stacks_pa, (unsigned long long)l->stacks_len,
		    (unsigned long long)l->resp_pa, (unsigned long long)l->resp_len, l->nmod, l->ncpu,
		    l->nioapic);
	return PT_OK;
}
