/* SPDX-License-Identifier: MIT */
/*
 * The Limine responses (see lmresp.h).
 *
 * No firmware calls (firmware-free: in the host archive).  One layout
 * function runs twice: first counting only (no buffer), so that a buffer
 * too small is refused before a byte is written, then writing.  Every
 * object is 8-byte aligned in the buffer and zeroed before its fields are
 * set, so padding and reserved fields are 0.  The responses' structures
 * are the kernel's little-endian layouts (limine.h pins them), copied
 * whole.
 */
#include <string.h>

#include "lib/le.h"
#include "limine/lmerr.h"
#include "limine/lmresp.h"

typedef unsigned long long ull;

/* The buffer being laid out: @buf NULL counts only. */
struct bump {
	uint8_t *buf;
	uint64_t va;       /* hhdm + buf_pa: the buffer's address for the kernel */
	uint64_t used;
};

/* Takes @n bytes, 8-aligned and zeroed; returns their offset. */
static uint64_t take(struct bump *b, uint64_t n)
{
	uint64_t off = b->used;

	b->used = (off + n + 7) & ~UINT64_C(7);
	if (b->buf)
		memset(b->buf + off, 0, n);
	return off;
}

/* Returns the kernel's (HHDM) address of buffer offset @off. */
static uint64_t ptr(const struct bump *b, uint64_t off)
{
	return b->va + off;
}

/* Copies @n bytes of @src to buffer offset @off (when writing). */
static void put(struct bump *b, uint64_t off, const void *src, uint64_t n)
{
	if (b->buf)
		memcpy(b->buf + off, src, n);
}

/* Copies a NUL-terminated string into the buffer; returns its kernel address. */
static uint64_t str(struct bump *b, const char *s)
{
	uint64_t n = 1, off;

	while (s[n - 1])
		n++;
	off = take(b, n);

	put(b, off, s, n);
	return ptr(b, off);
}

/*
 * Takes an array of @n pointers followed by @n objects of @size bytes;
 * points each at its object.  Returns the array's offset and sets *@objs
 * to the first object's.
 */
static uint64_t ptr_array(struct bump *b, uint64_t n, uint64_t size, uint64_t *objs)
{
	uint64_t arr = take(b, 8 * n);

	*objs = take(b, size * n);
	for (uint64_t i = 0; i < n && b->buf; i++)
		le_st64(b->buf + arr + 8 * i, ptr(b, *objs + size * i));
	return arr;
}

/*
 * Lays out the response @resp of @size bytes, then ptr_array's array of @n
 * pointers to @elem-byte objects, which @resp points at through its field
 * *@field; the first object's offset in *@objs.  Returns @resp's offset.
 */
static uint64_t resp_array(struct bump *b, void *resp, uint64_t size, uint64_t *field,
			   uint64_t n, uint64_t elem, uint64_t *objs)
{
	uint64_t off = take(b, size);

	*field = ptr(b, ptr_array(b, n, elem, objs));
	put(b, off, resp, size);
	return off;
}

/* Lays out one lm_file for @f; returns its offset. */
static uint64_t file(struct bump *b, const struct lm_machine *m, const struct lm_file_in *f)
{
	struct lm_file x;
	uint64_t off = take(b, sizeof(x));

	memset(&x, 0, sizeof(x));
	x.revision = LM_FILE_REV;
	x.address = m->hhdm + f->pa;
	x.size = f->size;
	x.path = str(b, f->path);
	x.cmdline = str(b, f->cmdline ? f->cmdline : "");
	x.media_type = LM_MEDIA_GENERIC;
	x.partition_index = f->partition_index;
	put(b, off, &x, sizeof(x));
	return off;
}

/* Lays out the framebuffer response; returns its offset. */
static uint64_t framebuffers(struct bump *b, const struct lm_machine *m)
{
	struct lm_resp_framebuffer resp = { .revision = LM_RESP_REV_FRAMEBUFFER, .count = m->nfb };
	uint64_t objs, off = resp_array(b, &resp, sizeof(resp), &resp.framebuffers, m->nfb,
					sizeof(struct lm_framebuffer), &objs);

	for (unsigned i = 0; i < m->nfb; i++) {
		const struct lm_fb_in *f = &m->fb[i];
		struct lm_framebuffer x;

		memset(&x, 0, sizeof(x));
		x.address = m->hhdm + f->pa;
		x.width = f->width;
		x.height = f->height;
		x.pitch = f->pitch;
		x.bpp = f->bpp;
		x.memory_model = LM_FB_RGB;
		x.red_mask_size = f->red_size;
		x.red_mask_shift = f->red_shift;
		x.green_mask_size = f->green_size;
		x.green_mask_shift = f->green_shift;
		x.blue_mask_size = f->blue_size;
		x.blue_mask_shift = f->blue_shift;
		if (f->edid && f->edid_size) {
			uint64_t e = take(b, f->edid_size);

			put(b, e, f->edid, f->edid_size);
			x.edid = ptr(b, e);
			x.edid_size = f->edid_size;
		}
		if (f->modes && f->nmodes) {
			uint64_t mobjs, marr = ptr_array(b, f->nmodes, sizeof(struct lm_video_mode), &mobjs);

			for (unsigned k = 0; k < f->nmodes; k++)
				put(b, mobjs + k * sizeof(struct lm_video_mode), &f->modes[k],
					sizeof(struct lm_video_mode));
			x.mode_count = f->nmodes;
			x.modes = ptr(b, marr);
		}
		put(b, objs + i * sizeof(x), &x, sizeof(x));
	}
	return off;
}

/* Lays out the SMP response; returns its offset, the infos' in *@info. */
static uint64_t smp(struct bump *b, const struct lm_machine *m, uint64_t *info)
{
	struct lm_resp_smp resp = {
		.revision = LM_RESP_REV_DEFAULT, .flags = m->smp_flags,
		.bsp_lapic_id = m->bsp_lapic_id, .cpu_count = m->ncpu,
	};
	uint64_t off = resp_array(b, &resp, sizeof(resp), &resp.cpus, m->ncpu,
				  sizeof(struct lm_smp_info), info);

	for (unsigned i = 0; i < m->ncpu; i++) {
		struct lm_smp_info x;

		memset(&x, 0, sizeof(x));
		x.processor_id = m->cpu[i].processor_id;
		x.lapic_id = m->cpu[i].lapic_id;
		put(b, *info + i * sizeof(x), &x, sizeof(x));   /* goto_address 0: parked */
	}
	return off;
}

/* Lays out the memory map response; returns its offset. */
static uint64_t memmap(struct bump *b, const struct lm_machine *m)
{
	struct lm_resp_memmap resp = { .revision = LM_RESP_REV_DEFAULT, .entry_count = m->nmap };
	uint64_t objs, off = resp_array(b, &resp, sizeof(resp), &resp.entries, m->nmap,
					sizeof(struct lm_memmap_entry), &objs);

	put(b, objs, m->map, (uint64_t)m->nmap * sizeof(struct lm_memmap_entry));
	return off;
}

/* Lays out the module response; returns its offset. */
static uint64_t modules(struct bump *b, const struct lm_machine *m)
{
	struct lm_resp_module resp = { .revision = LM_RESP_REV_MODULE, .module_count = m->nmod };
	uint64_t off = take(b, sizeof(resp));
	uint64_t arr = take(b, 8 * (uint64_t)m->nmod);

	/* no module: no array to point at (the protocol's pointers may be NULL) */
	resp.modules = m->nmod ? ptr(b, arr) : 0;
	put(b, off, &resp, sizeof(resp));
	for (unsigned i = 0; i < m->nmod; i++) {
		uint64_t f = file(b, m, &m->mod[i]);

		if (b->buf)
			le_st64(b->buf + arr + 8 * i, ptr(b, f));
	}
	return off;
}

/* Takes a response of @n bytes holding @src; returns its offset. */
static uint64_t simple(struct bump *b, const void *src, uint64_t n)
{
	uint64_t off = take(b, n);

	put(b, off, src, n);
	return off;
}

/* Returns whether the machine has what a response of @kind needs. */
static bool answerable(const struct lm_machine *m, unsigned kind)
{
	switch (kind) {
	case LM_REQ_FRAMEBUFFER:       return m->nfb > 0;
	case LM_REQ_SMP:               return m->ncpu > 0;
	case LM_REQ_RSDP:              return m->rsdp_pa != 0;
	case LM_REQ_SMBIOS:            return m->smbios32_pa || m->smbios64_pa;
	case LM_REQ_EFI_SYSTEM_TABLE:  return m->efi_st_pa != 0;
	case LM_REQ_EFI_MEMMAP:        return m->efi_map_pa != 0;
	case LM_REQ_BOOT_TIME:         return m->have_time;
	case LM_REQ_DTB:
	case LM_REQ_TERMINAL:          return false;
	default:                       return true;
	}
}

/* Lays out the response of @kind; returns its offset. */
static uint64_t one(struct bump *b, const struct lm_machine *m, unsigned kind, struct lm_answer *a)
{
	switch (kind) {
	case LM_REQ_BOOTLOADER_INFO: {
		struct lm_resp_bootloader_info x = { .revision = LM_RESP_REV_DEFAULT };
		uint64_t off = take(b, sizeof(x));

		x.name = str(b, m->name);
		x.version = str(b, m->version);
		put(b, off, &x, sizeof(x));
		return off;
	}
	case LM_REQ_FIRMWARE_TYPE: {
		struct lm_resp_firmware_type x = { LM_RESP_REV_DEFAULT, m->firmware_type };

		return simple(b, &x, sizeof(x));
	}
	case LM_REQ_HHDM: {
		struct lm_resp_hhdm x = { LM_RESP_REV_DEFAULT, m->hhdm };

		return simple(b, &x, sizeof(x));
	}
	case LM_REQ_FRAMEBUFFER:
		return framebuffers(b, m);
	case LM_REQ_PAGING_MODE: {
		struct lm_resp_paging_mode x = { LM_RESP_REV_DEFAULT, m->paging_mode };

		return simple(b, &x, sizeof(x));
	}
	case LM_REQ_SMP:
		a->nsmp = m->ncpu;
		return smp(b, m, &a->smp_info_off);
	case LM_REQ_MEMMAP:
		return memmap(b, m);
	case LM_REQ_KERNEL_FILE: {
		struct lm_resp_file x = { .revision = LM_RESP_REV_DEFAULT };
		uint64_t off = take(b, sizeof(x));

		x.file = ptr(b, file(b, m, &m->kernel));
		put(b, off, &x, sizeof(x));
		return off;
	}
	case LM_REQ_MODULE:
		return modules(b, m);
	case LM_REQ_RSDP: {
		struct lm_resp_address x = { LM_RESP_REV_DEFAULT, m->hhdm + m->rsdp_pa };

		return simple(b, &x, sizeof(x));
	}
	case LM_REQ_SMBIOS: {
		struct lm_resp_smbios x = {
			LM_RESP_REV_DEFAULT,
			m->smbios32_pa ? m->hhdm + m->smbios32_pa : 0,
			m->smbios64_pa ? m->hhdm + m->smbios64_pa : 0,
		};

		return simple(b, &x, sizeof(x));
	}
	case LM_REQ_EFI_SYSTEM_TABLE: {
		struct lm_resp_address x = { LM_RESP_REV_DEFAULT, m->hhdm + m->efi_st_pa };

		return simple(b, &x, sizeof(x));
	}
	case LM_REQ_EFI_MEMMAP: {
		struct lm_resp_efi_memmap x = {
			LM_RESP_REV_DEFAULT, m->hhdm + m->efi_map_pa, m->efi_map_size,
			m->efi_desc_size, m->efi_desc_version,
		};

		return simple(b, &x, sizeof(x));
	}
	case LM_REQ_BOOT_TIME: {
		struct lm_resp_boot_time x = { LM_RESP_REV_DEFAULT, m->boot_time };

		return simple(b, &x, sizeof(x));
	}
	case LM_REQ_KERNEL_ADDRESS: {
		struct lm_resp_kernel_address x = { LM_RESP_REV_DEFAULT, m->kernel_pa, m->kernel_va };

		return simple(b, &x, sizeof(x));
	}
	default: {
		/* stack size, entry point: the revision alone */
		struct lm_resp_empty x = { LM_RESP_REV_DEFAULT };

		return simple(b, &x, sizeof(x));
	}
	}
}

/* Lays out every response the kernel asked for that the machine can give. */
static void layout(struct bump *b, const struct lm_machine *m, const struct lm_requests *r,
	struct lm_answer *a)
{
	memset(a, 0, sizeof(*a));
	for (unsigned k = 0; k < LM_REQ_COUNT; k++) {
		if (!lm_has(r, k) || !answerable(m, k))
			continue;
		a->resp_off[k] = one(b, m, k, a);
		a->answered |= UINT32_C(1) << k;
	}
	a->used = b->used;
}

/* Checks what the layout relies on; returns 0 or -1 with @why. */
static int check_machine(const struct lm_machine *m, const struct lm_requests *r,
	char *why, size_t whylen)
{
	bool bsp = false;

	if (!m->name || !m->version)
		return lm_refuse(why, whylen, "the loader's name or version is missing");
	if (!m->kernel.path)
		return lm_refuse(why, whylen, "the kernel file's path is missing");
	if (m->ncpu > LM_MAX_CPUS)
		return lm_refuse(why, whylen, "%u CPUs, more than %u", m->ncpu, LM_MAX_CPUS);
	if (m->nmod > LM_MAX_MODULES)
		return lm_refuse(why, whylen, "%u modules, more than %u", m->nmod, LM_MAX_MODULES);
	if (m->nfb > LM_MAX_FBS)
		return lm_refuse(why, whylen, "%u framebuffers, more than %u", m->nfb, LM_MAX_FBS);
	if ((m->nfb && !m->fb) || (m->ncpu && !m->cpu) || (m->nmod && !m->mod) ||
	    (m->nmap && !m->map))
		return lm_refuse(why, whylen, "a list of the machine has a count but no entries");
	for (unsigned i = 0; i < m->nmod; i++)
		if (!m->mod[i].path)
			return lm_refuse(why, whylen, "module %u's path is missing", i);
	for (unsigned i = 0; i < m->nfb; i++)
		if (m->fb[i].nmodes > LM_MAX_MODES || m->fb[i].edid_size > LM_MAX_EDID)
			return lm_refuse(why, whylen, "framebuffer %u: %u modes, %llu EDID bytes (at most %u, %u)",
				i, m->fb[i].nmodes, (ull)m->fb[i].edid_size, LM_MAX_MODES, LM_MAX_EDID);
	for (unsigned i = 0; i < m->ncpu; i++)
		bsp |= m->cpu[i].lapic_id == m->bsp_lapic_id;
	if (m->ncpu && !bsp)
		return lm_refuse(why, whylen, "the BSP's LAPIC ID %u is not among the %u CPUs",
			m->bsp_lapic_id, m->ncpu);
	if (lm_has(r, LM_REQ_MEMMAP) && !m->nmap)
		return lm_refuse(why, whylen, "the kernel asks for the memory map and there is none");
	return 0;
}

int lm_respond(const struct lm_machine *m, const struct lm_requests *r, uint8_t *img,
	uint8_t *buf, uint64_t buf_pa, uint64_t buf_len, struct lm_answer *a,
	char *why, size_t whylen)
{
	struct bump b = { NULL, m->hhdm + buf_pa, 0 };

	if (check_machine(m, r, why, whylen))
		return -1;
	layout(&b, m, r, a);
	if (!buf && !img)
		return 0;
	if (!buf) {
		/* nothing to answer (a kernel that asks for nothing): no buffer, the tag still answered */
		if (a->used)
			return lm_refuse(why, whylen, "the responses need 0x%llx bytes and there is "
					 "no buffer", (ull)a->used);
		lm_base_rev_commit(img, r);
		return 0;
	}
	if ((uintptr_t)buf & 7)
		return lm_refuse(why, whylen, "the responses' buffer at %p is not 8-byte aligned", (void *)buf);
	if (a->used > buf_len)
		return lm_refuse(why, whylen, "the responses need 0x%llx bytes, the buffer has 0x%llx",
			(ull)a->used, (ull)buf_len);
	b.buf = buf;
	b.used = 0;
	layout(&b, m, r, a);
	if (!img)
		return 0;
	for (unsigned k = 0; k < LM_REQ_COUNT; k++)
		if (a->answered >> k & 1)
			le_st64(img + r->req[k].off + LM_REQ_RESPONSE, ptr(&b, a->resp_off[k]));
	lm_base_rev_commit(img, r);
	return 0;
}
