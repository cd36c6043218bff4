/* stale: the one predicate for "is this stage instance done, and if not,
 * why", asked by `llmb explain`, `llmb status` and `llmb run` (its
 * shortcut, and "done by another make meanwhile"). The make rules gen.c
 * writes mirror it with what make can see:
 *   the stamp state/done/<id>           the rule's target
 *   of this configuration               prerequisite cfg/<id> (its mtime)
 *   every output there and valid        $(wildcard) and LLMB_INVALID (valid.mk)
 *   no upstream identity newer          prerequisites state/id/<upstream>
 * Make decides the configuration by time where this predicate reads the
 * hash in the stamp (a rule make runs on time alone ends in run's shortcut,
 * which submits nothing), and make sees an empty output that is not JSON as
 * present where this predicate does not (a half-written file is never done). */
#ifndef LLMB_STALE_H
#define LLMB_STALE_H

#include "util.h"

enum staleness {
	STAGE_DONE,
	STAGE_NEVER_RUN, /* no stamp */
	STAGE_CONFIG,    /* the stamp is of another configuration */
	STAGE_OUTPUT,    /* an output is missing, empty or does not validate */
	STAGE_UPSTREAM,  /* an upstream stage will run, or changed its outputs since */
};

struct stage_query {
	const char *install; /* the install tree */
	const char *id;      /* the stage instance */
	const char *hash;    /* its configuration's hash, as planned */
	const char *cfg;     /* its configuration: output= and after= lines */
	/* Optional: upstream stage up will run first (explain's prediction). */
	int (*will_run)(void *arg, const char *up);
	void *arg;
};

/* Where q's stage stands; the reason, in words, is appended to why (may
 * be NULL) unless it is done. */
enum staleness stage_staleness(const struct stage_query *q, struct sb *why);

/* 1 when every output of cfg below install is valid, else 0 with the first
 * reason appended to why (may be NULL). except: an output name suffix not
 * looked at (one llmb writes itself after this check), or NULL. */
int stage_outputs_ok(const char *install, const char *cfg, const char *except, struct sb *why);

#endif
