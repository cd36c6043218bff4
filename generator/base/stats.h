/* stats: the small statistics the nightly verdicts need, all deterministic:
 * summaries (n, mean, median, std, MAD), the standard error of a mean of
 * autocorrelated per-step samples (batch means), Student's t distribution,
 * a seeded PRNG for permutation tests, and round axis ticks (1-2-5). */
#ifndef LLMB_STATS_H
#define LLMB_STATS_H

#include <stddef.h>
#include <stdint.h>

struct summary {
	size_t n;
	double mean, median, std, mad; /* std: sample (n-1); mad: raw median |x - median| */
};

double stats_mean(const double *x, size_t n);
/* The mean of x[0..n) with each value clipped to [lo, hi]: a far night
 * counts, but no farther than the tests' 3 deviations. */
double stats_clipped_mean(const double *x, size_t n, double lo, double hi);
/* The t of a shift: a mean m of n values against a baseline mean mu of
 * base_n values, one deviation sd for both (the tests' pooled form). */
double stats_shift_t(double m, double n, double mu, double base_n, double sd);
/* One value's log likelihood ratio, no shift against a shift of r: the
 * value d above the old level, one normal of deviation sd about either. */
double stats_shift_llr(double r, double d, double sd);
/* Sample standard deviation (n-1); 0 when n < 2. */
double stats_std(const double *x, size_t n);
/* Median of x (x is left unchanged). */
double stats_median(const double *x, size_t n);
/* Sorts a[0..n) in place, ascending. */
void stats_sort(double *a, size_t n);
void stats_summary(const double *x, size_t n, struct summary *s);
/* The mean of the samples within 10 robust deviations (7.4 times the
 * interquartile range) of their median: a few stalled steps (a checkpoint, a hiccup) are not the
 * run's speed, while a run slower in every step moves it (at 5, one night
 * in a hundred of 20 ordinary autocorrelated steps lost a step). The samples kept
 * go to kept[] (room for n), their count to *nk. */
double stats_robust_mean(const double *x, size_t n, double *kept, size_t *nk);
/* Standard error of the mean of n autocorrelated samples: the samples are
 * cut into about sqrt(n) consecutive batches and the error is the std of
 * the batch means over sqrt(batches); a short window falls back to
 * std/sqrt(n) doubled (a conservative allowance for correlation). */
double stats_batch_se(const double *x, size_t n);
/* P(T > t) for Student's t with df degrees of freedom (df > 0). */
double stats_t_sf(double t, double df);
/* P(F > f) for Snedecor's F with d1 and d2 degrees of freedom. */
double stats_f_sf(double f, double d1, double d2);
/* The t with P(T > t) = p, 0 < p < 0.5. */
double stats_t_isf(double p, double df);

/* splitmix64: a tiny seeded generator, the same numbers on every platform. */
struct rng {
	uint64_t s;
};
uint64_t rng_next(struct rng *r);
/* Uniform integer in [0, n). */
size_t rng_below(struct rng *r, size_t n);

/* Round axis ticks over [lo, hi]: a step of 1, 2 or 5 times a power of ten
 * giving at most max ticks; writes the first tick and the step. */
void stats_ticks(double lo, double hi, int max, double *first, double *step);

#endif
