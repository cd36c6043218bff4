/* reference: published performance rows against recomputed metrics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "flops.h"
#include "metrics.h"
#include "recipe.h"
#include "reference.h"
#include "runcheck.h"
#include "util.h"

struct tally {
	int ok, known, diff, errors;
};

/* Digits after the decimal point of a number as written. */
static int
decimals(const char *s)
{
	const char *dot = strchr(s, '.');
	return dot ? (int)strspn(dot + 1, "0123456789") : 0;
}

/* Appends "name pub=calc" (or pub!=calc) for a published field; returns 1
 * when it differs. */
static int
compare(struct sb *line, const struct ynode *row, const char *key, const char *label,
	double calc, int mode)
{
	const char *s = ystr(row, key, NULL);
	if (!s)
		return 0;
	double pub = strtod(s, NULL);
	int d = decimals(s), bad;
	if (isnan(calc))
		bad = 1;
	else if (mode == 0)         /* as printed: the rounding of calc */
		bad = fabs(calc - pub) > 0.5 * pow(10, -d) + 1e-9 * fabs(pub);
	else if (mode == 1)         /* MFU, percentage points */
		bad = fabs(calc - pub) > REF_MFU_TOL_PP + 1e-9;
	else                        /* TFLOPS, relative */
		bad = fabs(calc - pub) > REF_TFLOPS_TOL_REL * pub;
	sb_addf(line, "  %s %s%s%.*f", label, s, bad ? "!=" : "=", d + 2, calc);
	return bad;
}

/* Everything a row needs from the recipes; -1 when something is missing
 * (said here or by check_inputs). */
static int
row_inputs(const struct recipes *r, const char *file, const struct ynode *w, const struct ynode *row,
	   double *seq, double *gbs, double *peak, struct flops *f)
{
	const char *gpu = ystr(row, "gpu", ""), *size = ystr(row, "size", ""), *dtype = ystr(row, "dtype", "");
	long scale = yint(row, "scale", 0);
	const struct ynode *g = gpu_find(r, gpu);
	const struct ynode *c = workload_config(w, gpu, size, dtype, scale);
	struct params p;
	int rc = -1;
	if (!g) {
		diag_error(file, row->line, row->col, "GPU type '%s' is not in gpus.yaml", gpu);
		return -1;
	}
	if (!c) {
		diag_error(file, row->line, row->col, "no config row for %s %s %s at %ld GPUs", gpu, size, dtype, scale);
		return -1;
	}
	const struct ynode *pk = ymap_get(ymap_get(g, "peak_tflops"), dtype);
	*peak = pk ? strtod(pk->str, NULL) : 0;
	if (!config_params(NULL, c, scale, yint(g, "gpus_per_node", 0), &p) && !params_get(&p, "seq", seq) &&
	    !params_get(&p, "gbs", gbs) && !flops_eval(NULL, w, size, &p, f))
		rc = 0;
	params_free(&p);
	return rc;
}

/* The params and flops formula of the config rows the reference rows use,
 * checked once each, in source order, before the rows are evaluated. */
static void
check_inputs(const struct recipes *r, const char *file, const struct ynode *w, const struct ynode *refs)
{
	size_t n = refs ? refs->nkids : 0;
	struct plan_run *v = xcalloc(n + 1, sizeof *v);
	struct runset rs = {.v = v, .params = 1};
	for (size_t i = 0; i < n; i++) {
		const struct ynode *row = refs->kids[i];
		const char *gpu = ystr(row, "gpu", ""), *size = ystr(row, "size", ""), *dtype = ystr(row, "dtype", "");
		long scale = yint(row, "scale", 0);
		const struct ynode *c = workload_config(w, gpu, size, dtype, scale);
		if (c && gpu_find(r, gpu))
			v[rs.n++] = (struct plan_run){c, gpu, size, dtype, scale, NULL};
	}
	recipe_check_exprs(r, file, w, &rs);
	const struct ynode *configs = ymap_get(w, "configs");
	for (size_t i = 0; configs && i < configs->nkids; i++) {
		const struct ynode *c = configs->kids[i], *ps = ymap_get(c, "params");
		size_t k = 0;
		while (k < rs.n && v[k].row != c)
			k++;
		if (k < rs.n && (!ymap_get(ps, "seq") || !ymap_get(ps, "gbs")))
			diag_error(file, c->line, c->col, "config row has no params seq and gbs");
	}
	free(v);
}

static void
check_row(const struct recipes *r, const char *file, const struct ynode *w, const struct ynode *row,
	  FILE *out, struct tally *t)
{
	double seq, gbs, peak, st = strtod(ystr(row, "step_time", "0"), NULL);
	long scale = yint(row, "scale", 0);
	struct flops f;
	if (row_inputs(r, file, w, row, &seq, &gbs, &peak, &f)) {
		t->errors++;
		return;
	}
	if (!(st > 0)) {
		diag_error(file, row->line, row->col, "reference row has no step_time");
		t->errors++;
		return;
	}
	struct metrics m;
	metrics_compute(&m, seq, gbs, st, (double)scale, f.total, peak, METRICS_TOKENS_DEFAULT);
	struct sb line = {0};
	sb_addf(&line, "%-5s %-4s %-4s %5ld  step %s", ystr(row, "gpu", ""), ystr(row, "size", ""),
		ystr(row, "dtype", ""), scale, ystr(row, "step_time", ""));
	int bad = compare(&line, row, "tokens_per_s", "tokens/s", m.tokens_per_s, 0);
	bad |= compare(&line, row, "days_1t", "days", m.days, 0);
	bad |= compare(&line, row, "mfu_pct", "MFU%", m.mfu_pct, 1);
	bad |= compare(&line, row, "tflops_per_gpu", "TFLOPS/GPU", m.tflops_per_gpu, 2);
	const char *note = ystr(row, "note", NULL);
	const char *status = !bad ? "ok" : note ? "known" : "DIFF";
	fprintf(out, "%s  %s\n", line.buf, status);
	if (note)
		fprintf(out, "      note: %s\n", note);
	if (!bad)
		t->ok++;
	else if (note)
		t->known++;
	else
		t->diff++;
	sb_free(&line);
}

int
reference_check(const char *top, const char *workload, FILE *out)
{
	struct recipes r;
	struct ydoc *doc;
	struct tally t = {0, 0, 0, 0};
	if (recipes_load(&r, top)) {
		recipes_free(&r);
		return 2;
	}
	const struct ynode *w = workload_find(&r, workload, &doc);
	if (!w) {
		fprintf(stderr, "%s: no workload '%s' in %s/workloads\n", progname, workload, top);
		recipes_free(&r);
		return 2;
	}
	const struct ynode *refs = ymap_get(w, "reference");
	size_t n = refs ? refs->nkids : 0;
	fprintf(out, "%s: %zu reference rows (tokens/s and days as printed, MFU within %.1f pp, TFLOPS/GPU within %.1f%%)\n",
		workload, n, REF_MFU_TOL_PP, REF_TFLOPS_TOL_REL * 100);
	check_inputs(&r, doc->file, w, refs);
	for (size_t i = 0; i < n; i++)
		check_row(&r, doc->file, w, refs->kids[i], out, &t);
	fprintf(out, "%s: %d ok, %d known, %d differ, %d errors\n", workload, t.ok, t.known, t.diff, t.errors);
	recipes_free(&r);
	return t.errors ? 2 : t.diff ? 1 : 0;
}
