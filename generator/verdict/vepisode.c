#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/stats.h"
#include "base/util.h"
#include "verdict/vbase.h"
#include "verdict/vchain.h"

#include "verdict/vepisode.h"

/* The last good night: the latest eligible night before night first that
 * no shift holds out of the baselines, or -1. */
long
last_good_before(const struct vengine *j, size_t first)
{
	for (size_t k = first; k-- > 0;) {
		const struct vnight *v = &j->c->nights[k];
		if (eligible(v) && !v->quarantined)
			return (long)k;
	}
	return -1;
}

/* A confirmed shift from night first to night i: the bad nights stay out
 * of later baselines (but for a night answered as a mode); an
 * improvement is accepted as the new level. */
void
settle(struct vengine *j, size_t first, size_t i, int dir)
{
	for (size_t k = first; k <= i; k++) {
		struct vnight *v = &j->c->nights[k];
		if (eligible(v) && !v->mode)
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
likelier_first(const struct vengine *j, size_t s, size_t to, size_t i, double mu, double sd, int dir, size_t cap)
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
size_t
step_at(const struct vengine *j, size_t from, size_t i, const struct vnight *w, int dir)
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
step_score(const struct vengine *j, size_t s, size_t i, const struct vnight *w, int dir)
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
size_t
name_first_bad(const struct vengine *j, size_t first, size_t i, int dir, const size_t *cps, size_t ncp, const char **how)
{
	double base = j->c->nights[first].base_mean;
	for (size_t a = ncp; a-- > 0;) {
		if (cps[a] == first)
			*how = "change point";
		if (cps[a] > first)
			continue;
		if (cps[a] < first && eligible_between(j, cps[a], first, 2) >= 2) {
			double sign = dir == VB_SLOWER ? 1 : -1, lean = sign * (median_between(j, cps[a], first) - base) / base;
			size_t after = last_confirmed(j, cps[a], first);
			if (after < first && eligible_between(j, after, first, 2) >= 2)
				lean = fmin(lean, sign * (median_between(j, after, first) - base) / base);
			if (lean >= j->p->min_effect / 2 &&
			    step_score(j, cps[a], i, &j->c->nights[first], dir) >= step_score(j, first, i, &j->c->nights[first], dir))
				first = cps[a], *how = "change point";
		}
		break;
	}
	return first;
}

/* The nights that may hold the first bad night of the shift from night
 * first to night i: the posterior of one step at each night s, each night
 * equally likely a priori, the step's new level unknown (a flat prior,
 * integrated out: the -ln(n)/2 term) and so the deviation, known only
 * from the baseline's nights and these (a 1/sd prior, integrated out), on
 * the deviations d from first's baseline (each within 10 of its
 * deviations):
 *   log odds  -(N/2) ln(SSb + sum d^2 - S^2/n) - ln(n)/2
 * for the n nights from s whose d sum to S on dir's side (none on the
 * other side), SSb = (base_n - 1) base_sd^2 and N the degrees of freedom
 * of all (the nights before first, most of them in its baseline too, count
 * twice: a little surer than exact). The nights looked at run from
 * tail_max eligible nights before night first (in its segment, after an
 * earlier episode) to as many after it; the sums run on to 3 tail_max
 * nights after first or to night i, so a long episode costs no more a
 * night. The range is the smallest set of them that holds VRANGE_LEVEL of
 * the posterior, with night first, from its earliest night to its latest;
 * with first's own share of it.
 * Named from a rise's first night or two, a night before it that lay high
 * by chance, or its own that lay low, takes the name: at 1% noise 3 or 4
 * in 100 rises of 5%, near what a rule that knew the rise's size would
 * do. The range holds the rise's night in 99 of 100 and is 1.2 nights
 * wide. With the deviation taken as known (the normal's odds), as many
 * were held in a range a little narrower: the unknown deviation is the
 * honest one. Without a deviation, night first alone, its share unknown
 * (NAN). */
void
first_bad_range(const struct vengine *j, size_t first, size_t i, int dir, struct vnight *out)
{
	const struct vnight *w = &j->c->nights[first];
	double mu = w->base_mean, sd = w->base_sd, lim = 10 * sd, sign = dir == VB_SLOWER ? 1 : -1;
	out->range_lo = out->range_hi = (long)first, out->range_share = NAN;
	if (isnan(mu) || !(sd > 0) || w->base_n < 2)
		return;
	int from = seg_day(j, first);
	size_t lo = first;
	for (size_t k = first, back = 0; k-- > 0 && back < (size_t)j->p->tail_max;) {
		const struct vnight *v = &j->c->nights[k];
		if (v->day < from || v->confirmed)
			break;
		if (eligible(v))
			lo = k, back++;
	}
	/* and as many after it; the sums run on to 3 tail_max nights after it */
	size_t hi = first, end = first, t = (size_t)j->p->tail_max;
	for (size_t k = first + 1, ahead = 0; k <= i && ahead < 3 * t; k++) {
		if (!eligible(&j->c->nights[k]))
			continue;
		if (++ahead <= t)
			hi = k;
		end = k;
	}
	size_t m = hi - lo + 1, cnt = 0;
	double *lp = xmalloc(m * sizeof *lp), ss = sd * sd * (double)(w->base_n - 1), sum = 0, top = -HUGE_VAL, tot = 0;
	for (size_t k = lo; k <= end; k++)
		if (eligible(&j->c->nights[k])) {
			double d = clipped_dev(&j->c->nights[k], mu, lim);
			ss += d * d, cnt++;
		}
	double df = (double)(w->base_n - 1 + cnt - 1);
	cnt = 0;
	for (size_t k = end + 1; k-- > lo;) {
		const struct vnight *v = &j->c->nights[k];
		if (k <= hi)
			lp[k - lo] = -HUGE_VAL;
		if (!eligible(v))
			continue;
		sum += sign * clipped_dev(v, mu, lim), cnt++;
		double n = (double)cnt, r = ss - sum * sum / n;
		if (k <= hi && sum > 0 && r > 0)
			lp[k - lo] = -df / 2 * log(r) - log(n) / 2, top = fmax(top, lp[k - lo]);
	}
	for (size_t a = 0; a < m; a++)
		tot += lp[a] = exp(lp[a] - top);
	if (!(tot > 0)) {
		free(lp);
		return;
	}
	out->range_share = lp[first - lo] / tot;
	/* the likeliest nights, most likely first, until they hold VRANGE_LEVEL */
	for (double held = 0; held < VRANGE_LEVEL * tot;) {
		size_t b = 0;
		for (size_t a = 1; a < m; a++)
			if (lp[a] > lp[b])
				b = a;
		if (!(lp[b] > 0))
			break;
		held += lp[b], lp[b] = -1;
		out->range_lo = (long)(lo + b) < out->range_lo ? (long)(lo + b) : out->range_lo;
		out->range_hi = (long)(lo + b) > out->range_hi ? (long)(lo + b) : out->range_hi;
	}
	free(lp);
}

const char tail_how[] = "first night of the shifted tail";

/* The first bad night of an ongoing regression confirmed by its last
 * nights, named again as its nights come in. At confirmation the new
 * level is known from one or two nights, and a night before the step that
 * lay high by chance, or the step's first night that lay low, took the
 * place (at 1% noise, about 3 in 100 rises of 5%). Here the first night
 * from the one before the first named at confirmation (conf) where a step
 * is likelier than at the next (the level from up to tail_max nights
 * after it) is the step's first night (likelier_first), at most one night
 * either way from conf: the rule of step_at, with the level known better. */
size_t
renamed_first(const struct vengine *j, size_t conf, size_t i)
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

const char moved_how[] = "one step or ramp from it fits the episode best";

/* An ongoing regression's first bad night moves on to a later night s
 * when one step or one ramp (the deviations from first's baseline against
 * 1, 2, 3, ...) from s fits the nights to night i better than either from
 * first, by more than 9 squared deviations: the likelihood ratio of one
 * more parameter at 3 deviations. A chance run of high nights before a
 * rise, taken for the start of a drift or found by the change-point test,
 * is no longer named once the rise's own nights outweigh it; a drift fits
 * a ramp from where it began best and keeps its first night. One pass
 * back from night i: a night put in front raises every later weight by 1. */
size_t
moved_on(const struct vengine *j, size_t first, size_t i)
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
void
unsettle(struct vengine *j, size_t first, size_t to)
{
	for (size_t k = first; k < to; k++) {
		struct vnight *v = &j->c->nights[k];
		if (eligible(v))
			v->quarantined = !v->mode && (v->vb == VB_SLOWER || v->vb == VB_FASTER), v->confirmed = 0;
	}
}

/* How strongly the last nights of an episode (first .. i) say the level
 * is back at mu rather than at the regression's: a CUSUM of each night's
 * log likelihood ratio, one normal of deviation sd about either level,
 * over the episode's last tail_max nights. One night's ratio is
 * (R^2 - 2 R d) / 2 sd^2 for a regression of R and a night d above mu: a
 * small regression needs more nights than a large one. */
static double
back_evidence(const struct vengine *j, size_t first, size_t i, double mu, double level, double sd)
{
	size_t k = i + 1, n = 0;
	while (k > first + 1 && n < (size_t)j->p->tail_max)
		if (eligible(&j->c->nights[--k]))
			n++;
	double r = level - mu, s = 0;
	for (; k <= i; k++)
		if (eligible(&j->c->nights[k])) {
			double d = j->c->nights[k].mean - mu;
			s = fmax(0, s + stats_shift_llr(r, d, sd));
		}
	return s;
}

/* The regression's level over nights first .. to-1: their median, or,
 * where the last tail_max of them stand further from mu than that by 4
 * standard errors of a median (a second step within the episode: a rise
 * that came during a false alarm), the median of those. With the median
 * of all, a 5% rise during a chance run of +2% stood at +2%, the old
 * level within 2 deviations of it, and its fix was never recognised (one
 * of 600 at 1% noise). At 3 standard errors lasting rises at 2% noise
 * were declared over more often (2%: 16.8 to 17.4 times per 1,000 of their
 * nights); at 4 no row but that one moved on three draws, and on a
 * fourth lasting 5% rises at 2% noise ended 3.29 times for 3.24. */
static double
episode_level(const struct vengine *j, size_t first, size_t to, double mu, double sd)
{
	double level = median_between(j, first, to);
	size_t k = to, n = 0;
	while (k > first && n < (size_t)j->p->tail_max)
		if (eligible(&j->c->nights[--k]))
			n++;
	if (k == first || n < 4 || !(sd > 0) || isnan(level))
		return level;
	double recent = median_between(j, k, to), up = level > mu ? 1 : -1;
	return up * (recent - level) > 4 * 1.25 * sd / sqrt((double)n) ? recent : level;
}

/* The evidence of the episode's last nights, those from night i back
 * that lie past the middle toward the old level (two at least), that the
 * level is back at mu: the sum of their log likelihood ratios, one normal
 * of deviation sd about mu or about the regression's level, the median of
 * the episode's nights before them (counted in, they pull it toward
 * themselves). */
static double
back_run(const struct vengine *j, size_t first, size_t i, double mu, double mid, double sd, int up)
{
	size_t k = i + 1, n = 0;
	for (; k > first + 1; k--) {
		const struct vnight *w = &j->c->nights[k - 1];
		if (!eligible(w))
			continue;
		if (!(up ? w->mean < mid : w->mean > mid))
			break;
		n++;
	}
	if (n < 2)
		return 0;
	double level = episode_level(j, first, k, mu, sd), s = 0;
	if (isnan(level) || !(up ? level > mid : level < mid))
		return 0;
	double r = level - mu;
	for (; k <= i; k++)
		if (eligible(&j->c->nights[k]))
			s += stats_shift_llr(r, j->c->nights[k].mean - mu, sd);
	return s;
}

/* More than tail_max eligible nights from night first to night i: the
 * age of the shift. */
static int
established(const struct vengine *j, size_t first, size_t i)
{
	size_t t = (size_t)j->p->tail_max;
	return eligible_between(j, first, i, t + 1) > t;
}

/* An established episode whose nights, together, stand no higher than
 * the nights before it: their mean less the mean of every eligible night
 * of the segment in the regime window before night first is under half
 * the minimum effect and under one standard error of that difference.
 * The nights before count whether or not a baseline took them in (a
 * short confirmed run among them too), so a slow mode that early false
 * alarms kept out of every baseline, and a frozen baseline with it, is
 * seen again. Past a longer confirmed episode it does not look: the
 * nights since one may be that regression going on. At 1% noise one
 * false alarm on bimodal nights, in a history whose first weeks held two
 * such runs, stayed CONFIRMED 146 nights at +1.3% against a baseline of
 * the fast mode alone (+0.2% against the nights before it). */
static int
no_shift(const struct vengine *j, size_t first, size_t i, int up)
{
	if (!established(j, first, i))
		return 0;
	double se = 0, see = 0, sp = 0, spp = 0, rs = 0, rss = 0;
	size_t ne = 0, np = 0, rn = 0; /* rs, rss, rn: a run of confirmed nights */
	for (size_t k = first; k <= i; k++) {
		const struct vnight *v = &j->c->nights[k];
		if (eligible(v))
			se += v->mean, see += v->mean * v->mean, ne++;
	}
	struct segwalk walk = segwalk(j, first, first);
	for (const struct vnight *v; (int)(np + rn) < j->p->regime_window && (v = segwalk_prev(&walk));) {
		if (v->confirmed && !v->brief) {
			rs += v->mean, rss += v->mean * v->mean, rn++;
			if ((int)rn > j->p->tail_max)
				return 0;
			continue;
		}
		sp += rs + v->mean, spp += rss + v->mean * v->mean, np += rn + 1;
		rs = rss = 0, rn = 0;
	}
	sp += rs, spp += rss, np += rn;
	if ((int)np < j->p->min_nights) /* at least 2: policy.c bounds it */
		return 0;
	double me = se / (double)ne, mp = sp / (double)np;
	double ve = fmax(0, (see - (double)ne * me * me) / (double)(ne - 1));
	double vp = fmax(0, (spp - (double)np * mp * mp) / (double)(np - 1));
	double d = up ? me - mp : mp - me;
	return d < j->p->min_effect / 2 * mp && d < sqrt(ve / (double)ne + vp / (double)np);
}

/* An established regression under 1.5 deviations from the old level (a
 * 2% rise at 2% noise lies one off), at min_effect or more, whose nights
 * after the one that confirmed it together still stand off the old level
 * by a t-test at hold_alpha (each within 3 deviations, the tail test's
 * way), and that does not come and go between the old level and a higher
 * one (episode_alternates: a slow mode that appeared), ends as a larger
 * established one does, on odds of e^7. Ended by one night under the
 * middle instead, such rises that lasted 120 nights at 2% noise were
 * declared over 14.8 times per 1,000 of their nights (now 8.7), and of
 * those confirmed two in three were no longer CONFIRMED on their last
 * night (now two in five). With the nights that confirmed it counted, a
 * chance run on stationary nights stood off by them and was held (the
 * longest false alarm at 2% noise 7 nights to 19). */
static int
small_stands(struct vengine *j, size_t first, size_t i, double mu, double level, double sd, int up)
{
	const struct vnight *f = &j->c->nights[first];
	if (!(j->p->hold_alpha > 0) || !established(j, first, i) || fabs(level - mu) < j->p->min_effect * mu || !(f->base_n > 1))
		return 0;
	/* the nights after the one that confirmed it: a chance run stands
	 * off by the nights that confirmed it, a regression by those after */
	size_t c = first;
	while (c < i && j->c->nights[c].state != ST_CONFIRMED)
		c++;
	double lim = 3 * sd, sum = 0;
	size_t n = 0;
	for (size_t k = c + 1; k <= i; k++) {
		const struct vnight *v = &j->c->nights[k];
		if (eligible(v))
			sum += fmin(fmax(v->mean, mu - lim), mu + lim), n++;
	}
	if (n < 2)
		return 0;
	double t = stats_shift_t(sum / (double)n, (double)n, mu, (double)f->base_n, sd);
	return stats_t_sf(up ? t : -t, (double)f->base_n - 1) < j->p->hold_alpha && !episode_alternates(j, first, i);
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
 * taken for a regression) stayed CONFIRMED for good.
 * Where night i alone does not say so, nights that together do end it: the
 * episode's last nights, each past the middle, e^5 likelier at the old
 * level than at the regression's (back_run; e^7 for an established one).
 * A chance run of high nights confirmed as a small regression has its
 * bar 2 deviations below its level, at or under the old one: night after
 * night at the old level did not end it (at 1% noise one false alarm on
 * bimodal nights stayed CONFIRMED 36 nights, one on stationary nights at
 * 2% noise 36; now 22 and 25), and a 5% rise that came during one was
 * named from the false alarm's first night. At e^4 as many of these ended,
 * and 2% rises that last were declared over a little more often (4.90 for
 * 4.79 per 1,000 of their nights, against 4.57 without).
 * 2: the episode was no shift after all (no_shift), on any night. */
int
fell_back(struct vengine *j, size_t i, size_t first)
{
	const struct vnight *f = &j->c->nights[first], *v = &j->c->nights[i], *pv = prev_night(j, i);
	double mu = f->base_mean, sd = f->base_sd, level = episode_level(j, first, i, mu, sd);
	if (isnan(level) || isnan(mu) || !(sd >= 0))
		return 0;
	int up = level > mu;
	if (no_shift(j, first, i, up))
		return 2;
	/* An established episode whose level (the median of its nights) came
	 * back within half the minimum effect of the old one is no regression
	 * that matters: it ends on a night below that level. A chance run
	 * confirmed as a regression otherwise waited for a night 2 deviations
	 * below it: at 1% noise one lasted 96 nights. */
	if (fabs(level - mu) < j->p->min_effect / 2 * mu && (up ? v->mean < level : v->mean > level) &&
	    established(j, first, i))
		return 1;
	double mid = (mu + level) / 2, bar = up ? fmin(mid, level - 2 * sd) : fmax(mid, level + 2 * sd);
	if (!(up ? v->mean < bar : v->mean > bar) ||
	    (!(up ? v->mean <= mu + 1.5 * sd : v->mean >= mu - 1.5 * sd) &&
	     !(pv && pv > f && (up ? pv->mean < fmin(mid, level - sd) : pv->mean > fmax(mid, level + sd)))))
		return sd > 0 && back_run(j, first, i, mu, mid, sd, up) >= (established(j, first, i) ? 7 : 5);
	/* the likelihood test only where the two levels can be told apart;
	 * a small regression that stands ends as an established one does */
	if (!(sd > 0) || fabs(level - mu) < fmax(j->p->min_effect * mu, 1.5 * sd))
		return !(sd > 0 && small_stands(j, first, i, mu, level, sd, up)) ||
		       back_evidence(j, first, i, mu, level, sd) >= 7;
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
 * that lasted longer than that stays out, unless it was no shift after
 * all (whole: fell_back's 2), whose nights are the history's as well. */
void
brief_episode(struct vengine *j, size_t first, size_t i, int whole)
{
	if (whole || eligible_between(j, first, i, (size_t)j->p->confirm_k + 1) <= (size_t)j->p->confirm_k)
		for (size_t k = first; k < i; k++)
			j->c->nights[k].brief = 1;
}
