/* slurmpend: why a pending Slurm job waits, and whether that can clear by
 * itself. The reasons are a table of data (slurmpend.c, names from Slurm
 * 22.05); a reason that depends on the nodes or on the jobs of a limit's
 * group is checked against the cluster (sinfo, scontrol, squeue). stagerun.c
 * applies the policy (PENDING_LIMIT); this module only judges. */
#ifndef LLMB_SLURMPEND_H
#define LLMB_SLURMPEND_H

#include "exec/executor.h"

enum pend_kind {
	PEND_WAITS, /* clears by itself: Resources, Priority, Dependency, BeginTime, ... */
	PEND_NODES, /* clears unless every node the job could use is drained or down */
	PEND_GROUP, /* a group limit: clears when the group's running jobs end */
	PEND_NEVER, /* needs an operator: partition down, a request over a limit, ... */
};

/* The kind of a squeue reason ("ReqNodeNotAvail, UnavailableNodes:n1" is
 * ReqNodeNotAvail's); an unknown reason waits. */
enum pend_kind slurm_pend_kind(const char *reason);

/* The executor's blocked check (executor.h) for Slurm: 1 when the pending
 * job ji cannot start without an operator, with why appended (what is
 * wrong, in words); 0 it may start; -1 Slurm could not be asked. The node
 * states are shared through cache_dir/slurm.nodes (one sinfo for every
 * waiting process, at most every 20 s). */
int slurm_pend_blocked(const char *cache_dir, const struct jobinfo *ji, struct sb *why);

/* scancel --state=PENDING: 0 cancelled, 1 it was no longer pending. */
int slurm_cancel_pending(const char *id, struct sb *err);

#endif
