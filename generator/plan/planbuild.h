/* planbuild: the kit the plan's builders share (selection.c, setupstages.c,
 * runstages.c, and plan.c above them): the working context of one workload
 * (struct wctx), the values a run binds and the {placeholder} expansion
 * that uses them, and the command every job-running instance records in
 * its typed configuration (store/stagecfg.h: argv, environment, mounts, secrets,
 * the checkout files a command names). */
#ifndef LLMB_PLANBUILD_H
#define LLMB_PLANBUILD_H

#include <stddef.h>

#include "plan/plandata.h"
#include "plan/runcheck.h"

/* One workload being planned: its recipe, the runs selected from it and
 * what the builders met that the recipe checks should have said. */
struct wctx {
	struct plan *p;
	struct ydoc *doc;
	const char *file;
	const struct ynode *wl;
	struct plan_run *runs;
	size_t nruns;
	int knobs_ok;  /* the run knobs suit the workload (check_wl_knobs) */
	int unsaid;    /* problems met that runcheck.c should have said */
};

/* A run's text coordinates; NULL where a stage is not per run. */
struct coords {
	const char *gpu, *size, *dtype;
};

/* Values known for one run: coordinates, model dimensions, parameters. */
#define MAXVARS 96
struct vars {
	struct coords at;
	const char *profile_ranks;  /* {profile_ranks}: PROFILE_RANKS, else "all" */
	const char *checkpoint_dir; /* {checkpoint_dir}: CHECKPOINT_DIR, else "default" */
	const char *load_checkpoint_path; /* {load_checkpoint_path}: LOAD_CHECKPOINT_PATH, else "none" */
	const char *name[MAXVARS];
	double val[MAXVARS];
	int n;
};

/* 1 when w is a word of list (words separated by spaces, tabs or commas),
 * or list is NULL (nothing selected: everything). */
int in_words(const char *list, const char *w);
/* Sets name to v (the name is borrowed); beyond MAXVARS names, nothing. */
void var_set(struct vars *vs, const char *name, double v);
/* 0 and *v when name is set in vs, else -1. */
int var_get(const struct vars *vs, const char *name, double *v);
/* var_get for expr.h's expr_lookup (ctx: a struct vars). */
int var_lookup(void *ctx, const char *name, double *v);
/* Expands {name} placeholders with the values of vs (vs->at: {gpu},
 * {size}, {dtype}) into out; -1 at an unknown one (runcheck.c said so at
 * its place). */
int expand_word(const struct ynode *w, const struct vars *vs, struct sb *out);

/* The time limit: TIME_LIMIT, else specific's (a task or config row), the
 * workload's train, the stage's; NULL when none says one. */
const char *time_limit_for(const struct wctx *w, const struct ynode *stage, const struct ynode *specific,
			   const struct sel *s);
/* Each name of v that c does not have yet (names only, never values). */
void add_secrets(struct pc_cmd *c, const struct ynode *v);
/* KEY=VALUE per entry of the map env, expanded. */
void add_env(struct wctx *w, struct pc_cmd *c, const struct ynode *env, const struct vars *vs);
/* Each entry of mounts, expanded. */
void add_mounts(struct wctx *w, struct pc_cmd *c, const struct ynode *mounts, const struct vars *vs);
/* Each word of cmd, expanded; a checkout file it names (of workload's
 * recipe directory or the checkout) with its content hash. */
void add_argv(struct wctx *w, struct pc_cmd *c, const char *workload, const struct ynode *cmd, const struct vars *vs);
/* 1 when a boolean knob's value v says true. */
int knob_true(const char *v);
/* The ref of the recipe's image key: a bisection's (LLMB_BISECT_IMAGE)
 * in place of the recipe's ref, so the image is a stage of its own and
 * only what runs in it runs again. */
const char *image_ref_for(const struct wctx *w, const char *key, const char *ref);

#endif
