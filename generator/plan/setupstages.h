/* setupstages: the instances of the setup stages, which serve every run of
 * a workload: container images (one per image the runs use, shared by the
 * workloads that name it), venvs (one per dependency set, shared) and data
 * tasks (one per task of the workload). Each instance gets its id, label,
 * typed configuration (store/stagecfg.h), outputs and plan line. */
#ifndef LLMB_SETUPSTAGES_H
#define LLMB_SETUPSTAGES_H

#include "plan/planbuild.h"

/* Instances of an image stage for w's runs. */
void build_images(struct wctx *w, const struct ynode *stage);
/* The venv instance of w's dependency set, unless its workload has none. */
void build_venv(struct wctx *w, const struct ynode *stage);
/* An instance of a data stage per task of w. */
void build_data(struct wctx *w, const struct ynode *stage);

#endif
