/* published: Megatron-Bridge's published performance rows
 * (workloads/published/megatron-bridge.yaml, written by
 * scripts/mb-published.py from its docs/performance-summary*.md): which
 * rows belong to a workload, the release its image runs (the current
 * reference; the other releases are history), and how a row compares with
 * the recipe's configuration of a run: GPU type, GPU count, dtype and
 * compute dtype, seq, GBS, MBS, TP, PP, CP, VP, EP and FSDP. A run is
 * compared with a row only when none of them differs. */
#ifndef LLMB_PUBLISHED_H
#define LLMB_PUBLISHED_H

#include "base/util.h"
#include "recipe/recipe.h"
#include "store/layout.h"

#define PUBLISHED_FILE LAYOUT_WORKLOADS "/published/megatron-bridge.yaml"

/* Loads and checks the table below top: the document; NULL when the file
 * does not exist (*bad 0) or after printing its errors (*bad 1). */
struct ydoc *published_load(const char *top, int *bad);

/* The release of the workload's image tag (nvcr.io#nvidia/nemo:26.04.01:
 * "26.04.01") into buf; 0, or -1 when the workload names no image. */
int published_release(const struct ynode *wl, char *buf, size_t n);

/* Appends to why the fields in which row differs from the configuration
 * wl runs on gpu at scale for size and dtype ("GPUs 64 (run 512), gbs 256
 * (run 2048)"); returns how many differ, -1 when the workload has no
 * config row for the run. gpus_per_node binds the recipe's expressions. */
int published_differs(const struct ynode *row, const struct ynode *wl, const char *gpu, const char *size,
		      const char *dtype, long scale, long gpus_per_node, struct sb *why);

/* The reference of a run among rows of the workload's current release:
 * the row that matches (*differs 0), else the nearest one (fewest fields
 * differ, same GPU type and dtype first) with why saying what differs;
 * NULL when the release has no row of the workload and size. */
const struct ynode *published_find(const struct ydoc *t, const struct ynode *wl, const char *gpu,
				   const char *size, const char *dtype, long scale, long gpus_per_node,
				   int *differs, struct sb *why);

/* The note that explains a known inconsistency of row (release_notes:
 * the first whose release, model and GPU fit), or NULL. */
const char *published_note(const struct ydoc *t, const struct ynode *row);

/* "Megatron-Bridge 26.04.01, docs/performance-summary-archive.md:203 at
 * 067f987df03b" */
char *published_source(const struct ydoc *t, const struct ynode *row);

#endif
