/* planbuild: the kit the plan's builders share (selection.c, setupstages.c,
 * runstages.c, and plan.c above them): the working context of one workload
 * (struct wctx), the values a run binds and the {placeholder} expansion
 * that uses them, and the configuration lines every instance writes (argv,
 * environment, mounts, secrets, the checkout files a command names). */
#ifndef LLMB_PLANBUILD_H
#define LLMB_PLANBUILD_H

#include <stddef.h>

#include "plandata.h"
#include "runcheck.h"

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

/* Values known for one run: coordinates, model dimensions, parameters. */
#define MAXVARS 96
struct vars {
	const char *name[MAXVARS];
	double val[MAXVARS];
	int n;
};

/* 1 when w is a word of list (words separated by spaces, tabs or commas),
 * or list is NULL (nothing selected: everything). */
int in_words(const char *list, const char *w);
/* v as the configuration writes numbers: whole ones without a fraction. */
void fmt_num(char *buf, size_t len, double v);
/* Sets name to v (the name is borrowed); beyond MAXVARS names, nothing. */
void var_set(struct vars *vs, const char *name, double v);
/* 0 and *v when name is set in ctx (a struct vars), else -1: expr.h's
 * expr_lookup. */
int var_lookup(void *ctx, const char *name, double *v);
/* The run whose {gpu}, {size}, {dtype} expand_word fills in; NULL: none. */
void expand_coords(const char *gpu, const char *size, const char *dtype);
/* Expands {name} placeholders with run values into out; -1 at an unknown
 * one (runcheck.c said so at its place). */
int expand_word(const struct ynode *w, struct vars *vs, struct sb *out);

/* Appends the configuration line key=val to in. */
void cfg_line(struct inst *in, const char *key, const char *val);
/* The time limit: TIME_LIMIT, else specific's (a task or config row), the
 * workload's train, the stage's; NULL when none says one. */
const char *time_limit_for(const struct wctx *w, const struct ynode *stage, const struct ynode *specific,
			   const struct sel *s);
/* A secret= line per name of v not yet written (names only, never values). */
void add_secrets(struct inst *in, const struct ynode *v);
/* An env=KEY=VALUE line per entry of the map env, expanded. */
void add_env(struct wctx *w, struct inst *in, const struct ynode *env, struct vars *vs);
/* A mount= line per entry of mounts, expanded. */
void add_mounts(struct wctx *w, struct inst *in, const struct ynode *mounts, struct vars *vs);
/* An arg= line per word of cmd, expanded; a checkout file it names adds a
 * file= line with its content hash. */
void add_argv(struct wctx *w, struct inst *in, const struct ynode *cmd, struct vars *vs);
/* 1 when a boolean knob's value v says true. */
int knob_true(const char *v);

#endif
