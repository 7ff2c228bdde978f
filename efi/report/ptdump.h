/* SPDX-License-Identifier: MIT */
/*
 * Page-table listings in the shape of Linux's ptdump
 * (/sys/kernel/debug/page_tables/kernel):
 *
 *   ---[ Identity map ]---
 *   0x0000000000001000-0x00000000000a0000         636K     RW                 NX pte
 *
 * one line per run of leaves that follow each other in virtual address
 * space with the same leaf level and the same attributes (USR, RW, PWT, PCD,
 * PAT, GLB, NX; W and US ANDed and NX ORed down the walk), under region
 * markers.  Or, capped, one line per leaf.
 *
 * Firmware-free: tables are read through the space's env->phys_to_virt
 * (or p2v_linear), lines go to a callback.  The host tests feed it
 * simulated tables.
 *
 * The walk reads every present entry once but calls back once per *batch*:
 * leaves of one table with identical attribute bits whose frames follow
 * each other.  A table of 512 such 2 MiB leaves (how firmware maps its
 * identity map) costs one callback, so 128 TiB in 2 MiB leaves is about
 * 130,000 callbacks, not 67 million.
 */
#ifndef PTLAB_EFI_PTDUMP_H
#define PTLAB_EFI_PTDUMP_H

#include <stdbool.h>
#include <stdint.h>

#include <ptlab/pt.h>

/* Attributes of a run, as ptdump prints them. */
#define PTDUMP_USR  (1u << 0)
#define PTDUMP_RW   (1u << 1)
#define PTDUMP_PWT  (1u << 2)
#define PTDUMP_PCD  (1u << 3)
#define PTDUMP_PAT  (1u << 4)
#define PTDUMP_GLB  (1u << 5)
#define PTDUMP_NX   (1u << 6)

/*
 * @count leaves at @level from @va, the first at frame @pa, each next one at
 * the next frame, all with attributes @attrs; @entry is the first leaf's raw
 * entry.  Non-zero return stops the walk.
 */
typedef int (*ptdump_batch_fn)(void *arg, uint64_t va, uint64_t pa, unsigned level,
			       uint64_t count, unsigned attrs, uint64_t entry);

/* Called once per table before it is read; true stops the walk (e.g. a deadline). */
typedef bool (*ptdump_stop_fn)(void *arg);

struct ptdump_walk_stats {
	uint64_t tables;        /* table pages read, root included */
	uint64_t batches;       /* callbacks made */
	uint64_t bad;           /* entries with PS set where no leaf can be (level 3 or 4) */
	bool stopped;           /* @stop said so; @stop_va is where */
	uint64_t stop_va;
};

/*
 * Walk every leaf of @s in VA order (lower half, then upper half) in
 * batches.  Returns 0, the callback's non-zero value, or PT_EINVAL.
 */
int ptdump_walk(const struct pt_space *s, ptdump_batch_fn fn, void *arg,
		ptdump_stop_fn stop, void *stop_arg, struct ptdump_walk_stats *st);

/* A region marker: printed as "---[ name ]---" before the first run at or after @va. */
struct ptdump_marker {
	uint64_t va;
	const char *name;
};

enum ptdump_format {
	PTDUMP_RANGES,
	PTDUMP_LEAVES,
};

/* Receives each line, without a newline. */
typedef void (*ptdump_line_fn)(void *arg, const char *line);

struct ptdump {
	/* set by ptdump_begin */
	enum ptdump_format format;
	const struct ptdump_marker *marker;   /* sorted by va */
	unsigned nmarkers;
	unsigned next_marker;                 /* first marker not printed yet */
	unsigned levels;
	const struct pt_pat *pat;             /* for the cache type of leaf lines */
	const char *leaf_key;                 /* leaf lines: "<leaf_key>: va=..." */
	uint64_t leaf_cap;                    /* PTDUMP_LEAVES: lines at most (0: no cap) */
	ptdump_line_fn out;
	void *out_arg;

	/* the run being built (ranges) */
	bool have_run;
	uint64_t run_va, run_last, run_pa;    /* run_last: its last byte */
	bool run_linear;
	unsigned run_level, run_attrs;

	/* totals */
	uint64_t lines;                       /* range or leaf lines written */
	uint64_t leaves[3];                   /* per level 0..2 */
	uint64_t bytes;                       /* bytes mapped */
	uint64_t leaves_listed, leaves_unlisted;
};

/*
 * Start a listing.  @markers sorted by va (ties keep their order); @pat is
 * the PAT layout the tables are read under (leaf lines' cache=, -1 for a
 * type without a name); leaf lines are "<leaf_key>: va=0x.. pa=0x..
 * size=0x.. flags=rwxu cache=N", at most @leaf_cap of them (0: no cap),
 * the rest only counted in leaves_unlisted.
 */
void ptdump_begin(struct ptdump *d, enum ptdump_format format, unsigned levels,
		  const struct ptdump_marker *markers, unsigned nmarkers,
		  const struct pt_pat *pat, const char *leaf_key, uint64_t leaf_cap,
		  ptdump_line_fn out, void *out_arg);

/* A ptdump_batch_fn: arg is the struct ptdump. */
int ptdump_add(void *arg, uint64_t va, uint64_t pa, unsigned level, uint64_t count,
	       unsigned attrs, uint64_t entry);

/* Write the last run and the markers not printed yet. */
void ptdump_end(struct ptdump *d);

/* "pte", "pmd", "pud", "p4d"/"pgd": Linux's name for a level of a @levels-level hierarchy. */
const char *ptdump_level_name(unsigned level, unsigned levels);

/*
 * The ranges line of [va, end) (end 0 meaning 2^64) into @buf, e.g.
 * "0x0000000000001000-0x00000000000a0000         636K     RW                 NX pte".
 */
void ptdump_format_range(char *buf, unsigned long size, uint64_t va, uint64_t end,
			 unsigned attrs, unsigned level, unsigned levels);

#endif /* PTLAB_EFI_PTDUMP_H */
