/* upnames: upstream's workload names (workloads/upstream/names.yaml) ->
 * llmb's workloads. An upstream name is llmb-run's key
 * <workload_type>_<workload> (pretrain_gpt_oss), or the metadata's
 * workload, display_name or one of its workload_aliases, each with or
 * without the type prefix. */
#ifndef LLMB_UPNAMES_H
#define LLMB_UPNAMES_H

#include "base/yamlload.h"
#include "store/layout.h"

#define UPNAMES_FILE LAYOUT_WORKLOADS "/upstream/names.yaml"

/* Loads and checks the table below top: the document; NULL when the file
 * does not exist (*bad 0) or after printing its errors (*bad 1). */
struct ydoc *upnames_load(const char *top, int *bad);
/* The llmb workload upstream's name stands for, or NULL. */
const char *upnames_workload(const struct ydoc *t, const char *name);

#endif
