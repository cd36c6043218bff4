/* reportgrid: the report model as strings, shared by the text, Markdown
 * and HTML renderers: how each cell reads (value +- std, reference,
 * difference and verdict, column heads), the title, and the metrics and
 * runs tables as grids of cells. One module so that the three formats word
 * a number the same way; each renderer only lays the cells out. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jget.h"
#include "results/reportgrid.h"

static void
grid_init(struct grid *g, size_t nc, int right)
{
	*g = (struct grid){0, nc, NULL, right};
}

static char **
grid_row(struct grid *g)
{
	g->cell = xrealloc(g->cell, (g->nr + 1) * g->nc * sizeof *g->cell);
	memset(g->cell + g->nr * g->nc, 0, g->nc * sizeof *g->cell);
	return g->cell + g->nr++ * g->nc;
}

void
grid_free(struct grid *g)
{
	for (size_t i = 0; i < g->nr * g->nc; i++)
		free(g->cell[i]);
	free(g->cell);
}

static char *
fmtnum(const char *fmt, double v)
{
	return isnan(v) ? xstrdup("-") : xasprintf(fmt, v);
}

char *
grid_col_head(const json_t *k)
{
	long s = (long)report_num(k, "scale");
	int prof = json_is_true(json_object_get(k, "profiled")), proxy = json_is_true(json_object_get(k, "proxy"));
	const char *ovr = json_string_value(json_object_get(k, "override"));
	if (ovr)
		return xasprintf("%ld (override %s%s)", s, ovr, prof ? ", profiled" : "");
	if (json_is_true(json_object_get(k, "unlisted")))
		return xasprintf("%ld (unlisted%s)", s, prof ? ", profiled" : "");
	return proxy ? xasprintf("%ld (proxy%s)", s, prof ? ", profiled" : "")
		     : prof ? xasprintf("%ld (profiled)", s) : xasprintf("%ld", s);
}

char *
grid_value_cell(int i, const json_t *cell)
{
	double v = report_num(cell, "value");
	if (i != RM_STEP || isnan(v) || isnan(report_num(cell, "std")))
		return fmtnum(report_metrics[i].fmt, v);
	return xasprintf("%.3f +- %.3f", v, report_num(cell, "std"));
}

char *
grid_diff_cell(const json_t *k, const json_t *cell)
{
	const char *vd = jget_str(cell, "verdict");
	if (json_object_get(k, "override"))
		return xstrdup("override: not compared");
	if (json_is_true(json_object_get(k, "proxy")))
		return xstrdup("proxy: not compared");
	if (json_is_true(json_object_get(k, "unlisted")))
		return xstrdup("unlisted: not compared");
	if (json_is_true(json_object_get(k, "profiled")))
		return xstrdup("not compared");
	if (!*vd)
		return xstrdup("-");
	return xasprintf("%+.1f%% %s", report_num(cell, "diff_pct"), !strcmp(vd, "within tolerance") ? "within" : vd);
}

/* Row kinds under each metric: value, reference, difference. */
enum { R_VALUE, R_REF, R_DIFF, R_N };

static char *
metric_cell(int i, int kind, const json_t *k)
{
	const json_t *cell = json_object_get(json_object_get(k, "metrics"), report_metrics[i].key);
	if (kind == R_VALUE)
		return grid_value_cell(i, cell);
	if (kind == R_REF)
		return fmtnum("%.6g", report_num(cell, "reference"));
	return grid_diff_cell(k, cell);
}

static int
any_repeats(const json_t *cols)
{
	size_t i;
	json_t *k;
	json_array_foreach(cols, i, k)
		if (report_num(k, "runs") > 1)
			return 1;
	return 0;
}

static void
spread_row(struct grid *g, const json_t *cols)
{
	char **r = grid_row(g);
	size_t i;
	json_t *k;
	r[0] = xstrdup("  runs' means");
	json_array_foreach(cols, i, k) {
		const json_t *c = json_object_get(json_object_get(k, "metrics"), "step_time");
		r[i + 1] = report_num(k, "runs") > 1 ? xasprintf("%.3f..%.3f", report_num(c, "min"), report_num(c, "max"))
			: xstrdup("-");
	}
}

int
grid_any_published(const json_t *m)
{
	size_t j;
	json_t *k;
	json_array_foreach(json_object_get(m, "columns"), j, k)
		if (json_object_get(k, "published"))
			return 1;
	return 0;
}

void
grid_published(struct sb *o, const json_t *m, const char *bullet)
{
	size_t j;
	json_t *k;
	json_array_foreach(json_object_get(m, "columns"), j, k) {
		const json_t *p = json_object_get(k, "published");
		if (!p)
			continue;
		int match = json_is_true(json_object_get(p, "match"));
		sb_addf(o, "%s%lld GPUs: %s, %.0f tokens/s/GPU, %.0f TFLOPS/GPU (%s at %lld GPUs); %s", bullet,
			(long long)report_num(k, "scale"), match ? "published for this configuration" : jget_str(p, "label"),
			report_num(p, "tokens_per_s_per_gpu"), report_num(p, "tflops_per_gpu"), jget_str(p, "precision"),
			(long long)report_num(p, "scale"), jget_str(p, "source"));
		if (!match)
			sb_addf(o, "; differs: %s; not compared", jget_str(p, "differs"));
		sb_add(o, "\n");
	}
}

void
grid_metrics(struct grid *g, const json_t *m)
{
	static const char *const sub[R_N] = {NULL, "  reference", "  difference"};
	const json_t *cols = json_object_get(m, "columns");
	size_t j;
	json_t *k;
	grid_init(g, json_array_size(cols) + 1, 1);
	char **r = grid_row(g);
	r[0] = xstrdup("GPUs");
	json_array_foreach(cols, j, k)
		r[j + 1] = grid_col_head(k);
	r = grid_row(g);
	r[0] = xstrdup("runs");
	json_array_foreach(cols, j, k)
		r[j + 1] = xasprintf("%lld", (long long)report_num(k, "runs"));
	if (grid_any_published(m)) {
		r = grid_row(g);
		r[0] = xstrdup("reference");
		json_array_foreach(cols, j, k) {
			const json_t *p = json_object_get(k, "published");
			r[j + 1] = xstrdup(!p ? jget_str(k, "comparison") : json_is_true(json_object_get(p, "match")) ?
					   "published" : jget_str(p, "label"));
		}
	}
	for (int i = 0; i < RM_N; i++) {
		for (int kind = 0; kind < R_N; kind++) {
			r = grid_row(g);
			r[0] = xstrdup(sub[kind] ? sub[kind] : report_metrics[i].label);
			json_array_foreach(cols, j, k)
				r[j + 1] = metric_cell(i, kind, k);
		}
		if (i == RM_STEP && any_repeats(cols))
			spread_row(g, cols);
	}
}

static char *
jstr_or_dash(const json_t *o, const char *key)
{
	const char *s = jget_str(o, key);
	return xstrdup(*s ? s : "-");
}

/* Runs (excluded: reasons) as rows: GPUs, run, status, job, image, config, note/reason, log. */
void
grid_runs(struct grid *g, const json_t *runs, int excluded)
{
	static const char *const head[] = {"GPUs", "run", "status", "job", "image", "config", NULL, "log"};
	size_t i;
	json_t *r;
	grid_init(g, 8, 0);
	char **h = grid_row(g);
	for (int c = 0; c < 8; c++)
		h[c] = xstrdup(head[c] ? head[c] : excluded ? "reason" : "note");
	json_array_foreach(runs, i, r) {
		char **row = grid_row(g);
		char cfg[13];
		snprintf(cfg, sizeof cfg, "%s", *jget_str(r, "config_hash") ? jget_str(r, "config_hash") : "-");
		row[0] = xasprintf("%lld%s", (long long)report_num(r, "scale"),
				   json_is_true(json_object_get(r, "proxy")) ? " (proxy)"
				   : json_is_true(json_object_get(r, "unlisted")) ? " (unlisted)" : "");
		row[1] = xstrdup(jget_str(r, "name"));
		row[2] = jstr_or_dash(r, "status");
		row[3] = jstr_or_dash(r, "job");
		row[4] = jstr_or_dash(r, "image");
		row[5] = xstrdup(cfg);
		row[6] = jstr_or_dash(r, excluded ? "reason" : "note");
		row[7] = jstr_or_dash(r, "log");
	}
}

void
grid_sweep(struct grid *g, const json_t *sw)
{
	static const char *const head[] = {"configuration", "step time (s)", "tokens/s/GPU", "TFLOPS/GPU", ""};
	size_t i;
	json_t *r;
	const char *best = json_string_value(json_object_get(sw, "best"));
	grid_init(g, 5, 0);
	char **h = grid_row(g);
	for (int c = 0; c < 5; c++)
		h[c] = xstrdup(head[c]);
	json_array_foreach(json_object_get(sw, "rows"), i, r) {
		char **row = grid_row(g);
		row[0] = xstrdup(jget_str(r, "config"));
		row[1] = fmtnum("%.3f", report_num(r, "step_time"));
		row[2] = fmtnum("%.1f", report_num(r, "tokens_per_s_per_gpu"));
		row[3] = fmtnum("%.1f", report_num(r, "tflops_per_gpu"));
		row[4] = xstrdup(best && !strcmp(best, jget_str(r, "config")) ? "best" : "");
	}
}

void
grid_title(struct sb *o, const json_t *m, const char *pre, const char *post)
{
	struct sb t = {0};
	sb_addf(&t, "llmb report: %s %s %s on %s", jget_str(m, "workload"), jget_str(m, "size"),
		jget_str(m, "dtype"), jget_str(m, "gpu"));
	sb_add(o, pre);
	if (*pre == '<')
		sb_add_html(o, t.buf);
	else
		sb_add(o, t.buf);
	sb_addf(o, "%s\n", post);
	sb_free(&t);
}
