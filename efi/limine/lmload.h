/* SPDX-License-Identifier: MIT */
/*
 * The Limine hand-off's own state (struct lim, in pages of ours: the run's
 * p->kern.priv) and what lmload.c takes before ExitBootServices for
 * lmhandoff.c to plan, check and hand over after it.  Private to the two.
 */
#ifndef PTLAB_EFI_LIMINE_LMLOAD_H
#define PTLAB_EFI_LIMINE_LMLOAD_H

#include <efi.h>

#include "core/kernel.h"
#include "cpu/cpu.h"
#include "limine/lmelf.h"
#include "limine/lmmap.h"
#include "limine/lmplace.h"
#include "limine/lmreq.h"
#include "limine/lmresp.h"
#include "opts/opts.h"
#include "smp/smpcore.h"

#define FILE_MAX        (256u << 20)            /* a larger module is refused */
#define FOUR_GIB        (UINT64_C(1) << 32)
#define KASLR_RANGE     (UINT64_C(1) << 30)     /* a slide below 1 GiB */
#define MAX_CPUS        SMP_MAX_CPUS
#define MAX_IOAPICS     8u
#define RECLAIM_MAX     1024u                   /* runs of table frames in the memory map */
#define MAP_EXTRA       (2 * RECLAIM_MAX + 2 * (OPTS_MODULES_MAX + 4) + 16)
#define MODE_MAX        64u                     /* video modes listed */
#define PIC1_DATA       0x21
#define PIC2_DATA       0xa1
#define IOAPIC_REDTBL   0x10u
#define IOAPIC_MASK     (1u << 16)
#define ENTRY_BYTES     LM_ENTRY_BYTES
#define APIC_BASE_X2    (UINT64_C(1) << 10)
#define APIC_BASE_EN    (UINT64_C(1) << 11)

/* The protocol's GDT and PAT (lmload.c): copied and set by the load, loaded at the jump. */
extern const uint64_t limine_gdt[7];
extern const uint8_t limine_pat[8];

/* A module as given: its path and its string, split at the first ','. */
struct lim_module {
	char path[OPTS_MODULE_MAX];
	char cmdline[OPTS_MODULE_MAX];
};

/* The hand-off's state, in pages of ours (p->kern.priv). */
struct lim {
	struct lm_elf elf;
	uint64_t block_pa;                 /* the load block, elf.span bytes at elf.va */
	uint64_t entry;                    /* the entry's va (e_entry or the entry point request's) */
	uint8_t entry_bytes[ENTRY_BYTES];  /* what the file has there */
	unsigned entry_len;
	struct lm_requests req;
	uint64_t paging_mode;
	uint64_t hhdm;                     /* the HHDM offset of the run's paging mode */
	uint64_t stack_bytes;              /* each CPU's */
	uint64_t kaslr;                    /* the random slide asked for, before rounding */
	const char *rng;                   /* where it came from */

	char kpath[OPTS_PATH_MAX + 1];     /* the kernel's path, with a leading slash */
	/* the internal modules first, then --module's, in order */
	struct lim_module mod_str[LM_INTERNAL_MAX + OPTS_MODULES_MAX];
	struct lm_file_in mod[LM_INTERNAL_MAX + OPTS_MODULES_MAX];
	unsigned nmod;
	uint64_t kfile_pa, kfile_len;      /* the kernel file's copy */

	struct lm_fb_in fb;
	struct lm_video_mode modes[MODE_MAX];
	unsigned nfb;

	struct lm_cpu_in cpu[MAX_CPUS];
	unsigned ncpu;
	uint32_t bsp_apic;
	bool x2apic;                       /* x2APIC mode at the jump (asked for and present) */
	uint64_t ioapic[MAX_IOAPICS];
	unsigned nioapic;

	uint64_t rsdp, smbios32, smbios64, st;
	bool have_time;
	int64_t boot_time;

	uint64_t resp_pa, resp_len;        /* the responses' buffer (resp_len 0: none, pa 0) */
	uint64_t map_pa;                   /* the memory map entries lm_map_build() fills */
	unsigned map_cap, nmap;
	struct lm_answer answer;
	uint64_t stacks_pa, stacks_len;    /* ncpu + 1 stacks, CPU i's at slot i, the BSP's at ncpu */
	uint64_t gdt_pa;                   /* the GDT and, after it, the park blocks */
	struct lm_range reclaim[RECLAIM_MAX];
	unsigned nreclaim;
	unsigned parked;                   /* APs that reported in on the handed-over tables */
	struct desc_ptr gdtr;
};

/* The hand-off's state of the run's kernel @k. */
static inline struct lim *lim_of(const struct ptlab_kernel *k)
{
	return k->priv;
}

/* @pa through the hand-off's HHDM. */
static inline uint64_t hhdm(const struct lim *l, uint64_t pa)
{
	return l->hhdm + pa;
}

struct mode_boot;
struct opts;
struct ptlab;
struct rawmap;

/*
 * limine_load() - the kernel_proto load step of the Limine protocol
 * (kernel.h): the file @f judged, loaded and its requests scanned, its
 * modules read, the firmware's answers taken and every page the hand-off
 * needs allocated (the memory map's for up to @map_cap EFI descriptors),
 * before ExitBootServices.  Returns PT_OK, or an error after a failure
 * line on the run's report.
 */
int limine_load(struct ptlab *p, const struct kernel_file *f, const struct mode_boot *b,
		unsigned map_cap);

/*
 * lim_describe() - the machine as the responses describe it, into @m: the
 * memory map of @nmap entries, the EFI memory map (the final map @fm, at
 * its buffer) of @efi_size bytes in descriptors of @desc_size and
 * @desc_version, the kernel's command line from @o.
 */
void lim_describe(const struct opts *o, const struct rawmap *fm, const struct lim *l,
		  struct lm_machine *m, unsigned nmap, uint64_t efi_size, uint64_t desc_size,
		  uint64_t desc_version);

#endif
