#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/stats.h"
#include "base/util.h"
#include "verdict/changepoint.h"
#include "verdict/vchain.h"
#include "verdict/vepisode.h"

#include "verdict/vconfirm.h"

/* M of the last K eligible nights of the segment (night i included) went
 * the same way as night i, and M of them, night i one of them, agree on
 * the size of the change within confirm_ratio: a sustained shift keeps its
 * size, while a spike next to an unrelated noisy night does not. */
int
m_of_k(const struct vengine *j, size_t i)
{
	int seen = 0, same = 0, m = j->p->confirm_m;
	double e[100];
	struct segwalk walk = segwalk(j, i, i + 1);
	for (const struct vnight *v; seen < j->p->confirm_k && (v = segwalk_prev(&walk));) {
		seen++;
		if (v->vb == j->c->nights[i].vb)
			e[same++] = fabs(v->effect);
	}
	/* Night i (e[0]) must be one of the M that agree: two noisy nights
	 * next to a spike do not confirm the spike's night. */
	int agree = 0;
	for (int a = 0; a < same; a++)
		agree += fmin(e[a], e[0]) >= j->p->confirm_ratio * fmax(e[a], e[0]);
	return agree >= m;
}

/* The first night of the streak that confirmed night i: back over eligible
 * nights while at most K-M of them in a row went another way. */
size_t
streak_first(const struct vengine *j, size_t i, int dir)
{
	int gap = 0;
	size_t first = i;
	struct segwalk walk = segwalk(j, i, i);
	for (const struct vnight *v; (v = segwalk_prev(&walk));) {
		/* A night of another size (a spike before a small shift) is
		 * not the streak's first night. */
		double a = fabs(v->effect), b = fabs(j->c->nights[i].effect);
		if (v->vb == dir && fmin(a, b) >= j->p->confirm_ratio * fmax(a, b))
			first = walk.k, gap = 0;
		else if (++gap > j->p->confirm_k - j->p->confirm_m)
			break;
	}
	return first;
}

/* E-divisive over the eligible nights of the segment up to night i (the
 * last cp_window of them). Marks nothing; returns the change points as
 * night indices in cps (at most max) and their p-values. */
size_t
changepoints(struct vengine *j, size_t i, size_t to, size_t *cps, double *ps, size_t max)
{
	size_t n = 0;
	struct segwalk walk = segwalk(j, i, to);
	while ((int)n < j->p->cp_window && segwalk_prev(&walk))
		j->idx[n++] = walk.k;
	for (size_t a = 0; a < n / 2; a++) {
		size_t t = j->idx[a];
		j->idx[a] = j->idx[n - 1 - a], j->idx[n - 1 - a] = t;
	}
	/* Each night clipped to 3 sigma of its own baseline: one spike is one
	 * unusual night, not the energy of a whole new segment. */
	for (size_t a = 0; a < n; a++) {
		const struct vnight *v = &j->c->nights[j->idx[a]];
		j->buf[a] = fmin(fmax(v->mean, v->clip_lo), v->clip_hi);
	}
	struct cp_opts o = {j->p->cp_perms, j->p->cp_alpha, 2, j->p->seed + (uint64_t)j->c->nights[i].day};
	struct cpoint cp[16];
	size_t ncp = cp_edivisive(j->buf, n, &o, cp, max < 16 ? max : 16);
	for (size_t a = 0; a < ncp; a++)
		cps[a] = j->idx[cp[a].at], ps[a] = cp[a].p;
	return ncp;
}

/* Do the nights m[0..n) after the change point at night c lie off c's
 * baseline by a t-test at cp_level_alpha (each within 3 deviations, the
 * tail test's way)? The permutation test finds where a series splits
 * best, at cp_alpha; that the nights after the split lie off the old
 * level is a second question. Without it, runs of slow-mode nights on
 * bimodal histories were confirmed: at 1% noise 1.03 false alarms per
 * 1,000 nights, 0.91 with it, the longest 88 nights, 34 with it. Of 900
 * rises of 2% and 900 drifts, one rise was confirmed a night later. */
static int
level_significant(struct vengine *j, size_t c, const double *m, size_t n)
{
	const struct vnight *w = &j->c->nights[c];
	if (n < 2 || !(w->base_sd > 0))
		return 1;
	double lim = 3 * w->base_sd, level = stats_clipped_mean(m, n, w->base_mean - lim, w->base_mean + lim);
	double t = stats_shift_t(level, (double)n, w->base_mean, (double)w->base_n, test_sd(j, c));
	return stats_t_sf(fabs(t), (double)w->base_n - 1) < j->p->cp_level_alpha;
}

/* Nights under the middle between a far night and a window's level that
 * must lie between them: the far night came back by itself. */
#define SEEN_BACK 3
/* Nights at the level, to the night judged, that a mode seen once may
 * explain: a slow mode's runs are 1 to 4 nights most of the time, and a
 * regression at such a level is confirmed by its fifth night. */
#define SEEN_RUN 4

/* Has a slowdown of n nights (at most tail_max) at level, against night
 * k's whole baseline (window nights), been seen before: an unconfirmed
 * night of the regime window, seen_sd deviations (test_sd) above that
 * baseline's level and within 2 standard errors of the window's, with
 * SEEN_BACK nights under the middle between them, or nights between at
 * the old level by odds of e^seen_llr against its level? Such a night is a mode
 * that came and went: a normal night lies that far up once in 300,000,
 * while a slow mode 3% up at 0.5% noise, or 5% up at 0.5% or 1%, puts
 * most of its nights there as long as the window holds few of them (they
 * widen the deviation), and the mixture asks for 2 of them. The bimodal
 * false alarms of bench/detect-shapes.sh fell 3% (the sum over its 108
 * cells 228.0 to 221.0, and 227.6 to 221.1 on a draw it was not tuned
 * on), and no row of four draws of bench/detect.sh moved. At 4 deviations and
 * under, it is the trade of the other rules (docs/history.md); on a young
 * baseline, whose deviation is known worse, it cost rises after 15 quiet
 * nights. One night 7 deviations under the far night's level (5% at
 * 0.5% noise) says it came back as surely as three: asking three, a slow
 * mode's night, a fast one and a pair of slow ones was a regression (the
 * sum over the 108 cells 162.3 to 159.9, and 163.2 to 161.5 on a draw it
 * was not tuned on; a rise two nights after a night at its level is
 * confirmed a night later). */
static int
seen_before(struct vengine *j, size_t k, size_t i, double level, size_t n)
{
	const struct policy *p = j->p;
	const struct vnight *w = &j->c->nights[k];
	if (!(p->seen_sd > 0) || (int)n > p->tail_max || (int)w->base_n < p->window)
		return 0;
	double mu = w->base_mean, sd = test_sd(j, k);
	if (!(sd > 0) || !(level > mu))
		return 0;
	double mid = (mu + level) / 2, tol = 2 * sd * sqrt(1 + 1.0 / (double)n), ev = 0;
	int below = 0, seen = 0, run = 0;
	struct segwalk walk = segwalk(j, k, i + 1);
	for (const struct vnight *v; run <= SEEN_RUN && (v = segwalk_prev(&walk)) && !(v->mean < mid);)
		run++;
	if (run > SEEN_RUN)
		return 0;
	walk = segwalk(j, k, k);
	for (const struct vnight *v; seen < p->regime_window && (v = segwalk_prev(&walk));) {
		seen++;
		if (v->confirmed)
			continue;
		if ((below >= SEEN_BACK || (p->seen_llr > 0 && ev >= p->seen_llr)) && v->mean - mu >= p->seen_sd * sd && fabs(v->mean - level) <= tol)
			return 1;
		below += v->mean < mid;
		ev += stats_shift_llr(level - mu, v->mean - mu, sd);
	}
	return 0;
}

/* The level of the mode a human answered for at night m (llmb annotate
 * --accept-mode), against baseline level mu: the mean of night m and of
 * the eligible nights of the segment before night k (the window's first,
 * regime_window of them at most) that lie nearer it than mu, *nk of them
 * in all. */
static double
mode_level(struct vengine *j, size_t m, size_t k, double mu, size_t *nk)
{
	double mark = j->c->nights[m].mean, sum = 0;
	size_t c = 0;
	int seen = 0;
	struct segwalk walk = segwalk(j, k, k);
	for (const struct vnight *v; seen < j->p->regime_window && (v = segwalk_prev(&walk));) {
		seen++;
		if (walk.k != m && v->mean >= (mu + mark) / 2)
			sum += v->mean, c++;
	}
	*nk = c + 1;
	return (sum + mark) / (double)(c + 1);
}

/* The runs of eligible nights at or above mid in night k's segment,
 * back from night i over chain_window nights at most, a single night
 * under mid within one not ending it (a lasting regression's nights dip
 * under the middle now and then): the latest (to night i; 0 when night i
 * is under mid) and the longest before it. */
static void
runs_above(struct vengine *j, size_t k, size_t i, double mid, size_t *latest, size_t *longest)
{
	size_t cur = 0, under = 0;
	int first = 1, seen = 0;
	*latest = *longest = 0;
	struct segwalk walk = segwalk(j, k, i + 1);
	for (const struct vnight *v; seen < j->p->chain_window && (v = segwalk_prev(&walk));) {
		seen++;
		if (v->mean >= mid) {
			cur += 1 + under, under = 0;
			continue;
		}
		if (cur && !under++)
			continue;
		if (first)
			*latest = cur, first = 0;
		else if (cur > *longest)
			*longest = cur;
		cur = under = 0;
	}
	if (first)
		*latest = cur;
	else if (cur > *longest)
		*longest = cur;
}

/* A slowdown at level over the n nights from night k to night i, at a
 * mode a human answered for: a night of the segment before night i
 * answered with --accept-mode, min_effect or more above night k's
 * baseline, whose mode (mode_level) the level does not pass at the tail
 * test's level. Unless the latest nights stay above the middle longer
 * than tail_max and than any run before (runs_above): that is the
 * share shifting, a change (a lasting regression at or under the mode's
 * level too). */
static int
accepted_mode(struct vengine *j, size_t k, size_t i, double level, size_t n)
{
	const struct policy *p = j->p;
	const struct vnight *w = &j->c->nights[k];
	if (j->c->nights[i].prev_mode < 0)
		return 0;
	double mu = w->base_mean, sd = test_sd(j, k);
	if (!(sd > 0) || !(level > mu))
		return 0;
	int from = seg_day(j, k), known = 0;
	double z = stats_t_isf(p->tail_alpha, fmax(1, (double)w->base_n - 1));
	for (long q = j->c->nights[i].prev_mode; q >= 0 && !known; q = j->c->nights[q].prev_mode) {
		const struct vnight *v = &j->c->nights[q];
		if (v->day < from)
			break;
		if (!v->valid || v->mean - mu < p->min_effect * mu)
			continue;
		size_t nk;
		double at = mode_level(j, (size_t)q, k, mu, &nk);
		known = level <= at + z * sd * sqrt(1.0 / (double)nk + 1.0 / (double)n);
	}
	if (!known)
		return 0;
	size_t run, longest;
	runs_above(j, k, i, (mu + level) / 2, &run, &longest);
	return run <= (size_t)p->tail_max || run <= longest;
}

/* A slowdown at a mode the history has shown: one a human answered for,
 * or one far night that came back. */
static int
known_mode(struct vengine *j, size_t k, size_t i, double level, size_t n)
{
	return accepted_mode(j, k, i, level, n) || seen_before(j, k, i, level, n);
}

/* A change point confirms a shift at night i when it is the latest one,
 * its baseline has min_nights nights, enough nights lie at and after it,
 * the level after it differs from the level before it by min_effect and
 * off the baseline by a t-test, and night i itself is still shifted. On
 * fewer baseline nights llmb calls only large shifts (M of K), and the tail
 * test starts no window there: a change point at a history's fifth night,
 * after four fast ones, confirmed bimodal nights as a regression of +2%
 * against those four, CONFIRMED for the history's 286 nights after. */
int
cp_confirms(struct vengine *j, size_t i, const size_t *cps, size_t ncp, size_t *at)
{
	if (!ncp)
		return VB_NONE;
	size_t c = cps[ncp - 1], prev = ncp > 1 ? cps[ncp - 2] : 0;
	if (c >= i || (int)j->c->nights[c].base_n < j->p->min_nights)
		return VB_NONE;
	/* The nights of an earlier confirmed episode (which ended) are no new
	 * regression: its change point would confirm it once more. */
	if (last_confirmed(j, c, i) > c)
		return VB_NONE;
	/* The nights between the change point and night i, by their median,
	 * less the most extreme of them when it lies outside its clip bounds:
	 * a spike is neither one of the cp_min_after nights nor part of the
	 * level, and night i alone cannot make the segment look shifted. */
	size_t n = 0, out = i;
	double *m = xmalloc((i - c + 1) * sizeof *m), worst = 0;
	for (size_t k = c; k < i; k++) {
		const struct vnight *v = &j->c->nights[k];
		double d = fmax(v->mean - v->clip_hi, v->clip_lo - v->mean);
		if (eligible(v) && d > 0 && d > worst)
			worst = d, out = k;
	}
	for (size_t k = c; k < i; k++)
		if (k != out && eligible(&j->c->nights[k]))
			m[n++] = j->c->nights[k].mean;
	double after = n ? stats_median(m, n) : NAN;
	int sure = (int)n >= j->p->cp_min_after && level_significant(j, c, m, n);
	free(m);
	if (!sure)
		return VB_NONE;
	double before = median_between(j, prev, c);
	double e = (after - before) / before, ei = (j->c->nights[i].mean - before) / before;
	if (fabs(e) < j->p->min_effect || fabs(ei) < j->p->min_effect / 2 || (e > 0) != (ei > 0))
		return VB_NONE;
	/* Night i back at the old level (a fix), or a level within a mode
	 * of the baseline before the change (a run of slow-mode nights), is
	 * no shift. */
	const struct vnight *v = &j->c->nights[i];
	int dir = e > 0 ? VB_SLOWER : VB_FASTER;
	if (v->base_sd > 0 && (dir == VB_SLOWER ? after - v->mean : v->mean - after) > 2.5 * v->base_sd)
		return VB_NONE;
	if (!beyond_modes(j, c, after, (double)n, (double)n, dir, j->p->cp_alpha, 0) || known_mode(j, c, i, after, n))
		return VB_NONE;
	*at = c;
	return e > 0 ? VB_SLOWER : VB_FASTER;
}

/* Tail and ramp levels times (noise_ref / deviation)^power on a noisier
 * baseline: there min_effect no longer gates chance runs. The tail's
 * power is 2. The ramp's is 1.75: with the grid of chains asked at every
 * noise (vchain.c), a slow mode's runs no longer reach the ramp as often,
 * and at 2% noise the ramp's square had kept drifts under their floor
 * (docs/history.md, "The grid of chains at every noise"). */
enum { TAIL_POWER = 2 };
#define RAMP_POWER 1.75

static double
noise_scale(const struct policy *p, const struct vnight *w, double power)
{
	double rel = w->base_sd / w->base_mean;
	return rel > p->noise_ref ? pow(p->noise_ref / rel, power) : 1;
}

/* Where the tail test winsorizes a window's nights (and, at 5/3 of it,
 * leaves one out as a spike): 3 deviations of the baseline, never under
 * twice min_effect. At 0.5% noise 3 deviations lie under min_effect, and
 * no window of three nights or more could show the shift min_effect asks:
 * a 2% rise entered as 1.3% and was confirmed only by its pairs (three
 * draws at 0.5% noise: 92.2% within 5 nights, Otava at p 0.0001 98.2%).
 * The ramp and the watch of a regression declared over keep 3 deviations:
 * clipped here too, they confirmed more runs of slow modes (the sum over
 * the bimodal cells of bench/detect-shapes.sh +11% and +3%) and no goal
 * row more. */
static double
clip_at(const struct policy *p, const struct vnight *w)
{
	return fmax(3 * w->base_sd, 2 * p->min_effect * w->base_mean);
}

/* Where too_small (below) holds short windows to short_effect: a whole
 * baseline (window nights) no noisier than noise_ref. */
static int
short_held(struct vengine *j, size_t k)
{
	const struct vnight *w = &j->c->nights[k];
	return (int)w->base_n >= j->p->window && test_sd(j, k) <= j->p->noise_ref * w->base_mean;
}

/* A short window's level must also reach short_rise less SHORT_Z
 * deviations of its mean, where that is more than short_effect: the 5%
 * row asks a rise's first nights no less, and at 0.5% noise a slow
 * mode's pair 3% up passed 3.3% one time in five (about 3.65% now). At
 * 3 deviations (3.8%) 2 of 450 5% rises after 150 quiet nights at 0.5%
 * noise were confirmed a night later, their first night 1.5% low. */
#define SHORT_Z 3.5

/* Is effect e of a window of L nights against night k's baseline under
 * the least a shift needs: min_effect, and short_effect under
 * short_nights on a whole baseline (window nights) no noisier than
 * noise_ref (test_sd; a young baseline's own deviation is low by chance
 * too often)? A run of a slow mode 3% up is 2 to 4 nights of a level that
 * a lasting 2% rise reaches only over 5; a 5% rise stands above 3.3% on
 * its second night at such noise. On a noisier baseline the tests' own
 * levels ask more than short_effect already, and the rows there have no
 * room. */
static int
too_small(struct vengine *j, size_t k, int L, double e)
{
	const struct policy *p = j->p;
	if (fabs(e) < p->min_effect)
		return 1;
	if (L >= p->short_nights || !short_held(j, k))
		return 0;
	const struct vnight *w = &j->c->nights[k];
	double rel = test_sd(j, k) / w->base_mean, low = p->short_rise - SHORT_Z * rel / sqrt((double)L);
	return fabs(e) < fmax(p->short_effect, low);
}

/* The best step of deviations d[0..L) (latest first): the latest s
 * nights at their mean (in *level), the rest at 0. Returns what it
 * leaves unexplained (the sum of squares), s in *at. */
static double
latest_step(const double *d, size_t L, size_t *at, double *level)
{
	double sq = 0, sum = 0, best = INFINITY;
	for (size_t a = 0; a < L; a++)
		sq += d[a] * d[a];
	/* the step of the latest s nights at their mean m leaves
	 * sq - s m^2 unexplained */
	*at = 0, *level = 0;
	for (size_t s = 1; s <= L; s++) {
		sum += d[s - 1];
		double m = sum / (double)s, ss = sq - (double)s * m * m;
		if (ss < best)
			best = ss, *at = s, *level = m;
	}
	return best;
}

/* What a ramp through the old level leaves unexplained of deviations
 * d[0..L) (latest first, weights L..1): its residual sum of squares. */
static double
ramp_rss(const double *d, size_t L)
{
	double sw2 = 0, sxw = 0, rss = 0;
	for (size_t a = 0; a < L; a++)
		sw2 += (double)((L - a) * (L - a)), sxw += (double)(L - a) * d[a];
	for (size_t a = 0; a < L; a++) {
		double r = d[a] - sxw / sw2 * (double)(L - a);
		rss += r * r;
	}
	return rss;
}

/* Is the ramp over x[0..L) (night kw's baseline at mu; latest first, as
 * tail_confirms gathers them) a short step in disguise: do the latest s
 * nights at one level, the rest at mu, fit them better than the ramp, with
 * s under short_nights and that level under short_effect, where too_small
 * holds such windows to short_effect? The ramp's weights score a run at
 * the window's end as high as a drift, so a slow mode's run of 2 to 4
 * nights 1.5% or 3% up, which no tail window of its length confirms,
 * was confirmed as a ramp of 5 nights or more. */
static int
short_step(struct vengine *j, size_t kw, const double *x, size_t L, double mu)
{
	const struct policy *p = j->p;
	const struct vnight *w = &j->c->nights[kw];
	if (!short_held(j, kw) || L > 1000)
		return 0;
	double lim = 3 * w->base_sd, d[1000], level;
	for (size_t a = 0; a < L; a++)
		d[a] = fmin(fmax(x[a], mu - lim), mu + lim) - mu;
	size_t at;
	double best = latest_step(d, L, &at, &level);
	return (int)at < p->short_nights && level < p->short_effect * mu && best < ramp_rss(d, L);
}

/* Is a tail window of short_nights or more (deviations d[0..n) from
 * night k's baseline at mu, latest first) a short step in disguise: do
 * its latest s nights, fewer than short_nights with two or more of the
 * window's before them, at one level under short_effect and the rest at
 * the old level fit it better than one level over all n, and than a
 * ramp (a drift's latest nights are a step's too), by short_llr (a
 * log-likelihood ratio at the tests' deviation), where too_small holds
 * short windows to short_effect? Two fast nights and a slow mode's run of
 * 3 nights 3% up reach 1.8% over five, a lasting 2% rise's level, where
 * the run alone is held to 3.3%. With one night before them, the step is
 * a 2% rise's first four nights at 0.5% noise: they were confirmed a
 * night later. */
static int
short_run(struct vengine *j, size_t k, const double *d, size_t n, double mu)
{
	const struct policy *p = j->p;
	if (!(p->short_llr > 0) || (int)n < p->short_nights || !short_held(j, k))
		return 0;
	size_t at;
	double level, m = stats_mean(d, n), flat = 0, sd = test_sd(j, k);
	for (size_t a = 0; a < n; a++)
		flat += (d[a] - m) * (d[a] - m);
	double best = latest_step(d, n, &at, &level);
	return (int)at < p->short_nights && at + 2 <= n && level < p->short_effect * mu && (fmin(flat, ramp_rss(d, n)) - best) / (2 * sd * sd) > p->short_llr;
}

/* A shift seen in the last few nights together: the mean of the last L
 * eligible nights (L = 2 .. tail_max, night i the last) against the
 * baseline of the first of them, which none of them is in. Each night
 * enters winsorized to 3 deviations of that baseline (clip_at), so that
 * one spike counts as one unusual night and never carries the mean; with
 * L = 2 the two nights enter as they are but must agree on the size of
 * the change (confirm_ratio): a spike has no partner.
 * Confirms when the most significant L has p < tail_alpha (tail_alpha_pair
 * for two nights: strict levels, since this is asked every night and for
 * several L) and an effect of min_effect, and the level is unlikely under
 * the baseline's two-normal mixture; its first night is the first bad
 * night. Large shifts show at L = 2, small ones accumulate over more
 * nights, and drifts also show against a ramp (below). Unless the
 * night before i was CONFIRMED (ongoing), the window stops at the nights
 * of an earlier confirmed episode. Says in *rule and *len which window
 * confirmed: VR_PAIR (L = 2), VR_TAIL (L = 3..tail_max) or VR_RAMP, and
 * its L. */
int
tail_confirms(struct vengine *j, size_t i, int ongoing, size_t *first, double *tmax, int *rule, int *len)
{
	const struct policy *p = j->p;
	const struct vnight *v = &j->c->nights[i];
	int dir = v->effect > 0 ? VB_SLOWER : VB_FASTER;
	double best = 0, x[1000];
	size_t n = 0, bestf = 0, kfirst = i, bestn = 0;
	int bestr = VR_NONE;
	*tmax = 0;
	if (!(fabs(v->effect) >= p->min_effect / 2))
		return VB_NONE;
	int nmax = p->tail_max > p->ramp_max ? p->tail_max : p->ramp_max;
	struct segwalk walk = segwalk(j, i, i + 1);
	for (const struct vnight *w; (int)n < nmax && n < 1000 && (w = segwalk_prev(&walk));) {
		size_t k = walk.k;
		/* After a confirmed episode ended, its nights are no part of a
		 * new one. */
		if (k < i && w->confirmed && !ongoing)
			break;
		x[n++] = w->mean;
		if ((int)n > p->tail_max)
			continue;
		kfirst = k;
		if (n < 2 || (int)w->base_n < p->min_nights || !(w->base_sd > 0))
			continue;
		double mu = w->base_mean, lim = clip_at(p, w), sum = 0, d[1000];
		size_t used = 0;
		for (size_t a = 0; a < n; a++) {
			if (n > 2 && fabs(x[a] - mu) > lim * 5 / 3)
				continue;
			double xa = n == 2 ? x[a] : fmin(fmax(x[a], mu - lim), mu + lim);
			sum += xa, d[used++] = xa - mu;
		}
		if (used < 2)
			continue;
		double m = sum / (double)used, e;
		if (n == 2) {
			/* An improvement starts a new segment, and a false one
			 * leaves the gate without a baseline for weeks: neither
			 * two nights nor a ramp confirms one (a step is confirmed
			 * on its third night, a drift by the flat mean of its
			 * nights). */
			if (dir == VB_FASTER)
				continue;
			double d0 = fabs(x[0] - mu), d1 = fabs(x[1] - mu);
			if ((x[0] > mu) != (x[1] > mu) || fmin(d0, d1) < p->confirm_ratio * fmax(d0, d1))
				continue;
			/* The farther night counts at most twice the nearer: an
			 * outlier (a spike, a noisy stall night) does not carry a
			 * partner that moved a little. */
			double dn = fmin(d0, d1), df = fmin(fmax(d0, d1), 2 * dn);
			m = mu + (x[0] > mu ? 1 : -1) * (dn + df) / 2;
		}
		e = (m - mu) / mu;
		if ((e > 0) != (dir == VB_SLOWER) || too_small(j, k, (int)n, e) || (dir == VB_SLOWER && short_run(j, k, d, used, mu)))
			continue;
		/* Night i back at the old level by 2.5 deviations ends the
		 * tail (a regression that was fixed), and a level within a
		 * slow mode the baseline has seen is none. */
		if (dir == VB_SLOWER ? m - v->mean > 2.5 * w->base_sd : v->mean - m > 2.5 * w->base_sd)
			continue;
		double t = stats_shift_t(m, (double)used, mu, (double)w->base_n, now_sd(j, k, x, n));
		*tmax = fmax(*tmax, fabs(t));
		/* two nights, or two left beside a spike: the pair's level */
		double alpha = (used == 2 ? p->tail_alpha_pair : p->tail_alpha) * noise_scale(p, w, TAIL_POWER);
		if (!(fabs(t) > best) || !(stats_t_sf(fabs(t), (double)w->base_n - 1) < alpha))
			continue;
		if (beyond_modes(j, k, m, (double)n, (double)used, dir, alpha, 0) && !known_mode(j, k, i, m, n))
			best = fabs(t), bestf = k, bestn = n, bestr = n == 2 ? VR_PAIR : VR_TAIL;
	}
	/* A drift: the nights against a ramp (weights 1..L, night i highest:
	 * the matched filter of a steady rise), L = ramp_min..ramp_max. */
	for (size_t L = (size_t)p->ramp_min; dir == VB_SLOWER && !(best > 0) && L <= n && (int)L <= p->ramp_max; L++) {
		size_t k = L - 1, kw = i;
		for (size_t a = i + 1, c = 0; a-- > 0 && c < L;)
			if (eligible(&j->c->nights[a]))
				kw = a, c++;
		const struct vnight *w = &j->c->nights[kw];
		if ((int)w->base_n < p->min_nights || !(w->base_sd > 0))
			continue;
		double mu = w->base_mean, lim = 3 * w->base_sd, sw = 0, sw2 = 0, sxw = 0;
		/* A spike or a stall night is no step of a drift, and the
		 * nights beside it are too few for one. */
		int outlier = 0;
		for (size_t a = 0; a <= k; a++)
			outlier |= fabs(x[a] - mu) > 5 * w->base_sd;
		if (outlier)
			continue;
		for (size_t a = 0; a <= k; a++) {
			double wt = (double)(L - a), d = fmin(fmax(x[a], mu - lim), mu + lim) - mu;
			sw += wt, sw2 += wt * wt, sxw += wt * d;
		}
		/* the level the ramp reaches at night i */
		double level = mu + sxw / sw2 * (double)L, e = (level - mu) / mu;
		if ((e > 0) != (dir == VB_SLOWER) || too_small(j, kw, (int)L, e))
			continue;
		double t = sxw / (now_sd(j, kw, x, L) * sqrt(sw2 + sw * sw / (double)w->base_n));
		*tmax = fmax(*tmax, fabs(t));
		double alpha = p->ramp_alpha * noise_scale(p, w, RAMP_POWER);
		if (!(fabs(t) > best) || !(stats_t_sf(fabs(t), (double)w->base_n - 1) < alpha) || short_step(j, kw, x, L, mu))
			continue;
		if (beyond_modes(j, kw, sxw / sw + mu, (double)L, (double)L, dir, alpha, 1) && !known_mode(j, kw, i, level, L))
			best = fabs(t), bestf = kw, kfirst = kw, bestn = L, bestr = VR_RAMP;
	}
	if (!(best > 0))
		return VB_NONE;
	*first = step_at(j, kfirst, i, &j->c->nights[bestf], dir);
	*rule = bestr, *len = (int)bestn;
	return dir;
}

const char resumed_how[] = "a regression declared over whose nights since stand at its level";

/* How long a regression declared over is watched, in baseline windows:
 * of the 2% rises that lasted and were still silent after one window, 2
 * of 13 at 1% noise and a sixth at 2% were confirmed again within three,
 * and quiet, bimodal and fixed histories gave not one alarm more. */
#define WATCH_WINDOWS 3

/* Is the episode that ended at the watched night (its confirmed nights,
 * by their median) MODE_SEP deviations of the baseline before it above
 * that baseline's level? Such a level is one the nights tell apart from
 * their noise: when the nights after it came back to the old level
 * (latest_ended), it is a slow mode that came and went, and its next run
 * is asked against the modes that hold it. A lasting rise declared over
 * lies nearer its baseline (2% at 2% noise: about 1 deviation, its
 * episode's median higher by chance): of 23 such rises at 2% noise, at
 * 3 deviations one more was no longer CONFIRMED on its last night, at 2
 * two more, and three with none asked. */
static int
far_episode(const struct vengine *j, double mu, double sd)
{
	size_t first;
	double level = episode_median(j, (size_t)j->watch, &first);
	return !isnan(level) && level - mu >= MODE_SEP * sd;
}

/* A regression declared over whose nights since then, together, still
 * stand above the level before it: the mean of every eligible night from
 * the one that ended it to night i (two at least, within 3 deviations),
 * against the baseline of the episode's first bad night, as the tail test
 * weighs a window (its levels, min_effect, the modes and mixture of that
 * baseline). The tail test sees the same nights against a baseline that
 * takes them in as they come, and one night low by chance ended a
 * regression that went on: at 1% noise 5 in 100 rises of 2% that lasted
 * were no longer CONFIRMED on their last night, the gate silent on them
 * for as long as 115 nights. Watched for WATCH_WINDOWS windows of nights
 * after the end (j->watch, the episode's last night); names the episode's
 * first bad night again. The baseline before the episode holds no slow
 * mode that appeared with it: after an episode far_episode calls a mode,
 * the level must also lie beyond the modes of night i, which hold the
 * episode's nights (of the 158 false alarms of half the nights 3% slower
 * in runs from night 101, 1% noise, 19 were confirmed here, 12 with it). */
int
resumed_confirms(struct vengine *j, size_t i, size_t *first)
{
	const struct policy *p = j->p;
	const struct vnight *v = &j->c->nights[i];
	if (j->watch < 0 || !(v->effect > 0))
		return VB_NONE;
	const struct vnight *last = &j->c->nights[j->watch];
	size_t cap = (size_t)WATCH_WINDOWS * (size_t)p->window, n = 0;
	double x[1000];
	if (last->day < seg_day(j, i) || last->first_bad < 0) {
		j->watch = -1;
		return VB_NONE;
	}
	for (size_t k = (size_t)j->watch + 1; k <= i; k++) {
		if (!eligible(&j->c->nights[k]))
			continue;
		if (n >= cap || n >= sizeof x / sizeof *x) {
			j->watch = -1;
			return VB_NONE;
		}
		x[n++] = j->c->nights[k].mean;
	}
	if (n < 2)
		return VB_NONE;
	size_t f = (size_t)last->first_bad;
	const struct vnight *w = &j->c->nights[f];
	if ((int)w->base_n < p->min_nights || !(w->base_sd > 0))
		return VB_NONE;
	double mu = w->base_mean, lim = 3 * w->base_sd, m = stats_clipped_mean(x, n, mu - lim, mu + lim);
	if ((m - mu) / mu < p->min_effect || m - v->mean > 2.5 * w->base_sd)
		return VB_NONE;
	double t = stats_shift_t(m, (double)n, mu, (double)w->base_n, now_sd(j, f, x, n));
	double alpha = (n == 2 ? p->tail_alpha_pair : p->tail_alpha) * noise_scale(p, w, TAIL_POWER);
	if (!(stats_t_sf(t, (double)w->base_n - 1) < alpha) || !beyond_modes(j, f, m, (double)n, (double)n, VB_SLOWER, alpha, 0))
		return VB_NONE;
	if (far_episode(j, mu, w->base_sd) &&
	    ((latest_ended(j, i) && !beyond_modes(j, i, m, (double)n, (double)n, VB_SLOWER, alpha, 0)) ||
	     chain_explains(j, (size_t)j->watch + 1, i, 1)))
		return VB_NONE;
	if (episode_alternates(j, f, i))
		return VB_NONE;
	*first = f;
	return VB_SLOWER;
}

/* Can the change-point test confirm anything at night i? Only if the
 * cp_min_after nights before it lean night i's way by half the minimum
 * effect (their median, against night i's baseline): cp_confirms needs
 * that much and more, and the test is the costly part of judging. */
int
leaning(const struct vengine *j, size_t i)
{
	const struct vnight *v = &j->c->nights[i];
	double m[64];
	size_t n = 0;
	for (size_t k = i; k-- > 0 && n < (size_t)j->p->cp_min_after && n < 64;)
		if (eligible(&j->c->nights[k]))
			m[n++] = j->c->nights[k].mean;
	if ((int)n < j->p->cp_min_after || !(v->base_mean > 0))
		return 0;
	double e = (stats_median(m, n) - v->base_mean) / v->base_mean;
	return (v->effect > 0 ? e : -e) >= j->p->min_effect / 2;
}
