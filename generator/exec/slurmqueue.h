/* slurmqueue: Slurm job states, one squeue per poll interval shared by
 * every waiting llmb process (see slurmqueue.c).
 *
 * Files in cache_dir: slurm.lock (flock), slurm.jobs (registry of active job
 * ids), slurm.cache (last answer), queries.log (one line per scheduler
 * query: "<epoch seconds> <tool> <number of ids>"). */
#ifndef LLMB_SLURMQUEUE_H
#define LLMB_SLURMQUEUE_H

#include "exec/executor.h"

/* The executor's query: fills jobs[0..n) from the cache in cache_dir,
 * asking the scheduler first when the cache is older than the poll
 * interval (LLMB_POLL_SECONDS, backing off while nothing changes). 0, or
 * -1 when the scheduler could not be asked (states then J_UNKNOWN). */
int slurm_query(const char *cache_dir, struct jobinfo *jobs, int n);

/* LLMB_POLL_SECONDS, the seconds between two looks at a waiting job (the
 * one reading of it, for this query and llmb run's wait on any executor):
 * a number from 0.1 to 3600; 0 when it is unset or empty, -1 when it is
 * not such a number. */
double poll_seconds_env(void);

#endif
