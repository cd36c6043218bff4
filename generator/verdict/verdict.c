#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/util.h"
#include "verdict/vbase.h"
#include "verdict/vchain.h"
#include "verdict/vconfirm.h"
#include "verdict/vepisode.h"

#include "verdict/verdict.h"

const char *const vb_names[] = {"NONE", "SAME", "SLOWER", "FASTER", "UNKNOWN"};
const char *const state_names[] = {"OK", "SUSPECT", "CONFIRMED", "INVALID", "FAILED", "INCONCLUSIVE", "NEW"};
const char *const rule_names[] = {"none", "streak", "pair", "tail", "ramp", "change-point", "resumed"};

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
	v->effect = v->base_mean = v->base_sd = v->band_lo = v->band_hi = v->ref_effect = v->cp_p = NAN;
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

/* ---- one night against its baseline and its reference ------------------- */

/* Night v against its baseline b: the effect, a t-test at alpha with the
 * baseline's nights (with fewer than min_nights, only a large effect far
 * outside them is called), the band and the clip bounds. */
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
		v->tstat = fabs(v->mean - mu) / tot, v->tdf = (double)b->n - 1;
		/* p < alpha is |t| beyond crit: p itself only where the two are
		 * close (crit is found to 1e-12 of itself) */
		int sig = v->tstat > crit * 1.000001 ? 1 : v->tstat < crit * 0.999999 ? 0 : verdict_p(v) < p->alpha;
		/* UNKNOWN: an effect that matters, not significant, and a baseline
		 * too noisy to resolve even twice the minimum effect. */
		double resolution = crit * tot / mu;
		v->vb = sig && fabs(e) >= p->min_effect                             ? dir
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

/* ---- the night loop ----------------------------------------------------- */

static int
annotated(const struct history *h, int day, int action)
{
	for (size_t i = 0; i < h->nanns; i++)
		if (h->anns[i].action == action && h->anns[i].day == day)
			return 1;
	return 0;
}

/* The nights in a row, night i and the eligible ones of its segment
 * before it, on the side of night i's modes that dir names (nearer that
 * mode than the other), counted to 64 (a run no mode of a baseline
 * keeps); night i is. The nights before the segment lie at another
 * level (after an improvement, all on the slow side of the new modes),
 * and are no run of its modes. That walk crossed into them, as no other
 * walk does; no verdict of the draws depended on it, since the modes
 * need nights of both within the segment. */
static double
mode_run(struct vengine *j, size_t i, int dir)
{
	const struct vnight *w = regime_of(j, i);
	if (isnan(w->reg_hi))
		return 1;
	double mid = (w->reg_lo + w->reg_hi) / 2;
	size_t run = 1;
	struct segwalk walk = segwalk(j, i, i);
	for (const struct vnight *v; run < 64 && (v = segwalk_prev(&walk)) && (v->mean > mid) == (dir == VB_SLOWER);)
		run++;
	return (double)run;
}

/* Does the improvement from night f still hold on night i: the median of
 * its nights lies min_effect or more under night f's baseline, their mean
 * under it by a t-test at tail_alpha (the deviation the tail test divides
 * by: a fast mode's run lies within a baseline that holds both modes),
 * and its last two nights are not both back above the middle between the
 * two (a fast mode's run ends with the slow mode's next; one noisy night
 * does not end a real one)? */
static int
gain_holds(struct vengine *j, size_t f, size_t i)
{
	const struct vnight *w = &j->c->nights[f];
	double mu = w->base_mean, sd = test_sd(j, f), sum = 0, last = NAN, before = NAN;
	size_t n = 0;
	for (size_t k = f; k <= i; k++) {
		const struct vnight *v = &j->c->nights[k];
		if (eligible(v))
			sum += v->mean, n++, before = last, last = v->mean;
	}
	double med = median_between(j, f, i + 1);
	if (!(med <= mu * (1 - j->p->min_effect)) || !(sd > 0) || w->base_n < 2)
		return 0;
	double t = -stats_shift_t(sum / (double)n, (double)n, mu, (double)w->base_n, sd);
	if (!(stats_t_sf(t, (double)w->base_n - 1) < j->p->tail_alpha))
		return 0;
	double mid = (mu + med) / 2;
	return n < 2 || !(last > mid && before > mid);
}

/* An improvement starts a new segment, judged against its nights alone,
 * so it is taken only once it holds: a rule confirmed it, it held
 * (gain_holds) until its nights from the first number gain_nights, and
 * the two-mode chain of the nights before does not explain them (a run
 * of a fast mode). Until then it is pending (gain_first); it is dropped
 * when it stops holding, at a new segment, or when a regression is
 * confirmed. Taken at once, on the shapes' draw 297 false improvements
 * were, and the next run of the slow mode, against fast nights alone,
 * was confirmed after 205 of them (docs/history.md, "An improvement that
 * holds"). The direction night i confirms; *first its first night. */
static int
gain_taken(struct vengine *j, size_t i, int dir, size_t *first)
{
	struct vnight *v = &j->c->nights[i];
	if (dir == VB_SLOWER) {
		j->gain_first = -1;
		return dir;
	}
	if (dir == VB_FASTER) {
		/* the first confirmation names it: a later one, on a baseline
		 * that took some of its nights back, names a night before it */
		if (j->gain_first < 0)
			j->gain_first = (long)*first, j->gain_rule = v->rule;
		dir = VB_NONE, v->rule = VR_NONE, v->rule_nights = 0;
	}
	if (j->gain_first < 0)
		return dir;
	size_t f = (size_t)j->gain_first, need = (size_t)j->p->gain_nights;
	if (j->c->nights[f].day < seg_day(j, i) || (need > 1 && !gain_holds(j, f, i))) {
		j->gain_first = -1;
		return dir;
	}
	if (eligible_between(j, f, i + 1, need) < need)
		return dir;
	if (chain_explains(j, f, i, 0)) {
		if (need <= 1) /* at once: asked once */
			j->gain_first = -1;
		return dir;
	}
	*first = f, v->rule = j->gain_rule, j->gain_first = -1;
	return VB_FASTER;
}

/* Judge night i as if it were the latest (last: it is the night judged,
 * whose change points are marked): its own verdict, then whether a rule
 * confirms a shift or an ongoing one goes on or ended, and its first bad
 * night. */
static void
verdict_night(struct vengine *j, size_t i, int last)
{
	struct vconfig *c = j->c;
	struct vnight *v = &c->nights[i];
	const struct policy *p = j->p;
	v->acked = annotated(c->h, v->day, ANN_ACK);
	v->mode = !v->acked && annotated(c->h, v->day, ANN_MODE);
	v->prev_mode = j->last_mode;
	if (v->mode)
		j->last_mode = (long)i;
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
	    !beyond_regime(regime_of(j, i), v->mean, 1, mode_run(j, i, vdir), vdir, fmax(0, v->se * v->se - b.se2), p->alpha))
		v->vb = VB_SAME;
	/* a night answered as a mode is a normal night: never held out */
	v->quarantined = !v->mode && (v->vb == VB_SLOWER || v->vb == VB_FASTER);
	v->state = v->vb == VB_NONE ? ST_NEW : v->vb == VB_SLOWER ? ST_SUSPECT : v->vb == VB_UNKNOWN ? ST_INCONCLUSIVE : ST_OK;
	if (v->acked || v->mode) {
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
		/* the regression was fixed (or was none): nothing confirms
		 * on this night */
		brief_episode(j, (size_t)pv->first_bad, i, fixed == 2);
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
	} else if (!dir && (dir = tail_confirms(j, i, ongoing, &first, &tmax, &v->rule, &v->rule_nights)) != VB_NONE) {
		how = tail_how;
		ncp = changepoints(j, i, i + 1, cps, ps, 16);
		first = name_first_bad(j, first, i, dir, cps, ncp, &how);
	} else if (dir) {
		v->rule = VR_STREAK;
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
			first = at, how = "change point", v->rule = VR_CP;
	}
	if (!dir && !ongoing && (dir = resumed_confirms(j, i, &first)) != VB_NONE)
		how = resumed_how, v->rule = VR_RESUMED;
	if (last && !ncp)
		ncp = changepoints(j, i, i + 1, cps, ps, 16);
	if (last) {
		for (size_t a = 0; a < ncp; a++)
			c->nights[cps[a]].cp = 1, c->nights[cps[a]].cp_p = ps[a];
	}
	/* a run of a slow mode the history has shown, as such runs come; or
	 * an episode that came and went between the old level and the mode's */
	if (dir == VB_SLOWER && !ongoing && v->rule != VR_RESUMED && (chain_explains(j, first, i, 0) || episode_alternates(j, first, i)))
		dir = VB_NONE, v->rule = VR_NONE, v->rule_nights = 0;
	dir = gain_taken(j, i, dir, &first);
	if (!dir)
		return;
	settle(j, first, i, dir);
	v->first_bad = (long)first, v->how = how;
	if (dir == VB_SLOWER)
		first_bad_range(j, first, i, dir, v);
	v->conf_first = ongoing ? pv->conf_first : (long)first;
	if (dir == VB_SLOWER) {
		v->state = ST_CONFIRMED;
		j->watch = (long)i;
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
		c->count[h->anns[i].action]++;
	size_t upto = c->n;
	if (day >= 0) {
		upto = 0;
		while (upto < c->n && c->nights[upto].day <= day)
			upto++;
		if (!upto || c->nights[upto - 1].day != day)
			upto = 0;
	}
	struct vengine j = {c, p, INT_MIN, -1, -1, -1, VR_NONE, xmalloc((c->n + 1) * sizeof(double)), xmalloc((c->n + 1) * sizeof(size_t))};
	for (size_t i = 0; i < upto; i++)
		verdict_night(&j, i, i + 1 == upto);
	if (upto) {
		c->judged = (long)upto - 1;
		c->state = c->nights[upto - 1].state;
		c->effect = c->nights[upto - 1].effect;
	}
	free(j.buf), free(j.idx);
}

double
verdict_p(const struct vnight *v)
{
	return v->tdf > 0 ? stats_t_sf(v->tstat, v->tdf) : NAN;
}

void
verdict_free(struct vconfig *c)
{
	free(c->nights);
	memset(c, 0, sizeof *c);
}
