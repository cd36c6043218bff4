/* report: the seeds' performance table, measured. One row per scale of a
 * (workload, GPU type, size, dtype): step time mean +- sample std, tokens/s,
 * tokens/s/GPU, TFLOPS/GPU, MFU and days to train 1T tokens, each beside the
 * published reference and its difference, with a verdict on step time.
 * Reads each run's result.json (llmb parse) and train.done (job, log,
 * image); writes FILE.json and FILE.txt. Profiled runs and runs that did not
 * succeed are listed as excluded, never compared. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "flops.h"
#include "metrics.h"
#include "plan.h"
#include "recipe.h"
#include "util.h"

struct row {
	long scale;
	json_t *result;
	char *done;
};

static int
cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	return (x->scale > y->scale) - (x->scale < y->scale);
}

static double
jnum(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);
	if (b)
		v = json_object_get(v, b);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const struct ynode *
reference_row(const struct ynode *wl, const char *gpu, const char *size, const char *dtype, long scale)
{
	const struct ynode *refs = ymap_get(wl, "reference");
	for (size_t i = 0; refs && i < refs->nkids; i++) {
		const struct ynode *r = refs->kids[i];
		if (!strcmp(ystr(r, "gpu", ""), gpu) && !strcmp(ystr(r, "size", ""), size) &&
		    !strcmp(ystr(r, "dtype", ""), dtype) && yint(r, "scale", 0) == scale)
			return r;
	}
	return NULL;
}

static void
cell(struct sb *t, double v, const char *fmt, double ref)
{
	char b[64], r[64] = "";
	if (isnan(v))
		snprintf(b, sizeof b, "-");
	else
		snprintf(b, sizeof b, fmt, v);
	if (!isnan(ref) && !isnan(v) && ref != 0)
		snprintf(r, sizeof r, " (ref %.4g, %+.1f%%)", ref, 100 * (v - ref) / ref);
	sb_addf(t, " %14s%-24s", b, r);
}

static json_t *
jnumber(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static int
build(const char *top, const char *w, const char *gpu, const char *size, const char *dtype,
      double tol, const char *expdir, const char *out)
{
	struct recipes rec;
	if (recipes_load(&rec, top)) {
		recipes_free(&rec);
		return 2;
	}
	const struct ynode *wl = workload_find(&rec, w, NULL), *g = gpu_find(&rec, gpu);
	if (!wl || !g) {
		fprintf(stderr, "llmb report: error: unknown workload %s or GPU type %s\n", w, gpu);
		recipes_free(&rec);
		return 2;
	}
	double peak = NAN, mf = NAN;
	const struct ynode *pk = ymap_get(ymap_get(g, "peak_tflops"), dtype);
	if (pk)
		peak = strtod(pk->str, NULL);
	double tot;
	if (workload_model_flops(&rec, w, size, gpu, &tot, NULL) == 0)
		mf = tot;
	char *prefix = xasprintf("%s_%s_%s_", gpu, size, dtype);
	struct row *rows = NULL;
	size_t n = 0;
	DIR *d = opendir(expdir);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		char *rp = xasprintf("%s/%s/result.json", expdir, e->d_name);
		char *dp = xasprintf("%s/%s/train.done", expdir, e->d_name);
		json_t *j = json_load_file(rp, 0, NULL);
		if (j) {
			rows = xrealloc(rows, (n + 1) * sizeof *rows);
			rows[n++] = (struct row){strtol(e->d_name + strlen(prefix), NULL, 10), j, read_file(dp, NULL)};
		}
		free(rp);
		free(dp);
	}
	if (d)
		closedir(d);
	qsort(rows, n, sizeof *rows, cmp_row);
	struct sb t = {0};
	json_t *jr = json_object(), *jrows = json_array(), *excl = json_array();
	sb_addf(&t, "llmb report: %s %s %s %s (step time tolerance %.1f%%)\n", w, gpu, size, dtype, tol);
	sb_addf(&t, "%-6s %14s%-24s %14s%-24s %14s%-24s %14s%-24s %14s%-24s %s\n", "GPUs", "step time (s)", "", "tokens/s", "",
		"TFLOPS/GPU", "", "MFU %", "", "days/1T tok", "", "verdict");
	for (size_t i = 0; i < n; i++) {
		const char *status = json_string_value(json_object_get(rows[i].result, "status"));
		int profiled = status && !strcmp(status, "profiled");
		if (!status || (strcmp(status, "success") && !profiled)) {
			json_array_append_new(excl, json_pack("{s:I,s:s,s:s}", "scale", (json_int_t)rows[i].scale,
							      "status", status ? status : "?", "why", "the run did not succeed"));
			sb_addf(&t, "%-6ld excluded: %s\n", rows[i].scale, status ? status : "no status");
			continue;
		}
		const struct ynode *cfg = workload_config(wl, gpu, size, dtype, rows[i].scale);
		struct params p = {0};
		double seq = NAN, gbs = NAN;
		if (cfg && config_params("", cfg, rows[i].scale, yint(g, "gpus_per_node", 8), &p) == 0) {
			params_get(&p, "seq", &seq);
			params_get(&p, "gbs", &gbs);
		}
		params_free(&p);
		double st = jnum(rows[i].result, "step_time", "mean"), sd = jnum(rows[i].result, "step_time", "std_sample");
		struct metrics m;
		metrics_compute(&m, seq, gbs, st, (double)rows[i].scale, mf, peak, METRICS_TOKENS_DEFAULT);
		const struct ynode *ref = profiled ? NULL : reference_row(wl, gpu, size, dtype, rows[i].scale);
		double rst = ref && ystr(ref, "step_time", NULL) ? strtod(ystr(ref, "step_time", ""), NULL) : NAN;
		const char *verdict = profiled ? "profiled: not comparable" : isnan(rst) ? "no reference"
				    : fabs(st - rst) / rst * 100 <= tol ? "within tolerance" : st < rst ? "faster" : "slower";
		char stc[64];
		snprintf(stc, sizeof stc, "%.3f+-%.3f", st, sd);
		sb_addf(&t, "%-6ld %14s%-24s", rows[i].scale, stc, "");
		cell(&t, m.tokens_per_s, "%.1f", ref && ystr(ref, "tokens_per_s", NULL) ? strtod(ystr(ref, "tokens_per_s", ""), NULL) : NAN);
		cell(&t, m.tflops_per_gpu, "%.4g", ref && ystr(ref, "tflops_per_gpu", NULL) ? strtod(ystr(ref, "tflops_per_gpu", ""), NULL) : NAN);
		cell(&t, m.mfu_pct, "%.2f", ref && ystr(ref, "mfu_pct", NULL) ? strtod(ystr(ref, "mfu_pct", ""), NULL) : NAN);
		cell(&t, m.days, "%.2f", ref && ystr(ref, "days_1t", NULL) ? strtod(ystr(ref, "days_1t", ""), NULL) : NAN);
		sb_addf(&t, " %s\n", verdict);
		char job[64] = "", log[4096] = "", img[256] = "", cfgh[80] = "", note[256] = "";
		if (rows[i].done) {
			cfg_get(rows[i].done, "job", job, sizeof job);
			cfg_get(rows[i].done, "log", log, sizeof log);
			cfg_get(rows[i].done, "image", img, sizeof img);
			cfg_get(rows[i].done, "cfg", cfgh, sizeof cfgh);
			cfg_get(rows[i].done, "note", note, sizeof note);
		}
		json_array_append_new(jrows, json_pack("{s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:s,s:s,s:s,s:s,s:s,s:b}",
			"scale", (json_int_t)rows[i].scale, "step_time_mean", jnumber(st), "step_time_std_sample", jnumber(sd),
			"tokens_per_s", jnumber(m.tokens_per_s), "tflops_per_gpu", jnumber(m.tflops_per_gpu),
			"mfu_pct", jnumber(m.mfu_pct), "days_1t", jnumber(m.days), "reference_step_time", jnumber(rst),
			"verdict", verdict, "job", job, "log", log, "image", img, "config_hash", cfgh, "note", note,
			"profiled", profiled));
		if (*note)
			sb_addf(&t, "       note: %s\n", note);
		sb_addf(&t, "       job %s, log %s, image %s, config %.12s\n", job, log, img, cfgh);
	}
	if (!n)
		sb_add(&t, "(no runs yet)\n");
	json_object_set_new(jr, "workload", json_string(w));
	json_object_set_new(jr, "gpu", json_string(gpu));
	json_object_set_new(jr, "size", json_string(size));
	json_object_set_new(jr, "dtype", json_string(dtype));
	json_object_set_new(jr, "model_flops_per_sample", jnumber(mf));
	json_object_set_new(jr, "peak_tflops", jnumber(peak));
	json_object_set_new(jr, "tolerance_pct", json_real(tol));
	json_object_set_new(jr, "runs", jrows);
	json_object_set_new(jr, "excluded", excl);
	int rc = 0;
	if (out) {
		char *js = json_dumps(jr, JSON_SORT_KEYS | JSON_INDENT(2));
		char *txt = xasprintf("%s.txt", out);
		if (!js || write_file_atomic(out, js, strlen(js)) < 0 || write_file_atomic(txt, t.buf, t.len) < 0) {
			fprintf(stderr, "llmb report: error: cannot write %s\n", out);
			rc = 2;
		}
		free(js);
		free(txt);
	} else {
		fputs(t.buf, stdout);
	}
	json_decref(jr);
	for (size_t i = 0; i < n; i++) {
		json_decref(rows[i].result);
		free(rows[i].done);
	}
	free(rows);
	free(prefix);
	sb_free(&t);
	recipes_free(&rec);
	return rc;
}

/* llmb report --show --install DIR REPORT-ID: prints a written report. */
static int
show(const char *install, const char *id)
{
	char w[128], rest[256];
	/* report.<workload>.<gpu>.<size>.<dtype> */
	const char *p = strchr(id, '.');
	if (!p || sscanf(p + 1, "%127[^.].%255s", w, rest) != 2) {
		fprintf(stderr, "llmb report: error: %s is not a report stage\n", id);
		return 2;
	}
	for (char *c = rest; *c; c++)
		if (*c == '.')
			*c = '_';
	char *path = xasprintf("%s/workloads/%s/reports/%s.json.txt", install, w, rest);
	char *s = read_file(path, NULL);
	if (!s) {
		fprintf(stderr, "llmb report: error: no report at %s\n", path);
		free(path);
		return 2;
	}
	fputs(s, stdout);
	printf("(written to %s and .json)\n", path);
	free(s);
	free(path);
	return 0;
}

int
cmd_report(int argc, char **argv)
{
	const char *top = ".", *out = NULL, *w = NULL, *gpu = NULL, *size = NULL, *dtype = NULL, *install = "install";
	double tol = 5;
	int doshow = 0, i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (!strncmp(a, "--top=", 6))
			top = a + 6;
		else if (!strncmp(a, "--out=", 6))
			out = a + 6;
		else if (!strncmp(a, "--tolerance=", 12))
			tol = strtod(a + 12, NULL);
		else if (!strcmp(a, "--show"))
			doshow = 1;
		else if (i + 1 < argc && !strcmp(a, "--install"))
			install = argv[++i];
		else if (i + 1 < argc && !strcmp(a, "--workload"))
			w = argv[++i];
		else if (i + 1 < argc && !strcmp(a, "--gpu"))
			gpu = argv[++i];
		else if (i + 1 < argc && !strcmp(a, "--size"))
			size = argv[++i];
		else if (i + 1 < argc && !strcmp(a, "--dtype"))
			dtype = argv[++i];
		else
			break;
	}
	if (doshow && i == argc - 1)
		return show(install, argv[i]);
	if (!w || !gpu || !size || !dtype || i != argc - 1) {
		fprintf(stderr, "usage: llmb report [--top=DIR] [--out=FILE] [--tolerance=PCT] --workload W --gpu G --size S --dtype D EXPERIMENTS-DIR\n"
			"       llmb report --show --install DIR REPORT-STAGE-ID\n");
		return 2;
	}
	return build(top, w, gpu, size, dtype, tol, argv[i], out);
}
