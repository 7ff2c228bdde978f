// SPDX-License-Identifier: MIT
/*
 * The benchmark's report: the goal lines tools/report.py reads, the
 * markdown tables (stdout and --md) and the SVG plot (--svg).
 */
#include "bench.h"

/*
 * A goal judged on the median of a paired ratio @x: its spread line first
 * ("bench: spread NAME ..."), then the goal line tools/report.py reads.
 * Within SPREAD_GOAL the median stands for the goal; beyond it the line
 * says the figure is noise (spread=wide), whatever met says.
 */
void goal(const char *name, struct ratio x, const char *op, double target)
{
	bool met = op[0] == '<' ? x.med <= target : x.med >= target;

	printf("bench: spread %s median=%.3f spread=%.1f%% interval=%.3f..%.3f pairs=%u %s\n",
	       name, x.med, 100 * spread(x), x.lo, x.hi, x.n,
	       spread(x) <= SPREAD_GOAL ? "spread=ok" : "spread=wide");
	printf("bench: %s value=%.2f goal=%s%.1f met=%s\n", name, x.med, op, target,
	       met ? "yes" : "no");
}

/* Print to stdout and, when open, to the markdown file. */
static FILE *md;

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (md) {
		va_start(ap, fmt);
		vfprintf(md, fmt, ap);
		va_end(ap);
	}
}

static const char *human(uint64_t bytes, char *buf, size_t n)
{
	if (bytes >= TiB && !(bytes % TiB))
		snprintf(buf, n, "%" PRIu64 " TiB", bytes / TiB);
	else if (bytes >= GiB && !(bytes % GiB))
		snprintf(buf, n, "%" PRIu64 " GiB", bytes / GiB);
	else
		snprintf(buf, n, "%" PRIu64 " MiB", bytes / MiB);
	return buf;
}

static void md_map_table(const struct map_case *c, const struct map_result *r, unsigned n)
{
	out("| case | leaves | tables created (fewest) | table bytes per GiB | peak frames map / unmap"
	    " | pt_map | fill | map/fill | map/memset | perpage/map | unmap/map |\n");
	out("|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (unsigned i = 0; i < n; i++) {
		char leaves[96];
		int k = 0;

		leaves[0] = 0;
		for (unsigned l = 0; l < 3; l++) {
			static const char *nm[3] = { "4K", "2M", "1G" };

			if (r[i].stats.leaves[l])
				k += snprintf(leaves + k, sizeof(leaves) - (size_t)k, "%s%" PRIu64 " x %s",
					      k ? " + " : "", r[i].stats.leaves[l], nm[l]);
		}
		out("| %s | %s | %" PRIu64 " (%" PRIu64 ") | %.0f | %" PRIu64 " / %" PRIu64
		    " | %.2f us | %.2f us | %.2f | %.1f | ",
		    c[i].what, leaves, r[i].created, r[i].min_tables,
		    (double)(r[i].created * PT_PAGE_SIZE) / ((double)c[i].len / (double)GiB),
		    r[i].peak_map, r[i].peak_unmap, r[i].t[SIDE_MAP].med / 1e3,
		    r[i].t[SIDE_FILL].med / 1e3, r[i].map_fill.med, r[i].map_memset.med);
		if (r[i].t[SIDE_PERPAGE].med > 0)
			out("%.1f", r[i].perpage_map.med);
		else
			out("-");
		out(" | %.2f |\n", r[i].unmap_map.med);
	}
}

/* The range sweep's table: ns per 4 KiB page of every side, every range. */
static void md_sweep_table(const struct sweep *sw, unsigned nsw)
{
	out("\n| ns per 4 KiB page | range | pt_map | fill | perpage |\n|---|---|---|---|---|\n");
	for (unsigned i = 0; i < nsw; i++)
		for (unsigned j = 0; j < sw[i].n; j++) {
			char buf[32];

			out("| %s | %s | %.5f | %.5f | ", sw[i].label,
			    human(sw[i].len[j], buf, sizeof(buf)), sw[i].ns[SIDE_MAP][j],
			    sw[i].ns[SIDE_FILL][j]);
			if (sw[i].ns[SIDE_PERPAGE][j] > 0)
				out("%.5f |\n", sw[i].ns[SIDE_PERPAGE][j]);
			else
				out("- |\n");
		}
}

/*
 * Below the sweep: ns per lookup of pt_translate, pt_translate_many and
 * the baseline walk, one group of bars per lookup case, with the goal's
 * limit (goal x the baseline) marked where the case is one of the goal's.
 */
static void svg_lookups(FILE *f, double y0, double W, const struct lookup_row *row, unsigned n)
{
	static const char *name[3] = { "pt_translate", "pt_translate_many", "baseline walk" };
	static const char *color[3] = { "#9467bd", "#ff7f0e", "#7f7f7f" };
	const double L = 300, R = 40, bar = 9, gap = 10;
	double max = 0;

	for (unsigned i = 0; i < n; i++) {
		const double v[3] = { row[i].r->one.med, row[i].r->many.med, row[i].r->ref.med };

		for (unsigned k = 0; k < 3; k++)
			max = v[k] > max ? v[k] : max;
	}
	fprintf(f, "<text x=\"80\" y=\"%.0f\" font-size=\"14\">lookups: ns per address (median); "
		"| marks the goal, %.1f x the baseline walk</text>\n", y0, row[0].goal);
	for (unsigned k = 0; k < 3; k++)
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"%.0f\" fill=\"%s\"/>"
			"<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", 80 + k * 180.0, y0 + 12, bar,
			color[k], 96 + k * 180.0, y0 + 12 + bar, name[k]);
	y0 += 32;
	for (unsigned i = 0; i < n; i++) {
		const double v[3] = { row[i].r->one.med, row[i].r->many.med, row[i].r->ref.med };
		double y = y0 + i * (3 * bar + gap);

		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%s</text>\n", L - 8,
			y + 2 * bar, row[i].label);
		for (unsigned k = 0; k < 3; k++)
			fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" "
				"fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"9\">%.1f</text>\n",
				L, y + k * bar, v[k] / max * (W - L - R), bar - 1, color[k],
				L + v[k] / max * (W - L - R) + 3, y + k * bar + bar - 2, v[k]);
		if (row[i].goal > 0) {
			double x = L + row[i].goal * v[2] / max * (W - L - R);

			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"black\" stroke-width=\"2\"/>\n", x, y - 1, x, y + 3 * bar);
		}
	}
}

static void svg_plot(const char *path, struct sweep *sw, unsigned nsw, const struct lookup_row *row,
		     unsigned nrow)
{
	static const char *color[3] = { "#1f77b4", "#d62728", "#2ca02c" };
	static const char *side_name[SIDE_COUNT] = { "pt_map", "fill", "perpage" };
	static const char *dash[SIDE_COUNT] = { "", "6,4", "2,3" };
	const double W = 760, H = 480, L = 80, R = 190, T = 40, Bm = 60, HL = 60 + nrow * 37;
	double xmin = 1e30, xmax = 0, ymin = 1e30, ymax = 0, lx0, lx1, ly0, ly1;
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		failures++;
		return;
	}
	for (unsigned i = 0; i < nsw; i++)
		for (unsigned j = 0; j < sw[i].n; j++) {
			double x = (double)sw[i].len[j];

			xmin = x < xmin ? x : xmin;
			xmax = x > xmax ? x : xmax;
			for (unsigned s = 0; s < SIDE_COUNT; s++) {
				double y = sw[i].ns[s][j];

				if (y <= 0)
					continue;
				ymin = y < ymin ? y : ymin;
				ymax = y > ymax ? y : ymax;
			}
		}
	/* log scales, widened to whole decades */
	lx0 = floor(log10(xmin));
	lx1 = ceil(log10(xmax));
	ly0 = floor(log10(ymin));
	ly1 = ceil(log10(ymax));
#define PX(v) (L + (log10(v) - lx0) / (lx1 - lx0) * (W - L - R))
#define PY(v) (H - Bm - (log10(v) - ly0) / (ly1 - ly0) * (H - T - Bm))
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n", W, H + HL);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"22\" font-size=\"14\">pt_map vs references: ns per 4 KiB "
		"page of the range (median; log-log)</text>\n", L);
	for (double d = lx0; d <= lx1; d++) {
		double x = L + (d - lx0) / (lx1 - lx0) * (W - L - R);
		char buf[32];
		double bytes = pow(10, d);

		if (bytes >= 1e12)
			snprintf(buf, sizeof(buf), "%.0f TB", bytes / 1e12);
		else if (bytes >= 1e9)
			snprintf(buf, sizeof(buf), "%.0f GB", bytes / 1e9);
		else
			snprintf(buf, sizeof(buf), "%.0f MB", bytes / 1e6);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>\n",
			x, T, x, H - Bm);
		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n", x,
			H - Bm + 16, buf);
	}
	for (double d = ly0; d <= ly1; d++) {
		double y = H - Bm - (d - ly0) / (ly1 - ly0) * (H - T - Bm);

		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			L, y, W - R, y);
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">1e%.0f</text>\n", L - 6,
			y + 4, d);
	}
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
		"stroke=\"black\"/>\n", L, T, W - L - R, H - T - Bm);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">range size (bytes)</text>\n",
		L + (W - L - R) / 2, H - 20);
	fprintf(f, "<text transform=\"translate(20 %.0f) rotate(-90)\" text-anchor=\"middle\">"
		"ns per 4 KiB page</text>\n", T + (H - T - Bm) / 2);
	for (unsigned i = 0; i < nsw; i++)
		for (unsigned s = 0; s < SIDE_COUNT; s++) {
			bool first = true;

			fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s points=\"",
				color[i], dash[s][0] ? " stroke-dasharray=\"" : "", dash[s],
				dash[s][0] ? "\"" : "");
			for (unsigned j = 0; j < sw[i].n; j++) {
				if (sw[i].ns[s][j] <= 0)
					continue;
				fprintf(f, "%s%.1f,%.1f", first ? "" : " ", PX((double)sw[i].len[j]),
					PY(sw[i].ns[s][j]));
				first = false;
			}
			fprintf(f, "\"/>\n");
			for (unsigned j = 0; j < sw[i].n; j++)
				if (sw[i].ns[s][j] > 0)
					fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
						PX((double)sw[i].len[j]), PY(sw[i].ns[s][j]), color[i]);
		}
	/* legend */
	for (unsigned i = 0; i < nsw; i++)
		for (unsigned s = 0; s < SIDE_COUNT; s++) {
			double y = T + 10 + (i * SIDE_COUNT + s) * 18, x = W - R + 14;

			fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" "
				"stroke-width=\"2\"%s%s%s/>\n", x, y, x + 30, y, color[i],
				dash[s][0] ? " stroke-dasharray=\"" : "", dash[s], dash[s][0] ? "\"" : "");
			fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s, %s</text>\n", x + 36, y + 4,
				sw[i].label, side_name[s]);
		}
#undef PX
#undef PY
	svg_lookups(f, H + 20, W, row, nrow);
	fprintf(f, "</svg>\n");
	fclose(f);
}

/*
 * The results' tables, to stdout and the markdown file @md_path (when
 * given), and the plot to @svg_path (when given).  Returns 0, or 1 when
 * the markdown file cannot be written.
 */
int report(const char *md_path, const char *svg_path, bool maps_only,
	   const struct map_case *c, const struct map_result *res, unsigned n,
	   struct sweep *sw, unsigned nsw, const struct lookup_row *row, unsigned nrow)
{
	if (md_path) {
		md = fopen(md_path, "w");
		if (!md) {
			perror(md_path);
			return 1;
		}
	}
	out("\nResults (%s build; medians of %u to %u repetitions, each sample >= 10 ms; times "
	    "per call; ratios paired within a repetition):\n\n", BUILD_NAME, BENCH_REPS, REPS_MAX);
	md_map_table(c, res, n);
	if (maps_only)
		return 0;
	if (!SCALAR) {
		out("\n| lookup, %u addresses | pt_translate | pt_translate_many | baseline walk"
		    " | one/walk | many/walk |\n", NTRANSLATE);
		out("|---|---|---|---|---|---|\n");
		for (unsigned k = 0; k < nrow; k++)
			out("| %s | %.1f ns | %.1f ns | %.1f ns | %.2f | %.2f |\n", row[k].label,
			    row[k].r->one.med, row[k].r->many.med, row[k].r->ref.med,
			    row[k].r->one_ref.med, row[k].r->many_ref.med);
		md_sweep_table(sw, nsw);
		if (svg_path)
			svg_plot(svg_path, sw, nsw, row, nrow);
	}
	out("\n");
	if (md)
		fclose(md);
	return 0;
}

/* The goal lines (judged) and the compare lines (reported) of the host or the scalar build. */
void report_goals(const struct map_result *res, const struct map_result *cb,
		  const struct xlate_result *mixed, const struct xlate_result *cached)
{
	if (SCALAR) {
		printf("bench: compare scalar_map2m_vs_fill value=%.2f\n", res[1].map_fill.med);
		printf("bench: compare scalar_map1g_vs_fill value=%.2f\n", res[2].map_fill.med);
		printf("bench: compare scalar_mapmixed_vs_fill value=%.2f\n", res[3].map_fill.med);
		printf("bench: compare scalar_map4k_vs_memset value=%.2f\n", res[0].map_memset.med);
		printf("bench: compare scalar_map4k_vs_fill value=%.2f\n", res[0].map_fill.med);
		printf("bench: compare scalar_unmap_vs_map value=%.2f\n", res[0].unmap_map.med);
		return;
	}
	goal("map2m_vs_fill", res[1].map_fill, "<=", 1.5);
	goal("map1g_vs_fill", res[2].map_fill, "<=", 1.5);
	goal("mapmixed_vs_fill", res[3].map_fill, "<=", 2.0);
	goal("map4k_vs_memset", res[0].map_memset, "<=", 1.5);
	goal("unmap_vs_map", res[0].unmap_map, "<=", 1.0);
	goal("translate_vs_walk", worst_ratio(mixed, XL_GOAL_CASES), "<=", XLATE_GOAL);
	goal("map4k_speedup_vs_perpage", res[0].perpage_map, ">=", 10);
	printf("bench: compare map4k_vs_fill value=%.2f\n", res[0].map_fill.med);
	printf("bench: compare map4k_vs_memset_callback value=%.2f\n", cb->map_memset.med);
	for (unsigned c = 0; c < XL_GOAL_CASES; c++)
		printf("bench: compare %s_vs_walk value=%.2f\n"
		       "bench: compare %s_one_vs_walk value=%.2f\n", xl_case[c].name,
		       mixed[c].many_ref.med, xl_case[c].name, mixed[c].one_ref.med);
	printf("bench: compare translate_cached_vs_walk value=%.2f\n", cached->one_ref.med);
	printf("bench: compare translate_cached_ns value=%.2f\n", cached->one.med);
}
