/* inproc: the stages llmb runs in its own process instead of a job, parse
 * (one training log -> result.json) and report (a configuration's results
 * -> the report files). stagerun.c submits nothing for them and writes their
 * stamp when they are done; apart from it so that the driver holds the job
 * protocol only. */
#ifndef LLMB_INPROC_H
#define LLMB_INPROC_H

struct stagecfg;

struct inproc_stage {
	const char *top, *install; /* the checkout, the install tree */
	const char *id;            /* the stage instance */
	const struct stagecfg *cfg; /* its configuration */
	const char *progress;      /* "3/9" */
	const char *label;
	int async;                 /* ASYNC: wait for nothing, say what is missing */
};

enum { INPROC_DONE, INPROC_FAILED, INPROC_WAITING };

/* INPROC_DONE, INPROC_FAILED (said on stderr), or INPROC_WAITING (ASYNC:
 * an upstream stage is not done yet; a later make does the work). */
int inproc_parse(const struct inproc_stage *c);
int inproc_report(const struct inproc_stage *c);

#endif
