/* parse: the training-log report as a library (see parse.c). */
#ifndef LLMB_PARSE_H
#define LLMB_PARSE_H

#include <stdio.h>

#include "results/logparse.h"
#include "store/layout.h"

enum parse_out { PARSE_TABLE, PARSE_CSV, PARSE_JSON };

struct parse_opts {
	enum parse_out out;
	int full_names, sample_std;
	const char *result;     /* with exactly one log: write its result here */
	struct lp_opts lp;
	const char *provenance; /* with result: the run's provenance.json, whose
				 * probes (and the log) judge its validity */
	int provenance_may_miss; /* the parse stage: a run without one is judged
				  * on its log alone; one that is there must read */
};

/* The defaults of `llmb parse`: a table, sample std, the window 35-44. */
#define PARSE_OPTS_INIT {PARSE_TABLE, 0, 1, NULL, {LP_AUTO, LAYOUT_WINDOW_FIRST, LAYOUT_WINDOW_LAST, LP_INDEX_DEFAULT, 0, 0, 0, 0}, NULL, 0}

/* Parses the logs of args (files, and *.out under directories; none: the
 * directory "experiments") and prints the report. Returns 0 when a run
 * succeeded, 1 when none did, 2 on errors. */
int parse_logs(const struct parse_opts *p, int nargs, char **args);

/* "A-B" into o's window; a count >= 0 into v. 0, or -1 when malformed. */
int parse_window(const char *s, struct lp_opts *o);
int parse_long(const char *s, long *v);

/* The usage text (to stderr: exit status 2, else 0); a usage error, with
 * fmt and arg saying what was wrong, then the usage. */
int parse_usage(FILE *f);
int parse_bad_usage(const char *fmt, const char *arg);

#endif
