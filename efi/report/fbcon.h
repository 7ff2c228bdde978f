/* SPDX-License-Identifier: MIT */
/*
 * Text console on a linear 32-bit framebuffer, without firmware.
 *
 * Draws lines of text with a built-in 8x16 font (efi/report/font8x16.c) and
 * scrolls by moving pixel rows up when the screen is full.  It needs only
 * the framebuffer's address and geometry, so it keeps working after
 * ExitBootServices (efi/fw/gop.c captures that geometry before).  No firmware
 * types: the same code is compiled into the UEFI app, the host unit test
 * (tests/unit/test_fbcon.c) and the host renderer tests/boot/fbrender.c,
 * which draws the reference images boot tests compare screendumps with.
 *
 * Every framebuffer access goes through a volatile pointer: the memory is a
 * device's, and the compiler must not turn the row copies into calls to
 * memmove (which the app does not have).
 */
#ifndef PTLAB_EFI_FBCON_H
#define PTLAB_EFI_FBCON_H

#include <stdint.h>

/* Pixel formats with the numbers of UEFI's EFI_GRAPHICS_PIXEL_FORMAT. */
enum fb_format {
	FB_FORMAT_RGBX = 0,   /* PixelRedGreenBlueReserved8BitPerColor: byte 0 red */
	FB_FORMAT_BGRX = 1,   /* PixelBlueGreenRedReserved8BitPerColor: byte 0 blue */
};

/* A linear framebuffer as the firmware described it. */
struct fb_info {
	uint64_t base_pa;     /* physical address of pixel (0, 0) */
	uint64_t size;        /* bytes of framebuffer */
	uint32_t width;       /* visible pixels per line */
	uint32_t height;      /* visible lines */
	uint32_t stride;      /* pixels from one line to the next (>= width) */
	enum fb_format format;
};

#define FBCON_GLYPH_W   8u
#define FBCON_GLYPH_H   16u
#define FBCON_FIRST     0x20u   /* first character with a glyph */
#define FBCON_LAST      0xffu   /* last character with a glyph (ISO 8859-1) */
#define FBCON_GAP_FIRST 0x7fu   /* DEL and the C1 controls: no glyph */
#define FBCON_GAP_LAST  0x9fu

/* Colours as 0xRRGGBB. */
#define FBCON_BLACK     0x000000u
#define FBCON_WHITE     0xc0c0c0u   /* plain text */
#define FBCON_GREEN     0x40e040u   /* "ok" */
#define FBCON_RED       0xff4040u   /* "not ok" */
#define FBCON_YELLOW    0xe0e040u   /* "ok ... # SKIP" */
#define FBCON_GREY      0x808080u   /* "# ..." comments and facts */

#define FBCON_EINVAL    (-1)

struct fbcon {
	volatile uint32_t *base;
	uint32_t width, height, stride;
	enum fb_format format;
	unsigned cols;        /* text columns: width / 8 */
	unsigned rows;        /* text rows: height / 16 */
	unsigned row;         /* text row the next line goes to */
	uint32_t bg;          /* background pixel value */
	uint64_t lines;       /* lines written since init */
	uint64_t scrolls;     /* times the screen scrolled */
};

/**
 * fbcon_glyph() - the 16 bitmap rows drawn for a character
 * @ch: any byte
 *
 * Return: the glyph of @ch, or the box for bytes below 0x20 and for
 * 0x7f..0x9f.
 */
const uint8_t *fbcon_glyph(unsigned char ch);

/**
 * fbcon_pixel() - the 32-bit pixel value of a colour in a format
 * @format: FB_FORMAT_RGBX or FB_FORMAT_BGRX
 * @rgb:    0xRRGGBB
 *
 * Return: the value to store so that the pixel shows @rgb.
 */
uint32_t fbcon_pixel(enum fb_format format, uint32_t rgb);

/**
 * fbcon_init() - attach to a framebuffer and clear it
 * @c:      console to set up
 * @base:   pixel (0, 0), reachable by the caller's CPU mapping
 * @width:  visible pixels per line
 * @height: visible lines
 * @stride: pixels per scan line (>= @width)
 * @format: pixel format
 *
 * The visible area is cleared to black and the first line of text goes to
 * the top.  Pixels past @width on a line (up to @stride) are never touched.
 *
 * Return: 0, or FBCON_EINVAL (NULL pointer, screen smaller than one glyph,
 * @stride < @width, unknown format) with @c left untouched.
 */
int fbcon_init(struct fbcon *c, void *base, uint32_t width, uint32_t height,
	       uint32_t stride, enum fb_format format);

/**
 * fbcon_init_info() - fbcon_init() from a struct fb_info
 * @c:    console to set up
 * @fb:   geometry, e.g. from gop_query()
 * @base: @fb->base_pa as the caller's CPU reaches it (identity: the same)
 *
 * Also checks that stride * height * 4 bytes fit in @fb->size.
 *
 * Return: 0 or FBCON_EINVAL (@c left untouched).
 */
int fbcon_init_info(struct fbcon *c, const struct fb_info *fb, void *base);

/**
 * fbcon_clear() - clear the visible area, next line at the top
 * @c: console
 */
void fbcon_clear(struct fbcon *c);

/**
 * fbcon_tap_colour() - colour of a report line by its TAP kind
 * @line: NUL-terminated line
 *
 * Return: FBCON_RED for "not ok", FBCON_YELLOW for "ok ... # SKIP",
 * FBCON_GREEN for other "ok" lines, FBCON_GREY for "# " comments,
 * FBCON_WHITE otherwise.
 */
uint32_t fbcon_tap_colour(const char *line);

/**
 * fbcon_write_line_rgb() - draw one line of text in a colour
 * @c:    console
 * @s:    NUL-terminated text, no line break (a '\n' ends the line early)
 * @rgb:  foreground colour 0xRRGGBB; the background is black
 *
 * The line goes to the next text row; when every row is used, the screen
 * first scrolls up by one row.  Characters past the last column are cut
 * off (clipped, not wrapped); the rest of the row is cleared.  Nothing
 * outside the visible area is written.
 */
void fbcon_write_line_rgb(struct fbcon *c, const char *s, uint32_t rgb);

/**
 * fbcon_write_line() - draw one line coloured by fbcon_tap_colour()
 * @c: console
 * @s: as fbcon_write_line_rgb()
 */
void fbcon_write_line(struct fbcon *c, const char *s);

#endif
