/* SPDX-License-Identifier: MIT */
/*
 * The kernel hand-off (kernel.c), shared by every boot protocol: the
 * --kernel file read and its format recognised from its bytes, every page
 * a protocol places things in taken from one allocator that records it,
 * the checked plan built again after the checks and compared by digest,
 * then the protocol's own checks and its jump.  A protocol is a struct
 * kernel_proto; the run's table of them (p->protos, proto/proto.c) is
 * the only place that names them.
 */
#ifndef PTLAB_EFI_CORE_KERNEL_H
#define PTLAB_EFI_CORE_KERNEL_H

#include <efi.h>
#include <efilib.h>

#include "core/mode.h"
#include "checks/registry.h"
#include "core/kernel_jump.h"

/* The --kernel file as read: @len bytes in pages of ours, given back after the load. */
struct kernel_file {
	const char *path;
	const uint8_t *buf;
	uint64_t len;
};

struct kernel_proto {
	const char *name;            /* the report's prefix: "linux", "limine" */
	const char *format;          /* the file it takes, for a refusal: "a bzImage" */
	const char *magic;           /* what marks such a file: "\"HdrS\" at 0x202" */
	/* Whether the @len bytes at @b are a file of this protocol (its magic, nothing more). */
	bool (*recognise)(const uint8_t *b, uint64_t len);
	/*
	 * Before the run, with --kernel=@path and no --levels (NULL: the
	 * protocol asks for none): the paging levels the kernel asks for,
	 * read from @li's volume, given CPUID's @la57; 0 when it asks for
	 * none or the file is not this protocol's (the load, later, says why).
	 * Nothing stays allocated.
	 */
	unsigned (*levels)(struct report *rep, const char *path, bool la57, EFI_LOADED_IMAGE *li);
	/*
	 * Before ExitBootServices, after the map was normalized: judge the
	 * file and place what the kernel needs, every page through
	 * kernel_alloc().  PT_OK, or an error after a failure line naming the
	 * file and the reason (kernel.c then gives back every page).
	 */
	int (*load)(struct ptlab *p, const struct kernel_file *f, const struct mode_boot *b,
		    unsigned map_cap);
	/* After the final plan: what the protocol adds to it or exempts (NULL: nothing). */
	int (*plan)(struct ptlab *p);
	/*
	 * The protocol's entry for the digest comparison of the tables handed
	 * over (its fault: page 0 mapped before the comparison, kernel.c).
	 */
	const struct ptlab_check *digest_check;
	/*
	 * After the tables were built again and compared: the protocol's own
	 * checks on them and the data the kernel reads.  PT_OK when the jump
	 * may follow (every line reported), an error otherwise.
	 */
	int (*prepare)(struct ptlab *p);
	/* The report closed and the jump; never returns. */
	__attribute__((noreturn)) void (*enter)(struct ptlab *p);
};

/*
 * kernel_jump() - the end of ptlab, every protocol's: CR4 without the
 * global, supervisor-protection, key and PCID bits the kernel did not ask
 * for (PAE set) into @j, then kernel_asm.S's jump with it (interrupts off,
 * the protocol's GDT and selectors, an empty IDT, @j's CR3, RSI and
 * stack, every other register zero).  Never returns.
 */
__attribute__((noreturn)) void kernel_jump(struct kernel_jump *j);

/* The kernel mode: a hand-off that ends in the kernel --kernel names. */
extern const struct mode mode_kernel;

#endif
