/* SPDX-License-Identifier: MIT */
/*
 * ptlab paging library: build, change, query and tear down x86-64 page tables.
 *
 * Freestanding: no firmware types, no control registers, no physical address
 * ever cast to a pointer.  Everything that touches the machine comes from the
 * caller through struct pt_env.
 *
 * Thread safety: none.  Callers serialize all calls on one address space and
 * on one frame allocator.
 *
 * Failure: every call that can fail is transactional.  When it returns an
 * error, every table byte, the statistics and every frame are exactly as they
 * were before the call (frames it reserved are handed back before it returns).
 *
 * Live tables (SDM Vol. 3A §4.10.2.3, §4.10.4): when a large leaf must be
 * split, the library first installs a table with the identical translation
 * and attributes, calls env->flush for the large page's range, and only then
 * changes entries.  Table frames emptied by an unmap are unlinked, env->flush
 * is called for the ranges changed so far, and only then are the frames freed.
 * Every changing call also reports the ranges whose translations changed in a
 * struct pt_flushlist; the caller must invalidate them (invlpg or a CR3
 * reload) before relying on the new translations.
 */
#ifndef PTLAB_PT_H
#define PTLAB_PT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pte.h"

/* ---- errors ------------------------------------------------------------ */

enum pt_err {
	PT_OK = 0,
	PT_EINVAL = -1,        /* bad argument: NULL, bad environment, bad level count */
	PT_ENONCANON = -2,     /* virtual address not canonical, or range crosses the hole */
	PT_EALIGN_VA = -3,     /* virtual address not 4 KiB aligned */
	PT_EALIGN_PA = -4,     /* physical address not 4 KiB aligned */
	PT_EALIGN_LEN = -5,    /* length not a multiple of 4 KiB */
	PT_ELEN = -6,          /* zero length, or va/pa + len wraps */
	PT_EPHYS = -7,         /* physical address at or above 2^MAXPHYADDR */
	PT_EEXIST = -8,        /* part of the range is already mapped */
	PT_ENOTMAPPED = -9,    /* part of the range is not mapped */
	PT_EBLOCKED = -10,     /* a large leaf would have to be split and PT_NOSPLIT forbids it */
	PT_ENOMEM = -11,       /* out of frames */
	PT_EFLAGS = -12,       /* unknown flag bits, bad cache type, W+X without PT_ALLOW_WX */
	PT_EFRAME = -13,       /* frame allocator: frame not handed out / double free / outside pool */
	PT_ECAPACITY = -14,    /* a caller-supplied buffer is too small */
	PT_EMAPBAD = -15,      /* memory map unusable (descriptor size, count) */
	PT_ECORRUPT = -16,     /* tables found inconsistent (lint) */
};

/**
 * pt_strerror - name of an error code
 * @err: an enum pt_err value
 *
 * Returns the code's name ("PT_OK", "PT_ENOMEM", ...), a string constant
 * that never changes, or "PT_E?" for a value that is not an enum pt_err.
 * Never NULL.
 */
const char *pt_strerror(int err);

/* ---- caller-facing flags ------------------------------------------------ */

/* Cache types; the hardware encoding depends on the PAT layout (struct pt_pat). */
enum pt_cache {
	PT_CACHE_WB = 0,
	PT_CACHE_WT = 1,
	PT_CACHE_UCM = 2,     /* UC- */
	PT_CACHE_UC = 3,
	PT_CACHE_WC = 4,
	PT_CACHE_WP = 5,
	PT_CACHE_COUNT = 6,
};

#define PT_WRITE        (1u << 0)
#define PT_EXEC         (1u << 1)
#define PT_USER         (1u << 2)
#define PT_GLOBAL       (1u << 3)
#define PT_CACHE_SHIFT  4u
#define PT_CACHE_MASK   (7u << PT_CACHE_SHIFT)
#define PT_CACHE(c)     (((unsigned)(c) & 7u) << PT_CACHE_SHIFT)
#define PT_CACHE_OF(f)  ((enum pt_cache)(((f) & PT_CACHE_MASK) >> PT_CACHE_SHIFT))
/* Permission/attribute bits: what a leaf carries and translate reports. */
#define PT_ATTR_MASK    (PT_WRITE | PT_EXEC | PT_USER | PT_GLOBAL | PT_CACHE_MASK)

/* Options (accepted where a call documents them, never stored in a leaf). */
#define PT_ALLOW_WX     (1u << 8)   /* accept PT_WRITE together with PT_EXEC */
#define PT_NOSPLIT      (1u << 9)   /* fail with PT_EBLOCKED instead of splitting a large leaf */
#define PT_SPARSE       (1u << 10)  /* unmap/protect/remap: holes in the range are skipped, not an error */

/* Largest leaf a call may create. */
enum pt_page_size {
	PT_PAGE_4K = 0,
	PT_PAGE_2M = 1,
	PT_PAGE_1G = 2,
};

/* ---- PAT ------------------------------------------------------------------ */

/*
 * The eight PAT entries the CPU is (or will be) programmed with, as memory
 * type codes of IA32_PAT: 0 UC, 1 WC, 4 WT, 5 WP, 6 WB, 7 UC-.  The leaf's
 * PAT index is PAT:PCD:PWT (SDM Vol. 3A §11.12.3).
 */
struct pt_pat {
	uint8_t type[8];
};

#define PT_PAT_UC   0u
#define PT_PAT_WC   1u
#define PT_PAT_WT   4u
#define PT_PAT_WP   5u
#define PT_PAT_WB   6u
#define PT_PAT_UCM  7u

/* The power-on layout: WB WT UC- UC WB WT UC- UC (no WC). */
void pt_pat_default(struct pt_pat *pat);
/* A layout with WC and WP, as ptlab programs it: WB WT UC- UC WB WT WC WP. */
void pt_pat_ptlab(struct pt_pat *pat);
/* IA32_PAT MSR value for @pat. */
uint64_t pt_pat_msr(const struct pt_pat *pat);

/*
 * Leaf bits (PWT, PCD, and PAT at bit 7 for level 0 or bit 12 above) that
 * select @cache under @pat.  Returns PT_EFLAGS when the layout has no entry
 * for that type.
 */
int pt_cache_bits(const struct pt_pat *pat, enum pt_cache cache, unsigned level,
		  uint64_t *bits);
/* Cache type a leaf at @level selects under @pat; -1 for a type ptlab has no name for. */
int pt_cache_of_entry(const struct pt_pat *pat, uint64_t entry, unsigned level);

/* ---- environment ---------------------------------------------------------- */

/* A range of virtual addresses, [va, va + len). */
struct pt_range {
	uint64_t va;
	uint64_t len;
};

#define PT_FLUSHLIST_MAX 16u

/*
 * Ranges whose translations a call changed, coalesced.  When more distinct
 * ranges change than fit, @all is set: flush everything (CR3 reload, and a
 * PGE toggle if global pages changed).
 */
struct pt_flushlist {
	unsigned n;
	bool all;
	bool global;          /* a changed leaf was (or became) global */
	struct pt_range r[PT_FLUSHLIST_MAX];
};

struct pt_env {
	void *ctx;
	/*
	 * A 4 KiB frame; 0 or PT_ENOMEM.  Required.  Zeroed, unless
	 * @frames_dirty is set.
	 */
	int (*alloc_frame)(void *ctx, uint64_t *pa);
	/* Return a frame obtained from alloc_frame.  Required. */
	void (*free_frame)(void *ctx, uint64_t pa);
	/*
	 * Where the library reads and writes the table at @pa.  Required, also
	 * with @p2v_linear (pt_lint and other callers use it).
	 */
	void *(*phys_to_virt)(void *ctx, uint64_t pa);
	/*
	 * Invalidate the listed translations and paging-structure caches before
	 * the library goes on (see the header comment).  May be NULL when the
	 * tables are not live.
	 */
	void (*flush)(void *ctx, const struct pt_flushlist *fl);
	unsigned maxphyaddr;  /* physical address bits, 32..52 */
	bool has_1g;          /* CPUID.80000001h:EDX[26]: 1 GiB leaves allowed */
	struct pt_pat pat;    /* the layout cache types are encoded for */

	/*
	 * Optional fast paths; all false/0 (as in a zero-initialized env)
	 * keeps the behaviour described above.
	 *
	 * @p2v_linear: the table at @pa is at virtual address
	 * (uintptr_t)(pa + @p2v_offset) (the addition wraps modulo 2^64), and
	 * the walker computes that instead of calling phys_to_virt.
	 * phys_to_virt must return the same address for every table frame.
	 *
	 * @frames_dirty: alloc_frame may hand out frames with any contents.
	 * The library then clears every table it creates, except the entries
	 * the same call writes anyway (a new table the call fills entirely is
	 * never cleared), and does so before the table is linked.
	 *
	 * @wide_stores: runs of 64 or more 4 KiB leaves (whole page tables)
	 * are stored with 32-byte AVX2 stores.  Set it from
	 * pt_cpu_wide_stores(); pt_env_check rejects it where that says no.
	 */
	bool p2v_linear;
	bool frames_dirty;
	bool wide_stores;
	uint64_t p2v_offset;
};

/*
 * May struct pt_env's @wide_stores be set: this build of the library has
 * the 32-byte store loop (host builds with SSE2; a build without SSE, as
 * for firmware, never has it) and the CPU has AVX2 with the YMM state
 * enabled by the OS (CPUID.1:ECX OSXSAVE and AVX, XCR0 bits 1 and 2,
 * CPUID.(EAX=7,ECX=0):EBX AVX2).  Runs CPUID each time (a VM exit under
 * virtualization): ask once and keep the answer in the env.  pt_env_check,
 * and so pt_create, asks it again when the env has wide_stores set.
 */
bool pt_cpu_wide_stores(void);

/* The processor's answers pt_cpu_wide_stores() decides from. */
struct pt_cpu_avx2 {
	uint32_t max_leaf;     /* CPUID.0:EAX, the highest basic leaf */
	uint32_t leaf1_ecx;    /* CPUID.1:ECX (OSXSAVE bit 27, AVX bit 28) */
	uint64_t xcr0;         /* XCR0 (XGETBV, ECX=0); 0 where OSXSAVE is clear */
	uint32_t leaf7_ebx;    /* CPUID.(EAX=7,ECX=0):EBX (AVX2 bit 5) */
};

/*
 * The decision of pt_cpu_wide_stores() from values the caller read: leaf 7
 * exists, OSXSAVE and AVX are set, XCR0 enables the SSE and AVX state, and
 * AVX2 is set (leaf7_ebx is not looked at when max_leaf is below 7).  Pure:
 * it says whether the CPU could run the wide loop, not whether this build
 * of the library has it.
 */
bool pt_cpu_avx2_usable(const struct pt_cpu_avx2 *r);

/* ---- address spaces ------------------------------------------------------- */

struct pt_stats {
	uint64_t tables[5];   /* table pages per level (index = level) */
	uint64_t leaves[3];   /* leaves per size (enum pt_page_size) */
	/*
	 * Frames a changing call reserved up front and then did not use (it
	 * frees them).  The reservation is exact, so anything but 0 is a bug in
	 * the library; pt_lint reports it.
	 */
	uint64_t reserve_unused;
};

struct pt_space {
	const struct pt_env *env;
	uint64_t root_pa;
	unsigned levels;      /* 4 or 5 */
	struct pt_stats stats;
};

/* Total table pages of @s, root included. */
uint64_t pt_table_count(const struct pt_space *s);

/*
 * Check @env for use: callbacks present, maxphyaddr in 32..52, PAT layout
 * holding WB and UC, with p2v_linear a p2v_offset that is a multiple of 8,
 * wide_stores only where pt_cpu_wide_stores() says so.  PT_EINVAL otherwise.
 */
int pt_env_check(const struct pt_env *env);

/*
 * Create an empty address space of @levels (4 or 5): allocates the root.
 * On failure @s is left untouched (PT_EINVAL, PT_ENOMEM).
 */
int pt_create(struct pt_space *s, const struct pt_env *env, unsigned levels);

/*
 * Free every table of @s (no leaf target frame is touched) and zero @s.
 * The tables must not be live in CR3.
 */
void pt_destroy(struct pt_space *s);

/* Is @va canonical for @levels (48- or 57-bit)? */
bool pt_canonical(uint64_t va, unsigned levels);

/* ---- changing calls ------------------------------------------------------- */

/*
 * Checks run in this order, and the first that fails names the error:
 *   1. PT_EINVAL (NULL space), PT_EFLAGS (unknown bits, cache type the PAT
 *      layout lacks, W+X without PT_ALLOW_WX);
 *   2. PT_ENONCANON (va), PT_EALIGN_VA, PT_EALIGN_PA, PT_EALIGN_LEN,
 *      PT_ELEN (zero, or va/pa + len wraps), PT_ENONCANON (last byte not
 *      canonical or on the other side of the hole), PT_EPHYS;
 *   3. the range in VA order: the first page that is mapped (pt_map:
 *      PT_EEXIST), not mapped (PT_ENOTMAPPED, unless PT_SPARSE), or inside a
 *      large leaf that would have to be split under PT_NOSPLIT (PT_EBLOCKED);
 *   4. PT_ENOMEM when the frames the call needs cannot all be had.
 * Only then is anything written.
 */

/*
 * Map [va, va+len) to [pa, pa+len) with @flags (PT_WRITE, PT_EXEC, PT_USER,
 * PT_GLOBAL, PT_CACHE(), options PT_ALLOW_WX).  Leaves are chosen largest-fit
 * up to @max_size where va, pa and the remaining length are aligned (1 GiB only
 * when env->has_1g).  Every page of the range must be unmapped (PT_EEXIST).
 * Each table is visited once per call.  @fl may be NULL.
 */
int pt_map(struct pt_space *s, uint64_t va, uint64_t pa, uint64_t len,
	   unsigned flags, enum pt_page_size max_size, struct pt_flushlist *fl);

/*
 * Unmap [va, va+len).  A large leaf the range cuts is split (PT_EBLOCKED with
 * PT_NOSPLIT); every byte outside the range keeps its translation.  Every
 * page must be mapped unless PT_SPARSE.  Tables left empty are unlinked and
 * freed after env->flush.
 */
int pt_unmap(struct pt_space *s, uint64_t va, uint64_t len, unsigned opts,
	     struct pt_flushlist *fl);

/*
 * Set the attributes of every page in [va, va+len) to @flags (as pt_map),
 * keeping the frames; splits as needed (not with PT_NOSPLIT).
 */
int pt_protect(struct pt_space *s, uint64_t va, uint64_t len, unsigned flags,
	       struct pt_flushlist *fl);

/*
 * Point [va, va+len) at [new_pa, new_pa+len), keeping each page's attributes;
 * a large leaf whose new address would not be aligned is split (not with
 * PT_NOSPLIT).  @opts: PT_NOSPLIT, PT_SPARSE.
 */
int pt_remap(struct pt_space *s, uint64_t va, uint64_t len, uint64_t new_pa,
	     unsigned opts, struct pt_flushlist *fl);

/* ---- queries -------------------------------------------------------------- */

struct pt_leaf {
	uint64_t va;
	uint64_t pa;
	uint64_t size;        /* 4 KiB, 2 MiB or 1 GiB */
	unsigned level;       /* 0, 1 or 2 */
	unsigned flags;       /* effective PT_* attributes (W, US ANDed down the walk; NX ORed) */
	uint64_t entry;       /* the raw leaf entry */
	uint64_t entry_pa;    /* physical address of the leaf entry itself */
};

/*
 * Translate @va: the leaf holding it, with out->pa = the physical address of
 * @va itself (not the leaf base); PT_OK.  PT_ENOTMAPPED or PT_ENONCANON
 * otherwise, PT_EINVAL for a bad space or a NULL @out; *out is written only
 * on PT_OK.
 */
int pt_translate(const struct pt_space *s, uint64_t va, struct pt_leaf *out);

/*
 * Translate @n addresses in one call: for k = 0..n-1, err[k] is what
 * pt_translate(s, va[k], ...) returns (PT_OK, PT_ENOTMAPPED, PT_ENONCANON)
 * and out[k] the leaf it reports where err[k] is PT_OK, all zero (size 0)
 * where it is not.  The space is checked once; an address in the leaf the
 * address before it found takes that leaf without a walk, so ascending
 * addresses walk once per leaf.  With @p2v_linear the same holds for the
 * not-present entry that left the address before unmapped, and the walks
 * do not branch on the entries, so that the walks of a batch overlap.
 * Returns PT_OK, or PT_EINVAL (a bad space, or n > 0 with a NULL array)
 * with nothing written.
 */
int pt_translate_many(const struct pt_space *s, const uint64_t *va, size_t n,
		      struct pt_leaf *out, int *err);

/* Called per leaf in VA order; a non-zero return stops the walk and is returned. */
typedef int (*pt_visit_fn)(void *arg, const struct pt_leaf *leaf);

/* Visit every leaf that intersects [va, va+len) (len 0: the whole space), in VA order. */
int pt_visit(const struct pt_space *s, uint64_t va, uint64_t len, pt_visit_fn fn, void *arg);

/* Visit every table page (level, pa), root first, depth first in VA order. */
typedef int (*pt_table_fn)(void *arg, unsigned level, uint64_t pa);
int pt_visit_tables(const struct pt_space *s, pt_table_fn fn, void *arg);

/* ---- structural lint ------------------------------------------------------ */

struct pt_lint {
	uint64_t tables;          /* table pages seen */
	uint64_t errors;          /* total problems */
	uint64_t reserved_bits;   /* entries with reserved bits set */
	uint64_t bad_ps;          /* PS in a root entry or in a level-3 entry, or bad large-leaf address bits */
	uint64_t empty_tables;    /* non-root tables with no present entry */
	uint64_t shared_tables;   /* table frames referenced more than once */
	uint64_t foreign_tables;  /* table frames @owns rejected */
	uint64_t stats_mismatch;  /* tables/leaves seen differ from s->stats */
	uint64_t reserve_unused;  /* s->stats.reserve_unused: frames reserved and not used */
	uint64_t bad_hints;       /* links to a page table marked PTE_SW_FULL whose
				   * table is not full of present non-global entries */
	uint64_t first_bad_va;    /* va of the first problem (if any) */
	int first_bad_level;
};

/*
 * Structural check of @s (reserved bits per SDM Vol. 3A 4.5): reserved bits zero
 * (MAXPHYADDR..51, PS in the root and, without 1 GiB pages, at level 2,
 * bits 13..20 / 13..29 of large leaves), no empty non-root table, every table
 * frame referenced once, counts equal to s->stats, no reserved frame left
 * unused (s->stats.reserve_unused 0), every PTE_SW_FULL mark true (pte.h).
 * @scratch holds at least pt_table_count(s) entries (used to find shared
 * tables); @owns may be NULL.
 * Returns PT_OK when clean, PT_ECORRUPT otherwise, PT_ECAPACITY when scratch
 * is too small.
 */
int pt_lint(const struct pt_space *s, uint64_t *scratch, size_t scratch_len,
	    bool (*owns)(void *ctx, uint64_t pa), void *owns_ctx, struct pt_lint *out);

#endif /* PTLAB_PT_H */
