/* dependents: cancelling the jobs that wait on a failed one. */
#ifndef LLMB_DEPENDENTS_H
#define LLMB_DEPENDENTS_H

/* Cancels the unfinished jobs that wait (afterok) on job, which will never
 * succeed, and theirs in turn: Slurm would leave them PENDING
 * (DependencyNeverSatisfied) forever. Their records say failed, so the
 * next make submits them again. */
void cancel_dependents_of(const char *install, const char *job);

#endif
