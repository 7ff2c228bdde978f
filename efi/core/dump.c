// SPDX-License-Identifier: MIT
/*
 * --dump=ranges and --dump-firmware=ranges|leaves: ptdump-style listings of
 * the built hierarchy and of the firmware's live one, as "# " report lines
 * (TAP comments) between a "# ptdump:" and a "# ptdump-end:" fact.
 *
 * Firmware-free: runs before the switch, reading tables through the
 * environment's identity phys_to_virt.
 */
#include <stddef.h>

#include <ptlab/plan.h>
#include <ptlab/pte.h>

#include "report/ptdump.h"
#include "core/dump.h"
#include "state/state.h"
#include "live/live.h"
#include "report/report.h"

/*
 * Firmware leaf lines at most.  OVMF with 52 physical address bits maps
 * 128 TiB in 2 MiB leaves (67 million): the rest is counted, and the
 * ranges listing covers all of it.
 *
 * No firmware calls: the firmware's tables are read as memory.
 */
#define FW_LEAF_CAP 2048u

static void put_line(void *arg, const char *line)
{
	report_note(arg, "%s", line);
}

static bool stop_at_deadline(void *arg)
{
	struct ptlab *p = arg;

	return ptlab_deadline_passed(&p->t, &p->opts, p->rep, &p->aborted);
}

/* Where the lower half ends (and the non-canonical hole starts) for @levels. */
static uint64_t hole_start(unsigned levels)
{
	return UINT64_C(1) << (PT_PAGE_SHIFT + PT_LEVEL_BITS * levels - 1);
}

static void dump_space(struct ptlab *p, const struct pt_space *s, const char *who,
		       enum opts_dump format, const struct ptdump_marker *m, unsigned nm,
		       const struct pt_pat *pat, uint64_t cap)
{
	struct ptdump d;
	struct ptdump_walk_stats st;
	uint64_t t;
	int err;

	report_fact(p->rep, "ptdump", "tables=%s format=%s levels=%u cr3=0x%llx", who,
		    format == OPTS_DUMP_RANGES ? "ranges" : "leaves", s->levels,
		    (unsigned long long)s->root_pa);
	ptdump_begin(&d, format == OPTS_DUMP_RANGES ? PTDUMP_RANGES : PTDUMP_LEAVES, s->levels,
		     m, nm, pat, who[0] == 'f' ? "firmware-leaf" : "leaf", cap, put_line, p->rep);
	t = rdtsc();
	err = ptdump_walk(s, ptdump_add, &d, stop_at_deadline, p, &st);
	t = rdtsc() - t;
	ptdump_end(&d);
	if (d.leaves_unlisted)
		report_note(p->rep, "%s tables: only the first %llu leaves are listed, "
			    "%llu more are not (cap); --dump-firmware=ranges lists every one as runs",
			    who, (unsigned long long)d.leaves_listed,
			    (unsigned long long)d.leaves_unlisted);
	if (st.stopped)
		report_note(p->rep, "%s tables: walk stopped at va=0x%llx by the deadline; "
			    "the listing is incomplete", who, (unsigned long long)st.stop_va);
	report_fact(p->rep, "ptdump-end", "tables=%s lines=%llu leaves_4k=%llu leaves_2m=%llu "
		    "leaves_1g=%llu bytes=%llu listed=%llu unlisted=%llu tables_read=%llu "
		    "batches=%llu bad_entries=%llu walk_us=%llu complete=%d error=%d", who,
		    (unsigned long long)d.lines, (unsigned long long)d.leaves[0],
		    (unsigned long long)d.leaves[1], (unsigned long long)d.leaves[2],
		    (unsigned long long)d.bytes, (unsigned long long)d.leaves_listed,
		    (unsigned long long)d.leaves_unlisted, (unsigned long long)st.tables,
		    (unsigned long long)st.batches, (unsigned long long)st.bad,
		    (unsigned long long)ptlab_us(&p->t, t), !st.stopped && !err, err);
}

void ptlab_dump_tables(struct ptlab *p)
{
	/* where ptlab puts things (state.h, plan.h); sorted by address */
	struct ptdump_marker m[] = {
		{ 0, "Identity map" },
		{ PTLAB_SCRATCH_LOW, "Scratch window (low)" },
		{ PTLAB_SCRATCH_LOW + PTLAB_SCRATCH_BYTES, "Identity map (above the scratch window)" },
		{ hole_start(p->build.levels), "Non-canonical hole" },
		{ 0 - hole_start(p->build.levels), "Upper half" },
		{ p->build.plan.hhdm_base, "HHDM" },
		{ PTLAB_SCRATCH_HIGH, "Scratch window (high)" },
		{ PTLAB_SCRATCH_HIGH + PTLAB_SCRATCH_BYTES, "Upper half (above the scratch window)" },
		{ PT_IMAGE_BASE, "Image" },
	};
	unsigned n = sizeof(m) / sizeof(m[0]);

	if (p->opts.dump != OPTS_DUMP_RANGES)
		return;
	/* 4-level: the upper half starts at the HHDM, one marker is enough */
	if (m[4].va == m[5].va) {
		for (unsigned i = 4; i + 1 < n; i++)
			m[i] = m[i + 1];
		n--;
	}
	dump_space(p, &p->build.space, "ptlab", OPTS_DUMP_RANGES, m, n, &p->build.env.pat, 0);
}

void ptlab_dump_firmware(struct ptlab *p)
{
	struct pt_env env = p->build.env;
	struct pt_space fw = {
		.env = &env,
		.root_pa = p->cpu.fw_cr3 & PTE_ADDR_MASK,
		.levels = p->build.levels,
	};
	const struct ptdump_marker m[] = {
		{ 0, "Lower half" },
		{ hole_start(p->build.levels), "Non-canonical hole" },
		{ 0 - hole_start(p->build.levels), "Upper half" },
	};
	struct pt_pat pat;

	if (!p->opts.dump_firmware)
		return;
	/* leaf lines name the cache type under the PAT the firmware runs with */
	pt_pat_default(&pat);
	if (p->cpu.caps.pat) {
		uint64_t msr = read_pat();

		for (unsigned i = 0; i < 8; i++)
			pat.type[i] = (uint8_t)(msr >> (8 * i)) & 7;
	}
	dump_space(p, &fw, "firmware", p->opts.dump_firmware, m, 3, &pat, FW_LEAF_CAP);
}
