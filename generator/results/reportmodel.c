/* reportmodel: the report's model, measured. For one (workload, GPU
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
 * The model is one JSON object (the --format=json output); every format is
 * rendered from it alone, so the renderers never see recipes or run
 * directories. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/jget.h"
#include "base/util.h"
#include "recipe/flops.h"
#include "recipe/metrics.h"
#include "recipe/published.h"
#include "recipe/recipe.h"
#include "results/reportmodel.h"
#include "store/instance.h"
#include "store/layout.h"
#include "store/stagecfg.h"

#define REPORT_SCHEMA 1

/* ---- the model ---------------------------------------------------------- */

struct run {
	char *name;             /* relative to its experiments dir */
	long scale;
	json_t *res;            /* result.json, or NULL */
	struct runrec *done;    /* train.done, or NULL */
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
	struct ydoc *pub;       /* Megatron-Bridge's published rows, or NULL */
};

/* The seeds' rows; lower: a lower value is faster. */
const struct report_metric report_metrics[RM_N] = {
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

double
report_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *
res_status(const struct run *r)
{
	return r->res ? jget_str(r->res, "status") : "";
}

static int
is_profiled(const struct run *r)
{
	return !strcmp(res_status(r), "profiled");
}

/* A proxy run (its recipe row's proxy flag, in result.json): a shrunken
 * model, never compared with a reference. */
static int
is_proxy(const struct run *r)
{
	return r->res && json_is_true(json_object_get(r->res, "proxy"));
}

/* A run at a scale its recipe does not list (SCALES above the largest; in
 * result.json): DP and GA derived, so no reference describes it. */
static int
is_unlisted(const struct run *r)
{
	return r->res && json_is_true(json_object_get(r->res, "unlisted"));
}

/* An overridden run (make's TP, MBS, ... knobs: <run>/override-<tag>): its
 * tag, else NULL. Its own column, never compared with the recipe's
 * reference. */
static const char *
override_tag(const struct run *r)
{
	const char *o = strstr(r->name, "/" LAYOUT_OVERRIDE_PREFIX);
	return o ? o + 1 + strlen(LAYOUT_OVERRIDE_PREFIX) : NULL;
}

static int
same_override(const struct run *x, const struct run *y)
{
	const char *a = override_tag(x), *b = override_tag(y);
	return a == b || (a && b && !strcmp(a, b));
}

/* ---- finding runs ------------------------------------------------------- */

static void
add_run(struct runs *rs, const char *dir, const char *name, long scale)
{
	char *run = layout_in(dir, name), *rp = layout_in(run, LAYOUT_RESULT);
	json_t *res = json_load_file(rp, JSON_REJECT_DUPLICATES, NULL);
	struct runrec *done = runrec_load(run);
	if (res || done) {
		char *pp = layout_in(run, LAYOUT_PROVENANCE);
		rs->v = xrealloc(rs->v, (rs->n + 1) * sizeof *rs->v);
		rs->v[rs->n++] = (struct run){xstrdup(name), scale, res, done, json_load_file(pp, 0, NULL)};
		free(pp);
	}
	free(rp);
	free(run);
}

/* <run>/repeat-* directories: further runs of the same configuration. */
static void
add_repeats(struct runs *rs, const char *dir, const char *name, long scale)
{
	char *sub = xasprintf("%s/%s", dir, name);
	DIR *d = opendir(sub);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strncmp(e->d_name, "repeat-", 7) && strncmp(e->d_name, LAYOUT_OVERRIDE_PREFIX, strlen(LAYOUT_OVERRIDE_PREFIX)))
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

/* By scale, then profiled after measured, then override, then name. */
static int
cmp_run(const void *a, const void *b)
{
	const struct run *x = a, *y = b;
	if (x->scale != y->scale)
		return x->scale < y->scale ? -1 : 1;
	if (is_proxy(x) != is_proxy(y))
		return is_proxy(x) - is_proxy(y);
	if (is_unlisted(x) != is_unlisted(y))
		return is_unlisted(x) - is_unlisted(y);
	if (is_profiled(x) != is_profiled(y))
		return is_profiled(x) - is_profiled(y);
	if (!same_override(x, y)) /* the recipe's runs first, then by override */
		return !override_tag(x) ? -1 : !override_tag(y) ? 1 : strcmp(override_tag(x), override_tag(y));
	return strcmp(x->name, y->name);
}

static void
runs_free(struct runs *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i].name);
		json_decref(rs->v[i].res);
		json_decref(rs->v[i].prov);
		runrec_free(rs->v[i].done);
	}
	free(rs->v);
}

/* ---- runs, included and excluded ---------------------------------------- */

/* prefix and the reasons of a validity list (its strings), "; " between
 * them, into b (emptied first). Whole: a reason cut mid-character would
 * be no JSON string, and the run would lose it. */
static void
reasons(const json_t *list, const char *prefix, struct sb *b)
{
	size_t i, n = 0;
	json_t *x;
	sb_reset(b);
	sb_add(b, prefix);
	json_array_foreach(list, i, x)
		if (json_is_string(x))
			sb_addf(b, "%s%s", n++ ? "; " : "", json_string_value(x));
}

/* NULL when the run is included, else the reason it is not (in b, or a
 * constant). */
static const char *
exclusion(const struct run *r, struct sb *b)
{
	const char *st = res_status(r);
	json_t *fe = r->res ? json_object_get(r->res, "first_error") : NULL;
	if (!r->res)
		return "no result.json: the run was not parsed";
	if (strcmp(st, "success") && strcmp(st, "profiled")) {
		sb_reset(b);
		if (*jget_str(r->res, "reason"))
			sb_addf(b, "%s: %s", st, jget_str(r->res, "reason"));
		else if (fe && json_is_number(json_object_get(fe, "line")))
			sb_addf(b, "%s: line %lld: %s", st, (long long)json_integer_value(json_object_get(fe, "line")),
				jget_str(fe, "text"));
		else if (fe)
			sb_addf(b, "%s: %s", st, jget_str(fe, "text"));
		else if (json_is_integer(json_object_get(r->res, "last_iteration")))
			sb_addf(b, "%s: last iteration %lld of %lld", st,
				(long long)json_integer_value(json_object_get(r->res, "last_iteration")),
				(long long)json_integer_value(json_object_get(r->res, "final_iteration")));
		else
			sb_addf(b, "%s: no training step in the log", st);
		return b->buf;
	}
	if (isnan(report_num(json_object_get(r->res, "step_time"), "mean")))
		return "no step time in the measurement window";
	json_t *v = json_object_get(r->res, "validity");
	if (json_is_false(json_object_get(v, "valid"))) {
		reasons(json_object_get(v, "invalid"), "invalid: ", b);
		return b->buf;
	}
	return NULL;
}

/* The run's record: train.done fields, the note, its status. */
static json_t *
run_record(const struct run *r)
{
	const struct runrec *d = r->done ? r->done : &(struct runrec){0};
	const struct { const char *key, *val; } f[] = {
		{"job", d->job}, {"log", d->log}, {"image", d->image}, {"config_hash", d->cfg}, {"executor", d->executor},
	};
	json_t *o = json_pack("{s:s,s:I,s:s}", "name", r->name, "scale", (json_int_t)r->scale,
			      "status", r->res ? res_status(r) : "not parsed");
	struct sb b = {0};
	for (size_t i = 0; i < sizeof f / sizeof *f; i++)
		json_object_set_new(o, f[i].key, f[i].val ? json_string(f[i].val) : json_null());
	if (d->note)
		json_object_set_new(o, "note", json_string(d->note));
	else if (r->res && !strcmp(jget_str(r->res, "note"), "time_limit"))
		json_object_set_new(o, "note", json_string("the time limit was reached after the measured steps"));
	else if (r->res && json_integer_value(json_object_get(r->res, "restarts")) > 0)
		json_object_set_new(o, "note", json_string("the job restarted: measured on its last attempt only"));
	else if (r->res && json_array_size(json_object_get(json_object_get(r->res, "validity"), "flagged"))) {
		reasons(json_object_get(json_object_get(r->res, "validity"), "flagged"), "flagged: ", &b);
		json_object_set_new(o, "note", json_string(b.buf));
	} else
		json_object_set_new(o, "note", json_null());
	if (r->res && json_object_get(r->res, "validity"))
		json_object_set(o, "validity", json_object_get(r->res, "validity"));
	if (is_proxy(r))
		json_object_set_new(o, "proxy", json_true());
	if (is_unlisted(r))
		json_object_set_new(o, "unlisted", json_true());
	if (r->prov)
		json_object_set_new(o, "provenance", json_incref(r->prov));
	sb_free(&b);
	return o;
}

static json_t *
run_samples(const struct run *r)
{
	json_t *a = json_array(), *s = json_object_get(r->res, "samples");
	size_t i;
	json_t *v;
	json_array_foreach(s, i, v) {
		double t = report_num(v, "step_time");
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
	if (override_tag(r))
		json_object_set_new(o, "override", json_string(override_tag(r)));
	json_object_set_new(o, "step_time_mean", jnum(report_num(st, "mean")));
	json_object_set_new(o, "step_time_std", jnum(report_num(st, "std")));
	json_object_set_new(o, "window_steps", json_integer((json_int_t)report_num(st, "n")));
	json_object_set_new(o, "samples", run_samples(r));
	/* the run's profiles as its result lists them (parse.c) */
	json_t *pa = json_array(), *p;
	size_t i;
	json_array_foreach(json_object_get(r->res, "profiles"), i, p) {
		const char *path = json_string_value(json_object_get(p, "path"));
		json_t *b = json_object_get(p, "bytes");
		if (path && !has_control(path) && json_is_integer(b))
			json_array_append_new(pa, json_pack("{s:s,s:O}", "path", path, "bytes", b));
	}
	if (json_array_size(pa))
		json_object_set_new(o, "profiles", pa);
	else
		json_decref(pa);
	/* its checkpoint saves and loads (ENABLE_CHECKPOINT, LOAD_CHECKPOINT_PATH) */
	json_t *ca = json_array();
	json_array_foreach(json_object_get(r->res, "checkpoints"), i, p) {
		const char *kind = json_string_value(json_object_get(p, "kind"));
		json_t *it = json_object_get(p, "iteration"), *secs = json_object_get(p, "seconds");
		if (kind && (!strcmp(kind, "save") || !strcmp(kind, "load")) && json_is_number(secs))
			json_array_append_new(ca, json_pack("{s:s,s:O,s:O}", "kind", kind, "iteration",
							    json_is_integer(it) ? it : json_null(), "seconds", secs));
	}
	if (json_array_size(ca))
		json_object_set_new(o, "checkpoints", ca);
	else
		json_decref(ca);
	return o;
}

static json_t *
excluded_run(const struct run *r, const char *why)
{
	json_t *o = run_record(r);
	json_object_set_new(o, "reason", json_string(why));
	return o;
}

/* ---- columns: one per scale (and profiled-ness, proxy-ness) ------------- */

struct col {
	long scale;
	int profiled, proxy, unlisted;
	const char *ovr;        /* an override's tag, or NULL */
	const json_t *prov;     /* its first run's provenance */
	size_t n;
	double mean, std, min, max;
	double v[RM_N], ref[RM_N];
	const struct ynode *refrow;
	json_t *published;      /* the published row compared, or the nearest one */
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

/* "at 64 GPUs / in MXFP8 / other parallelism": how the published
 * configuration differs from the run's, from what published_differs said. */
static char *
published_label(const struct ynode *row, long scale, const char *gpu, const char *why)
{
	struct sb l = {0};
	sb_add(&l, "published");
	if (strcmp(ystr(row, "gpu", ""), gpu))
		sb_addf(&l, " on %s", ystr(row, "gpu", ""));
	if (yint(row, "scale", 0) != scale)
		sb_addf(&l, "%s at %ld GPUs", l.len > 9 ? " /" : "", yint(row, "scale", 0));
	if (strstr(why, "precision "))
		sb_addf(&l, "%s in %s", l.len > 9 ? " /" : "", ystr(row, "precision", ""));
	/* each field said is "name value (run value)", joined by ", " */
	for (const char *f = why; *f; f += strcspn(f, ",") + (f[strcspn(f, ",")] ? 2 : 0))
		if (strncmp(f, "GPU", 3) && strncmp(f, "precision ", 10)) {
			sb_addf(&l, "%s other parallelism", l.len > 9 ? " /" : "");
			break;
		}
	return sb_steal(&l);
}

/* Without a reference row of its own, a run of a Megatron-Bridge recipe is
 * compared with the published row of its image's release that runs the
 * same configuration; a row that differs in any field is shown beside it,
 * as published, never compared. */
static void
published_ref(const struct ctx *c, struct col *k)
{
	struct sb why = {0};
	int differs = 0;
	long gpn = yint(c->gpu, "gpus_per_node", 8);
	const struct ynode *row = c->pub ? published_find(c->pub, c->wl, c->g, c->size, c->dtype, k->scale, gpn,
							  &differs, &why) : NULL;
	if (!row) {
		sb_free(&why);
		return;
	}
	double tok = strtod(ystr(row, "tokens_per_s_per_gpu", "0"), NULL), tfl = strtod(ystr(row, "tflops_per_gpu", "0"), NULL);
	double seq = (double)yint(row, "seq", 0), gbs = (double)yint(row, "gbs", 0), n = (double)yint(row, "scale", 0);
	char *src = published_source(c->pub, row), *label = differs ? published_label(row, k->scale, c->g, why.buf ? why.buf : "")
		: xstrdup("published");
	k->published = json_pack("{s:s, s:b, s:s, s:s, s:I, s:s, s:f, s:f, s:f}", "source", src, "match", !differs,
				 "differs", why.buf ? why.buf : "", "label", label, "scale", (json_int_t)n, "precision",
				 ystr(row, "precision", ""), "tokens_per_s_per_gpu", tok, "tflops_per_gpu", tfl,
				 "step_time", gbs * seq / (tok * n));
	free(src);
	free(label);
	sb_free(&why);
	if (differs)
		return;
	double ref[RM_N] = {gbs * seq / (tok * n), tok * n, tok, tfl, isnan(c->peak) || c->peak <= 0 ? NAN : 100 * tfl / c->peak,
			   METRICS_TOKENS_DEFAULT / (tok * n) / 86400};
	memcpy(k->ref, ref, sizeof ref);
}

/* A run's seq, gbs and model FLOPs per sample as its provenance records
 * its parameters (configuration.knobs), for a run no config row describes
 * as it ran (an override, an unlisted scale); NaN where it has none. */
static void
run_inputs(const struct ctx *c, const json_t *prov, double *seq, double *gbs, double *flops)
{
	const json_t *kn = json_object_get(json_object_get(prov, "configuration"), "knobs");
	struct params p = {0};
	struct flops f;
	const char *key;
	json_t *v;
	*seq = *gbs = *flops = NAN;
	p.names = xcalloc(json_object_size(kn) + 1, sizeof *p.names);
	p.vals = xcalloc(json_object_size(kn) + 1, sizeof *p.vals);
	json_object_foreach((json_t *)kn, key, v) {
		if (!json_string_value(v))
			continue;
		p.names[p.n] = key;
		p.vals[p.n++] = strtod(json_string_value(v), NULL);
	}
	params_get(&p, "seq", seq);
	params_get(&p, "gbs", gbs);
	if (p.n && ymap_get(c->wl, "flops") && !flops_eval(NULL, c->wl, c->size, &p, &f))
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
	/* an override, or a scale the recipe does not list (planned on the row
	 * of its largest listed scale, DP and GA derived): the run's own */
	if (k->ovr || k->unlisted || !workload_config(c->wl, c->g, c->size, c->dtype, k->scale))
		run_inputs(c, k->prov, &seq, &gbs, &flops);
	else
		scale_inputs(c, k->scale, &seq, &gbs, &flops);
	metrics_compute(&m, seq, gbs, k->mean, (double)k->scale, isnan(flops) ? 0 : flops,
			isnan(c->peak) ? 0 : c->peak, METRICS_TOKENS_DEFAULT);
	double v[RM_N] = {k->mean, m.tokens_per_s, m.tokens_per_s_per_gpu, m.tflops_per_gpu, m.mfu_pct, m.days};
	int apart = k->profiled || k->proxy || k->unlisted || k->ovr; /* never compared */
	const struct ynode *r = apart ? NULL : reference_row(c, k->scale);
	double ref[RM_N] = {ynum(r, "step_time"), ynum(r, "tokens_per_s"), ynum(r, "tokens_per_s") / (double)k->scale,
			   ynum(r, "tflops_per_gpu"), ynum(r, "mfu_pct"), ynum(r, "days_1t")};
	memcpy(k->v, v, sizeof v);
	memcpy(k->ref, ref, sizeof ref);
	k->refrow = r;
	if (!r && !apart)
		published_ref(c, k);
}

static const char *
verdict(const struct ctx *c, const struct report_metric *mt, double v, double ref)
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
	const char *vd = verdict(c, &report_metrics[i], v, ref);
	json_t *o = json_pack("{s:o,s:o,s:o,s:o}", "value", jnum(v), "reference", jnum(ref), "diff_pct", jnum(d),
			      "verdict", vd ? json_string(vd) : json_null());
	if (i == RM_STEP) {
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
	for (int i = 0; i < RM_N; i++)
		json_object_set_new(cells, report_metrics[i].key, col_cell(c, k, i));
	const json_t *pub = k->published; /* never of a profiled, proxy or overridden run */
	char *cmp = xstrdup(k->ovr ? "override: not compared" : k->proxy ? "proxy: not compared"
			: k->unlisted ? "unlisted: not compared" : k->profiled ? "profiled: not compared" : k->refrow ? "compared" : !pub ? "no reference" : "");
	if (pub)
		cmp = json_is_true(json_object_get(pub, "match")) ? (free(cmp), xstrdup("compared"))
			: (free(cmp), xasprintf("%s: not compared", jget_str(pub, "label")));
	const char *note = k->refrow ? ystr(k->refrow, "note", NULL) : NULL;
	json_t *o = json_pack("{s:I,s:b,s:I,s:s,s:o,s:o}", "scale", (json_int_t)k->scale, "profiled", k->profiled,
			      "runs", (json_int_t)k->n, "comparison", cmp, "reference_note",
			      note ? json_string(note) : json_null(), "metrics", cells);
	free(cmp);
	if (k->proxy)
		json_object_set_new(o, "proxy", json_true());
	if (k->unlisted)
		json_object_set_new(o, "unlisted", json_true());
	if (k->published)
		json_object_set_new(o, "published", k->published);
	if (k->ovr)
		json_object_set_new(o, "override", json_string(k->ovr));
	return o;
}

/* The included runs rs->v[first .. first+n) of one column. */
static json_t *
column(const struct ctx *c, const struct run *v, size_t n)
{
	struct col k = {.scale = v[0].scale, .profiled = is_profiled(&v[0]), .proxy = is_proxy(&v[0]),
		.unlisted = is_unlisted(&v[0]), .ovr = override_tag(&v[0]), .prov = v[0].prov, .n = n};
	double *means = xcalloc(n, sizeof *means), *stds = xcalloc(n, sizeof *stds);
	for (size_t i = 0; i < n; i++) {
		json_t *st = json_object_get(v[i].res, "step_time");
		means[i] = report_num(st, "mean");
		stds[i] = report_num(st, "std");
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
	struct sb buf = {0};
	for (size_t i = 0; i < rs->n; i++) {
		const char *why = exclusion(&rs->v[i], &buf);
		if (why) {
			json_array_append_new(exc, excluded_run(&rs->v[i], why));
			continue;
		}
		json_array_append_new(inc, included_run(&rs->v[i]));
		keep[nk++] = rs->v[i];
	}
	for (size_t a = 0, b; a < nk; a = b) {
		for (b = a + 1; b < nk && keep[b].scale == keep[a].scale && is_profiled(&keep[b]) == is_profiled(&keep[a]) &&
			     is_proxy(&keep[b]) == is_proxy(&keep[a]) && is_unlisted(&keep[b]) == is_unlisted(&keep[a]) &&
			     same_override(&keep[b], &keep[a]); b++)
			;
		json_array_append_new(cols, column(c, keep + a, b - a));
	}
	free(keep);
	sb_free(&buf);
}

/* The sweep of each scale that has overridden runs: the recipe's column
 * and each override's, measured (not profiled, not proxy), and the best
 * of them by tokens/s/GPU (GBS may differ between them: step time alone
 * would not rank them). */
static json_t *
sweeps(const json_t *cols)
{
	json_t *out = json_array(), *k;
	size_t i, j;
	json_array_foreach(cols, i, k) {
		long scale = (long)report_num(k, "scale");
		if (!json_object_get(k, "override") || (i && (long)report_num(json_array_get(cols, i - 1), "scale") == scale &&
							 json_object_get(json_array_get(cols, i - 1), "override")))
			continue; /* the first override column of its scale starts the sweep */
		json_t *rows = json_array(), *best = NULL, *o;
		double bv = NAN;
		json_array_foreach(cols, j, o) {
			if ((long)report_num(o, "scale") != scale || json_is_true(json_object_get(o, "profiled")) ||
			    json_is_true(json_object_get(o, "proxy")))
				continue;
			const json_t *mt = json_object_get(o, "metrics");
			double tpg = report_num(json_object_get(mt, "tokens_per_s_per_gpu"), "value");
			const char *name = json_string_value(json_object_get(o, "override"));
			json_t *row = json_pack("{s:s,s:o,s:o,s:o}", "config", name ? name : "recipe", "step_time",
						jnum(report_num(json_object_get(mt, "step_time"), "value")), "tokens_per_s_per_gpu",
						jnum(tpg), "tflops_per_gpu",
						jnum(report_num(json_object_get(mt, "tflops_per_gpu"), "value")));
			if (!isnan(tpg) && (isnan(bv) || tpg > bv)) {
				bv = tpg;
				best = row;
			}
			json_array_append_new(rows, row);
		}
		json_t *b = best ? json_incref(json_object_get(best, "config")) : json_null();
		json_array_append_new(out, json_pack("{s:I,s:o,s:o}", "scale", (json_int_t)scale, "rows", rows, "best", b));
	}
	return out;
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
	json_t *sw = sweeps(cols);
	if (json_array_size(sw))
		json_object_set_new(m, "sweeps", sw);
	else
		json_decref(sw);
	json_object_set_new(m, "columns", cols);
	json_object_set_new(m, "runs", inc);
	json_object_set_new(m, "excluded", exc);
	return m;
}

/* ---- the report of one selection ----------------------------------------- */

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
	int bad;
	c->pub = published_load(c->rec.top, &bad);
	return bad ? 2 : 0;
}

json_t *
report_model(const char *top, const char *workload, const char *gpu, const char *size, const char *dtype,
	     double tolerance, char **dirs, int ndirs)
{
	struct ctx cx = {.rec = {.top = top}, .w = workload, .g = gpu, .size = size, .dtype = dtype,
		.tol = tolerance}, *c = &cx;
	struct runs rs = {0};
	json_t *m = NULL;
	if (!ctx_load(c)) {
		char *prefix = xasprintf("%s_%s_%s_", c->g, c->size, c->dtype);
		for (int i = 0; i < ndirs; i++)
			scan_dir(&rs, dirs[i], prefix);
		free(prefix);
		if (rs.n)
			qsort(rs.v, rs.n, sizeof *rs.v, cmp_run);
		m = build_model(c, &rs);
	}
	runs_free(&rs);
	ydoc_free(c->pub);
	recipes_free(&c->rec);
	return m;
}
