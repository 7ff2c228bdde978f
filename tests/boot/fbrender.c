/* SPDX-License-Identifier: MIT */
/*
 * fbrender: draw text lines with the app's own framebuffer console
 * (efi/report/fbcon.c, efi/report/font8x16.c) into a host buffer and write it as a binary
 * PPM (P6), the format of QEMU's "screendump", so a boot test can compare
 * what the guest drew with what it should have drawn.
 *
 *   fbrender [-f rgbx|bgrx] [-s STRIDE] WIDTH HEIGHT OUT.ppm [LINE...]
 *
 * Without LINE arguments the lines are read from standard input (one per
 * line, at most 4095 bytes each).  Lines are coloured by their TAP kind as
 * fbcon_write_line() does; the screen scrolls as it would on the guest.
 * The pixel format and stride change only how pixels are stored, never the
 * PPM, which holds the visible WIDTH x HEIGHT pixels as RGB.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../efi/report/fbcon.h"

static void usage(void)
{
	fprintf(stderr, "usage: fbrender [-f rgbx|bgrx] [-s STRIDE] WIDTH HEIGHT OUT.ppm [LINE...]\n");
	exit(2);
}

static uint32_t number(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end || v == 0 || v > 16384)
		usage();
	return (uint32_t)v;
}

/* 0xRRGGBB of a stored pixel. */
static uint32_t rgb_of(enum fb_format format, uint32_t px)
{
	if (format == FB_FORMAT_RGBX)
		return (px & 0xff) << 16 | (px & 0xff00) | (px >> 16 & 0xff);
	return px & 0xffffff;
}

int main(int argc, char **argv)
{
	enum fb_format format = FB_FORMAT_BGRX;
	uint32_t width, height, stride = 0, x, y;
	static char line[4096];
	struct fbcon con;
	uint32_t *px;
	FILE *out;
	int i = 1;

	while (i < argc && argv[i][0] == '-' && argv[i][1]) {
		if (!strcmp(argv[i], "-f") && i + 1 < argc) {
			if (!strcmp(argv[i + 1], "rgbx"))
				format = FB_FORMAT_RGBX;
			else if (!strcmp(argv[i + 1], "bgrx"))
				format = FB_FORMAT_BGRX;
			else
				usage();
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			stride = number(argv[i + 1]);
		} else {
			usage();
		}
		i += 2;
	}
	if (argc - i < 3)
		usage();
	width = number(argv[i]);
	height = number(argv[i + 1]);
	if (!stride)
		stride = width;
	px = calloc((size_t)stride * height, sizeof(*px));
	if (!px || fbcon_init(&con, px, width, height, stride, format)) {
		fprintf(stderr, "fbrender: cannot set up a %ux%u (stride %u) screen\n",
			width, height, stride);
		return 1;
	}

	if (argc - i > 3) {
		int j;

		for (j = i + 3; j < argc; j++)
			fbcon_write_line(&con, argv[j]);
	} else {
		while (fgets(line, sizeof(line), stdin)) {
			line[strcspn(line, "\r\n")] = '\0';
			fbcon_write_line(&con, line);
		}
	}

	out = fopen(argv[i + 2], "wb");
	if (!out) {
		perror(argv[i + 2]);
		return 1;
	}
	fprintf(out, "P6\n%u %u\n255\n", width, height);
	for (y = 0; y < height; y++)
		for (x = 0; x < width; x++) {
			uint32_t c = rgb_of(format, px[(size_t)y * stride + x]);

			putc((int)(c >> 16 & 0xff), out);
			putc((int)(c >> 8 & 0xff), out);
			putc((int)(c & 0xff), out);
		}
	if (fclose(out)) {
		perror(argv[i + 2]);
		return 1;
	}
	free(px);
	return 0;
}
