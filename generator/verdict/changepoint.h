/* changepoint: E-divisive means (Matteson & James 2014; the algorithm behind
 * MongoDB's and Apache Otava's change-point detection) over one series:
 * hierarchical bisection at the split maximising the energy statistic,
 * each split kept only when a seeded permutation test finds it
 * significant. Deterministic for a given seed. */
#ifndef LLMB_CHANGEPOINT_H
#define LLMB_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

struct cp_opts {
	int perms;        /* permutations per test (199) */
	double alpha;     /* significance (0.01) */
	size_t min_seg;   /* shortest segment (2): a single point is never a segment */
	uint64_t seed;
};

struct cpoint {
	size_t at;        /* index of the first point of the new segment */
	double p;         /* permutation p-value */
	double q;         /* the energy statistic of the split */
};

/* Change points of x[0..n) in increasing order, at most max; returns the count. */
size_t cp_edivisive(const double *x, size_t n, const struct cp_opts *o, struct cpoint *out, size_t max);
/* The best single split of x[0..n) (min_seg each side), or 0 when none fits;
 * *q gets its statistic. */
size_t cp_best_split(const double *x, size_t n, size_t min_seg, double *q);

#endif
