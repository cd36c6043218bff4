/* provenance: what a run ran on. When a training stage completes, `llmb
 * run` writes provenance.json into the run directory: llmb's version, the
 * recipe, configuration and job script hashes, knobs and environment
 * (secrets by name only), the image and venv, the scheduler's account of
 * the job, and the per-node facts the job's probe wrote before training
 * (nodes) and after it (nodes_after: what can change during a run).
 * Every probe that cannot answer is recorded as {"status":"missing",
 * "why":...}; nothing here ever fails the benchmark. */
#ifndef LLMB_PROVENANCE_H
#define LLMB_PROVENANCE_H

#include <jansson.h>

struct stagecfg;

struct prov_src {
	const char *top, *install, *gen;
	const char *run_dir;        /* where provenance.json goes */
	const struct stagecfg *cfg; /* the train stage's configuration */
	const char *cfg_hash;
	const char *state_dir;      /* state/jobs/<id>: job script, exit record, probes */
	const char *token;          /* the job script is job.<token>.sh */
	const char *job, *executor;
	long submitted;             /* epoch seconds, 0 unknown */
	int restarts;               /* requeues the scheduler reported */
};

/* The provenance object of a run. */
json_t *provenance_build(const struct prov_src *s);
/* Builds it and writes run_dir/provenance.json atomically; a failure is
 * a warning, never an error. */
void provenance_write(const struct prov_src *s);
/* {"status":"missing","why":why} */
json_t *prov_missing(const char *why);

#endif
