#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#include "base/stats.h"

double
stats_mean(const double *x, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : NAN;
}

double
stats_clipped_mean(const double *x, size_t n, double lo, double hi)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += fmin(fmax(x[i], lo), hi);
	return n ? s / (double)n : NAN;
}

double
stats_shift_t(double m, double n, double mu, double base_n, double sd)
{
	return (m - mu) / (sd * sqrt(1.0 / n + 1.0 / base_n));
}

double
stats_shift_llr(double r, double d, double sd)
{
	return (r * r - 2 * r * d) / (2 * sd * sd);
}

double
stats_std(const double *x, size_t n)
{
	if (n < 2)
		return 0;
	double m = stats_mean(x, n), s = 0;
	for (size_t i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (double)(n - 1));
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double
stats_median(const double *x, size_t n)
{
	if (!n)
		return NAN;
	double *c = xmalloc(n * sizeof *c);
	memcpy(c, x, n * sizeof *c);
	qsort(c, n, sizeof *c, cmpd);
	double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

void
stats_summary(const double *x, size_t n, struct summary *s)
{
	s->n = n;
	s->mean = stats_mean(x, n);
	s->median = stats_median(x, n);
	s->std = stats_std(x, n);
	double *d = xmalloc((n ? n : 1) * sizeof *d);
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - s->median);
	s->mad = stats_median(d, n);
	free(d);
}

/* Insertion sort for the few dozen values of a window or a baseline,
 * which beats qsort's calls there; qsort above 64. */
void
stats_sort(double *a, size_t n)
{
	if (n > 64) {
		qsort(a, n, sizeof *a, cmpd);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		double v = a[i];
		size_t j = i;
		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

/* Median of a[0..n), n > 0; a is sorted in place. */
static double
sort_median(double *a, size_t n)
{
	stats_sort(a, n);
	return n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

/* Is it certain, without sorting x, that every sample lies within lim of
 * the median (the common case: no stalled step)? The samples counted into
 * 32 buckets between their extremes give each order statistic's bucket;
 * taking it one bucket wider on each side covers any rounding of the
 * bucket index. No: not certain, and the sort decides. */
static int
surely_within(const double *x, size_t n)
{
	enum { B = 32 };
	double lo = x[0], hi = x[0];
	for (size_t i = 1; i < n; i++)
		lo = x[i] < lo ? x[i] : lo, hi = x[i] > hi ? x[i] : hi;
	double w = (hi - lo) / B;
	if (!(w > 0) || !isfinite(w))
		return 0;
	unsigned cnt[B] = {0};
	for (size_t i = 0; i < n; i++) {
		size_t k = (size_t)((x[i] - lo) / w);
		cnt[k < B ? k : B - 1]++;
	}
	/* the bucket of each rank: q1 n/4, the median's n/2 - 1 and n/2, q3 3n/4 */
	size_t rank[4] = {n / 4, n / 2 - (n % 2 == 0), n / 2, 3 * n / 4}, at[4], seen = 0, r = 0;
	for (size_t k = 0; k < B && r < 4; k++) {
		seen += cnt[k];
		while (r < 4 && rank[r] < seen)
			at[r++] = k;
	}
	double q1_hi = lo + ((double)at[0] + 2) * w, med_lo = lo + ((double)at[1] - 1) * w;
	double med_hi = lo + ((double)at[2] + 2) * w, q3_lo = lo + ((double)at[3] - 1) * w;
	double lim = 7.4 * (q3_lo - q1_hi) * (1 - 1e-9);
	return lim > 0 && med_hi - lo <= lim && hi - med_lo <= lim;
}

double
stats_robust_mean(const double *x, size_t n, double *kept, size_t *nk)
{
	*nk = n;
	if (n < 4)
		return stats_mean(x, n);
	if (surely_within(x, n)) {
		memcpy(kept, x, n * sizeof *kept);
		return stats_mean(x, n);
	}
	memcpy(kept, x, n * sizeof *kept);
	double med = sort_median(kept, n);
	/* 10 robust deviations: 7.4 interquartile ranges */
	double lim = 7.4 * (kept[3 * n / 4] - kept[n / 4]);
	if (!(lim > 0) || (med - kept[0] <= lim && kept[n - 1] - med <= lim)) {
		memcpy(kept, x, n * sizeof *kept);
		return stats_mean(x, n);
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (fabs(x[i] - med) <= lim)
			kept[k++] = x[i];
	*nk = k;
	return stats_mean(kept, k);
}

double
stats_batch_se(const double *x, size_t n)
{
	if (n < 2)
		return NAN;
	size_t nb = (size_t)sqrt((double)n);
	if (nb < 3)
		return 2 * stats_std(x, n) / sqrt((double)n);
	size_t bs = n / nb;
	double bm[64];
	if (nb > 64)
		nb = 64, bs = n / nb;
	/* The last batch takes the remainder: every sample counts. */
	for (size_t b = 0; b < nb; b++) {
		size_t from = b * bs, to = b == nb - 1 ? n : from + bs;
		bm[b] = stats_mean(x + from, to - from);
	}
	return stats_std(bm, nb) / sqrt((double)nb);
}

/* Continued fraction of the regularized incomplete beta function (the
 * classic modified Lentz evaluation). */
static double
betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	d = fabs(d) < tiny ? tiny : d;
	d = 1 / d, h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d, d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c, c = fabs(c) < tiny ? tiny : c;
		d = 1 / d, h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d, d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c, c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

static double
betai(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double
stats_t_sf(double t, double df)
{
	if (isnan(t))
		return NAN;
	double tail = 0.5 * betai(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? tail : 1 - tail;
}

double
stats_f_sf(double f, double d1, double d2)
{
	if (isnan(f))
		return NAN;
	return f <= 0 ? 1 : betai(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
}

static double
t_isf(double p, double df)
{
	double lo = 0, hi = 1;
	while (stats_t_sf(hi, df) > p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (stats_t_sf(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Judging asks for the same few quantiles again and again: remember them. */
double
stats_t_isf(double p, double df)
{
	static struct tq {
		double p, df, t;
	} memo[64];
	static size_t nmemo;
	for (size_t i = 0; i < nmemo; i++)
		if (memo[i].p == p && memo[i].df == df)
			return memo[i].t;
	double t = t_isf(p, df);
	memo[nmemo % 64] = (struct tq){p, df, t};
	nmemo++;
	return t;
}

uint64_t
rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

size_t
rng_below(struct rng *r, size_t n)
{
	return n ? (size_t)(rng_next(r) % n) : 0;
}

void
stats_ticks(double lo, double hi, int max, double *first, double *step)
{
	double span = hi - lo;
	if (!(span > 0))
		span = fabs(hi) > 0 ? fabs(hi) : 1;
	double p = pow(10, floor(log10(span / max)));
	static const double mult[] = {1, 2, 5, 10};
	double s = 10 * p;
	for (size_t i = 0; i < 4; i++) {
		if (span / (mult[i] * p) <= max) {
			s = mult[i] * p;
			break;
		}
	}
	*step = s;
	*first = ceil(lo / s - 1e-9) * s;
}
