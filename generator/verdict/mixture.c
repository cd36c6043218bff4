#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "base/stats.h"
#include "base/util.h"

#include "verdict/mixture.h"

/* EM for two normals with one deviation over x[0..n), from (lo, hi, sd)
 * with share pi of the slow mode; returns the log likelihood (up to a
 * constant). One pass per iteration (one exp a night; the new deviation
 * from the sums of squares about c, the start's low mean), until the
 * parameters settle. */
static double
em(struct mixture *m, const double *x, size_t n, double lo, double hi, double sd, double pi, double floor)
{
	double c = lo, dn = (double)n;
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
	m->lo = lo, m->hi = hi, m->sd = sd, m->n = n, m->pi = pi, m->rho = 0, m->pr = pi, m->nr = 0;
	double ll = -dn * log(sd);
	for (size_t a = 0; a < n; a++) {
		double zl = (x[a] - lo) / sd, zh = (x[a] - hi) / sd;
		ll += log((1 - pi) * exp(-zl * zl / 2) + pi * exp(-zh * zh / 2) + 1e-300);
	}
	return ll;
}

/* Two normals with one deviation, fitted to the sorted baseline x[0..n)
 * by EM from the 2-means split (lo, hi, sd): a hard split truncates the
 * groups (their means too close, their deviation too small), and the
 * mixture's tails are what mixture_sf asks for. A rare slow mode lies
 * in the split's upper group with fast nights that pull its mean down,
 * and EM from there settles on a mode too near the fast one (at 10% of
 * nights 3% slower, 1% noise, +2% with a share of 23%): it also starts
 * from the top tenth and fifth of the nights apart, and the fit of the
 * best likelihood is kept. */
void
mixture_fit(struct mixture *m, const double *x, size_t n, double lo, double hi, double sd, double floor)
{
	double best = em(m, x, n, lo, hi, sd, 0.5, floor);
	for (size_t d = 10; d >= 5; d /= 2) {
		size_t k = n / d;
		if (k < 2 || n - k < 2)
			continue;
		double sl = 0, sh = 0, ss = 0;
		for (size_t a = 0; a < n; a++)
			*(a < n - k ? &sl : &sh) += x[a];
		double ml = sl / (double)(n - k), mh = sh / (double)k;
		for (size_t a = 0; a < n; a++)
			ss += (x[a] - (a < n - k ? ml : mh)) * (x[a] - (a < n - k ? ml : mh));
		struct mixture t;
		double ll = em(&t, x, n, ml, mh, fmax(sqrt(ss / (double)n), floor), (double)k / (double)n, floor);
		if (ll > best)
			best = ll, *m = t;
	}
}

/* Is the slow mode one the nights show: two peaks (means two deviations
 * apart: below, two normals of one deviation have one at any share), and
 * at least 2 nights in each mode? Otherwise the fit describes the shape
 * of one mode, or a mode seen too little to tell, and the tests take its
 * share and persistence as they are: for such a baseline the mixture's
 * tails are lighter than the t-test's, and decide nothing. (Without the
 * nights, a wider share there made them decide: drifts and 2% rises were
 * confirmed a night later, 2 and 3 series of 150; with the verdict's own
 * split as the test, the share widened almost nowhere.) At 3 nights, a
 * window whose one run of slow nights weighs 2.4 by responsibility (a
 * mode that appeared lately, a rare one) kept the share's point, 2.6%,
 * with the nights independent, and the next run's pair was a change. */
static int
two_modes(const struct mixture *m)
{
	return m->hi - m->lo >= 2 * m->sd && fmin(m->pi, 1 - m->pi) * (double)m->n >= 2;
}

/* The mode's persistence, from the nights' own lag-1 autocovariance: the
 * noise within a mode is independent from night to night, so all of it
 * is the mode's, c1 = (hi - lo)^2 pi (1 - pi) rho. A chain that keeps the
 * share pi and this autocorrelation stays slow with probability
 * pi + rho (1 - pi) and turns slow with pi (1 - rho). Counted only when
 * the autocorrelation of the nights is positive at 1% (2.33 / sqrt(n)):
 * a baseline of independent nights keeps the binomial, whose tails decide
 * nothing there, and chance alone does not widen them. Where the fit has
 * two modes (two_modes), whenever it is positive: with a run or two of a
 * rare mode in the window the test saw them in about half the windows
 * (10% of nights 3% slower in runs of 3, 1% noise), and the binomial it
 * kept then made a run's second night a change. */
void
mixture_persist(struct mixture *m, const double *x, size_t n)
{
	m->rho = 0;
	double g2 = (m->hi - m->lo) * (m->hi - m->lo) * m->pi * (1 - m->pi);
	if (n < 10 || !(g2 > 0))
		return;
	double mean = stats_mean(x, n), c0 = 0, c1 = 0;
	for (size_t a = 0; a < n; a++)
		c0 += (x[a] - mean) * (x[a] - mean);
	for (size_t a = 0; a + 1 < n; a++)
		c1 += (x[a] - mean) * (x[a + 1] - mean);
	if (!(c0 > 0) || !(c1 > 0) || (!two_modes(m) && c1 / c0 < 2.33 / sqrt((double)n)))
		return;
	m->rho = fmin(c1 / (double)n / g2, 0.95);
}

/* P(a night is slow | the night before is) and P(slow | fast). */
static void
chain(const struct mixture *m, double pi, double *stay, double *turn)
{
	*stay = pi + m->rho * (1 - pi), *turn = pi * (1 - m->rho);
}

/* The chance the mean of L nights with slow share s (of the weights) and
 * deviation m->sd x spread reaches level. */
static double
tail_at(const struct mixture *m, double level, double s, double spread, int dir)
{
	double z = (level - (m->lo + s * (m->hi - m->lo))) / (m->sd * spread);
	return stats_t_sf(dir > 0 ? z : -z, (double)m->n - 2);
}

/* How likely the mean of L consecutive nights drawn from the mixture
 * reaches a level at least this far its way (dir): the count of slow
 * nights among them by the chain (binomial when rho is 0), each count's
 * mean normal about its level. A run of slow-mode nights is likely under
 * it, the likelier the longer the mode's runs; for a baseline of one
 * normal its tails are lighter than the t-test's, and it decides nothing. */
static double
sf_at(const struct mixture *m, double pi, double level, double L, int dir)
{
	if (!(m->sd > 0))
		return 0;
	int nl = (int)L;
	if (nl < 1)
		return 0;
	if (!(m->rho > 0)) {
		/* independent nights: the binomial, in one pass */
		double sf = 0, c = 1;
		for (int a = 0; a <= nl; a++) {
			sf += c * pow(pi, a) * pow(1 - pi, nl - a) * tail_at(m, level, (double)a / L, 1 / sqrt(L), dir);
			c = c * (double)(nl - a) / (double)(a + 1);
		}
		return sf;
	}
	/* p[c][s]: c slow nights so far, the last one slow (s 1) or not */
	double stay, turn, *p = xmalloc(2 * (size_t)(nl + 1) * sizeof *p), sf = 0;
	chain(m, pi, &stay, &turn);
	for (int c = 0; c <= nl; c++)
		p[2 * c] = p[2 * c + 1] = 0;
	p[0] = 1 - pi, p[3] = pi;
	for (int t = 1; t < nl; t++)
		for (int c = t + 1; c >= 0; c--) {
			double f = p[2 * c], s = p[2 * c + 1], fs = c ? p[2 * (c - 1)] : 0, ss = c ? p[2 * (c - 1) + 1] : 0;
			p[2 * c] = f * (1 - turn) + s * (1 - stay);
			p[2 * c + 1] = fs * turn + ss * stay;
		}
	for (int c = 0; c <= nl; c++)
		sf += (p[2 * c] + p[2 * c + 1]) * tail_at(m, level, (double)c / L, 1 / sqrt(L), dir);
	free(p);
	return sf;
}

/* The ramp's mean weighs its nights 1, 2, .., L: a run of slow nights at
 * its heavy end moves it more than the plain mean of as many. Every mode
 * pattern of the L nights, with its chance by the chain, for L up to 16;
 * beyond, the plain mean of as many nights as the weights are worth. */
static double
sf_ramp_at(const struct mixture *m, double pi, double level, size_t L, int dir)
{
	if (!(m->sd > 0) || !L)
		return 0;
	double sw = (double)L * (double)(L + 1) / 2, sw2 = sw * (double)(2 * L + 1) / 3;
	if (L > 16)
		return sf_at(m, pi, level, floor(sw * sw / sw2), dir);
	/* the tail of each weight of slow nights (0 .. sw), asked once */
	double stay, turn, sf = 0, spread = sqrt(sw2) / sw, tail[16 * 17 / 2 + 1];
	for (size_t s = 0; s <= L * (L + 1) / 2; s++)
		tail[s] = tail_at(m, level, (double)s / sw, spread, dir);
	chain(m, pi, &stay, &turn);
	for (unsigned long pat = 0; pat < 1ul << L; pat++) {
		double pr = 1;
		size_t s = 0;
		for (size_t t = 0; t < L; t++) {
			int slow = (int)(pat >> t & 1);
			if (!t)
				pr = slow ? pi : 1 - pi;
			else {
				double q = pat >> (t - 1) & 1 ? stay : turn;
				pr *= slow ? q : 1 - q;
			}
			s += slow ? t + 1 : 0;
		}
		sf += pr * tail[s];
	}
	return sf;
}

/* The share of the slow mode is an estimate: from n nights whose modes
 * come in runs, worth n (1 - rho) / (1 + rho) independent nights (the
 * variance of the mean of a chain with lag-1 autocorrelation rho). Where
 * the fit has two modes the tests take the share's posterior, Beta(pi n'
 * + 1/2, (1 - pi) n' + 1/2) from Jeffreys' prior, rather than its point:
 * with 9 slow nights in 3 runs of 90, shares of 20% and more stay likely,
 * and the runs of slow nights they make likely are no change.
 * SHARE_NODES midpoints in phi, pi = sin^2 phi (the density then stays
 * finite at 0 and 1), each weighed by the posterior. */
#define SHARE_NODES 24

static double
posterior(const struct mixture *m, double pi, double n, double level, double L, int dir, int ramp)
{
	double ne = n * (1 - m->rho) / (1 + m->rho);
	double a = pi * ne + 0.5, b = (1 - pi) * ne + 0.5, sum = 0, wsum = 0, w[SHARE_NODES], sh[SHARE_NODES];
	for (int k = 0; k < SHARE_NODES; k++) {
		double phi = (k + 0.5) / SHARE_NODES * (acos(-1) / 2), sn = sin(phi), cs = cos(phi);
		w[k] = pow(sn, 2 * a - 1) * pow(cs, 2 * b - 1), sh[k] = sn * sn, wsum += w[k];
	}
	/* nodes of no weight (below 1e-9 of all) are not asked: most of the
	 * posterior lies on a few */
	for (int k = 0; k < SHARE_NODES; k++)
		if (w[k] >= 1e-9 * wsum)
			sum += w[k] * (ramp ? sf_ramp_at(m, sh[k], level, (size_t)L, dir) : sf_at(m, sh[k], level, L, dir));
	return sum / wsum;
}

/* The share is the window's, or, where it moved within the window (a
 * mode that appeared lately: the window still holds the nights before,
 * and the window's share is below the mode's now), that of its nr most
 * recent nights: a level is unlikely when it is under both. */
static double
over_share(const struct mixture *m, double level, double L, int dir, int ramp)
{
	if (!two_modes(m))
		return ramp ? sf_ramp_at(m, m->pi, level, (size_t)L, dir) : sf_at(m, m->pi, level, L, dir);
	double sf = posterior(m, m->pi, (double)m->n, level, L, dir, ramp);
	if (m->nr)
		sf = fmax(sf, posterior(m, m->pr, (double)m->nr, level, L, dir, ramp));
	return sf;
}

/* The slow mode's share among the latest nights, by each night's
 * responsibility under the fit. */
void
mixture_recent(struct mixture *m, const double *x, size_t nr)
{
	double s = 0;
	m->nr = 0;
	if (!nr || nr >= m->n || !(m->sd > 0) || !(m->pi > 0 && m->pi < 1))
		return;
	for (size_t a = 0; a < nr; a++) {
		double q = (m->lo - m->hi) * (2 * x[a] - m->lo - m->hi) / (2 * m->sd * m->sd);
		s += q > 700 ? 0 : 1 / (1 + (1 - m->pi) / m->pi * exp(q));
	}
	m->pr = s / (double)nr, m->nr = nr;
}

double
mixture_sf(const struct mixture *m, double level, double L, int dir)
{
	return over_share(m, level, L, dir, 0);
}

double
mixture_sf_ramp(const struct mixture *m, double level, size_t L, int dir)
{
	return over_share(m, level, (double)L, dir, 1);
}
