/* exsuite: an exemplar suite file (pipelines/exemplar.yaml), upstream's
 * exemplar.yaml shape: `config:` (scale, repeats, profile, and llmb's
 * pass_pct) and `workloads:` per GPU type, a list of one-key entries
 * "<workload>_<size>: {dtypes: [...]}", the workload llmb's or upstream's
 * name of it (pretrain_llama3.1_70b). Loaded for one GPU type into the
 * selections `make exemplar` plans (the nightly matrix's struct, so the
 * planner reads both alike), narrowed by the make selection variables. */
#ifndef LLMB_EXSUITE_H
#define LLMB_EXSUITE_H

#include "plan/nightmatrix.h"

#define EXSUITE_PASS_PCT 95.0   /* upstream's line: more than 95% of the baseline */

struct exsuite {
	struct nmatrix m;           /* one entry per workload and size; repeats */
	int *line, *col;            /* each entry's position in the file */
	char *gpu;                  /* the GPU type the suite was loaded for */
	long scale;                 /* GPUs of every run (default 512) */
	int profile;                /* one more, profiled run per configuration */
	double pass_pct;            /* a configuration passes above this percentage */
};

/* Loads path for gpu (NULL: the file's only GPU type), upstream's
 * workload names read through top's workloads/upstream/names.yaml; prints
 * file:line:col diagnostics and returns their count. */
int exsuite_load(const char *top, const char *path, const char *gpu, struct exsuite *s);
void exsuite_free(struct exsuite *s);

#endif
