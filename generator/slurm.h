/* slurm: the Slurm executor. Jobs go in with sbatch (an argv, never a
 * shell), states come back from one squeue per poll interval shared by every
 * waiting llmb process (a flock-protected cache in cache_dir), and scancel
 * cancels. The helpers below let the planner check ADDITIONAL_SLURM_PARAMS
 * and print the exact sbatch command without running it.
 *
 * Files in cache_dir: slurm.lock (flock), slurm.jobs (registry of active job
 * ids), slurm.cache (last answer), queries.log (one line per scheduler
 * query: "<epoch seconds> <tool> <number of ids>"). */
#ifndef LLMB_SLURM_H
#define LLMB_SLURM_H

#include "executor.h"

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

/* The sbatch command for js: argv[0] is "sbatch", the last element the
 * script, NULL-terminated. Reads SBATCH_ACCOUNT, SBATCH_PARTITION and
 * LLMB_CPU_PARTITION. NULL with a message in err when js is invalid. */
char **slurm_sbatch_argv(const struct jobspec *js, struct sb *err);

/* Append argv as one line of shell words (for plans and logs). */
void slurm_argv_shell(struct sb *out, char *const *argv);

void slurm_argv_free(char **argv);

/* The id of the job named name (llmb's names are unique), still in the
 * queue or in accounting: 1 found (id set), 0 Slurm knows no such job,
 * -1 Slurm could not be asked. */
int slurm_find_job(const char *name, char *id, size_t idlen);

/* The nodes job ran or runs on as a Slurm hostlist ("n[3-4]"), or NULL:
 * accounting, else the queue while the controller still knows the job. */
char *slurm_job_nodes(const char *job);

#endif
