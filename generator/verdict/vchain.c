#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/util.h"

#include "verdict/vchain.h"

#define CHAIN_ITERS 60

struct chain {
	double mu[2], sd;      /* the fast and the slow mode, one deviation (relative to the level) */
	double a01, a10;       /* a fast night turns slow; a slow night turns fast */
	double p0[2];          /* the state of the last night it was fitted to */
	double slow;           /* the slow nights it counts (their posterior sum) */
	double runs, ends;     /* the runs of slow nights it counts: begun, ended */
	double ll, ll1;        /* log-likelihood of the nights: the chain's, one normal's */
	double sd1;            /* one normal's deviation */
};

/* log of the normal density: a night tens of deviations from a level
 * (a broken night at 0.5% noise, 50% slow) has a density under the
 * smallest double, and its log is what is weighed */
static double
lnpdf(double x, double mu, double sd)
{
	double z = (x - mu) / sd;
	return -0.5 * z * z - log(sd * 2.5066282746310002);
}

/* Each night's density under the fast and the slow mode, scaled by the
 * larger of the two so that neither underflows: b[3t], b[3t+1], and the
 * scale's log in b[3t+2], which forward adds back. The posteriors of
 * Baum-Welch are the same under a scale a night. */
static void
emit(const struct chain *c, const double *y, size_t n, double *b)
{
	for (size_t t = 0; t < n; t++) {
		double l0 = lnpdf(y[t], c->mu[0], c->sd), l1 = lnpdf(y[t], c->mu[1], c->sd), m = fmax(l0, l1);
		b[3 * t] = exp(l0 - m), b[3 * t + 1] = exp(l1 - m), b[3 * t + 2] = m;
	}
}

/* Forward pass over n nights of densities b (emit): the log-likelihood,
 * and the state distribution after the last night in end (if not NULL).
 * start is the first night's state distribution, or with after the night
 * before's; alpha[t*2+s] the scaled forward variables and scale[t] their
 * sums when given (Baum-Welch). */
static double
forward(const struct chain *c, const double *b, size_t n, const double *start, int after, double *end, double *alpha, double *scale)
{
	double a[2] = {start[0], start[1]}, ll = 0;
	for (size_t t = 0; t < n; t++) {
		double b0 = b[3 * t], b1 = b[3 * t + 1];
		double f0, f1;
		if (t == 0 && !after)
			f0 = a[0] * b0, f1 = a[1] * b1;
		else
			f0 = (a[0] * (1 - c->a01) + a[1] * c->a10) * b0, f1 = (a[0] * c->a01 + a[1] * (1 - c->a10)) * b1;
		double s = f0 + f1;
		if (!(s > 0))
			s = 1e-300;
		a[0] = f0 / s, a[1] = f1 / s;
		ll += log(s) + b[3 * t + 2];
		if (alpha)
			alpha[2 * t] = a[0], alpha[2 * t + 1] = a[1], scale[t] = s;
	}
	if (end)
		end[0] = a[0], end[1] = a[1];
	return ll;
}

/* Baum-Welch on y[0..n) (relative levels) from a start: the slow mode
 * the top share q of the nights; sd never below floor. Transitions carry
 * one pseudo-count each way, so that a mode seen in two runs is not taken
 * as one that never ends. x: the nights sorted; scratch al, be, sc, em. */
static void
fit_from(struct chain *c, const double *y, const double *x, size_t n, double q, double floor, double *al, double *be, double *sc, double *em)
{
	size_t bk = n - (size_t)fmax(2, round(q * (double)n));
	double ml = 0, mh = 0, w = 0;
	for (size_t k = 0; k < bk; k++)
		ml += x[k];
	for (size_t k = bk; k < n; k++)
		mh += x[k];
	ml /= (double)bk, mh /= (double)(n - bk);
	for (size_t k = 0; k < n; k++) {
		double d = x[k] - (k < bk ? ml : mh);
		w += d * d;
	}
	c->mu[0] = ml, c->mu[1] = mh, c->sd = fmax(sqrt(w / (double)n), floor);
	c->a01 = fmin(0.5, q / (3 * (1 - q))), c->a10 = 1.0 / 3;
	c->slow = (double)(n - bk), c->runs = c->ends = 0;
	double prev = -INFINITY;
	for (int it = 0; it < CHAIN_ITERS; it++) {
		double st[2] = {c->a10 / (c->a01 + c->a10), c->a01 / (c->a01 + c->a10)};
		emit(c, y, n, em);
		c->ll = forward(c, em, n, st, 0, NULL, al, sc);
		if (c->ll - prev < 1e-7)
			break;
		prev = c->ll;
		/* backward, scaled by the forward sums */
		be[2 * (n - 1)] = be[2 * (n - 1) + 1] = 1;
		for (size_t t = n - 1; t-- > 0;) {
			double n0 = em[3 * (t + 1)] * be[2 * (t + 1)], n1 = em[3 * (t + 1) + 1] * be[2 * (t + 1) + 1];
			be[2 * t] = ((1 - c->a01) * n0 + c->a01 * n1) / sc[t + 1];
			be[2 * t + 1] = (c->a10 * n0 + (1 - c->a10) * n1) / sc[t + 1];
		}
		double g[2] = {0, 0}, gt[2] = {0, 0}, xi01 = 0, xi10 = 0, s0 = 0, s1 = 0, ss = 0;
		for (size_t t = 0; t < n; t++) {
			double g0 = al[2 * t] * be[2 * t], g1 = al[2 * t + 1] * be[2 * t + 1], z = g0 + g1;
			if (!(z > 0))
				continue;
			g0 /= z, g1 /= z;
			g[0] += g0, g[1] += g1, s0 += g0 * y[t], s1 += g1 * y[t];
			if (t + 1 < n) {
				gt[0] += g0, gt[1] += g1;
				xi01 += al[2 * t] * c->a01 * em[3 * (t + 1) + 1] * be[2 * (t + 1) + 1] / sc[t + 1];
				xi10 += al[2 * t + 1] * c->a10 * em[3 * (t + 1)] * be[2 * (t + 1)] / sc[t + 1];
			}
		}
		if (!(g[0] > 1e-9) || !(g[1] > 1e-9))
			break;
		c->mu[0] = s0 / g[0], c->mu[1] = s1 / g[1];
		for (size_t t = 0; t < n; t++) {
			double g0 = al[2 * t] * be[2 * t], g1 = al[2 * t + 1] * be[2 * t + 1], z = g0 + g1;
			if (z > 0)
				ss += (g0 * (y[t] - c->mu[0]) * (y[t] - c->mu[0]) + g1 * (y[t] - c->mu[1]) * (y[t] - c->mu[1])) / z;
		}
		c->sd = fmax(sqrt(ss / (double)n), floor);
		c->a01 = (xi01 + 1) / (gt[0] + 2), c->a10 = (xi10 + 1) / (gt[1] + 2);
		c->slow = g[1], c->runs = xi01, c->ends = xi10;
	}
	if (c->mu[1] < c->mu[0]) {
		double t = c->mu[0];
		c->mu[0] = c->mu[1], c->mu[1] = t;
		t = c->a01, c->a01 = c->a10, c->a10 = t;
		t = c->runs, c->runs = c->ends, c->ends = t;
		c->slow = (double)n - c->slow;
	}
	double st[2] = {c->a10 / (c->a01 + c->a10), c->a01 / (c->a01 + c->a10)};
	emit(c, y, n, em);
	c->ll = forward(c, em, n, st, 0, c->p0, NULL, NULL);
}

/* The best of a few starts (EM finds the nearest optimum: from the upper
 * half alone, a rare mode 3 deviations up was seldom found), and one
 * normal's log-likelihood beside it. */
static void
fit(struct chain *c, const double *y, size_t n, double floor)
{
	static const double starts[] = {0.05, 0.1, 0.2, 0.35, 0.5};
	double *x = xmalloc(n * sizeof *x), *al = xmalloc(2 * n * sizeof *al), *be = xmalloc(2 * n * sizeof *be);
	double *sc = xmalloc(n * sizeof *sc), *em = xmalloc(3 * n * sizeof *em);
	memcpy(x, y, n * sizeof *x);
	stats_sort(x, n);
	double m1 = stats_mean(y, n), v1 = 0;
	for (size_t k = 0; k < n; k++)
		v1 += (y[k] - m1) * (y[k] - m1);
	v1 = fmax(v1 / (double)n, floor * floor);
	c->ll = -INFINITY;
	for (size_t s = 0; s < sizeof starts / sizeof *starts; s++) {
		struct chain t;
		fit_from(&t, y, x, n, starts[s], floor, al, be, sc, em);
		if (t.ll > c->ll)
			*c = t;
	}
	c->ll1 = -0.5 * (double)n * (log(6.283185307179586 * v1) + 1);
	c->sd1 = sqrt(v1);
	free(x), free(al), free(be), free(sc), free(em);
}

/* Do the nights b the modes are learned from vouch for a night at x
 * they left out (a quarantined night not yet returned, or one of an
 * episode that has not ended)? When k of b's nights that no rule
 * confirmed lie nearer x than their median lv, x is at a level the
 * history has shown as often, its own nights: a slow mode's latest run. A far night the baseline
 * never showed (a lone broken night, a rise at a level seen once) stays
 * out, as do the nights of a confirmed regression: its level is no
 * mode's. */
static int
vouched(const struct vengine *j, const struct base *b, double lv, double x, size_t k)
{
	double mid = (x + lv) / 2;
	size_t seen = 0;
	for (size_t q = 0; q < b->n && seen < k; q++)
		seen += !j->c->nights[b->k[q]].confirmed && (x > lv ? b->m[q] > mid : b->m[q] < mid);
	return seen >= k;
}

/* The nights before night first that the chain learns from, in their
 * order, into y (room for cap, chain_window: a rare mode in runs, a tenth
 * of the nights in runs of 3, comes every 30 nights, and the 90-night
 * regime window saw it twice or three times): those the modes are
 * learned from and those they vouch for (chain_seen), or (every) all
 * eligible ones of the segment. The baseline keeps a slow night out
 * until two more were quarantined; the chain that learns without the
 * latest run of a mode has seen one run fewer, and took the next for a
 * step (on the shapes draw, 195.9 false alarms per 1,000 nights over the
 * cells to 187.3 with them). */
static size_t
chain_nights(struct vengine *j, size_t first, int every, double *y, size_t cap)
{
	size_t n = 0;
	if (every) {
		struct segwalk walk = segwalk(j, first, first);
		for (const struct vnight *v; n < cap && (v = segwalk_prev(&walk));)
			y[n++] = v->mean;
	} else {
		struct base b;
		collect_modes(j, first, &b, (int)cap);
		size_t k = (size_t)j->p->chain_seen;
		if (!k || !b.n) {
			n = b.n;
			memcpy(y, b.m, n * sizeof *y);
		} else {
			/* the same walk, latest first: b's nights in it in turn
			 * (b's arrays are the engine's scratch; nothing here
			 * gathers another baseline) */
			double lv = stats_median(b.m, b.n);
			size_t p = 0;
			struct segwalk walk = segwalk(j, first, first);
			for (const struct vnight *v; n < cap && (v = segwalk_prev(&walk));) {
				if (p < b.n && walk.k == b.k[p])
					y[n++] = b.m[p++];
				else if (vouched(j, &b, lv, v->mean, k))
					y[n++] = v->mean;
			}
		}
	}
	/* in their order: both gather the latest first */
	for (size_t a = 0, z = n; a + 1 < z; a++, z--) {
		double t = y[a];
		y[a] = y[z - 1], y[z - 1] = t;
	}
	return n;
}

/* The shapes a slow mode may take, a grid the episode is weighed over
 * (every point alike a priori): the share of slow nights, the gap in
 * deviations of a mode, and the mean run of slow nights (0: each night
 * drawn on its own). They span the shapes of bench/detect-shapes.sh and
 * beyond: shares 5% to 50%, gaps of 1.5 deviations (1.5% at 1% noise) to
 * 13 (5% at 0.4%), mean runs up to 5 nights. */
static const double grid_share[] = {0.05, 0.1, 0.2, 0.3, 0.4, 0.5};
static const double grid_gap[] = {1.5, 2, 2.5, 3, 4, 5, 6.5, 8, 10, 13};
static const double grid_run[] = {0, 2, 3, 5};

/* The longest episode the grid is asked of. Its longest mean run is 5
 * nights, and it explains a slow mode that came to stay (every night
 * slow: a share that shifted, a change) as a long run of it for weeks;
 * a longer episode is left to the fitted chain. */
#define GRID_NIGHTS 20
#define NELEM(a) (sizeof(a) / sizeof *(a))

/* The log-likelihood of nights e[0..ne) as one new level (their mean)
 * at deviation sd: what a chain's run is weighed against. */
static double
one_level(const double *e, size_t ne, double sd)
{
	double m = stats_mean(e, ne), ll = 0;
	for (size_t k = 0; k < ne; k++)
		ll += lnpdf(e[k], m, sd);
	return ll;
}

/* Shape (s, r) of the grid on chain t: its transitions, and the state
 * distribution it starts from (the share) in st. */
static void
grid_shape(struct chain *t, size_t s, size_t r, double st[2])
{
	double q = grid_share[s];
	st[0] = 1 - q, st[1] = q;
	t->a10 = grid_run[r] > 0 ? 1 / grid_run[r] : 1 - q;
	t->a01 = q / (1 - q) * t->a10;
}

static double
logaddexp(double a, double b)
{
	if (a == -INFINITY)
		return b;
	return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

/* The episode's nights e[0..ne) after the nights y[0..n): the
 * log-likelihood ratio of one new level over a slow mode's run, where
 * the slow mode is no single fitted chain but every chain of the grid,
 * each weighed by how well it explains the nights before (against one
 * normal, c->ll1), and two modes are e^-odds as likely a priori as one.
 * A mode the nights before never showed is then worth little, and one
 * they showed in a shape the fit's BIC did not pass still counts. The
 * fast level and the deviation are the fitted chain's. */
static double
grid_llr(const struct chain *c, const double *y, size_t n, const double *e, size_t ne, double odds)
{
	double *b = xmalloc(3 * (n + ne) * sizeof *b), lk = log((double)(NELEM(grid_share) * NELEM(grid_gap) * NELEM(grid_run)));
	double before = -INFINITY, with = -INFINITY;
	struct chain t = *c;
	for (size_t g = 0; g < NELEM(grid_gap); g++) {
		t.mu[1] = c->mu[0] + grid_gap[g] * c->sd;
		emit(&t, y, n, b);
		emit(&t, e, ne, b + 3 * n);
		for (size_t s = 0; s < NELEM(grid_share); s++)
			for (size_t r = 0; r < NELEM(grid_run); r++) {
				double st[2], end[2];
				grid_shape(&t, s, r, st);
				double lb = forward(&t, b, n, st, 0, end, NULL, NULL) - c->ll1 - lk;
				before = logaddexp(before, lb);
				with = logaddexp(with, lb + forward(&t, b + 3 * n, ne, end, 1, NULL, NULL, NULL));
			}
	}
	free(b);
	/* one new level over the weighed null: two modes (with) or one,
	 * whose likelihood of a new slowdown's nights is left out (nil) */
	return one_level(e, ne, c->sd) + logaddexp(odds, before) - with;
}

/* The longest episode the grid may explain after the nights y[0..n):
 * twice the nights they show at the episode's level (e[0..ne): nearer
 * its mean than the fast level), and two more, at most GRID_NIGHTS. A
 * mode seen on two nights was, to the grid, a run of five nights' mean,
 * and a lasting rise at its level was explained for 20 nights, long
 * enough for its nights to return into the baseline: never confirmed. */
static size_t
grid_nights(const struct chain *c, const double *y, size_t n, const double *e, size_t ne)
{
	double m = stats_mean(e, ne);
	size_t seen = 0;
	for (size_t k = 0; k < n; k++)
		seen += fabs(y[k] - m) < fabs(y[k] - c->mu[0]);
	size_t cap = 2 * seen + 2;
	return cap > GRID_NIGHTS ? GRID_NIGHTS : cap;
}

/* Does the chain, fitted to n nights, explain them better than one
 * normal by more than its three more parameters cost (BIC)? */
static int
believed(const struct chain *c, size_t n)
{
	return c->ll - c->ll1 >= 1.5 * log((double)n);
}

int
chain_explains(struct vengine *j, size_t first, size_t i, int every)
{
	const struct policy *p = j->p;
	if (!(p->chain_llr > 0))
		return 0;
	size_t cap = (size_t)p->chain_window, ne = 0;
	double *y = xmalloc((cap + i - first + 2) * sizeof *y);
	size_t n = chain_nights(j, first, every, y, cap);
	int ok = 0;
	if (n < 30)
		goto out;
	double level = stats_median(y, n);
	for (size_t k = 0; k < n; k++)
		y[k] = y[k] / level - 1;
	for (size_t k = first; k <= i; k++)
		if (eligible(&j->c->nights[k]))
			y[n + ne++] = j->c->nights[k].mean / level - 1;
	if (!ne)
		goto out;
	struct chain c;
	fit(&c, y, n, p->noise_floor);
	/* a slow mode of some shape, weighed by what the nights show of it,
	 * at every noise: on nights noisier than noise_ref a drift's and a
	 * 2% rise's first nights are a chain's as well, and the ramp's level
	 * gives those rows back (vconfirm.c, noise_scale). Where the nights
	 * are no noisier than noise_ref (within a mode where the chain is
	 * believed, as one normal where not) the sensitivity rows have room
	 * and two modes are likelier a priori (chain_odds); on noisier ones,
	 * where those rows have none, they are not (chain_odds_noisy). A
	 * chain fitted to one normal's nights splits them in two, each mode
	 * narrower: its deviation alone took a 5% rise at 2% noise for a mode. */
	double odds = (believed(&c, n) ? c.sd : c.sd1) > p->noise_ref ? p->chain_odds_noisy : p->chain_odds;
	if (!every && odds < 1000 && ne <= grid_nights(&c, y, n, y + n, ne) && grid_llr(&c, y, n, y + n, ne, odds) < p->chain_llr) {
		ok = 1;
		goto out;
	}
	/* a slow mode the nights show: a chain that explains them better
	 * than one normal by more than its three more parameters cost
	 * (BIC), and two slow nights or more */
	if (!(c.slow >= 2) || !(c.mu[1] > c.mu[0]) || !believed(&c, n) || (every && !(c.runs >= 2 && c.ends >= 2)))
		goto out;
	/* the episode: one new level (at the deviation within a mode) over
	 * the chain */
	double *em = xmalloc(3 * ne * sizeof *em);
	emit(&c, y + n, ne, em);
	double ll0 = forward(&c, em, ne, c.p0, 1, NULL, NULL, NULL);
	free(em);
	ok = one_level(y + n, ne, c.sd) - ll0 < p->chain_llr;
out:
	free(y);
	return ok;
}

/* The nights of an episode as a slow mode that appeared (episode_alternates):
 * at least ALT_NIGHTS (a rise's first nights are the 2% and 5% rows'), and
 * the slow level at least ALT_GAP deviations up. A lasting 2% rise at 2%
 * noise lies one deviation up: with every gap of the grid, 65.2% of those
 * on the first draw of bench/detect.sh were no longer CONFIRMED on their
 * last night, 56.5% before, and 60.9% from 2.5 up. */
#define ALT_NIGHTS 6
#define ALT_GAP 2.5

/* The log-likelihood of x[0..n) under the best step: the level mu until
 * some night, one new level (the mean of the nights from it) on. */
static double
best_step(const double *x, size_t n, double mu, double sd)
{
	double best = -INFINITY, before = 0;
	for (size_t t = 0; t <= n; t++) {
		double ll = before;
		if (t < n) {
			double m = stats_mean(x + t, n - t);
			for (size_t k = t; k < n; k++)
				ll += lnpdf(x[k], m, sd);
			before += lnpdf(x[t], mu, sd);
		}
		best = fmax(best, ll);
	}
	return best;
}

int
episode_alternates(struct vengine *j, size_t first, size_t i)
{
	const struct policy *p = j->p;
	const struct vnight *f = &j->c->nights[first];
	double mu = f->base_mean;
	if (!(p->alt_llr > 0) || !(mu > 0) || !(f->base_sd > 0) || i + 1 < first + ALT_NIGHTS)
		return 0;
	double sd = fmax(test_sd(j, first), p->noise_floor * mu), *x = xmalloc((i - first + 1) * sizeof *x);
	size_t n = 0;
	for (size_t k = first; k <= i; k++) {
		const struct vnight *v = &j->c->nights[k];
		if (eligible(v) && fabs(v->mean / mu - 1) < p->large_effect)
			x[n++] = v->mean;
	}
	if (n < ALT_NIGHTS) {
		free(x);
		return 0;
	}
	double *b = xmalloc(3 * n * sizeof *b), chain = -INFINITY;
	struct chain t = {.mu = {mu, mu}, .sd = sd};
	for (size_t g = 0; g < NELEM(grid_gap); g++) {
		if (grid_gap[g] < ALT_GAP)
			continue;
		t.mu[1] = mu + grid_gap[g] * sd;
		emit(&t, x, n, b);
		for (size_t s = 0; s < NELEM(grid_share); s++)
			for (size_t r = 0; r < NELEM(grid_run); r++) {
				double st[2];
				grid_shape(&t, s, r, st);
				chain = fmax(chain, forward(&t, b, n, st, 0, NULL, NULL, NULL));
			}
	}
	int alt = chain - best_step(x, n, mu, sd) > p->alt_llr;
	free(b), free(x);
	return alt;
}
