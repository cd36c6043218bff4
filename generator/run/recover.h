/* recover: the job of an interrupted submission. */
#ifndef LLMB_RECOVER_H
#define LLMB_RECOVER_H

#include "store/jobrecord.h"

/* r says "submitting" without a job id: the process that submitted it
 * died around the submission. Finds the job through the marker its script
 * writes when it starts (state_dir), or through its unique name (stage,
 * r->token) where the executor can look a name up. Returns 1 with r->job
 * set, 0 when there is no such job, -1 when that cannot be known (the
 * scheduler did not answer): then nothing may be submitted or cancelled
 * on the strength of it. The caller holds the stage lock. */
int recover_job(const char *state_dir, const char *stage, struct jobrec *r);

#endif
