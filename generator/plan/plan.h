/* plan: from recipes and a selection (the make variables WORKLOAD, SIZE,
 * DTYPE, GPU_TYPE, SCALES and the run knobs) to the graph of stage
 * instances, each with its effective configuration and that text's hash.
 * gen.c writes the graph as make rules; stagerun.c reads one instance's
 * configuration back; explain and status walk the graph.
 *
 * plan.c is the top of the planner: it orders each pipeline's stages,
 * has the workload's runs selected and checked, calls the stage builders,
 * then links and hashes the instances. Under it: selection.c (which runs
 * the selection names; the knobs' checks), setupstages.c (image, venv and
 * data instances), runstages.c (train, parse and report instances of each
 * run), planbuild.c (the builders' shared kit) and plandata.c (the plan's
 * types, which this header brings to the plan's readers). */
#ifndef LLMB_PLAN_H
#define LLMB_PLAN_H

#include "plan/plandata.h"

/* Builds the plan of everything selected. Prints every error; returns
 * 0 or the number of errors. check_all ignores the selection. */
int plan_build(struct plan *p, const char *top, const struct sel *s, int check_all);
void plan_free(struct plan *p);

#endif
