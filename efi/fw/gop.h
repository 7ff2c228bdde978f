/* SPDX-License-Identifier: MIT */
/*
 * Capture the linear framebuffer of the Graphics Output Protocol, so that
 * efi/report/fbcon.c can draw on it after ExitBootServices.
 */
#ifndef PTLAB_EFI_GOP_H
#define PTLAB_EFI_GOP_H

#include <efi.h>

#include "report/fbcon.h"

enum gop_err {
	GOP_OK = 0,
	GOP_ENOTFOUND = -1,   /* no Graphics Output Protocol (LocateProtocol failed) */
	GOP_ENOMODE = -2,     /* protocol without Mode or Mode->Info */
	GOP_EBLTONLY = -3,    /* PixelBltOnly: no framebuffer to draw on */
	GOP_EBITMASK = -4,    /* PixelBitMask: channel layout fbcon does not draw */
	GOP_EFORMAT = -5,     /* a PixelFormat value beyond the spec's */
	GOP_EGEOMETRY = -6,   /* base 0, empty screen, stride < width, or size too small */
};

/**
 * gop_strerror() - name of a gop_query() result
 * @err: enum gop_err value
 *
 * Return: "GOP_OK", "GOP_EBLTONLY", ...; "GOP_E?" for other values.
 */
const char *gop_strerror(int err);

/**
 * gop_query() - describe the current GOP mode's framebuffer
 * @st:  system table; boot services must still be available
 * @out: filled on success: base_pa = Mode->FrameBufferBase, size =
 *       Mode->FrameBufferSize, width/height = Info->Horizontal/VerticalResolution,
 *       stride = Info->PixelsPerScanLine, format from Info->PixelFormat
 *
 * Takes the first Graphics Output Protocol LocateProtocol returns (the
 * console's on OVMF) and does not change its mode.  Only the two 32-bit
 * formats fbcon draws are accepted; the framebuffer must hold
 * stride * height 4-byte pixels.
 *
 * Return: GOP_OK, or a negative enum gop_err with @out untouched.
 */
int gop_query(EFI_SYSTEM_TABLE *st, struct fb_info *out);

#endif
