/* SPDX-License-Identifier: MIT */
/*
 * Secure Boot for what ptlab boots: before control goes to an image ptlab
 * loaded itself (a Linux kernel, a Limine-protocol kernel or module, an
 * initrd), its bytes are judged, when Secure Boot is on, by shim, by the
 * firmware's own db/dbx policy, or by the digest list built into the
 * signed image (lib/trust.h).  docs/firmware.md says what a signed ptlab
 * will and will not run.
 */
#ifndef PTLAB_EFI_VERIFY_H
#define PTLAB_EFI_VERIFY_H

#include <efi.h>

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"

enum verify_kind {
	/*
	 * A PE/COFF image (a bzImage is one through its EFI stub): shim's
	 * SHIM_LOCK Verify when shim started ptlab, else the firmware's
	 * LoadImage (db, dbx), the image unloaded again and never started.
	 */
	VERIFY_PE,
	/* anything else: its SHA-256 must be in the built-in digest list */
	VERIFY_DIGEST,
};

/* Where the file came from and who asks. */
struct verify_src {
	EFI_HANDLE self;        /* ptlab's image handle: LoadImage's parent */
	EFI_HANDLE device;      /* the volume the file was read from */
	struct report *rep;     /* where an acceptance is said ("# verify:") */
};

/* Secure Boot is enforced: SecureBoot=1 and SetupMode=0 (firmware.c read them). */
bool verify_enforced(void);

/**
 * verify_report() - the "# secureboot:" fact: state=on|off|setup (Secure
 * Boot enforced, off, or on in setup mode), shim=yes|no (shim's SHIM_LOCK
 * protocol is installed: shim started ptlab), via=shim|firmware|none (who
 * verified ptlab itself, and judges the PE images it loads).
 */
void verify_report(struct report *rep);

/**
 * verify_image() - may the @len bytes at @buf (the file @path) be run?
 * @kind:  how they are judged (ignored when Secure Boot is off)
 * @why:   on refusal: the reason, with the firmware's or shim's status
 *
 * Boot services must be alive.  With Secure Boot off nothing is judged and
 * a "# verify:" line says so.  Return: 0 when the bytes may be run (a
 * "# verify:" line says by whom); -1 when they are refused.  Either way
 * nothing it allocated stays allocated and no image it loaded stays loaded
 * (one the firmware would not unload again is refused for that); @buf is
 * only read.
 */
int verify_image(const struct verify_src *src, const void *buf, size_t len, const char *path,
		 enum verify_kind kind, char *why, size_t whylen);

#endif
