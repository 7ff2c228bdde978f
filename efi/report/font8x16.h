/* SPDX-License-Identifier: MIT */
/*
 * The console's font (font8x16.c): the glyphs fbcon.c draws.
 * Firmware-free.
 */
#ifndef PTLAB_EFI_FONT8X16_H
#define PTLAB_EFI_FONT8X16_H

#include <stdint.h>

#include "report/fbcon.h"

/*
 * The glyphs of FBCON_FIRST..FBCON_LAST (ISO 8859-1), 16 rows each, bit 7
 * leftmost: Terminus 8x16, converted at build time (efi/report/font8x16.c).
 */
extern const uint8_t fbcon_font8x16[FBCON_LAST - FBCON_FIRST + 1][FBCON_GLYPH_H];
/* Drawn for characters without a glyph: a hollow box. */
extern const uint8_t fbcon_font8x16_box[FBCON_GLYPH_H];

#endif
