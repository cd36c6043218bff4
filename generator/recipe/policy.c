#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/util.h"
#include "base/yamlload.h"

#include "recipe/policy.h"

/* ---- the policy: one row per knob --------------------------------------- */

enum { K_REAL, K_INT };
static const struct knob {
	const char *name;
	int kind;
	size_t off;
	double def, lo, hi;
} knobs[] = {
	{"min_effect", K_REAL, offsetof(struct policy, min_effect), 0.015, 0, 1},
	{"large_effect", K_REAL, offsetof(struct policy, large_effect), 0.10, 0, 10},
	{"confirm_m", K_INT, offsetof(struct policy, confirm_m), 2, 1, 100},
	{"confirm_k", K_INT, offsetof(struct policy, confirm_k), 3, 1, 100},
	{"confirm_ratio", K_REAL, offsetof(struct policy, confirm_ratio), 0.33, 0, 1},
	{"min_nights_large", K_INT, offsetof(struct policy, min_nights_large), 2, 1, 1000},
	{"min_nights", K_INT, offsetof(struct policy, min_nights), 5, 2, 1000},
	{"window", K_INT, offsetof(struct policy, window), 30, 2, 10000},
	{"alpha", K_REAL, offsetof(struct policy, alpha), 0.01, 1e-9, 0.5},
	{"noise_floor", K_REAL, offsetof(struct policy, noise_floor), 0.002, 0, 1},
	{"cp_permutations", K_INT, offsetof(struct policy, cp_perms), 199, 19, 100000},
	{"cp_alpha", K_REAL, offsetof(struct policy, cp_alpha), 0.01, 1e-9, 0.5},
	{"cp_min_after", K_INT, offsetof(struct policy, cp_min_after), 3, 2, 1000},
	{"cp_window", K_INT, offsetof(struct policy, cp_window), 60, 4, 100000},
	{"cp_level_alpha", K_REAL, offsetof(struct policy, cp_level_alpha), 0.002, 0, 0.5}, /* the level after it, t-tested */
	{"tail_alpha", K_REAL, offsetof(struct policy, tail_alpha), 0.0002, 0, 0.5},
	{"tail_alpha_pair", K_REAL, offsetof(struct policy, tail_alpha_pair), 0.0002, 0, 0.5}, /* most chance runs are pairs */
	{"noise_ref", K_REAL, offsetof(struct policy, noise_ref), 0.0125, 0.0001, 1}, /* noisier: min_effect gates nothing */
	{"ramp_alpha", K_REAL, offsetof(struct policy, ramp_alpha), 0.0009, 0, 0.5}, /* a drift against a steady rise */
	{"ramp_min", K_INT, offsetof(struct policy, ramp_min), 4, 2, 1000}, /* fewer nights: the tail's means suffice */
	{"tail_max", K_INT, offsetof(struct policy, tail_max), 8, 2, 1000},
	{"ramp_max", K_INT, offsetof(struct policy, ramp_max), 8, 2, 1000}, /* longer: more tests, little more signal */
	{"regime_window", K_INT, offsetof(struct policy, regime_window), 90, 5, 1024},
	{"noise_nights", K_INT, offsetof(struct policy, noise_nights), 10, 0, 1000}, /* below 2: noise that grew is not looked for */
	{"noise_alpha", K_REAL, offsetof(struct policy, noise_alpha), 0.05, 0, 0.5},
	{"short_nights", K_INT, offsetof(struct policy, short_nights), 5, 2, 1000}, /* a shift seen in fewer nights than this ... */
	{"short_effect", K_REAL, offsetof(struct policy, short_effect), 0.033, 0, 1}, /* ... is confirmed from this effect on */
	{"short_rise", K_REAL, offsetof(struct policy, short_rise), 0.05, 0, 1}, /* ... or from this rise less 3.5 deviations of the window's mean, if more; 0: not asked */
	{"short_llr", K_REAL, offsetof(struct policy, short_llr), 2, 0, 1000}, /* ... and so is a longer tail window whose latest nights under short_nights fit a step under short_effect better by this log-likelihood ratio; 0: not asked */
	{"chain_window", K_INT, offsetof(struct policy, chain_window), 180, 30, 1024}, /* a new slowdown against the nights before as a Markov chain of two modes */
	{"chain_llr", K_REAL, offsetof(struct policy, chain_llr), 12, 0, 1000}, /* ... confirmed when one new level explains it better by this log-likelihood; 0: not asked */
	{"chain_odds", K_REAL, offsetof(struct policy, chain_odds), 5, 0, 1000}, /* ... or when chains of every shape, weighed by the nights before, two modes e^-this as likely a priori as one, explain it nearly as well; 1000: not asked */
	{"chain_odds_noisy", K_REAL, offsetof(struct policy, chain_odds_noisy), 7, 0, 1000}, /* ... the same where the nights before are noisier than noise_ref */
	{"chain_seen", K_INT, offsetof(struct policy, chain_seen), 2, 0, 1000}, /* ... the chain also learns from a night the baseline left out when this many of the nights it learns from that no rule confirmed lie nearer that night than their median; 0: never */
	{"seen_sd", K_REAL, offsetof(struct policy, seen_sd), 4.5, 0, 100}, /* a short window at the level of one earlier night this many deviations up is a mode; 0: not asked */
	{"seen_llr", K_REAL, offsetof(struct policy, seen_llr), 7, 0, 1000}, /* ... that came back by itself: 3 nights under the middle, or nights between at the old level by odds of e^this against the far night's; 0: 3 nights always */
	{"young_sep", K_REAL, offsetof(struct policy, young_sep), 0, 0, 100}, /* a young baseline's modes (under window nights) also learn from a quarantined slow night this many deviations up that came back; 0: not asked (a rise after one such night then waits) */
	{"alt_llr", K_REAL, offsetof(struct policy, alt_llr), 6, 0, 1000}, /* an episode of 6 nights or more that comes and goes between the level before it and one higher level (a chain) better than any step by this log-likelihood ratio is a mode that appeared; 0: not asked */
	{"hold_alpha", K_REAL, offsetof(struct policy, hold_alpha), 0.01, 0, 0.5}, /* an established regression under 1.5 deviations up whose nights, together, still stand off the old level by a t-test at this ends only on odds of e^7, as a larger one does; 0: not asked */
	{"gain_nights", K_INT, offsetof(struct policy, gain_nights), 10, 1, 1000}, /* an improvement is the new level once this many nights from its first hold it; 1: at once */
	{"seed", K_INT, offsetof(struct policy, seed), 1, 0, 1e15},
};
#define NKNOBS (sizeof knobs / sizeof *knobs)

size_t policy_count(void) { return NKNOBS; }
const char *policy_name(size_t i) { return knobs[i].name; }

double
policy_get(const struct policy *p, size_t i)
{
	const char *base = (const char *)p + knobs[i].off;
	if (knobs[i].kind == K_REAL)
		return *(const double *)base;
	if (!strcmp(knobs[i].name, "seed"))
		return (double)*(const uint64_t *)base;
	return *(const int *)base;
}

static void
knob_put(struct policy *p, const struct knob *k, double v)
{
	char *base = (char *)p + k->off;
	if (k->kind == K_REAL)
		*(double *)base = v;
	else if (!strcmp(k->name, "seed"))
		*(uint64_t *)base = (uint64_t)v;
	else
		*(int *)base = (int)v;
}

void
policy_defaults(struct policy *p)
{
	memset(p, 0, sizeof *p);
	for (size_t i = 0; i < NKNOBS; i++)
		knob_put(p, &knobs[i], knobs[i].def);
}

int
policy_set(struct policy *p, const char *name, const char *val)
{
	for (size_t i = 0; i < NKNOBS; i++) {
		if (strcmp(name, knobs[i].name))
			continue;
		char *end;
		double v = strtod(val, &end);
		if (end == val || *end || !(v >= knobs[i].lo && v <= knobs[i].hi) ||
		    (knobs[i].kind == K_INT && v != floor(v)))
			return -2;
		knob_put(p, &knobs[i], v);
		return 0;
	}
	return -1;
}

const char *
policy_rule(const char *name, char *buf, size_t len)
{
	for (size_t i = 0; i < NKNOBS; i++)
		if (!strcmp(name, knobs[i].name)) {
			snprintf(buf, len, "%s from %.15g to %.15g", knobs[i].kind == K_INT ? "an integer" : "a number",
				 knobs[i].lo, knobs[i].hi);
			return buf;
		}
	return NULL;
}

int
policy_check(const struct policy *p, const char *file)
{
	if (p->confirm_m > p->confirm_k) {
		diag_error(file, 0, 0, "confirm_m (%d) is greater than confirm_k (%d)", p->confirm_m, p->confirm_k);
		return 1;
	}
	if (p->ramp_min > p->ramp_max) {
		diag_error(file, 0, 0, "ramp_min (%d) is greater than ramp_max (%d)", p->ramp_min, p->ramp_max);
		return 1;
	}
	if (p->min_nights_large > p->min_nights) {
		diag_error(file, 0, 0, "min_nights_large (%d) is greater than min_nights (%d)", p->min_nights_large,
			   p->min_nights);
		return 1;
	}
	return 0;
}

int
policy_load(const char *path, struct policy *p)
{
	struct ydoc *d = yaml_load_file(path);
	if (!d)
		return 1;
	int bad = d->errors; /* a duplicate key or an alias: said, and the file refused */
	const struct ynode *n = d->root->kind == Y_MAP ? ymap_get(d->root, "nightly") : NULL;
	const struct ynode *pol = n && n->kind == Y_MAP ? ymap_get(n, "policy") : NULL;
	int strict = pol != NULL; /* under policy: every key is a knob */
	if (!pol)
		pol = n;
	if (!pol || pol->kind != Y_MAP) {
		diag_error(path, n ? n->line : 1, n ? n->col : 1, "no 'nightly:' mapping with the policy");
		ydoc_free(d);
		return 1;
	}
	const char *names[NKNOBS + 1];
	for (size_t i = 0; i < NKNOBS; i++)
		names[i] = knobs[i].name;
	names[NKNOBS] = NULL;
	/* With a policy: block, a knob beside it would be silently ignored. */
	for (size_t i = 0; strict && i < ymap_len(n); i++) {
		const struct ynode *k = ymap_key(n, i);
		for (size_t kn = 0; kn < NKNOBS; kn++)
			if (!strcmp(k->str, knobs[kn].name)) {
				diag_error(path, k->line, k->col, "policy knob '%s' beside 'policy:': knobs go under 'policy:' "
					   "when there is one", k->str);
				bad++;
			}
	}
	for (size_t i = 0; i < ymap_len(pol); i++) {
		const struct ynode *k = ymap_key(pol, i), *v = ymap_val(pol, i);
		int known = 0;
		for (size_t kn = 0; kn < NKNOBS; kn++)
			known |= !strcmp(k->str, knobs[kn].name);
		/* typed: a number is written as one, "0.02" and "5%" are strings */
		int rc = !known ? -1 : v->kind == Y_SCALAR && v->plain ? policy_set(p, k->str, v->str) : -2;
		const char *near = diag_suggest(k->str, names);
		if (rc == -1 && (strict || (near && strcmp(near, k->str)))) {
			if (near)
				diag_error(path, k->line, k->col, "unknown policy knob '%s' (did you mean '%s'?)", k->str, near);
			else
				diag_error(path, k->line, k->col, "unknown policy knob '%s'", k->str);
			bad++;
		} else if (rc == -2) {
			char rule[96];
			diag_error(path, v->line, v->col, "bad value %s%s%s for policy knob '%s': %s", v->kind == Y_SCALAR ? "'" : "",
				   v->kind == Y_SCALAR ? v->str : "(not a scalar)", v->kind == Y_SCALAR ? "'" : "", k->str,
				   policy_rule(k->str, rule, sizeof rule));
			bad++;
		}
	}
	ydoc_free(d);
	return bad || policy_check(p, path);
}

