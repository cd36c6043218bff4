/* verdict: judges one configuration's history, night by night. Validity
 * first (an invalid or failed night never enters a baseline); then each
 * valid night against the published reference and against its baseline
 * (the recent valid, unacknowledged, unquarantined nights of the current
 * segment): SAME, SLOWER or FASTER (with the effect) or UNKNOWN.
 * A slow mode the baseline has seen is no change. A DIFFERENT night is
 * quarantined (kept out of later baselines while it may be confirmed) and
 * is SUSPECT until the last few nights together, or a change point over
 * the series, confirm a shift (CONFIRMED, until a night falls back to the
 * old level). Step time: lower is better.
 * The policy is a table of knobs with defaults, overridable from a YAML
 * "nightly:" block or flags. */
#ifndef LLMB_VERDICT_H
#define LLMB_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "history.h"
#include "mixture.h"

struct policy {
	double min_effect;      /* smallest step-time change that matters (fraction) */
	double large_effect;    /* with min_nights_large..min_nights-1 baseline nights, only this is called */
	int confirm_m, confirm_k;
	double confirm_ratio;   /* the confirming nights agree on the effect within this ratio */
	int min_nights_large, min_nights;
	int window;             /* baseline: at most this many recent nights */
	int regime_window;      /* the modes of a baseline: learned over this many recent nights */
	double alpha;           /* per-night test, one-sided */
	double noise_floor;     /* run-to-run noise never taken below this (fraction) */
	int cp_perms;
	double cp_alpha;
	int cp_min_after;       /* nights at and after a change point before it may confirm */
	int cp_window;          /* the change-point test looks at this many recent nights */
	double tail_alpha;      /* the last few nights together against the baseline before them */
	double tail_alpha_pair; /* the same for the last two nights alone */
	int tail_max;
	double ramp_alpha;      /* a drift: the last ramp_min .. ramp_max nights against a steady rise */
	double noise_ref;       /* noisier baselines (relative deviation): tail and ramp levels shrink with its square */
	int ramp_min, ramp_max;
	uint64_t seed;
};

void policy_defaults(struct policy *p);
/* Read the "nightly:" block (or "nightly: policy:") of a YAML file;
 * diagnostics and non-zero on error. */
int policy_load(const char *path, struct policy *p);
/* Set one knob by name from text; -1 unknown name, -2 bad value. */
int policy_set(struct policy *p, const char *name, const char *val);
/* What knob name takes ("a number from 0 to 1"), in buf; NULL when no knob. */
const char *policy_rule(const char *name, char *buf, size_t len);
/* The knobs as "name value" lines into a caller buffer callback. */
size_t policy_count(void);
const char *policy_name(size_t i);
double policy_get(const struct policy *p, size_t i);

enum vb { VB_NONE, VB_SAME, VB_SLOWER, VB_FASTER, VB_UNKNOWN };
enum vstate { ST_OK, ST_SUSPECT, ST_CONFIRMED, ST_INVALID, ST_FAILED, ST_INCONCLUSIVE, ST_NEW };
extern const char *const vb_names[];
extern const char *const state_names[];

struct vnight {
	int day;
	char night[11];
	size_t nruns, nvalid;
	const struct hrun *rep;  /* last valid run of the night, else its last run */
	int valid, failed, acked;
	double mean, se;         /* mean step time of the valid runs; its within-run standard error */
	int vb;                  /* verdict vs baseline */
	double effect, p;        /* relative effect; one-sided p (NAN when not tested) */
	size_t base_n;
	double base_mean, base_sd, band_lo, band_hi;
	double clip_lo, clip_hi;  /* what the change-point test sees of this night: mean within 3 sigma of its baseline */
	double reg_lo, reg_hi;   /* a fast and a slow mode in the baseline (their means), NAN when it has none */
	double reg_sd;           /* the deviation within the modes */
	size_t reg_nlo, reg_nhi;
	struct mixture mix;      /* the baseline as two normals (mix.lo NAN: none) */
	int mix_done;            /* mix is set (fitted when first needed) */
	int reg_done;            /* reg_* are set (computed when first needed) */
	int quarantined;
	int vref;                /* verdict vs reference */
	double ref, tol, ref_effect;
	int state;
	int cp;                  /* first night of a new segment by the change-point test */
	double cp_p;
	int confirmed;           /* confirmed as part of a sustained change (M of K or change point) */
	long first_bad;          /* when this night confirmed a shift: its first night */
	const char *how;         /* and how that night was named */
};

struct vconfig {
	const struct history *h;
	struct vnight *nights;
	size_t n;
	long judged;             /* index of the judged night, -1 when it has none */
	int state;
	long first_bad, last_good;
	const char *first_bad_how;
	double effect;           /* judged night vs the baseline before the first bad night */
	size_t acks, accepts;
};

/* Judge h at night day (-1: its latest night). Every night up to it is
 * judged as if it were the latest; change points are marked as the test
 * sees them on the judged night. */
void verdict_judge(const struct history *h, int day, const struct policy *p, struct vconfig *c);
void verdict_free(struct vconfig *c);

#endif
