/* recipe: the recipe files (the YAML files of workloads/ and pipelines/, and
 * table workloads/gpus.yaml), their schemas, and loading them all with every
 * error reported. After recipes_load succeeds every tree has the shape its
 * schema describes, so readers use the accessors below without rechecking. */
#ifndef LLMB_RECIPE_H
#define LLMB_RECIPE_H

#include "base/yamlload.h"

struct recipes {
	const char *top;            /* directory holding workloads/ and pipelines/ */
	struct ydoc **workloads;    /* sorted by workload name */
	size_t nworkloads;
	struct ydoc **pipelines;
	size_t npipelines;
	struct ydoc *gpus;          /* workloads/gpus.yaml */
	char **files;               /* every file read, for dependency lists */
	size_t nfiles;
};

/* Loads every recipe below top; 0 on success, else the error count. */
int recipes_load(struct recipes *r, const char *top);
void recipes_free(struct recipes *r);

const struct ynode *workload_find(const struct recipes *r, const char *name, struct ydoc **doc);
const struct ynode *pipeline_find(const struct recipes *r, const char *name, struct ydoc **doc);
const struct ynode *gpu_find(const struct recipes *r, const char *name);

/* Scalar of key in mapping m, or def. */
const char *ystr(const struct ynode *m, const char *key, const char *def);
long yint(const struct ynode *m, const char *key, long def);
int ybool(const struct ynode *m, const char *key, int def);
/* T_NAMES value as a list: n items in *items (borrowed); 0 if absent. */
size_t ynames(const struct ynode *v, const struct ynode *const **items, const struct ynode **one);
/* The T_NAMES value v lists name. */
int ynames_have(const struct ynode *v, const char *name);

#endif
