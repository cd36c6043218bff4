/* logjson: a parsed log (struct lp_result, logparse.h) as JSON, the shape
 * result.json and `llmb parse --format=json` hold; apart from the parser,
 * which knows nothing of Jansson's types beyond this. */
#include <math.h>
#include <stdlib.h>

#include <jansson.h>

#include "base/util.h"
#include "results/logparse.h"

json_t *
lp_json_str(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	char *t = xstrdup(s);
	for (char *p = t; *p; p++)
		if ((unsigned char)*p >= 0x80 || (unsigned char)*p < 0x20)
			*p = '?';
	j = json_string(t);
	free(t);
	return j;
}

static json_t *
jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
jint(long v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

/* A peak memory in bytes, or null when the log's figure is none a JSON
 * integer holds (a corrupt line: 7e29 bytes is no measurement). */
static json_t *
peak_json(double v)
{
	return v >= 0 && v < 9e18 ? json_integer((json_int_t)v) : json_null();
}

static json_t *
stats_json(const struct lp_stats *st, int sample_std)
{
	if (!st->n)
		return json_null();
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "n", (json_int_t)st->n, "mean", jreal(st->mean),
			 "std", jreal(sample_std ? st->std_sample : st->std_population),
			 "std_sample", jreal(st->std_sample), "std_population", jreal(st->std_population),
			 "min", jreal(st->min), "max", jreal(st->max), "median", jreal(st->median));
}

static json_t *
sample_json(const struct lp_sample *s)
{
	if (!s)
		return json_null();
	return json_pack("{s:I, s:o, s:o, s:o, s:o}", "iteration", (json_int_t)s->iter,
			 "step_time", jreal(s->time), "tflops_per_gpu", jreal(s->tflops),
			 "loss", jreal(s->loss), "grad_norm", jreal(s->grad));
}

json_t *
lp_result_json(const struct lp_result *r, int sample_std)
{
	json_t *samples = json_array(), *ckpts = json_array();
	for (size_t i = 0; i < r->nsamples; i++)
		json_array_append_new(samples, sample_json(&r->samples[i]));
	for (size_t i = 0; i < r->nckpts; i++)
		json_array_append_new(ckpts, json_pack("{s:s, s:o, s:o}", "kind", r->ckpts[i].kind,
						       "iteration", jint(r->ckpts[i].iter),
						       "seconds", jreal(r->ckpts[i].seconds)));
	json_t *err = r->error ? json_pack("{s:o, s:o}", "line", jint(r->error_line ? r->error_line : -1),
					   "text", lp_json_str(r->error))
			       : json_null();
	json_t *win = json_pack("{s:I, s:I, s:I, s:I}", "first", (json_int_t)r->win_lo,
				"last", (json_int_t)r->win_hi, "present", (json_int_t)r->win_present,
				"expected", (json_int_t)(r->win_hi - r->win_lo + 1));
	json_t *j = json_pack("{s:i, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:I, s:I, s:o}",
			      "schema", 1, "file", lp_json_str(r->path),
			      "format", r->format == LP_AUTO ? json_null() : json_string(lp_format_name(r->format)),
			      "status", lp_status_name(r->status),
			      "note", r->note ? json_string(r->note) : json_null(),
			      "reason", r->reason ? json_string(r->reason) : json_null(),
			      "invalid_iteration", jint(r->reason ? r->invalid_iter : -1),
			      "first_error", err, "window", win,
			      "indexing", r->index_base ? "one" : "zero",
			      "steps", (json_int_t)r->steps, "final_iteration", (json_int_t)r->final_iter,
			      "last_iteration", jint(r->last_iter));
	json_object_update_new(j, json_pack("{s:b, s:b, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I}",
			      "final_reached", r->last_iter >= r->final_iter,
			      "time_limit", r->time_limit, "std", sample_std ? "sample" : "population",
			      "step_time", stats_json(&r->time, sample_std),
			      "tflops_per_gpu", stats_json(&r->tflops, sample_std),
			      "last_step", sample_json(lp_last(r)), "samples", samples, "checkpoints", ckpts,
			      "peak_memory_bytes", peak_json(r->peak_mem),
			      "step_lines", (json_int_t)r->step_lines, "duplicate_lines", (json_int_t)r->duplicates,
			      "skipped_long_lines", (json_int_t)r->long_lines,
			      "malformed_lines", (json_int_t)r->malformed,
			      "dropped_samples", (json_int_t)r->dropped));
	if (r->restarts)
		json_object_set_new(j, "restarts", json_integer((json_int_t)r->restarts));
	return j;
}
