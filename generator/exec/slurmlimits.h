/* slurmlimits: the controller's limits on how many jobs llmb may hand it
 * (see slurmlimits.c). */
#ifndef LLMB_SLURMLIMITS_H
#define LLMB_SLURMLIMITS_H

#include "base/util.h"

struct slurm_limits {
	long max_job_count;   /* MaxJobCount: jobs the controller holds, finished ones included; -1 unknown */
	long max_array_size;  /* MaxArraySize */
	long min_job_age;     /* MinJobAge (s): how long a finished job stays in squeue */
	long max_submit_jobs; /* association MaxSubmitJobs/GrpSubmitJobs of this user; -1 none known */
	int rl_enable;        /* SlurmctldParameters=rl_enable (23.02+) */
	long rl_bucket_size, rl_refill_rate, rl_refill_period;
	int accounting;       /* AccountingStorageType is slurmdbd */
};

/* Read the limits (cached for 10 minutes in STATE_DIR/slurm.limits when
 * STATE_DIR is not NULL). 0, or -1 when the controller did not answer. */
int slurm_limits_load(const char *state_dir, struct slurm_limits *l);
/* How many more jobs this user may submit now: the lower of MaxJobCount
 * and MaxSubmitJobs, less a margin, less what they hold; -1 no limit known. */
long slurm_limits_cap(const struct slurm_limits *l);
/* Block until the controller has room for one more job of this user
 * (counted under a lock in STATE_DIR shared by every llmb process, one
 * squeue every 2 s at most), then count it. */
void slurm_limits_wait_room(const char *state_dir);
/* Append a description of the limits (one line) to out. */
void slurm_limits_describe(const struct slurm_limits *l, struct sb *out);

/* make -n tells: when EXECUTOR=slurm and a plan of NJOBS jobs exceeds the
 * controller's limits, an $(info ...) line saying so and what llmb does
 * is appended to the rules in mk. */
void slurm_limits_plan_note(struct sb *mk, size_t njobs);

#endif
