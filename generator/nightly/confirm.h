/* confirm: confirmation on other nodes, a policy of the nightly matrix
 * (pipelines/nightly.yaml: confirm_elsewhere: true; off by default). After
 * the night is judged, each configuration SUSPECT on that night runs once
 * more, the same configuration as night-<NIGHT>-confirm, with Slurm's
 * --exclude of the suspect run's nodes merged into ADDITIONAL_SLURM_PARAMS
 * (a nodelist= that pins the job is dropped: it must run elsewhere). The
 * confirmation run is not a night of the history. Its mean step time
 * against the night's baseline band: above it, slow again, the software
 * regressed (the night stays SUSPECT); within it, the nodes are suspect and
 * the night is acknowledged as a false alarm (an annotation by
 * "llmb nightly"), so it is not held against the software. The GPU-hours
 * of the confirmation runs are counted. */
#ifndef LLMB_CONFIRM_H
#define LLMB_CONFIRM_H

#include <jansson.h>

#include "base/util.h"

struct confirm_ctx {
	const char *top, *install, *night;
	const json_t *verdict;              /* the night's verdict.json */
	char **make_argv;                   /* the night's make command */
	int (*run)(char **argv);            /* runs a command: its exit status */
};

/* The confirmation runs of a night: {"runs":[...], "gpu_hours":H,
 * "acknowledged":N}, or NULL when no configuration was SUSPECT. */
json_t *confirm_night(const struct confirm_ctx *c);
/* GPUs x hours of a run from its provenance.json at path (start, else
 * submit, to end); NAN when it does not say. */
double confirm_gpu_hours(const char *path, long gpus);
/* Their text, for the night's summary. */
void confirm_text(struct sb *o, const json_t *conf);

#endif
