#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/util.h"

#include "verdict/changepoint.h"

/* Q(t) of the split at t of n points from its three distance sums: within
 * the left part, within the right part, and across. */
static double
split_stat(size_t t, size_t n, double left, double right, double cross)
{
	double a = (double)t, b = (double)(n - t);
	double e = 2 * cross / (a * b) - (a > 1 ? left / (a * (a - 1) / 2) : 0) -
		   (b > 1 ? right / (b * (b - 1) / 2) : 0);
	return a * b / (double)n * e;
}

/* Q(tau) = tau (n - tau) / n * E(tau), with E the energy distance between
 * x[0..tau) and x[tau..n) (exponent 1). Moving one point from the right
 * part to the left updates the three distance sums in O(n), so every
 * split of a series costs O(n^2) in all. */
size_t
cp_best_split(const double *x, size_t n, size_t min_seg, double *q)
{
	double left = 0, right = 0, cross = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			right += fabs(x[i] - x[j]);
	size_t best = 0;
	*q = -INFINITY;
	for (size_t t = 1; t + min_seg <= n; t++) {
		/* point t-1 moves from the right part to the left */
		double da = 0, db = 0, y = x[t - 1];
		for (size_t i = 0; i + 1 < t; i++)
			da += fabs(y - x[i]);
		for (size_t j = t; j < n; j++)
			db += fabs(y - x[j]);
		left += da, right -= db, cross += db - da;
		if (t < min_seg)
			continue;
		double qt = split_stat(t, n, left, right, cross);
		if (qt > *q)
			*q = qt, best = t;
	}
	return best;
}

/* Does any split of y[0..n) reach the statistic q? cp_best_split's
 * arithmetic, with what a permutation leaves unchanged computed once:
 * the sum of all distances (total) and each point's sum of distances to
 * the others (d[i] for y[i]), so that of the two sums a moved point
 * changes only the one over the left part is summed. Stops at the first
 * split that reaches q. A shuffle that leaves the parts of the observed
 * split as they were (its first or last few points, often) has its
 * statistic, up to rounding: it reaches q, whatever the rounding says. */
static int
split_reaches(const double *y, const double *d, size_t n, size_t min_seg, double total, double q)
{
	double left = 0, right = total, cross = 0;
	for (size_t t = 1; t + min_seg <= n; t++) {
		double da0 = 0, da1 = 0, v = y[t - 1];
		size_t i = 0;
		for (; i + 2 < t; i += 2)
			da0 += fabs(v - y[i]), da1 += fabs(v - y[i + 1]);
		if (i + 1 < t)
			da0 += fabs(v - y[i]);
		double da = da0 + da1, db = d[t - 1] - da;
		left += da, right -= db, cross += db - da;
		if (t < min_seg)
			continue;
		if (split_stat(t, n, left, right, cross) >= q - 1e-9 * fabs(q))
			return 1;
	}
	return 0;
}

/* Permutation p-value of a split with statistic q in x[0..n): the share of
 * shuffles whose best split is at least as strong. Stops as soon as the
 * answer can no longer be "significant". */
static double
perm_p(const double *x, size_t n, double q, const struct cp_opts *o, struct rng *r)
{
	double *y = xmalloc(2 * n * sizeof *y), *d = y + n, total = 0;
	memcpy(y, x, n * sizeof *y);
	for (size_t i = 0; i < n; i++) {
		d[i] = 0;
		for (size_t j = 0; j < n; j++)
			d[i] += fabs(x[i] - x[j]);
		total += d[i];
	}
	total /= 2;
	int ge = 0, done = 0, limit = (int)floor(o->alpha * (o->perms + 1));
	for (; done < o->perms; done++) {
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = rng_below(r, i + 1);
			double t = y[i];
			y[i] = y[j], y[j] = t;
			t = d[i], d[i] = d[j], d[j] = t;
		}
		if (split_reaches(y, d, n, o->min_seg, total, q) && ++ge >= limit) {
			done++;
			break;
		}
	}
	free(y);
	return done < o->perms ? 1.0 : (ge + 1.0) / (o->perms + 1.0);
}

static int
cmp_at(const void *a, const void *b)
{
	size_t x = ((const struct cpoint *)a)->at, y = ((const struct cpoint *)b)->at;
	return (x > y) - (x < y);
}

size_t
cp_edivisive(const double *x, size_t n, const struct cp_opts *o, struct cpoint *out, size_t max)
{
	struct rng r = {o->seed};
	size_t ncp = 0;
	/* bounds[0..nb) are segment starts; n closes the last one */
	size_t *bounds = xmalloc((max + 2) * sizeof *bounds), nb = 1;
	bounds[0] = 0;
	while (ncp < max) {
		size_t bs = 0, bt = 0;
		double bq = -INFINITY;
		for (size_t s = 0; s < nb; s++) {
			size_t from = bounds[s], to = s + 1 < nb ? bounds[s + 1] : n;
			if (to - from < 2 * o->min_seg)
				continue;
			double q;
			size_t t = cp_best_split(x + from, to - from, o->min_seg, &q);
			if (t && q > bq)
				bq = q, bs = s, bt = from + t;
		}
		if (!bt)
			break;
		size_t from = bounds[bs], to = bs + 1 < nb ? bounds[bs + 1] : n;
		double p = perm_p(x + from, to - from, bq, o, &r);
		if (p > o->alpha)
			break;
		out[ncp++] = (struct cpoint){bt, p, bq};
		memmove(bounds + bs + 2, bounds + bs + 1, (nb - bs - 1) * sizeof *bounds);
		bounds[bs + 1] = bt;
		nb++;
	}
	free(bounds);
	qsort(out, ncp, sizeof *out, cmp_at);
	return ncp;
}
