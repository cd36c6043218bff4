/* exemplar: `llmb exemplar`, what `make exemplar` runs. Plans the suite
 * of an exemplar file (exsuite.h; LLMB_EXEMPLAR set, the planner builds
 * one make graph of its runs: shared setup stages, fresh training runs in
 * experiments/exemplar/<run>/repeat-<r>), runs that graph with the make
 * command it is given, then certifies: each configuration's counted runs
 * (the measured repeats, never the profiled run) against its reference
 * (the recipe's reference: rows, as `llmb report` reads them), the pass
 * line, and the verdict. The table goes to INSTALL/exemplar/
 * certification.txt and .json (atomically) and to stdout; the exit status
 * is the verdict: 0 certified, 1 not certified, 2 error or could not run,
 * also in INSTALL/exemplar/status ("<code> <word>"), as `make` itself can
 * only exit 2 on failure. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/capture.h"
#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/diag.h"
#include "base/jget.h"
#include "base/util.h"
#include "exec/dryrun.h"
#include "plan/exsuite.h"
#include "plan/plan.h"
#include "plan/stale.h"
#include "results/record.h"
#include "results/reportmodel.h"
#include "run/selenv.h"
#include "store/layout.h"
#include "store/stagekind.h"

enum { EX_CERTIFIED, EX_NOT_CERTIFIED, EX_ERROR };

/* The reference metrics a pass is measured on, in order of preference:
 * step time (lower is faster), then throughput. */
static const int ref_order[] = {RM_STEP, RM_TOK, RM_TFLOPS};

/* One configuration of the suite: its runs and their outcome. */
struct conf {
	const struct inst *first;   /* its first parse instance */
	long planned, counted, failed, pending, invalid;
	double sum;                 /* of the counted runs' mean step times */
	const char *status;         /* pass, FAIL, no reference, invalid, failed, not run */
	double value, ref, pct;     /* of the metric the reference gives */
	int metric;                 /* report_metrics index, -1: no reference */
	json_t *runs;               /* each run: directory, state, status, step time */
	json_t *reasons;
	json_t *profiled;           /* the profiled run, or NULL */
	json_t *nearest;            /* without a reference: the published figure nearest, or NULL */
};

struct exrun {
	const char *top, *install, *suite;
	double pass_pct;
	struct exsuite x;
};

static int
same_conf(const struct inst *a, const struct inst *b)
{
	return !strcmp(a->workload, b->workload) && !strcmp(a->gpu, b->gpu) && !strcmp(a->size, b->size) &&
	       !strcmp(a->dtype, b->dtype) && a->scale == b->scale;
}

/* One run of c: its state, and when done its result. */
static void
add_run(struct conf *c, const struct plan *p, const struct inst *in, const char *install)
{
	const char *run = in->conf.run;
	enum runstate st = run_state(p, in, install);
	int prof = !strcmp(in->rep, "exemplar-profile");
	char *rp = layout_experiment_file(install, in->workload, run, LAYOUT_RESULT);
	json_t *res = st == R_DONE ? json_load_file(rp, JSON_REJECT_DUPLICATES, NULL) : NULL;
	free(rp);
	double t = report_num(json_object_get(res, "step_time"), "mean");
	/* a run its validity says is invalid keeps "status": "success" in
	 * result.json: invalid here, with the validity's reasons */
	const json_t *validity = json_object_get(res, "validity");
	int invalid = json_is_false(json_object_get(validity, "valid"));
	json_t *o = json_pack("{s:s,s:s,s:o}", "run", run, "status",
			      st == R_FAILED ? "failed" : st == R_PENDING ? "not run" : !res ? "not parsed"
			      : invalid && !strcmp(jget_str(res, "status"), "success") ? "invalid" : jget_str(res, "status"),
			      "step_time_mean", isnan(t) ? json_null() : json_real(t));
	if (*jget_str(res, "reason"))
		json_object_set_new(o, "reason", json_string(jget_str(res, "reason")));
	else if (invalid) {
		struct sb why = {0};
		size_t i;
		json_t *x;
		json_array_foreach(json_object_get(validity, "invalid"), i, x)
			if (json_is_string(x))
				sb_addf(&why, "%s%s", why.len ? "; " : "", json_string_value(x));
		json_object_set_new(o, "reason", json_string(why.len ? why.buf : "its validity says invalid"));
		sb_free(&why);
	}
	json_decref(res);
	const char *status = jget_str(o, "status");
	if (prof) {
		json_decref(c->profiled);
		c->profiled = o;
		return;
	}
	json_array_append_new(c->runs, o);
	c->planned++;
	if (st == R_FAILED || st == R_PENDING) {
		*(st == R_FAILED ? &c->failed : &c->pending) += 1;
		json_array_append_new(c->reasons, json_sprintf("%s: %s", run, st == R_FAILED ? "its job failed" : "did not run"));
	} else if (strcmp(status, "success") || isnan(t)) {
		/* invalid, incomplete, or profiled by a knob: never counted */
		const char *why = jget_str(o, "reason");
		c->invalid++;
		json_array_append_new(c->reasons, json_sprintf("%s: %s%s%s", run, status, *why ? ": " : "", why));
	} else {
		c->counted++;
		c->sum += t;
	}
}

/* The reference from the report's model of the configuration: its
 * unprofiled column at the scale gives each metric's reference and its
 * value at the column's mean step time, from which the value at the
 * counted runs' mean follows (throughput is inversely proportional). */
static void
compare(struct conf *c, const struct exrun *e)
{
	const struct inst *in = c->first;
	char *dir = layout_experiment(e->install, in->workload, LAYOUT_EXEMPLAR_RUNS);
	json_t *m = report_model(e->top, in->workload, in->gpu, in->size, in->dtype, 0, &dir, 1);
	free(dir);
	double mean = c->sum / (double)c->counted;
	size_t i;
	json_t *col;
	c->metric = -1;
	json_array_foreach(json_object_get(m, "columns"), i, col) {
		if (json_integer_value(json_object_get(col, "scale")) != in->scale ||
		    json_is_true(json_object_get(col, "profiled")))
			continue;
		json_t *cells = json_object_get(col, "metrics");
		double tcol = report_num(json_object_get(cells, "step_time"), "value");
		for (size_t k = 0; k < sizeof ref_order / sizeof *ref_order && c->metric < 0; k++) {
			const struct report_metric *mt = &report_metrics[ref_order[k]];
			json_t *cell = json_object_get(cells, mt->key);
			double ref = report_num(cell, "reference"), v = report_num(cell, "value");
			if (isnan(ref) || ref <= 0 || isnan(v))
				continue;
			c->metric = ref_order[k];
			c->ref = ref;
			c->value = mt->lower ? mean : v * tcol / mean;
			c->pct = mt->lower ? 100 * ref / mean : 100 * c->value / ref;
		}
		json_t *pub = json_object_get(col, "published");
		if (c->metric < 0 && pub && !json_is_true(json_object_get(pub, "match")))
			c->nearest = json_incref(pub);
	}
	json_decref(m);
}

static void
judge_conf(struct conf *c, const struct exrun *e)
{
	if (c->failed)
		c->status = "failed";
	else if (c->pending)
		c->status = "not run";
	else if (c->invalid)
		c->status = "invalid";
	else {
		compare(c, e);
		c->status = c->metric < 0 ? "no reference" : c->pct > e->pass_pct ? "pass" : "FAIL";
	}
}

static json_t *
conf_json(const struct conf *c)
{
	const struct inst *in = c->first;
	int has = c->metric >= 0;
	json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:I,s:s,s:I,s:I}", "workload", in->workload, "gpu", in->gpu, "size",
			      in->size, "dtype", in->dtype, "scale", (json_int_t)in->scale, "result", c->status,
			      "runs_planned", (json_int_t)c->planned, "runs_counted", (json_int_t)c->counted);
	json_object_set_new(o, "metric", has ? json_string(report_metrics[c->metric].key) : json_null());
	json_object_set_new(o, "value", has ? json_real(c->value) : json_null());
	json_object_set_new(o, "reference", has ? json_real(c->ref) : json_null());
	json_object_set_new(o, "pct_of_reference", has ? json_real(c->pct) : json_null());
	json_object_set_new(o, "runs", json_incref(c->runs));
	json_object_set_new(o, "reasons", json_incref(c->reasons));
	json_object_set_new(o, "profiled_run", c->profiled ? json_incref(c->profiled) : json_null());
	json_object_set_new(o, "nearest_published", c->nearest ? json_incref(c->nearest) : json_null());
	return o;
}

static void
conf_line(struct sb *t, const struct conf *c)
{
	const struct inst *in = c->first;
	char v[32] = "-", r[32] = "-", pct[16] = "-";
	if (c->metric >= 0) {
		snprintf(v, sizeof v, report_metrics[c->metric].fmt, c->value);
		snprintf(r, sizeof r, report_metrics[c->metric].fmt, c->ref);
		snprintf(pct, sizeof pct, "%.1f%%", c->pct);
	}
	char runs[32];
	snprintf(runs, sizeof runs, "%ld/%ld", c->counted, c->planned);
	sb_addf(t, "%-16s %-6s %-6s %6ld %5s  %-13s %12s %12s %8s  %s\n", in->workload, in->size, in->dtype, in->scale,
		runs, c->metric >= 0 ? report_metrics[c->metric].key : "-", v, r, pct, c->status);
	size_t i;
	json_t *why;
	json_array_foreach(c->reasons, i, why)
		sb_addf(t, "    %s\n", json_string_value(why));
	if (c->profiled)
		sb_addf(t, "    profiled run %s: %s (never counted)\n", jget_str(c->profiled, "run"),
			jget_str(c->profiled, "status"));
	if (c->nearest)
		sb_addf(t, "    no published figure at this scale and configuration; nearest: %s, %.0f tokens/s/GPU, %.0f "
			"TFLOPS/GPU (%s); differs: %s\n", jget_str(c->nearest, "label"),
			report_num(c->nearest, "tokens_per_s_per_gpu"), report_num(c->nearest, "tflops_per_gpu"),
			jget_str(c->nearest, "source"), jget_str(c->nearest, "differs"));
}

/* The verdict over every configuration, and its words. */
static int
verdict(const struct conf *cs, size_t n, struct sb *why)
{
	int incomplete = 0, pass = 0, noref = 0;
	for (size_t i = 0; i < n; i++) {
		incomplete |= !strcmp(cs[i].status, "failed") || !strcmp(cs[i].status, "not run");
		pass += !strcmp(cs[i].status, "pass");
		noref += !strcmp(cs[i].status, "no reference");
	}
	if (incomplete) {
		sb_add(why, "could not run: a run failed or did not run (make exemplar again resumes)");
		return EX_ERROR;
	}
	if ((size_t)pass == n) {
		sb_addf(why, "all %zu configuration(s) above the line", n);
		return EX_CERTIFIED;
	}
	if (noref)
		sb_addf(why, "no reference for %d configuration(s); ", noref);
	sb_addf(why, "%zu of %zu configuration(s) not passing:", n - (size_t)pass, n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(cs[i].status, "pass"))
			sb_addf(why, " %s %s %s (%s)", cs[i].first->workload, cs[i].first->size, cs[i].first->dtype,
				cs[i].status);
	return EX_NOT_CERTIFIED;
}

static const char *const verdict_words[] = {"CERTIFIED", "NOT CERTIFIED", "ERROR"};
static const char *const status_words[] = {"certified", "not-certified", "error"};

/* Writes the table and its JSON under INSTALL/exemplar and prints the
 * table; returns the exit status, or 2 when a file cannot be written. */
static int
write_cert(const struct exrun *e, const struct conf *cs, size_t n)
{
	struct sb t = {0}, why = {0};
	int code = verdict(cs, n, &why);
	sb_addf(&t, "llmb exemplar: suite %s, GPU %s, scale %ld, %ld repeat(s)%s, pass line: more than %g%% of the reference\n",
		e->suite, e->x.gpu, e->x.scale, e->x.m.repeats, e->x.profile ? " and a profiled run" : "", e->pass_pct);
	sb_addf(&t, "%-16s %-6s %-6s %6s %5s  %-13s %12s %12s %8s  %s\n", "workload", "size", "dtype", "scale", "runs",
		"metric", "measured", "reference", "of ref", "result");
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		conf_line(&t, &cs[i]);
		json_array_append_new(arr, conf_json(&cs[i]));
	}
	sb_addf(&t, "%s: %s\n", verdict_words[code], why.buf);
	char *ver = llmb_version(e->top), *now = utc_timestamp();
	json_t *j = json_pack("{s:i,s:s,s:s,s:I,s:I,s:b,s:f,s:s,s:b,s:i,s:s,s:s,s:o}", "schema", 1, "suite", e->suite,
			      "gpu", e->x.gpu, "scale", (json_int_t)e->x.scale, "repeats", (json_int_t)e->x.m.repeats,
			      "profile", e->x.profile, "pass_pct", e->pass_pct, "verdict", verdict_words[code], "certified",
			      code == EX_CERTIFIED, "exit_status", code, "llmb_version", ver, "time", now,
			      "configurations", arr);
	free(ver);
	free(now);
	char *js = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(j);
	char *tp = layout_exemplar(e->install, LAYOUT_EXEMPLAR_TABLE), *jp = layout_exemplar(e->install, LAYOUT_EXEMPLAR_JSON);
	mkdir_p(tp, 1);
	size_t jl = strlen(js);
	js = xrealloc(js, jl + 2);
	memcpy(js + jl, "\n", 2);
	/* make can only exit 2 on failure: the status file keeps the verdict */
	char *sp = layout_exemplar(e->install, LAYOUT_EXEMPLAR_STATUS), *sl = xasprintf("%d %s\n", code, status_words[code]);
	if (write_file_atomic(jp, js, jl + 1) < 0 || write_file_atomic(tp, t.buf, t.len) < 0 ||
	    write_file_atomic(sp, sl, strlen(sl)) < 0) {
		fprintf(stderr, "llmb exemplar: error: cannot write under %s: %s\n", e->install, strerror(errno));
		code = EX_ERROR;
	}
	free(sp);
	free(sl);
	fputs(t.buf, stdout);
	printf("files: %s, %s\n", tp, jp);
	free(tp);
	free(jp);
	free(js);
	sb_free(&t);
	sb_free(&why);
	return code;
}

/* The suite's configurations from the plan, each with its runs. */
static int
certify(struct exrun *e, const struct plan *p)
{
	struct conf *cs = NULL;
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct inst *in = &p->v[i];
		if (stage_kind_run(in->kind) != SK_RUN_PARSE || !in->rep || strncmp(in->rep, "exemplar-", 9))
			continue;
		size_t k = 0;
		while (k < n && !same_conf(cs[k].first, in))
			k++;
		if (k == n) {
			cs = xrealloc(cs, (n + 1) * sizeof *cs);
			cs[n++] = (struct conf){.first = in, .runs = json_array(), .reasons = json_array(), .metric = -1};
		}
		add_run(&cs[k], p, in, e->install);
	}
	for (size_t k = 0; k < n; k++)
		judge_conf(&cs[k], e);
	int code = n ? write_cert(e, cs, n) : EX_ERROR;
	if (!n)
		fprintf(stderr, "llmb exemplar: error: the plan has no exemplar runs\n");
	for (size_t k = 0; k < n; k++) {
		json_decref(cs[k].runs);
		json_decref(cs[k].reasons);
		json_decref(cs[k].profiled);
		json_decref(cs[k].nearest);
	}
	free(cs);
	return code;
}

/* EXEMPLAR_PASS_PCT, when set, moves the suite's pass line. */
static int
pass_line(struct exrun *e)
{
	const char *v = getenv("EXEMPLAR_PASS_PCT");
	e->pass_pct = e->x.pass_pct;
	if (!v || !*v)
		return 0;
	char *end;
	double d = strtod(v, &end);
	if (end == v || *end || !(d > 0 && d < 1000)) {
		fprintf(stderr, "llmb exemplar: error: EXEMPLAR_PASS_PCT=%s: a percentage above 0, like 95\n", v);
		return -1;
	}
	e->pass_pct = d;
	return 0;
}

static int
exemplar_run(struct exrun *e, char **make_argv)
{
	struct sel s;
	int selbad = sel_from_env(&s) < 0;
	struct plan p;
	int bad = plan_build(&p, e->top, &s, 0) || selbad;
	plan_free(&p);
	if (bad)
		return EX_ERROR;
	/* the plan loaded the suite already (a relative path below the top,
	 * as selection.c reads it): this load says nothing new */
	char *path = e->suite[0] == '/' || !strcmp(e->top, ".") ? xstrdup(e->suite) : xasprintf("%s/%s", e->top, e->suite);
	int bad_suite = exsuite_load(e->top, path, s.v[K_GPU_TYPE], &e->x);
	free(path);
	if (bad_suite || pass_line(e))
		return EX_ERROR;
	if (make_dry_run())
		return *make_argv ? proc_run_child(make_argv, "exemplar") : 0;
	int mk = *make_argv ? proc_run_child(make_argv, "exemplar") : 0;
	if (plan_build(&p, e->top, &s, 0)) {
		plan_free(&p);
		return EX_ERROR;
	}
	int code = certify(e, &p);
	if (mk && code != EX_ERROR)
		fprintf(stderr, "llmb exemplar: warning: make exited %d\n", mk);
	plan_free(&p);
	return code;
}

int
cmd_exemplar(int argc, char **argv)
{
	static const char usage[] =
		"usage: llmb exemplar [--top DIR] [--install DIR] [--suite FILE] [-- MAKE-COMMAND...]\n"
		"What `make exemplar` runs: plans the exemplar suite FILE (default pipelines/exemplar.yaml;\n"
		"GPU_TYPE picks the GPU type when it lists several), runs MAKE-COMMAND with LLMB_EXEMPLAR set\n"
		"(without one, certifies the runs already there), then certifies each configuration's\n"
		"measured runs against its reference (EXEMPLAR_PASS_PCT moves the suite's pass line) and\n"
		"writes INSTALL/exemplar/certification.{txt,json} and status.\n"
		"Exit status: 0 certified, 1 not certified, 2 error or a run that failed or did not run.\n";
	struct exrun e = {.top = ".", .install = layout_install_root(getenv(LAYOUT_INSTALL_VAR)),
		.suite = "pipelines/exemplar.yaml"};
	static const struct option longopts[] = {
		{"top", required_argument, NULL, 't'}, {"install", required_argument, NULL, 'i'},
		{"suite", required_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *text;
	int c;
	cliopt_start();
	while ((c = cliopt_next(argc, argv, "", longopts, &text)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		if (c == '?')
			return cliopt_refuse(text, "", longopts, usage);
		*(c == 't' ? &e.top : c == 'i' ? &e.install : &e.suite) = optarg;
	}
	if (optind < argc && !cliopt_dashes()) {
		fprintf(stderr, "%s", usage);
		return EX_ERROR;
	}
	setenv("LLMB_EXEMPLAR", e.suite, 1);
	int rc = exemplar_run(&e, argv + optind);
	exsuite_free(&e.x);
	return rc;
}
