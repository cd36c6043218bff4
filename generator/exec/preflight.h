/* preflight: the runner's side of the pre-flight checks. Each node's probe
 * judges the node before training (templates/probe-node.sh, the table of
 * checks); under PREFLIGHT=fail or exclude the job script stops a job with
 * a failing node and leaves its findings in the stage's state folder
 * (LAYOUT_PREFLIGHT_FAILED.JOB: NODE TAB CHECK TAB WHY lines). This module
 * owns reading them and the list of nodes the stage's next job leaves out
 * (LAYOUT_PREFLIGHT_EXCLUDE, one hostlist line, written whole). The
 * policy itself is the stage configuration's (stagecfg.h). */
#ifndef LLMB_PREFLIGHT_H
#define LLMB_PREFLIGHT_H

#include <stddef.h>

#include "base/util.h"

/* Job job of the stage whose state folder is state stopped itself for a
 * failed pre-flight: 1, its first finding as reason ("pre-flight failed
 * on n1: WHY (CHECK) and 2 more") and the failing nodes, comma-separated,
 * appended to nodes (names of other characters than a hostname's are
 * left out). 0 when it did not. */
int preflight_failed(const char *state, const char *job, char *reason, size_t rlen, struct sb *nodes);

/* The nodes join the ones the next job leaves out; 0 when written. */
int preflight_exclude_add(const char *state, const char *nodes);

/* ADDITIONAL_SLURM_PARAMS extra with the nodes to leave out merged in
 * (slurm_params_exclude): a new string, the nodes appended to nodes; NULL
 * when there are none, or when the merge fails (err says why). */
char *preflight_exclude(const char *state, const char *extra, struct sb *nodes, struct sb *err);

/* The stage succeeded: its next job may use every node again. */
void preflight_exclude_forget(const char *state);

#endif
