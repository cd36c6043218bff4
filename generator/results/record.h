/* record: the write side of the run history. Builds one history record
 * (format v1, docs in README "Nightly regressions") from a finished run
 * directory, and appends it to $LLMB_INSTALL/history/<fingerprint>.jsonl
 * exactly once per (fingerprint, job): under the history lock (flock on
 * history/.lock), after looking for a record of that job, in one O_APPEND
 * write followed by fsync. Also `llmb record --import`, which seeds the
 * history from run directories that exist already. */
#ifndef LLMB_RECORD_H
#define LLMB_RECORD_H

#include <jansson.h>

#include "plan/plan.h"

/* What a record is made of: the run's coordinates and configuration. */
struct rec_src {
	const char *install, *top;
	const char *night;          /* YYYY-MM-DD */
	const char *run_dir;        /* the run's directory (train.done, result.json, log) */
	const struct stagecfg *train_cfg; /* the train stage's configuration */
	const struct stagecfg *parse_cfg; /* the parse stage's (window, steps) */
	const struct ynode *wl;     /* the workload recipe (reference, tolerance) */
	const struct ynode *gpu;    /* its gpus.yaml entry (peak), or NULL */
	const char *version;        /* llmb version, or NULL: asked from git now */
	const char *job_state;      /* final job state when there is no train.done, or NULL */
	const char *job;            /* job id when there is no train.done, or NULL */
	const char *executor;       /* likewise */
	const char *log;            /* the log when there is no train.done (imports), or NULL */
	const char *nodes;          /* known node list, or NULL: asked from the executor */
};

/* The record of one run; NULL with a message in err when it cannot be
 * made (no job to key it by). */
json_t *record_build(const struct rec_src *s, struct sb *err);
/* Appends rec under the history lock: 1 appended, 0 the job already has a
 * record, -1 on error (message printed). */
int record_append(const char *install, json_t *rec);

/* The run record of a plan's parse instance and its train instance. */
json_t *record_of_stage(struct plan *p, const struct inst *parse, const char *install, const char *night,
			const char *version, struct sb *err);

/* `git describe --always --dirty` of the checkout top, or "unknown". */
char *llmb_version(const char *top);

#endif
