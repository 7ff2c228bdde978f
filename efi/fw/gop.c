/* SPDX-License-Identifier: MIT */
/*
 * Graphics Output Protocol capture (see gop.h).
 *
 * Firmware calls: LocateProtocol (GOP), with boot services alive.
 */
#include <efi.h>
#include <efilib.h>

#include "report/fbcon.h"
#include "fw/gop.h"

const char *gop_strerror(int err)
{
	switch (err) {
	case GOP_OK:		return "GOP_OK";
	case GOP_ENOTFOUND:	return "GOP_ENOTFOUND";
	case GOP_ENOMODE:	return "GOP_ENOMODE";
	case GOP_EBLTONLY:	return "GOP_EBLTONLY";
	case GOP_EBITMASK:	return "GOP_EBITMASK";
	case GOP_EFORMAT:	return "GOP_EFORMAT";
	case GOP_EGEOMETRY:	return "GOP_EGEOMETRY";
	}
	return "GOP_E?";
}

int gop_query(EFI_SYSTEM_TABLE *st, struct fb_info *out)
{
	EFI_GUID guid = EFI_GRAPHICS_OUTPUT_PROTOCOL_GUID;
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = NULL;
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info;
	struct fb_info fb;
	EFI_STATUS status;

	status = uefi_call_wrapper(st->BootServices->LocateProtocol, 3, &guid, NULL,
				   (void **)&gop);
	if (EFI_ERROR(status) || !gop)
		return GOP_ENOTFOUND;
	if (!gop->Mode || !gop->Mode->Info)
		return GOP_ENOMODE;
	info = gop->Mode->Info;

	switch (info->PixelFormat) {
	case PixelRedGreenBlueReserved8BitPerColor:
		fb.format = FB_FORMAT_RGBX;
		break;
	case PixelBlueGreenRedReserved8BitPerColor:
		fb.format = FB_FORMAT_BGRX;
		break;
	case PixelBitMask:
		return GOP_EBITMASK;
	case PixelBltOnly:
		return GOP_EBLTONLY;
	default:
		return GOP_EFORMAT;
	}
	fb.base_pa = gop->Mode->FrameBufferBase;
	fb.size = gop->Mode->FrameBufferSize;
	fb.width = info->HorizontalResolution;
	fb.height = info->VerticalResolution;
	fb.stride = info->PixelsPerScanLine;
	if (!fb.base_pa || !fb.width || !fb.height || fb.stride < fb.width ||
	    (uint64_t)fb.stride * fb.height * 4 > fb.size)
		return GOP_EGEOMETRY;
	*out = fb;
	return GOP_OK;
}
