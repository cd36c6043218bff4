/* report: the seeds' performance table, measured. For one (workload, GPU
 * type, size, dtype) there is one column per scale (GPU count) and one row
 * per metric: step time (mean +- std), tokens/s, tokens/s/GPU, TFLOPS/GPU,
 * MFU and days to train 1T tokens, each beside the published reference, the
 * difference in percent and a verdict (within tolerance, faster, slower).
 *
 * Runs. Each EXPERIMENTS-DIR holds run directories <gpu>_<size>_<dtype>_<scale>
 * with result.json (llmb parse --result) and train.done (job, log, cfg,
 * image, executor, note). Repeats of one configuration live beside it as
 * <run>/repeat-<anything>/ with their own result.json and train.done, or in
 * further EXPERIMENTS-DIRs given on the command line: every run of the same
 * scale is one column, aggregated as the mean of the runs' means with the
 * sample std of those means (one run: its own window std) and their min and
 * max. Profiled runs get their own column, marked, never compared. Runs that
 * did not succeed (or were never parsed) are listed as excluded with why.
 *
 * The model is built once as JSON (the --format=json output) and every other
 * format is rendered from it: text, Markdown, CSV (one line per scale and
 * metric) and one self-contained HTML page (inline CSS and SVG charts). With
 * --out=FILE.json the report stage writes all five: FILE.json itself and
 * FILE.json.txt, .md, .csv, .html beside it. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flops.h"
#include "layout.h"
#include "metrics.h"
#include "provhtml.h"
#include "stagecfg.h"
#include "recipe.h"
#include "report.h"
#include "util.h"

#define REPORT_SCHEMA 1

/* ---- the model ---------------------------------------------------------- */

struct run {
	char *name;             /* relative to its experiments dir */
	long scale;
	json_t *res;            /* result.json, or NULL */
	char *done;             /* train.done, or NULL */
	json_t *prov;           /* provenance.json, or NULL */
};

struct runs {
	struct run *v;
	size_t n;
};

struct ctx {
	struct recipes rec;
	const struct ynode *wl, *gpu;
	const char *w, *g, *size, *dtype;
	double tol, peak;
};

/* The metric rows, in the seeds' order. lower: a lower value is faster. */
enum { M_STEP, M_TOK, M_TOKGPU, M_TFLOPS, M_MFU, M_DAYS, M_N };
static const struct metric {
	const char *key, *label, *fmt;
	int lower;
} metrics_tab[M_N] = {
	{"step_time", "step time (s)", "%.3f", 1},
	{"tokens_per_s", "tokens/s", "%.0f", 0},
	{"tokens_per_s_per_gpu", "tokens/s/GPU", "%.1f", 0},
	{"tflops_per_gpu", "TFLOPS/GPU", "%.1f", 0},
	{"mfu_pct", "MFU (%)", "%.2f", 0},
	{"days_1t", "days to train 1T tokens", "%.2f", 1},
};

static json_t *
jnum(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static double
num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *
str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static const char *
res_status(const struct run *r)
{
	return r->res ? str(r->res, "status") : "";
}

static int
is_profiled(const struct run *r)
{
	return !strcmp(res_status(r), "profiled");
}

/* ---- finding runs ------------------------------------------------------- */

static void
add_run(struct runs *rs, const char *dir, const char *name, long scale)
{
	char *rp = xasprintf("%s/%s/result.json", dir, name);
	char *dp = xasprintf("%s/%s/" LAYOUT_TRAIN_DONE, dir, name);
	json_t *res = json_load_file(rp, JSON_REJECT_DUPLICATES, NULL);
	char *done = read_file(dp, NULL);
	if (res || done) {
		char *pp = xasprintf("%s/%s/provenance.json", dir, name);
		rs->v = xrealloc(rs->v, (rs->n + 1) * sizeof *rs->v);
		rs->v[rs->n++] = (struct run){xstrdup(name), scale, res, done, json_load_file(pp, 0, NULL)};
		free(pp);
	}
	free(rp);
	free(dp);
}

/* <run>/repeat-* directories: further runs of the same configuration. */
static void
add_repeats(struct runs *rs, const char *dir, const char *name, long scale)
{
	char *sub = xasprintf("%s/%s", dir, name);
	DIR *d = opendir(sub);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strncmp(e->d_name, "repeat-", 7))
			continue;
		char *rn = xasprintf("%s/%s", name, e->d_name);
		add_run(rs, dir, rn, scale);
		free(rn);
	}
	if (d)
		closedir(d);
	free(sub);
}

static void
scan_dir(struct runs *rs, const char *dir, const char *prefix)
{
	size_t pl = strlen(prefix);
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		char *end;
		if (strncmp(e->d_name, prefix, pl))
			continue;
		long scale = strtol(e->d_name + pl, &end, 10);
		if (end == e->d_name + pl || *end || scale <= 0)
			continue;
		add_run(rs, dir, e->d_name, scale);
		add_repeats(rs, dir, e->d_name, scale);
	}
	if (d)
		closedir(d);
}

/* By scale, then profiled after measured, then name. */
static int
cmp_run(const void *a, const void *b)
{
	const struct run *x = a, *y = b;
	if (x->scale != y->scale)
		return x->scale < y->scale ? -1 : 1;
	if (is_profiled(x) != is_profiled(y))
		return is_profiled(x) - is_profiled(y);
	return strcmp(x->name, y->name);
}

static void
runs_free(struct runs *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i].name);
		json_decref(rs->v[i].res);
		json_decref(rs->v[i].prov);
		free(rs->v[i].done);
	}
	free(rs->v);
}

/* ---- runs, included and excluded ---------------------------------------- */

/* NULL when the run is included, else the reason it is not. */
static const char *
exclusion(const struct run *r, char *buf, size_t len)
{
	const char *st = res_status(r);
	json_t *fe = r->res ? json_object_get(r->res, "first_error") : NULL;
	if (!r->res)
		return "no result.json: the run was not parsed";
	if (strcmp(st, "success") && strcmp(st, "profiled")) {
		if (*str(r->res, "reason"))
			snprintf(buf, len, "%s: %s", st, str(r->res, "reason"));
		else if (fe && json_is_number(json_object_get(fe, "line")))
			snprintf(buf, len, "%s: line %lld: %s", st, (long long)json_integer_value(json_object_get(fe, "line")),
				 str(fe, "text"));
		else if (fe)
			snprintf(buf, len, "%s: %s", st, str(fe, "text"));
		else if (json_is_integer(json_object_get(r->res, "last_iteration")))
			snprintf(buf, len, "%s: last iteration %lld of %lld", st,
				 (long long)json_integer_value(json_object_get(r->res, "last_iteration")),
				 (long long)json_integer_value(json_object_get(r->res, "final_iteration")));
		else
			snprintf(buf, len, "%s: no training step in the log", st);
		return buf;
	}
	if (isnan(num(json_object_get(r->res, "step_time"), "mean")))
		return "no step time in the measurement window";
	return NULL;
}

/* The run's record: train.done fields, the note, its status. */
static json_t *
run_record(const struct run *r)
{
	static const char *const keys[][2] = {
		{"job", "job"}, {"log", "log"}, {"image", "image"}, {"cfg", "config_hash"}, {"executor", "executor"},
	};
	json_t *o = json_pack("{s:s,s:I,s:s}", "name", r->name, "scale", (json_int_t)r->scale,
			      "status", r->res ? res_status(r) : "not parsed");
	char b[4096];
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		json_object_set_new(o, keys[i][1], r->done && cfg_get(r->done, keys[i][0], b, sizeof b) ?
				    json_string(b) : json_null());
	if (r->done && cfg_get(r->done, "note", b, sizeof b))
		json_object_set_new(o, "note", json_string(b));
	else if (r->res && !strcmp(str(r->res, "note"), "time_limit"))
		json_object_set_new(o, "note", json_string("the time limit was reached after the measured steps"));
	else if (r->res && json_integer_value(json_object_get(r->res, "restarts")) > 0)
		json_object_set_new(o, "note", json_string("the job restarted: measured on its last attempt only"));
	else
		json_object_set_new(o, "note", json_null());
	if (r->prov)
		json_object_set_new(o, "provenance", json_incref(r->prov));
	return o;
}

static json_t *
run_samples(const struct run *r)
{
	json_t *a = json_array(), *s = json_object_get(r->res, "samples");
	size_t i;
	json_t *v;
	json_array_foreach(s, i, v) {
		double t = num(v, "step_time");
		if (!isnan(t))
			json_array_append_new(a, json_pack("[I,f]", (json_int_t)json_integer_value(
				json_object_get(v, "iteration")), t));
	}
	return a;
}

static json_t *
included_run(const struct run *r)
{
	json_t *o = run_record(r), *st = json_object_get(r->res, "step_time");
	json_object_set_new(o, "profiled", json_boolean(is_profiled(r)));
	json_object_set_new(o, "step_time_mean", jnum(num(st, "mean")));
	json_object_set_new(o, "step_time_std", jnum(num(st, "std")));
	json_object_set_new(o, "window_steps", json_integer((json_int_t)num(st, "n")));
	json_object_set_new(o, "samples", run_samples(r));
	return o;
}

static json_t *
excluded_run(const struct run *r, const char *why)
{
	json_t *o = run_record(r);
	json_object_set_new(o, "reason", json_string(why));
	return o;
}

/* ---- columns: one per scale (and profiled-ness) ------------------------- */

struct col {
	long scale;
	int profiled;
	size_t n;
	double mean, std, min, max;
	double v[M_N], ref[M_N];
	const struct ynode *refrow;
};

static const struct ynode *
reference_row(const struct ctx *c, long scale)
{
	const struct ynode *refs = ymap_get(c->wl, "reference");
	for (size_t i = 0; refs && i < refs->nkids; i++) {
		const struct ynode *r = refs->kids[i];
		if (!strcmp(ystr(r, "gpu", ""), c->g) && !strcmp(ystr(r, "size", ""), c->size) &&
		    !strcmp(ystr(r, "dtype", ""), c->dtype) && yint(r, "scale", 0) == scale)
			return r;
	}
	return NULL;
}

static double
ynum(const struct ynode *m, const char *key)
{
	const char *s = m ? ystr(m, key, NULL) : NULL;
	return s ? strtod(s, NULL) : NAN;
}

/* seq, gbs and model FLOPs per sample of the config row at scale. */
static void
scale_inputs(const struct ctx *c, long scale, double *seq, double *gbs, double *flops)
{
	const struct ynode *cfg = workload_config(c->wl, c->g, c->size, c->dtype, scale);
	struct params p = {0};
	struct flops f;
	*seq = *gbs = *flops = NAN;
	if (!cfg || config_params("", cfg, scale, yint(c->gpu, "gpus_per_node", 8), &p)) {
		params_free(&p);
		return;
	}
	params_get(&p, "seq", seq);
	params_get(&p, "gbs", gbs);
	if (ymap_get(c->wl, "flops") && !flops_eval("", c->wl, c->size, &p, &f))
		*flops = f.total;
	params_free(&p);
}

/* Mean of the runs' means; spread: one run's own std, else the std of the means. */
static void
aggregate(struct col *k, const double *means, const double *stds)
{
	double s = 0, q = 0;
	k->min = k->max = means[0];
	for (size_t i = 0; i < k->n; i++) {
		s += means[i];
		k->min = fmin(k->min, means[i]);
		k->max = fmax(k->max, means[i]);
	}
	k->mean = s / (double)k->n;
	for (size_t i = 0; i < k->n; i++)
		q += (means[i] - k->mean) * (means[i] - k->mean);
	k->std = k->n == 1 ? stds[0] : sqrt(q / (double)(k->n - 1));
}

static void
col_metrics(const struct ctx *c, struct col *k)
{
	double seq, gbs, flops;
	struct metrics m;
	scale_inputs(c, k->scale, &seq, &gbs, &flops);
	metrics_compute(&m, seq, gbs, k->mean, (double)k->scale, isnan(flops) ? 0 : flops,
			isnan(c->peak) ? 0 : c->peak, METRICS_TOKENS_DEFAULT);
	double v[M_N] = {k->mean, m.tokens_per_s, m.tokens_per_s_per_gpu, m.tflops_per_gpu, m.mfu_pct, m.days};
	const struct ynode *r = k->profiled ? NULL : reference_row(c, k->scale);
	double ref[M_N] = {ynum(r, "step_time"), ynum(r, "tokens_per_s"), ynum(r, "tokens_per_s") / (double)k->scale,
			   ynum(r, "tflops_per_gpu"), ynum(r, "mfu_pct"), ynum(r, "days_1t")};
	memcpy(k->v, v, sizeof v);
	memcpy(k->ref, ref, sizeof ref);
	k->refrow = r;
}

static const char *
verdict(const struct ctx *c, const struct metric *mt, double v, double ref)
{
	if (isnan(v) || isnan(ref) || ref == 0)
		return NULL;
	double d = 100 * (v - ref) / ref;
	if (fabs(d) <= c->tol + 1e-9)
		return "within tolerance";
	return (d < 0) == mt->lower ? "faster" : "slower";
}

static json_t *
col_cell(const struct ctx *c, const struct col *k, int i)
{
	double v = k->v[i], ref = k->ref[i];
	double d = isnan(v) || isnan(ref) || ref == 0 ? NAN : 100 * (v - ref) / ref;
	const char *vd = verdict(c, &metrics_tab[i], v, ref);
	json_t *o = json_pack("{s:o,s:o,s:o,s:o}", "value", jnum(v), "reference", jnum(ref), "diff_pct", jnum(d),
			      "verdict", vd ? json_string(vd) : json_null());
	if (i == M_STEP) {
		json_object_set_new(o, "std", jnum(k->std));
		json_object_set_new(o, "min", jnum(k->min));
		json_object_set_new(o, "max", jnum(k->max));
	}
	return o;
}

static json_t *
col_json(const struct ctx *c, const struct col *k)
{
	json_t *cells = json_object();
	for (int i = 0; i < M_N; i++)
		json_object_set_new(cells, metrics_tab[i].key, col_cell(c, k, i));
	const char *cmp = k->profiled ? "profiled: not compared" : k->refrow ? "compared" : "no reference";
	const char *note = k->refrow ? ystr(k->refrow, "note", NULL) : NULL;
	return json_pack("{s:I,s:b,s:I,s:s,s:o,s:o}", "scale", (json_int_t)k->scale, "profiled", k->profiled,
			 "runs", (json_int_t)k->n, "comparison", cmp, "reference_note",
			 note ? json_string(note) : json_null(), "metrics", cells);
}

/* The included runs rs->v[first .. first+n) of one column. */
static json_t *
column(const struct ctx *c, const struct run *v, size_t n)
{
	struct col k = {.scale = v[0].scale, .profiled = is_profiled(&v[0]), .n = n};
	double *means = xcalloc(n, sizeof *means), *stds = xcalloc(n, sizeof *stds);
	for (size_t i = 0; i < n; i++) {
		json_t *st = json_object_get(v[i].res, "step_time");
		means[i] = num(st, "mean");
		stds[i] = num(st, "std");
	}
	aggregate(&k, means, stds);
	col_metrics(c, &k);
	free(means);
	free(stds);
	return col_json(c, &k);
}

/* Splits the sorted runs into columns, included runs and excluded runs. */
static void
classify(const struct ctx *c, struct runs *rs, json_t *cols, json_t *inc, json_t *exc)
{
	struct run *keep = xcalloc(rs->n + 1, sizeof *keep);
	size_t nk = 0;
	char buf[1024];
	for (size_t i = 0; i < rs->n; i++) {
		const char *why = exclusion(&rs->v[i], buf, sizeof buf);
		if (why) {
			json_array_append_new(exc, excluded_run(&rs->v[i], why));
			continue;
		}
		json_array_append_new(inc, included_run(&rs->v[i]));
		keep[nk++] = rs->v[i];
	}
	for (size_t a = 0, b; a < nk; a = b) {
		for (b = a + 1; b < nk && keep[b].scale == keep[a].scale && is_profiled(&keep[b]) == is_profiled(&keep[a]); b++)
			;
		json_array_append_new(cols, column(c, keep + a, b - a));
	}
	free(keep);
}

static json_t *
build_model(struct ctx *c, struct runs *rs)
{
	json_t *cols = json_array(), *inc = json_array(), *exc = json_array();
	classify(c, rs, cols, inc, exc);
	json_t *m = json_pack("{s:i,s:s,s:s,s:s,s:s,s:f,s:o,s:s}", "schema", REPORT_SCHEMA, "workload", c->w,
			      "gpu", c->g, "size", c->size, "dtype", c->dtype, "tolerance_pct", c->tol,
			      "peak_tflops", jnum(c->peak), "aggregation",
			      "mean of the runs' means; std: one run's window std, else the sample std of the means");
	json_object_set_new(m, "columns", cols);
	json_object_set_new(m, "runs", inc);
	json_object_set_new(m, "excluded", exc);
	return m;
}

/* ---- grids: the table as strings, for text and Markdown ------------------ */

struct grid {
	size_t nr, nc;
	char **cell;            /* nr * nc, row-major; NULL is empty */
	int right;              /* align cells after the first column right */
};

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

static void
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

static char *
col_head(const json_t *k)
{
	long s = (long)num(k, "scale");
	return json_is_true(json_object_get(k, "profiled")) ? xasprintf("%ld (profiled)", s) : xasprintf("%ld", s);
}

static char *
value_cell(int i, const json_t *cell)
{
	double v = num(cell, "value");
	if (i != M_STEP || isnan(v) || isnan(num(cell, "std")))
		return fmtnum(metrics_tab[i].fmt, v);
	return xasprintf("%.3f +- %.3f", v, num(cell, "std"));
}

static char *
diff_cell(const json_t *k, const json_t *cell)
{
	const char *vd = str(cell, "verdict");
	if (json_is_true(json_object_get(k, "profiled")))
		return xstrdup("not compared");
	if (!*vd)
		return xstrdup("-");
	return xasprintf("%+.1f%% %s", num(cell, "diff_pct"), !strcmp(vd, "within tolerance") ? "within" : vd);
}

/* Row kinds under each metric: value, reference, difference. */
enum { R_VALUE, R_REF, R_DIFF, R_N };

static char *
metric_cell(int i, int kind, const json_t *k)
{
	const json_t *cell = json_object_get(json_object_get(k, "metrics"), metrics_tab[i].key);
	if (kind == R_VALUE)
		return value_cell(i, cell);
	if (kind == R_REF)
		return fmtnum("%.6g", num(cell, "reference"));
	return diff_cell(k, cell);
}

static int
any_repeats(const json_t *cols)
{
	size_t i;
	json_t *k;
	json_array_foreach(cols, i, k)
		if (num(k, "runs") > 1)
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
		r[i + 1] = num(k, "runs") > 1 ? xasprintf("%.3f..%.3f", num(c, "min"), num(c, "max")) : xstrdup("-");
	}
}

static void
metrics_grid(struct grid *g, const json_t *m)
{
	static const char *const sub[R_N] = {NULL, "  reference", "  difference"};
	const json_t *cols = json_object_get(m, "columns");
	size_t j;
	json_t *k;
	grid_init(g, json_array_size(cols) + 1, 1);
	char **r = grid_row(g);
	r[0] = xstrdup("GPUs");
	json_array_foreach(cols, j, k)
		r[j + 1] = col_head(k);
	r = grid_row(g);
	r[0] = xstrdup("runs");
	json_array_foreach(cols, j, k)
		r[j + 1] = xasprintf("%lld", (long long)num(k, "runs"));
	for (int i = 0; i < M_N; i++) {
		for (int kind = 0; kind < R_N; kind++) {
			r = grid_row(g);
			r[0] = xstrdup(sub[kind] ? sub[kind] : metrics_tab[i].label);
			json_array_foreach(cols, j, k)
				r[j + 1] = metric_cell(i, kind, k);
		}
		if (i == M_STEP && any_repeats(cols))
			spread_row(g, cols);
	}
}

static char *
jstr_or_dash(const json_t *o, const char *key)
{
	const char *s = str(o, key);
	return xstrdup(*s ? s : "-");
}

/* Runs (excluded: reasons) as rows: GPUs, run, status, job, image, config, note/reason, log. */
static void
runs_grid(struct grid *g, const json_t *runs, int excluded)
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
		snprintf(cfg, sizeof cfg, "%s", *str(r, "config_hash") ? str(r, "config_hash") : "-");
		row[0] = xasprintf("%lld", (long long)num(r, "scale"));
		row[1] = xstrdup(str(r, "name"));
		row[2] = jstr_or_dash(r, "status");
		row[3] = jstr_or_dash(r, "job");
		row[4] = jstr_or_dash(r, "image");
		row[5] = xstrdup(cfg);
		row[6] = jstr_or_dash(r, excluded ? "reason" : "note");
		row[7] = jstr_or_dash(r, "log");
	}
}

/* ---- text ---------------------------------------------------------------- */

static void
grid_text(struct sb *o, const struct grid *g)
{
	size_t *w = xcalloc(g->nc, sizeof *w);
	for (size_t i = 0; i < g->nr * g->nc; i++)
		if (g->cell[i] && strlen(g->cell[i]) > w[i % g->nc])
			w[i % g->nc] = strlen(g->cell[i]);
	for (size_t r = 0; r < g->nr; r++) {
		struct sb line = {0};
		for (size_t c = 0; c < g->nc; c++) {
			const char *s = g->cell[r * g->nc + c] ? g->cell[r * g->nc + c] : "";
			sb_addf(&line, c ? "  %*s" : "%-*s", g->right && c ? (int)w[c] : -(int)w[c], s);
		}
		while (line.len && line.buf[line.len - 1] == ' ')
			line.buf[--line.len] = 0;
		sb_addf(o, "%s\n", line.buf);
		sb_free(&line);
	}
	free(w);
}


static void
title(struct sb *o, const json_t *m, const char *pre, const char *post)
{
	struct sb t = {0};
	sb_addf(&t, "llmb report: %s %s %s on %s", str(m, "workload"), str(m, "size"), str(m, "dtype"), str(m, "gpu"));
	sb_add(o, pre);
	if (*pre == '<')
		sb_add_html(o, t.buf);
	else
		sb_add(o, t.buf);
	sb_addf(o, "%s\n", post);
	sb_free(&t);
}

static void
render_text(struct sb *o, const json_t *m)
{
	struct grid g;
	title(o, m, "", "");
	sb_addf(o, "tolerance %.1f%%; step time: mean of the runs' means +- std; difference: measured vs reference\n\n",
		num(m, "tolerance_pct"));
	if (!json_array_size(json_object_get(m, "columns")))
		sb_add(o, "(no runs yet)\n");
	else {
		metrics_grid(&g, m);
		grid_text(o, &g);
		grid_free(&g);
	}
	static const char *const sect[] = {"runs", "excluded"};
	for (int s = 0; s < 2; s++) {
		if (!json_array_size(json_object_get(m, sect[s])))
			continue;
		sb_addf(o, "\n%s\n", s ? "Excluded runs" : "Runs");
		runs_grid(&g, json_object_get(m, sect[s]), s);
		grid_text(o, &g);
		grid_free(&g);
	}
}

/* ---- Markdown ------------------------------------------------------------ */

static void
md_cell(struct sb *o, const char *s)
{
	sb_add(o, " ");
	for (; s && *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '*' || *s == '_' || *s == '`' || *s == '<')
			sb_addc(o, '\\');
		sb_addc(o, *s);
	}
	sb_add(o, " |");
}

static void
grid_md(struct sb *o, const struct grid *g)
{
	for (size_t r = 0; r < g->nr; r++) {
		sb_add(o, "|");
		for (size_t c = 0; c < g->nc; c++)
			md_cell(o, g->cell[r * g->nc + c]);
		sb_add(o, "\n");
		if (r)
			continue;
		sb_add(o, "|");
		for (size_t c = 0; c < g->nc; c++)
			sb_add(o, g->right && c ? "---:|" : "---|");
		sb_add(o, "\n");
	}
}

static void
render_md(struct sb *o, const json_t *m)
{
	struct grid g;
	title(o, m, "# ", "");
	sb_addf(o, "\nTolerance %.1f%%. Step time: mean of the runs' means +- std. Difference: measured vs reference.\n\n",
		num(m, "tolerance_pct"));
	if (!json_array_size(json_object_get(m, "columns")))
		sb_add(o, "(no runs yet)\n");
	else {
		metrics_grid(&g, m);
		grid_md(o, &g);
		grid_free(&g);
	}
	static const char *const sect[] = {"runs", "excluded"};
	for (int s = 0; s < 2; s++) {
		if (!json_array_size(json_object_get(m, sect[s])))
			continue;
		sb_addf(o, "\n## %s\n\n", s ? "Excluded runs" : "Runs");
		runs_grid(&g, json_object_get(m, sect[s]), s);
		grid_md(o, &g);
		grid_free(&g);
	}
}

/* ---- CSV: one line per scale and metric ---------------------------------- */

static void
csv_field(struct sb *o, const char *s, int last)
{
	if (strpbrk(s, ",\"\n")) {
		sb_addc(o, '"');
		for (; *s; s++) {
			if (*s == '"')
				sb_addc(o, '"');
			sb_addc(o, *s);
		}
		sb_addc(o, '"');
	} else {
		sb_add(o, s);
	}
	sb_add(o, last ? "\n" : ",");
}

static void
csv_num(struct sb *o, double v)
{
	if (!isnan(v))
		sb_addf(o, "%.10g", v);
	sb_addc(o, ',');
}

static void
csv_jobs(struct sb *o, const json_t *m, const json_t *k)
{
	struct sb j = {0};
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(m, "runs"), i, r)
		if (num(r, "scale") == num(k, "scale") &&
		    json_is_true(json_object_get(r, "profiled")) == json_is_true(json_object_get(k, "profiled")))
			sb_addf(&j, "%s%s", j.len ? " " : "", *str(r, "job") ? str(r, "job") : "-");
	csv_field(o, j.buf ? j.buf : "", 1);
	sb_free(&j);
}

static void
render_csv(struct sb *o, const json_t *m)
{
	size_t i;
	json_t *k;
	sb_add(o, "workload,gpu,size,dtype,scale,profiled,runs,metric,value,std,min,max,reference,diff_pct,verdict,jobs\n");
	json_array_foreach(json_object_get(m, "columns"), i, k) {
		for (int j = 0; j < M_N; j++) {
			const json_t *c = json_object_get(json_object_get(k, "metrics"), metrics_tab[j].key);
			sb_addf(o, "%s,%s,%s,%s,%lld,%d,%lld,%s,", str(m, "workload"), str(m, "gpu"), str(m, "size"),
				str(m, "dtype"), (long long)num(k, "scale"), json_is_true(json_object_get(k, "profiled")),
				(long long)num(k, "runs"), metrics_tab[j].key);
			csv_num(o, num(c, "value"));
			csv_num(o, num(c, "std"));
			csv_num(o, num(c, "min"));
			csv_num(o, num(c, "max"));
			csv_num(o, num(c, "reference"));
			csv_num(o, num(c, "diff_pct"));
			csv_field(o, str(c, "verdict"), 0);
			csv_jobs(o, m, k);
		}
	}
}

/* ---- JSON ---------------------------------------------------------------- */

static void
render_json(struct sb *o, const json_t *m)
{
	char *s = json_dumps(m, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	sb_addf(o, "%s\n", s);
	free(s);
}

/* ---- HTML: one page, inline CSS and SVG ----------------------------------- */

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#e377c2"};
#define NPAL (sizeof palette / sizeof *palette)

static const char html_css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}\n"
	"table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px;vertical-align:top}\n"
	"th{background:#f3f3f3}td.n{text-align:right;white-space:nowrap}td.l{font-family:monospace;font-size:12px;word-break:break-all}\n"
	".ref{color:#666;font-size:12px}.within{color:#1a7f37}.faster{color:#0550ae;font-weight:bold}\n"
	".slower{color:#cf222e;font-weight:bold}.prof{background:#fff8e1}svg{border:1px solid #ddd;margin:0.5em 1em 0.5em 0}\n"
	"svg text{font:11px sans-serif}\n";

static void
html_cell(struct sb *o, int i, const json_t *k)
{
	const json_t *c = json_object_get(json_object_get(k, "metrics"), metrics_tab[i].key);
	char *v = value_cell(i, c), *d = diff_cell(k, c);
	const char *vd = str(c, "verdict");
	sb_addf(o, "<td class=\"n%s\">", json_is_true(json_object_get(k, "profiled")) ? " prof" : "");
	sb_add_html(o, v);
	if (!isnan(num(c, "reference"))) {
		sb_addf(o, "<br><span class=\"ref\">ref %.6g</span><br><span class=\"%s\">", num(c, "reference"),
			!strcmp(vd, "within tolerance") ? "within" : vd);
		sb_add_html(o, d);
		sb_add(o, "</span>");
	} else if (json_is_true(json_object_get(k, "profiled"))) {
		sb_add(o, "<br><span class=\"ref\">profiled: not compared</span>");
	}
	sb_add(o, "</td>");
	free(v);
	free(d);
}

static void
html_table(struct sb *o, const json_t *m)
{
	const json_t *cols = json_object_get(m, "columns");
	size_t j;
	json_t *k;
	sb_add(o, "<table id=\"metrics\">\n<tr><th>GPUs</th>");
	json_array_foreach(cols, j, k) {
		char *h = col_head(k);
		sb_add(o, "<th>");
		sb_add_html(o, h);
		sb_addf(o, "<br><span class=\"ref\">%lld run%s</span></th>", (long long)num(k, "runs"),
			num(k, "runs") == 1 ? "" : "s");
		free(h);
	}
	sb_add(o, "</tr>\n");
	for (int i = 0; i < M_N; i++) {
		sb_add(o, "<tr><th>");
		sb_add_html(o, metrics_tab[i].label);
		sb_add(o, "</th>");
		json_array_foreach(cols, j, k)
			html_cell(o, i, k);
		sb_add(o, "</tr>\n");
	}
	sb_add(o, "</table>\n");
}

static void
html_grid(struct sb *o, const struct grid *g, const char *id)
{
	sb_addf(o, "<table id=\"%s\">\n", id);
	for (size_t r = 0; r < g->nr; r++) {
		sb_add(o, "<tr>");
		for (size_t c = 0; c < g->nc; c++) {
			sb_add(o, r ? (c == g->nc - 1 ? "<td class=\"l\">" : "<td>") : "<th>");
			sb_add_html(o, g->cell[r * g->nc + c]);
			sb_add(o, r ? "</td>" : "</th>");
		}
		sb_add(o, "</tr>\n");
	}
	sb_add(o, "</table>\n");
}

/* Chart frame: plot area x0..x1, y0..y1 in pixels. */
struct frame {
	double x0, x1, y0, y1;  /* pixels */
	double lo, hi;          /* y data range */
};

static double
fy(const struct frame *f, double v)
{
	return f->y1 - (v - f->lo) / (f->hi - f->lo) * (f->y1 - f->y0);
}

static void
tick(struct sb *o, double v)
{
	if (fabs(v) >= 1e6)
		sb_addf(o, "%.3gM", v / 1e6);
	else if (fabs(v) >= 1e4)
		sb_addf(o, "%.3gk", v / 1e3);
	else
		sb_addf(o, "%.4g", v);
}

static void
y_axis(struct sb *o, const struct frame *f, const char *label)
{
	for (int t = 0; t <= 4; t++) {
		double v = f->lo + (f->hi - f->lo) * t / 4, y = fy(f, v);
		sb_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>", f->x0, y, f->x1, y);
		sb_addf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", f->x0 - 4, y + 4);
		tick(o, v);
		sb_add(o, "</text>\n");
	}
	sb_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>", f->x0, f->y0, f->x0, f->y1);
	sb_addf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>", f->x0, f->y1, f->x1, f->y1);
	sb_addf(o, "<text x=\"%.1f\" y=\"14\">", f->x0);
	sb_add_html(o, label);
	sb_add(o, "</text>\n");
}

/* Range of step times and iterations over every run's samples. */
static int
sample_range(const json_t *runs, double *lo, double *hi, double *imin, double *imax)
{
	size_t i, j;
	json_t *r, *s;
	int any = 0;
	*lo = *imin = INFINITY;
	*hi = *imax = -INFINITY;
	json_array_foreach(runs, i, r) json_array_foreach(json_object_get(r, "samples"), j, s) {
		double it = json_number_value(json_array_get(s, 0));
		*imin = fmin(*imin, it), *imax = fmax(*imax, it);
		any = 1;
	}
	/* The y range leaves out the first tenth (warm-up); slower steps are clipped. */
	json_array_foreach(runs, i, r) json_array_foreach(json_object_get(r, "samples"), j, s) {
		double it = json_number_value(json_array_get(s, 0)), t = json_number_value(json_array_get(s, 1));
		if (it >= *imin + (*imax - *imin) / 10)
			*lo = fmin(*lo, t), *hi = fmax(*hi, t);
	}
	if (!isfinite(*lo))
		*lo = *hi = 0;
	*lo -= 0.05 * (*hi - *lo), *hi += 0.05 * (*hi - *lo);
	if (*hi - *lo < 1e-9 * fabs(*hi) + 1e-12)
		*lo -= 0.05 * fabs(*lo) + 1e-3, *hi += 0.05 * fabs(*hi) + 1e-3;
	if (*imax <= *imin)
		*imax = *imin + 1;
	return any;
}

static void
legend(struct sb *o, double x, double y, const char *color, const char *label)
{
	sb_addf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">",
		x, y - 9, color, x + 14, y);
	sb_add_html(o, label);
	sb_add(o, "</text>\n");
}

static void
step_chart(struct sb *o, const json_t *m)
{
	const json_t *runs = json_object_get(m, "runs");
	double lo, hi, imin, imax;
	struct frame f = {60, 560, 24, 270, 0, 0};
	size_t i, j;
	json_t *r, *s;
	if (!sample_range(runs, &lo, &hi, &imin, &imax))
		return;
	f.lo = lo, f.hi = hi;
	sb_add(o, "<svg id=\"step-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"880\" height=\"300\" role=\"img\">\n");
	y_axis(o, &f, "step time (s) per iteration");
	sb_addf(o, "<text x=\"%.1f\" y=\"290\" text-anchor=\"middle\">iteration %.0f..%.0f</text>\n", (f.x0 + f.x1) / 2, imin, imax);
	json_array_foreach(runs, i, r) {
		const char *color = palette[i % NPAL];
		sb_addf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", color);
		json_array_foreach(json_object_get(r, "samples"), j, s) {
			double it = json_number_value(json_array_get(s, 0)), t = json_number_value(json_array_get(s, 1));
			sb_addf(o, "%s%.1f,%.1f", j ? " " : "", f.x0 + (it - imin) / (imax - imin) * (f.x1 - f.x0),
				fy(&f, fmin(fmax(t, f.lo), f.hi)));
		}
		sb_add(o, "\"/>\n");
		char *lab = xasprintf("%lld GPUs: %s", (long long)num(r, "scale"), str(r, "name"));
		legend(o, 572, 40 + 16 * (double)i, color, lab);
		free(lab);
	}
	sb_add(o, "</svg>\n");
}

static void
bar(struct sb *o, const struct frame *f, double x, double w, double v, const char *color)
{
	if (isnan(v))
		return;
	double y = fy(f, v);
	sb_addf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%.6g</title></rect>\n",
		x, y, w, f->y1 - y, color, v);
}

static void
tokens_chart(struct sb *o, const json_t *m)
{
	const json_t *cols = json_object_get(m, "columns");
	size_t n = json_array_size(cols), i;
	json_t *k;
	struct frame f = {70, 560, 24, 260, 0, 0};
	json_array_foreach(cols, i, k) {
		const json_t *c = json_object_get(json_object_get(k, "metrics"), "tokens_per_s");
		f.hi = fmax(f.hi, fmax(isnan(num(c, "value")) ? 0 : num(c, "value"), isnan(num(c, "reference")) ? 0 : num(c, "reference")));
	}
	if (!n || !(f.hi > 0))
		return;
	f.hi *= 1.1;
	double slot = (f.x1 - f.x0) / (double)n;
	sb_add(o, "<svg id=\"tokens-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"880\" height=\"300\" role=\"img\">\n");
	y_axis(o, &f, "tokens/s per scale");
	json_array_foreach(cols, i, k) {
		const json_t *c = json_object_get(json_object_get(k, "metrics"), "tokens_per_s");
		double x = f.x0 + slot * (double)i + slot * 0.1, w = slot * 0.4;
		bar(o, &f, x, w, num(c, "value"), palette[0]);
		bar(o, &f, x + w, w, num(c, "reference"), "#aaa");
		char *h = col_head(k);
		sb_addf(o, "<text x=\"%.1f\" y=\"278\" text-anchor=\"middle\">", x + w);
		sb_add_html(o, h);
		sb_add(o, "</text>\n");
		free(h);
	}
	legend(o, 572, 40, palette[0], "measured");
	legend(o, 572, 56, "#aaa", "reference");
	sb_add(o, "</svg>\n");
}

static void
render_html(struct sb *o, const json_t *m)
{
	static const char *const sect[] = {"runs", "excluded"};
	struct grid g;
	sb_add(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
	title(o, m, "<title>", "</title>");
	sb_addf(o, "<style>\n%s</style></head>\n<body>\n", html_css);
	title(o, m, "<h1>", "</h1>");
	sb_addf(o, "<p>Tolerance %.1f%%. Step time: mean of the runs' means &plusmn; std. Beside each value: the "
		"published reference and the difference.</p>\n", num(m, "tolerance_pct"));
	if (!json_array_size(json_object_get(m, "columns")))
		sb_add(o, "<p>(no runs yet)</p>\n");
	else
		html_table(o, m);
	sb_add(o, "<div>\n");
	step_chart(o, m);
	tokens_chart(o, m);
	sb_add(o, "</div>\n");
	for (int s = 0; s < 2; s++) {
		if (!json_array_size(json_object_get(m, sect[s])))
			continue;
		sb_addf(o, "<h2>%s</h2>\n", s ? "Excluded runs" : "Runs");
		runs_grid(&g, json_object_get(m, sect[s]), s);
		html_grid(o, &g, sect[s]);
		grid_free(&g);
	}
	prov_html(o, json_object_get(m, "runs"), json_object_get(m, "excluded"));
	sb_add(o, "</body></html>\n");
}

/* ---- formats and files ---------------------------------------------------- */

static const struct format {
	const char *name, *ext;   /* ext appended to --out; NULL: --out itself */
	void (*render)(struct sb *, const json_t *);
} formats[] = {
	{"text", "txt", render_text},
	{"md", "md", render_md},
	{"csv", "csv", render_csv},
	{"json", NULL, render_json},
	{"html", "html", render_html},
};
#define NFORMATS (sizeof formats / sizeof *formats)

static const struct format *
format_find(const char *name)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

static char *
format_path(const struct format *f, const char *out)
{
	return f->ext ? xasprintf("%s.%s", out, f->ext) : xstrdup(out);
}

static int
write_all(const json_t *m, const char *out)
{
	int rc = 0;
	for (size_t i = 0; i < NFORMATS && !rc; i++) {
		struct sb s = {0};
		char *path = format_path(&formats[i], out);
		formats[i].render(&s, m);
		if (write_file_atomic(path, s.buf, s.len) < 0) {
			fprintf(stderr, "llmb report: error: cannot write %s\n", path);
			rc = 2;
		}
		free(path);
		sb_free(&s);
	}
	return rc;
}

static int
ctx_load(struct ctx *c)
{
	if (recipes_load(&c->rec, c->rec.top))
		return 2;
	c->wl = workload_find(&c->rec, c->w, NULL);
	c->gpu = gpu_find(&c->rec, c->g);
	if (!c->wl || !c->gpu) {
		fprintf(stderr, "llmb report: error: unknown workload '%s' or GPU type '%s'\n", c->w, c->g);
		return 2;
	}
	c->peak = ynum(ymap_get(c->gpu, "peak_tflops"), c->dtype);
	return 0;
}

int
report_format_known(const char *name)
{
	return format_find(name) != NULL;
}

int
report_build(const struct report_req *q, char **dirs, int ndirs)
{
	struct ctx cx = {.rec = {.top = q->top}, .w = q->workload, .g = q->gpu, .size = q->size, .dtype = q->dtype,
		.tol = q->tolerance}, *c = &cx;
	const struct format *fmt = format_find(q->format);
	const char *out = q->out;
	struct runs rs = {0};
	int rc = ctx_load(c);
	if (!rc) {
		char *prefix = xasprintf("%s_%s_%s_", c->g, c->size, c->dtype);
		for (int i = 0; i < ndirs; i++)
			scan_dir(&rs, dirs[i], prefix);
		free(prefix);
		if (rs.n)
			qsort(rs.v, rs.n, sizeof *rs.v, cmp_run);
		json_t *m = build_model(c, &rs);
		if (out) {
			rc = write_all(m, out);
		} else {
			struct sb s = {0};
			fmt->render(&s, m);
			fputs(s.buf, stdout);
			sb_free(&s);
		}
		json_decref(m);
	}
	runs_free(&rs);
	recipes_free(&c->rec);
	return rc;
}

/* llmb report --show [--format=F] --install DIR REPORT-ID: prints a written
 * report; the id is report.<workload>.<gpu>.<size>.<dtype>. */
int
report_show(const char *install, const char *id, const char *format)
{
	const struct format *fmt = format_find(format);
	char w[128], rest[256];
	const char *p = strchr(id, '.');
	if (!p || sscanf(p + 1, "%127[^.].%255s", w, rest) != 2) {
		fprintf(stderr, "llmb report: error: %s is not a report stage\n", id);
		return 2;
	}
	for (char *c = rest; *c; c++)
		if (*c == '.')
			*c = '_';
	char *name = xasprintf("%s.json", rest), *out = layout_report(install, w, name);
	free(name);
	char *path = format_path(fmt, out), *s = read_file(path, NULL);
	int rc = 0;
	if (!s) {
		fprintf(stderr, "llmb report: error: no report at %s\n", path);
		rc = 2;
	} else {
		fputs(s, stdout);
		if (!strcmp(fmt->name, "text"))
			printf("(written to %s; also .json .md .csv .html)\n", path);
	}
	free(s);
	free(path);
	free(out);
	return rc;
}
