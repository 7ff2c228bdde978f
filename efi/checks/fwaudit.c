/* SPDX-License-Identifier: MIT */
/*
 * The audit of the firmware's own page tables (CR3 at entry), read as
 * they are and never written: what they map in 4 KiB, 2 MiB and 1 GiB
 * leaves, whether page 0 is mapped, and the same W^X judgement as our
 * tables get (checkkit.h), with runtime code as the only exemption (the
 * run's list names ranges of our plan, not of theirs).  Reported as a
 * fact, not a check: the firmware's tables are what they are.  No
 * firmware calls; the tables are reached through the run's phys_to_virt.
 */
#include "checks/checkkit.h"
#include "cpu/trap.h"
#include "live/live.h"
#include "report/report.h"
#include "checks/fwaudit.h"
#include "checks/registry.h"
#include "state/state.h"

#include <ptlab/pte.h>

/* What the walk found: leaves per level and the W^X judgement. */
struct audit {
	const struct check_run *run;
	uint64_t leaves[3];
	struct ptlab_wx_tally wx;
};

/* The firmware's tables: the list names ranges of our plan, so only runtime code. */
static enum ptlab_wx_exemption fw_wx_exemption(const void *ctx, uint64_t va, uint64_t pa,
					       uint64_t size)
{
	const struct audit *a = ctx;

	(void)va;
	(void)size;
	return ptlab_wx_runtime(a->run->build, a->run->build->boot_services_gone, pa) ?
	       PTLAB_WX_RUNTIME : PTLAB_WX_FORBIDDEN;
}

/*
 * The firmware's own tables, walked directly and coalesced: a table whose
 * 512 entries are leaves with the same attributes over contiguous frames
 * (A and D aside) is one run of the size its parent entry spans, and runs
 * that continue each other in VA and PA with the same attributes are
 * judged once.  With -cpu max,phys-bits=52 OVMF maps 128 TiB in 2 MiB
 * leaves: 131072 full PDs, each read once in a tight loop, 131072 runs
 * merged into a handful.  The --timeout deadline is checked per table.
 */
#define FW_AD (PTE_A | PTE_D)

struct fw_walk {
	const struct check_run *run;
	struct audit *a;
	bool have;
	uint64_t va, pa, len;
	unsigned flags;
	uint64_t runs, uniform_tables;
	bool stopped;
};

/* A coalesced run is judged as one leaf of its whole length. */
static void fw_run_judge(struct fw_walk *w)
{
	if (!w->have)
		return;
	w->runs++;
	ptlab_wx_judge(&w->a->wx, w->va, w->pa, w->len, w->flags);
	w->have = false;
}

static void fw_run_add(struct fw_walk *w, uint64_t va, uint64_t pa, uint64_t len, unsigned flags)
{
	if (w->have && w->va + w->len == va && w->pa + w->len == pa && w->flags == flags) {
		w->len += len;
		return;
	}
	fw_run_judge(w);
	*w = (struct fw_walk){ .run = w->run, .a = w->a, .have = true, .va = va, .pa = pa, .len = len,
			       .flags = flags, .runs = w->runs, .uniform_tables = w->uniform_tables,
			       .stopped = w->stopped };
}

static unsigned fw_flags(uint64_t e, unsigned inherited)
{
	unsigned f = inherited;

	if (!(e & PTE_W))
		f &= ~PT_WRITE;
	if (!(e & PTE_US))
		f &= ~PT_USER;
	if (e & PTE_NX)
		f &= ~PT_EXEC;
	return f;
}

/* Is the table at @t (level @level, 0 or 1) 512 same-attribute leaves over contiguous frames? */
static bool fw_uniform(const uint64_t *t, unsigned level)
{
	uint64_t step = pt_level_size(level), first = t[0] & ~FW_AD;

	if (!(first & PTE_P) || (level == 1 && !(first & PTE_PS)))
		return false;
	if (level == 1 && (first & PTE_ADDR_MASK & (PT_SIZE_2M - 1) & ~PTE_PAT_LARGE))
		return false;
	for (unsigned i = 1; i < PT_ENTRIES; i++)
		if ((t[i] & ~FW_AD) != first + i * step)
			return false;
	return true;
}

static uint64_t fw_leaf_pa(uint64_t e, unsigned level)
{
	uint64_t pa = e & PTE_ADDR_MASK;

	return level ? pa & ~(pt_level_size(level) - 1) : pa;
}

static void fw_walk_table(struct fw_walk *w, uint64_t table_pa, unsigned level, uint64_t va_base,
			  unsigned inherited)
{
	const struct pt_env *env = &w->run->build->env;
	const uint64_t *t = env->phys_to_virt(env->ctx, table_pa);

	if (!t)
		return;
	if (level <= 1 && check_deadline_passed(w->run))
		w->stopped = true;
	for (unsigned i = 0; i < PT_ENTRIES && !w->stopped; i++) {
		uint64_t e = t[i], va = va_base + i * pt_level_size(level);
		unsigned f;

		if (!(e & PTE_P))
			continue;
		/* a PDPT entry may stand for a whole PD read in one go: the deadline per GiB */
		if (level == 2 && check_deadline_passed(w->run)) {
			w->stopped = true;
			break;
		}
		if (level == w->run->cpu->fw_levels - 1 && i >= PT_ENTRIES / 2)
			va |= ~((pt_level_size(level) << PT_LEVEL_BITS) - 1);   /* the upper half */
		f = fw_flags(e, inherited);
		if (level == 0 || (level <= 2 && (e & PTE_PS))) {
			w->a->leaves[level]++;
			fw_run_add(w, va, fw_leaf_pa(e, level), pt_level_size(level), f);
			continue;
		}
		if (level <= 2) {
			const uint64_t *c = env->phys_to_virt(env->ctx, e & PTE_ADDR_MASK);

			if (c && fw_uniform(c, level - 1)) {
				w->a->leaves[level - 1] += PT_ENTRIES;
				w->uniform_tables++;
				fw_run_add(w, va, fw_leaf_pa(c[0], level - 1), pt_level_size(level),
					   fw_flags(c[0], f));
				continue;
			}
		}
		fw_walk_table(w, e & PTE_ADDR_MASK, level - 1, va, f);
	}
}

/*
 * What the firmware's tables let ptlab do at @va: "rwx", "r-x", "rw-",
 * "r--", or "unmapped".  Firmware that enforces no-execute (edk2's
 * PcdDxeNxMemoryProtectionPolicy, PcdImageProtectionPolicy,
 * PcdSetNxForStack) maps our text r-x and our data, pages, pool and stack
 * rw-; firmware that does not maps them all rwx.
 */
static const char *fw_access(const struct pt_space *fw, uint64_t va)
{
	static const char *const name[4] = { "r--", "rw-", "r-x", "rwx" };
	struct pt_leaf l;

	if (pt_translate(fw, va, &l) != PT_OK)
		return "unmapped";
	return name[((l.flags & PT_WRITE) ? 1 : 0) | ((l.flags & PT_EXEC) ? 2 : 0)];
}

/*
 * A word of our image's data section, for fw_access: gnu-efi's linker
 * script puts .rodata there (one PE section with .data and .bss).
 */
static const uint64_t fw_data_word = 1;

/*
 * The firmware's mapping of ptlab's own kinds of memory, through the one
 * walker over the firmware's root: the image's text (this function) and
 * data, a page of AllocatePages(EfiLoaderData) (our TSS's, main.c), a piece
 * of AllocatePool (the memory map's ranges), the stack the firmware gave
 * us, and the LA57 trampoline's code page (EfiLoaderCode) when the run
 * switches levels.
 */
static void fw_report_access(const struct check_run *run)
{
	struct pt_env env = run->build->env;
	struct pt_space fw = { .env = &env, .root_pa = run->cpu->fw_cr3 & PTE_ADDR_MASK,
			       .levels = run->cpu->fw_levels };
	volatile uint64_t here = 0;
	uint64_t tramp = run->live->la57_tramp;

	report_fact(run->rep, "firmware-access", "text=%s data=%s loader_data=%s pool=%s stack=%s "
		    "loader_code=%s",
		    fw_access(&fw, (uint64_t)(uintptr_t)&fw_report_access),
		    fw_access(&fw, (uint64_t)(uintptr_t)&fw_data_word),
		    fw_access(&fw, trap_tss_base()),
		    fw_access(&fw, (uint64_t)(uintptr_t)run->build->map.range),
		    fw_access(&fw, (uint64_t)(uintptr_t)&here),
		    tramp ? fw_access(&fw, tramp) : "none");
}

void ptlab_audit_firmware(const struct check_run *run)
{
	struct audit a;
	struct fw_walk w = { .run = run, .a = &a };
	uint64_t t0 = rdtsc();

	a = (struct audit){ .run = run, .wx = { .map = &run->build->map, .exempt = fw_wx_exemption,
				       .ctx = &a } };

	fw_walk_table(&w, run->cpu->fw_cr3 & PTE_ADDR_MASK, run->cpu->fw_levels - 1, 0,
		      PT_WRITE | PT_EXEC | PT_USER);
	fw_run_judge(&w);
	report_fact(run->rep, "firmware-tables", "cr3=0x%llx levels=%u leaves_4k=%llu leaves_2m=%llu "
		    "leaves_1g=%llu runs=%llu uniform_tables=%llu complete=%d page0_mapped=%d "
		    "wx_bytes=%llu mmio_exec_bytes=%llu audit_us=%llu",
		    (unsigned long long)run->cpu->fw_cr3, run->cpu->fw_levels, (unsigned long long)a.leaves[0],
		    (unsigned long long)a.leaves[1], (unsigned long long)a.leaves[2],
		    (unsigned long long)w.runs, (unsigned long long)w.uniform_tables, !w.stopped,
		    a.wx.page0, (unsigned long long)a.wx.wx_bytes, (unsigned long long)a.wx.mmio_x_bytes,
		    (unsigned long long)ptlab_us(run->t, rdtsc() - t0));
	fw_report_access(run);
}
