/* runstages: the instances of the per-run stages (train, parse) and the
 * per-configuration stage (report) for each selected run of a workload:
 * the run's values bound (coordinates, model dimensions, parameters, model
 * FLOPs, the run knobs), then the job's shape, image, knobs, argv,
 * environment and secrets recorded in the typed configuration (store/stagecfg.h),
 * with the plan line that shows them. A night's runs get instances of
 * their own. */
#ifndef LLMB_RUNSTAGES_H
#define LLMB_RUNSTAGES_H

#include "plan/planbuild.h"

/* Instances of stage for every selected run of w (per configuration for
 * a report stage). */
void build_runs(struct wctx *w, const struct ynode *stage);

#endif
