/* selenv: the selection from the caller's environment. The GNUmakefile
 * exports the make variables that select runs (WORKLOAD, SIZE, ...) and
 * make nightly and make exemplar add theirs (LLMB_NIGHT, LLMB_EXEMPLAR,
 * ...); a command that plans reads them here, once, into the struct sel
 * the planner takes. Below this layer nothing reads the environment. */
#ifndef LLMB_SELENV_H
#define LLMB_SELENV_H

#include "plan/plandata.h"

/* Fills s from the environment: unset and empty variables are NULL.
 * Returns -1 after saying what is wrong with a bisection's pins or images
 * (LLMB_BISECT_PIN, LLMB_BISECT_IMAGE; then none is set), else 0. */
int sel_from_env(struct sel *s);
/* No selection (every run, no knob set): only the caller's environment,
 * which the trainings record (llmb check, the exemplar suites' check,
 * llmb record --import). */
void sel_all(struct sel *s);

#endif
