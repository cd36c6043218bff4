/* jobrecord: the job record of a stage instance, state/jobs/<id>/record
 * ("key=value" lines: the configuration hash, submission token, job id,
 * log pattern, executor, state, attempt, submission time, afterok list),
 * and the stage lock beside it. Written atomically (tmp + rename) and
 * changed only under the lock, so two make processes agree on one job;
 * run.c drives it, status, cancel and the dependency chain read it. */
#ifndef LLMB_JOBRECORD_H
#define LLMB_JOBRECORD_H

#include <limits.h>

struct jobrec {
	char cfg[65], token[40], job[64], log[PATH_MAX], executor[16], state[24], after[256];
	int attempt;
	long submitted;
};

/* The record in the stage directory dir (state/jobs/<id>); -1, r zeroed,
 * when there is none. */
int jobrec_read_dir(const char *dir, struct jobrec *r);

/* The record of stage id below install. */
int jobrec_read(const char *install, const char *id, struct jobrec *r);

/* Replaces dir's record atomically; dies when it cannot be written (a
 * submission whose record is lost could be submitted twice). */
void jobrec_write_dir(const char *dir, const struct jobrec *r);

/* An exclusive flock on dir/lock, waited for; the descriptor to close. */
int jobrec_lock_dir(const char *dir);

/* The log of job: the record's pattern with %j replaced. */
char *jobrec_log_path(const char *pattern, const char *job);

#endif
