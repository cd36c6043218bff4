#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "mixture.h"
#include "stats.h"
#include "util.h"

#include "verdict.h"

const char *const vb_names[] = {"NONE", "SAME", "SLOWER", "FASTER", "UNKNOWN"};
const char *const state_names[] = {"OK", "SUSPECT", "CONFIRMED", "INVALID", "FAILED", "INCONCLUSIVE", "NEW"};

/* ---- nights ------------------------------------------------------------- */

static int
cmp_run_day(const void *a, const void *b)
{
	const struct hrun *x = *(const struct hrun *const *)a, *y = *(const struct hrun *const *)b;
	if (x->day != y->day)
		return x->day < y->day ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* One night from its runs: the mean of the valid runs' means (each of
 * the steps within 10 robust deviations of its median: stalled steps are
 * left out) and the
 * root-mean-square of their within-run standard errors over sqrt(runs). */
static void
night_from_runs(struct vnight *v, const struct hrun *const *r, size_t n)
{
	double sum = 0, se2 = 0;
	memset(v, 0, sizeof *v);
	v->first_bad = v->conf_first = -1;
	v->day = r[0]->day;
	memcpy(v->night, r[0]->night, sizeof v->night);
	v->nruns = n;
	v->rep = r[n - 1];
	v->failed = 1;
	for (size_t i = 0; i < n; i++) {
		v->failed &= !r[i]->ok;
		if (!r[i]->valid)
			continue;
		double m = r[i]->mean, se = r[i]->se;
		sum += m, se2 += isnan(se) ? 0 : se * se;
		v->nvalid++;
		v->rep = r[i];
		if (!isnan(r[i]->ref))
			v->ref = r[i]->ref, v->tol = r[i]->tol;
	}
	v->valid = v->nvalid > 0;
	v->mean = v->valid ? sum / (double)v->nvalid : NAN;
	v->se = v->valid ? sqrt(se2 / (double)v->nvalid) / sqrt((double)v->nvalid) : NAN;
	v->effect = v->p = v->base_mean = v->base_sd = v->band_lo = v->band_hi = v->ref_effect = v->cp_p = NAN;
	v->clip_lo = -INFINITY, v->clip_hi = INFINITY;
	v->reg_lo = v->reg_hi = v->reg_sd = v->mix.lo = NAN;
	if (!v->ref)
		v->ref = v->tol = NAN;
}

static struct vnight *
group_nights(const struct history *h, size_t *np)
{
	const struct hrun **r = xmalloc((h->nruns + 1) * sizeof *r);
	for (size_t i = 0; i < h->nruns; i++)
		r[i] = &h->runs[i];
	/* appended night by night, a history is mostly in order already */
	size_t sorted = 1;
	while (sorted < h->nruns && cmp_run_day(&r[sorted - 1], &r[sorted]) <= 0)
		sorted++;
	if (sorted < h->nruns)
		qsort(r, h->nruns, sizeof *r, cmp_run_day);
	struct vnight *v = xmalloc((h->nruns + 1) * sizeof *v);
	size_t n = 0;
	for (size_t i = 0, j; i < h->nruns; i = j) {
		for (j = i; j < h->nruns && r[j]->day == r[i]->day; j++)
			;
		night_from_runs(&v[n++], r + i, j - i);
	}
	free(r);
	*np = n;
	return v;
}

/* ---- one night against its baseline ------------------------------------- */

struct base {
	double *m;              /* night means */
	double se2;             /* mean squared within-run error */
	size_t n;
};

/* The separation two modes of n nights need: the 95th percentile of that
 * split for one normal's nights (bench/regime-split.py), at least 3. At 3
 * alone, 27% of 30-night baselines of one normal had a mode, and a small
 * rise within it was no change; 6% of 90-night ones. */
static double
split_sep(size_t n)
{
	return fmax(3, 2.36 + 6.2 / sqrt((double)n));
}

/* A recurring regime: the baseline split in two by 1-D 2-means (the
 * split of the sorted nights with the largest between-group sum of
 * squares) is two modes when each group has at least two nights and they
 * lie apart by min_effect and by split_sep(n) pooled within-group
 * deviations (node placement, a slower switch, one rack's clocks); the
 * group with at most 45% of the nights is the mode (for one normal the
 * best split gives halves 2.7 deviations apart). Sets the night's reg_*
 * fields: reg_hi is a slow mode, reg_lo a fast one, NAN when there is
 * none. */
static void
find_regime(struct vnight *v, const struct base *b, const struct policy *p, int fit)
{
	size_t n = b->n, best = 0;
	double x[1024], pre[1025], pre2[1025], bss = 0;
	v->reg_lo = v->reg_hi = v->reg_sd = NAN;
	v->reg_done = 1;
	if (fit)
		v->mix.lo = NAN, v->mix_done = 1;
	if (n < 5 || n > 1024)
		return;
	memcpy(x, b->m, n * sizeof *x);
	stats_sort(x, n);
	pre[0] = pre2[0] = 0;
	for (size_t a = 0; a < n; a++)
		pre[a + 1] = pre[a] + x[a], pre2[a + 1] = pre2[a] + x[a] * x[a];
	for (size_t k = 2; k + 2 <= n; k++) {
		double ml = pre[k] / (double)k, mh = (pre[n] - pre[k]) / (double)(n - k);
		double s = (double)k * (double)(n - k) / (double)n * (mh - ml) * (mh - ml);
		if (s > bss)
			bss = s, best = k;
	}
	if (!best)
		return;
	size_t k = best, h = n - k;
	double ml = pre[k] / (double)k, mh = (pre[n] - pre[k]) / (double)h;
	double wss = pre2[k] - (double)k * ml * ml + (pre2[n] - pre2[k]) - (double)h * mh * mh;
	double sp = fmax(sqrt(fmax(wss, 0) / (double)(n - 2)), p->noise_floor * ml);
	if (fit)
		mixture_fit(&v->mix, x, n, ml, mh, sp, p->noise_floor * ml);
	if (mh - ml < fmax(p->min_effect * ml, split_sep(n) * sp))
		return;
	/* Two modes when one group holds at most 45% of the nights (one
	 * normal splits in halves): a level within either is no change. */
	if (20 * k > 9 * n && 20 * h > 9 * n)
		return;
	v->reg_lo = ml, v->reg_hi = mh;
	v->reg_sd = sp, v->reg_nlo = k, v->reg_nhi = h;
}

/* Is a level (the mean of nl nights, NAN-free) beyond the mode of night
 * w's baseline that lies its way (dir), by a t-test at level alpha? Always
 * when that baseline has no modes: then the plain tests decide. */
static int
beyond_regime(const struct vnight *w, double level, double nl, int dir, double extra2, double alpha)
{
	double ref = dir == VB_SLOWER ? w->reg_hi : w->reg_lo;
	if (isnan(ref))
		return 1;
	double nr = (double)(dir == VB_SLOWER ? w->reg_nhi : w->reg_nlo);
	double t = (level - ref) / sqrt(w->reg_sd * w->reg_sd * (1 / nl + 1 / nr) + extra2);
	if (dir == VB_FASTER)
		t = -t;
	return stats_t_sf(t, (double)(w->reg_nlo + w->reg_nhi) - 2) < alpha;
}

static void
verdict_vs_base(struct vnight *v, const struct base *b, const struct policy *p)
{
	v->base_n = b->n;
	if (!b->n)
		return;
	double mu = stats_mean(b->m, b->n), s = stats_std(b->m, b->n);
	double sigma = fmax(s, p->noise_floor * mu);
	/* A night noisier inside than the baseline's nights widens its own error. */
	double extra = fmax(0, v->se * v->se - b->se2);
	double tot = sqrt(sigma * sigma * (1 + 1.0 / (double)b->n) + extra);
	double e = (v->mean - mu) / mu, crit;
	v->base_mean = mu;
	v->base_sd = tot / sqrt(1 + 1.0 / (double)b->n);
	v->effect = e;
	int dir = e > 0 ? VB_SLOWER : VB_FASTER;
	if ((int)b->n >= p->min_nights) {
		crit = stats_t_isf(p->alpha, (double)b->n - 1);
		v->p = stats_t_sf(fabs(v->mean - mu) / tot, (double)b->n - 1);
		/* UNKNOWN: an effect that matters, not significant, and a baseline
		 * too noisy to resolve even twice the minimum effect. */
		double resolution = crit * tot / mu;
		v->vb = v->p < p->alpha && fabs(e) >= p->min_effect                 ? dir
			: fabs(e) < p->min_effect || resolution <= 2 * p->min_effect ? VB_SAME
										     : VB_UNKNOWN;
	} else {
		/* Too few nights for a t-test to mean anything: only a large
		 * effect, far outside everything seen, is called. */
		crit = 4;
		int big = (int)b->n >= p->min_nights_large && fabs(e) >= fmax(p->large_effect, p->min_effect) &&
			  fabs(v->mean - mu) >= crit * sqrt(s * s + b->se2 + v->se * v->se);
		v->vb = big ? dir : fabs(e) < p->min_effect ? VB_SAME : VB_UNKNOWN;
	}
	if (b->n >= 2)
		v->clip_lo = mu - 3 * tot, v->clip_hi = mu + 3 * tot;
	double half = fmax(p->min_effect * mu, crit * tot);
	v->band_lo = mu - half, v->band_hi = mu + half;
}

static void
verdict_vs_ref(struct vnight *v)
{
	if (isnan(v->ref) || !v->valid)
		return;
	v->ref_effect = (v->mean - v->ref) / v->ref;
	v->vref = fabs(v->ref_effect) <= v->tol ? VB_SAME : v->ref_effect > 0 ? VB_SLOWER : VB_FASTER;
}

/* ---- the sequential judge ----------------------------------------------- */

struct judge {
	struct vconfig *c;
	const struct policy *p;
	int auto_day;           /* a confirmed improvement starts a segment here */
	double *buf;            /* scratch: night means */
	size_t *idx;            /* scratch: night indices */
};

static int
accept_day(const struct history *h, int day)
{
	int best = INT_MIN;
	for (size_t i = 0; i < h->nanns; i++)
		if (h->anns[i].action == ANN_ACCEPT && h->anns[i].day <= day && h->anns[i].day > best)
			best = h->anns[i].day;
	return best;
}

static int
is_acked(const struct history *h, int day)
{
	for (size_t i = 0; i < h->nanns; i++)
		if (h->anns[i].action == ANN_ACK && h->anns[i].day == day)
			return 1;
	return 0;
}

static int
seg_day(const struct judge *j, size_t i)
{
	int a = accept_day(j->c->h, j->c->nights[i].day);
	return a > j->auto_day ? a : j->auto_day;
}

static int
eligible(const struct vnight *v)
{
	return v->valid && !v->acked;
}

/* A quarantined night that no rule confirmed while it could (confirm_k
 * nights), or one of a confirmed episode that fell back within confirm_k
 * nights (brief), returns into the baseline, unless it was off by
 * large_effect or more: a recurring slow mode (node placement, a slower
 * switch) is part of the noise, and a baseline purged of it would flag
 * its next night; a spike stays out. later: the eligible nights between
 * it and the judged night. */
static int
released(const struct judge *j, const struct vnight *v, int later)
{
	return (!v->confirmed || v->brief) && later >= j->p->confirm_k - 1 && fabs(v->effect) < j->p->large_effect;
}

static void
collect_base(struct judge *j, size_t i, struct base *b, int window)
{
	int from = seg_day(j, i), later = 0;
	b->m = j->buf, b->n = 0, b->se2 = 0;
	for (size_t k = i; k-- > 0 && (int)b->n < window;) {
		const struct vnight *v = &j->c->nights[k];
		if (v->day < from)
			break;
		if (!eligible(v))
			continue;
		if (v->quarantined && !released(j, v, later++))
			continue;
		b->m[b->n++] = v->mean;
		b->se2 += v->se * v->se;
	}
	if (b->n)
		b->se2 /= (double)b->n;
}

/* Night k's modes, from its baseline, when first asked for (a few nights
 * need them: finding them for every night is most of the judging time). */
static const struct vnight *
regime_of(struct judge *j, size_t k)
{
	struct vnight *w = &j->c->nights[k];
	if (!w->reg_done) {
		struct base b;
		collect_base(j, k, &b, j->p->regime_window);
		find_regime(w, &b, j->p, 0);
	}
	return w;
}

/* mixture_sf of night k's baseline (fitted when first asked for: a few
 * nights need it); 0 when it has no split. */
static double
base_mixture_sf(struct judge *j, size_t k, double level, double L, int dir)
{
	struct vnight *w = &j->c->nights[k];
	if (!w->mix_done) {
		struct base b;
		collect_base(j, k, &b, j->p->regime_window);
		find_regime(w, &b, j->p, 1);
	}
	return isnan(w->mix.lo) ? 0 : mixture_sf(&w->mix, level, L, dir == VB_SLOWER ? 1 : -1);
}

/* The deviation the tail and ramp tests divide by: the baseline's, or
 * that of the regime window's nights when larger. Most chance runs stand
 * on a 30-night deviation that is low by chance (0.77% where the truth is
 * 1.05%); the longer window seldom is, and with the t-test's degrees of
 * freedom kept at the baseline's, a long history's false alarms halve
 * while a young one (30 nights: both windows the same) is judged as
 * before. A level that really moved is in neither window. */
static double
test_sd(struct judge *j, size_t k)
{
	struct vnight *w = &j->c->nights[k];
	if (!(w->long_sd > 0)) {
		struct base b;
		collect_base(j, k, &b, j->p->regime_window);
		w->long_sd = w->base_sd;
		if (b.n > w->base_n)
			w->long_sd = fmax(w->base_sd, stats_std(b.m, b.n));
		size_t r = (size_t)j->p->noise_nights;
		if (r >= 2 && b.n >= 2 * r) {
			double sr = stats_std(b.m, r);
			w->rec_ss = sr * sr * (double)(r - 1), w->rec_n = r;
			w->old_var = stats_std(b.m + r, b.n - r), w->old_var *= w->old_var, w->old_n = b.n - r;
		}
	}
	return w->long_sd;
}

/* The deviation of the test of nights x[0..n) against night k's baseline:
 * test_sd, or, when the noise grew, that of the nights now. Nights that
 * scatter both ways at twice the old deviation are no shift, and until
 * the baseline has taken them in, they look like one. "Now" is the
 * window's own nights about their mean together with the last
 * noise_nights baseline nights before it about theirs, so a step at the
 * window's first night adds nothing; it counts when it exceeds the older
 * nights' variance by an F-test at noise_alpha. A spike in the window
 * counts in full (the window is then no steady level): taken as the test
 * takes it, within 3 deviations, more spikes were confirmed at 2% noise. */
static double
now_sd(struct judge *j, size_t k, const double *x, size_t n)
{
	double sd = test_sd(j, k);
	const struct vnight *w = &j->c->nights[k];
	if (!w->rec_n || n < 2 || !(w->old_var > 0))
		return sd;
	double m = stats_mean(x, n), ss = w->rec_ss;
	for (size_t a = 0; a < n; a++)
		ss += (x[a] - m) * (x[a] - m);
	double df = (double)(w->rec_n - 1 + n - 1), var = ss / df;
	if (var > sd * sd && stats_f_sf(var / w->old_var, df, (double)w->old_n - 1) < j->p->noise_alpha)
		return sqrt(var);
	return sd;
}

/* M of the last K eligible nights of the segment (night i included) went
 * the same way as night i, and M of them, night i one of them, agree on
 * the size of the change within confirm_ratio: a sustained shift keeps its
 * size, while a spike next to an unrelated noisy night does not. */
static int
m_of_k(const struct judge *j, size_t i)
{
	int from = seg_day(j, i), seen = 0, same = 0, m = j->p->confirm_m;
	double e[100];
	for (size_t k = i + 1; k-- > 0 && seen < j->p->confirm_k;) {
		const struct vnight *v = &j->c->nights[k];
		if (v->day < from)
			break;
		if (!eligible(v))
			continue;
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
static size_t
streak_first(const struct judge *j, size_t i, int dir)
{
	int from = seg_day(j, i), gap = 0;
	size_t first = i;
	for (size_t k = i; k-- > 0;) {
		const struct vnight *v = &j->c->nights[k];
		if (v->day < from)
			break;
		if (!eligible(v))
			continue;
		/* A night of another size (a spike before a small shift) is
		 * not the streak's first night. */
		double a = fabs(v->effect), b = fabs(j->c->nights[i].effect);
		if (v->vb == dir && fmin(a, b) >= j->p->confirm_ratio * fmax(a, b))
			first = k, gap = 0;
		else if (++gap > j->p->confirm_k - j->p->confirm_m)
			break;
	}
	return first;
}

/* E-divisive over the eligible nights of the segment up to night i (the
 * last cp_window of them). Marks nothing; returns the change points as
 * night indices in cps (at most max) and their p-values. */
static size_t
changepoints(struct judge *j, size_t i, size_t to, size_t *cps, double *ps, size_t max)
{
	int from = seg_day(j, i);
	size_t n = 0;
	for (size_t k = to; k-- > 0 && (int)n < j->p->cp_window;) {
		const struct vnight *v = &j->c->nights[k];
		if (v->day < from)
			break;
		if (eligible(v))
			j->idx[n++] = k;
	}
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

/* The median of the eligible nights in [from, to): one spike cannot move it. */
static double
median_between(const struct judge *j, size_t from, size_t to)
{
	size_t n = 0;
	double *m = xmalloc((to - from + 1) * sizeof *m);
	for (size_t k = from; k < to; k++)
		if (eligible(&j->c->nights[k]))
			m[n++] = j->c->nights[k].mean;
	double r = n ? stats_median(m, n) : NAN;
	free(m);
	return r;
}

/* The eligible nights from night from up to night to (not counted),
 * counted no further than cap: the callers ask whether there are more
 * than a few, some of them every night of an episode that may last
 * hundreds. */
static size_t
eligible_between(const struct judge *j, size_t from, size_t to, size_t cap)
{
	size_t n = 0;
	for (size_t k = from; k < to && n < cap; k++)
		n += eligible(&j->c->nights[k]);
	return n;
}

/* The night after the last night of a confirmed episode from night from
 * up to night to (not counted), or from when there is none. Before the
 * night judged, that episode ended. */
static size_t
last_confirmed(const struct judge *j, size_t from, size_t to)
{
	for (size_t k = to; k-- > from;)
		if (j->c->nights[k].confirmed)
			return k + 1;
	return from;
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
level_significant(struct judge *j, size_t c, const double *m, size_t n)
{
	const struct vnight *w = &j->c->nights[c];
	if (n < 2 || !(w->base_sd > 0) || (int)w->base_n < j->p->min_nights)
		return 1;
	double lim = 3 * w->base_sd, sum = 0;
	for (size_t a = 0; a < n; a++)
		sum += fmin(fmax(m[a], w->base_mean - lim), w->base_mean + lim);
	double t = (sum / (double)n - w->base_mean) / (test_sd(j, c) * sqrt(1.0 / (double)n + 1.0 / (double)w->base_n));
	return stats_t_sf(fabs(t), (double)w->base_n - 1) < j->p->cp_level_alpha;
}

/* A change point confirms a shift at night i when it is the latest one,
 * enough nights lie at and after it, the level after it differs from the
 * level before it by min_effect and off the baseline by a t-test, and
 * night i itself is still shifted. */
static int
cp_confirms(struct judge *j, size_t i, const size_t *cps, size_t ncp, size_t *at)
{
	if (!ncp)
		return VB_NONE;
	size_t c = cps[ncp - 1], prev = ncp > 1 ? cps[ncp - 2] : 0;
	if (c >= i)
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
	int sure = level_significant(j, c, m, n);
	free(m);
	if ((int)n < j->p->cp_min_after || !sure)
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
	if (!beyond_regime(regime_of(j, c), after, (double)n, dir, 0, j->p->cp_alpha) ||
	    base_mixture_sf(j, c, after, (double)n, dir) >= j->p->cp_alpha)
		return VB_NONE;
	*at = c;
	return e > 0 ? VB_SLOWER : VB_FASTER;
}

static long
last_good_before(const struct judge *j, size_t first)
{
	for (size_t k = first; k-- > 0;) {
		const struct vnight *v = &j->c->nights[k];
		if (eligible(v) && !v->quarantined)
			return (long)k;
	}
	return -1;
}

/* A confirmed shift from night first to night i: the bad nights stay out
 * of later baselines; an improvement is accepted as the new level. */
static void
settle(struct judge *j, size_t first, size_t i, int dir)
{
	for (size_t k = first; k <= i; k++) {
		struct vnight *v = &j->c->nights[k];
		if (eligible(v))
			v->quarantined = dir == VB_SLOWER, v->confirmed = 1, v->brief = 0;
	}
	if (dir == VB_FASTER)
		j->auto_day = j->c->nights[first].day;
}

/* Night v's deviation from mu, within lim either way. */
static double
clipped_dev(const struct vnight *v, double mu, double lim)
{
	return fmin(fmax(v->mean - mu, -lim), lim);
}

/* The first night from night s on (up to night to) where a step fits
 * better than one at the next eligible night: the odds of the two, with
 * the new level unknown (a flat prior: the mean of the n nights after
 * night s, up to cap of them, to night i) and one normal of deviation sd
 * about either level, log odds
 *   (d|d| - n/(n+1) (a - d)^2) / 2sd^2 + ln(n/(n+1)) / 2,
 * for a night d above the old level (mu) and nights after it a above, on
 * dir's side (a night on the other side is never the first). Against a
 * rule of halves (d >= a/2), a night well beyond its baseline before a
 * larger one is the first (it was taken for noise: of 5% rises at 1%
 * noise one in 33 was named a night late, one in 70 now) and a night of ordinary noise
 * before a step is not, since the count's term weighs a level one night
 * defines. Its callers' baselines have a deviation (sd > 0). */
static size_t
likelier_first(const struct judge *j, size_t s, size_t to, size_t i, double mu, double sd, int dir, size_t cap)
{
	double lim = 10 * sd, sign = dir == VB_SLOWER ? 1 : -1;
	while (s < to) {
		size_t next = s, n = 0;
		double after = 0;
		for (size_t k = s + 1; k <= i && n < cap; k++) {
			const struct vnight *v = &j->c->nights[k];
			if (!eligible(v))
				continue;
			if (next == s)
				next = k;
			after += clipped_dev(v, mu, lim), n++;
		}
		if (!n)
			break;
		double d = sign * clipped_dev(&j->c->nights[s], mu, lim), a = sign * after / (double)n, f = (double)n / (double)(n + 1);
		if ((d * fabs(d) - f * (a - d) * (a - d)) / (2 * sd * sd) + log(f) / 2 > 0)
			break;
		s = next;
	}
	return s;
}

/* The log odds of one step at night s against none, from the sum of the
 * deviations of its cnt nights (to the night judged) from the old level:
 * one normal of deviation sd about the new level, and that level unknown
 * (a flat prior, integrated out: the -ln(cnt)/2 term). The maximum
 * likelihood alone favours a long run of a little high nights before a
 * step over the step's own night: at 1% noise, 4 of 300 rises of 5% were
 * named 3 to 9 nights early at confirmation. Where sd is not known,
 * the likelihood alone (sum^2/cnt). */
static double
step_odds(double sum, size_t cnt, double sd)
{
	if (!cnt || !(sum > 0))
		return -HUGE_VAL;
	if (!(sd > 0))
		return sum * sum / (double)cnt;
	return sum * sum / ((double)cnt * 2 * sd * sd) - log((double)cnt) / 2;
}

/* Where the shift in the nights from night from to night i began: the
 * split s with the best odds of one step (step_odds; deviations from the
 * baseline of night w, the first of the window that tested best, each
 * within 10 deviations; the sum must lean dir), moved on to the first
 * night where a step is likelier than at the next (likelier_first).
 * The window that tested best is biased to its shortest length, since
 * winsorizing costs a long one more. */
static size_t
step_at(const struct judge *j, size_t from, size_t i, const struct vnight *w, int dir)
{
	double mu = w->base_mean, lim = 10 * w->base_sd, sum = 0, best = -HUGE_VAL;
	size_t cnt = 0, at = from;
	for (size_t k = i + 1; k-- > from;) {
		const struct vnight *v = &j->c->nights[k];
		if (!eligible(v))
			continue;
		double d = clipped_dev(v, mu, lim);
		sum += dir == VB_SLOWER ? d : -d, cnt++;
		double odds = step_odds(sum, cnt, w->base_sd);
		if (odds > best)
			best = odds, at = k;
	}
	return likelier_first(j, at, i, i, mu, w->base_sd, dir, SIZE_MAX);
}

/* The odds of one step at night s (to night i), as step_at weighs them. */
static double
step_score(const struct judge *j, size_t s, size_t i, const struct vnight *w, int dir)
{
	double mu = w->base_mean, lim = 10 * w->base_sd, sum = 0;
	size_t cnt = 0;
	for (size_t k = s; k <= i; k++) {
		const struct vnight *v = &j->c->nights[k];
		if (!eligible(v))
			continue;
		double d = clipped_dev(v, mu, lim);
		sum += dir == VB_SLOWER ? d : -d, cnt++;
	}
	return step_odds(sum, cnt, w->base_sd);
}

/* Tail and ramp levels times (noise_ref / deviation)^2 on a noisier
 * baseline: there min_effect no longer gates chance runs. */
static double
noise_scale(const struct policy *p, const struct vnight *w)
{
	double rel = w->base_sd / w->base_mean;
	return rel > p->noise_ref ? (p->noise_ref / rel) * (p->noise_ref / rel) : 1;
}

/* A shift seen in the last few nights together: the mean of the last L
 * eligible nights (L = 2 .. tail_max, night i the last) against the
 * baseline of the first of them, which none of them is in. Each night
 * enters winsorized to 3 deviations of that baseline, so that one spike
 * counts as one unusual night and never carries the mean; with L = 2 the
 * two nights enter as they are but must agree on the size of the change
 * (confirm_ratio): a spike has no partner.
 * Confirms when the most significant L has p < tail_alpha (tail_alpha_pair
 * for two nights: strict levels, since this is asked every night and for
 * several L) and an effect of min_effect, and the level is unlikely under
 * the baseline's two-normal mixture; its first night is the first bad
 * night. Large shifts show at L = 2, small ones accumulate over more
 * nights, and drifts also show against a ramp (below). Unless the
 * night before i was CONFIRMED (ongoing), the window stops at the nights
 * of an earlier confirmed episode. */
static int
tail_confirms(struct judge *j, size_t i, int ongoing, size_t *first, double *tmax)
{
	const struct policy *p = j->p;
	const struct vnight *v = &j->c->nights[i];
	int from = seg_day(j, i), dir = v->effect > 0 ? VB_SLOWER : VB_FASTER;
	double best = 0, x[1000];
	size_t n = 0, bestf = 0, kfirst = i;
	*tmax = 0;
	if (!(fabs(v->effect) >= p->min_effect / 2))
		return VB_NONE;
	int nmax = p->tail_max > p->ramp_max ? p->tail_max : p->ramp_max;
	for (size_t k = i + 1; k-- > 0 && (int)n < nmax && n < 1000;) {
		const struct vnight *w = &j->c->nights[k];
		if (w->day < from)
			break;
		if (!eligible(w))
			continue;
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
		double mu = w->base_mean, lim = 3 * w->base_sd, sum = 0;
		size_t used = 0;
		for (size_t a = 0; a < n; a++) {
			if (n > 2 && fabs(x[a] - mu) > 5 * w->base_sd)
				continue;
			sum += n == 2 ? x[a] : fmin(fmax(x[a], mu - lim), mu + lim);
			used++;
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
		if ((e > 0) != (dir == VB_SLOWER) || fabs(e) < p->min_effect)
			continue;
		/* Night i back at the old level by 2.5 deviations ends the
		 * tail (a regression that was fixed), and a level within a
		 * slow mode the baseline has seen is none. */
		if (dir == VB_SLOWER ? m - v->mean > 2.5 * w->base_sd : v->mean - m > 2.5 * w->base_sd)
			continue;
		double t = (m - mu) / (now_sd(j, k, x, n) * sqrt(1.0 / (double)used + 1.0 / (double)w->base_n));
		*tmax = fmax(*tmax, fabs(t));
		/* two nights, or two left beside a spike: the pair's level */
		double alpha = (used == 2 ? p->tail_alpha_pair : p->tail_alpha) * noise_scale(p, w);
		if (!(fabs(t) > best) || !(stats_t_sf(fabs(t), (double)w->base_n - 1) < alpha))
			continue;
		if (beyond_regime(regime_of(j, k), m, (double)n, dir, 0, alpha) &&
		    base_mixture_sf(j, k, m, (double)used, dir) < alpha)
			best = fabs(t), bestf = k;
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
		if ((e > 0) != (dir == VB_SLOWER) || fabs(e) < p->min_effect)
			continue;
		double t = sxw / (now_sd(j, kw, x, L) * sqrt(sw2 + sw * sw / (double)w->base_n));
		*tmax = fmax(*tmax, fabs(t));
		double alpha = p->ramp_alpha * noise_scale(p, w);
		if (!(fabs(t) > best) || !(stats_t_sf(fabs(t), (double)w->base_n - 1) < alpha))
			continue;
		if (beyond_regime(regime_of(j, kw), sxw / sw + mu, (double)L, dir, 0, alpha) &&
		    base_mixture_sf(j, kw, sxw / sw + mu, (double)L, dir) < alpha)
			best = fabs(t), bestf = kw, kfirst = kw;
	}
	if (!(best > 0))
		return VB_NONE;
	*first = step_at(j, kfirst, i, &j->c->nights[bestf], dir);
	return dir;
}

/* Can the change-point test confirm anything at night i? Only if the
 * cp_min_after nights before it lean night i's way by half the minimum
 * effect (their median, against night i's baseline): cp_confirms needs
 * that much and more, and the test is the costly part of judging. */
static int
leaning(const struct judge *j, size_t i)
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

/* A change point names the first bad night instead of the streak's first
 * night when it lies before the streak and at least two nights between
 * them already leaned the streak's way by half the minimum effect (a slow
 * drift): one stray night does not move it. Where an earlier confirmed
 * episode ended between them, the nights after it must lean so too: a
 * regression declared over by a low night and confirmed again keeps its
 * start, while a chance run after a fix was named from the fixed
 * regression's first night, its nights taken for the lean. (Without the
 * change point across the ended episode at all, 2% regressions at 2%
 * noise confirmed again were named from their second start: as their
 * tenth night names them, 63% were named right, 53% so.) */
static size_t
name_first_bad(const struct judge *j, size_t first, size_t i, int dir, const size_t *cps, size_t ncp, const char **how)
{
	double base = j->c->nights[first].base_mean;
	for (size_t a = ncp; a-- > 0;) {
		if (cps[a] == first)
			*how = "change point";
		if (cps[a] > first)
			continue;
		if (cps[a] < first && eligible_between(j, cps[a], first, 2) >= 2) {
			double e = (median_between(j, cps[a], first) - base) / base;
			size_t after = last_confirmed(j, cps[a], first);
			if (after < first && eligible_between(j, after, first, 2) >= 2)
				e = fmin(e, (median_between(j, after, first) - base) / base);
			if ((dir == VB_SLOWER ? e : -e) >= j->p->min_effect / 2 &&
			    step_score(j, cps[a], i, &j->c->nights[first], dir) >= step_score(j, first, i, &j->c->nights[first], dir))
				first = cps[a], *how = "change point";
		}
		break;
	}
	return first;
}

/* The eligible night before night i in its segment, or NULL. */
static const struct vnight *
prev_night(const struct judge *j, size_t i)
{
	int from = seg_day(j, i);
	for (size_t k = i; k-- > 0;) {
		const struct vnight *w = &j->c->nights[k];
		if (w->day < from)
			return NULL;
		if (eligible(w))
			return w;
	}
	return NULL;
}

static const char tail_how[] = "first night of the shifted tail";

/* The first bad night of an ongoing regression confirmed by its last
 * nights, named again as its nights come in. At confirmation the new
 * level is known from one or two nights, and a night before the step that
 * lay high by chance, or the step's first night that lay low, took the
 * place (at 1% noise, about 3 in 100 rises of 5%). Here the first night
 * from the one before the first named at confirmation (conf) where a step
 * is likelier than at the next (the level from up to tail_max nights
 * after it) is the step's first night (likelier_first), at most one night
 * either way from conf: the rule of step_at, with the level known better. */
static size_t
renamed_first(const struct judge *j, size_t conf, size_t i)
{
	const struct vnight *c = j->c->nights;
	int from = seg_day(j, conf);
	size_t lo = conf, hi = conf;
	for (size_t k = conf; k-- > 0 && c[k].day >= from && c[k].state != ST_CONFIRMED;)
		if (eligible(&c[k])) {
			lo = k;
			break;
		}
	for (size_t k = conf + 1; k <= i && hi == conf; k++)
		if (eligible(&c[k]))
			hi = k;
	double mu = c[lo].base_mean, sd = c[lo].base_sd;
	if (isnan(mu) || !(sd > 0))
		return conf;
	return likelier_first(j, lo, hi, i, mu, sd, VB_SLOWER, (size_t)j->p->tail_max);
}

static const char moved_how[] = "one step or ramp from it fits the episode best";

/* An ongoing regression's first bad night moves on to a later night s
 * when one step or one ramp (the deviations from first's baseline against
 * 1, 2, 3, ...) from s fits the nights to night i better than either from
 * first, by more than 9 squared deviations: the likelihood ratio of one
 * more parameter at 3 deviations. A chance run of high nights before a
 * rise, taken for the start of a drift or found by the change-point test,
 * is no longer named once the rise's own nights outweigh it; a drift fits
 * a ramp from where it began best and keeps its first night. One pass
 * back from night i: a night put in front raises every later weight by 1. */
static size_t
moved_on(const struct judge *j, size_t first, size_t i)
{
	const struct vnight *w = &j->c->nights[first];
	double mu = w->base_mean, lim = 10 * w->base_sd, sd2 = w->base_sd * w->base_sd;
	if (isnan(mu) || !(sd2 > 0))
		return first;
	double sum = 0, sxw = 0, sw2 = 0, best = -1, fit = 0;
	size_t cnt = 0, at = first;
	for (size_t s = i + 1; s-- > first;) {
		const struct vnight *v = &j->c->nights[s];
		if (!eligible(v))
			continue;
		double d = clipped_dev(v, mu, lim);
		cnt++;
		sxw += sum + d, sum += d, sw2 += (double)cnt * (double)cnt;
		fit = fmax(sum > 0 ? sum * sum / (double)cnt : 0, sxw > 0 ? sxw * sxw / sw2 : 0);
		if (cnt >= 3 && s > first && fit > best)
			best = fit, at = s;
	}
	return best > fit + 9 * sd2 ? at : first;
}

/* Nights first .. to-1 are no longer part of the episode (its first bad
 * night moved on): they are judged by their own verdicts again. */
static void
unsettle(struct judge *j, size_t first, size_t to)
{
	for (size_t k = first; k < to; k++) {
		struct vnight *v = &j->c->nights[k];
		if (eligible(v))
			v->quarantined = v->vb == VB_SLOWER || v->vb == VB_FASTER, v->confirmed = 0;
	}
}

/* How strongly the last nights of an episode (first .. i) say the level
 * is back at mu rather than at the regression's: a CUSUM of each night's
 * log likelihood ratio, one normal of deviation sd about either level,
 * over the episode's last tail_max nights. One night's ratio is
 * (R^2 - 2 R d) / 2 sd^2 for a regression of R and a night d above mu: a
 * small regression needs more nights than a large one. */
static double
back_evidence(const struct judge *j, size_t first, size_t i, double mu, double level, double sd)
{
	size_t k = i + 1, n = 0;
	while (k > first + 1 && n < (size_t)j->p->tail_max)
		if (eligible(&j->c->nights[--k]))
			n++;
	double r = level - mu, s = 0;
	for (; k <= i; k++)
		if (eligible(&j->c->nights[k])) {
			double d = j->c->nights[k].mean - mu;
			s = fmax(0, s + (r * r - 2 * r * d) / (2 * sd * sd));
		}
	return s;
}

/* More than tail_max eligible nights from night first to night i: the
 * age of the shift. */
static int
established(const struct judge *j, size_t first, size_t i)
{
	size_t t = (size_t)j->p->tail_max;
	return eligible_between(j, first, i, t + 1) > t;
}

/* Night i ends the confirmed regression that began at night first: it
 * lies below the middle between the old level (first's baseline) and the
 * regression's (the median of its nights), and 2 deviations below the
 * latter (one low night of a small regression rarely does both); and
 * it lies within 1.5 deviations of the old level, or the night before it
 * also below the middle and 1 deviation below the regression's level.
 * Without the last, one night 2.4 deviations low ended a regression (about
 * 1 night in 100 of one): of 5% rises at 1% noise, one in 12 ended on an
 * ordinary night within ten nights and was confirmed again, a second
 * alarm; with a night before it only 1 deviation low, still one in 60. A
 * fixed one seldom needs its second night, and its first lies below the
 * middle. And the last nights are 12 times likelier (e^2.5) at the old
 * level than at the regression's (back_evidence): 2 deviations is all of
 * a 2% rise at 1% noise, and without it one in seven such rises ended
 * within ten nights and was confirmed again (one in ten with it). A 5%
 * fix at 1% noise is recognised within two nights about as often (99.0%
 * of 600 against 99.3%); at 2% noise one in 25 more needs a third. Only
 * while the episode's level lies min_effect and 1.5 deviations from the
 * old one: closer, two nights at the old level could not tell them apart,
 * and an episode whose median came back (a bimodal history's slow mode
 * taken for a regression) stayed CONFIRMED for good. */
static int
fell_back(const struct judge *j, size_t i, size_t first)
{
	const struct vnight *f = &j->c->nights[first], *v = &j->c->nights[i], *pv = prev_night(j, i);
	double level = median_between(j, first, i), mu = f->base_mean, sd = f->base_sd;
	if (isnan(level) || isnan(mu) || !(sd >= 0))
		return 0;
	int up = level > mu;
	/* An established episode whose level (the median of its nights) came
	 * back within half the minimum effect of the old one is no regression
	 * that matters: it ends on a night below that level. A chance run
	 * confirmed as a regression otherwise waited for a night 2 deviations
	 * below it: at 1% noise one lasted 96 nights. */
	if (fabs(level - mu) < j->p->min_effect / 2 * mu && (up ? v->mean < level : v->mean > level) &&
	    established(j, first, i))
		return 1;
	double mid = (mu + level) / 2, bar = up ? fmin(mid, level - 2 * sd) : fmax(mid, level + 2 * sd);
	if (!(up ? v->mean < bar : v->mean > bar))
		return 0;
	if (!(up ? v->mean <= mu + 1.5 * sd : v->mean >= mu - 1.5 * sd) &&
	    !(pv && pv > f && (up ? pv->mean < fmin(mid, level - sd) : pv->mean > fmax(mid, level + sd))))
		return 0;
	/* the likelihood test only where the two levels can be told apart */
	if (!(sd > 0) || fabs(level - mu) < fmax(j->p->min_effect * mu, 1.5 * sd))
		return 1;
	/* An established regression (more than tail_max nights from its
	 * first bad night: the age of the shift) ends only on odds of e^7,
	 * about the 1,000 to 1 of the false-alarm goal: a young one may be a
	 * false alarm, an established one ends only by a fix. At e^2.5
	 * throughout, regressions that lasted 120 nights were declared over
	 * 24 and 23 times per 1,000 of their nights (2% at 1% noise, 5% at
	 * 2%), and one in 12 of the 2% ones went unconfirmed for good (the
	 * gate went silent on it); at e^7, 4.6 and 4.2 times, one in 60. */
	return back_evidence(j, first, i, mu, level, sd) >= (established(j, first, i) ? 7 : 2.5);
}

/* A confirmed episode from night first that fell back on night i after
 * at most confirm_k nights: its nights are brief, and return into the
 * baseline (released). Kept out, a slow mode whose first nights were
 * confirmed was never learned and was confirmed again on its next run (at
 * 0.5% noise one bimodal history of 300 alarmed 8 times); a regression
 * that lasted longer than that stays out. */
static void
brief_episode(struct judge *j, size_t first, size_t i)
{
	if (eligible_between(j, first, i, (size_t)j->p->confirm_k + 1) <= (size_t)j->p->confirm_k)
		for (size_t k = first; k < i; k++)
			j->c->nights[k].brief = 1;
}

static void
judge_night(struct judge *j, size_t i, int last)
{
	struct vconfig *c = j->c;
	struct vnight *v = &c->nights[i];
	const struct policy *p = j->p;
	v->acked = is_acked(c->h, v->day);
	verdict_vs_ref(v);
	if (!v->valid) {
		v->state = v->failed ? ST_FAILED : ST_INVALID;
		return;
	}
	struct base b;
	collect_base(j, i, &b, p->window);
	verdict_vs_base(v, &b, p);
	/* A night within a mode seen in the baseline is no change. */
	int vdir = v->effect > 0 ? VB_SLOWER : VB_FASTER;
	if (v->vb == vdir && (int)b.n >= p->min_nights &&
	    !beyond_regime(regime_of(j, i), v->mean, 1, vdir, fmax(0, v->se * v->se - b.se2), p->alpha))
		v->vb = VB_SAME;
	v->quarantined = v->vb == VB_SLOWER || v->vb == VB_FASTER;
	v->state = v->vb == VB_NONE ? ST_NEW : v->vb == VB_SLOWER ? ST_SUSPECT : v->vb == VB_UNKNOWN ? ST_INCONCLUSIVE : ST_OK;
	if (v->acked) {
		v->state = ST_OK;
		return;
	}
	int dir = VB_NONE;
	size_t first = i, cps[16], at, ncp = 0;
	double ps[16];
	double tmax = 0;
	const struct vnight *pv = prev_night(j, i);
	int ongoing = pv && pv->state == ST_CONFIRMED, fixed = ongoing && fell_back(j, i, (size_t)pv->first_bad);
	if (!fixed && (int)v->base_n < p->min_nights && (v->vb == VB_SLOWER || v->vb == VB_FASTER) && m_of_k(j, i))
		dir = v->vb;
	const char *how = "first night of the confirmed streak";
	if (fixed) {
		/* the regression was fixed: nothing confirms on this night */
		brief_episode(j, (size_t)pv->first_bad, i);
	} else if (ongoing) {
		/* A confirmed regression stays CONFIRMED, with its first bad
		 * night, until a night falls back. */
		dir = VB_SLOWER, first = (size_t)pv->first_bad, how = pv->how;
		if (how == tail_how && pv->conf_first >= 0) {
			size_t f = renamed_first(j, (size_t)pv->conf_first, i);
			if (f > first)
				unsettle(j, first, f);
			first = f;
		}
		size_t f = moved_on(j, first, i);
		if (f > first) {
			unsettle(j, first, f);
			first = f, how = moved_how;
		}
	} else if (!dir && (dir = tail_confirms(j, i, ongoing, &first, &tmax)) != VB_NONE) {
		how = tail_how;
		ncp = changepoints(j, i, i + 1, cps, ps, 16);
		first = name_first_bad(j, first, i, dir, cps, ncp, &how);
	} else if (dir) {
		first = streak_first(j, i, dir);
		ncp = changepoints(j, i, i + 1, cps, ps, 16);
		first = name_first_bad(j, first, i, dir, cps, ncp, &how);
	} else if ((v->vb != VB_SAME || fabs(v->effect) >= p->min_effect) && tmax >= 3 && leaning(j, i)) {
		/* The change-point test runs where something may have moved: a
		 * night at its baseline's level, or recent nights that together
		 * are not 3 deviations off (the tail test's statistic), cannot
		 * confirm anything (at 2.5, runs of slow-mode nights did: a
		 * third of the false alarms on bimodal nights were change
		 * points), and skipping them keeps long histories fast.
		 * It looks at the nights before night i, which only has to go on
		 * the same way. */
		ncp = changepoints(j, i, i, cps, ps, 16);
		if ((dir = cp_confirms(j, i, cps, ncp, &at)) != VB_NONE)
			first = at, how = "change point";
	}
	if (last && !ncp)
		ncp = changepoints(j, i, i + 1, cps, ps, 16);
	if (last) {
		for (size_t a = 0; a < ncp; a++)
			c->nights[cps[a]].cp = 1, c->nights[cps[a]].cp_p = ps[a];
	}
	if (!dir)
		return;
	settle(j, first, i, dir);
	v->first_bad = (long)first, v->how = how;
	v->conf_first = ongoing ? pv->conf_first : (long)first;
	if (dir == VB_SLOWER) {
		v->state = ST_CONFIRMED;
		if (last) {
			c->first_bad = (long)first, c->first_bad_how = how;
			c->last_good = last_good_before(j, first);
		}
	}
}

void
verdict_judge(const struct history *h, int day, const struct policy *p, struct vconfig *c)
{
	memset(c, 0, sizeof *c);
	c->h = h;
	c->nights = group_nights(h, &c->n);
	c->judged = c->first_bad = c->last_good = -1;
	for (size_t i = 0; i < h->nanns; i++)
		h->anns[i].action == ANN_ACK ? c->acks++ : c->accepts++;
	size_t upto = c->n;
	if (day >= 0) {
		upto = 0;
		while (upto < c->n && c->nights[upto].day <= day)
			upto++;
		if (!upto || c->nights[upto - 1].day != day)
			upto = 0;
	}
	struct judge j = {c, p, INT_MIN, xmalloc((c->n + 1) * sizeof(double)), xmalloc((c->n + 1) * sizeof(size_t))};
	for (size_t i = 0; i < upto; i++)
		judge_night(&j, i, i + 1 == upto);
	if (upto) {
		c->judged = (long)upto - 1;
		c->state = c->nights[upto - 1].state;
		c->effect = c->nights[upto - 1].effect;
	}
	free(j.buf), free(j.idx);
}

void
verdict_free(struct vconfig *c)
{
	free(c->nights);
	memset(c, 0, sizeof *c);
}
