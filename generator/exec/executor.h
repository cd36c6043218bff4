/* executor: the contract between a stage runner (stagerun.c) and the place its
 * job runs. local.c runs a job script as a detached local process;
 * slurm.c submits it with sbatch. Both learn job states in bulk (one query
 * for many jobs) and both leave the same job record behind (stagerun.c). */
#ifndef LLMB_EXECUTOR_H
#define LLMB_EXECUTOR_H

#include <stddef.h>

#include "base/util.h"
#include "store/job.h"

struct executor {
	const char *name;
	/* Submit js; on success write the job id to id, call js->on_id with
	 * it, and return 0. On failure return -1 with a message a person can
	 * act on appended to err. */
	int (*submit)(const struct jobspec *js, char *id, size_t idlen, struct sb *err);
	/* Fill state/exit_code/... of n jobs (id set by the caller) with as few
	 * scheduler queries as possible; cache_dir holds state shared by every
	 * llmb process of the install tree. Returns 0, or -1 when the scheduler
	 * could not be asked at all (jobs left J_UNKNOWN). */
	int (*query)(const char *cache_dir, struct jobinfo *jobs, int n);
	/* Cancel one job; 0 when the request was accepted. */
	int (*cancel)(const char *id, struct sb *err);
	/* The job named name, after a submission died before it learnt the id:
	 * 1 with its id written, 0 when there is none, -1 when that cannot be
	 * known. NULL: the executor's jobs are found otherwise (their marker). */
	int (*find)(const char *name, char *id, size_t idlen);
	/* A pending job that cannot start without an operator (slurmpend.h):
	 * 1 with why appended, 0 it may start, -1 the scheduler cannot say.
	 * NULL: the executor's jobs never wait on anyone. cache_dir as query's. */
	int (*blocked)(const char *cache_dir, const struct jobinfo *ji, struct sb *why);
	/* Cancel a job only while it is still pending: 0 cancelled, 1 it
	 * started meanwhile (left alone), -1 with err appended. */
	int (*cancel_pending)(const char *id, struct sb *err);
};

extern const struct executor local_executor;
extern const struct executor slurm_executor;
const struct executor *executor_find(const char *name);
/* EXECUTOR from the environment, else slurm when `scontrol ping` answers,
 * else local. An unknown EXECUTOR dies with the valid names. */
const struct executor *executor_default(void);

#endif
