/* verdict: judges one configuration's history, night by night. Validity
 * first (an invalid or failed night never enters a baseline); then each
 * valid night against the published reference and against its baseline
 * (the recent valid, unacknowledged, unquarantined nights of the current
 * segment): SAME, SLOWER or FASTER (with the effect) or UNKNOWN.
 * A slow mode the baseline has seen is no change. A DIFFERENT night is
 * quarantined (kept out of later baselines while it may be confirmed) and
 * is SUSPECT until the last few nights together, or a change point over
 * the series, confirm a shift (CONFIRMED, until a night falls back to the
 * old level). Step time: lower is better. The knobs are policy.h's.
 * verdict.c is the night loop; vbase, vconfirm and vepisode its parts,
 * vnight.h the records it fills. */
#ifndef LLMB_VERDICT_H
#define LLMB_VERDICT_H

#include "recipe/policy.h"
#include "store/history.h"
#include "verdict/vnight.h"

/* Judge h at night day (-1: its latest night). Every night up to it is
 * judged as if it were the latest; change points are marked as the test
 * sees them on the judged night. */
void verdict_judge(const struct history *h, int day, const struct policy *p, struct vconfig *c);
void verdict_free(struct vconfig *c);
/* Night v's one-sided p against its baseline, NAN when not tested:
 * worked out when asked (the verdict needs it only near its level). */
double verdict_p(const struct vnight *v);

#endif
