/* slurmcmd: the Slurm command lines llmb builds, without running them
 * (see slurmcmd.c): ADDITIONAL_SLURM_PARAMS, the sbatch argv of a job,
 * its shell form, and job ids. */
#ifndef LLMB_SLURMCMD_H
#define LLMB_SLURMCMD_H

#include <stddef.h>

#include "base/util.h"
#include "store/job.h"

/* Parse ADDITIONAL_SLURM_PARAMS ("k=v;k2=v2;flag", whitespace-separated when
 * there is no ';') into a NULL-terminated array of "--k=v" / "--flag".
 * Returns the number of args and sets *argv (free with slurm_argv_free), or
 * returns -1 with a message appended to err and *argv NULL. NULL or blank s
 * gives 0 args. Keys llmb sets itself are rejected. */
int slurm_params_parse(const char *s, char ***argv, struct sb *err);

/* The parts of ADDITIONAL_SLURM_PARAMS as slurm_params_parse splits them:
 * fn gets each non-blank part, trimmed (len bytes at p, not terminated),
 * in order. The first negative return of fn stops and is returned; else 0. */
int slurm_params_each(const char *s, int (*fn)(const char *p, size_t len, void *arg), void *arg);

/* ADDITIONAL_SLURM_PARAMS s sets sbatch's option opt: a part's key is opt,
 * or abbreviates it in at least min characters (sbatch takes unambiguous
 * abbreviations). */
int slurm_params_sets(const char *s, const char *opt, size_t min);

/* The sbatch command for js under account and partition (NULL or empty:
 * Slurm's default): argv[0] is "sbatch", the last element the script,
 * NULL-terminated. NULL with a message in err when js is invalid.
 * slurm_submit_argv (exec/slurm.h) gives them from the environment. */
char **slurm_sbatch_argv(const struct jobspec *js, const char *account, const char *partition, struct sb *err);

/* Append argv as one line of shell words (for plans and logs). */
void slurm_argv_shell(struct sb *out, char *const *argv);

void slurm_argv_free(char **argv);

/* ADDITIONAL_SLURM_PARAMS with exclude=NODES (a Slurm hostlist) merged in:
 * an exclude= there is extended, a nodelist= dropped (the job must run
 * elsewhere). NULL with a message in err when either is invalid. Used by
 * confirmation runs and by the pre-flight's retry without a failed node. */
char *slurm_params_exclude(const char *orig, const char *nodes, struct sb *err);

/* id is a job id as sbatch prints it ("123" or an array task "123_4"):
 * the only ids llmb puts on an squeue, sacct or scancel command line. */
int slurm_job_id_valid(const char *id);

#endif
