/* stagekind: the table of stage kinds, one record per kind a pipeline
 * recipe may name (as tmux's command table or samurai's tool table): its
 * make group, how the planner makes its instances, how `llmb run` carries
 * it out and what it needs. Adding a kind is one row in stagekind.c (and
 * its builder or runner where it has a new one). */
#ifndef LLMB_STAGEKIND_H
#define LLMB_STAGEKIND_H

/* How the planner makes a kind's instances (plan.c). */
enum sk_build {
	SK_BUILD_IMAGES, /* one per image the workload's stages name, shared */
	SK_BUILD_VENV,   /* one per dependency set, shared */
	SK_BUILD_DATA,   /* one per setup task of the workload */
	SK_BUILD_RUNS,   /* one per selected run (or per configuration: SK_PER_CONFIG) */
};

/* How `llmb run` carries an instance out (stagerun.c). */
enum sk_run {
	SK_RUN_JOB,    /* a job through the executor, waited for and decided */
	SK_RUN_PARSE,  /* in process: the run's log parsed into result.json */
	SK_RUN_REPORT, /* in process: the configuration's report */
};

enum {
	SK_SHARED = 1 << 0,      /* one instance serves every workload: no workload in its configuration */
	SK_TRAINING = 1 << 1,    /* the benchmark itself: whole GPU nodes, the run's knobs and log, train.done */
	SK_PER_CONFIG = 1 << 2,  /* one instance per gpu/size/dtype, over every scale; none in a night */
	SK_TASK_VENV = 1 << 3,   /* runs in its workload's venv, as upstream runs its setup tasks */
	SK_IMPORT = 1 << 4,      /* imports an image: needs enroot, runs in no container */
};

struct stagekind {
	const char *name;  /* as recipes spell it */
	const char *group; /* its make target: llmb-<group> */
	enum sk_build build;
	enum sk_run run;
	unsigned flags;
};

/* Every kind, in pipeline order (the order of the make groups), ending
 * with a NULL name. */
extern const struct stagekind stage_kinds[];
/* The names alone, NULL-terminated (the recipe schema's enum). */
extern const char *const stage_kind_names[];

/* The kind called name, or NULL. */
const struct stagekind *stage_kind(const char *name);

/* The kind called name has every flag in flags (0 for an unknown kind). */
int stage_kind_is(const char *name, unsigned flags);

/* How `llmb run` carries out kind name: SK_RUN_JOB for an unknown kind. */
enum sk_run stage_kind_run(const char *name);

#endif
