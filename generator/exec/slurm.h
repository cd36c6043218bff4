/* slurm: the Slurm executor. Jobs go in with sbatch (an argv, never a
 * shell; built by slurmcmd.c), states come back from slurmqueue.c's shared
 * squeue cache, and scancel cancels. Below: what the rest of llmb asks of
 * Slurm about one job by name or id. */
#ifndef LLMB_SLURM_H
#define LLMB_SLURM_H

#include <stddef.h>

#include "exec/executor.h"

/* The sbatch command for js (slurm_sbatch_argv, recipe/slurmcmd.h) with
 * this environment's SBATCH_ACCOUNT and partition: SBATCH_PARTITION, or
 * for a CPU-only job LLMB_CPU_PARTITION when it is set. */
char **slurm_submit_argv(const struct jobspec *js, struct sb *err);

/* The id of the job named name (llmb's names are unique), still in the
 * queue or in accounting: 1 found (id set), 0 Slurm knows no such job,
 * -1 Slurm could not be asked. */
int slurm_find_job(const char *name, char *id, size_t idlen);

/* The nodes job ran or runs on as a Slurm hostlist ("n[3-4]"), or NULL:
 * accounting, else the queue while the controller still knows the job. */
char *slurm_job_nodes(const char *job);

/* Whether this cluster's sbatch knows the long option opt ("segment"),
 * from its --help: 1 yes, 0 no (--segment came with Slurm 23.11), -1
 * sbatch could not say. Asked once per process. */
int slurm_sbatch_knows(const char *opt);

#endif
