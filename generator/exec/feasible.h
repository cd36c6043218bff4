/* feasible: what the executor that will run a plan can run, said when the
 * plan is made (make -n, make plan, make report) instead of inside a job.
 * The local executor runs jobs on this machine only: no GPU job of more
 * than one node (CPU nodes are emulated by processes), no pyxis containers,
 * and images imported only where enroot is installed. */
#ifndef LLMB_FEASIBLE_H
#define LLMB_FEASIBLE_H

#include "exec/executor.h"
#include "plan/plan.h"
#include "store/stagecfg.h"

/* Why the executor is what it is, for messages: "EXECUTOR=local" or
 * "the default: no Slurm controller answers scontrol ping". */
const char *executor_why(const struct executor *ex);

/* NULL when the stage configuration cfg can run on ex, else why not
 * (a static or stage-owned string until the next call). */
const char *stage_infeasible(const struct stagecfg *cfg, const struct executor *ex);

/* enroot as the image jobs call it is here: LLMB_ENROOT, else enroot on PATH. */
int have_enroot(void);

/* Every stage of p that ex cannot run, one error per kind of problem with
 * its count and first stage. Returns the number of errors. */
int plan_feasible(const struct plan *p, const struct executor *ex);

#endif
