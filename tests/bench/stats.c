// SPDX-License-Identifier: MIT
/*
 * The benchmark's clock and statistics: a sample's median, min and max,
 * and the paired ratio of two sides with its spread (bench.c's opening
 * comment says how they are used).
 */
#include "bench.h"

/* ---- time ---------------------------------------------------------------- */

uint64_t now_ns(void)
{
	struct timespec ts;

	/*
	 * CPU time of this thread: the machine may be shared, and time spent
	 * descheduled is no cost of the code measured.
	 */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stat3 stat_of(double *t, unsigned n)
{
	struct stat3 s;

	qsort(t, n, sizeof(*t), cmp_dbl);
	s.min = t[0];
	s.max = t[n - 1];
	s.med = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	return s;
}

/*
 * The ratio of two sides of a case, paired: num[k] / den[k] of the same
 * repetition k; its median, and the 95 % confidence interval of that
 * median from the order statistics (ranks n/2 -+ 0.98 sqrt(n), the normal
 * approximation of the binomial): no assumption about the noise's shape.
 */
struct ratio paired(const double *num, const double *den, unsigned n)
{
	double r[REPS_MAX];
	struct ratio x = { .n = n };
	double h = 0.98 * sqrt((double)n);
	long lo = (long)floor((double)n / 2 - h), hi = (long)ceil((double)n / 2 + h) - 1;

	for (unsigned k = 0; k < n; k++)
		r[k] = num[k] / den[k];
	qsort(r, n, sizeof(*r), cmp_dbl);
	x.med = n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
	x.lo = r[lo < 0 ? 0 : lo];
	x.hi = r[hi >= (long)n ? n - 1 : hi];
	return x;
}

/* The spread of @x: the farther end of its interval from the median, relative to it. */
double spread(struct ratio x)
{
	double d = x.hi - x.med > x.med - x.lo ? x.hi - x.med : x.med - x.lo;

	return x.med > 0 ? d / x.med : 0;
}
