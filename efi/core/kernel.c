/* SPDX-License-Identifier: MIT */
/*
 * The kernel mode: the hand-off ending in a kernel (--kernel), the same
 * pipeline for every boot protocol (kernel.h):
 *
 *  1. before ExitBootServices: the file read from the boot volume at its
 *     size (asked first, one read into pages of exactly that size), its
 *     protocol recognised from its bytes (a bzImage's "HdrS" at 0x202:
 *     Linux, linux.c; an ELF file: the Limine protocol, lmhandoff.c; anything
 *     else refused, saying what it looked like), the protocol's load
 *     placing everything in pages from kernel_alloc() (kalloc.c: owned by
 *     the application and recorded, so a refusal gives back every one);
 *  2. after the final plan: the protocol's additions to it;
 *  3. after the checks: nothing is handed over unless every check passed;
 *     the checked plan is applied again to fresh frames and compared leaf
 *     for leaf (by digest) with the build the checks ran on; then the
 *     protocol's own checks on the tables to hand over, and its jump.
 *
 * Firmware calls (before ExitBootServices only): the file protocols
 * (fsfile.c); AllocatePages and FreePages through kalloc.c.
 */
#include "checks/checkkit.h"
#include "bringup/bringup.h"
#include "core/handoff.h"
#include "core/kalloc.h"
#include "core/kernel.h"
#include "core/run.h"
#include "core/verdict.h"
#include "fw/fsfile.h"
#include "checks/inject.h"
#include "report/fmt.h"
#include "report/report.h"
#include "smp/smp.h"

#include <ptlab/pte.h>

#define KERNEL_MAX      (256u << 20)          /* a larger --kernel is refused */
/*
 * The protocol of the file's bytes, or NULL with, in @why, what they
 * looked like and the files the protocols take: the first protocol of
 * @protos that recognises them wins (a bzImage with an EFI stub is a PE
 * file too, so the order is the table's).
 */
static const struct kernel_proto *recognise(const struct kernel_proto *const *protos,
					    const uint8_t *b, uint64_t len, char *why, size_t n)
{
	const char *hint = NULL, *tail = "";
	size_t at;

	for (const struct kernel_proto *const *k = protos; *k; k++)
		if ((*k)->recognise(b, len))
			return *k;
	if (len >= 2 && b[0] == 'M' && b[1] == 'Z') {
		hint = "a PE/COFF image without a Linux setup header (no \"HdrS\" at 0x202)";
	} else if (len >= 6 && b[0] == '0' && b[1] == '7' && b[2] == '0' && b[3] == '7' &&
		   b[4] == '0' && (b[5] == '1' || b[5] == '2')) {
		hint = "a cpio archive (an initramfs?)";
	} else if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
		hint = "a gzip stream";
		tail = " (decompress it first)";
	}
	if (hint)
		fmt_snprintf(why, n, "%s", hint);
	else
		fmt_snprintf(why, n, "%llu bytes beginning %02x %02x %02x %02x",
			     (unsigned long long)len, len > 0 ? b[0] : 0, len > 1 ? b[1] : 0,
			     len > 2 ? b[2] : 0, len > 3 ? b[3] : 0);
	/* ": neither A nor B", each with its magic when the bytes named no kind of file */
	for (const struct kernel_proto *const *k = protos; *k; k++) {
		at = fmt_strlen(why);
		fmt_snprintf(why + at, n - at, "%s%s%s%s%s", k == protos ? ": neither " : " nor ",
			     (*k)->format, hint ? "" : " (", hint ? "" : (*k)->magic, hint ? "" : ")");
	}
	at = fmt_strlen(why);
	fmt_snprintf(why + at, n - at, "%s", tail);
	return NULL;
}

/* kernel_asm.S */
__attribute__((noreturn)) void kernel_jump_asm(const struct kernel_jump *j);

void kernel_jump(struct kernel_jump *j)
{
	j->cr4 = (read_cr4() & ~(CR4_PGE | CR4_SMEP | CR4_SMAP | CR4_PKE | CR4_PCIDE)) | CR4_PAE;
	kernel_jump_asm(j);
}

static bool may_hand_over(const struct report *r, bool aborted)
{
	return verdict_of(r, aborted) == VERDICT_PASSED;
}

/* The protocol @proto's "not handed over" note on @r, the run's report (@aborted: its flag). */
static void kernel_not_handed_over(struct report *r, const struct kernel_proto *proto,
				   bool aborted)
{
	report_note(r, "%s: not handed over: %u check(s) failed%s", proto->name, r->failed,
		    aborted ? ", the run was aborted" : "");
}

/* Before ExitBootServices: the file read, recognised and loaded, or boot services kept. */
static int kernel_before_exit(struct ptlab *p, const struct mode_boot *b, unsigned map_cap)
{
	const struct opts *o = &p->opts;
	const struct kernel_proto *proto;
	struct kernel_file f = { .path = o->kernel };
	uint64_t pa = 0, len = 0;
	char why[256];
	int err = PT_EINVAL;

	p->kern = (struct ptlab_kernel){ 0 };
	if (fsfile_load(b->li->DeviceHandle, o->kernel, KERNEL_MAX, UINT64_MAX, &pa, &len, why,
			sizeof(why)) != EFI_SUCCESS) {
		report_fail(p->rep, "kernel: %s", why);
	} else if (len == 0) {
		report_fail(p->rep, "kernel: %s is empty", o->kernel);
	} else {
		const uint8_t *buf = (const uint8_t *)(uintptr_t)pa;

		proto = recognise(p->protos, buf, len, why, sizeof(why));
		if (!proto) {
			report_fail(p->rep, "kernel: %s refused: %s", o->kernel, why);
		} else {
			p->kern.proto = proto;
			f.buf = buf;
			f.len = len;
			err = proto->load(p, &f, b, map_cap);
		}
	}
	fsfile_unload(pa, len);
	if (err == PT_OK) {
		p->kern.on = true;
		return PT_OK;
	}
	kernel_free_all(&p->kern);
	report_note(p->rep, "handoff: boot services kept: the kernel was refused before "
		    "ExitBootServices, nothing of it stays allocated");
	return PT_EINVAL;
}

/* After the run's plan (run.c): the protocol's entries and exemptions. */
static int kernel_plan(struct ptlab *p)
{
	if (!p->kern.on || !p->kern.proto->plan)
		return PT_OK;
	return p->kern.proto->plan(p);
}

/*
 * The checked plan again, on the frames the checks gave back, compared
 * leaf for leaf (by digest) with the build the checks ran on.  PT_OK when
 * built (the comparison reported either way), an error after a failure
 * line when it could not be built.
 */
static int rebuild(struct ptlab *p)
{
	const struct kernel_proto *proto = p->kern.proto;
	struct ptlab_build *b = &p->build;
	struct pt_flushlist fl;
	uint64_t leaves, digest;
	int err;

	err = pt_create(&b->space, &b->env, b->levels);
	if (!err)
		err = pt_plan_apply(&b->space, &b->plan);
	if (err) {
		check_report(p->rep, proto->digest_check, false,
			     "%s: the tables to hand over could not be built: %s", proto->name,
			     pt_strerror(err));
		if (b->space.root_pa)
			pt_destroy(&b->space);
		return err;
	}
	b->our_cr3 = b->space.root_pa;
	/* the digest check's fault: page 0, which no plan maps, mapped before the comparison */
	if (inject_on(&p->opts, proto->digest_check) &&
	    pt_map(&b->space, 0, 0, PT_PAGE_SIZE, PT_WRITE, PT_PAGE_4K, &fl) == PT_OK)
		report_note(p->rep, "inject: %s planted (page 0 mapped before the comparison)",
			    proto->digest_check->fault.name);
	digest = run_digest(&b->space, &leaves);
	if (digest == b->digest && leaves == b->digest_leaves)
		check_report(p->rep, proto->digest_check, true, "%s: the tables handed over (root "
			     "0x%llx) are the checked plan built again: %llu leaves, the same digest "
			     "0x%llx as the build the checks ran on", proto->name,
			     (unsigned long long)b->our_cr3, (unsigned long long)leaves,
			     (unsigned long long)digest);
	else
		check_report(p->rep, proto->digest_check, false, "%s: the tables to hand over differ "
			     "from the checked build: %llu leaves digest 0x%llx, checked %llu leaves "
			     "digest 0x%llx", proto->name, (unsigned long long)leaves,
			     (unsigned long long)digest, (unsigned long long)b->digest_leaves,
			     (unsigned long long)b->digest);
	return PT_OK;
}

/* After the checks: the jump when the tables may be handed over; else the hand-off's end. */
static void kernel_after_checks(struct ptlab *p)
{
	const struct kernel_proto *proto = p->kern.proto;

	if (!p->kern.on)
		return;
	if (!may_hand_over(p->rep, p->aborted)) {
		kernel_not_handed_over(p->rep, proto, p->aborted);
		return;
	}
	if (rebuild(p) != PT_OK) {
		kernel_not_handed_over(p->rep, proto, p->aborted);
		return;
	}
	if (proto->prepare(p) == PT_OK && may_hand_over(p->rep, p->aborted))
		proto->enter(p);
	kernel_not_handed_over(p->rep, proto, p->aborted);
}

/*
 * The kernel mode: the hand-off mode with the kernel placed before
 * ExitBootServices, its protocol's plan, and the jump after the checks
 * instead of the --end action.
 */
const struct mode mode_kernel = {
	HANDOFF_MODE_OPS,
	.before_exit = kernel_before_exit,
	.plan = kernel_plan,
	.after_checks = kernel_after_checks,
};
