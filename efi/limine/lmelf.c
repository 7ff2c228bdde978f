/* SPDX-License-Identifier: MIT */
/*
 * An ELF64 x86-64 kernel for the Limine protocol (see lmelf.h).
 *
 * No firmware calls (firmware-free: in the host archive).  The file is not
 * trusted: every offset and size is checked against the file's length
 * before it is read, without overflow, and every field is read bytewise
 * little-endian at the offsets of the System V gABI.
 */
#include <string.h>

#include "lib/ckd.h"
#include "lib/le.h"
#include "limine/lmerr.h"
#include "limine/lmelf.h"

#include <ptlab/pte.h>

#define MAX_ALIGN    (UINT64_C(1) << 30)

/* the ELF header */
#define EH_BYTES     64u
#define EI_CLASS     4u
#define EI_DATA      5u
#define ELFCLASS64   2u
#define ELFDATA2LSB  1u
#define E_TYPE       16u
#define E_MACHINE    18u
#define E_ENTRY      24u
#define E_PHOFF      32u
#define E_PHENTSIZE  54u
#define E_PHNUM      56u

/* a program header */
#define PH_BYTES     56u
#define P_TYPE       0u
#define P_FLAGS      4u
#define P_OFFSET     8u
#define P_VADDR      16u
#define P_FILESZ     32u
#define P_MEMSZ      40u
#define P_ALIGN      48u
#define PT_LOAD      1u
#define PT_DYNAMIC   2u

/* the dynamic section */
#define DYN_BYTES    16u
#define DT_NULL      0
#define DT_PLTRELSZ  2
#define DT_RELA      7
#define DT_RELASZ    8
#define DT_RELAENT   9
#define DT_REL       17
#define DT_RELSZ     18
#define DT_JMPREL    23
#define DT_RELRSZ    35
#define DT_RELR      36
#define DT_RELRENT   37
#define RELA_BYTES   24u

typedef unsigned long long ull;

/* Returns whether [off, off + len) lies inside @size bytes, without overflow. */
static bool inside(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static uint64_t page_down(uint64_t x)
{
	return x & ~(PT_PAGE_SIZE - 1);
}

/* Returns the segment's permissions as "RWX" letters into @s (4 bytes). */
static const char *perm(uint32_t flags, char *s)
{
	s[0] = (flags & LM_SEG_R) ? 'R' : '-';
	s[1] = (flags & LM_SEG_W) ? 'W' : '-';
	s[2] = (flags & LM_SEG_X) ? 'X' : '-';
	s[3] = 0;
	return s;
}

/*
 * Returns the file offset of the link-time range [va, va + len) when it
 * lies in one segment's file bytes, or UINT64_MAX.  @e's segments hold
 * slid addresses, so the slide comes off first.
 */
static uint64_t file_off_of(const struct lm_elf *e, uint64_t va, uint64_t len)
{
	for (unsigned i = 0; i < e->nseg; i++) {
		const struct lm_seg *s = &e->seg[i];
		uint64_t lva = s->va - e->slide;

		if (va >= lva && inside(va - lva, len, s->filesz))
			return s->file_off + (va - lva);
	}
	return UINT64_MAX;
}

/* Returns whether the 8 bytes at slid address @va lie in one segment. */
static bool target_ok(const struct lm_elf *e, uint64_t va)
{
	for (unsigned i = 0; i < e->nseg; i++) {
		const struct lm_seg *s = &e->seg[i];

		if (va >= s->va && inside(va - s->va, 8, s->memsz))
			return true;
	}
	return false;
}

/* The dynamic section's entries ptlab reads. */
struct dyn {
	bool rela, rel, relr, jmprel;
	uint64_t rela_va, relasz, relaent;
	uint64_t relsz;
	uint64_t relr_va, relrsz, relrent;
	uint64_t jmprel_va, pltrelsz;
};

/* Reads the dynamic section at [off, off + len); returns 0 or -1 with @why. */
static int read_dyn(const uint8_t *file, uint64_t size, uint64_t off, uint64_t len,
	struct dyn *d, char *why, size_t whylen)
{
	memset(d, 0, sizeof(*d));
	if (!inside(off, len, size))
		return lm_refuse(why, whylen, "dynamic section [0x%llx, +0x%llx) past the end of the file (0x%llx bytes)",
			(ull)off, (ull)len, (ull)size);
	for (uint64_t p = off; p + DYN_BYTES <= off + len; p += DYN_BYTES) {
		int64_t tag = (int64_t)le_ld64(file + p);
		uint64_t val = le_ld64(file + p + 8);

		switch (tag) {
		case DT_NULL:
			return 0;
		case DT_RELA:     d->rela = true; d->rela_va = val; break;
		case DT_RELASZ:   d->relasz = val; break;
		case DT_RELAENT:  d->relaent = val; break;
		case DT_REL:      d->rel = true; break;
		case DT_RELSZ:    d->relsz = val; break;
		case DT_RELR:     d->relr = true; d->relr_va = val; break;
		case DT_RELRSZ:   d->relrsz = val; break;
		case DT_RELRENT:  d->relrent = val; break;
		case DT_JMPREL:   d->jmprel = true; d->jmprel_va = val; break;
		case DT_PLTRELSZ: d->pltrelsz = val; break;
		default: break;
		}
	}
	return 0;
}

/*
 * Checks the RELA entries at file offset @off (@count of them): every one
 * R_X86_64_RELATIVE with its 8-byte target in a segment.  Returns 0 or -1
 * with @why naming the entry and, for a wrong type, its number.
 */
static int check_rela(const uint8_t *file, const struct lm_elf *e, uint64_t off,
	uint64_t count, const char *table, char *why, size_t whylen)
{
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *r = file + off + i * RELA_BYTES;
		uint32_t type = (uint32_t)le_ld64(r + 8);
		uint64_t target = le_ld64(r) + e->slide;

		if (type != LM_R_X86_64_RELATIVE)
			return lm_refuse(why, whylen, "%s relocation %llu: type %u is not supported (only R_X86_64_RELATIVE, 8)",
				table, (ull)i, type);
		if (!target_ok(e, target))
			return lm_refuse(why, whylen, "%s relocation %llu: target 0x%llx outside every segment",
				table, (ull)i, (ull)target);
	}
	return 0;
}

/*
 * Walks the DT_RELR words at file offset @off: each even word is the
 * link-time address of a word to relocate, each odd word a bitmap of the
 * 63 words after the last one named.  With @dst NULL checks every target
 * (returns 0 or -1 with @why); else adds the slide to each target in
 * @dst, the block at e->va.
 */
static int walk_relr(const uint8_t *file, const struct lm_elf *e, uint64_t off,
	uint64_t count, uint8_t *dst, char *why, size_t whylen)
{
	uint64_t where = 0;
	bool have = false;

	for (uint64_t i = 0; i < count; i++) {
		uint64_t w = le_ld64(file + off + 8 * i);
		uint64_t t[64];
		unsigned nt = 0;

		if (!(w & 1)) {
			where = w + e->slide;
			have = true;
			t[nt++] = where;
			where += 8;
		} else {
			if (!have)
				return lm_refuse(why, whylen, "DT_RELR word %llu: a bitmap before any address",
					(ull)i);
			for (unsigned b = 1; b < 64; b++)
				if (w >> b & 1)
					t[nt++] = where + 8 * (uint64_t)(b - 1);
			where += 63 * 8;
		}
		for (unsigned k = 0; k < nt; k++) {
			if (!dst) {
				if (!target_ok(e, t[k]))
					return lm_refuse(why, whylen, "DT_RELR word %llu: target 0x%llx outside every segment",
						(ull)i, (ull)t[k]);
				continue;
			}
			uint8_t *p = dst + (t[k] - e->va);
			le_st64(p, le_ld64(p) + e->slide);
		}
	}
	return 0;
}

/* Finds and checks the relocations of a position-independent kernel. */
static int plan_relocs(const uint8_t *file, uint64_t size, uint64_t dyn_off,
	uint64_t dyn_len, struct lm_elf *e, char *why, size_t whylen)
{
	struct dyn d;

	if (read_dyn(file, size, dyn_off, dyn_len, &d, why, whylen))
		return -1;
	if (d.rel && d.relsz)
		return lm_refuse(why, whylen, "REL relocations (DT_REL) are not supported, only RELA");
	if (d.jmprel && d.pltrelsz) {
		uint64_t off = file_off_of(e, d.jmprel_va, d.pltrelsz);

		if (off == UINT64_MAX || d.pltrelsz % RELA_BYTES)
			return lm_refuse(why, whylen, "PLT relocation table at 0x%llx (+0x%llx) is not in a segment's file bytes",
				(ull)d.jmprel_va, (ull)d.pltrelsz);
		if (check_rela(file, e, off, d.pltrelsz / RELA_BYTES, "PLT", why, whylen))
			return -1;
		return lm_refuse(why, whylen, "PLT relocations (DT_JMPREL) are not supported");
	}
	if (d.rela && d.relasz) {
		if (d.relaent != RELA_BYTES)
			return lm_refuse(why, whylen, "DT_RELAENT %llu, not %u", (ull)d.relaent, RELA_BYTES);
		if (d.relasz % RELA_BYTES)
			return lm_refuse(why, whylen, "DT_RELASZ %llu is not a multiple of %u",
				(ull)d.relasz, RELA_BYTES);
		e->rela_off = file_off_of(e, d.rela_va, d.relasz);
		if (e->rela_off == UINT64_MAX)
			return lm_refuse(why, whylen, "relocation table at 0x%llx (+0x%llx) is not in a segment's file bytes",
				(ull)d.rela_va, (ull)d.relasz);
		e->rela_count = d.relasz / RELA_BYTES;
		if (check_rela(file, e, e->rela_off, e->rela_count, "RELA", why, whylen))
			return -1;
	}
	if (d.relr && d.relrsz) {
		if (d.relrent && d.relrent != 8)
			return lm_refuse(why, whylen, "DT_RELRENT %llu, not 8", (ull)d.relrent);
		if (d.relrsz % 8)
			return lm_refuse(why, whylen, "DT_RELRSZ %llu is not a multiple of 8", (ull)d.relrsz);
		e->relr_off = file_off_of(e, d.relr_va, d.relrsz);
		if (e->relr_off == UINT64_MAX)
			return lm_refuse(why, whylen, "DT_RELR table at 0x%llx (+0x%llx) is not in a segment's file bytes",
				(ull)d.relr_va, (ull)d.relrsz);
		e->relr_count = d.relrsz / 8;
		if (walk_relr(file, e, e->relr_off, e->relr_count, NULL, why, whylen))
			return -1;
	}
	return 0;
}

/* Reads the header's identification; returns 0 or -1 with @why. */
static int check_ident(const uint8_t *file, uint64_t size, char *why, size_t whylen)
{
	uint16_t type, machine;

	if (size < EH_BYTES)
		return lm_refuse(why, whylen, "not an ELF file: %llu bytes, shorter than an ELF64 header",
			(ull)size);
	if (file[0] != 0x7f || file[1] != 'E' || file[2] != 'L' || file[3] != 'F')
		return lm_refuse(why, whylen, "not an ELF file (no ELF magic)");
	if (file[EI_CLASS] != ELFCLASS64)
		return lm_refuse(why, whylen, "not a 64-bit ELF (class %u)", file[EI_CLASS]);
	if (file[EI_DATA] != ELFDATA2LSB)
		return lm_refuse(why, whylen, "not a little-endian ELF (data encoding %u)", file[EI_DATA]);
	machine = le_ld16(file + E_MACHINE);
	if (machine != LM_EM_X86_64)
		return lm_refuse(why, whylen, "not an x86-64 ELF (machine %u)", machine);
	type = le_ld16(file + E_TYPE);
	if (type != LM_ET_EXEC && type != LM_ET_DYN)
		return lm_refuse(why, whylen, "not an executable or position-independent ELF (type %u)", type);
	return 0;
}

/* Reads one PT_LOAD header into @s (link-time va); returns 0 or -1 with @why. */
static int read_load(const uint8_t *ph, unsigned idx, uint64_t size, struct lm_seg *s,
	uint64_t *align, char *why, size_t whylen)
{
	uint64_t a = le_ld64(ph + P_ALIGN), end;

	s->flags = le_ld32(ph + P_FLAGS) & (LM_SEG_R | LM_SEG_W | LM_SEG_X);
	s->file_off = le_ld64(ph + P_OFFSET);
	s->va = le_ld64(ph + P_VADDR);
	s->filesz = le_ld64(ph + P_FILESZ);
	s->memsz = le_ld64(ph + P_MEMSZ);
	if (s->filesz > s->memsz)
		return lm_refuse(why, whylen, "segment %u: p_filesz 0x%llx > p_memsz 0x%llx",
			idx, (ull)s->filesz, (ull)s->memsz);
	if (!inside(s->file_off, s->filesz, size))
		return lm_refuse(why, whylen, "segment %u: file bytes [0x%llx, +0x%llx) past the end of the file (0x%llx bytes)",
			idx, (ull)s->file_off, (ull)s->filesz, (ull)size);
	if (!ckd_add(&end, s->va, s->memsz))
		return lm_refuse(why, whylen, "segment %u: [0x%llx, +0x%llx) wraps past the top of the address space",
			idx, (ull)s->va, (ull)s->memsz);
	if (a & (a - 1))
		return lm_refuse(why, whylen, "segment %u: p_align 0x%llx is not a power of two", idx, (ull)a);
	if (a > MAX_ALIGN)
		return lm_refuse(why, whylen, "segment %u: p_align 0x%llx above 1 GiB", idx, (ull)a);
	if (a > 1 && (s->va - s->file_off) & (a - 1))
		return lm_refuse(why, whylen, "segment %u: p_vaddr 0x%llx and p_offset 0x%llx differ modulo p_align 0x%llx",
			idx, (ull)s->va, (ull)s->file_off, (ull)a);
	/* the gABI asks it modulo the page whatever p_align says (0, 1 or below a page) */
	if ((s->va - s->file_off) & (PT_PAGE_SIZE - 1))
		return lm_refuse(why, whylen, "segment %u: p_vaddr 0x%llx and p_offset 0x%llx differ modulo the page (p_align 0x%llx)",
			idx, (ull)s->va, (ull)s->file_off, (ull)a);
	*align = a;
	return 0;
}

/* Sorts @e's segments by va (few of them: insertion). */
static void sort_segs(struct lm_elf *e)
{
	for (unsigned i = 1; i < e->nseg; i++) {
		struct lm_seg s = e->seg[i];
		unsigned j = i;

		for (; j > 0 && e->seg[j - 1].va > s.va; j--)
			e->seg[j] = e->seg[j - 1];
		e->seg[j] = s;
	}
}

/* Refuses overlapping segments and pages two permission sets share. */
static int check_overlap(const struct lm_elf *e, char *why, size_t whylen)
{
	for (unsigned i = 0; i + 1 < e->nseg; i++) {
		const struct lm_seg *a = &e->seg[i], *b = &e->seg[i + 1];
		char pa[4], pb[4];

		if (a->va + a->memsz > b->va)
			return lm_refuse(why, whylen, "overlapping segments: [0x%llx, +0x%llx) and [0x%llx, +0x%llx)",
				(ull)a->va, (ull)a->memsz, (ull)b->va, (ull)b->memsz);
		/* Each page gets one permission set: W^X holds page by page. */
		if (a->flags != b->flags && a->memsz &&
		    page_down(a->va + a->memsz - 1) == page_down(b->va))
			return lm_refuse(why, whylen, "segments at 0x%llx (%s) and 0x%llx (%s) share the page at 0x%llx",
				(ull)a->va, perm(a->flags, pa), (ull)b->va, perm(b->flags, pb),
				(ull)page_down(b->va));
	}
	return 0;
}

int lm_elf_parse(const uint8_t *file, uint64_t size, uint64_t kaslr, uint64_t max_span,
	struct lm_elf *e, char *why, size_t whylen)
{
	uint64_t phoff, phnum, end = 0, lo, dyn_off = 0, dyn_len = 0;
	bool dyn = false;

	if (!max_span)
		max_span = LM_ELF_MAX_SPAN;
	memset(e, 0, sizeof(*e));
	if (check_ident(file, size, why, whylen))
		return -1;
	e->type = le_ld16(file + E_TYPE);
	phoff = le_ld64(file + E_PHOFF);
	phnum = le_ld16(file + E_PHNUM);
	if (le_ld16(file + E_PHENTSIZE) != PH_BYTES)
		return lm_refuse(why, whylen, "program header size %u, not %u",
			le_ld16(file + E_PHENTSIZE), PH_BYTES);
	if (!inside(phoff, phnum * PH_BYTES, size))
		return lm_refuse(why, whylen, "program headers [0x%llx, +%llu x %u) past the end of the file (0x%llx bytes)",
			(ull)phoff, (ull)phnum, PH_BYTES, (ull)size);
	e->align = PT_PAGE_SIZE;
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = file + phoff + (uint64_t)i * PH_BYTES;
		uint32_t type = le_ld32(ph + P_TYPE);
		uint64_t a = 0;

		if (type == PT_DYNAMIC) {
			dyn = true;
			dyn_off = le_ld64(ph + P_OFFSET);
			dyn_len = le_ld64(ph + P_FILESZ);
		}
		if (type != PT_LOAD || !le_ld64(ph + P_MEMSZ))
			continue;
		if (e->nseg == LM_ELF_MAX_SEGS)
			return lm_refuse(why, whylen, "more than %u PT_LOAD segments", LM_ELF_MAX_SEGS);
		if (read_load(ph, i, size, &e->seg[e->nseg], &a, why, whylen))
			return -1;
		if (a > e->align)
			e->align = a;
		e->nseg++;
	}
	if (!e->nseg)
		return lm_refuse(why, whylen, "no PT_LOAD segment");
	sort_segs(e);
	if (check_overlap(e, why, whylen))
		return -1;
	lo = page_down(e->seg[0].va);
	for (unsigned i = 0; i < e->nseg; i++)
		if (e->seg[i].va + e->seg[i].memsz > end)
			end = e->seg[i].va + e->seg[i].memsz;
	/*
	 * The block is whole pages: rounded up, the span is within max_span
	 * exactly when end - lo is within max_span's whole pages, and then the
	 * rounding cannot wrap.
	 */
	if (end - lo > page_down(max_span))
		return lm_refuse(why, whylen, "load span 0x%llx bytes exceeds the limit 0x%llx",
			(ull)(end - lo > UINT64_MAX - (PT_PAGE_SIZE - 1) ? end - lo :
			      (end - lo + PT_PAGE_SIZE - 1) & ~(PT_PAGE_SIZE - 1)), (ull)max_span);
	e->span = (end - lo + PT_PAGE_SIZE - 1) & ~(PT_PAGE_SIZE - 1);

	if (e->type == LM_ET_DYN) {
		/* linked at 0 (or anywhere low): the minimum slide, then KASLR */
		e->slide = lo < LM_KERNEL_MIN_VA ? LM_KERNEL_MIN_VA : 0;
		e->slide += kaslr & ~(e->align - 1);
	}
	if (!ckd_add(&e->va, lo, e->slide) || !ckd_add(&end, e->va, e->span - 1))
		return lm_refuse(why, whylen, "load block at 0x%llx (+0x%llx) slid by 0x%llx runs past the top of the address space",
			(ull)lo, (ull)e->span, (ull)e->slide);
	for (unsigned i = 0; i < e->nseg; i++) {
		e->seg[i].va += e->slide;
		/* the block's va is the lowest segment's page: at or above it too */
		if (e->seg[i].va < LM_KERNEL_MIN_VA)
			return lm_refuse(why, whylen, "segment at 0x%llx is below 0xffffffff80000000 (lower-half kernels are not supported)",
				(ull)e->seg[i].va);
		e->seg[i].off = e->seg[i].va - e->va;
	}
	e->entry = le_ld64(file + E_ENTRY) + e->slide;
	if (e->type == LM_ET_DYN && dyn)
		return plan_relocs(file, size, dyn_off, dyn_len, e, why, whylen);
	return 0;
}

int lm_elf_load(const uint8_t *file, uint64_t size, const struct lm_elf *e,
	uint8_t *dst, uint64_t dst_len, char *why, size_t whylen)
{
	if (dst_len < e->span)
		return lm_refuse(why, whylen, "load block of 0x%llx bytes given 0x%llx",
			(ull)e->span, (ull)dst_len);
	(void)size;   /* parse checked every read below against it */
	memset(dst, 0, e->span);
	for (unsigned i = 0; i < e->nseg; i++)
		memcpy(dst + e->seg[i].off, file + e->seg[i].file_off, e->seg[i].filesz);
	for (uint64_t i = 0; i < e->rela_count; i++) {
		const uint8_t *r = file + e->rela_off + i * RELA_BYTES;
		uint64_t target = le_ld64(r) + e->slide;

		le_st64(dst + (target - e->va), e->slide + le_ld64(r + 16));
	}
	if (e->relr_count)
		walk_relr(file, e, e->relr_off, e->relr_count, dst, why, whylen);
	return 0;
}

int lm_elf_seg_of(const struct lm_elf *e, uint64_t va)
{
	for (unsigned i = 0; i < e->nseg; i++)
		if (va >= e->seg[i].va && va - e->seg[i].va < e->seg[i].memsz)
			return (int)i;
	return -1;
}
