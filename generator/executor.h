/* executor: the contract between a stage runner (run.c) and the place its
 * job runs. local.c runs a job script as a detached local process;
 * slurm.c submits it with sbatch. Both learn job states in bulk (one query
 * for many jobs) and both leave the same job record behind (run.c). */
#ifndef LLMB_EXECUTOR_H
#define LLMB_EXECUTOR_H

#include <stddef.h>

#include "util.h"

enum jstate {
	J_UNKNOWN,   /* not asked yet, or the scheduler does not say */
	J_PENDING,
	J_RUNNING,
	J_COMPLETING,
	J_COMPLETED,
	J_FAILED,    /* exit_code says how */
	J_TIMEOUT,
	J_CANCELLED, /* reason says by whom when known */
	J_NODE_FAIL,
	J_OOM,       /* OUT_OF_MEMORY */
	J_PREEMPTED,
	J_REQUEUED,
	J_BOOT_FAIL,
	J_DEADLINE,
	J_VANISHED,  /* no longer known to the scheduler nor its accounting */
	J_PREFLIGHT, /* llmb's: the job stopped itself, a node failed its pre-flight */
};
const char *jstate_name(enum jstate s);
enum jstate jstate_parse(const char *name); /* "CANCELLED by 0" -> J_CANCELLED */
int jstate_terminal(enum jstate s);

struct jobspec {
	const char *stage;          /* stage id: train.tinygpt.cpu.tiny.fp32.2 */
	const char *script;         /* job script path (bash) */
	const char *log;            /* stdout and stderr; "%j" stands for the job id */
	const char *workdir;
	const char *job_name;
	int nodes;                  /* >= 1 */
	int ntasks_per_node;        /* >= 1 */
	int gpus_per_node;          /* 0: no GPUs requested */
	int cpu_only;               /* CPU partition instead of the GPU one */
	int exclusive;
	const char *time_limit;     /* HH:MM:SS, or NULL for the partition default */
	const char *dependency;     /* "afterok:12:13" or NULL (ASYNC mode) */
	const char *extra;          /* ADDITIONAL_SLURM_PARAMS, upstream k=v;flag form */
	const char *const *env_pass;/* NULL-terminated names passed by name (HF_TOKEN) */
};

struct jobinfo {
	char id[64];
	enum jstate state;
	int exit_code;              /* -1 unknown */
	int signal;                 /* 0 none */
	long elapsed;               /* seconds; -1 unknown */
	int restarts;               /* times the scheduler requeued the job (node failure,
	                             * preemption, scontrol requeue); 0 when it cannot say */
	char reason[512];           /* scheduler reason, who cancelled, ... */
	char start[32];             /* a pending job's expected start as the scheduler
	                             * says it ("2026-11-29T07:10:00"), "" when unknown */
};

struct executor {
	const char *name;
	/* Submit js; on success write the job id to id and return 0. On failure
	 * return -1 with a message a person can act on appended to err. */
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
