/* confirm: see confirm.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/jget.h"
#include "nightly/confirm.h"
#include "plan/plan.h"
#include "recipe/slurmcmd.h"
#include "results/nodes.h"
#include "results/record.h"
#include "run/selenv.h"
#include "store/history.h"
#include "store/layout.h"

#define TAG "confirm"

/* nodes is a Slurm hostlist (n[1-3],n7): it expands. */
static int
hostlist_ok(const char *nodes)
{
	size_t n;
	char **v = nodes && *nodes ? nodes_expand(nodes, &n) : NULL;
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
	return v != NULL;
}

/* ---- one confirmation ------------------------------------------------------------ */

/* The record of this night's run of the configuration (the last one). */
static int
suspect_run(const char *install, const char *fp, const char *night, char **job, char **nodes)
{
	char *path = layout_history(install, fp);
	struct history h;
	int bad = history_load(path, &h);
	free(path);
	*job = *nodes = NULL;
	for (size_t i = 0; !bad && i < h.nruns; i++)
		if (!strcmp(h.runs[i].night, night) && h.runs[i].nodes && strcmp(h.runs[i].nodes, "unknown")) {
			free(*job);
			free(*nodes);
			*job = xstrdup(h.runs[i].job);
			*nodes = xstrdup(h.runs[i].nodes);
		}
	history_free(&h);
	return *nodes ? 0 : -1;
}

/* "YYYY-MM-DDTHH:MM:SS[Z]" as seconds, or -1. */
static double
iso_seconds(const json_t *v)
{
	const char *s = json_string_value(v);
	int h, m, sec;
	char day[11];
	if (!s || strlen(s) < 19 || sscanf(s + 11, "%2d:%2d:%2d", &h, &m, &sec) != 3)
		return -1;
	snprintf(day, sizeof day, "%.10s", s);
	int d = history_day(day);
	return d < 0 ? -1 : d * 86400.0 + h * 3600.0 + m * 60.0 + sec;
}

/* GPUs x hours of the run, from its provenance (start, else submit, to end). */
static double
gpu_hours(const char *install, const char *run_dir, long gpus)
{
	char *path = xasprintf("%s/%s/" LAYOUT_PROVENANCE, install, run_dir);
	double h = confirm_gpu_hours(path, gpus);
	free(path);
	return h;
}

double
confirm_gpu_hours(const char *path, long gpus)
{
	json_t *p = json_load_file(path, 0, NULL), *m = json_object_get(p, "machine");
	double a = iso_seconds(json_object_get(m, "start")), b = iso_seconds(json_object_get(m, "end"));
	if (a < 0)
		a = iso_seconds(json_object_get(m, "submit"));
	json_decref(p);
	return a >= 0 && b >= a ? (double)gpus * (b - a) / 3600 : NAN;
}

/* Runs make for the configuration's confirmation; the run's record (not
 * appended anywhere), or NULL. */
static json_t *
run_confirmation(const struct confirm_ctx *c, const json_t *key, const char *params, char **run_dir)
{
	char scale[32];
	snprintf(scale, sizeof scale, "%lld", (long long)json_integer_value(json_object_get(key, "scale")));
	const char *names[] = {"WORKLOAD", "SIZE", "DTYPE", "GPU_TYPE", "SCALES", "ADDITIONAL_SLURM_PARAMS",
		"LLMB_NIGHT_TAG", "ASYNC"};
	const char *vals[] = {jget_str(key, "workload"), jget_str(key, "size"), jget_str(key, "dtype"), jget_str(key, "gpu"), scale,
		params, TAG, "0"};
	size_t nv = sizeof names / sizeof *names, na = 0;
	char *saved[sizeof names / sizeof *names];
	while (c->make_argv[na])
		na++;
	char **argv = xcalloc(na + nv + 1, sizeof *argv);
	memcpy(argv, c->make_argv, na * sizeof *argv);
	for (size_t i = 0; i < nv; i++) {
		const char *old = getenv(names[i]);
		saved[i] = old ? xstrdup(old) : NULL;
		setenv(names[i], vals[i], 1);
		/* on make's command line too: it overrides what the outer make passes down */
		argv[na + i] = xasprintf("%s=%s", names[i], vals[i]);
	}
	int rc = na ? c->run(argv) : 0;
	if (rc)
		fprintf(stderr, "llmb nightly: the confirmation run's make exited with status %d\n", rc);
	struct sel s;
	int selbad = sel_from_env(&s) < 0;
	struct plan p;
	json_t *rec = NULL;
	if (!plan_build(&p, c->top, &s, 0) && !selbad) {
		for (size_t i = 0; i < p.n && !rec; i++) {
			const struct inst *in = &p.v[i];
			size_t rl = in->rep ? strlen(in->rep) : 0;
			if (strcmp(in->kind, "parse") || in->scale != json_integer_value(json_object_get(key, "scale")) ||
			    rl < sizeof TAG || strcmp(in->rep + rl - (sizeof TAG - 1), TAG))
				continue;
			struct sb err = {0};
			char *ver = llmb_version(c->top);
			rec = record_of_stage(&p, in, c->install, c->night, ver, &err);
			if (!rec)
				fprintf(stderr, "llmb nightly: confirmation: %s\n", err.buf ? err.buf : "no record");
			*run_dir = layout_experiment(NULL, in->workload, in->conf.run);
			free(ver);
			sb_free(&err);
		}
	}
	plan_free(&p);
	for (size_t i = 0; i < nv; i++) {
		if (saved[i])
			setenv(names[i], saved[i], 1);
		else
			unsetenv(names[i]);
		free(saved[i]);
		free(argv[na + i]);
	}
	free(argv);
	return rec;
}

/* The night is not held against the software: an acknowledgement. */
static int
acknowledge(const struct confirm_ctx *c, const char *fp, const char *reason)
{
	char *line = history_annotation_line(fp, history_action_name(ANN_ACK), c->night, reason, "llmb nightly");
	char *lock = layout_history_lock(c->install), *path = layout_history(c->install, fp);
	int rc = line ? history_append_line(lock, path, line) : -2;
	if (rc == -1)
		fprintf(stderr, "llmb nightly: cannot append to %s: %s\n", path, strerror(errno));
	free(line);
	free(lock);
	free(path);
	return rc;
}

static json_t *
confirm_one(const struct confirm_ctx *c, const json_t *cfg, int *acked)
{
	const char *fp = json_string_value(json_object_get(cfg, "fingerprint"));
	const json_t *key = json_object_get(cfg, "key"), *base = json_object_get(cfg, "baseline");
	json_t *o = json_pack("{s:s}", "fingerprint", fp);
	char *job, *nodes, *run_dir = NULL;
	struct sb err = {0};
	char *params = NULL;
	if (suspect_run(c->install, fp, c->night, &job, &nodes) < 0)
		sb_add(&err, "the night's record names no nodes");
	else if (!hostlist_ok(nodes))
		sb_addf(&err, "the suspect run's node list '%s' is not a Slurm hostlist", nodes ? nodes : "");
	else
		params = slurm_params_exclude(getenv("ADDITIONAL_SLURM_PARAMS"), nodes, &err);
	if (job)
		json_object_set_new(o, "suspect_job", json_string(job));
	if (nodes)
		json_object_set_new(o, "excluded", json_string(nodes));
	if (!params) {
		json_object_set_new(o, "outcome", json_string("not run"));
		json_object_set_new(o, "why", json_string(err.buf ? err.buf : "?"));
		goto out;
	}
	json_object_set_new(o, "slurm_params", json_string(params));
	json_t *rec = run_confirmation(c, key, params, &run_dir);
	const json_t *sum = json_object_get(rec, "summary");
	double mean = json_number_value(json_object_get(sum, "mean"));
	double hi = json_number_value(json_object_get(base, "high")), mu = json_number_value(json_object_get(base, "mean"));
	if (run_dir) {
		json_object_set_new(o, "run_dir", json_string(run_dir));
		double gh = gpu_hours(c->install, run_dir, (long)json_integer_value(json_object_get(key, "scale")));
		json_object_set_new(o, "gpu_hours", isfinite(gh) ? json_real(gh) : json_null());
	}
	if (rec) {
		json_object_set_new(o, "job", json_incref(json_object_get(rec, "job")));
		json_object_set_new(o, "nodes", json_incref(json_object_get(rec, "nodes")));
	}
	if (!rec || !json_is_true(json_object_get(rec, "valid")) || !(mean > 0) || !(hi > 0)) {
		json_object_set_new(o, "outcome", json_string("failed"));
		json_object_set_new(o, "why", json_string(!rec ? "the confirmation run left no record"
							  : !(hi > 0) ? "the night has no baseline band" : "the confirmation run is not valid"));
		json_decref(rec);
		goto out;
	}
	json_object_set_new(o, "mean", json_real(mean));
	json_object_set_new(o, "baseline_mean", json_real(mu));
	json_object_set_new(o, "baseline_high", json_real(hi));
	int slow = mean > hi;
	json_object_set_new(o, "outcome", json_string(slow ? "slow again" : "normal"));
	if (!slow) {
		char *why = xasprintf("confirmation run %s without nodes %s was normal (%.4g s vs baseline %.4g s): nodes suspect",
				      json_string_value(json_object_get(rec, "job")), nodes, mean, mu);
		int rc = acknowledge(c, fp, why);
		json_object_set_new(o, "acknowledged", json_boolean(rc == 0));
		*acked += rc == 0;
		free(why);
	}
	json_decref(rec);
out:
	sb_free(&err);
	free(job); free(nodes); free(params); free(run_dir);
	return o;
}

json_t *
confirm_night(const struct confirm_ctx *c)
{
	json_t *runs = json_array();
	size_t i;
	json_t *cfg;
	int acked = 0;
	double gh = 0;
	json_array_foreach(json_object_get(c->verdict, "configurations"), i, cfg) {
		const char *st = json_string_value(json_object_get(cfg, "state"));
		const char *night = json_string_value(json_object_get(cfg, "night"));
		if (!st || strcmp(st, "SUSPECT") || !night || strcmp(night, c->night))
			continue;
		json_t *r = confirm_one(c, cfg, &acked);
		gh += json_is_real(json_object_get(r, "gpu_hours")) ? json_real_value(json_object_get(r, "gpu_hours")) : 0;
		json_array_append_new(runs, r);
	}
	if (!json_array_size(runs)) {
		json_decref(runs);
		return NULL;
	}
	return json_pack("{s:o, s:f, s:i}", "runs", runs, "gpu_hours", gh, "acknowledged", acked);
}

void
confirm_text(struct sb *o, const json_t *conf)
{
	size_t i;
	json_t *r;
	if (!conf)
		return;
	json_array_foreach(json_object_get(conf, "runs"), i, r) {
		const char *out = json_string_value(json_object_get(r, "outcome"));
		sb_addf(o, "CONFIRMATION %s: ", json_string_value(json_object_get(r, "fingerprint")));
		if (!strcmp(out, "not run") || !strcmp(out, "failed")) {
			sb_addf(o, "%s: %s\n", out, json_string_value(json_object_get(r, "why")));
			continue;
		}
		sb_addf(o, "without %s (job %s on %s): %.4g s vs baseline %.4g s (band up to %.4g s): ",
			json_string_value(json_object_get(r, "excluded")), json_string_value(json_object_get(r, "job")),
			json_string_value(json_object_get(r, "nodes")), json_real_value(json_object_get(r, "mean")),
			json_real_value(json_object_get(r, "baseline_mean")), json_real_value(json_object_get(r, "baseline_high")));
		if (!strcmp(out, "slow again"))
			sb_add(o, "slow again: the software regressed\n");
		else
			sb_addf(o, "normal: nodes %s suspect; the night is not held against the software\n",
				json_string_value(json_object_get(r, "excluded")));
	}
	sb_addf(o, "confirmations: %zu run%s, %.4f GPU-hours\n", json_array_size(json_object_get(conf, "runs")),
		json_array_size(json_object_get(conf, "runs")) == 1 ? "" : "s", json_real_value(json_object_get(conf, "gpu_hours")));
}
