/* vbase: the state of the verdict engine's night-by-night judge (struct
 * judge: one configuration's nights, the policy, scratch space) and what
 * each of its rules asks of it: the segment since an accepted baseline or
 * a confirmed improvement (which nights count: eligible, vnight.h; the
 * walk back over them: segwalk), a night's baseline (collect_base), the
 * modes that baseline has seen (regime_of, beyond_regime,
 * base_mixture_sf, beyond_modes), the deviation the tests divide by
 * (test_sd, now_sd), and counts and medians over a span of nights. Private
 * to the engine: verdict.c and its rules (vconfirm, vepisode). */
#ifndef LLMB_VBASE_H
#define LLMB_VBASE_H

#include <stddef.h>

#include "verdict/vnight.h"

/* The level of an episode, in deviations of the baseline before it, from
 * which the nights tell it apart from their noise: a slow mode's run, not
 * a rise within the noise that one low night declared over (a lasting
 * 2% rise lies about 2 deviations up at 1% noise, 1 at 2%). */
#define MODE_SEP 3.5

/* A night's baseline: the nights collect_base gathered. */
struct base {
	double *m;              /* night means, the latest first */
	size_t *k;              /* their nights' indices */
	double se2;             /* mean squared within-run error */
	size_t n;
	int ended;              /* with modes: the latest confirmed episode before it ended (episode_ended) */
};

/* The verdict engine's state for one configuration, night by night
 * (`llmb judge` is judge.c; this is what its verdicts are computed with). */
struct vengine {
	struct vconfig *c;
	const struct policy *p;
	int auto_day;           /* a confirmed improvement starts a segment here */
	long watch;             /* the last CONFIRMED night, while its episode is watched (resumed_confirms); -1: none */
	long last_mode;         /* the latest night judged that was answered as a mode; -1: none */
	long gain_first;        /* an improvement a rule confirmed from this night, not yet held gain_nights nights; -1: none */
	int gain_rule;          /* ... the rule that confirmed it */
	double *buf;            /* scratch: night means */
	size_t *idx;            /* scratch: night indices */
};

/* A walk back over the eligible nights of one segment (since an accepted
 * baseline or a confirmed improvement), the way most rules gather their
 * nights: segwalk(j, seg, to) starts before night `to` in night seg's
 * segment; segwalk_prev gives each eligible night back in turn (its index
 * in k), and NULL at the segment's first night and after. */
struct segwalk {
	const struct vnight *nights;
	size_t k;
	int from;               /* the segment's first day */
};

static inline const struct vnight *
segwalk_prev(struct segwalk *w)
{
	while (w->k > 0) {
		const struct vnight *v = &w->nights[--w->k];
		if (v->day < w->from)
			break;
		if (eligible(v))
			return v;
	}
	w->k = 0;
	return NULL;
}

int beyond_regime(const struct vnight *w, double level, double nl, double run, int dir, double extra2, double alpha);
int seg_day(const struct vengine *j, size_t i);
struct segwalk segwalk(const struct vengine *j, size_t seg, size_t to);
void collect_base(struct vengine *j, size_t i, struct base *b, int window);
/* The same with the nights of a confirmed episode that ended (the nights
 * the modes are learned from: regime_of). */
void collect_modes(struct vengine *j, size_t i, struct base *b, int window);
const struct vnight *regime_of(struct vengine *j, size_t k);
int latest_ended(struct vengine *j, size_t i);
double episode_median(const struct vengine *j, size_t k, size_t *first);
double base_mixture_sf(struct vengine *j, size_t k, double level, double L, int dir, int ramp);
int beyond_modes(struct vengine *j, size_t k, double level, double nl, double nmix, int dir, double alpha, int ramp);
double test_sd(struct vengine *j, size_t k);
double now_sd(struct vengine *j, size_t k, const double *x, size_t n);
double median_between(const struct vengine *j, size_t from, size_t to);
size_t eligible_between(const struct vengine *j, size_t from, size_t to, size_t cap);
size_t last_confirmed(const struct vengine *j, size_t from, size_t to);
const struct vnight *prev_night(const struct vengine *j, size_t i);

#endif
