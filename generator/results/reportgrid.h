/* reportgrid: the report model as strings for the text, Markdown and HTML
 * renderers (see reportgrid.c). */
#ifndef LLMB_REPORTGRID_H
#define LLMB_REPORTGRID_H

#include <jansson.h>

#include "base/util.h"
#include "results/reportmodel.h"

/* A table of strings; the first row is the heading. */
struct grid {
	size_t nr, nc;
	char **cell;            /* nr * nc, row-major; NULL is empty */
	int right;              /* align cells after the first column right */
};

/* The metrics table of model m: a column per scale, under each metric its
 * value, reference and difference rows. */
void grid_metrics(struct grid *g, const json_t *m);
/* Whether a column has a Megatron-Bridge published row beside it. */
int grid_any_published(const json_t *m);
/* One line per such column: the published figure, its source, and what
 * differs from the run's configuration when it is not compared. */
void grid_published(struct sb *o, const json_t *m, const char *bullet);
/* The runs (excluded: their reasons) of the model's "runs" or "excluded". */
void grid_runs(struct grid *g, const json_t *runs, int excluded);
void grid_free(struct grid *g);
/* One entry of the model's sweeps: each configuration's step time,
 * tokens/s/GPU and TFLOPS/GPU, the best marked. */
void grid_sweep(struct grid *g, const json_t *sw);

/* A column's heading: its scale, marked when profiled. */
char *grid_col_head(const json_t *k);
/* Metric i's value in cell (step time with +- std). */
char *grid_value_cell(int i, const json_t *cell);
/* The difference from the reference and its verdict, for column k. */
char *grid_diff_cell(const json_t *k, const json_t *cell);
/* "llmb report: <workload> <size> <dtype> on <gpu>" between pre and post
 * and a newline; HTML-escaped when pre is a tag. */
void grid_title(struct sb *o, const json_t *m, const char *pre, const char *post);

#endif
