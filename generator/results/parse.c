/* parse: the training-log report, for `llmb parse` (cmd_parse.c) and the
 * parse stages of `llmb run`. Walks directories for *.out logs (skipping the
 * upstream helper logs), parses each with logparse and prints one row per
 * log as a table, CSV or JSON, sorted by file name; with --result=FILE also
 * writes the one log's full result for `llmb report`.
 *
 * Listing columns follow upstream parse_train_timing.sh:
 *   filename,status,time_mean_seconds,time_std_dev_seconds,
 *   tflops_per_gpu_mean,tflops_per_gpu_std_dev,max_iteration
 * plus note,error,path at the end. Status words: Success, Incomplete,
 * Failed, Invalid, Profiled; the numbers are given for Success and Profiled
 * rows only. max_iteration is the highest iteration seen.
 *
 * Result file (--result, JSON, keys sorted), schema 1:
 *   schema             1
 *   file               path of the log
 *   format             "nemo2" | "maxtext" | "mbridge" | null (no step lines)
 *   status             "success" | "incomplete" | "failed" | "invalid" | "profiled"
 *   note               "time_limit" | null
 *   reason             invalid only: "loss=nan", "grad_norm=nan", "tflops=0",
 *                      "step_time=nan", ... (else null)
 *   invalid_iteration  integer | null
 *   first_error        {"line": integer|null, "text": string} | null
 *   window             {"first", "last", "present", "expected"} (integers)
 *   indexing           "zero" | "one"
 *   steps              expected number of steps
 *   final_iteration    iteration number of the final step
 *   last_iteration     highest iteration seen | null
 *   final_reached      boolean
 *   time_limit         boolean: a Slurm TIME LIMIT cancellation was logged
 *   std                "sample" | "population" (which one "std" below is)
 *   step_time          stats (seconds) | null
 *   tflops_per_gpu     stats | null
 *     stats = {"n", "mean", "std", "std_sample", "std_population",
 *              "min", "max", "median"} over the window
 *   last_step          sample | null (highest iteration)
 *   samples            [sample...] sorted by iteration, one per iteration
 *     sample = {"iteration", "step_time", "tflops_per_gpu", "loss",
 *               "grad_norm"} (null when the log has no such value)
 *   proxy              true, only for a proxy run (--proxy): never compared
 *   unlisted           true, only for a run at a scale its recipe does not list
 *                      (--unlisted; DP and GA derived): never compared
 *   checkpoints        [{"kind": "save"|"load", "iteration": int|null,
 *                        "seconds": number}...]
 *   profiles           present only when the run's folder holds profiles
 *                      (layout_profile_file): [{"path", "bytes"}...],
 *                      paths below the folder, in byte order
 *   peak_memory_bytes  integer | null
 *   step_lines, duplicate_lines, skipped_long_lines, dropped_samples,
 *   malformed_lines    counts: step lines read, repeated iterations, lines
 *                      over 64 KiB skipped, samples over the cap, step
 *                      lines without a step time (e.g. cut short)
 *   restarts           present only when the iterations went back (the job
 *                      restarted into the same log): how many times; the
 *                      samples and statistics are of the last attempt only
 *   validity           present only with --provenance (the parse stage
 *                      gives the run's provenance.json): what the job saw
 *                      that makes the run invalid or flags it (validity.h)
 */
#define _DEFAULT_SOURCE /* DT_DIR */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "base/util.h"
#include "results/logparse.h"
#include "results/parse.h"
#include "results/validity.h"
#include "store/layout.h"

/* Basenames never parsed when walking a directory (upstream rules). */
static const struct skip {
	const char *s;
	int prefix; /* 1: basename starts with s; 0: contains s */
} skips[] = {
	{"nccltrace", 0},
	{"prepare_squad_dataset_exp", 0},
	{"import_ckpt_exp", 0},
	{"nsys_analysis", 0},
	{"sbatch_", 1},
	{"vboost", 1},
};

static const char *const status_words[] = {
	[LP_SUCCESS] = "Success", [LP_INCOMPLETE] = "Incomplete", [LP_FAILED] = "Failed",
	[LP_INVALID] = "Invalid", [LP_PROFILED] = "Profiled",
};

int
parse_usage(FILE *f)
{
	fprintf(f,
		"usage: llmb parse [--format=table|csv|json] [--full-names] [--window=A-B]\n"
		"                  [--log-format=auto|nemo2|maxtext|mbridge] [--steps=N]\n"
		"                  [--indexing=zero|one] [--std=sample|population] [--profiled]\n"
		"                  [--result=FILE [--provenance=FILE] [--proxy] [--unlisted]]\n"
		"                  [DIR_OR_FILE...]\n"
		"\n"
		"Parses training logs: every *.out file under each DIR (default: experiments)\n"
		"and every FILE named. Directory walks skip basenames matching:\n");
	for (size_t i = 0; i < sizeof skips / sizeof *skips; i++)
		fprintf(f, "  %s%s*\n", skips[i].prefix ? "" : "*", skips[i].s);
	fprintf(f,
		"\n"
		"  --window=A-B     iterations averaged, in the log's numbering (default " LAYOUT_WINDOW_DEFAULT ")\n"
		"  --steps=N        expected steps (default: from 'iteration N/M', else %d)\n"
		"  --indexing=...   iteration numbering (default: zero, one for mbridge)\n"
		"  --std=...        standard deviation reported (default: sample, n-1)\n"
		"  --profiled       mark the runs as profiled (not for comparison)\n"
		"  --result=FILE    with exactly one log: write its full result as JSON\n"
		"  --provenance=FILE  with --result: judge the run's validity from the log's\n"
		"                   NCCL lines and this provenance.json's node probes\n"
		"  --proxy          with --result: the run is a proxy run (\"proxy\": true), never\n"
		"                   compared with a reference\n"
		"  --unlisted       with --result: the run is at a scale its recipe does not list\n"
		"                   (\"unlisted\": true), never compared with a reference\n"
		"\n"
		"Exit status: 0 when a log parsed as a success, 1 when none did, 2 on usage errors or\n"
		"a --provenance that cannot be read (missing, not a regular file, not a JSON object).\n"
		"A run --provenance finds invalid is listed and counted as Invalid, its exit status 0.\n",
		LP_DEFAULT_STEPS);
	return f == stderr ? 2 : 0;
}

int
parse_bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", progname);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return parse_usage(stderr);
}

int
parse_long(const char *s, long *v)
{
	char *end;
	errno = 0;
	long x = strtol(s, &end, 10);
	if (errno || end == s || *end || x < 0)
		return -1;
	*v = x;
	return 0;
}

int
parse_window(const char *s, struct lp_opts *o)
{
	const char *dash = strchr(s, '-');
	if (!dash)
		return -1;
	char *lo = xstrndup(s, (size_t)(dash - s));
	int rc = parse_long(lo, &o->win_lo) || parse_long(dash + 1, &o->win_hi) ||
		 o->win_lo > o->win_hi;
	free(lo);
	return rc ? -1 : 0;
}

/* ---- finding logs --------------------------------------------------------- */

struct paths {
	char **v;
	size_t n, cap;
};

static void
paths_add(struct paths *ps, char *path)
{
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? 2 * ps->cap : 64;
		ps->v = xrealloc(ps->v, ps->cap * sizeof *ps->v);
	}
	ps->v[ps->n++] = path;
}

static int
skipped(const char *base)
{
	size_t len = strlen(base);
	if (len < 4 || strcmp(base + len - 4, ".out"))
		return 1;
	for (size_t i = 0; i < sizeof skips / sizeof *skips; i++) {
		const char *s = skips[i].s;
		if (skips[i].prefix ? !strncmp(base, s, strlen(s)) : strstr(base, s) != NULL)
			return 1;
	}
	return 0;
}

/* Like find DIR -name '*.out': directories are entered (symlinks to them
 * are not), every other entry named *.out is a log. */
static void
walk(const char *dir, struct paths *ps)
{
	DIR *d = opendir(dir);
	if (!d) {
		warn("cannot open directory '%s': %s", dir, strerror(errno));
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		char *path = xasprintf("%s/%s", dir, name);
		int isdir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;
			isdir = lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
		}
		if (isdir) {
			walk(path, ps);
			free(path);
		} else if (!skipped(name)) {
			paths_add(ps, path);
		} else {
			free(path);
		}
	}
	closedir(d);
}

/* Named arguments: directories are walked, anything else is a log. */
static int
collect(int argc, char **argv, struct paths *ps)
{
	for (int i = 0; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0 && lstat(argv[i], &st) < 0) {
			fprintf(stderr, "%s: error: cannot access '%s': %s\n", progname, argv[i],
				strerror(errno));
			return -1;
		}
		if (S_ISDIR(st.st_mode))
			walk(argv[i], ps);
		else
			paths_add(ps, xstrdup(argv[i]));
	}
	return 0;
}

static const char *
base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* By basename, then by path: rows, and warnings, in a stable order. */
static int
cmp_path(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int c = strcmp(base_of(x), base_of(y));
	return c ? c : strcmp(x, y);
}

/* ---- rows ----------------------------------------------------------------- */

struct counts {
	size_t by[LP_PROFILED + 1], total;
};

static int
has_numbers(const struct lp_result *r)
{
	return r->status == LP_SUCCESS || r->status == LP_PROFILED;
}

static double
std_of(const struct lp_stats *st, int sample)
{
	return sample ? st->std_sample : st->std_population;
}

/* Short machine-readable note: time_limit, grad_norm=nan@iteration_37, ... */
static char *
note_of(const struct lp_result *r)
{
	if (r->status == LP_INVALID && r->invalid_iter < 0)
		return xstrdup(r->reason);
	if (r->status == LP_INVALID)
		return xasprintf("%s@iteration_%ld", r->reason, r->invalid_iter);
	if (r->status == LP_FAILED && !r->error)
		return xstrdup("no step lines");
	if (r->restarts)
		return xasprintf("%s%srestarted_%zu_times_last_attempt_measured", r->note ? r->note : "",
				 r->note ? "," : "", r->restarts);
	return xstrdup(r->note ? r->note : "");
}

static char *
error_of(const struct lp_result *r)
{
	if (!r->error)
		return xstrdup("");
	if (r->error_line > 0)
		return xasprintf("line %ld: %s", r->error_line, r->error);
	return xstrdup(r->error);
}

/* Upstream's `sed -E 's/^[^.]*\.//; s/_0\.out$//'`, except that a name with
 * a single dot keeps its stem. */
static char *
short_name(const char *path)
{
	const char *b = base_of(path), *dot = strchr(b, '.');
	if (dot && strchr(dot + 1, '.'))
		b = dot + 1;
	size_t n = strlen(b);
	if (n >= 6 && !strcmp(b + n - 6, "_0.out"))
		n -= 6;
	return xstrndup(b, n);
}

/* ---- table ---------------------------------------------------------------- */

static void
fmt_num(char *buf, size_t sz, double v, int prec, int ok)
{
	if (ok && isfinite(v))
		snprintf(buf, sz, "%.*f", prec, v);
	else
		snprintf(buf, sz, "-");
}

static void
table_row(const struct lp_result *r, const struct parse_opts *p)
{
	char tm[32], ts[32], fm[32], fs[32];
	int num = has_numbers(r), tf = num && r->tflops.n;
	fmt_num(tm, sizeof tm, r->time.mean, 3, num && r->time.n);
	fmt_num(ts, sizeof ts, std_of(&r->time, p->sample_std), 3, num && r->time.n);
	fmt_num(fm, sizeof fm, r->tflops.mean, 2, tf);
	fmt_num(fs, sizeof fs, std_of(&r->tflops, p->sample_std), 2, tf);
	char *name = p->full_names ? xstrdup(base_of(r->path)) : short_name(r->path);
	struct sb note = {0};
	if (r->status == LP_INCOMPLETE)
		sb_addf(&note, "last iteration %ld%s", r->last_iter, r->note ? ", time_limit" : "");
	else if (r->status == LP_INVALID && r->invalid_iter < 0)
		sb_add(&note, r->reason);
	else if (r->status == LP_INVALID)
		sb_addf(&note, "%s at iteration %ld", r->reason, r->invalid_iter);
	else if (r->status == LP_FAILED && r->error && r->error_line > 0)
		sb_addf(&note, "line %ld: %.80s", r->error_line, r->error);
	else if (r->status == LP_FAILED)
		sb_addf(&note, "%.80s", r->error ? r->error : "no step lines");
	else if (r->note)
		sb_add(&note, r->note);
	if (r->restarts)
		sb_addf(&note, "%srestarted %zu time(s): last attempt measured", note.len ? ", " : "", r->restarts);
	printf("%-90s %10s %13s %12s %19s %18s%s%s\n", name, status_words[r->status], tm, ts, fm,
	       fs, note.len ? "  " : "", note.len ? note.buf : "");
	sb_free(&note);
	free(name);
}

static void
dashes(int n, const char *after)
{
	for (int i = 0; i < n; i++)
		putchar('-');
	fputs(after, stdout);
}

static void
print_table(struct lp_result *rs, size_t n, const struct parse_opts *p, const struct counts *c)
{
	printf("Train Step Timing and TFLOPS Analysis (iterations %ld-%ld)\n", p->lp.win_lo, p->lp.win_hi);
	printf("================================================================================\n");
	printf("%-90s %10s %13s %12s %19s %18s  %s\n", "Experiment", "Status", "Time Mean (s)",
	       "Time Std (s)", "TFLOPS_per_GPU Mean", "TFLOPS_per_GPU Std", "Note");
	static const int w[] = {90, 10, 13, 12, 19, 18};
	for (size_t i = 0; i < sizeof w / sizeof *w; i++)
		dashes(w[i], i + 1 < sizeof w / sizeof *w ? " " : "  ----\n");
	for (size_t i = 0; i < n; i++)
		table_row(&rs[i], p);
	printf("\nSummary:\n");
	printf("  Success experiments: %zu\n", c->by[LP_SUCCESS]);
	printf("  Incomplete experiments: %zu\n", c->by[LP_INCOMPLETE]);
	printf("  Failed experiments: %zu\n", c->by[LP_FAILED]);
	printf("  Invalid experiments: %zu\n", c->by[LP_INVALID]);
	printf("  Profiled experiments: %zu\n", c->by[LP_PROFILED]);
	size_t den = c->total - c->by[LP_PROFILED];
	if (den)
		printf("  Success rate: %zu%%\n", c->by[LP_SUCCESS] * 100 / den);
	else
		printf("  Success rate: N/A\n");
	printf("  Std: %s\n", p->sample_std ? "sample (n-1)" : "population (n)");
}

/* ---- CSV ------------------------------------------------------------------ */

static void
csv_field(const char *s, int last)
{
	if (strpbrk(s, ",\"\n\r")) {
		putchar('"');
		for (; *s; s++) {
			if (*s == '"')
				putchar('"');
			putchar(*s);
		}
		putchar('"');
	} else {
		fputs(s, stdout);
	}
	putchar(last ? '\n' : ',');
}

static void
csv_num(double v, int prec, int ok)
{
	char buf[32];
	fmt_num(buf, sizeof buf, v, prec, ok);
	csv_field(strcmp(buf, "-") ? buf : "", 0);
}

static void
print_csv(struct lp_result *rs, size_t n, const struct parse_opts *p, const struct counts *c)
{
	printf("filename,status,time_mean_seconds,time_std_dev_seconds,tflops_per_gpu_mean,"
	       "tflops_per_gpu_std_dev,max_iteration,note,error,path\n");
	for (size_t i = 0; i < n; i++) {
		const struct lp_result *r = &rs[i];
		int num = has_numbers(r), tf = num && r->tflops.n;
		csv_field(base_of(r->path), 0);
		csv_field(status_words[r->status], 0);
		csv_num(r->time.mean, 3, num && r->time.n);
		csv_num(std_of(&r->time, p->sample_std), 3, num && r->time.n);
		csv_num(r->tflops.mean, 2, tf);
		csv_num(std_of(&r->tflops, p->sample_std), 2, tf);
		char it[32] = "";
		if (r->last_iter >= 0)
			snprintf(it, sizeof it, "%ld", r->last_iter);
		csv_field(it, 0);
		char *note = note_of(r), *err = error_of(r);
		csv_field(note, 0);
		csv_field(err, 0);
		csv_field(r->path, 1);
		free(note);
		free(err);
	}
	printf("# Summary: %zu success, %zu incomplete, %zu failed, %zu invalid, %zu profiled, "
	       "%zu total\n", c->by[LP_SUCCESS], c->by[LP_INCOMPLETE], c->by[LP_FAILED],
	       c->by[LP_INVALID], c->by[LP_PROFILED], c->total);
	printf("# std: %s\n", p->sample_std ? "sample" : "population");
}

/* ---- JSON ----------------------------------------------------------------- */

static json_t *
jround(double v, int prec, int ok)
{
	double f = prec == 3 ? 1000 : 100;
	return ok && isfinite(v) ? json_real(round(v * f) / f) : json_null();
}

static json_t *
json_row(const struct lp_result *r, const struct parse_opts *p)
{
	int num = has_numbers(r), tf = num && r->tflops.n;
	char *note = note_of(r);
	json_t *err = r->error ? lp_json_str(r->error) : json_null();
	json_t *j = json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			      "filename", lp_json_str(base_of(r->path)), "status", status_words[r->status],
			      "time_mean", jround(r->time.mean, 3, num && r->time.n),
			      "time_std_dev", jround(std_of(&r->time, p->sample_std), 3, num && r->time.n),
			      "tflops_per_gpu_mean", jround(r->tflops.mean, 2, tf),
			      "tflops_per_gpu_std_dev", jround(std_of(&r->tflops, p->sample_std), 2, tf),
			      "max_iteration", r->last_iter >= 0 ? json_integer(r->last_iter) : json_null(),
			      "note", *note ? json_string(note) : json_null(),
			      "error", err,
			      "error_line", r->error_line > 0 ? json_integer(r->error_line) : json_null(),
			      "format", r->format == LP_AUTO ? json_null() : json_string(lp_format_name(r->format)),
			      "path", lp_json_str(r->path));
	free(note);
	return j;
}

static void
print_json(struct lp_result *rs, size_t n, const struct parse_opts *p, const struct counts *c,
	   int argc, char **argv)
{
	json_t *results = json_array(), *inputs = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(results, json_row(&rs[i], p));
	for (int i = 0; i < argc; i++)
		json_array_append_new(inputs, lp_json_str(argv[i]));
	size_t den = c->total - c->by[LP_PROFILED];
	json_t *root = json_pack(
		"{s:{s:I, s:I, s:o, s:o, s:s, s:s}, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:o}}",
		"analysis", "min_iteration", (json_int_t)p->lp.win_lo, "max_iteration",
		(json_int_t)p->lp.win_hi, "experiments_directory", lp_json_str(argc ? argv[0] : "experiments"),
		"inputs", inputs, "std", p->sample_std ? "sample" : "population",
		"log_format", lp_format_name(p->lp.format), "results", results, "summary",
		"success_experiments", (json_int_t)c->by[LP_SUCCESS], "incomplete_experiments",
		(json_int_t)c->by[LP_INCOMPLETE], "failed_experiments", (json_int_t)c->by[LP_FAILED],
		"invalid_experiments", (json_int_t)c->by[LP_INVALID], "profiled_experiments",
		(json_int_t)c->by[LP_PROFILED], "total_experiments", (json_int_t)c->total,
		"success_rate", den ? json_integer((json_int_t)(c->by[LP_SUCCESS] * 100 / den)) : json_null());
	char *s = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
	puts(s);
	free(s);
	json_decref(root);
}

/* The profiles below dir (rel its path below the run's folder) into a: a
 * folder holding a run's own files is another run's, and is not entered. */
static void
scan_profiles(json_t *a, const char *dir, const char *rel, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.' || has_control(e->d_name))
			continue;
		char *abs = xasprintf("%s/%s", dir, e->d_name);
		char *r = rel ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
		char *done = xasprintf("%s/%s", abs, LAYOUT_TRAIN_DONE);
		struct stat st;
		int ok = lstat(abs, &st) == 0; /* a link is never followed */
		if (ok && S_ISREG(st.st_mode) && layout_profile_file(r))
			json_array_append_new(a, json_pack("{s:s,s:I}", "path", r, "bytes", (json_int_t)st.st_size));
		else if (ok && S_ISDIR(st.st_mode) && depth < 4 && !file_exists(done))
			scan_profiles(a, abs, r, depth + 1);
		free(done);
		free(abs);
		free(r);
	}
	closedir(d);
}

static int
by_profile_path(const void *a, const void *b)
{
	return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "path")),
		      json_string_value(json_object_get(*(json_t *const *)b, "path")));
}

/* The profiles of the run whose result is written to result, or NULL. */
static json_t *
run_profiles(const char *result)
{
	const char *slash = strrchr(result, '/');
	char *dir = slash ? xstrndup(result, (size_t)(slash - result)) : xstrdup(".");
	json_t *a = json_array();
	scan_profiles(a, dir, NULL, 0);
	free(dir);
	size_t n = json_array_size(a);
	if (!n) {
		json_decref(a);
		return NULL;
	}
	json_t **v = xcalloc(n, sizeof *v), *sorted = json_array();
	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(a, i);
	qsort(v, n, sizeof *v, by_profile_path);
	for (size_t i = 0; i < n; i++)
		json_array_append(sorted, v[i]);
	free(v);
	json_decref(a);
	return sorted;
}

/* The result of r into --result, with its validity when prov is given;
 * *invalid (to free) the validity's reasons when it found the run
 * invalid. */
static int
write_result(const struct lp_result *r, const struct parse_opts *p, const json_t *prov, char **invalid)
{
	json_t *j = lp_result_json(r, p->sample_std);
	*invalid = NULL;
	if (p->provenance) {
		json_t *v = validity_check(r->path, prov), *x;
		size_t i;
		struct sb why = {0};
		json_array_foreach(json_object_get(v, "invalid"), i, x)
			sb_addf(&why, "%s%s", i ? "; " : "validity: ", json_string_value(x));
		*invalid = sb_steal(&why);
		if (!**invalid) {
			free(*invalid);
			*invalid = NULL;
		}
		json_object_set_new(j, "validity", v);
	}
	if (p->lp.proxy)
		json_object_set_new(j, "proxy", json_true());
	if (p->lp.unlisted)
		json_object_set_new(j, "unlisted", json_true());
	json_t *prof = p->lp.profiled ? run_profiles(p->result) : NULL; /* a profiled run's own */
	if (prof)
		json_object_set_new(j, "profiles", prof);
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12));
	json_decref(j);
	size_t len = strlen(s);
	s[len] = '\n'; /* json_dumps' NUL becomes the final newline */
	int rc = write_file_atomic(p->result, s, len + 1);
	if (rc < 0)
		fprintf(stderr, "%s: error: cannot write '%s': %s\n", progname, p->result, strerror(errno));
	free(s);
	return rc;
}

/* ---- the report ------------------------------------------------------------ */

static int
report(struct paths *ps, const struct parse_opts *p, const json_t *prov, int argc, char **argv)
{
	struct lp_result *rs = xcalloc(ps->n + 1, sizeof *rs);
	struct counts c = {{0}, ps->n};
	if (ps->n)
		qsort(ps->v, ps->n, sizeof *ps->v, cmp_path);
	for (size_t i = 0; i < ps->n; i++) {
		lp_parse_file(ps->v[i], &p->lp, &rs[i]);
		c.by[rs[i].status]++;
	}
	int rc = 0;
	char *invalid = NULL;
	if (p->result && write_result(&rs[0], p, prov, &invalid) < 0)
		rc = 2;
	/* The exit status says whether the log parsed (the parse stage's
	 * work: result.json holds the verdict); the rows and counts say
	 * what the run is worth. */
	int parsed = c.by[LP_SUCCESS] || c.by[LP_PROFILED];
	if (invalid && rs[0].status == LP_SUCCESS) {
		rs[0].status = LP_INVALID;
		rs[0].reason = invalid;
		rs[0].invalid_iter = -1;
		c.by[LP_SUCCESS]--;
		c.by[LP_INVALID]++;
	}
	if (p->out == PARSE_TABLE)
		print_table(rs, ps->n, p, &c);
	else if (p->out == PARSE_CSV)
		print_csv(rs, ps->n, p, &c);
	else
		print_json(rs, ps->n, p, &c, argc, argv);
	if (!ps->n)
		fprintf(stderr, "%s: no .out files found\n", progname);
	else if (!parsed)
		fprintf(stderr, "%s: no run succeeded (%zu logs)\n", progname, ps->n);
	if (!rc && !parsed)
		rc = 1;
	free(invalid);
	for (size_t i = 0; i < ps->n; i++)
		lp_result_free(&rs[i]);
	free(rs);
	return rc;
}

int
parse_logs(const struct parse_opts *p, int nargs, char **args)
{
	char *def[] = {"experiments"};
	if (!nargs) {
		args = def;
		nargs = 1;
	}
	struct paths ps = {0};
	int rc = collect(nargs, args, &ps) < 0 ? 2 : 0;
	if (!rc && p->result && ps.n != 1)
		rc = parse_bad_usage("--result needs exactly one log file, got %s", ps.n ? "several" : "none");
	if (!rc && p->provenance && !p->result)
		rc = parse_bad_usage("%s needs --result", "--provenance");
	/* no validity without its evidence: a provenance named is read, or refused */
	json_t *prov = NULL;
	char *why = NULL;
	struct stat st;
	if (!rc && p->provenance && !(p->provenance_may_miss && lstat(p->provenance, &st) < 0 && errno == ENOENT) &&
	    !(prov = validity_load_provenance(p->provenance, &why))) {
		fprintf(stderr, "%s: error: --provenance=%s: %s\n", progname, p->provenance, why);
		rc = 2;
	}
	free(why);
	if (!rc)
		rc = report(&ps, p, prov, nargs, args);
	json_decref(prov);
	for (size_t k = 0; k < ps.n; k++)
		free(ps.v[k]);
	free(ps.v);
	return rc;
}
