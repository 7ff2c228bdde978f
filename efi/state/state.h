/* SPDX-License-Identifier: MIT */
/*
 * A run's state (struct ptlab, split by concern): types and constants
 * only; each module that works on it declares its functions in its own
 * header (the checks run through the registry, checks/registry.h;
 * running on our tables is live/live.h).
 * Firmware-free: everything the checks need is here in plain types, so no
 * firmware header reaches the code that runs with ptlab's tables in CR3.
 * (Not to be confused with <ptlab/ptlab.h>, the library's umbrella header.)
 */
#ifndef PTLAB_EFI_STATE_H
#define PTLAB_EFI_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ptlab/frames.h>
#include <ptlab/mat.h>
#include <ptlab/memmap.h>
#include <ptlab/plan.h>
#include <ptlab/pt.h>

#include "cpu/cpu.h"
#include "lib/model.h"
#include "lib/prng.h"
#include "report/fbcon.h"
#include "opts/opts.h"
#include "report/report.h"
#include "state/mode.h"

struct report;
struct smp_shared;
struct kernel_proto;
struct ptlab_registry;

/* Where the checks put test mappings: PML4 slots the plan never uses. */
#define PTLAB_SCRATCH_LOW   UINT64_C(0x0000010000000000)   /* 1 TiB, slot 2 */
#define PTLAB_SCRATCH_HIGH  UINT64_C(0xffffff0000000000)   /* slot 510 */
#define PTLAB_SCRATCH_BYTES (UINT64_C(16) << 30)           /* each scratch window */
#define PTLAB_TOP_LOW_PAGE  UINT64_C(0x00007ffffffff000)   /* last page of the lower half */
#define PTLAB_UNMAPPED_VA   UINT64_C(0x0000400000000000)   /* slot 128: never mapped */
/* 57-bit addresses (5 levels): canonical there, not at 4 levels, and beyond. */
#define PTLAB_LA57_ABOVE_128T    UINT64_C(0x0000800000000000)  /* PML5 slot 0, PML4 slot 256 */
#define PTLAB_LA57_TOP_LOW_PAGE  UINT64_C(0x00fffffffffff000)  /* last page of the lower half */
#define PTLAB_LA57_HIGH_BOTTOM   UINT64_C(0xff00000000000000)  /* first page of the high half */
#define PTLAB_LA57_NONCANON_LOW  UINT64_C(0x0100000000000000)  /* just above the lower half */
#define PTLAB_LA57_NONCANON_HIGH UINT64_C(0xfeffffffffffff00)  /* just below the high half */

/*
 * QEMU's isa-debug-exit device (iobase 0xf4): the guest writes a code and
 * QEMU exits with (code << 1) | 1.  Written only under a hypervisor.
 */
#define PTLAB_DEBUG_EXIT_PORT 0xf4
#define PTLAB_EXIT_PASSED     0x10u   /* QEMU status 33 */
#define PTLAB_EXIT_FAILED     0x11u   /* 35: a check failed */
#define PTLAB_EXIT_ABORTED    0x12u   /* 37: the run had to be aborted */
#define PTLAB_EXIT_NOTHING    0x13u   /* 39: nothing was checked (e.g. no NX) */

/* Timing of the run's phases and its deadline. */
struct ptlab_time {
	uint64_t tsc_per_us;     /* 0 when not calibrated */
	uint64_t plan, build, checks, churn, teardown, total;   /* TSC ticks */
	uint64_t deadline;       /* TSC value ending the run (0: none) */
};

/* The CPU and the firmware's state at entry. */
struct ptlab_cpu {
	struct cpu_caps caps;
	unsigned fw_levels;          /* the firmware's own paging mode (CR4.LA57 at entry) */
	uint64_t fw_cr3;             /* the firmware's root at entry */
};

/* The build: map, image, plan, the frame pool and the hierarchy built in it. */
/* Table frames the structural lint can sort (ptlab_lint). */
#define PTLAB_LINT_SCRATCH 8192u

struct ptlab_build {
	unsigned levels;             /* of the hierarchies built (4 or 5) */
	/*
	 * Planned for, built and checked after ExitBootServices (the mode's
	 * property, state/mode.h, taken by run_start): the plan's caps, the
	 * attributes the checks expect and runtime code's W^X follow it.
	 */
	bool boot_services_gone;
	struct pt_memmap map;
	struct pt_image image;
	/*
	 * Where the plan maps the image again: PT_IMAGE_BASE, unless the
	 * kernel hand-off needs that range for the kernel (limine/lmhandoff.c).
	 */
	uint64_t image_va;
	/*
	 * Where the plan's HHDM starts, 0 for PT_HHDM_BASE: a boot protocol
	 * that fixes another offset for the run's paging mode sets it when it
	 * loads the kernel (limine/lmhandoff.c).  The plan's hhdm_base is the one
	 * the checks read.
	 */
	uint64_t hhdm_base;
	struct pt_mat mat;           /* the Memory Attributes Table (n = 0: none; hand-off) */
	struct pt_plan plan;
	/* The frame pool: AllocatePages'd pages handed to pt_frames. */
	uint64_t pool_pa, pool_frames;
	struct pt_frames frames;
	struct pt_env env;
	struct pt_space space;
	uint64_t tables_built[5];    /* per level, right after the plan was applied */
	uint64_t our_cr3;            /* the built root */
	/* every leaf (va, pa, size, flags) of the build, before any check ran, hashed */
	uint64_t digest, digest_leaves;
	/* pt_lint's scratch (checks/checkkit.c): table frames it can sort; more fail the lint */
	uint64_t lint_scratch[PTLAB_LINT_SCRATCH];
};

/*
 * The scratch data the checks map.  The data area: 2 MiB-aligned frames of
 * ours that test mappings point at (written and read through them), and
 * the GiB that holds it, which 1 GiB test leaves map (RAM we do not own
 * outside the data area).
 */
struct ptlab_data {
	uint64_t pa, len, big_pa;
	bool big_ok;                 /* 1 GiB leaves may map big_pa: all of it is RAM */
	uint64_t alloc, pages;       /* the pages as allocated */
	uint64_t typed_alloc;        /* the typed window's pages as allocated, or 0 */
	/*
	 * The typed window: a few frames of ours, outside the data area and the
	 * GiB at big_pa, the only frames the churn maps with a memory type
	 * other than write-back.  While the churn runs they are out of our
	 * identity map and HHDM and every scratch mapping of a frame has the
	 * same type (SDM Vol. 3A 11.12.4: no aliases with different types).
	 * typed_len 0: none.
	 */
	uint64_t typed_pa, typed_len;
};

/* Switching to our tables and between paging modes. */
struct ptlab_live {
	bool on;                     /* our CR3 is loaded: flushes go to the CPU */
	uint64_t cr4;                /* CR4 as the last live phase found it */
	uint64_t phases;             /* live phases entered */
	uint64_t at_levels;          /* ... that found the CPU in the run's paging mode */
	uint64_t la57_tramp;         /* LA57 switch trampoline (code, data page), 0: no switch */
	uint64_t la57_switches;      /* switches made */
	uint64_t home_cr3;           /* hand-off: the recovery hierarchy, loaded between live phases */
};

/* Hand-off mode: the GOP framebuffer and, after ExitBootServices, its console. */
struct ptlab_fb {
	struct fb_info info;
	struct fbcon con;            /* the report's lines on the screen (ok) */
	bool ok;                     /* a GOP framebuffer */
	bool extra;                  /* not in the memory map: the plan adds it */
	uint64_t len;                /* its bytes, page-rounded */
};

/* A firmware memory map as GetMemoryMap fills it: @size bytes of @desc_size-byte descriptors. */
struct rawmap {
	void *buf;
	uint64_t cap, size, key, desc_size;
	uint32_t version;
};

/*
 * The hand-off modes' own state (core/handoff.c): what is prepared before
 * ExitBootServices for after it.  Here, in the run's state, not on the
 * firmware's stack, whose pages become free RAM after the hand-off.
 */
struct ptlab_exit {
	struct pt_space recovery;    /* the recovery hierarchy, in our pool */
	struct rawmap final_map;     /* the map ExitBootServices was called with */
	uint64_t *ram_bitmap;        /* the bitmap of the frame allocator over all free RAM */
	size_t ram_bitmap_bytes;
	struct pt_range free[PT_FRAMES_MAX_RANGES];   /* that RAM, as the allocator got it */
	uint64_t stack_top;          /* our own stack from ExitBootServices on */
};

/* Page allocations a kernel's protocol may make (core/kernel.c records them). */
#define PTLAB_KERNEL_ALLOC_MAX 64u

/*
 * Hand-off mode ending in a kernel (--kernel): its protocol and every page
 * taken for it before ExitBootServices, all in pages of ours (recorded,
 * never handed to the frame allocator).  on == false: no kernel.  What
 * the protocol placed where is its own state (priv), private to it.
 */
struct ptlab_kernel {
	bool on;
	const struct kernel_proto *proto;   /* core/kernel.h: the file's protocol */
	struct pt_range alloc[PTLAB_KERNEL_ALLOC_MAX];   /* every page taken for it (va = pa) */
	unsigned nalloc;
	void *priv;                  /* the protocol's own state, in pages of ours */
};

/*
 * The run's W^X exemptions: every range a feature of the run maps writable
 * and executable on purpose (va -> pa for len bytes), with why.  The
 * feature that edits the plan records the range in the same step
 * (checks/checkkit.h: ptlab_wx_identity, ptlab_wx_add); the coverage check
 * and the W^X audit know such ranges only from this list, and the audit
 * names every entry.  (Runtime code the firmware leaves RWX is a rule of
 * its memory class, not a range of the run: checkkit.h's
 * ptlab_wx_runtime.)  Reset with the plan (run.c).  A feature that
 * needs more entries than PTLAB_WX_EXEMPT_MAX is refused (PT_ECAPACITY),
 * nothing recorded.
 */
#define PTLAB_WX_EXEMPT_MAX 32u

struct wx_exempt {
	uint64_t va, pa, len;
	const char *why;             /* a static string: "RAM below 640 KiB", ... */
	unsigned cache;              /* PT_CACHE() the range is mapped with, or PTLAB_WX_CACHE_KEEP */
};

/* An exemption that leaves each page the cache type of its memory-map class. */
#define PTLAB_WX_CACHE_KEEP (~0u)

struct ptlab_wx {
	struct wx_exempt e[PTLAB_WX_EXEMPT_MAX];
	unsigned n;
};

/* The churn's shadow model holds at most this many runs. */
#define PTLAB_CHURN_MODEL_CAP 2048u

/* A mapping of the typed window (identity or HHDM) taken out for the churn. */
struct ptlab_churn_typed {
	bool mapped;
	unsigned flags;
	struct pt_leaf leaf;         /* the leaf that held the window's first page */
};

/*
 * The randomized churn of the live hierarchy (checks/churn.c): its
 * sequence, its shadow model and what it counted.  Reset by churn_start.
 */
struct ptlab_churn {
	struct model m;
	struct model_run runs[PTLAB_CHURN_MODEL_CAP];   /* the model's storage */
	struct prng rng;             /* seeded with --seed: the run replays */
	uint64_t op, ops;
	uint64_t maps, unmaps, protects, remaps, refused;
	uint64_t maps_by_size[3];    /* successful maps with 4K, 2M, 1G leaves */
	uint64_t samples, faults_expected, faults_seen;
	uint64_t tables_before, frames_before;
	uint64_t pool_failed;        /* the pool's refusal count at the last check_result */
	uint64_t typed_maps, type_changes, type_kept;   /* non-WB maps; wbinvd; conflicts avoided */
	uint64_t audit_leaves, audit_typed;
	bool audit_ok;
	bool failed, done, injected;
	uint64_t inject_at;
	uint64_t inject_op;          /* the op whose --inject note came last (UINT64_MAX: none) */
	struct ptlab_churn_typed typed_ident, typed_hhdm;
};

/*
 * --inject: every change a check's fault made to the tables, the frames or
 * CR3, recorded so that inject_end() takes back exactly it
 * (efi/checks/inject.c).  Empty between checks.
 */
#define PTLAB_INJECT_UNDO_MAX 16u

struct ptlab_inject_undo {
	const void *owner;           /* the check whose fault it is (its registry entry) */
	unsigned kind;               /* inject.c's enum undo_kind */
	uint64_t va;                 /* the page changed */
	uint64_t pa;                 /* its own frame (remap), the root entry (root), the old CR3 */
	uint64_t frame;              /* a pool frame of the fault's own, given back after, or 0 */
	unsigned flags;              /* the page's attributes (protect) */
};

struct ptlab_inject {
	struct ptlab_inject_undo undo[PTLAB_INJECT_UNDO_MAX];
	unsigned n;
};

/*
 * A run's state, by concern; a function that needs one part may take just
 * that part.  The report is reached through @rep only.
 */
struct ptlab {
	struct opts opts;
	struct report *rep;
	const struct mode *mode;     /* what this run's mode does its own way (state/mode.h) */
	const struct kernel_proto *const *protos;   /* the boot protocols, NULL-ended (proto/) */
	const struct ptlab_registry *checks;        /* the check registry (proto/catalog.c) */
	bool aborted;                /* an unexpected exception or a timeout ended the checks */
	struct ptlab_cpu cpu;
	struct ptlab_build build;
	struct ptlab_data data;
	struct ptlab_live live;
	struct ptlab_fb fb;
	struct ptlab_exit exit;
	struct ptlab_kernel kern;
	struct ptlab_wx wx;          /* the W^X exemptions of this run's plan */
	struct ptlab_time t;
	struct ptlab_churn churn;
	/*
	 * What every CPU shares (smp/smp.h), NULL until smp/ resets it for
	 * this run; smp.c says where it lives and why.
	 */
	struct smp_shared *smp;
	struct ptlab_inject inject;
};

#endif /* PTLAB_EFI_STATE_H */
