/* mixture: a night-level baseline as two normals with one deviation (a
 * fast and a slow mode: node placement, a slower switch), fitted by EM
 * from a hard split, and how likely the mean of L nights drawn from it
 * reaches a level. The verdict asks it before confirming a shift, so that
 * a run of slow-mode nights is no change. */
#ifndef LLMB_MIXTURE_H
#define LLMB_MIXTURE_H

#include <stddef.h>

struct mixture {
	double lo, hi, sd;      /* the two means and the deviation within each */
	double pi;              /* the share of the slow (hi) mode */
	size_t n;               /* nights it was fitted to */
};

/* Fit m to x[0..n) from the 2-means split (lo, hi, sd); sd never below floor. */
void mixture_fit(struct mixture *m, const double *x, size_t n, double lo, double hi, double sd, double floor);
/* P(mean of L nights >= level) (dir 1) or <= level (dir -1); 0 when m->sd is not positive. */
double mixture_sf(const struct mixture *m, double level, double L, int dir);

#endif
