/* vconfirm: the rules that confirm a shift on the night judged: M of the
 * last K nights (m_of_k, streak_first: young baselines), the last few
 * nights together or against a ramp (tail_confirms), and a change point
 * over the segment (changepoints, cp_confirms; leaning says whether that
 * costly test could confirm anything), and a regression declared over
 * that goes on (resumed_confirms). Each returns the shift's direction
 * and where it began (tail_confirms also which of its windows: enum
 * vrule); vepisode names its first bad night. */
#ifndef LLMB_VCONFIRM_H
#define LLMB_VCONFIRM_H

#include <stddef.h>

#include "verdict/vbase.h"

int m_of_k(const struct vengine *j, size_t i);
size_t streak_first(const struct vengine *j, size_t i, int dir);
size_t changepoints(struct vengine *j, size_t i, size_t to, size_t *cps, double *ps, size_t max);
int cp_confirms(struct vengine *j, size_t i, const size_t *cps, size_t ncp, size_t *at);
int tail_confirms(struct vengine *j, size_t i, int ongoing, size_t *first, double *tmax, int *rule, int *len);
int leaning(const struct vengine *j, size_t i);
extern const char resumed_how[];
int resumed_confirms(struct vengine *j, size_t i, size_t *first);

#endif
