/* job: a job's specification and its states as every executor reports
 * them: the types the job record (store/jobrecord.c), the executors and
 * the queue cache share, below the executors that fill them. */
#ifndef LLMB_JOB_H
#define LLMB_JOB_H

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
	/* Called with the job's id by a successful submit, before the job is
	 * let go where the executor can hold it (local): the caller records
	 * the id there, so a job never runs unrecorded. NULL: none. */
	void (*on_id)(void *arg, const char *id);
	void *on_id_arg;
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

#endif
