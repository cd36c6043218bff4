/* recipecheck: the numbers and names of loaded recipes held to the rules the
 * command line is held to, each refusal at its file:line:col: counts of
 * at least one (steps, gpus_per_node, stages, scales, configs), windows
 * inside the run, sizes and tolerances not negative, templates that exist,
 * image file names that make and shells read as themselves. The schema
 * checks shapes; this checks what the values mean together. */
#ifndef LLMB_RECIPECHECK_H
#define LLMB_RECIPECHECK_H

#include "recipe/recipe.h"

/* Reports every problem through diag.h; returns the number of errors. */
int recipes_check_values(const struct recipes *r);

/* The workload's default_gpu when a config row offers it, else NULL. */
const char *recipe_default_gpu(const struct ynode *wl);

/* Upstream image file stem of an image reference ("<parent>+<name>+<tag>"). */
char *image_stem(const char *ref);

/* A run parameter's value is a finite number >= 0 (and >= 1 for the
 * batch sizes and sequence length); 0 or -1 after an error at node v
 * (said only when file is not NULL). */
int param_value_ok(const char *file, const struct ynode *key, const struct ynode *v, double val, long scale);

#endif
