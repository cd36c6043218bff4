#include <math.h>
#include <stddef.h>

#include "stats.h"

#include "mixture.h"

/* Two normals with one deviation, fitted to the sorted baseline x[0..n)
 * by EM from the 2-means split (lo, hi, sd): a hard split truncates the
 * groups (their means too close, their deviation too small), and the
 * mixture's tails are what mixture_sf asks for. */
void
mixture_fit(struct mixture *m, const double *x, size_t n, double lo, double hi, double sd, double floor)
{
	double pi = 0.5;
	for (int it = 0; it < 40; it++) {
		double sr = 0, srx = 0, sx = 0, ss = 0;
		for (size_t a = 0; a < n; a++) {
			double z1 = (x[a] - lo) / sd, z2 = (x[a] - hi) / sd;
			double l1 = (1 - pi) * exp(-z1 * z1 / 2), l2 = pi * exp(-z2 * z2 / 2);
			double r = l1 + l2 > 0 ? l2 / (l1 + l2) : x[a] > (lo + hi) / 2;
			sr += r, srx += r * x[a], sx += x[a];
		}
		if (sr < 1 || sr > (double)n - 1)
			break;
		pi = sr / (double)n, hi = srx / sr, lo = (sx - srx) / ((double)n - sr);
		for (size_t a = 0; a < n; a++) {
			double z1 = (x[a] - lo) / sd, z2 = (x[a] - hi) / sd;
			double l1 = (1 - pi) * exp(-z1 * z1 / 2), l2 = pi * exp(-z2 * z2 / 2);
			double r = l1 + l2 > 0 ? l2 / (l1 + l2) : x[a] > (lo + hi) / 2;
			ss += r * (x[a] - hi) * (x[a] - hi) + (1 - r) * (x[a] - lo) * (x[a] - lo);
		}
		sd = fmax(sqrt(ss / (double)n), floor);
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
