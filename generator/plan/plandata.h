/* plandata: the plan's data, shared by the modules that build it and the
 * commands that read it (through plan.h): the selection (the make
 * variables that select runs and change what a run does), the stage
 * instances with their configurations, and the plan that holds them.
 * Adding an instance registers its id; plan_free (plan.h) releases all. */
#ifndef LLMB_PLANDATA_H
#define LLMB_PLANDATA_H

#include <stddef.h>

#include "base/htab.h"
#include "base/util.h"
#include "store/stagecfg.h"
#include "recipe/recipe.h"

struct ovr;

/* Make variables that select what runs and change what a run does. */
enum knob {
	K_WORKLOAD, K_SIZE, K_DTYPE, K_GPU_TYPE, K_SCALES, K_PROXY,
	K_ENABLE_PROFILE, K_PROFILE_START_STEP, K_PROFILE_STOP_STEP,
	K_PROFILE_RANKS, K_ENABLE_PYTORCH_PROFILE, K_ENABLE_GPU_METRICS,
	K_ENABLE_NCCLTRACE, K_ENABLE_CHECKPOINT, K_LOAD_CHECKPOINT_PATH, K_CHECKPOINT_DIR, K_CHECKPOINT_INTERVAL,
	K_ADDITIONAL_SLURM_PARAMS, K_TIME_LIMIT, K_MAX_STEPS, K_EXTRA_WORK, K_PREFLIGHT,
	/* the overrides (override.h) */
	K_TP, K_PP, K_CP, K_VP, K_EP, K_ETP, K_MBS, K_GBS, K_FP8_RECIPE, K_CONFIG_VARIANT, K_CUDA_GRAPH_SCOPE, K_ENV,
	K_NKNOBS
};
extern const char *const knob_names[K_NKNOBS];

struct sel {
	const char *v[K_NKNOBS];    /* NULL or "" when unset */
	/* make nightly: LLMB_NIGHT names the night, whose runs are new
	 * instances (ids and run directories end in night-<NIGHT>[-<repeat>]);
	 * LLMB_NIGHTLY is the matrix file that the selection narrows. */
	const char *night, *nightly;
	/* LLMB_NIGHT_TAG, llmb nightly's confirmation runs: lowercase, at most
	 * 16 letters, else NULL (run ids night-<NIGHT>-<tag>) */
	const char *night_tag;
	/* make exemplar: LLMB_EXEMPLAR is the suite file; its runs are new
	 * instances too (run directories exemplar/<run>/repeat-<r>). */
	const char *exemplar;
	/* SWEEP: a file of override knobs (sweepfile.h), read by plan_build */
	const char *sweep;
	/* the caller's environment (NAME=value, NULL-ended; NULL: none), whose
	 * performance variables each training records (envrec.h) */
	char *const *env;
	/* llmb bisect (bisect.h): LLMB_BISECT="<id>-<point>" (lowercase letters
	 * and digits), a bisection's run of its own (run directories
	 * bisect/<id>/<run>/<point>); LLMB_BISECT_PIN="KEY=COMMIT ..." the
	 * repositories' commits in place of the recipe's pins (a venv of its
	 * own); LLMB_BISECT_IMAGE="KEY=REF ..." the images' refs in place of
	 * the recipe's (an image stage of its own). All NULL (npins, nimages
	 * 0) outside a bisection. */
	const char *bisect;
	const char *pin_key[8], *pin_commit[8];
	int npins;
	const char *image_key[4], *image_ref[4];
	int nimages;
};

struct inst {
	char *id;                   /* "train.tinygpt.cpu.tiny.fp32.2" */
	const struct ynode *stage;  /* its pipeline stage */
	const char *kind;
	const char *workload;       /* first workload it serves */
	const struct ynode *wl;
	const char *gpu, *size, *dtype; /* NULL where the stage is not per run */
	long scale;                 /* 0 where not per run */
	char *rep;                  /* nightly runs: "night-2026-01-05[-2]"; exemplar
	                             * runs: "exemplar-<r>", "exemplar-profile"; else NULL */
	char *label;                /* "train tinygpt cpu tiny fp32 x2" */
	char *plan;                 /* what would be submitted, one line */
	struct stagecfg conf;        /* its kind's configuration, typed */
	struct sb cfg;              /* the effective configuration, KEY=VALUE lines:
	                             * rendered once, when the plan is linked (plan.c) */
	char hash[65];
	size_t *deps, ndeps;        /* indexes of upstream instances (all lower) */
	char **outputs;             /* install-relative files proving completion */
	size_t noutputs;
	/* matching data for dependency edges */
	char **serves;              /* workloads served (shared image/venv) */
	size_t nserves;
	const struct ynode *gpus;   /* image restricted to these GPU types */
};

struct plan {
	struct recipes rec;
	struct inst *v;
	size_t n;
	struct sel sel;
	struct pindex ids;          /* id -> position in v */
	struct pindex files;        /* checkout file -> position in fhash */
	char (*fhash)[65];          /* content hashes of files commands name */
	size_t nfhash;
	long night_repeats;         /* runs of each configuration per night (nightly),
	                             * or measured runs of each (exemplar) */
	int exemplar_profile;       /* exemplar: one more, profiled run of each */
	char *emptied;              /* which knob left a workload without runs, first */
	struct ovr *ovr;            /* the overrides' combinations (override.h) */
	char *sweep_vals;           /* the sweep file's values, which sel points into */
	size_t novr;
};

/* The instance with that id, or NULL. */
struct inst *plan_find(struct plan *p, const char *id);
/* A new zeroed instance of stage for workload wl, last in p->v, with its id
 * (taken over) registered; pointers into p->v change with every call. */
struct inst *add_inst(struct plan *p, char *id, const struct ynode *stage, const struct ynode *wl);
/* Appends an install-relative output (taken over). */
void add_output(struct inst *in, char *path);
/* Adds workload w (copied) to the workloads in serves, once. */
void add_serves(struct inst *in, const char *w);

#endif
