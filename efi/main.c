/* SPDX-License-Identifier: MIT */
/*
 * ptlab: entry point and firmware glue.
 *
 * The run, in order: options; memory map; the plan; a pool of frames; the
 * fresh hierarchy built in it; static checks; live checks with our CR3; the
 * HHDM torn down in pieces; the hierarchy destroyed; the report written to
 * every sink; the end action.  Firmware calls are made here, in sink.c
 * (console, serial, report file), gop.c (the framebuffer) and handoff.c (up
 * to ExitBootServices), always with the firmware's own CR3, GDT and IDT
 * loaded.
 */
#include <efi.h>
#include <efilib.h>

#include "app.h"
#include "churn.h"
#include "firmware.h"
#include "fmt.h"
#include "inject.h"
#include "optcheck.h"
#include "ptlab.h"
#include "runs.h"
#include "serial.h"
#include "sink.h"

#define REPORT_BYTES      (512u * 1024u)
#define MAP_SLACK_DESC    16u         /* room for the map growing by our own allocations */
#define POOL_HEADROOM     1024u       /* frames beyond the plan's tables, for the checks */
#define DATA_BYTES        (8u << 20)  /* the data area test mappings point at */
#define TYPED_BYTES       (64u << 10) /* the churn's typed window (see ptlab.h) */
#define WAIT_SECONDS      60u
#define HANDOFF_ITERATIONS 50000u

/* Linker symbols of gnu-efi's elf_x86_64_efi.lds. */
extern char ImageBase[], _text[], _etext[], _data[], _edata[];

struct ptlab app;
struct report rep;
static EFI_HANDLE image_handle;

/* ---- small helpers ------------------------------------------------------- */

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/*
 * Every piece of EfiLoaderData the app allocates, page-rounded: after
 * ExitBootServices the rest of the loader ranges is free RAM (hand-off).
 */
#define OWNED_MAX 64u
static struct pt_range owned[OWNED_MAX];
static unsigned nowned;
static bool owned_lost;       /* more allocations than slots: trust none */

void app_own(uint64_t pa, uint64_t bytes)
{
	uint64_t a = pa & ~(PT_PAGE_SIZE - 1), b = align_up(pa + bytes, PT_PAGE_SIZE);

	if (nowned == OWNED_MAX) {
		owned_lost = true;
		return;
	}
	owned[nowned].va = a;
	owned[nowned].len = b - a;
	nowned++;
}

unsigned app_owned(const struct pt_range **r, bool *complete)
{
	*r = owned;
	*complete = !owned_lost;
	return nowned;
}

static void *pool_alloc(UINTN bytes)
{
	void *p = NULL;

	if (uefi_call_wrapper(BS->AllocatePool, 3, EfiLoaderData, bytes, &p) != EFI_SUCCESS)
		return NULL;
	app_own((uint64_t)(uintptr_t)p, bytes);
	return p;
}

static void pool_free(void *p)
{
	if (p)
		uefi_call_wrapper(BS->FreePool, 1, p);
}

void app_emit(void)
{
	sink_emit(&rep);
}

/* A line outside the TAP stream (errors before the report starts). */
void app_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void app_say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sink_print(buf);
}


/* ---- options ------------------------------------------------------------------ */

#define CFG_CHUNK  4096u
#define CFG_MAX    (1u << 20)     /* a larger \ptlab.cfg is refused, never cut */

/*
 * Read all of \ptlab.cfg from the boot volume, in chunks, into a
 * NUL-terminated buffer.  Returns EFI_NOT_FOUND when there is no file (no
 * options), another error with @err set when it cannot be read whole.
 */
static EFI_STATUS read_cfg(EFI_LOADED_IMAGE *li, char **out, UINTN *len, char *err, size_t errlen)
{
	EFI_FILE_HANDLE root, file;
	EFI_STATUS st;
	char *buf = NULL;
	UINTN cap = 0, used = 0;

	*out = NULL;
	root = LibOpenRoot(li->DeviceHandle);
	if (!root)
		return EFI_NOT_FOUND;
	st = uefi_call_wrapper(root->Open, 5, root, &file, L"\\ptlab.cfg", EFI_FILE_MODE_READ, 0);
	uefi_call_wrapper(root->Close, 1, root);
	if (st == EFI_NOT_FOUND)
		return st;
	if (st != EFI_SUCCESS) {
		fmt_snprintf(err, errlen, "\\ptlab.cfg cannot be opened: status 0x%llx",
			     (unsigned long long)st);
		return st;
	}
	for (;;) {
		UINTN n;

		if (used == cap) {
			char *bigger, probe;

			if (cap >= CFG_MAX) {
				/* full: only the end of the file may follow */
				n = 1;
				st = uefi_call_wrapper(file->Read, 3, file, &n, &probe);
				if (st == EFI_SUCCESS && n == 0)
					break;
				fmt_snprintf(err, errlen, "\\ptlab.cfg is larger than %u bytes: refused "
					     "rather than cut", CFG_MAX);
				st = EFI_BAD_BUFFER_SIZE;
				break;
			}
			cap = cap ? 2 * cap : 2 * CFG_CHUNK;
			bigger = pool_alloc(cap + 1);
			if (!bigger) {
				fmt_snprintf(err, errlen, "no memory to read \\ptlab.cfg");
				st = EFI_OUT_OF_RESOURCES;
				break;
			}
			if (buf)
				CopyMem(bigger, buf, used);
			pool_free(buf);
			buf = bigger;
		}
		n = cap - used < CFG_CHUNK ? cap - used : CFG_CHUNK;
		st = uefi_call_wrapper(file->Read, 3, file, &n, buf + used);
		if (st != EFI_SUCCESS) {
			fmt_snprintf(err, errlen, "reading \\ptlab.cfg failed at byte %llu: status "
				     "0x%llx", (unsigned long long)used, (unsigned long long)st);
			break;
		}
		if (n == 0)
			break;   /* end of file */
		used += n;
	}
	uefi_call_wrapper(file->Close, 1, file);
	if (st != EFI_SUCCESS) {
		pool_free(buf);
		return st;
	}
	if (!buf) {
		/* an empty file */
		buf = pool_alloc(1);
		if (!buf) {
			fmt_snprintf(err, errlen, "no memory to read \\ptlab.cfg");
			return EFI_OUT_OF_RESOURCES;
		}
	}
	buf[used] = 0;
	*out = buf;
	*len = used;
	return EFI_SUCCESS;
}

/* LoadOptions a boot manager passed that were not meant for us (the report says so). */
static char foreign_opts[128];
static bool cfg_found;

/* A UEFI shell started us: its parameters protocol is on our image handle. */
static bool started_by_shell(EFI_HANDLE image)
{
	static EFI_GUID params = EFI_SHELL_PARAMETERS_PROTOCOL_GUID;
	/* the EFI 1.1 shell's interface protocol */
	static EFI_GUID old_shell = { 0x47c7b223, 0xc42a, 0x11d2,
				      { 0x8e, 0x57, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b } };
	void *iface = NULL;

	return uefi_call_wrapper(BS->HandleProtocol, 3, image, &params, &iface) == EFI_SUCCESS ||
	       uefi_call_wrapper(BS->HandleProtocol, 3, image, &old_shell, &iface) == EFI_SUCCESS;
}

/*
 * 0 to go on; otherwise the status to return, with the reason in @err
 * (printed by the caller with the usage).
 */
static EFI_STATUS parse_options(EFI_LOADED_IMAGE *li, struct opts *o, char *err, size_t errlen)
{
	int r = opts_parse_boot_options(li->LoadOptions, li->LoadOptionsSize,
					started_by_shell(image_handle), o, err, errlen);

	if (r == OPTS_FOREIGN)
		fmt_snprintf(foreign_opts, sizeof(foreign_opts), "%s", err);
	if (r == OPTS_EMPTY || r == OPTS_BINARY || r == OPTS_FOREIGN) {
		UINTN len = 0;
		char *cfg = NULL;
		EFI_STATUS st = read_cfg(li, &cfg, &len, err, errlen);

		if (st != EFI_SUCCESS && st != EFI_NOT_FOUND)
			return EFI_INVALID_PARAMETER;
		if (cfg) {
			cfg_found = true;
			r = opts_parse_ascii(cfg, len, o, err, errlen);
			pool_free(cfg);
		}
	}
	if (r == OPTS_ERROR)
		return EFI_INVALID_PARAMETER;
	if (o->help)
		return EFI_SUCCESS;
	if (opts_validate(o, err, errlen))
		return EFI_INVALID_PARAMETER;
	if (o->mode == OPTS_MODE_HANDOFF) {
		if (!o->end_given)
			o->end = OPTS_END_SHUTDOWN;
		/* all of RAM is ours: a longer churn by default */
		if (!o->iterations_given)
			o->iterations = HANDOFF_ITERATIONS;
	}
	return 0;
}

static void note_earlier(bool at_end);

/*
 * Options refused: nothing runs.  The reason goes to the screen, COM1 and
 * this run's report file, and into the runs variable, so the run the shell
 * may start next says that this one was refused.
 */
static void refuse(const char *err)
{
	char line[300];
	const char *name = runs_file_name(runs_number());

	app_say("ptlab: %s\n", err);
	sink_print(opts_usage());
	fmt_snprintf(line, sizeof(line), "refused: %s", err);
	runs_end(line);
	if (sink_file_open(name, false) == EFI_SUCCESS) {
		fmt_snprintf(line, sizeof(line), "ptlab: %s", err);
		sink_file_write(line);
		sink_file_write("ptlab: refused: the options were not accepted, nothing was run");
		sink_file_close();
	}
	note_earlier(true);
	app_say("ptlab: refused: the options were not accepted, nothing was run (\\%s)\n", name);
}

/* ---- memory map ------------------------------------------------------------------ */

/* GetMemoryMap into @m, growing the buffer on EFI_BUFFER_TOO_SMALL. */
EFI_STATUS app_get_map(struct rawmap *m)
{
	for (unsigned tries = 0; tries < 8; tries++) {
		EFI_STATUS st;

		m->size = m->cap;
		st = uefi_call_wrapper(BS->GetMemoryMap, 5, &m->size, m->buf, &m->key,
				       &m->desc_size, &m->version);
		if (st == EFI_SUCCESS)
			return st;
		if (st != EFI_BUFFER_TOO_SMALL)
			return st;
		pool_free(m->buf);
		/* the pool allocation itself may add descriptors */
		m->cap = m->size + MAP_SLACK_DESC * (m->desc_size ? m->desc_size : 48);
		m->buf = pool_alloc(m->cap);
		if (!m->buf)
			return EFI_OUT_OF_RESOURCES;
	}
	return EFI_BUFFER_TOO_SMALL;
}

void app_dump_raw_map(const struct rawmap *m)
{
	for (UINTN off = 0; off + m->desc_size <= m->size; off += m->desc_size) {
		const EFI_MEMORY_DESCRIPTOR *d = (const void *)((const char *)m->buf + off);

		report_note(&rep, "memmap-raw: type=%u pa=0x%llx pages=0x%llx attr=0x%llx",
			    d->Type, (unsigned long long)d->PhysicalStart,
			    (unsigned long long)d->NumberOfPages, (unsigned long long)d->Attribute);
	}
}

int app_normalize(struct ptlab *p, const struct rawmap *m)
{
	unsigned count = m->desc_size ? (unsigned)(m->size / m->desc_size) : 0;

	p->map.n = 0;
	return pt_memmap_normalize(m->buf, m->size, count, (unsigned)m->desc_size,
				   p->caps.maxphyaddr, &p->map);
}

/* ---- the image --------------------------------------------------------------------- */

static void add_section(struct pt_image *img, uint64_t from, uint64_t to, unsigned flags)
{
	if (to > from && img->nsections < PT_IMAGE_MAX_SECTIONS)
		img->section[img->nsections++] = (struct pt_image_section){ from, to - from, flags };
}

/* Sections from the linker symbols: text RX, data RW, the rest read-only. */
void app_describe_image(struct ptlab *p, EFI_LOADED_IMAGE *li)
{
	struct pt_image *img = &p->image;
	uint64_t base = (uint64_t)(uintptr_t)li->ImageBase;
	uint64_t end = align_up(base + li->ImageSize, PT_PAGE_SIZE);
	uint64_t text = (uint64_t)(uintptr_t)_text, etext = align_up((uintptr_t)_etext, PT_PAGE_SIZE);
	uint64_t data = (uint64_t)(uintptr_t)_data, edata = align_up((uintptr_t)_edata, PT_PAGE_SIZE);

	*img = (struct pt_image){ .base = base, .size = end - base };
	add_section(img, base, text, 0);
	add_section(img, text, etext, PT_EXEC);
	add_section(img, etext, data, 0);
	add_section(img, data, edata, PT_WRITE);
	add_section(img, edata, end, 0);
}

/* ---- TSC ------------------------------------------------------------------------------ */

void app_calibrate_tsc(struct ptlab *p)
{
	uint64_t t0 = rdtsc();

	uefi_call_wrapper(BS->Stall, 1, 10000);
	p->t.tsc_per_us = (rdtsc() - t0) / 10000;
}

/* ---- building ---------------------------------------------------------------------------- */

int app_plan(struct ptlab *p)
{
	struct pt_plan_caps caps = {
		.has_1g = p->caps.pdpe1gb,
		.levels = p->levels,
		.maxphyaddr = p->caps.maxphyaddr,
		.boot_services_gone = p->handoff,
		.mat = p->mat.n ? &p->mat : NULL,
	};
	int err;

	/* the framebuffer, when the map does not describe it: write-combining */
	if (p->fb_extra) {
		caps.extra[0] = (struct pt_plan_extra){ p->fb.base_pa, p->fb_len,
							PT_WRITE | PT_CACHE(PT_CACHE_WC) };
		caps.nextra = 1;
	}
	err = pt_plan_build(&p->map, &p->image, &caps, &p->plan);
	/* the LA57 trampoline's code page: RX in the identity map */
	return err ? err : la57_plan_fixup(p);
}

int app_setup_pool(struct ptlab *p)
{
	EFI_PHYSICAL_ADDRESS pa = 0;
	struct pt_range r;
	uint64_t frames = p->plan.min_total + POOL_HEADROOM;
	size_t bytes;

	if (p->la57_tramp) {
		/* the roots are loaded with paging off: below 4 GiB */
		if (la57_pool_alloc(p, frames, &pa) != PT_OK)
			return PT_ENOMEM;
	} else if (uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData, frames,
				     &pa) != EFI_SUCCESS) {
		return PT_ENOMEM;
	}
	app_own(pa, frames * PT_PAGE_SIZE);
	p->pool_pa = pa;
	p->pool_frames = frames;
	r.va = pa;
	r.len = frames * PT_PAGE_SIZE;
	bytes = pt_frames_bitmap_bytes(&r, 1);
	return pt_frames_init(&p->frames, &r, 1, pool_alloc(bytes), bytes, p->env.phys_to_virt, p);
}

/* The data area: DATA_BYTES, 2 MiB aligned, in our own LoaderData pages. */
/*
 * Place the data area in a GiB that is all RAM, when the map has one, so
 * 1 GiB test leaves may map that GiB write-back and write only inside the
 * data area: free conventional pages there are taken with AllocateAddress.
 */
static bool data_in_ram_gib(struct ptlab *p, UINTN pages, EFI_PHYSICAL_ADDRESS *out)
{
	if (!p->caps.pdpe1gb)
		return false;
	for (unsigned i = 0; i < p->map.n; i++) {
		const struct pt_mem_range *r = &p->map.range[i];
		uint64_t gib = align_up(r->pa, PT_SIZE_1G);

		for (; gib + PT_SIZE_1G <= r->pa + r->len; gib += PT_SIZE_1G) {
			if (!ptlab_range_is_ram(p, gib, PT_SIZE_1G))
				continue;
			for (uint64_t pa = gib + PT_SIZE_1G - pages * PT_PAGE_SIZE; pa >= gib;
			     pa -= PT_SIZE_2M) {
				EFI_PHYSICAL_ADDRESS a = pa;

				if (pa < r->pa || pa + pages * PT_PAGE_SIZE > r->pa + r->len)
					break;
				if (uefi_call_wrapper(BS->AllocatePages, 4, AllocateAddress,
						      EfiLoaderData, pages, &a) == EFI_SUCCESS) {
					*out = a;
					return true;
				}
			}
		}
	}
	return false;
}

/*
 * The churn's typed window: frames of our own outside the GiB the churn maps
 * with 1 GiB write-back leaves, so those leaves and the window's UC/WT
 * mappings never meet on one frame (they would be refused, and 1 GiB leaves
 * would starve).  Without such frames the churn makes no typed mappings.
 */
static void setup_typed(struct ptlab *p)
{
	EFI_PHYSICAL_ADDRESS pa = 0;
	UINTN pages = TYPED_BYTES / PT_PAGE_SIZE;
	EFI_STATUS st;

	p->typed_len = 0;
	st = uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData, pages, &pa);
	if (st == EFI_SUCCESS && p->big_ok && pa < p->big_pa + PT_SIZE_1G &&
	    pa + TYPED_BYTES > p->big_pa) {
		uefi_call_wrapper(BS->FreePages, 2, pa, pages);
		pa = p->big_pa - 1;
		st = p->big_pa > TYPED_BYTES + (1u << 20) ?
			uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress, EfiLoaderData,
					  pages, &pa) : EFI_NOT_FOUND;
	}
	if (st != EFI_SUCCESS) {
		report_note(p->rep, "churn: no frames of our own outside the 1 GiB leaves' GiB for "
			    "UC/WT mappings: the churn maps write-back only");
		return;
	}
	app_own(pa, TYPED_BYTES);
	p->typed_pa = pa;
	p->typed_len = TYPED_BYTES;
	p->typed_alloc = pa;
}

int app_setup_data(struct ptlab *p)
{
	EFI_PHYSICAL_ADDRESS pa = 0;
	UINTN pages = (DATA_BYTES + PT_SIZE_2M) / PT_PAGE_SIZE;

	if (!data_in_ram_gib(p, pages, &pa) &&
	    uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData, pages, &pa) !=
	    EFI_SUCCESS)
		return PT_ENOMEM;
	app_own(pa, pages * PT_PAGE_SIZE);
	p->data_pa = align_up(pa, PT_SIZE_2M);
	p->data_len = DATA_BYTES;
	p->big_pa = p->data_pa & ~(PT_SIZE_1G - 1);
	/* a WB 1 GiB leaf over MMIO, a hole or reserved memory is a bug class of its own */
	p->big_ok = p->caps.pdpe1gb && ptlab_range_is_ram(p, p->big_pa, PT_SIZE_1G);
	p->data_alloc = pa;
	p->data_pages = pages;
	setup_typed(p);
	return PT_OK;
}

void app_run_churn(struct ptlab *p)
{
	uint64_t t0 = rdtsc();

	churn_start(p);
	while (!p->aborted && churn_running()) {
		ptlab_live(p, churn_slice, "churn");
		churn_progress(p, ptlab_us(p, rdtsc() - t0));
		app_emit();
	}
	if (!p->aborted) {
		ptlab_live(p, churn_finish, "churn cleanup");
		churn_merge_back(p);
	}
	p->t.churn = rdtsc() - t0;
}

void app_report_facts(struct ptlab *p, const struct rawmap *m)
{
	report_fact(&rep, "cpu", "pdpe1gb=%d nx=%d maxphyaddr=%u la57=%d smep=%d smap=%d pge=%d "
		    "hypervisor=%d levels=%u", p->caps.pdpe1gb, p->caps.nx, p->caps.maxphyaddr,
		    p->caps.la57_enabled, p->caps.smep, p->caps.smap, p->caps.pge, p->caps.hypervisor,
		    p->levels);
	report_fact(&rep, "memmap", "descriptors=%u descriptor_size=%u ranges=%u usable_bytes=%llu "
		    "quirks=0x%x", (unsigned)(m->size / m->desc_size), (unsigned)m->desc_size,
		    p->map.n, (unsigned long long)p->map.usable_bytes, p->map.quirks | p->plan.quirks);
	for (unsigned q = 0; q < PT_QUIRK_COUNT; q++)
		if ((p->map.quirks | p->plan.quirks) & (1u << q))
			report_fact(&rep, "quirk", "%s count=%u", pt_quirk_name(q), p->map.quirk_count[q]);
	report_fact(&rep, "plan", "entries=%u identity_bytes=%llu hhdm_bytes=%llu image_bytes=%llu",
		    p->plan.n, (unsigned long long)p->plan.identity_bytes,
		    (unsigned long long)p->plan.hhdm_bytes, (unsigned long long)p->plan.image_bytes);
	report_fact(&rep, "tables", "pml5=%llu pml4=%llu pdpt=%llu pd=%llu pt=%llu total=%llu "
		    "minimum=%llu", (unsigned long long)p->tables_built[4],
		    (unsigned long long)p->tables_built[3], (unsigned long long)p->tables_built[2],
		    (unsigned long long)p->tables_built[1], (unsigned long long)p->tables_built[0],
		    (unsigned long long)(p->tables_built[0] + p->tables_built[1] + p->tables_built[2] +
					 p->tables_built[3] + p->tables_built[4]),
		    (unsigned long long)p->plan.min_total);
	report_fact(&rep, "leaves", "4k=%llu 2m=%llu 1g=%llu", (unsigned long long)p->space.stats.leaves[0],
		    (unsigned long long)p->space.stats.leaves[1],
		    (unsigned long long)p->space.stats.leaves[2]);
}

int app_dump_leaf(void *arg, const struct pt_leaf *l)
{
	(void)arg;
	report_note(&rep, "leaf: va=0x%llx pa=0x%llx size=0x%llx flags=%s%s%s%s cache=%u",
		    (unsigned long long)l->va, (unsigned long long)l->pa, (unsigned long long)l->size,
		    "r", l->flags & PT_WRITE ? "w" : "-", l->flags & PT_EXEC ? "x" : "-",
		    l->flags & PT_USER ? "u" : "-", (unsigned)PT_CACHE_OF(l->flags));
	return 0;
}

/*
 * --raise (test only): prove the recovery paths.  gp: a non-canonical load;
 * badstack: a push with RSP pointing at unmapped memory (the #PF arrives on
 * its own IST stack); timeout: a loop that only the --timeout deadline ends.
 */
int app_raise(struct ptlab *p)
{
	switch (p->opts.raise) {
	case OPTS_RAISE_GP:
		return (int)*(volatile uint64_t *)(uintptr_t)UINT64_C(0x8000000000000000);
	case OPTS_RAISE_BADSTACK:
		__asm__ volatile("mov %0, %%rsp\n\tpushq $0" : : "r"(PTLAB_UNMAPPED_VA + 0x1000) : "memory");
		return 0;
	case OPTS_RAISE_TIMEOUT:
		while (!ptlab_deadline_passed(p))
			__asm__ volatile("pause");
		return 0;
	case OPTS_RAISE_LA57_WINDOW:
	case OPTS_RAISE_LA57_ROOT_HIGH:
		/* these act in the LA57 switch: reaching here means no switch happened */
		report_fail(&rep, "raise: --raise=%s needs a switch of paging levels (--levels=5 "
			    "on a CPU with LA57)", p->opts.raise == OPTS_RAISE_LA57_WINDOW ?
			    "la57-window" : "la57-root-high");
		return 0;
	default:
		return 0;
	}
}

/*
 * --fragment (test only): scatter single runtime-code pages through a free
 * range before the map is read, so the map (and the plan: RX between RW+NX)
 * has many small pieces.  Returns how many pages it took.
 */
#define FRAGMENT_PAGES 400u
static EFI_PHYSICAL_ADDRESS fragment_pa[FRAGMENT_PAGES];

static unsigned fragment_map(const struct rawmap *m, uint64_t floor)
{
	unsigned n = 0;

	for (UINTN off = 0; off + m->desc_size <= m->size && !n; off += m->desc_size) {
		const EFI_MEMORY_DESCRIPTOR *d = (const void *)((const char *)m->buf + off);

		if (d->Type != EfiConventionalMemory || d->NumberOfPages < 4 * FRAGMENT_PAGES ||
		    d->PhysicalStart < floor)
			continue;
		for (unsigned i = 0; i < FRAGMENT_PAGES; i++) {
			EFI_PHYSICAL_ADDRESS pa = d->PhysicalStart + (uint64_t)(3 * i + 1) * PT_PAGE_SIZE;

			if (uefi_call_wrapper(BS->AllocatePages, 4, AllocateAddress,
					      EfiRuntimeServicesCode, 1, &pa) == EFI_SUCCESS)
				fragment_pa[n++] = pa;
		}
	}
	return n;
}

static void fragment_free(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		uefi_call_wrapper(BS->FreePages, 2, fragment_pa[i], 1);
}

static int hold_here(struct ptlab *p)
{
	(void)p;
	cpu_halt();
}

void app_report_frames_and_time(struct ptlab *p, uint64_t t0)
{
	la57_report_end(p);
	if (p->frames.in_use == 0 && p->frames.allocated == p->frames.freed)
		report_ok(&rep, "frames: every frame taken was returned (%llu)",
			  (unsigned long long)p->frames.allocated);
	else
		report_fail(&rep, "frames: allocated=%llu freed=%llu in use=%llu",
			    (unsigned long long)p->frames.allocated, (unsigned long long)p->frames.freed,
			    (unsigned long long)p->frames.in_use);
	report_fact(&rep, "frames", "allocated=%llu freed=%llu leaked=%llu pool=%llu peak=%llu",
		    (unsigned long long)p->frames.allocated, (unsigned long long)p->frames.freed,
		    (unsigned long long)p->frames.in_use, (unsigned long long)p->pool_frames,
		    (unsigned long long)p->frames.peak);
	p->t.total = rdtsc() - t0;
	{
		uint64_t mapped = p->plan.identity_bytes + p->plan.hhdm_bytes + p->plan.image_bytes;
		uint64_t checks_us = ptlab_us(p, p->t.checks + p->t.churn);
		uint64_t checks = rep.tests + churn_samples();

		report_fact(&rep, "time", "plan_us=%llu build_us=%llu checks_us=%llu churn_us=%llu "
			    "teardown_us=%llu total_us=%llu build_us_per_gib=%llu checks_per_s=%llu "
			    "tsc_mhz=%llu", (unsigned long long)ptlab_us(p, p->t.plan),
			    (unsigned long long)ptlab_us(p, p->t.build),
			    (unsigned long long)ptlab_us(p, p->t.checks),
			    (unsigned long long)ptlab_us(p, p->t.churn),
			    (unsigned long long)ptlab_us(p, p->t.teardown),
			    (unsigned long long)ptlab_us(p, p->t.total),
			    (unsigned long long)(mapped ? ptlab_us(p, p->t.build) * PT_SIZE_1G / mapped : 0),
			    (unsigned long long)(checks_us ? checks * 1000000 / checks_us : 0),
			    (unsigned long long)p->t.tsc_per_us);
	}
}

/*
 * Build the plan into a fresh hierarchy and run every check on it, then tear
 * it down: the part of a run both modes share.  Firmware needed only in
 * firmware mode (through ptlab_live's switches).
 */
void app_build_and_check(struct ptlab *p, const struct rawmap *mp)
{
	const struct rawmap m = *mp;
	uint64_t t;
	int err;

	if (p->opts.fail_alloc)
		pt_frames_fail_nth(&p->frames, p->opts.fail_alloc);

	t = rdtsc();
	err = pt_create(&p->space, &p->env, p->levels);
	if (!err)
		err = pt_plan_apply(&p->space, &p->plan);
	p->t.build = rdtsc() - t;
	if (err) {
		report_fail(&rep, "build: the plan could not be applied: %s (frames in use %llu)",
			    pt_strerror(err), (unsigned long long)p->frames.in_use);
		if (p->space.root_pa)
			pt_destroy(&p->space);
		return;
	}
	inject_begin(p, OPTS_INJECT_EXTRA_TABLE, 0);   /* taken back after the count's check */
	for (unsigned l = 0; l < 5; l++)
		p->tables_built[l] = p->space.stats.tables[l];
	p->our_cr3 = p->space.root_pa;
	/* a fact: the build's failure is the not-ok line above; what it built is checked later */
	report_fact(&rep, "build", "%u plan entries mapped into a fresh %u-level hierarchy",
		    p->plan.n, p->levels);
	app_report_facts(p, &m);
	report_fact(&rep, "cr3", "firmware=0x%llx built=0x%llx", (unsigned long long)p->fw_cr3,
		    (unsigned long long)p->our_cr3);
	if (p->opts.dump) {
		for (unsigned i = 0; i < p->plan.n; i++) {
			const struct pt_plan_entry *e = &p->plan.entry[i];
			static const char *const kind[] = { "identity", "hhdm", "image" };

			report_note(&rep, "plan-entry: va=0x%llx pa=0x%llx len=0x%llx kind=%s "
				    "flags=%s%s%s cache=%u max=%s type=%u",
				    (unsigned long long)e->va, (unsigned long long)e->pa,
				    (unsigned long long)e->len, kind[e->kind],
				    e->flags & PT_WRITE ? "w" : "-", e->flags & PT_EXEC ? "x" : "-",
				    e->flags & PT_USER ? "u" : "-", (unsigned)PT_CACHE_OF(e->flags),
				    e->max_size == PT_PAGE_1G ? "1G" : e->max_size == PT_PAGE_2M ? "2M" : "4K",
				    e->efi_type);
		}
		if (p->opts.dump == OPTS_DUMP_LEAVES)
			pt_visit(&p->space, 0, 0, app_dump_leaf, NULL);
		ptlab_dump_tables(p);
	}
	/* after hand-off the firmware's tables are gone: audited before leaving */
	if (!p->handoff) {
		ptlab_audit_firmware(p);
		ptlab_dump_firmware(p);
	}
	ptlab_check_static(p);
	app_emit();

	la57_check_ready(p);
	t = rdtsc();
	if (!p->aborted)
		ptlab_live(p, ptlab_check_live, "live checks");
	if (!p->aborted)
		ptlab_live(p, ptlab_check_cpu, "cpu checks");
	if (!p->aborted)
		smp_run(p);
	p->t.checks = rdtsc() - t;
	app_emit();
	if (p->opts.raise && !p->aborted)
		ptlab_live(p, app_raise, "raise");
	if (!p->aborted)
		app_run_churn(p);
	if (p->opts.hold && !p->aborted) {
		report_note(&rep, "hold: cr3=0x%llx (interrupts off, halted)",
			    (unsigned long long)p->our_cr3);
		app_emit();
		ptlab_live(p, hold_here, "hold");
	}
	if (p->handoff && !p->aborted)
		ptlab_live(p, ptlab_check_ram_sweep, "ram sweep");
	t = rdtsc();
	if (!p->aborted)
		ptlab_live(p, ptlab_check_teardown, "teardown");
	pt_destroy(&p->space);
	p->t.teardown = rdtsc() - t;
}

/* CPU facts, the environment, the TSC, the deadline; false when the run cannot go on. */
bool app_start(struct ptlab *p, uint64_t t0)
{
	char line[320];

	cpu_caps_read(&p->caps);
	p->fw_cr3 = read_cr3();
	ptlab_env_init(p);
	app_calibrate_tsc(p);
	p->deadline = opts_deadline(t0, p->opts.timeout, p->t.tsc_per_us);
	opts_describe(&p->opts, line, sizeof(line));
	report_fact(&rep, "options", "%s", line);
	firmware_report(&rep, ST);
	if (foreign_opts[0])
		report_note(&rep, "options: the boot manager's LoadOptions \"%s\" hold no --option: "
			    "ignored, %s", foreign_opts,
			    cfg_found ? "options from \\ptlab.cfg" : "no \\ptlab.cfg, defaults");
	if (!p->caps.nx) {
		report_skip(&rep, "ptlab", "the CPU has no NX bit; W^X cannot be enforced");
		return false;
	}
	/* the paging levels of the run (and the LA57 trampoline when it switches) */
	return la57_setup(p);
}

/* ---- the run ------------------------------------------------------------------------------ */

static void run(struct ptlab *p, EFI_LOADED_IMAGE *li)
{
	struct rawmap m = { 0 };
	uint64_t t0 = rdtsc(), t;
	unsigned cap, fragments = 0;
	int err;

	if (!app_start(p, t0))
		return;

	/* a first look at the map sizes every buffer */
	if (app_get_map(&m) != EFI_SUCCESS) {
		report_fail(&rep, "memmap: GetMemoryMap failed");
		return;
	}
	if (p->opts.fragment) {
		/* above 256 MiB when there is a free range there, else above 1 MiB */
		fragments = fragment_map(&m, PT_SIZE_1G / 4);
		if (fragments < FRAGMENT_PAGES / 2) {
			fragment_free(fragments);
			fragments = fragment_map(&m, UINT64_C(1) << 20);
		}
		report_fact(&rep, "fragment", "pages=%u", fragments);
		if (fragments < FRAGMENT_PAGES / 2) {
			report_fail(&rep, "fragment: only %u of %u pages could be scattered: no free "
				    "range of %u pages", fragments, FRAGMENT_PAGES,
				    4 * FRAGMENT_PAGES);
			goto out;
		}
		if (app_get_map(&m) != EFI_SUCCESS) {
			report_fail(&rep, "memmap: GetMemoryMap failed");
			fragment_free(fragments);
			return;
		}
	}
	cap = 2 * (unsigned)(m.cap / m.desc_size) + 2 * MAP_SLACK_DESC;
	p->map.range = pool_alloc(cap * sizeof(*p->map.range));
	p->map.cap = cap;
	p->plan.cap = 2 * cap + 2 * PT_IMAGE_MAX_SECTIONS + 4;
	p->plan.entry = pool_alloc(p->plan.cap * sizeof(*p->plan.entry));
	if (!p->map.range || !p->plan.entry) {
		report_fail(&rep, "memmap: no memory for the map and the plan");
		goto out;
	}
	app_describe_image(p, li);
	err = app_normalize(p, &m);
	if (!err)
		err = app_plan(p);
	if (!err)
		err = app_setup_pool(p);
	if (!err)
		err = app_setup_data(p);
	/* the final map: after every allocation of ours */
	if (!err && app_get_map(&m) != EFI_SUCCESS)
		err = PT_EMAPBAD;
	if (!err)
		err = app_normalize(p, &m);
	t = rdtsc();
	if (!err)
		err = app_plan(p);
	p->t.plan = rdtsc() - t;
	if (err) {
		report_fail(&rep, "plan: memory map and plan: %s", pt_strerror(err));
		goto out;
	}
	if (p->opts.dump_memmap)
		app_dump_raw_map(&m);
	if (p->plan.min_total > p->pool_frames) {
		report_fail(&rep, "plan: needs %llu table frames, the pool holds %llu",
			    (unsigned long long)p->plan.min_total, (unsigned long long)p->pool_frames);
		goto out;
	}
	app_build_and_check(p, &m);
	app_report_frames_and_time(p, t0);
out:
	fragment_free(fragments);
	if (p->pool_pa)
		uefi_call_wrapper(BS->FreePages, 2, p->pool_pa, p->pool_frames);
	/* back to the shell with nothing of ours left behind */
	pool_free(p->frames.bitmap);
	pool_free(p->plan.entry);
	pool_free(p->map.range);
	pool_free(m.buf);
	if (p->data_alloc)
		uefi_call_wrapper(BS->FreePages, 2, p->data_alloc, p->data_pages);
	if (p->typed_alloc)
		uefi_call_wrapper(BS->FreePages, 2, p->typed_alloc, TYPED_BYTES / PT_PAGE_SIZE);
	la57_release(p);
}

/* ---- the end ---------------------------------------------------------------------------- */

/*
 * Our TSS lives in a page of its own, not in the image: when the firmware had
 * no TSS ours stays loaded after we return (TR cannot go back to 0), and the
 * firmware unloads the image.  The page is then kept for good.
 */
static EFI_PHYSICAL_ADDRESS tss_page;

static bool tss_page_get(void)
{
	if (uefi_call_wrapper(BS->AllocatePages, 4, AllocateAnyPages, EfiLoaderData, 1,
			      &tss_page) != EFI_SUCCESS) {
		tss_page = 0;
		return false;
	}
	app_own(tss_page, PT_PAGE_SIZE);
	trap_set_tss((void *)(uintptr_t)tss_page);
	return true;
}

static void tss_page_put(void)
{
	if (!tss_page || trap_installed())
		return;
	if (trap_tss_left_loaded()) {
		report_note(&rep, "tss: the firmware had no TSS; ours stays loaded at 0x%llx "
			    "(page kept allocated)", (unsigned long long)tss_page);
		return;
	}
	trap_set_tss(NULL);
	uefi_call_wrapper(BS->FreePages, 2, tss_page, 1);
}

static void wait_key_or_timeout(void)
{
	EFI_EVENT events[2];
	EFI_EVENT timer;
	UINTN index;

	app_say("ptlab: press a key (or wait %u s) to shut down\n", WAIT_SECONDS);
	if (uefi_call_wrapper(BS->CreateEvent, 5, EVT_TIMER, 0, NULL, NULL, &timer) != EFI_SUCCESS)
		return;
	uefi_call_wrapper(BS->SetTimer, 3, timer, TimerRelative, (UINT64)WAIT_SECONDS * 10000000);
	events[0] = ST->ConIn->WaitForKey;
	events[1] = timer;
	uefi_call_wrapper(BS->WaitForEvent, 3, 2, events, &index);
	uefi_call_wrapper(BS->CloseEvent, 1, timer);
}

static void end_run(const struct ptlab *p, bool passed)
{
	switch (p->opts.end) {
	case OPTS_END_RETURN:
		return;
	case OPTS_END_QEMU:
		ptlab_debug_exit(p, passed);
		/* no debug-exit device, or bare metal: shut down */
		break;
	case OPTS_END_HALT:
		app_say("ptlab: halted\n");
		cpu_halt();
	case OPTS_END_WAIT:
		wait_key_or_timeout();
		break;
	default:
		break;
	}
	uefi_call_wrapper(RT->ResetSystem, 4,
			  p->opts.end == OPTS_END_REBOOT ? EfiResetCold : EfiResetShutdown,
			  passed ? EFI_SUCCESS : EFI_ABORTED, 0, NULL);
}

/* The run's verdict in one line, for the runs variable. */
static void verdict_text(const struct ptlab *p, char *buf, size_t size)
{
	const char *word = p->aborted ? "aborted" : rep.failed ? "fail" :
			   rep.passed ? "pass" : "nothing checked";

	fmt_snprintf(buf, size, "%s (%u passed, %u failed, %u skipped)", word, rep.passed,
		     rep.failed, rep.skipped);
}

/* A later run of this boot names the earlier one, in its report and last on screen. */
static void note_earlier(bool at_end)
{
	const char *verdict, *file;
	unsigned n = runs_earlier(&verdict, &file);

	if (!n)
		return;
	if (!at_end) {
		report_fact(&rep, "earlier-run", "run=%u file=%s verdict=%s", n, file, verdict);
		return;
	}
	app_say("ptlab: this was run %u of this boot; its report is \\%s\n", runs_number(),
		runs_file_name(runs_number()));
	app_say("ptlab: an earlier run of this boot (\\%s) ended: %s\n", file, verdict);
}

/* crt0-efi-x86_64.o calls efi_main with the SysV convention: no EFIAPI. */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_LOADED_IMAGE *li = NULL;
	EFI_STATUS st;
	char *buf, err[200], verdict[RUNS_VERDICT_MAX];
	bool passed, nothing;

	firmware_capture_entry();
	InitializeLib(image, systab);
	image_handle = image;
	sink_init(image, systab);
	if (uefi_call_wrapper(BS->HandleProtocol, 3, image, &LoadedImageProtocol, (void **)&li) !=
	    EFI_SUCCESS) {
		app_say("ptlab: no LoadedImage protocol on our own handle\n");
		return EFI_LOAD_ERROR;
	}
	opts_defaults(&app.opts);
	err[0] = 0;
	st = parse_options(li, &app.opts, err, sizeof(err));
	sink_serial_mode(app.opts.serial);
	firmware_probe(systab);
	if (!st && app.opts.help) {
		sink_print(opts_usage());
		return EFI_SUCCESS;
	}
	runs_begin();
	if (st) {
		refuse(err);
		return st;
	}

	/* --dump prints one line per leaf: ~10k leaves on a 256 MiB QEMU */
	buf = pool_alloc(app.opts.dump || app.opts.dump_firmware ? 8 * REPORT_BYTES : REPORT_BYTES);
	if (!buf) {
		app_say("ptlab: no memory for the report\n");
		runs_end("aborted (no memory for the report)");
		return EFI_OUT_OF_RESOURCES;
	}
	report_init(&rep, buf, app.opts.dump || app.opts.dump_firmware ? 8 * REPORT_BYTES : REPORT_BYTES);
	if (!tss_page_get()) {
		app_say("ptlab: no page for the TSS\n");
		return EFI_OUT_OF_RESOURCES;
	}
	app.rep = &rep;
	sink_file_open(runs_file_name(runs_number()), false);
	report_fact(&rep, "run", "number=%u file=%s", runs_number(), runs_file_name(runs_number()));
	note_earlier(false);
	/* a long run must not be cut short by the 5-minute watchdog */
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);

	if (app.opts.mode == OPTS_MODE_HANDOFF) {
		/* returns only when it could not leave boot services */
		if (app_start(&app, rdtsc()))
			handoff_run(&app, li, image);
	} else {
		run(&app, li);
	}

	tss_page_put();
	report_finish(&rep);
	app_emit();
	sink_file_close();
	verdict_text(&app, verdict, sizeof(verdict));
	runs_end(verdict);
	note_earlier(true);
	uefi_call_wrapper(BS->SetWatchdogTimer, 4, 300, 0, 0, NULL);
	nothing = !rep.passed && !rep.failed && !app.aborted;
	passed = rep.failed == 0 && !app.aborted && !nothing;
	end_run(&app, passed);
	if (app.opts.wrong_restore)
		write_cr0(read_cr0() ^ CR0_WP);   /* test only: a restore gone wrong */
	return passed ? EFI_SUCCESS : nothing ? EFI_UNSUPPORTED : EFI_ABORTED;
}
