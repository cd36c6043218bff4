/* selection: what the selection (plandata.h's struct sel) asks of the
 * recipes. The runs of a workload it names, each value refused with the
 * valid ones listed when no config row offers it; the run knobs checked,
 * first on their own (syntax, exclusions), then against what the
 * workload's recipe supports; and make nightly's matrix entries and make
 * exemplar's suite entries as selections of their own. Every error is said and counted (diag.h). */
#ifndef LLMB_SELECTION_H
#define LLMB_SELECTION_H

#include <stddef.h>

#include "plan/exsuite.h"
#include "plan/nightmatrix.h"
#include "plan/planbuild.h"

/* Appends to w->runs the runs of w's workload that s selects (every run
 * when all); -1 after saying why the selection is wrong for it. */
int select_runs(struct wctx *w, const struct sel *s, int all);
/* w's runs, one per combination of the overrides (w->p->ovr) that suits
 * it; a combination that does not is named and skipped (a sweep), or
 * refused (one combination); -1 after saying why none is left. */
int select_overrides(struct wctx *w);
/* The runs of w that the matrix entries alts select, each once; -1 as
 * select_runs. */
int select_matrix_runs(struct wctx *w, const struct sel *alts, size_t nalts);
/* The knobs' values on their own (spellings, numbers, TIME_LIMIT,
 * ADDITIONAL_SLURM_PARAMS, exclusions); returns the number of errors. */
int check_knobs(const struct sel *s);
/* The knobs against what w's recipe supports; -1 when the workload's
 * runs must not be planned. */
int check_wl_knobs(struct wctx *w);
/* make nightly: NIGHT checked, and the matrix entries of LLMB_NIGHTLY that
 * s narrows as *alts (m->n of them, m loaded); 0, or non-zero after
 * saying what is wrong. */
int nightly_sels(struct plan *p, const char *top, const struct sel *s, struct sel **alts, struct nmatrix *m);
/* make exemplar: the suite file LLMB_EXEMPLAR loaded for GPU_TYPE into x,
 * each entry checked against the recipes, narrowed by s as *alts (x->m.n
 * of them); 0, or non-zero after saying what is wrong. */
int exemplar_sels(struct plan *p, const char *top, const struct sel *s, struct sel **alts, struct exsuite *x);

#endif
