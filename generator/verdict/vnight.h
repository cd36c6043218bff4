/* vnight: the records of a configuration's verdict, one per night
 * (struct vnight: its mean, its verdicts against the baseline and the
 * reference, its state) and the configuration's (struct vconfig), with
 * the names of their verdicts and states. The engine (verdict.h) fills
 * them; the reports read them. */
#ifndef LLMB_VNIGHT_H
#define LLMB_VNIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "recipe/policy.h"
#include "store/history.h"
#include "verdict/mixture.h"

/* How sure the range of nights that may hold a first bad night is. */
#define VRANGE_LEVEL 0.95

enum vb { VB_NONE, VB_SAME, VB_SLOWER, VB_FASTER, VB_UNKNOWN };
enum vstate { ST_OK, ST_SUSPECT, ST_CONFIRMED, ST_INVALID, ST_FAILED, ST_INCONCLUSIVE, ST_NEW };
/* The rule that confirmed a shift (vconfirm.h): M of K on a young
 * baseline, the tail test by its last two nights, by more of them or
 * against a ramp, the change-point test, a regression declared over that
 * goes on. */
enum vrule { VR_NONE, VR_STREAK, VR_PAIR, VR_TAIL, VR_RAMP, VR_CP, VR_RESUMED };
extern const char *const vb_names[];
extern const char *const state_names[];
extern const char *const rule_names[];

struct vnight {
	int day;
	char night[11];
	size_t nruns, nvalid;
	const struct hrun *rep;  /* last valid run of the night, else its last run */
	int valid, failed, acked;
	int mode;                /* answered as a normal mode (llmb annotate --accept-mode): OK, in every baseline */
	long prev_mode;          /* the latest night before it answered so, -1: none */
	double mean, se;         /* mean step time of the valid runs; its within-run standard error */
	int vb;                  /* verdict vs baseline */
	double effect;           /* relative effect */
	double tstat, tdf;       /* the t-test against the baseline: |t| and its degrees of freedom (0: not tested); verdict_p */
	size_t base_n;
	double base_mean, base_sd, band_lo, band_hi;
	double clip_lo, clip_hi;  /* what the change-point test sees of this night: mean within 3 sigma of its baseline */
	double reg_lo, reg_hi;   /* a fast and a slow mode in the baseline (their means), NAN when it has none */
	double reg_sd;           /* the deviation within the modes */
	size_t reg_nlo, reg_nhi;
	size_t reg_rlo, reg_rhi;  /* each mode's nights in that baseline, without its latest run */
	struct mixture mix;      /* the baseline as two normals (mix.lo NAN: none) */
	int mix_done;            /* mix is set (fitted when first needed) */
	int reg_done;            /* reg_* are set (computed when first needed) */
	double long_sd;          /* the tail tests' deviation (test_sd), 0 until first needed */
	double rec_ss, old_var;  /* with it: the last noise_nights baseline nights' squared deviations, the older ones' variance */
	size_t rec_n, old_n;     /* (rec_n 0: too few nights to tell) */
	int quarantined;
	int brief;               /* of a confirmed episode that fell back within confirm_k nights */
	int vref;                /* verdict vs reference */
	double ref, tol, ref_effect;
	int state;
	int cp;                  /* first night of a new segment by the change-point test */
	double cp_p;
	int confirmed;           /* confirmed as part of a sustained change (M of K or change point) */
	long first_bad;          /* when this night confirmed a shift: its first night */
	long conf_first;         /* and the first night named when its episode was confirmed */
	const char *how;         /* and how that night was named */
	int rule;                /* the rule that confirmed it, on the night it was newly confirmed (VR_NONE on the nights after) */
	int rule_nights;         /* and the nights it weighed together (pair, tail, ramp; else 0) */
	long range_lo, range_hi; /* and the nights that may hold it (first_bad_range) */
	double range_share;      /* and its own share of that posterior */
};

/* A night that counts, for the verdicts and for the reports: valid, and
 * not acknowledged. */
static inline int
eligible(const struct vnight *v)
{
	return v->valid && !v->acked;
}

struct vconfig {
	const struct history *h;
	struct vnight *nights;
	size_t n;
	long judged;             /* index of the judged night, -1 when it has none */
	int state;
	long first_bad, last_good;
	const char *first_bad_how;
	double effect;           /* judged night vs the baseline before the first bad night */
	size_t count[ANN_NACTIONS]; /* annotations by action */
};

#endif
