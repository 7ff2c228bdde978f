/* SPDX-License-Identifier: MIT */
/* covers: efi/report/fbcon.c efi/report/font8x16.c */
/*
 * efi/report/fbcon.c on the host: text drawn into malloc'd framebuffers whose
 * padding (stride past width, lines past height) holds a canary, so a
 * stray write is seen here and one past the allocation is caught by ASan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#include "../../efi/report/fbcon.h"
#include "../../efi/report/font8x16.h"


#define CANARY 0xdeadbeefu

struct fb {
	uint32_t *px;
	uint32_t width, height, stride, lines;   /* lines allocated >= height */
	struct fbcon con;
};

/* A framebuffer of exactly stride * lines pixels, all CANARY, and init. */
static void fb_new(struct fb *f, uint32_t width, uint32_t height, uint32_t stride,
		   uint32_t lines, enum fb_format fmt)
{
	size_t i, n = (size_t)stride * lines;

	f->px = malloc(n * sizeof(uint32_t));
	assert_non_null(f->px);
	for (i = 0; i < n; i++)
		f->px[i] = CANARY;
	f->width = width;
	f->height = height;
	f->stride = stride;
	f->lines = lines;
	assert_int_equal(fbcon_init(&f->con, f->px, width, height, stride, fmt), 0);
}

static uint32_t at(const struct fb *f, uint32_t x, uint32_t y)
{
	return f->px[(size_t)y * f->stride + x];
}

/* Every pixel outside the visible area still holds the canary. */
static void assert_padding_intact(const struct fb *f)
{
	uint32_t x, y;

	for (y = 0; y < f->lines; y++)
		for (x = 0; x < f->stride; x++)
			if (x >= f->width || y >= f->height)
				assert_int_equal(at(f, x, y), CANARY);
}

/*
 * The character drawn in text cell (col, row): the one whose glyph has
 * exactly the cell's foreground pixels; '\0' for a blank cell, '?' + 0x80
 * (never a glyph) when nothing matches.
 */
static int cell_char(const struct fb *f, unsigned col, unsigned row)
{
	uint32_t bg = f->con.bg;
	int ch;

	for (ch = FBCON_FIRST; ch <= (int)FBCON_LAST; ch++) {
		const uint8_t *g = fbcon_glyph((unsigned char)ch);
		unsigned gx, gy;
		int same = g != fbcon_font8x16_box;

		for (gy = 0; gy < FBCON_GLYPH_H && same; gy++)
			for (gx = 0; gx < FBCON_GLYPH_W && same; gx++) {
				int on = at(f, col * 8 + gx, row * 16 + gy) != bg;

				same = on == !!(g[gy] & (0x80 >> gx));
			}
		if (same)
			return ch == ' ' ? '\0' : ch;
	}
	return '?' + 0x80;
}

/* The text of row @row, trailing blanks dropped. */
static void row_text(const struct fb *f, unsigned row, char *out, size_t size)
{
	unsigned col, n = 0, last = 0;

	for (col = 0; col < f->con.cols && n + 1 < size; col++) {
		int ch = cell_char(f, col, row);

		out[n++] = ch ? (char)ch : ' ';
		if (ch)
			last = n;
	}
	out[last] = '\0';
}

/* Text row @row of the console reads @want. */
static void expect_row(const struct fb *f, unsigned row, const char *want)
{
	char text[64];

	row_text(f, row, text, sizeof(text));
	if (strcmp(text, want) != 0)
		fail_msg("row %u reads \"%s\", want \"%s\"", row, text, want);
}

/*
 * 'A' and 'g' as they must look, written out here independently of the
 * font table: the glyph grid sits at cell columns 1..5 and lines 2..13.
 */
/* Terminus 8x16 (ter-u16n), as xfonts-terminus draws them */
static const char *const art_A[16] = {
	"........", "........", "..####..", ".#....#.", ".#....#.", ".#....#.",
	".#....#.", ".######.", ".#....#.", ".#....#.", ".#....#.", ".#....#.",
	"........", "........", "........", "........",
};
static const char *const art_g[16] = {
	"........", "........", "........", "........", "........", "..#####.",
	".#....#.", ".#....#.", ".#....#.", ".#....#.", ".#....#.", "..#####.",
	"......#.", "......#.", "..####..", "........",
};
static const char *const art_eacute[16] = {
	"........", "........", "....#...", "...#....", "........", "..####..",
	".#....#.", ".#....#.", ".######.", ".#......", ".#......", "..####..",
	"........", "........", "........", "........",
};

static void assert_cell_art(const struct fb *f, unsigned col, unsigned row,
			    const char *const art[16], uint32_t fg)
{
	unsigned x, y;

	for (y = 0; y < 16; y++)
		for (x = 0; x < 8; x++)
			assert_int_equal(at(f, col * 8 + x, row * 16 + y),
					 art[y][x] == '#' ? fg : f->con.bg);
}

static void test_fbcon_init_rejects_bad_geometry_and_leaves_console(void **state)
{
	uint32_t px[16 * 16];
	struct fbcon c, before;

	(void)state;
	memset(&c, 0x5a, sizeof(c));
	before = c;
	assert_int_equal(fbcon_init(&c, NULL, 16, 16, 16, FB_FORMAT_BGRX), FBCON_EINVAL);
	assert_int_equal(fbcon_init(&c, px, 7, 16, 16, FB_FORMAT_BGRX), FBCON_EINVAL);
	assert_int_equal(fbcon_init(&c, px, 16, 15, 16, FB_FORMAT_BGRX), FBCON_EINVAL);
	assert_int_equal(fbcon_init(&c, px, 16, 16, 15, FB_FORMAT_BGRX), FBCON_EINVAL);
	assert_int_equal(fbcon_init(&c, px, 16, 16, 16, (enum fb_format)2), FBCON_EINVAL);
	assert_int_equal(fbcon_init(NULL, px, 16, 16, 16, FB_FORMAT_BGRX), FBCON_EINVAL);
	assert_memory_equal(&c, &before, sizeof(c));
}

static void test_fbcon_init_info_checks_size(void **state)
{
	uint32_t px[16 * 20];
	struct fb_info fb = { .base_pa = 0, .size = 16 * 20 * 4 - 4, .width = 16,
			      .height = 20, .stride = 16, .format = FB_FORMAT_RGBX };
	struct fbcon c;

	(void)state;
	assert_int_equal(fbcon_init_info(&c, &fb, px), FBCON_EINVAL);
	fb.size += 4;
	assert_int_equal(fbcon_init_info(&c, &fb, px), 0);
	assert_int_equal(c.cols, 2);
	assert_int_equal(c.rows, 1);
}

static void test_fbcon_init_clears_visible_area_only(void **state)
{
	struct fb f;
	uint32_t x, y;

	(void)state;
	fb_new(&f, 37, 41, 48, 45, FB_FORMAT_BGRX);
	assert_int_equal(f.con.cols, 4);
	assert_int_equal(f.con.rows, 2);
	for (y = 0; y < 41; y++)
		for (x = 0; x < 37; x++)
			assert_int_equal(at(&f, x, y), 0);
	assert_padding_intact(&f);
	free(f.px);
}

static void test_fbcon_pixel_byte_order(void **state)
{
	uint32_t v;
	uint8_t b[4];

	(void)state;
	v = fbcon_pixel(FB_FORMAT_RGBX, 0x123456);
	memcpy(b, &v, 4);
	assert_int_equal(b[0], 0x12);
	assert_int_equal(b[1], 0x34);
	assert_int_equal(b[2], 0x56);
	v = fbcon_pixel(FB_FORMAT_BGRX, 0x123456);
	memcpy(b, &v, 4);
	assert_int_equal(b[0], 0x56);
	assert_int_equal(b[1], 0x34);
	assert_int_equal(b[2], 0x12);
}

static void test_fbcon_draws_known_glyph_pixels(void **state)
{
	struct fb f;

	(void)state;
	fb_new(&f, 80, 48, 80, 48, FB_FORMAT_RGBX);
	fbcon_write_line_rgb(&f.con, "Ag\xe9", 0xffffff);
	assert_cell_art(&f, 0, 0, art_A, fbcon_pixel(FB_FORMAT_RGBX, 0xffffff));
	assert_cell_art(&f, 1, 0, art_g, fbcon_pixel(FB_FORMAT_RGBX, 0xffffff));
	assert_cell_art(&f, 2, 0, art_eacute, fbcon_pixel(FB_FORMAT_RGBX, 0xffffff));
	assert_int_equal(cell_char(&f, 3, 0), '\0');
	assert_int_equal(f.con.row, 1);
	free(f.px);
}

static void test_fbcon_every_printable_glyph_is_distinct_and_inside_its_grid(void **state)
{
	unsigned a, b, y, inked;

	(void)state;
	/* printable ASCII: every glyph distinct, inked, leaving a blank column and line */
	for (a = FBCON_FIRST; a <= 0x7e; a++) {
		const uint8_t *g = fbcon_glyph((unsigned char)a);

		assert_ptr_not_equal(g, fbcon_font8x16_box);
		for (y = 0, inked = 0; y < 16; y++) {
			assert_int_equal(g[y] & 0x01, 0);   /* column 7: the gap to the next cell */
			inked |= g[y];
		}
		assert_int_equal(g[15], 0);             /* line 15: the gap to the next line */
		assert_true(inked || a == ' ');
		for (b = a + 1; b <= 0x7e; b++)
			assert_memory_not_equal(g, fbcon_glyph((unsigned char)b), 16);
	}
	/* ISO 8859-1's upper half has glyphs; DEL, C1 and C0 controls get the box */
	for (a = 0xa1; a <= 0xff; a++)
		assert_ptr_not_equal(fbcon_glyph((unsigned char)a), fbcon_font8x16_box);
	for (a = 0; a < 0x20; a++)
		assert_ptr_equal(fbcon_glyph((unsigned char)a), fbcon_font8x16_box);
	for (a = FBCON_GAP_FIRST; a <= FBCON_GAP_LAST; a++)
		assert_ptr_equal(fbcon_glyph((unsigned char)a), fbcon_font8x16_box);
	assert_memory_not_equal(fbcon_glyph(0xe9), fbcon_glyph('e'), 16);
}

static void test_fbcon_tap_colours(void **state)
{
	(void)state;
	assert_int_equal(fbcon_tap_colour("ok 1 - x"), FBCON_GREEN);
	assert_int_equal(fbcon_tap_colour("ok"), FBCON_GREEN);
	assert_int_equal(fbcon_tap_colour("ok 3 - la57 # SKIP no LA57"), FBCON_YELLOW);
	assert_int_equal(fbcon_tap_colour("not ok 2 - y"), FBCON_RED);
	assert_int_equal(fbcon_tap_colour("# cpu: nx=1"), FBCON_GREY);
	assert_int_equal(fbcon_tap_colour("okay"), FBCON_WHITE);
	assert_int_equal(fbcon_tap_colour("1..3"), FBCON_WHITE);
	assert_int_equal(fbcon_tap_colour(""), FBCON_WHITE);
}

static void test_fbcon_write_line_uses_tap_colour(void **state)
{
	struct fb f;
	uint32_t red = fbcon_pixel(FB_FORMAT_BGRX, FBCON_RED);
	uint32_t x, y, seen = 0;

	(void)state;
	fb_new(&f, 160, 32, 160, 32, FB_FORMAT_BGRX);
	fbcon_write_line(&f.con, "not ok 1");
	for (y = 0; y < 16; y++)
		for (x = 0; x < 160; x++) {
			uint32_t p = at(&f, x, y);

			assert_true(p == red || p == f.con.bg);
			seen += p == red;
		}
	assert_true(seen > 0);
	free(f.px);
}

static void test_fbcon_scrolls_when_full(void **state)
{
	struct fb f;

	(void)state;
	/* 3 text rows and 5 spare lines below them, stride padding too */
	fb_new(&f, 64, 53, 70, 53, FB_FORMAT_BGRX);
	assert_int_equal(f.con.rows, 3);
	fbcon_write_line(&f.con, "L0 first");
	fbcon_write_line(&f.con, "L1 second");
	fbcon_write_line(&f.con, "L2 third");
	assert_int_equal(f.con.scrolls, 0);
	fbcon_write_line(&f.con, "L3");
	assert_int_equal(f.con.scrolls, 1);
	expect_row(&f, 0, "L1 secon");
	expect_row(&f, 1, "L2 third");
	/* the longer line before it must be gone from the last row */
	expect_row(&f, 2, "L3");
	fbcon_write_line(&f.con, "L4");
	fbcon_write_line(&f.con, "");
	expect_row(&f, 0, "L3");
	expect_row(&f, 1, "L4");
	expect_row(&f, 2, "");
	assert_int_equal(f.con.lines, 6);
	assert_int_equal(f.con.scrolls, 3);
	assert_padding_intact(&f);
	free(f.px);
}

static void test_fbcon_clips_long_lines_and_stays_inside(void **state)
{
	struct fb f;
	char line[300];
	uint32_t x, y;
	int i;

	(void)state;
	/* 10 columns and 5 pixels of a partial eleventh */
	fb_new(&f, 85, 40, 96, 41, FB_FORMAT_RGBX);
	for (i = 0; i < 299; i++)
		line[i] = (char)('a' + i % 26);
	line[299] = '\0';
	for (i = 0; i < 50; i++)
		fbcon_write_line_rgb(&f.con, line, 0xffffff);
	expect_row(&f, 0, "abcdefghij");
	expect_row(&f, 1, "abcdefghij");
	for (y = 0; y < 40; y++)
		for (x = 80; x < 85; x++)
			assert_int_equal(at(&f, x, y), f.con.bg);
	assert_padding_intact(&f);
	free(f.px);
}

static void test_fbcon_newline_ends_line_and_unknown_bytes_are_boxes(void **state)
{
	struct fb f;
	unsigned y;

	(void)state;
	fb_new(&f, 80, 32, 80, 32, FB_FORMAT_RGBX);
	fbcon_write_line(&f.con, "ab\ncd");
	expect_row(&f, 0, "ab");
	fbcon_write_line(&f.con, "x\x01y");
	/* cell 1 holds the box: the font's box rows, not a printable glyph */
	assert_int_equal(cell_char(&f, 1, 1), '?' + 0x80);
	for (y = 0; y < 16; y++)
		assert_int_equal(at(&f, 8 + 1, 16 + y) != f.con.bg,
				 !!(fbcon_font8x16_box[y] & 0x40));
	assert_int_equal(cell_char(&f, 2, 1), 'y');
	free(f.px);
}

static void test_fbcon_clear_restarts_at_top(void **state)
{
	struct fb f;

	(void)state;
	fb_new(&f, 64, 32, 64, 32, FB_FORMAT_RGBX);
	fbcon_write_line(&f.con, "one");
	fbcon_write_line(&f.con, "two");
	fbcon_clear(&f.con);
	fbcon_write_line(&f.con, "three");
	expect_row(&f, 0, "three");
	expect_row(&f, 1, "");
	free(f.px);
}

UNIT_MAIN(
	cmocka_unit_test(test_fbcon_init_rejects_bad_geometry_and_leaves_console),
	cmocka_unit_test(test_fbcon_init_info_checks_size),
	cmocka_unit_test(test_fbcon_init_clears_visible_area_only),
	cmocka_unit_test(test_fbcon_pixel_byte_order),
	cmocka_unit_test(test_fbcon_draws_known_glyph_pixels),
	cmocka_unit_test(test_fbcon_every_printable_glyph_is_distinct_and_inside_its_grid),
	cmocka_unit_test(test_fbcon_tap_colours),
	cmocka_unit_test(test_fbcon_write_line_uses_tap_colour),
	cmocka_unit_test(test_fbcon_scrolls_when_full),
	cmocka_unit_test(test_fbcon_clips_long_lines_and_stays_inside),
	cmocka_unit_test(test_fbcon_newline_ends_line_and_unknown_bytes_are_boxes),
	cmocka_unit_test(test_fbcon_clear_restarts_at_top))
