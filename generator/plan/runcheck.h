/* runcheck: the runs of a workload checked once, before the plan expands
 * them, walking the recipe in source order so that every diagnostic is
 * said once, at its place: config rows (GPU types, sizes, scales, runs
 * configured twice), run parameters at every scale a selected run has, the
 * flops formula with each selected run's names bound, the {placeholders}
 * and checkout files of the commands, environments and mounts the plan
 * writes, train.image and the launch options that need it, task names and
 * images, venv repositories and default_gpu. The plan evaluates the same
 * things again without a word (run_params, run_flops): what fails there
 * was said here. */
#ifndef LLMB_RUNCHECK_H
#define LLMB_RUNCHECK_H

#include "recipe/flops.h"
#include "recipe/recipe.h"

/* One selected run of a workload: the config row that configures it and
 * its coordinates. */
struct plan_run {
	const struct ynode *row;
	const char *gpu, *size, *dtype;
	long scale;
	const struct ovr *ovr;      /* its overrides (override.h), or NULL */
	int unlisted;               /* a scale the row does not list (SCALES): DP and GA derived */
};

/* The runs the plan will expand and what its stages will expand of them. */
struct runset {
	const struct plan_run *v;
	size_t n;
	int params;     /* a per-run stage (train, parse) binds params and flops */
	int train;      /* a training stage expands train.cmd, env, mounts and the rows' args and env */
	int tasks;      /* a data stage expands the tasks' cmd, env and mounts */
	int venv;       /* a venv stage reads venv's repositories */
	int extra_work; /* EXTRA_WORK is set: knobs.extra_work_args are expanded */
	int ranges;     /* the params' values are held to param_value_ok (runs, not reference rows) */
};

/* Checks workload wl of file for the runs of rs (NULL: the selection
 * failed, only what holds for every run is checked). Reports every
 * problem through diag.h; returns the number of errors. */
int recipe_check_runs(const struct recipes *r, const char *file, const struct ynode *wl, const struct runset *rs);

/* The run parameters and the flops formula alone, for the runs of rs
 * (the reference rows of `llmb metrics --reference`). */
int recipe_check_exprs(const struct recipes *r, const char *file, const struct ynode *wl, const struct runset *rs);

/* The run's params, evaluated quietly into prm (params_free it): 0 when
 * every one is a valid run parameter, else -1. */
int run_params(const struct recipes *r, const struct plan_run *run, struct params *prm);

/* The run's model FLOPs per sample, quietly: 0 and *total, 1 when the
 * recipe has no formula, -1 when it does not evaluate. */
int run_flops(const struct ynode *wl, const struct plan_run *run, const struct params *prm, double *total);

#endif
