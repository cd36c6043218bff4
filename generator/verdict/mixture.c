#include <math.h>
#include <stddef.h>

#include "base/stats.h"

#include "verdict/mixture.h"

/* Two normals with one deviation, fitted to the sorted baseline x[0..n)
 * by EM from the 2-means split (lo, hi, sd): a hard split truncates the
 * groups (their means too close, their deviation too small), and the
 * mixture's tails are what mixture_sf asks for. */
void
mixture_fit(struct mixture *m, const double *x, size_t n, double lo, double hi, double sd, double floor)
{
	/* One pass per iteration (one exp a night; the new deviation from
	 * the sums of squares about c, the split's low mean), until the
	 * parameters settle. */
	double pi = 0.5, c = lo, dn = (double)n;
	for (int it = 0; it < 40; it++) {
		double sr = 0, srx = 0, srx2 = 0, sx = 0, sx2 = 0;
		for (size_t a = 0; a < n; a++) {
			double y = x[a] - c, q = (lo - hi) * (2 * x[a] - lo - hi) / (2 * sd * sd);
			double r = q > 700 ? 0 : 1 / (1 + (1 - pi) / pi * exp(q));
			sr += r, srx += r * y, srx2 += r * y * y, sx += y, sx2 += y * y;
		}
		if (sr < 1 || sr > dn - 1)
			break;
		double npi = sr / dn, mh = srx / sr, ml = (sx - srx) / (dn - sr);
		double ss = srx2 - 2 * mh * srx + mh * mh * sr + (sx2 - srx2) - 2 * ml * (sx - srx) + ml * ml * (dn - sr);
		double nsd = fmax(sqrt(fmax(ss, 0) / dn), floor);
		int settled = fabs(ml + c - lo) + fabs(mh + c - hi) < 1e-6 * sd && fabs(npi - pi) < 1e-6;
		pi = npi, lo = ml + c, hi = mh + c, sd = nsd;
		if (settled)
			break;
	}
	m->lo = lo, m->hi = hi, m->sd = sd, m->n = n, m->pi = pi;
}

/* How likely the mean of L nights drawn from the mixture (the slow mode
 * with its share, binomially) reaches a level at least this far its way
 * (dir): a run of slow-mode nights is likely under it, while for a
 * baseline of one normal its tails are lighter than the t-test's, and it
 * decides nothing. */
double
mixture_sf(const struct mixture *m, double level, double L, int dir)
{
	if (!(m->sd > 0))
		return 0;
	double pi = m->pi, sf = 0, c = 1, df = (double)m->n - 2;
	int nl = (int)L;
	for (int a = 0; a <= nl; a++) {
		double mean = m->lo + (double)a / L * (m->hi - m->lo);
		double z = (level - mean) / (m->sd / sqrt(L));
		sf += c * pow(pi, a) * pow(1 - pi, nl - a) * stats_t_sf(dir > 0 ? z : -z, df);
		c = c * (double)(nl - a) / (double)(a + 1);
	}
	return sf;
}
