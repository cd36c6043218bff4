/* stale: the one predicate for "is this stage instance done, and if not,
 * why", asked by `llmb explain`, `llmb status` and `llmb run` (its
 * shortcut, and "done by another make meanwhile"). The make rules gen.c
 * writes mirror it with what make can see:
 *   the stamp state/done/<id>           the rule's target: its link
 *   of this configuration               state/stamped/<id>/<hash12>
 *   every output there and valid        $(wildcard) and LLMB_INVALID (valid.mk)
 *   no upstream identity changed        prerequisites: the upstream links
 * Make decides by time where this predicate reads content: the upstream
 * identities the stamp recorded (redo's rule). An identity is dated as its
 * stamp (instance.h), so an upstream stamp is the one file per upstream
 * stage make compares. A levelling keeps the two in agreement, so make -n
 * lists what a run would run: a stamp that make sees older than an
 * upstream stamp, or than its own identity, while the content it recorded
 * is the same, is brought forward to it; and a stamp of the planned
 * configuration without its link gets it (llmb gen, stage_level). Make
 * sees an empty output that is not JSON as present where this predicate
 * does not (a half-written file is never done). */
#ifndef LLMB_STALE_H
#define LLMB_STALE_H

#include <time.h>

#include "base/util.h"
#include "plan/plan.h"
#include "store/stagecfg.h"

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
	const struct stagecfg *cfg; /* its configuration: outputs and upstream stages */
	/* Optional: upstream stage up will run first (explain's prediction). */
	int (*will_run)(void *arg, const char *up);
	void *arg;
};

/* Where q's stage stands; the reason, in words, is appended to why (may
 * be NULL) unless it is done. */
enum staleness stage_staleness(const struct stage_query *q, struct sb *why);

/* 1 when stage id has its stamp and it is of the configuration hash: what
 * ASYNC asks of an upstream stage before a dependent goes ahead (a job
 * without afterok on it, parse and report in llmb's own process). */
int stage_stamped(const char *install, const char *id, const char *hash);

/* Everything make compares for a stage the predicate finds done, brought
 * level without rewriting a byte: its stamp forward to its newest upstream
 * stamp and to its own identity, its identity forward to its stamp, its
 * link made. Returns 1 when a time was set or the link made. */
int stage_level(const char *install, const char *id, const char *hash, const struct stagecfg *cfg);

/* 1 when every output of cfg below install is valid, else 0 with the first
 * reason appended to why (may be NULL). except: an output name suffix not
 * looked at (one llmb writes itself after this check), or NULL. */
int stage_outputs_ok(const char *install, const struct stagecfg *cfg, const char *except, struct sb *why);

/* Where a run of the plan stands, asked of its parse instance: done when
 * its train.done belongs to the planned training configuration, failed
 * when that configuration's job failed without one, pending otherwise
 * (llmb nightly records the done ones, llmb exemplar certifies them). */
enum runstate { R_DONE, R_FAILED, R_PENDING };
enum runstate run_state(const struct plan *p, const struct inst *parse, const char *install);
/* A failed run whose job llmb cancelled because it could not start
 * (stagerun.c's pending policy): 1 with "<stage>: job <id> (<executor>): <why>"
 * appended to why. */
int run_never_started(const struct plan *p, const struct inst *parse, const char *install, struct sb *why);

#endif
