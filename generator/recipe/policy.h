/* policy: the knobs of the nightly verdict (verdict.c), one row each with
 * its default and its range, overridable from a YAML "nightly:" block or
 * flags; what each takes, and the checks between them. */
#ifndef LLMB_POLICY_H
#define LLMB_POLICY_H

#include <stddef.h>
#include <stdint.h>

struct policy {
	double min_effect;      /* smallest step-time change that matters (fraction) */
	double large_effect;    /* with min_nights_large..min_nights-1 baseline nights, only this is called */
	int confirm_m, confirm_k;
	double confirm_ratio;   /* the confirming nights agree on the effect within this ratio */
	int min_nights_large, min_nights;
	int window;             /* baseline: at most this many recent nights */
	int regime_window;      /* the modes of a baseline: learned over this many recent nights */
	int noise_nights;       /* noise that grew: the last this many nights against the older ones */
	double noise_alpha;     /* ... by an F-test at this level */
	int short_nights;       /* the tail and ramp tests over fewer nights than this ... */
	double short_effect;    /* ... confirm from this effect on (min_effect over more) */
	double short_rise;      /* ... or from this rise less 3.5 deviations of their mean, if more (0: not asked) */
	double short_llr;       /* ... and so does a longer tail window whose latest nights under short_nights fit such a step better by this log-likelihood ratio (0: not asked) */
	int chain_window;       /* a new slowdown: the nights before it as a two-mode Markov chain, at most this many */
	double chain_llr;       /* ... is confirmed when one new level explains its nights better by this log-likelihood ratio (0: not asked) */
	double chain_odds;      /* ... or when a grid of two-mode chains, weighed by the nights before and e^-chain_odds as likely a priori as one mode, explains it nearly as well (1000: not asked) */
	double chain_odds_noisy; /* ... chain_odds where the nights before are noisier than noise_ref */
	int chain_seen;         /* ... and learns from a night the baseline left out that this many of its nights no rule confirmed lie nearer than their median (0: never) */
	double seen_sd;         /* a short window at the level of one earlier night this many deviations up is a mode (0: not asked) */
	double seen_llr;        /* ... which came back by itself: 3 nights under the middle, or nights at the old level by odds of e^this (0: 3 nights always) */
	double young_sep;       /* a young baseline's modes (under window nights) also learn from a slow night this many deviations up that came back (0: not asked) */
	double alt_llr;         /* an episode whose nights come and go between the level before it and one higher level, by this log-likelihood ratio over a step, is a mode (0: not asked) */
	double hold_alpha;      /* an established regression under 1.5 deviations whose nights still stand off by a t-test at this ends only on odds of e^7 (0: not asked) */
	int gain_nights;        /* an improvement starts a new segment once this many nights from its first hold it (1: at once) */
	double alpha;           /* per-night test, one-sided */
	double noise_floor;     /* run-to-run noise never taken below this (fraction) */
	int cp_perms;
	double cp_alpha;
	int cp_min_after;       /* nights at and after a change point before it may confirm */
	int cp_window;          /* the change-point test looks at this many recent nights */
	double cp_level_alpha;  /* a change point's later nights against the baseline before it */
	double tail_alpha;      /* the last few nights together against the baseline before them */
	double tail_alpha_pair; /* the same for the last two nights alone */
	int tail_max;
	double ramp_alpha;      /* a drift: the last ramp_min .. ramp_max nights against a steady rise */
	double noise_ref;       /* noisier baselines (relative deviation): tail levels shrink with its square, the ramp's with its 1.75th power */
	int ramp_min, ramp_max;
	uint64_t seed;
};

void policy_defaults(struct policy *p);
/* Read the "nightly:" block (or "nightly: policy:") of a YAML file;
 * diagnostics and non-zero on error. */
int policy_load(const char *path, struct policy *p);
/* The checks between knobs (confirm_m over confirm_k, ...), the same
 * for a policy file and for flags: diagnostics as where's, non-zero on
 * error. policy_load() runs them on what the file gives. */
int policy_check(const struct policy *p, const char *where);
/* Set one knob by name from text; -1 unknown name, -2 bad value. */
int policy_set(struct policy *p, const char *name, const char *val);
/* What knob name takes ("a number from 0 to 1"), in buf; NULL when no knob. */
const char *policy_rule(const char *name, char *buf, size_t len);
/* The knobs as "name value" lines into a caller buffer callback. */
size_t policy_count(void);
const char *policy_name(size_t i);
double policy_get(const struct policy *p, size_t i);

#endif
