/* SPDX-License-Identifier: MIT */
/*
 * Text console on a linear 32-bit framebuffer (see fbcon.h).
 *
 * No firmware calls (firmware-free: in the host archive).
 */
#include <stddef.h>
#include <stdint.h>

#include "report/fbcon.h"
#include "report/font8x16.h"

const uint8_t *fbcon_glyph(unsigned char ch)
{
	/* FBCON_LAST is 0xff: every byte above FBCON_FIRST has an entry */
	if (ch < FBCON_FIRST || (ch >= FBCON_GAP_FIRST && ch <= FBCON_GAP_LAST))
		return fbcon_font8x16_box;
	return fbcon_font8x16[ch - FBCON_FIRST];
}

uint32_t fbcon_pixel(enum fb_format format, uint32_t rgb)
{
	uint32_t r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;

	/* Little-endian words: byte 0 is bits 7:0. */
	if (format == FB_FORMAT_RGBX)
		return r | g << 8 | b << 16;
	return b | g << 8 | r << 16;
}

/* Fill pixel lines [y0, y0 + n) of the visible area with @px. */
static void fill_lines(struct fbcon *c, uint32_t y0, uint32_t n, uint32_t px)
{
	uint32_t x, y;

	for (y = y0; y < y0 + n; y++) {
		volatile uint32_t *line = c->base + (size_t)y * c->stride;

		for (x = 0; x < c->width; x++)
			line[x] = px;
	}
}

int fbcon_init(struct fbcon *c, void *base, uint32_t width, uint32_t height,
	       uint32_t stride, enum fb_format format)
{
	if (!c || !base || width < FBCON_GLYPH_W || height < FBCON_GLYPH_H ||
	    stride < width)
		return FBCON_EINVAL;
	if (format != FB_FORMAT_RGBX && format != FB_FORMAT_BGRX)
		return FBCON_EINVAL;

	c->base = base;
	c->width = width;
	c->height = height;
	c->stride = stride;
	c->format = format;
	c->cols = width / FBCON_GLYPH_W;
	c->rows = height / FBCON_GLYPH_H;
	c->bg = fbcon_pixel(format, FBCON_BLACK);
	c->lines = 0;
	c->scrolls = 0;
	fbcon_clear(c);
	return 0;
}

int fbcon_init_info(struct fbcon *c, const struct fb_info *fb, void *base)
{
	if (!fb || fb->stride < fb->width ||
	    (uint64_t)fb->stride * fb->height * 4 > fb->size)
		return FBCON_EINVAL;
	return fbcon_init(c, base, fb->width, fb->height, fb->stride, fb->format);
}

void fbcon_clear(struct fbcon *c)
{
	fill_lines(c, 0, c->height, c->bg);
	c->row = 0;
}

/* Does @s start with @prefix? */
static int starts(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return 1;
}

/* Does the directive part of a TAP line say SKIP ("# SKIP" anywhere)? */
static int has_skip(const char *s)
{
	for (; *s; s++)
		if (starts(s, "# SKIP") || starts(s, "# skip"))
			return 1;
	return 0;
}

uint32_t fbcon_tap_colour(const char *line)
{
	if (starts(line, "not ok"))
		return FBCON_RED;
	if (starts(line, "ok ") || (starts(line, "ok") && line[2] == '\0'))
		return has_skip(line) ? FBCON_YELLOW : FBCON_GREEN;
	if (line[0] == '#')
		return FBCON_GREY;
	return FBCON_WHITE;
}

/*
 * Move text rows 1..rows-1 up by one.  Copies in ascending address order,
 * so the overlapping move is safe; only the visible @width pixels of each
 * line are read and written.  The last row keeps its old pixels: the line
 * drawn next repaints every pixel of it.
 */
static void scroll(struct fbcon *c)
{
	uint32_t used = c->rows * FBCON_GLYPH_H, x, y;

	for (y = 0; y + FBCON_GLYPH_H < used; y++) {
		volatile uint32_t *dst = c->base + (size_t)y * c->stride;
		volatile uint32_t *src = dst + (size_t)FBCON_GLYPH_H * c->stride;

		for (x = 0; x < c->width; x++)
			dst[x] = src[x];
	}
	c->scrolls++;
}

void fbcon_write_line_rgb(struct fbcon *c, const char *s, uint32_t rgb)
{
	uint32_t fg = fbcon_pixel(c->format, rgb);
	uint32_t y0, gy, x, col;

	if (c->row >= c->rows) {
		scroll(c);
		c->row = c->rows - 1;
	}
	y0 = c->row * FBCON_GLYPH_H;

	for (gy = 0; gy < FBCON_GLYPH_H; gy++) {
		volatile uint32_t *line = c->base + (size_t)(y0 + gy) * c->stride;
		const char *p = s;

		x = 0;
		for (col = 0; col < c->cols; col++) {
			unsigned bits = 0, b;

			if (p && *p && *p != '\n')
				bits = fbcon_glyph((unsigned char)*p++)[gy];
			else
				p = NULL;
			for (b = 0; b < FBCON_GLYPH_W; b++, x++)
				line[x] = (bits & (0x80u >> b)) ? fg : c->bg;
		}
		/* The partial cell right of the last column. */
		for (; x < c->width; x++)
			line[x] = c->bg;
	}
	c->row++;
	c->lines++;
}

void fbcon_write_line(struct fbcon *c, const char *s)
{
	fbcon_write_line_rgb(c, s, fbcon_tap_colour(s));
}
