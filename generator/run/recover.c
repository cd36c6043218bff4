/* recover: the job of an interrupted submission (see recover.h), for
 * `llmb run` (stagerun.c) before it submits again and `llmb cancel`
 * (stagestatus.c) before it says there is nothing to cancel. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "exec/executor.h"
#include "run/recover.h"

int
recover_job(const char *state_dir, const char *stage, struct jobrec *r)
{
	const struct executor *ex;
	if (jobrec_started(state_dir, r->token, r->job, sizeof r->job))
		return 1; /* the marker names it */
	if (!(ex = executor_find(r->executor)) || !ex->find)
		return 0;
	char *name = jobrec_job_name(stage, r->token);
	int found = ex->find(name, r->job, sizeof r->job);
	free(name);
	return found;
}
