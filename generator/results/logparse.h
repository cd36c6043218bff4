/* logparse: streaming parser of ONE training log (NeMo 2, MaxText,
 * Megatron-Bridge). Owns the line recognisers, the per-file result (status,
 * window statistics, samples, checkpoints, first error) and its JSON form.
 * Memory is bounded: the file is read through one fixed buffer, lines longer
 * than LP_MAX_LINE are skipped with a warning, samples outside the window
 * are capped at LP_MAX_SAMPLES. A result owns everything it points to;
 * lp_result_free() releases it.
 *
 * Iteration numbers are the log's own: NeMo and MaxText count from 0 (the
 * final of 50 steps is 49), Megatron from 1 (50/50). The window is given in
 * that same numbering, like the upstream parsers (35-44 by default).
 */
#ifndef LLMB_LOGPARSE_H
#define LLMB_LOGPARSE_H

#include <stddef.h>

#include <jansson.h>

#include "store/layout.h"

#define LP_MAX_LINE (64 * 1024)
#define LP_MAX_SAMPLES 65536
#define LP_MAX_CHECKPOINTS 1024
#define LP_DEFAULT_STEPS LAYOUT_STEPS_DEFAULT /* when neither --steps nor a denominator says */

enum lp_format { LP_AUTO, LP_NEMO2, LP_MAXTEXT, LP_MBRIDGE };
enum lp_status { LP_SUCCESS, LP_INCOMPLETE, LP_FAILED, LP_INVALID, LP_PROFILED };
enum lp_index { LP_INDEX_DEFAULT = -1, LP_INDEX_ZERO = 0, LP_INDEX_ONE = 1 };

struct lp_opts {
	enum lp_format format;
	long win_lo, win_hi;   /* inclusive window, in the log's numbering */
	enum lp_index indexing; /* default: by format (mbridge one, others zero) */
	long steps;            /* expected steps; 0 = from the denominator */
	int profiled;          /* mark results as not for comparison */
	int proxy;             /* mark results as a proxy run's (never compared) */
	int unlisted;          /* a scale the recipe does not list (never compared) */
};

struct lp_stats {
	size_t n;
	double mean, std_sample, std_population, min, max, median;
};

struct lp_sample {
	long iter;
	double time;   /* seconds */
	double tflops; /* NAN when the line has none; same for loss, grad */
	double loss;
	double grad;
};

struct lp_ckpt {
	const char *kind; /* "save" or "load" (static string) */
	long iter;        /* -1 when unknown */
	double seconds;
};

struct lp_result {
	char *path;
	enum lp_status status;
	enum lp_format format;   /* of the step lines; LP_AUTO when none */
	int index_base;
	const char *note;        /* static: "time_limit" or NULL */
	const char *reason;      /* static, invalid only: "grad_norm=nan", "step_time=0",
				  * "step_time<0", "step_time>1day", "step_time=unreadable",
				  * "tflops<0", ...: why the run cannot be a measurement */
	long invalid_iter;
	char *error;             /* first error line (sanitised) or NULL */
	long error_line;         /* 1-based */
	long win_lo, win_hi;
	size_t win_present;
	long steps, final_iter;  /* expected steps and final iteration */
	long last_iter;          /* highest iteration seen, -1 when none */
	int time_limit;          /* a TIME LIMIT cancellation was logged */
	size_t step_lines, duplicates, long_lines, dropped, malformed;
	size_t restarts;         /* iterations went back: only the last attempt is measured */
	double peak_mem;         /* bytes; NAN when not logged */
	struct lp_stats time, tflops; /* over the window; tflops.n may be 0 */
	struct lp_sample *samples;    /* sorted by iteration, unique */
	size_t nsamples;
	struct lp_ckpt *ckpts;
	size_t nckpts;
};

/* Parse one log. Never fails: unreadable files give status failed with the
 * reason in ->error (and a warning on stderr). */
void lp_parse_file(const char *path, const struct lp_opts *o, struct lp_result *r);
void lp_result_free(struct lp_result *r);

const char *lp_status_name(enum lp_status s); /* "success", ... */
const char *lp_format_name(enum lp_format f); /* "nemo2", ... ("auto") */
int lp_format_parse(const char *s, enum lp_format *f);

/* The log at path shows the final iteration of a run of steps anywhere in
 * it: NeMo's "iteration N/N" (counting from zero), Megatron's right-aligned
 * one, MaxText's "completed step: N". A quick look for a job the scheduler
 * ended after its work (time limit, cancel), not a parse. */
int lp_reached_final(const char *path, long steps);

/* The last sample (highest iteration) or NULL. */
const struct lp_sample *lp_last(const struct lp_result *r);

/* The full result as a JSON object (schema: see parse.c). */
json_t *lp_result_json(const struct lp_result *r, int sample_std);

/* A JSON string of s with invalid UTF-8 bytes replaced by '?'. */
json_t *lp_json_str(const char *s);

#endif
