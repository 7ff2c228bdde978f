/* SPDX-License-Identifier: MIT */
/*
 * The MMU probe engine (see mmuprobe.h): the probe hierarchy, one access
 * at CPL 0 or 3 under a case's control state, its observation and its
 * judgement against rules_predict() (efi/rules/rules.h, the SDM's rules
 * written apart from paging/).
 *
 * Frames: the data area's third and fourth MiB pairs hold the 2 MiB leaf
 * (D + 2M) and, from D + 4M, the probe hierarchy's tables.  Every leaf
 * size reaches the same byte, D + 2M + 0x4000, so a case's code bytes (or
 * a read's marker) are written once whatever its leaf.  Bit 12 of that
 * offset is clear: a walker that took a large leaf's PAT bit (bit 12, SDM
 * 4.5 Tables 4-16 and 4-18) for an address bit would reach D + 2M + 0x5000
 * instead, whose byte differs from the marker (the physical address check,
 * pa_agree()).
 *
 * No firmware calls: runs live.
 */
#include <ptlab/pte.h>

#include "checks/checkkit.h"
#include "checks/inject.h"
#include "checks/mmuprobe.h"
#include "checks/registry.h"
#include "cpu/cpu.h"
#include "cpu/trap.h"
#include "cpu/user.h"
#include "opts/optcheck.h"
#include "report/fmt.h"
#include "report/report.h"
#include "state/state.h"

#define SLOT_PROBE	3u			/* the probe path's root slot */
#define SLOT_USER	4u			/* the user stub's */
#define MID_OFF		(UINT64_C(2) << 20)	/* the 2 MiB leaf's frame, from D */
#define POOL_OFF	(UINT64_C(4) << 20)	/* table frames, from D */
#define POOL_LEN	(UINT64_C(2) << 20)
#define MID_LEN		(UINT64_C(2) << 20)
#define PT_IDX		4u			/* the PTE's index: TGT = MID + 0x4000 */
#define DETAILS_MAX	12u			/* mismatches shown per family */
#define STUB_READ	0x00u			/* mov (%rdi),%al; int $0x80 */
#define STUB_WRITE	0x10u			/* mov %al,(%rdi); int $0x80 */

static const char *const level_name[5] = { "pte", "pde", "pdpte", "pml4e", "pml5e" };
static const char *const leaf_name[3] = { "4K", "2M", "1G" };
static const char *const kind_name[3] = { "read", "write", "fetch" };

static uint64_t *tab(uint64_t pa)
{
	return (uint64_t *)(uintptr_t)pa;
}

static uint64_t frame(struct mmu_env *e)
{
	uint64_t pa = e->pool;

	if (pa >= e->pool_end)
		return 0;
	e->pool += PT_PAGE_SIZE;
	for (unsigned int i = 0; i < 512; i++)
		tab(pa)[i] = 0;
	return pa;
}

/*
 * A copy of the table at @src (level @level) and everything below it,
 * without NX and G: under EFER.NXE=0 an NX bit is a reserved bit (SDM
 * 4.5), and no translation of the copy may outlive it as a global one.
 */
static uint64_t clone(struct mmu_env *e, uint64_t src, unsigned int level)
{
	uint64_t pa = frame(e);

	if (!pa)
		return 0;
	for (unsigned int i = 0; i < 512; i++) {
		uint64_t v = tab(src)[i];
		bool leaf = !level || (level <= 2 && (v & PTE_PS));

		if (!(v & PTE_P)) {
			tab(pa)[i] = v;
			continue;
		}
		v &= ~PTE_NX;
		if (leaf) {
			v &= ~PTE_G;
		} else {
			uint64_t c = clone(e, v & PTE_ADDR_MASK, level - 1);

			if (!c)
				return 0;
			v = (v & ~PTE_ADDR_MASK) | c;
		}
		tab(pa)[i] = v;
	}
	return pa;
}

/* The index of the probe path's entry at @level (0 = PTE). */
static unsigned int path_index(const struct mmu_env *e, unsigned int level)
{
	return level == e->levels - 1 ? SLOT_PROBE : level ? 1u : PT_IDX;
}

/* The user path: every level U/S=1, the code page read-only, the stack writable. */
static bool user_path(struct mmu_env *e, uint64_t root)
{
	static const uint8_t stub[] = { 0x8a, 0x07, 0xcd, USER_VEC_RETURN };
	static const uint8_t stubw[] = { 0x88, 0x07, 0xcd, USER_VEC_RETURN };
	uint64_t t = root, code = 0, stack = 0;
	unsigned int idx = SLOT_USER;

	for (unsigned int l = e->levels - 1; l > 0; l--) {
		uint64_t next = frame(e);

		if (!next)
			return false;
		tab(t)[idx] = next | PTE_P | PTE_W | PTE_US;
		t = next;
		idx = 0;
	}
	code = frame(e);
	stack = frame(e);
	if (!code || !stack)
		return false;
	tab(t)[0] = code | PTE_P | PTE_US;
	tab(t)[1] = stack | PTE_P | PTE_W | PTE_US;
	for (unsigned int i = 0; i < sizeof(stub); i++) {
		((volatile uint8_t *)(uintptr_t)code)[STUB_READ + i] = stub[i];
		((volatile uint8_t *)(uintptr_t)code)[STUB_WRITE + i] = stubw[i];
	}
	e->code_va = (uint64_t)SLOT_USER << (12 + 9 * (e->levels - 1));
	e->stack_va = e->code_va + PT_PAGE_SIZE;
	return true;
}

static bool probe_path(struct mmu_env *e, uint64_t root)
{
	e->tbl[0] = root;
	for (unsigned int i = 1; i < e->levels; i++)
		if (!(e->tbl[i] = frame(e)))
			return false;
	return true;
}

static void caps_of(struct mmu_env *e, const struct check_run *run)
{
	const struct cpu_caps *c = &run->cpu->caps;

	e->maxphy = c->maxphyaddr;
	e->smep = c->smep;
	e->smap = c->smap;
	e->pku = c->pku;
	e->nx = c->nx;
	e->pge = c->pge;
	e->big = c->pdpe1gb && run->data->big_ok;
}

/* Save what the engine changes; CET off (CR0.WP cannot be cleared under it). */
static void save_ctl(struct mmu_env *e)
{
	e->cr0 = read_cr0();
	e->cr4 = read_cr4();
	e->efer = read_efer();
	e->our_cr3 = read_cr3();
	if (e->pku) {
		write_cr4(e->cr4 | CR4_PKE);
		e->pkru = rdpkru();
		write_cr4(e->cr4);
	}
	if (e->cr4 & CR4_CET)
		write_cr4(e->cr4 & ~CR4_CET);
}

int mmu_begin(struct mmu_env *e, struct check_run *run, const struct ptlab_check *self,
	      const char *what)
{
	const struct ptlab_data *d = run->data;
	const char *why = NULL;
	uint64_t root;

	*e = (struct mmu_env){ .run = run, .self = self, .levels = run->build->levels };
	caps_of(e, run);
	e->pool = d->pa + POOL_OFF;
	e->pool_end = e->pool + POOL_LEN;
	e->mid_pa = d->pa + MID_OFF;
	e->tgt_pa = e->mid_pa + PT_IDX * PT_PAGE_SIZE;
	e->big_pa = d->big_pa;
	if (((read_cr4() & CR4_LA57) != 0) != (e->levels == 5))
		why = "the CPU is not in the run's paging mode";
	else if (!(root = clone(e, run->build->space.root_pa, e->levels - 1)))
		why = "no room for the probe hierarchy in the data area";
	else if (tab(root)[SLOT_PROBE] || tab(root)[SLOT_USER])
		why = "the root slots of the probes are in use";
	else if (!probe_path(e, root) || !user_path(e, root))
		why = "no room for the probe paths in the data area";
	if (why) {
		report_skip(run->rep, what, "%s", why);
		return -1;
	}
	save_ctl(e);
	write_cr3(root | (e->our_cr3 & 0xfff));
	cpu_flush_tlb_all();
	e->user = user_enable(&e->user_why) == 0;
	mmu_ctl_init(e, &e->ctl);
	e->ctl.wp = (e->cr0 & CR0_WP) != 0;
	e->ctl.nxe = (e->efer & EFER_NXE) != 0;
	e->ctl.smep = (e->cr4 & CR4_SMEP) != 0;
	e->ctl.smap = (e->cr4 & CR4_SMAP) != 0;
	e->ctl.pke = (e->cr4 & CR4_PKE) != 0;
	return 0;
}

void mmu_end(struct mmu_env *e)
{
	user_disable();
	if (e->pku) {
		write_cr4(read_cr4() | CR4_PKE);
		wrpkru(e->pkru);
	}
	/* NXE back before our tables, whose NX bits are reserved without it */
	write_efer(e->efer);
	write_cr0(e->cr0);
	write_cr4(e->cr4);
	write_cr3(e->our_cr3);
	cpu_flush_tlb_all();
}

uint64_t mmu_seed(const struct mmu_env *e)
{
	return e->run->opts->seed;
}

bool mmu_full(const struct mmu_env *e)
{
	return e->run->opts->matrix == OPTS_MATRIX_FULL;
}

bool mmu_deadline(const struct mmu_env *e)
{
	return check_deadline_passed(e->run);
}

bool mmu_injected(const struct mmu_env *e)
{
	return inject_on(e->run->opts, e->self);
}

void mmu_ctl_init(const struct mmu_env *e, struct rules_ctl *ctl)
{
	*ctl = (struct rules_ctl){ .levels = e->levels, .maxphyaddr = e->maxphy, .wp = true,
				   .nxe = e->nx, .page1gb = e->big };
}

unsigned int mmu_walk_len(const struct mmu_env *e, const struct mmu_case *c)
{
	return e->levels - c->leaf;
}

uint64_t mmu_va(const struct mmu_env *e, unsigned int leaf, bool other)
{
	uint64_t va = 0;

	for (unsigned int l = leaf; l < e->levels; l++)
		va |= (uint64_t)path_index(e, l) << (12 + 9 * l);
	if (leaf == 1)
		va |= e->tgt_pa - e->mid_pa;
	else if (leaf == 2)
		va |= e->tgt_pa - e->big_pa;
	if (other && leaf)
		va ^= leaf == 1 ? UINT64_C(0x100000) : UINT64_C(0x200000);
	return va;
}

static uint8_t byte_at(uint64_t pa)
{
	return *(volatile uint8_t *)(uintptr_t)pa;
}

/*
 * The bytes at the target: for a read, a marker unlike the bytes a wrong
 * walk would reach instead (the PAT bit of a large leaf taken as address
 * bit 12; the offset of a 2 MiB leaf, or a 1 GiB one's bits 29:21, lost);
 * otherwise the code a fetch at CPL @c->cpl runs: ret at CPL 0
 * (probe_exec calls), int $0x80 at 3.
 */
static void target_bytes(struct mmu_env *e, const struct mmu_case *c)
{
	volatile uint8_t *t = (volatile uint8_t *)(uintptr_t)e->tgt_pa;
	uint64_t off = e->tgt_pa - e->mid_pa;

	if (c->kind != RULES_READ) {
		t[0] = c->cpl ? 0xcd : 0xc3;
		t[1] = USER_VEC_RETURN;
		return;
	}
	for (unsigned int k = 0; k < 256; k++) {
		uint8_t m = (uint8_t)(e->marker + 1 + k);

		if (m == byte_at(e->tgt_pa ^ 0x1000) || m == byte_at(e->mid_pa) ||
		    (e->big && m == byte_at(e->big_pa + (off & (MID_LEN - 1)))))
			continue;
		e->marker = m;
		break;
	}
	t[0] = e->marker;
}

bool mmu_build(struct mmu_env *e, const struct mmu_case *c)
{
	unsigned int n = mmu_walk_len(e, c);

	if (c->leaf > 2 || (c->leaf == 2 && !e->big))
		return false;
	for (unsigned int i = 0; i < n; i++) {
		unsigned int level = e->levels - 1 - i;
		/*
		 * PS is the engine's below the PML4E (leaf or table); in a
		 * PML4E or PML5E it is a reserved bit (SDM 4.5 Tables 4-14,
		 * 4-15) a case may set.
		 */
		uint64_t v = c->bits[i] & ~(PTE_A | PTE_D | (level <= 2 ? PTE_PS : 0));

		if (i + 1 < n)
			v = (v & ~PTE_ADDR_MASK) | e->tbl[i + 1];
		else if (c->leaf == 0)
			v |= e->tgt_pa;
		else
			v |= PTE_PS | (c->leaf == 1 ? e->mid_pa : e->big_pa);
		e->cur[i] = v;
		tab(e->tbl[i])[path_index(e, level)] = (v & ~e->wrong_clr[i]) | e->wrong_set[i];
	}
	e->n = n;
	target_bytes(e, c);
	cpu_flush_tlb_all();
	return true;
}

void mmu_edit(struct mmu_env *e, unsigned int i, uint64_t clr, uint64_t set)
{
	uint64_t *p = &tab(e->tbl[i])[path_index(e, e->levels - 1 - i)];

	*p = (*p & ~clr) | set;
	e->cur[i] = (e->cur[i] & ~clr) | set;
}

void mmu_ctl_load(struct mmu_env *e, const struct rules_ctl *ctl)
{
	uint64_t cr0 = (e->cr0 & ~CR0_WP) | (ctl->wp ? CR0_WP : 0);
	uint64_t cr4 = e->cr4 & ~(CR4_SMEP | CR4_SMAP | CR4_PKE | CR4_CET);
	uint64_t efer = (e->efer & ~EFER_NXE) | (ctl->nxe && e->nx ? EFER_NXE : 0);

	cr4 |= (ctl->smep && e->smep ? CR4_SMEP : 0) | (ctl->smap && e->smap ? CR4_SMAP : 0) |
	       (ctl->pke && e->pku ? CR4_PKE : 0);
	cr4 &= ~e->cr4_off;
	if (read_cr0() != cr0)
		write_cr0(cr0);
	if (read_cr4() != cr4)
		write_cr4(cr4);
	if (read_efer() != efer)
		write_efer(efer);
	if (cr4 & CR4_PKE)
		wrpkru(e->pkru_zero ? 0 : ctl->pkru);
	e->ctl = *ctl;
}

static int access_cpl0(struct mmu_env *e, const struct mmu_case *c, uint64_t va,
		       struct trap_fault *f, uint8_t *data)
{
	uint64_t v = 0;
	int r;

	if (c->ctl.ac && e->smap)
		stac();
	if (c->kind == RULES_READ)
		r = probe_read8(va, &v, f);
	else if (c->kind == RULES_WRITE)
		r = probe_write8(va, 0xc3, f);
	else
		r = probe_exec(va, f);
	if (e->smap)
		clac();
	*data = (uint8_t)v;
	return r;
}

void mmu_access(struct mmu_env *e, const struct mmu_case *c, uint64_t va, struct mmu_obs *o)
{
	struct trap_fault f = { .vector = TRAP_VEC_NONE };
	uint8_t data = 0;
	int r;

	if (!va)
		va = mmu_va(e, c->leaf, false);
	if (c->cpl == 0) {
		r = access_cpl0(e, c, va, &f, &data);
	} else {
		uint64_t rip = c->kind == RULES_FETCH ? va :
			       e->code_va + (c->kind == RULES_WRITE ? STUB_WRITE : STUB_READ);

		r = user_run(rip, e->stack_va + PT_PAGE_SIZE - 16, va,
			     c->ctl.ac ? RFLAGS_AC : 0, &f);
	}
	*o = (struct mmu_obs){ .fault = r != 0, .vector = r ? f.vector : TRAP_VEC_NONE,
			       .error = r ? f.error : 0, .cr2 = r ? f.cr2 : 0,
			       .data_ok = !r && c->cpl == 0 && c->kind == RULES_READ,
			       .data = data };
	for (unsigned int i = 0; i < e->n; i++)
		o->entries[i] = tab(e->tbl[i])[path_index(e, e->levels - 1 - i)];
}

/* "no fault", "#PF 0x5", "vector 13 error 0x0" */
static void outcome_text(char *buf, size_t size, bool fault, uint32_t vector, uint64_t error)
{
	if (!fault)
		fmt_snprintf(buf, size, "no fault");
	else if (vector == TRAP_VEC_PF)
		fmt_snprintf(buf, size, "#PF 0x%llx", (unsigned long long)error);
	else
		fmt_snprintf(buf, size, "vector %u error 0x%llx", vector, (unsigned long long)error);
}

/* The A (@bit 5) or D (6) bits of @n entries as a string, root first: "1101". */
static void bits_text(char *buf, const uint64_t *v, unsigned int n, uint64_t bit)
{
	for (unsigned int i = 0; i < n; i++)
		buf[i] = (v[i] & bit) ? '1' : '0';
	buf[n] = '\0';
}

static void mask_text(char *buf, uint32_t m, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		buf[i] = (m >> i) & 1 ? '1' : '0';
	buf[n] = '\0';
}

/* One mismatch's detail: the case, the prediction and what the CPU did. */
static void detail(struct mmu_env *e, const struct mmu_tally *t, const struct mmu_case *c,
		   uint64_t va, const struct mmu_obs *o, const struct rules_outcome *out,
		   const char *step)
{
	char ents[5 * 32] = "", exp[40], got[40], a[8], d[8], am[8], ay[8], dm[8];
	size_t k = 0;

	for (unsigned int i = 0; i < e->n && k < sizeof(ents); i++)
		k += (size_t)fmt_snprintf(ents + k, sizeof(ents) - k, " %s=0x%llx",
					  level_name[e->levels - 1 - i],
					  (unsigned long long)e->cur[i]);
	outcome_text(exp, sizeof(exp), out->fault, TRAP_VEC_PF, out->error);
	outcome_text(got, sizeof(got), o->fault, o->vector, o->error);
	bits_text(a, o->entries, e->n, PTE_A);
	bits_text(d, o->entries, e->n, PTE_D);
	mask_text(am, out->a_must, e->n);
	mask_text(ay, out->a_may, e->n);
	mask_text(dm, out->d_must, e->n);
	report_note(e->run->rep, "%s: %s%sleaf=%s%s va=0x%llx %s cpl=%u wp=%d nxe=%d smep=%d "
		    "smap=%d ac=%d pke=%d pkru=0x%x: expected %s (SDM %s), observed %s cr2=0x%llx; "
		    "A=%s (must %s, may %s) D=%s (must %s)", t->what, step ? step : "",
		    step ? ": " : "", leaf_name[c->leaf], ents, (unsigned long long)va,
		    kind_name[c->kind], c->cpl, c->ctl.wp, c->ctl.nxe, c->ctl.smep, c->ctl.smap,
		    c->ctl.ac, c->ctl.pke, c->ctl.pkru, exp, out->rule ? out->rule : "?", got,
		    (unsigned long long)o->cr2, a, am, ay, d, dm);
}

/* Whether the A/D bits the CPU left agree with what the rules allow. */
static bool ad_agree(unsigned int n, const uint64_t *v, const struct rules_outcome *out)
{
	for (unsigned int i = 0; i < n; i++) {
		uint32_t bit = 1u << i;
		bool a = (v[i] & PTE_A) != 0, dd = (v[i] & PTE_D) != 0;

		if ((out->a_must & bit) && !a)
			return false;
		if (a && !((out->a_must | out->a_may) & bit))
			return false;
		if (dd != ((out->d_must & bit) != 0))
			return false;
	}
	return true;
}

/*
 * Where the translation went (SDM 4.5, Tables 4-16 to 4-20): the leaf's
 * frame (bits 51:12, 51:21 or 51:30 of the entry; bit 12 of a large leaf
 * is PAT, no address bit) plus the linear address's offset below it, the
 * model's out->pa.  The byte a CPL 0 read returned must be the byte there
 * (the target's marker) when that pa lies in the engine's 2 MiB frame (ours
 * to read, identity-mapped).  *@want: the byte at the model's pa.
 */
static bool pa_agree(const struct mmu_env *e, const struct mmu_obs *o,
		     const struct rules_outcome *out, uint8_t *want)
{
	if (!o->data_ok || out->fault || out->pa < e->mid_pa || out->pa >= e->mid_pa + MID_LEN)
		return true;
	*want = byte_at(out->pa);
	return *want == o->data;
}

static void pa_detail(struct mmu_env *e, const struct mmu_tally *t, const struct mmu_case *c,
		      uint64_t va, const struct rules_outcome *out, uint8_t want, uint8_t got)
{
	char ents[5 * 32] = "";
	size_t k = 0;

	for (unsigned int i = 0; i < e->n && k < sizeof(ents); i++)
		k += (size_t)fmt_snprintf(ents + k, sizeof(ents) - k, " %s=0x%llx",
					  level_name[e->levels - 1 - i],
					  (unsigned long long)e->cur[i]);
	report_note(e->run->rep, "%s: the physical address: leaf=%s%s va=0x%llx read cpl=0: "
		    "expected pa 0x%llx (SDM 4.5: the leaf's frame plus the offset), whose byte "
		    "is 0x%02x; the CPU read 0x%02x (another frame)", t->what, leaf_name[c->leaf],
		    ents, (unsigned long long)va, (unsigned long long)out->pa, want, got);
}

/* The known deviation a fault mismatch is, or -1. */
static int deviation_of(const struct rules_outcome *out, const struct mmu_obs *o)
{
	/* QEMU 7.2: RSVD set, P clear, everything else as the SDM says */
	if (o->fault && o->vector == TRAP_VEC_PF && (out->error & RULES_PF_RSVD) &&
	    (out->error & RULES_PF_P) && (o->error ^ out->error) == RULES_PF_P)
		return OPTS_DEV_RSVD_P0;
	return -1;
}

bool mmu_judge(struct mmu_env *e, struct mmu_tally *t, const struct mmu_case *c, uint64_t va,
	       const struct mmu_obs *o, unsigned int judge, const char *step)
{
	struct rules_access acc = { .va = va, .kind = c->kind, .cpl = c->cpl };
	struct rules_outcome out = { .rule = NULL };
	bool ok = true, pa_ok = true;
	uint8_t want = 0;
	int dev = -1;

	t->cases++;
	if (rules_predict(&c->ctl, e->cur, e->n, &acc, &out) != 0) {
		out.rule = "(the model refused the case)";
		ok = false;
	} else if (out.fault != o->fault) {
		ok = false;
	} else if ((judge & MMU_JUDGE_FAULT) && o->fault &&
		   (o->vector != TRAP_VEC_PF || o->cr2 != va || o->error != out.error)) {
		ok = false;
		dev = o->cr2 == va ? deviation_of(&out, o) : -1;
	}
	if (ok && (judge & MMU_JUDGE_AD) && !ad_agree(e->n, o->entries, &out))
		ok = false;
	if (ok && (judge & MMU_JUDGE_PA) && !pa_agree(e, o, &out, &want))
		ok = pa_ok = false;
	if (ok && (judge & MMU_JUDGE_AD) && out.a_may) {
		t->a_open++;
		for (unsigned int i = 0; i < e->n; i++)
			if ((out.a_may >> i) & 1 && (o->entries[i] & PTE_A)) {
				t->a_open_set++;
				break;
			}
	}
	if (ok) {
		t->agree++;
		return true;
	}
	if (dev >= 0)
		t->dev[dev]++;
	else
		t->other++;
	/* a deviation the user listed is shown once, as an example */
	if (dev >= 0 && opts_deviation_listed(e->run->opts, (enum opts_deviation)dev)) {
		if (!t->dev_shown++)
			detail(e, t, c, va, o, &out, "an example of a known deviation");
	} else if (t->shown < DETAILS_MAX) {
		t->shown++;
		if (pa_ok)
			detail(e, t, c, va, o, &out, step);
		else
			pa_detail(e, t, c, va, &out, want, o->data);
	}
	return false;
}

bool mmu_case_run(struct mmu_env *e, struct mmu_tally *t, const struct mmu_case *c,
		  unsigned int judge)
{
	struct mmu_obs o;
	uint64_t va = mmu_va(e, c->leaf, false);

	if (!mmu_build(e, c)) {
		t->skipped++;
		return true;
	}
	mmu_ctl_load(e, &c->ctl);
	mmu_access(e, c, va, &o);
	return mmu_judge(e, t, c, va, &o, judge | MMU_JUDGE_PA, NULL);
}

void mmu_tally_report(struct mmu_env *e, const struct mmu_tally *t)
{
	const struct opts *opts = e->run->opts;
	struct report *rep = e->run->rep;
	unsigned long unlisted = t->other, listed = 0;

	if (!t->cases) {
		report_skip(rep, t->what, "no case could run on this CPU");
		return;
	}
	if (!e->user) {
		char name[160];

		fmt_snprintf(name, sizeof(name), "%s, CPL 3", t->what);
		report_skip(rep, name, "%s", e->user_why ? e->user_why : "no user mode");
	}
	if (!e->big) {
		char name[160];

		fmt_snprintf(name, sizeof(name), "%s, 1 GiB leaves", t->what);
		report_skip(rep, name, "%s", e->run->cpu->caps.pdpe1gb ?
			    "no GiB of the data area is all RAM" :
			    "the CPU has no 1 GiB pages (CPUID.80000001h:EDX[26])");
	}
	for (int d = 0; d < OPTS_DEV_COUNT; d++) {
		if (opts_deviation_listed(opts, (enum opts_deviation)d))
			listed += t->dev[d];
		else
			unlisted += t->dev[d];
	}
	if (t->shown + t->dev_shown < t->cases - t->agree)
		report_note(rep, "%s: %lu more mismatches not shown", t->what,
			    t->cases - t->agree - t->shown - t->dev_shown);
	if (unlisted && unlisted == t->other)
		report_fail(rep, "%s: %lu of %lu cases differ from the SDM's rules", t->what,
			    unlisted, t->cases);
	else if (unlisted)
		report_fail(rep, "%s: %lu of %lu cases differ from the SDM's rules (%lu of them "
			    "deviation rsvd-p0, not listed in --known-deviation)", t->what, unlisted,
			    t->cases, t->dev[OPTS_DEV_RSVD_P0]);
	if (!unlisted)
		report_ok(rep, "%s: %lu cases agree with the SDM's rules%s", t->what,
			  t->cases - listed, listed ? " (the rest: known deviations)" : "");
	for (int d = 0; d < OPTS_DEV_COUNT; d++)
		if (t->dev[d] && opts_deviation_listed(opts, (enum opts_deviation)d))
			report_todo(rep, opts_deviation_names[d], "%s: %lu cases: %s", t->what,
				    t->dev[d], "a reserved-bit #PF with P=0 in its error code "
				    "(SDM 4.7: P=1)");
}
