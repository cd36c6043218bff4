/* nodelost: a Slurm job that FAILED because one of its nodes was lost. A
 * node that dies while a step runs makes Slurm end the job NODE_FAIL; one
 * that dies between two steps leaves the next srun unable to reach it, the
 * batch script fails, and Slurm says FAILED. Two signals must agree before
 * llmb calls that a node failure: srun's own launch error in the job's log
 * ("Communication connection failure" or "Node failure"), and Slurm's word
 * that one of the job's nodes is now down or not responding. */
#ifndef LLMB_NODELOST_H
#define LLMB_NODELOST_H

#include <stddef.h>

/* The log shows an srun step that could not reach one of the job's nodes:
 * 1, with the node srun named (or "") written to node; else 0. */
int nodelost_log(const char *log, char *node, size_t nodelen);

/* Job (Slurm id) failed because one of its nodes was lost: 1, with a
 * sentence saying which node and why written to why; else 0. Waits at most
 * wait seconds (LLMB_NODE_LOST_WAIT, read by the caller) for the controller
 * to mark the node. */
int nodelost_check(const char *job, const char *log, long wait, char *why, size_t whylen);

#endif
