/* dryrun: whether the make that runs llmb was started with -n, when no
 * job is submitted and no state is written. Read from the environment
 * make passes down, so it lives above the planner. */
#ifndef LLMB_DRYRUN_H
#define LLMB_DRYRUN_H

/* Whether the make that runs us was started with -n: LLMB_DRYRUN, set by
 * the GNUmakefile for llmb gen (make drops the n from MAKEFLAGS for the
 * recipe that remakes the rules), or n among the one-letter flags, the
 * first word of MAKEFLAGS. */
int make_dry_run(void);

#endif
