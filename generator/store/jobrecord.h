/* jobrecord: the job record of a stage instance, state/jobs/<id>/record
 * ("key=value" lines: the configuration hash, submission token, job id,
 * log pattern, executor, state, attempt, submission time, afterok list),
 * and the stage lock beside it. Written atomically (tmp + rename) and
 * changed only under the lock, so two make processes agree on one job;
 * stagerun.c drives it, status, cancel and the dependency chain read it. Also
 * the job's own files in the folder: its token and name, the started
 * marker and the exit record its script writes. */
#ifndef LLMB_JOBRECORD_H
#define LLMB_JOBRECORD_H

#include <limits.h>
#include <stddef.h>

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

/* A new submission token: 16 hex digits (from /dev/urandom; the time and
 * the pid where it cannot be read). */
void jobrec_new_token(char out[40]);
/* The name the job of stage id submitted under token runs by,
 * llmb.<id>.<token>: how it is found again after a crash (allocated). */
char *jobrec_job_name(const char *id, const char *token);
/* The job id the job's started marker for token in dir records, copied to
 * job (len bytes): 1, or 0 when the job has not started. */
int jobrec_started(const char *dir, const char *token, char *job, size_t len);
/* The exit status the job's trap recorded in dir (exit.<job>, or the
 * temporary file a kill cut short of its rename, when whole), or -1 when
 * there is none. */
int jobrec_exit_status(const char *dir, const char *job);

#endif
