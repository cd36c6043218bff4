/* record: history records of finished runs and their crash-safe append
 * (see record.h). The samples come from the log parser's API (logparse.h),
 * the configuration from the stage configurations gen wrote, the image from
 * the .sqsh.id beside it, the nodes from the executor. Secrets are never
 * read: a configuration's secret= lines hold names only, and none of them
 * is copied. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/capture.h"
#include "base/cmds.h"
#include "base/util.h"
#include "exec/slurm.h"
#include "plan/nightmatrix.h"
#include "plan/plan.h"
#include "recipe/metrics.h"
#include "recipe/published.h"
#include "recipe/recipe.h"
#include "results/logparse.h"
#include "results/record.h"
#include "results/validity.h"
#include "store/history.h"
#include "store/instance.h"
#include "store/jobrecord.h"
#include "store/layout.h"
#include "store/stagecfg.h"
#include "store/stagekind.h"

/* ---- statistics of the window ------------------------------------------------ */

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double
median_of(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static json_t *
num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* n, mean, median, std (n-1) and MAD (median absolute deviation, unscaled). */
static json_t *
summary_of(const double *x, size_t n, double *mean_out)
{
	double sum = 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	double mean = n ? sum / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	double *t = xcalloc(n ? n : 1, sizeof *t);
	if (n)
		memcpy(t, x, n * sizeof *t);
	double med = n ? median_of(t, n) : NAN;
	for (size_t i = 0; i < n; i++)
		t[i] = fabs(x[i] - med);
	double mad = n ? median_of(t, n) : NAN;
	free(t);
	*mean_out = mean;
	return json_pack("{s:I, s:o, s:o, s:o, s:o}", "n", (json_int_t)n, "mean", num_or_null(mean),
			 "median", num_or_null(med), "std", num_or_null(n > 1 ? sqrt(ss / (double)(n - 1)) : NAN),
			 "mad", num_or_null(mad));
}

/* ---- configuration ------------------------------------------------------------- */

static const struct pc_train no_train;

/* The training's fields (none for a training planned without its run's
 * values). */
static const struct pc_train *
train_of(const struct stagecfg *cfg)
{
	return cfg && cfg->kind == PC_TRAIN && cfg->bound ? &cfg->u.train : &no_train;
}

/* A parameter of the run, as a number. */
static int
param(const struct stagecfg *cfg, const char *key, double *v)
{
	const struct pc_train *t = train_of(cfg);
	for (size_t i = 0; i < t->nparams; i++) {
		if (!strcmp(t->params[i].name, key)) {
			*v = t->params[i].value;
			return 1;
		}
	}
	return 0;
}

/* The parallel configuration: the keys of the contract that the run's
 * parameters have, sorted. */
static const char *const parallel_keys[] = {"cp", "ep", "etp", "gbs", "mbs", "pp", "seq", "tp", "vp"};

static json_t *
parallel_of(const struct stagecfg *cfg, struct sb *canon)
{
	json_t *o = json_object();
	for (size_t i = 0; i < sizeof parallel_keys / sizeof *parallel_keys; i++) {
		double v;
		if (!param(cfg, parallel_keys[i], &v))
			continue;
		json_object_set_new(o, parallel_keys[i], json_integer((json_int_t)llround(v)));
		sb_addf(canon, "%s=%lld;", parallel_keys[i], (long long)llround(v));
	}
	return o;
}

/* A night's run has its own id, label, outputs and directory, with the
 * same configuration. */
static char *
config_hash(const struct stagecfg *cfg)
{
	char h[65];
	stagecfg_config_hash(cfg, h);
	return xstrdup(h);
}

/* Run knobs and whether they make the run incomparable with the recipe's. */
static const struct {
	const char *name;
	const char *invalid;        /* reason, or NULL: the run stays comparable */
} knob_effects[] = {
	{"ENABLE_PROFILE", "profiling on"},
	{"PROFILE_START_STEP", "profiling on"},
	{"PROFILE_STOP_STEP", "profiling on"},
	{"ENABLE_NCCLTRACE", "NCCL trace on"},
	{"ENABLE_CHECKPOINT", "configuration differs from the recipe: ENABLE_CHECKPOINT"},
	{"LOAD_CHECKPOINT_PATH", "configuration differs from the recipe: LOAD_CHECKPOINT_PATH"},
	{"MAX_STEPS", "configuration differs from the recipe: MAX_STEPS"},
	{"TIME_LIMIT", NULL},
	{"ADDITIONAL_SLURM_PARAMS", NULL},
	{"EXTRA_WORK", NULL},       /* the demo's deliberate slowdown: a real regression */
	/* the overrides (override.h): never a baseline of the recipe's run */
	{"TP", "configuration differs from the recipe: TP"},
	{"PP", "configuration differs from the recipe: PP"},
	{"CP", "configuration differs from the recipe: CP"},
	{"VP", "configuration differs from the recipe: VP"},
	{"EP", "configuration differs from the recipe: EP"},
	{"ETP", "configuration differs from the recipe: ETP"},
	{"MBS", "configuration differs from the recipe: MBS"},
	{"GBS", "configuration differs from the recipe: GBS"},
	{"FP8_RECIPE", "configuration differs from the recipe: FP8_RECIPE"},
	{"CONFIG_VARIANT", "configuration differs from the recipe: CONFIG_VARIANT"},
	{"CUDA_GRAPH_SCOPE", "configuration differs from the recipe: CUDA_GRAPH_SCOPE"},
	{"ENV", "configuration differs from the recipe: ENV"},
};

static void
add_reason(json_t *inv, const char *why)
{
	size_t i;
	json_t *v;
	json_array_foreach(inv, i, v)
		if (!strcmp(json_string_value(v), why))
			return;
	json_array_append_new(inv, json_string(why));
}

static json_t *
knobs_of(const struct stagecfg *cfg, json_t *inv)
{
	json_t *o = json_object();
	const struct pc_train *t = train_of(cfg);
	for (size_t i = 0; i < t->nknobs; i++) {
		const char *name = t->knobs[i].name, *val = t->knobs[i].value;
		json_object_set_new(o, name, json_string(val));
		for (size_t k = 0; k < sizeof knob_effects / sizeof *knob_effects; k++)
			if (!strcmp(knob_effects[k].name, name) && knob_effects[k].invalid &&
			    (strncmp(name, "ENABLE_", 7) || !strcmp(val, "true") || !strcmp(val, "1") || !strcmp(val, "yes")))
				add_reason(inv, knob_effects[k].invalid);
	}
	if (t->profile)
		add_reason(inv, "profiling on");
	if (t->nccltrace)
		add_reason(inv, "NCCL trace on");
	return o;
}

/* ---- provenance ---------------------------------------------------------------- */

static json_t *
image_of(const char *install, const struct stagecfg *cfg)
{
	char buf[512];
	const char *stem = train_of(cfg)->image;
	if (!stem)
		return json_null();
	char *path = layout_image_identity(install, stem);
	char *id = read_file(path, NULL);
	free(path);
	json_t *o = json_object();
	json_object_set_new(o, "ref", json_string(id && kv_get(id, "ref", buf, sizeof buf) ? buf : stem));
	json_object_set_new(o, "digest", id && kv_get(id, "digest", buf, sizeof buf) && *buf ? json_string(buf) : json_null());
	free(id);
	return o;
}

/* First line of what argv prints, or NULL when it is empty. */
static char *
first_line(char *const argv[])
{
	char *r = capture_first_line(argv);
	if (r && !*r) {
		free(r);
		r = NULL;
	}
	return r;
}

/* The nodes the job ran on: Slurm's accounting (or the queue while it is
 * still known there); the local executor runs on this host. */
static char *
nodes_of(const char *executor, const char *job)
{
	if (executor && !strcmp(executor, "slurm") && job && *job && strspn(job, "0123456789_+.") == strlen(job)) {
		char *n = slurm_job_nodes(job);
		return n ? n : xstrdup("unknown");
	}
	char host[256] = "localhost";
	gethostname(host, sizeof host - 1);
	return xstrdup(host);
}

char *
llmb_version(const char *top)
{
	char *argv[] = {"git", "-C", (char *)top, "describe", "--always", "--dirty", NULL};
	char *q = first_line(argv);
	return q ? q : xstrdup("unknown");
}

/* The published step time of the run and the report's tolerance: the
 * recipe's reference row, else the Megatron-Bridge row of the image's
 * release that runs the same configuration (its tokens/s/GPU as a step). */
static json_t *
reference_of(const struct rec_src *s, const char *gpu, const char *size, const char *dtype, long scale)
{
	const struct ynode *wl = s->wl, *refs = ymap_get(wl, "reference");
	double tol = strtod(ystr(ymap_get(wl, "measure"), "tolerance_pct", "5"), NULL) / 100;
	for (size_t i = 0; refs && i < refs->nkids; i++) {
		const struct ynode *r = refs->kids[i];
		if (strcmp(ystr(r, "gpu", ""), gpu) || strcmp(ystr(r, "size", ""), size) ||
		    strcmp(ystr(r, "dtype", ""), dtype) || yint(r, "scale", 0) != scale || !ystr(r, "step_time", NULL))
			continue;
		return json_pack("{s:f, s:f}", "step_time", strtod(ystr(r, "step_time", "0"), NULL), "tolerance", tol);
	}
	int bad, differs = 1;
	struct ydoc *t = s->top ? published_load(s->top, &bad) : NULL;
	struct sb why = {0};
	const struct ynode *row = t ? published_find(t, wl, gpu, size, dtype, scale, yint(s->gpu, "gpus_per_node", 8),
						      &differs, &why) : NULL;
	json_t *ref = json_null();
	double tok = row ? strtod(ystr(row, "tokens_per_s_per_gpu", "0"), NULL) : 0;
	if (row && !differs && tok > 0)
		ref = json_pack("{s:f, s:f}", "step_time",
				(double)yint(row, "gbs", 0) * (double)yint(row, "seq", 0) / (tok * (double)scale), "tolerance", tol);
	sb_free(&why);
	ydoc_free(t);
	return ref;
}

/* ---- the record ------------------------------------------------------------------- */

/* The window's samples through the log parser; validity reasons into inv.
 * Returns the number of samples (0 and status failed when none). */
static size_t
window_samples(const struct rec_src *s, const char *log, double **out, double *tflops, json_t *inv, int *failed)
{
	struct lp_opts o = {.format = LP_AUTO, .indexing = LP_INDEX_DEFAULT, .win_lo = 35, .win_hi = 44};
	const struct stagecfg *pc = s->parse_cfg;
	if (pc && pc->kind == PC_PARSE && pc->bound) {
		const struct pc_parse *p = &pc->u.parse;
		char buf[64];
		o.win_lo = p->win_from;
		o.win_hi = p->win_to;
		lp_format_parse(p->log_format, &o.format);
		o.indexing = !strcmp(p->indexing, "one") ? LP_INDEX_ONE : LP_INDEX_ZERO;
		fmt_num(buf, sizeof buf, p->steps);
		o.steps = strtol(buf, NULL, 10);
	}
	struct lp_result r;
	lp_parse_file(log, &o, &r);
	*out = NULL;
	size_t n = 0;
	for (size_t i = 0; i < r.nsamples; i++) {
		const struct lp_sample *p = &r.samples[i];
		if (p->iter < r.win_lo || p->iter > r.win_hi)
			continue;
		*out = xrealloc(*out, (n + 1) * sizeof **out);
		(*out)[n++] = p->time;
		if (!isfinite(p->loss) && !isnan(p->loss))
			add_reason(inv, "loss is inf");
	}
	*tflops = r.tflops.n ? r.tflops.mean : NAN;
	long want = r.win_hi - r.win_lo + 1;
	if (r.status == LP_FAILED || !n)
		*failed = 1;
	if (r.status == LP_INVALID)
		add_reason(inv, r.reason ? r.reason : "NaN or inf loss or grad norm");
	if (r.status == LP_PROFILED)
		add_reason(inv, "profiling on");
	if ((long)n < want) {
		char *why = xasprintf("incomplete window (%zu of %ld steps)", n, want);
		add_reason(inv, why);
		free(why);
	}
	if (r.last_iter < r.final_iter)
		add_reason(inv, "missed final step");
	if (r.tflops.n && r.tflops.max == 0)
		add_reason(inv, "zero TFLOPS");
	lp_result_free(&r);
	return n;
}

/* What the job saw (validity.h): its invalid reasons into inv; its flags,
 * or NULL when there are none. */
static json_t *
seen_by_job(const struct rec_src *s, const char *log, json_t *inv)
{
	char *prov = xasprintf("%s/" LAYOUT_PROVENANCE, s->run_dir);
	json_t *v = validity_of_files(log, prov), *x, *flags = json_array();
	size_t i;
	free(prov);
	json_array_foreach(json_object_get(v, "invalid"), i, x)
		add_reason(inv, json_string_value(x));
	json_array_foreach(json_object_get(v, "flagged"), i, x)
		json_array_append(flags, x);
	json_decref(v);
	if (!json_array_size(flags)) {
		json_decref(flags);
		return NULL;
	}
	return flags;
}

/* Rates from the mean step time: tokens/s, TFLOPS/GPU, MFU (percent). */
static void
rates(json_t *rec, const struct rec_src *s, double mean, double log_tflops, long scale, const char *dtype, json_t *inv)
{
	double seq = 0, gbs = 0, mf = 0;
	int have = param(s->train_cfg, "seq", &seq) && param(s->train_cfg, "gbs", &gbs);
	if (train_of(s->train_cfg)->have_flops)
		mf = train_of(s->train_cfg)->model_flops;
	double peak = 0;
	const struct ynode *pk = ymap_get(s->gpu, "peak_tflops");
	if (ymap_get(pk, dtype))
		peak = strtod(ymap_get(pk, dtype)->str, NULL);
	double tf = mf > 0 && have ? metric_tflops_per_gpu(gbs, mf, mean, (double)scale) : log_tflops;
	json_object_set_new(rec, "tokens_per_s", have && isfinite(mean) ? num_or_null(metric_tokens_per_s(seq, gbs, mean)) : json_null());
	json_object_set_new(rec, "tflops_per_gpu", num_or_null(tf));
	json_object_set_new(rec, "mfu", mf > 0 && peak > 0 && have ? num_or_null(metric_mfu_pct(gbs, mf, mean, (double)scale, peak)) : json_null());
	if (isfinite(tf) && tf <= 0)
		add_reason(inv, "zero TFLOPS");
}

json_t *
record_build(const struct rec_src *s, struct sb *err)
{
	char job[128] = "", ex[32] = "", log[4096] = "";
	const struct stagecfg *tc = s->train_cfg;
	if (!tc || !tc->gpu || !tc->scale) {
		sb_addf(err, "%s: the train configuration lacks the run's coordinates", s->run_dir);
		return NULL;
	}
	const char *w = tc->workload, *gpu = tc->gpu, *size = tc->size, *dtype = tc->dtype;
	long scale = tc->scale;
	struct runrec *done = runrec_load(s->run_dir);
	if (done) {
		snprintf(job, sizeof job, "%s", done->job ? done->job : "");
		snprintf(ex, sizeof ex, "%s", done->executor ? done->executor : "");
		snprintf(log, sizeof log, "%s", done->log ? done->log : "");
	}
	if (!*job && s->job)
		snprintf(job, sizeof job, "%s", s->job);
	if (!*log && s->log)
		snprintf(log, sizeof log, "%s", s->log);
	if (!*ex && s->executor)
		snprintf(ex, sizeof ex, "%s", s->executor);
	runrec_free(done);
	if (!*job) {
		sb_addf(err, "%s: no job to key the record by (no train.done)", s->run_dir);
		return NULL;
	}
	json_t *inv = json_array();
	struct sb canon = {0};
	json_t *par = parallel_of(s->train_cfg, &canon);
	/* A proxy run (a shrunken model) has a history of its own, never a
	 * full-scale run's baseline, and no reference. */
	int proxy = train_of(tc)->proxy;
	if (proxy)
		sb_add(&canon, "proxy;");
	char h[65];
	sha256_hex(canon.buf ? canon.buf : "", canon.len, h);
	sb_free(&canon);
	char *fp = xasprintf("%s_%s_%s_%s_%ld_%.12s", w, gpu, size, dtype, scale, h);
	double *x = NULL, log_tflops = NAN, mean = NAN;
	int failed = s->job_state != NULL;
	size_t n = *log && !failed ? window_samples(s, log, &x, &log_tflops, inv, &failed) : 0;
	json_t *flags = *log && !failed ? seen_by_job(s, log, inv) : NULL;
	if (failed) {
		char *why = xasprintf("job %s", s->job_state ? s->job_state : "produced no step times");
		add_reason(inv, why);
		free(why);
	}
	json_t *samples = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(samples, json_real(x[i]));
	json_t *summary = summary_of(x, n, &mean);
	free(x);
	json_t *knobs = knobs_of(s->train_cfg, inv);
	char *nodes = s->nodes ? xstrdup(s->nodes) : nodes_of(ex, job), *now = utc_timestamp(), *ch = config_hash(s->train_cfg);
	char *ver = s->version ? xstrdup(s->version) : llmb_version(s->top);
	json_t *rec = json_pack("{s:i, s:s, s:s, s:{s:s, s:s, s:s, s:s, s:I, s:o}, s:s, s:s, s:s, s:s, s:b, s:o,"
				" s:o, s:o, s:o, s:o, s:s, s:s, s:s, s:s}",
				"v", 1, "type", "run", "fingerprint", fp,
				"key", "workload", w, "gpu", gpu, "size", size, "dtype", dtype, "scale", (json_int_t)scale,
				"parallel", par,
				"night", s->night, "job", job, "executor", *ex ? ex : "unknown",
				"status", failed ? "failed" : "ok", "valid", !failed && json_array_size(inv) == 0, "invalid", inv,
				"samples", samples, "summary", summary, "reference", proxy ? json_null() : reference_of(s, gpu, size, dtype, scale),
				"image", image_of(s->install, s->train_cfg), "config_hash", ch, "llmb_version", ver,
				"nodes", nodes, "recorded_at", now);
	if (!rec) {
		/* a value JSON cannot hold: a job id from a log's name, a node
		 * list, that is not UTF-8 */
		sb_addf(err, "%s: job %s: a value of the record is not UTF-8 text; not recorded", s->run_dir, job);
		json_decref(flags);
		json_decref(knobs);
		free(fp); free(nodes); free(now); free(ch); free(ver);
		return NULL;
	}
	rates(rec, s, mean, log_tflops, scale, dtype, json_object_get(rec, "invalid"));
	json_object_set_new(rec, "valid", json_boolean(!failed && json_array_size(json_object_get(rec, "invalid")) == 0));
	/* where the run's provenance.json lies, for the nightly "what changed" */
	size_t il = strlen(s->install);
	if (!strncmp(s->run_dir, s->install, il) && s->run_dir[il] == '/' && s->run_dir[il + 1])
		json_object_set_new(rec, "run_dir", json_string(s->run_dir + il + 1));
	if (proxy)
		json_object_set_new(rec, "proxy", json_true());
	if (flags)
		json_object_set_new(rec, "flagged", flags);
	if (json_object_size(knobs))
		json_object_set_new(rec, "knobs", knobs);
	else
		json_decref(knobs);
	free(fp); free(nodes); free(now); free(ch); free(ver);
	return rec;
}

/* ---- appending ---------------------------------------------------------------------- */

/* The file already holds a run record of this job. A line that does not
 * parse is skipped here: the reader reports it with its position. */
static int
has_job(const char *data, const char *job)
{
	for (const char *l = data; l && *l;) {
		size_t n = strcspn(l, "\n");
		json_t *o = json_loadb(l, n, 0, NULL);
		const char *t = json_string_value(json_object_get(o, "type")), *j = json_string_value(json_object_get(o, "job"));
		int hit = t && j && !strcmp(t, "run") && !strcmp(j, job);
		json_decref(o);
		if (hit)
			return 1;
		l += n + (l[n] == '\n');
	}
	return 0;
}

int
record_append(const char *install, json_t *rec)
{
	const char *fp = json_string_value(json_object_get(rec, "fingerprint"));
	const char *job = json_string_value(json_object_get(rec, "job"));
	char *lockpath = layout_history_lock(install);
	char *path = layout_history(install, fp);
	int rc = -1, fd = history_lock(lockpath);
	if (fd < 0) /* said, with what to do */
		goto out;
	/* a torn last line is ended by the appender (history.c), never glued to */
	char *old = read_file(path, NULL);
	if (old && has_job(old, job)) {
		rc = 0;
	} else {
		char *s = json_dumps(rec, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(10));
		char *line = xasprintf("%s\n", s ? s : "");
		int arc = history_append_locked(path, line);
		rc = arc == 0 ? 1 : -1;
		if (arc == -1)
			fprintf(stderr, "llmb record: error: cannot append to %s: %s\n", path, strerror(errno));
		free(line);
		free(s);
	}
	free(old);
	close(fd);
out:
	free(lockpath);
	free(path);
	return rc;
}

/* ---- from a plan ----------------------------------------------------------------------- */

json_t *
record_of_stage(struct plan *p, const struct inst *parse, const char *install, const char *night,
		const char *version, struct sb *err)
{
	const struct inst *train = NULL;
	for (size_t i = 0; i < parse->ndeps; i++)
		if (stage_kind_is(p->v[parse->deps[i]].kind, SK_TRAINING))
			train = &p->v[parse->deps[i]];
	if (!train) {
		sb_addf(err, "%s: no train stage upstream", parse->id);
		return NULL;
	}
	char *dir = layout_experiment(install, parse->workload, parse->conf.run);
	struct rec_src s = {install, p->rec.top, night, dir, &train->conf, &parse->conf, parse->wl,
		gpu_find(&p->rec, parse->gpu), version, NULL, NULL, NULL, NULL, NULL};
	/* A job that failed wrote no train.done: its job record keys it. */
	struct jobrec jr;
	if (!runrec_exists(dir) && jobrec_read(install, train->id, &jr) == 0 && *jr.job && !strcmp(jr.state, "failed")) {
		s.job = jr.job;
		s.executor = jr.executor;
		s.job_state = "failed";
	}
	json_t *rec = record_build(&s, err);
	free(dir);
	return rec;
}
