#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/util.h"
#include "verdict/mixture.h"

#include "verdict/vbase.h"

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
	if (fit) {
		mixture_fit(&v->mix, x, n, ml, mh, sp, p->noise_floor * ml);
		mixture_persist(&v->mix, b->m, n);
		mixture_recent(&v->mix, b->m, (size_t)p->window);
	}
	if (mh - ml < fmax(p->min_effect * ml, split_sep(n) * sp))
		return;
	/* Two modes when one group holds at most 45% of the nights (one
	 * normal splits in halves): a level within either is no change. */
	if (20 * k > 9 * n && 20 * h > 9 * n)
		return;
	v->reg_lo = ml, v->reg_hi = mh;
	v->reg_sd = sp, v->reg_nlo = k, v->reg_nhi = h;
	/* each mode's nights in the baseline, without its latest run: a run
	 * that goes on is what is weighed, not evidence */
	double mid = (x[k - 1] + x[k]) / 2;
	size_t a = 0;
	v->reg_rlo = v->reg_rhi = 0;
	while (a < n && (b->m[a] > mid) == (b->m[0] > mid))
		a++;
	for (; a < n; a++)
		*(b->m[a] > mid ? &v->reg_rhi : &v->reg_rlo) += 1;
}

/* Is a level (the mean of nl nights, NAN-free) beyond the mode of night
 * w's baseline that lies its way (dir), by a t-test at level alpha, or
 * the run of nights it ends (run: nights in a row on that mode's side)
 * longer than twice the mode's nights before that run, and two more?
 * Always when that baseline has no modes: then the plain tests decide.
 * A mode of two far nights, each alone, took a lasting rise at its level
 * for itself night after night, and the rise returned into its own
 * baseline. */
int
beyond_regime(const struct vnight *w, double level, double nl, double run, int dir, double extra2, double alpha)
{
	double ref = dir == VB_SLOWER ? w->reg_hi : w->reg_lo;
	if (isnan(ref))
		return 1;
	double nr = (double)(dir == VB_SLOWER ? w->reg_nhi : w->reg_nlo);
	double t = (level - ref) / sqrt(w->reg_sd * w->reg_sd * (1 / nl + 1 / nr) + extra2);
	if (dir == VB_FASTER)
		t = -t;
	if (run > (double)(2 * (dir == VB_SLOWER ? w->reg_rhi : w->reg_rlo) + 2))
		return 1;
	return stats_t_sf(t, (double)(w->reg_nlo + w->reg_nhi) - 2) < alpha;
}

static int
accept_day(const struct history *h, int day)
{
	int best = INT_MIN;
	for (size_t i = 0; i < h->nanns; i++)
		if (h->anns[i].action == ANN_ACCEPT && h->anns[i].day <= day && h->anns[i].day > best)
			best = h->anns[i].day;
	return best;
}

int
seg_day(const struct vengine *j, size_t i)
{
	int a = accept_day(j->c->h, j->c->nights[i].day);
	return a > j->auto_day ? a : j->auto_day;
}

struct segwalk
segwalk(const struct vengine *j, size_t seg, size_t to)
{
	return (struct segwalk){j->c->nights, to, seg_day(j, seg)};
}

/* A quarantined night that no rule confirmed, or one of a confirmed
 * episode that fell back within confirm_k nights (brief), returns into
 * the baseline once confirm_k - 1 later nights were quarantined too
 * (later counts those), unless it was off by large_effect or more: a
 * recurring slow mode (node placement, a slower switch) is part of the
 * noise, and a baseline purged of it would flag its next night; a spike
 * stays out. The two latest quarantined nights stay out however old.
 * Released after confirm_k nights of any kind instead, a lasting rise
 * that no rule confirms in that time returns into its own baseline night
 * by night and may never be confirmed (seenrise in tests/t-verdict.sh
 * was not, in its 21 nights), and the tests at 2% noise, set on this
 * trimmed deviation, lose a third of their 5% rises within 2 nights
 * (docs/history.md, "A suspect night's return"). */
static int
released(const struct vengine *j, const struct vnight *v, int later)
{
	return (!v->confirmed || v->brief) && later >= j->p->confirm_k - 1 && fabs(v->effect) < j->p->large_effect;
}

/* Did the confirmed episode whose last night is night k end, by the c
 * baseline nights after it (after[0..c), the latest first, at most
 * AFTER_MAX): the median of those after the first two (of 2 to 4 nights,
 * after the first one) lies nearer the level before it (its first night's
 * baseline) than the episode's (the median of its nights)? A run of
 * slow-mode nights is followed by fast ones; a regression declared over
 * that goes on, by more of its own, and the one or two nights that ended
 * it lie low by chance: counted, 2 in 39 lasting 2% rises at 1% noise
 * were no longer CONFIRMED on their last night. Asked only from 5 nights
 * after, the next run of a mode that comes often (half the nights, in
 * runs of 3) came before that and was confirmed again, a tenth of the
 * false alarms; with one night left out of 2 to 4, the lasting rises are
 * judged as before (resumed_confirms watches them against the baseline
 * before the episode), and with none left out 7.5% of those at 1% noise
 * were no longer CONFIRMED on their last night, 5.0% before. After an
 * episode MODE_SEP deviations above its baseline none is left out of 2
 * to 4 (the lasting rises lie nearer their baseline; from the first
 * night after such an episode, 2 lasting 5% rises in 150 at 1% noise were
 * no longer CONFIRMED on their tenth night). One night after is enough
 * for such an episode of at most tail_max nights (a run of a slow mode):
 * confirmed and ended by one fast night, it stayed out of the modes while
 * the mode's next run came, a night or two later, and that run was
 * confirmed again (half the nights 5% slower in runs of 3 from night 101,
 * 1% noise: 109 false alarms in 69 histories, 97 now). A longer one, a
 * rise that lasted, still needs two: with one, a night low by chance
 * ended lasting 2% rises whose nights then were a mode (on two draws,
 * one more in 40 no longer CONFIRMED on its last night, at 0.5% and at
 * 1% noise). */
#define AFTER_MAX 30

/* The level of the confirmed episode whose last night is night k: the
 * median of its eligible confirmed nights (the last 64 at most), its
 * first night in *first; NAN when night k is none. */
double
episode_median(const struct vengine *j, size_t k, size_t *first)
{
	double e[64];
	size_t n = 0;
	*first = k;
	for (size_t q = k + 1; q-- > 0 && n < 64;) {
		const struct vnight *v = &j->c->nights[q];
		if (!eligible(v))
			continue;
		if (!v->confirmed)
			break;
		e[n++] = v->mean, *first = q;
	}
	return n ? stats_median(e, n) : NAN;
}

static int
episode_ended(const struct vengine *j, size_t k, const double *after, size_t c)
{
	double a[AFTER_MAX];
	size_t first;
	if (c < 1)
		return 0;
	double level = episode_median(j, k, &first), old = j->c->nights[first].base_mean;
	if (isnan(old) || isnan(level))
		return 0;
	int far = level - old >= MODE_SEP * j->c->nights[first].base_sd;
	if (c < 2 && !(far && eligible_between(j, first, k + 1, (size_t)j->p->tail_max + 1) <= (size_t)j->p->tail_max))
		return 0;
	c -= c >= 5 ? 2 : far ? 0 : 1;
	for (size_t q = 0; q < c; q++)
		a[q] = after[q];
	double back = stats_median(a, c);
	return fabs(back - old) < fabs(back - level);
}

/* A young baseline's slow mode, seen once (the policy's young_sep; off
 * by default): with fewer than window eligible nights before night i,
 * the modes also learn from a quarantined slow night that no rule
 * confirmed, under large_effect and young_sep deviations of its own
 * baseline up or more, once a later night was not quarantined (it came
 * back; a rise's own nights stay out while it lasts). The latest two
 * quarantined nights stay out of a baseline (released), so a young
 * history with 30% of its nights 3% slower shows its modes two to five
 * slow nights, and the next pair of slow nights is a step: about two
 * false alarms per 1,000 nights in a history's first two months at 0.5%
 * and 1% noise, on every generator (bench/detect-young.sh). At 3, 0.8 to
 * 1.3 at 0.5% noise. But those alarms come when the history has shown
 * the slow level once or twice, and so does a rise after one far night:
 * a 5% rise at night 16 after one night at its level (night 8) was then
 * confirmed within 2 nights in 18% of histories at 0.5% noise, not 100%
 * (docs/history.md, "A young baseline's slow mode seen once"). Not for
 * an older baseline either way: two single nights at a rise's level 20
 * and 40 nights before it then made the rise a mode. Not for a fast
 * night: a far fast night of a quiet first month entered the mixture and
 * held a rise back a night. */

static int
young_base(const struct vengine *j, size_t i)
{
	struct segwalk walk = segwalk(j, i, i);
	int n = 0;
	while (n < j->p->window && segwalk_prev(&walk))
		n++;
	return n < j->p->window;
}

static int
young_slow_night(const struct vengine *j, const struct vnight *v)
{
	return !v->confirmed && v->effect > 0 && v->effect < j->p->large_effect &&
	       v->mean - v->base_mean >= j->p->young_sep * v->base_sd;
}

/* The nights before night i that a baseline of window nights holds; with
 * modes, those the modes and mixture of the regime window are learned
 * from: also the nights of a confirmed episode that ended before night i
 * (episode_ended: the nights after it are back at the level before it),
 * unless off by large_effect. A run of slow-mode nights confirmed, and
 * lasting past a brief episode, otherwise left the slow mode out of every
 * later regime window, and its next run was confirmed again: about half
 * the false alarms of a rare slow mode in runs. A regression that was
 * fixed is such a mode too, while it is in the window: a second one at
 * its level is taken for it. The baseline's level and deviation keep such
 * nights out, and the slow nights of a young baseline (young_slow_night). */
static void
collect(struct vengine *j, size_t i, struct base *b, int window, int modes)
{
	int later = 0, take = 0, in_ep = 0, seen = 0, came_back = 0;
	int young = modes && j->p->young_sep > 0 && young_base(j, i);
	size_t since = 0; /* baseline nights after the latest episode seen */
	b->m = j->buf, b->k = j->idx, b->n = 0, b->se2 = 0, b->ended = 0;
	struct segwalk walk = segwalk(j, i, i);
	for (const struct vnight *v; (int)b->n < window && (v = segwalk_prev(&walk));) {
		if (modes && v->confirmed && !in_ep) {
			size_t c = since < AFTER_MAX ? since : AFTER_MAX;
			take = episode_ended(j, walk.k, b->m + b->n - c, c);
			if (!seen++)
				b->ended = take;
		}
		in_ep = v->confirmed;
		if (v->quarantined && !released(j, v, later++) && !(modes && take && v->confirmed && fabs(v->effect) < j->p->large_effect) &&
		    !(young && came_back && young_slow_night(j, v)))
			continue;
		came_back |= !v->quarantined;
		b->k[b->n] = walk.k;
		b->m[b->n++] = v->mean;
		b->se2 += v->se * v->se;
		since = v->confirmed ? 0 : since + 1;
	}
	if (b->n)
		b->se2 /= (double)b->n;
}

void
collect_base(struct vengine *j, size_t i, struct base *b, int window)
{
	collect(j, i, b, window, 0);
}

void
collect_modes(struct vengine *j, size_t i, struct base *b, int window)
{
	collect(j, i, b, window, 1);
}

/* Night k's modes, from its baseline, when first asked for (a few nights
 * need them: finding them for every night is most of the judging time). */
const struct vnight *
regime_of(struct vengine *j, size_t k)
{
	struct vnight *w = &j->c->nights[k];
	if (!w->reg_done) {
		struct base b;
		collect(j, k, &b, j->p->regime_window, 1);
		find_regime(w, &b, j->p, 0);
	}
	return w;
}

/* Did the latest confirmed episode before night i end, by the nights
 * between it and night i (episode_ended), so that the modes of night i
 * hold its nights? */
int
latest_ended(struct vengine *j, size_t i)
{
	struct base b;
	collect(j, i, &b, j->p->regime_window, 1);
	return b.ended;
}

/* mixture_sf of night k's baseline (fitted when first asked for: a few
 * nights need it), mixture_sf_ramp for a ramp's mean; 0 when it has no
 * split. */
double
base_mixture_sf(struct vengine *j, size_t k, double level, double L, int dir, int ramp)
{
	struct vnight *w = &j->c->nights[k];
	if (!w->mix_done) {
		struct base b;
		collect(j, k, &b, j->p->regime_window, 1);
		find_regime(w, &b, j->p, 1);
	}
	if (isnan(w->mix.lo))
		return 0;
	return ramp ? mixture_sf_ramp(&w->mix, level, (size_t)L, dir == VB_SLOWER ? 1 : -1)
		    : mixture_sf(&w->mix, level, L, dir == VB_SLOWER ? 1 : -1);
}

/* A level of nl nights beyond what night k's baseline has seen: past its
 * slow or fast mode (beyond_regime) and unlikely under its two-normal
 * mixture as the mean of nmix nights (ramp: weighted 1 .. nmix), both at
 * alpha. Every rule that confirms a shift over several nights asks both. */
int
beyond_modes(struct vengine *j, size_t k, double level, double nl, double nmix, int dir, double alpha, int ramp)
{
	return beyond_regime(regime_of(j, k), level, nl, nl, dir, 0, alpha) && base_mixture_sf(j, k, level, nmix, dir, ramp) < alpha;
}

/* The deviation the tail and ramp tests divide by: the baseline's, or
 * that of the regime window's nights when larger. Most chance runs stand
 * on a 30-night deviation that is low by chance (0.77% where the truth is
 * 1.05%); the longer window seldom is, and with the t-test's degrees of
 * freedom kept at the baseline's, a long history's false alarms halve
 * while a young one (30 nights: both windows the same) is judged as
 * before. A level that really moved is in neither window. */
double
test_sd(struct vengine *j, size_t k)
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
double
now_sd(struct vengine *j, size_t k, const double *x, size_t n)
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

/* The median of the eligible nights in [from, to): one spike cannot move it. */
double
median_between(const struct vengine *j, size_t from, size_t to)
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
size_t
eligible_between(const struct vengine *j, size_t from, size_t to, size_t cap)
{
	size_t n = 0;
	for (size_t k = from; k < to && n < cap; k++)
		n += eligible(&j->c->nights[k]);
	return n;
}

/* The night after the last night of a confirmed episode from night from
 * up to night to (not counted), or from when there is none. Before the
 * night judged, that episode ended. */
size_t
last_confirmed(const struct vengine *j, size_t from, size_t to)
{
	for (size_t k = to; k-- > from;)
		if (j->c->nights[k].confirmed)
			return k + 1;
	return from;
}

/* The eligible night before night i in its segment, or NULL. */
const struct vnight *
prev_night(const struct vengine *j, size_t i)
{
	struct segwalk walk = segwalk(j, i, i);
	return segwalk_prev(&walk);
}
