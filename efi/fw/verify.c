/* SPDX-License-Identifier: MIT */
/*
 * Secure Boot for the images ptlab loads itself (see verify.h).
 *
 * The bytes judged are the bytes that are run: the caller's buffer, read
 * once, which it copies from afterwards.  The firmware's judgement is
 * LoadImage from that buffer with a device path naming the file (the
 * firmware's policy may depend on where an image comes from); a loaded
 * image is unloaded at once and never started.
 *
 * Firmware calls (boot services alive): LocateProtocol (SHIM_LOCK),
 * shim's Verify, LoadImage, UnloadImage, FileDevicePath's AllocatePool and
 * FreePool.
 */
#include <efi.h>
#include <efilib.h>

#include "lib/efistatus.h"
#include "fw/firmware.h"
#include "fw/verify.h"
#include "lib/trust.h"
#include "lib/trustlist.h"
#include "report/fmt.h"

#define NAME_MAX16 256u

/*
 * shim's protocol for its loader: Verify(buffer, size) judges a PE image.
 * Unlike every UEFI protocol, shim's functions use the System V calling
 * convention on x86-64, not EFIAPI (the Microsoft one): shim declares them
 * without EFIAPI and builds without ms_abi, and the loaders that call it
 * (GRUB, systemd-boot) declare them sysv_abi.  Called as EFIAPI, the buffer
 * and size arrive in RCX and RDX while shim reads RDI and RSI, and shim
 * answers EFI_UNSUPPORTED or worse.  Only Verify is called; the other two
 * entries are never used and keep no type.
 */
static EFI_GUID shim_lock_guid = { 0x605dab50, 0xe046, 0x4300,
				   { 0xab, 0xb6, 0x3d, 0xd8, 0x10, 0xdd, 0x8b, 0x23 } };

struct shim_lock {
	EFI_STATUS (__attribute__((sysv_abi)) *verify)(void *buffer, UINT32 size);
	void *hash;
	void *context;
};

bool verify_enforced(void)
{
	return fw_info.secure_boot && !fw_info.setup_mode;
}

/* shim's SHIM_LOCK protocol, or NULL: shim installs it before it starts its second stage */
static struct shim_lock *shim_find(void)
{
	struct shim_lock *shim = NULL;

	if (uefi_call_wrapper(BS->LocateProtocol, 3, &shim_lock_guid, NULL,
			      (void **)&shim) != EFI_SUCCESS)
		return NULL;
	return shim;
}

void verify_report(struct report *rep)
{
	bool shim = shim_find() != NULL, on = verify_enforced();

	report_fact(rep, "secureboot", "state=%s shim=%s via=%s", on ? "on" :
		    fw_info.secure_boot ? "setup" : "off", shim ? "yes" : "no",
		    !on ? "none" : shim ? "shim" : "firmware");
}

static const char *kind_name(enum verify_kind kind)
{
	return kind == VERIFY_PE ? "pe" : "digest";
}

/* shim's judgement; 0 when it accepts, -1 after @why. */
static int by_shim(struct shim_lock *shim, const void *buf, size_t len, char *why, size_t whylen)
{
	EFI_STATUS st;

	if (len > UINT32_MAX) {
		fmt_snprintf(why, whylen, "Secure Boot: %llu bytes is more than shim's Verify takes",
			     (unsigned long long)len);
		return -1;
	}
	/* a direct call: uefi_call_wrapper() is for EFIAPI functions only */
	st = shim->verify((void *)buf, (UINT32)len);
	if (st == EFI_SUCCESS)
		return 0;
	fmt_snprintf(why, whylen, "Secure Boot: shim refuses it (SHIM_LOCK Verify): "
		     "status 0x%llx (%s)", (unsigned long long)st, efi_status_name(st));
	return -1;
}

/*
 * The firmware's judgement by its Secure Boot policy (db, dbx): LoadImage
 * of the buffer, then UnloadImage of whatever handle it made.  0 when it
 * loaded the image, -1 after @why.  The device path FileDevicePath
 * allocated is freed.
 */
static int by_firmware(const struct verify_src *src, const void *buf, size_t len,
		       const char *path, char *why, size_t whylen)
{
	CHAR16 name[NAME_MAX16];
	EFI_DEVICE_PATH *dp;
	EFI_HANDLE h = NULL;
	EFI_STATUS st, ust = EFI_SUCCESS;
	unsigned i;

	for (i = 0; path[i] && i + 1 < NAME_MAX16; i++)
		name[i] = path[i] == '/' ? L'\\' : (CHAR16)(unsigned char)path[i];
	name[i] = 0;
	dp = FileDevicePath(src->device, name);
	st = uefi_call_wrapper(BS->LoadImage, 6, FALSE, src->self, dp, (void *)buf, (UINTN)len, &h);
	if (dp)
		FreePool(dp);
	/* SECURITY_VIOLATION may come with a handle: loaded, not to be started */
	if ((st == EFI_SUCCESS || st == EFI_SECURITY_VIOLATION) && h)
		ust = uefi_call_wrapper(BS->UnloadImage, 1, h);
	if (st == EFI_SUCCESS && ust == EFI_SUCCESS)
		return 0;
	if (st == EFI_SUCCESS)
		fmt_snprintf(why, whylen, "Secure Boot: the firmware loaded it but could not "
			     "unload it again: UnloadImage status 0x%llx (%s)", (unsigned long long)ust,
			     efi_status_name(ust));
	else if (st == EFI_SECURITY_VIOLATION || st == EFI_ACCESS_DENIED)
		fmt_snprintf(why, whylen, "Secure Boot: the firmware's policy (db/dbx) refuses "
			     "it: LoadImage status 0x%llx (%s)", (unsigned long long)st, efi_status_name(st));
	else
		fmt_snprintf(why, whylen, "Secure Boot: the firmware cannot verify it (no PE "
			     "image it loads): LoadImage status 0x%llx (%s)", (unsigned long long)st,
			     efi_status_name(st));
	return -1;
}

int verify_image(const struct verify_src *src, const void *buf, size_t len, const char *path,
		 enum verify_kind kind, char *why, size_t whylen)
{
	struct shim_lock *shim;
	const struct trust_digest *d;
	const char *by;

	if (!verify_enforced()) {
		report_fact(src->rep, "verify", "file=%s kind=%s bytes=%llu by=none: Secure Boot "
			    "is %s (SecureBoot=%d SetupMode=%d), nothing is verified", path,
			    kind_name(kind), (unsigned long long)len,
			    fw_info.secure_boot ? "not enforced in setup mode" : "off",
			    fw_info.secure_boot, fw_info.setup_mode);
		return 0;
	}
	if (kind == VERIFY_DIGEST) {
		char miss[160];

		d = trust_check(&trust_builtin, buf, len, miss, sizeof(miss));
		if (!d) {
			fmt_snprintf(why, whylen, "Secure Boot: %s", miss);
			return -1;
		}
		report_fact(src->rep, "verify", "file=%s kind=digest bytes=%llu by=digest "
			    "entry=%s (one of %u built in)", path, (unsigned long long)len, d->name,
			    trust_builtin.n);
		return 0;
	}
	shim = shim_find();
	if (shim) {
		if (by_shim(shim, buf, len, why, whylen))
			return -1;
		by = "shim";
	} else {
		if (by_firmware(src, buf, len, path, why, whylen))
			return -1;
		by = "firmware";
	}
	report_fact(src->rep, "verify", "file=%s kind=pe bytes=%llu by=%s", path,
		    (unsigned long long)len, by);
	return 0;
}
