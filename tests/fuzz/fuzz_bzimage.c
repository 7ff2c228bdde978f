/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a bzImage's setup header through lb_parse, then
 * lb_check_run and lb_fill_params.
 *
 * Input: u8 run (bit 0 --levels=5 instead of 4, bit 1 the CPU has LA57,
 * bits 4:2 the refusal buffer's size, see WHY_SIZES), u32 command line
 * length, then the file's bytes (all little endian).
 *
 * lb_parse's result must be the first of enum lb_err that applies, judged
 * here from the header's bytes at boot.rst's offsets; a refusal leaves a
 * non-empty NUL-terminated message.  On acceptance every field of struct
 * lb_kernel equals the header's, the protocol is 2.12 or later with
 * XLF_KERNEL_64, kernel_alignment a power of two of at least 4 KiB,
 * init_size at least the protected-mode kernel, the setup sectors and that
 * kernel inside the file (syssize paragraphs, the last one up to 15 bytes
 * short), and the header (ending before the zero page's 0x290, and after
 * every field read) inside the file.  lb_check_run must answer as its
 * policy says; lb_fill_params must give a zero page that is the file's
 * header with the loader's fields (type_of_loader, the command line, the
 * initrd and the ACPI RSDP from 2.14 on) set and every other byte zero,
 * reading the file (an exact-size copy) only up to the header's end.
 * Violations abort().
 */

#include "linux/linuxboot.h"

#define FUZZ_NAME "fuzz_bzimage"
#include "fuzzkit.h"
#include "../unit/bzimage.h"  /* boot.rst's offsets, independent of linuxboot.h */

#define HDR 5u

#define ZERO_PAGE       4096u
#define HDR_READ_END    (O_INIT_SIZE + 4u)   /* past the last header field lb_parse reads */

/* where the loader put what the kernel reads: values with both 32-bit halves set */
#define CMDLINE_PA   UINT64_C(0x123456789a)
#define INITRD_PA    UINT64_C(0x200001000)
#define INITRD_BYTES UINT64_C(0x100000010)
#define RSDP_PA      UINT64_C(0xfeedbee0)


static const size_t WHY_SIZES[8] = { 256, 1, 2, 16, 64, 256, 256, 256 };

/* The first of enum lb_err that applies to the @len bytes at @f. */
static int expect_parse(const uint8_t *f, uint64_t len)
{
	uint64_t sects, pm_off, sys, have, pm;
	uint32_t align;

	if (len < LB_MIN_FILE)
		return LB_ETRUNCATED;
	if (le_ldn(f + O_BOOT_FLAG, 2) != 0xaa55 || memcmp(f + O_MAGIC, "HdrS", 4))
		return LB_EMAGIC;
	if (le_ldn(f + O_VERSION, 2) < 0x020c)
		return LB_EVERSION;
	if (O_MAGIC + f[O_JUMP] > LB_SETUP_COPY || O_MAGIC + f[O_JUMP] < HDR_READ_END)
		return LB_EMAGIC;
	sects = f[O_SETUP_SECTS] ? f[O_SETUP_SECTS] : 4;
	pm_off = (sects + 1) * 512;
	sys = le_ldn(f + O_SYSSIZE, 4) * 16;
	have = len > pm_off ? len - pm_off : 0;
	if (!sys || have + 15 < sys)
		return LB_ETRUNCATED;
	if (!(le_ldn(f + O_XLOADFLAGS, 2) & 1))
		return LB_E32BIT;
	pm = have < sys ? have : sys;
	if (le_ldn(f + O_INIT_SIZE, 4) < pm)
		return LB_EINITSIZE;
	align = (uint32_t)le_ldn(f + O_KERNEL_ALIGN, 4);
	if (align < 4096 || (align & (align - 1)))
		return LB_EALIGN;
	return LB_OK;
}

/* An accepted kernel's fields against its header. */
static void check_kernel(const uint8_t *f, uint64_t len, const struct lb_kernel *k)
{
	uint64_t sects = f[O_SETUP_SECTS] ? f[O_SETUP_SECTS] : 4, sys = le_ldn(f + O_SYSSIZE, 4) * 16;

	if (k->version != le_ldn(f + O_VERSION, 2) || k->setup_sects != f[O_SETUP_SECTS] ||
	    k->loadflags != f[O_LOADFLAGS] || k->xloadflags != le_ldn(f + O_XLOADFLAGS, 2) ||
	    k->relocatable != f[O_RELOCATABLE] || k->kernel_alignment != le_ldn(f + O_KERNEL_ALIGN, 4) ||
	    k->pref_address != le_ldn(f + O_PREF_ADDRESS, 8) || k->init_size != le_ldn(f + O_INIT_SIZE, 4) ||
	    k->initrd_addr_max != le_ldn(f + O_INITRD_MAX, 4) ||
	    k->cmdline_size != le_ldn(f + O_CMDLINE_SIZE, 4) || k->hdr_end != O_MAGIC + f[O_JUMP])
		fuzz_die("a field differs from the header");
	if (k->version < LB_MIN_VERSION || !(k->xloadflags & LB_XLF_KERNEL_64))
		fuzz_die("accepted a protocol before 2.12 or no 64-bit entry");
	if (k->kernel_alignment < 4096 || (k->kernel_alignment & (k->kernel_alignment - 1)))
		fuzz_die("accepted a kernel_alignment that is not a power of two of at least 4 KiB");
	if (k->pm_offset != (sects + 1) * 512)
		fuzz_die("pm_offset is not past the setup sectors");
	if (!k->pm_bytes || k->pm_offset > len || k->pm_bytes > len - k->pm_offset)
		fuzz_die("the protected-mode kernel is empty or not inside the file");
	if (k->pm_bytes > sys || k->pm_bytes + 15 < sys)
		fuzz_die("pm_bytes is not syssize paragraphs, the last one up to 15 bytes short");
	if (k->init_size < k->pm_bytes)
		fuzz_die("init_size smaller than the kernel it holds");
	if (k->hdr_end > LB_SETUP_COPY || k->hdr_end < HDR_READ_END || LB_SETUP_COPY > len)
		fuzz_die("header past the zero page's copy, before the fields read, or past the file");
}

static void check_run(const struct lb_kernel *k, uint8_t run, uint32_t cmdline, char *why,
		      size_t wl)
{
	unsigned levels = run & 1 ? 5 : 4;
	bool la57 = run & 2;
	int want = LB_OK, got;

	if (levels == 5 && (!(k->xloadflags & LB_XLF_5LEVEL) || !la57))
		want = LB_ELEVELS;
	else if (cmdline > k->cmdline_size)
		want = LB_ECMDLINE;
	memset(why, 0xff, wl);
	got = lb_check_run(k, levels, la57, cmdline, why, wl);
	if (got != want)
		fuzz_die("lb_check_run differs from its policy");
	if (got != LB_OK)
		fuzz_check_why(why, wl, "lb_check_run");
}

static void check_params(const uint8_t *f, const struct lb_kernel *k)
{
	static uint8_t want[ZERO_PAGE];
	uint8_t *zp = malloc(ZERO_PAGE);
	const struct lb_load ld = {
		.cmdline_pa = CMDLINE_PA,
		.initrd_pa = INITRD_PA,
		.initrd_bytes = INITRD_BYTES,
		.acpi_rsdp = RSDP_PA,
	};

	if (!zp)
		fuzz_die("malloc");
	memset(zp, 0xa5, ZERO_PAGE);
	lb_fill_params(zp, f, k, &ld, NULL, 0, NULL);
	memset(want, 0, sizeof(want));
	memcpy(want + O_SETUP_SECTS, f + O_SETUP_SECTS, k->hdr_end - O_SETUP_SECTS);
	want[O_TYPE_OF_LOADER] = 0xff;
	le_stn(want + O_CMDLINE, 4, CMDLINE_PA);
	le_stn(want + O_EXT_CMDLINE, 4, CMDLINE_PA >> 32);
	le_stn(want + O_RAMDISK, 4, INITRD_PA);
	le_stn(want + O_EXT_RAMDISK, 4, INITRD_PA >> 32);
	le_stn(want + O_RAMDISK_SIZE, 4, INITRD_BYTES);
	le_stn(want + O_EXT_RAMDISK_SIZE, 4, INITRD_BYTES >> 32);
	if (k->version >= 0x020e)
		le_stn(want + O_ACPI_RSDP, 8, RSDP_PA);
	if (memcmp(zp, want, ZERO_PAGE))
		fuzz_die("zero page differs from the header with the loader's fields");
	free(zp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lb_kernel k;
	uint64_t len;
	uint32_t cmdline;
	uint8_t *file;
	size_t wl;
	char *why;
	int want, got;

	if (size < HDR)
		return 0;
	cmdline = (uint32_t)le_ldn(data + 1, 4);
	wl = WHY_SIZES[(data[0] >> 2) & 7];
	len = size - HDR;
	fuzz_copies(data + HDR, len, wl, &file, &why);
	want = expect_parse(file, len);
	memset(&k, 0xa5, sizeof(k));
	got = lb_parse(file, len, &k, why, wl);
	if (got != want) {
		fprintf(stderr, "fuzz_bzimage: lb_parse %d, expected %d\n", got, want);
		fuzz_die("lb_parse's result is not the first error that applies");
	}
	if (got != LB_OK) {
		fuzz_check_why(why, wl, "lb_parse");
		goto done;
	}
	check_kernel(file, len, &k);
	check_run(&k, data[0], cmdline, why, wl);
	check_params(file, &k);
done:
	fuzz_free(file, why);
	return 0;
}
