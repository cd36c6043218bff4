/* mixture: a night-level baseline as two normals with one deviation (a
 * fast and a slow mode: node placement, a slower switch), fitted by EM
 * from a hard split, with how long the slow mode's nights come in runs
 * (the persistence of a two-state Markov chain), and how likely the mean
 * of L consecutive nights drawn from it reaches a level. The verdict asks
 * it before confirming a shift, so that a run of slow-mode nights is no
 * change. */
#ifndef LLMB_MIXTURE_H
#define LLMB_MIXTURE_H

#include <stddef.h>

struct mixture {
	double lo, hi, sd;      /* the two means and the deviation within each */
	double pi;              /* the share of the slow (hi) mode */
	double rho;             /* the lag-1 autocorrelation of the mode (0: nights independent) */
	size_t n;               /* nights it was fitted to */
	double pr;              /* the slow mode's share among the nr most recent of them */
	size_t nr;              /* 0: none */
};

/* Fit m to x[0..n) from the 2-means split (lo, hi, sd); sd never below floor. */
void mixture_fit(struct mixture *m, const double *x, size_t n, double lo, double hi, double sd, double floor);
/* The mode's persistence (m->rho) from the nights x[0..n) in their order
 * (either way), after mixture_fit. */
void mixture_persist(struct mixture *m, const double *x, size_t n);
/* The slow mode's share among the nights x[0..nr) (the latest first),
 * after mixture_fit (mixture_sf: a mode that appeared lately). */
void mixture_recent(struct mixture *m, const double *x, size_t nr);
/* P(mean of L nights >= level) (dir 1) or <= level (dir -1); 0 when m->sd is not positive. */
double mixture_sf(const struct mixture *m, double level, double L, int dir);
/* The same for the mean of L nights weighted 1, 2, .., L (a ramp's). */
double mixture_sf_ramp(const struct mixture *m, double level, size_t L, int dir);

#endif
