/* SPDX-License-Identifier: MIT */
/* The names of the EFI status codes (see efistatus.h).  No firmware calls. */
#include <stddef.h>

#include "lib/efistatus.h"

#define EFI_ERROR_BIT (UINT64_C(1) << 63)

/* UEFI 2.10 Appendix D, Table D.3: the error codes, by their number with the high bit clear. */
static const char *const errors[] = {
	[1] = "EFI_LOAD_ERROR", [2] = "EFI_INVALID_PARAMETER", [3] = "EFI_UNSUPPORTED",
	[4] = "EFI_BAD_BUFFER_SIZE", [5] = "EFI_BUFFER_TOO_SMALL", [6] = "EFI_NOT_READY",
	[7] = "EFI_DEVICE_ERROR", [8] = "EFI_WRITE_PROTECTED", [9] = "EFI_OUT_OF_RESOURCES",
	[10] = "EFI_VOLUME_CORRUPTED", [11] = "EFI_VOLUME_FULL", [12] = "EFI_NO_MEDIA",
	[13] = "EFI_MEDIA_CHANGED", [14] = "EFI_NOT_FOUND", [15] = "EFI_ACCESS_DENIED",
	[16] = "EFI_NO_RESPONSE", [17] = "EFI_NO_MAPPING", [18] = "EFI_TIMEOUT",
	[19] = "EFI_NOT_STARTED", [20] = "EFI_ALREADY_STARTED", [21] = "EFI_ABORTED",
	[22] = "EFI_ICMP_ERROR", [23] = "EFI_TFTP_ERROR", [24] = "EFI_PROTOCOL_ERROR",
	[25] = "EFI_INCOMPATIBLE_VERSION", [26] = "EFI_SECURITY_VIOLATION", [27] = "EFI_CRC_ERROR",
	[28] = "EFI_END_OF_MEDIA", [31] = "EFI_END_OF_FILE", [32] = "EFI_INVALID_LANGUAGE",
	[33] = "EFI_COMPROMISED_DATA", [34] = "EFI_IP_ADDRESS_CONFLICT", [35] = "EFI_HTTP_ERROR",
};

/* Table D.4: the warnings (high bit clear), 0 being EFI_SUCCESS (Table D.2). */
static const char *const warnings[] = {
	[0] = "EFI_SUCCESS", [1] = "EFI_WARN_UNKNOWN_GLYPH", [2] = "EFI_WARN_DELETE_FAILURE",
	[3] = "EFI_WARN_WRITE_FAILURE", [4] = "EFI_WARN_BUFFER_TOO_SMALL",
	[5] = "EFI_WARN_STALE_DATA", [6] = "EFI_WARN_FILE_SYSTEM", [7] = "EFI_WARN_RESET_REQUIRED",
};

const char *efi_status_name(uint64_t st)
{
	uint64_t code = st & ~EFI_ERROR_BIT;
	const char *name = NULL;

	if (st & EFI_ERROR_BIT) {
		if (code < sizeof(errors) / sizeof(errors[0]))
			name = errors[code];
	} else if (code < sizeof(warnings) / sizeof(warnings[0])) {
		name = warnings[code];
	}
	return name ? name : "a status the UEFI spec does not name";
}
