/* reference: published performance rows against recomputed metrics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/util.h"
#include "plan/reference.h"
#include "plan/runcheck.h"
#include "recipe/flops.h"
#include "recipe/metrics.h"
#include "recipe/published.h"
#include "recipe/recipe.h"
#include "store/layout.h"

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
			v[rs.n++] = (struct plan_run){c, gpu, size, dtype, scale, NULL, 0};
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

/* ---- Megatron-Bridge's published rows ----------------------------------- */

/* One published row: TFLOPS/GPU from its tokens/s/GPU by llmb's FLOPs count
 * (seq and TP of the row bound), MFU against the dtype's peak, the step
 * time it implies, and whether a recipe row runs its configuration. */
static void
check_published(const struct recipes *r, const struct ydoc *t, const struct ynode *w, const struct ynode *row,
		const char *current, FILE *out, struct tally *t_, int *matched)
{
	const char *gpu = ystr(row, "gpu", ""), *size = ystr(row, "size", ""), *dtype = ystr(row, "dtype", "");
	long scale = yint(row, "scale", 0);
	double seq = (double)yint(row, "seq", 0), tp = (double)yint(row, "tp", 1), gbs = (double)yint(row, "gbs", 0);
	double tok = strtod(ystr(row, "tokens_per_s_per_gpu", "0"), NULL);
	const char *names[] = {"seq", "tp"};
	double vals[] = {seq, tp};
	struct params p = {2, names, vals};
	struct flops f;
	const struct ynode *g = gpu_find(r, gpu);
	const struct ynode *pk = g ? ymap_get(ymap_get(g, "peak_tflops"), dtype) : NULL;
	int current_row = !strcmp(ystr(row, "release", ""), current);
	struct sb line = {0}, why = {0};
	sb_addf(&line, "%-8s%s %-5s %-4s %-5s %5ld %-5s gbs %ld mbs %ld tp %ld pp %ld cp %ld vp %ld ep %ld",
		ystr(row, "release", ""), current_row ? "*" : " ", gpu, size, dtype, scale, ystr(row, "precision", ""),
		yint(row, "gbs", 0), yint(row, "mbs", 0), (long)tp, yint(row, "pp", 1), yint(row, "cp", 1),
		yint(row, "vp", 0), yint(row, "ep", 1));
	if (!g || !(seq > 0) || !(tok > 0) || flops_eval(NULL, w, size, &p, &f)) {
		fprintf(out, "%s  error: %s\n", line.buf, !g ? "GPU type not in gpus.yaml" : "no FLOPs count for the row");
		t_->errors++;
		sb_free(&line);
		return;
	}
	double calc = tok * f.total / seq / 1e12;
	sb_addf(&line, "  tokens/s/GPU %s", ystr(row, "tokens_per_s_per_gpu", ""));
	int bad = compare(&line, row, "tflops_per_gpu", "TFLOPS/GPU", calc, 2);
	double tfl = strtod(ystr(row, "tflops_per_gpu", "0"), NULL), peak = pk ? strtod(pk->str, NULL) : 0;
	if (peak > 0) {
		double mfu = 100 * tfl / peak;
		sb_addf(&line, "  MFU%% %.1f%s", mfu, mfu > 100 ? ">100" : "");
		bad |= mfu > 100;
	}
	sb_addf(&line, "  step %.3f", gbs * seq / (tok * (double)scale));
	int n = published_differs(row, w, gpu, size, dtype, scale, yint(g, "gpus_per_node", 8), &why);
	sb_addf(&line, "  recipe %s", n == 0 ? "matches" : n < 0 ? "none" : "differs");
	if (n == 0 && current_row)
		(*matched)++;
	const char *note = bad ? published_note(t, row) : NULL;
	fprintf(out, "%s  %s\n", line.buf, !bad ? "ok" : note ? "known" : "DIFF");
	if (n > 0)
		fprintf(out, "      recipe differs: %s\n", why.buf);
	if (note)
		fprintf(out, "      note: %s\n", note);
	if (!bad)
		t_->ok++;
	else if (note)
		t_->known++;
	else
		t_->diff++;
	sb_free(&line);
	sb_free(&why);
}

/* Every pre-training row of the workload, every release; the release its
 * image runs is the current reference (*), the others history. */
static int
published_rows(const struct recipes *r, const char *top, const struct ynode *w, const char *workload, FILE *out,
	       struct tally *t_)
{
	int bad;
	struct ydoc *t = published_load(top, &bad);
	if (!t)
		return bad ? -1 : 0;
	char cur[64] = "";
	published_release(w, cur, sizeof cur);
	const struct ynode *rows = ymap_get(t->root, "published");
	size_t n = 0, ncur = 0;
	int matched = 0;
	for (size_t i = 0; rows && i < rows->nkids; i++)
		if (!strcmp(ystr(rows->kids[i], "workload", ""), workload)) {
			n++;
			ncur += !strcmp(ystr(rows->kids[i], "release", ""), cur);
		}
	if (n) {
		fprintf(out, "%s: %zu published rows (%s, Megatron-Bridge %.12s); current release %s (the image's, *): "
			"%zu rows; TFLOPS/GPU from tokens/s/GPU within %.1f%%, MFU at most 100%%\n", workload, n,
			PUBLISHED_FILE, ystr(t->root, "commit", ""), *cur ? cur : "none", ncur, REF_TFLOPS_TOL_REL * 100);
		for (size_t i = 0; rows && i < rows->nkids; i++)
			if (!strcmp(ystr(rows->kids[i], "workload", ""), workload))
				check_published(r, t, w, rows->kids[i], cur, out, t_, &matched);
		fprintf(out, "%s: %d of the %zu current published rows match a recipe row\n", workload, matched, ncur);
	} else if (!strcmp(ystr(w, "framework", ""), "megatron_bridge"))
		fprintf(out, "%s: no published rows (%s, Megatron-Bridge %.12s): Megatron-Bridge publishes none of this model\n",
			workload, PUBLISHED_FILE, ystr(t->root, "commit", ""));
	ydoc_free(t);
	return 0;
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
		fprintf(stderr, "%s: no workload '%s' in %s/" LAYOUT_WORKLOADS "\n", progname, workload, top);
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
	if (published_rows(&r, top, w, workload, out, &t))
		t.errors++;
	fprintf(out, "%s: %d ok, %d known, %d differ, %d errors\n", workload, t.ok, t.known, t.diff, t.errors);
	recipes_free(&r);
	return t.errors ? 2 : t.diff ? 1 : 0;
}
