#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "plan/plandata.h"

const char *const knob_names[K_NKNOBS] = {
	"WORKLOAD", "SIZE", "DTYPE", "GPU_TYPE", "SCALES", "PROXY",
	"ENABLE_PROFILE", "PROFILE_START_STEP", "PROFILE_STOP_STEP",
	"PROFILE_RANKS", "ENABLE_PYTORCH_PROFILE", "ENABLE_GPU_METRICS",
	"ENABLE_NCCLTRACE", "ENABLE_CHECKPOINT", "LOAD_CHECKPOINT_PATH", "CHECKPOINT_DIR", "CHECKPOINT_INTERVAL",
	"ADDITIONAL_SLURM_PARAMS", "TIME_LIMIT", "MAX_STEPS", "EXTRA_WORK", "PREFLIGHT",
	"TP", "PP", "CP", "VP", "EP", "ETP", "MBS", "GBS", "FP8_RECIPE", "CONFIG_VARIANT", "CUDA_GRAPH_SCOPE", "ENV",
};

/* ---- instances ----------------------------------------------------------- */

struct inst *
add_inst(struct plan *p, char *id, const struct ynode *stage, const struct ynode *wl)
{
	p->v = xrealloc(p->v, (p->n + 1) * sizeof *p->v);
	struct inst *in = &p->v[p->n++];
	memset(in, 0, sizeof *in);
	in->id = id;
	in->stage = stage;
	in->kind = ystr(stage, "kind", "");
	in->wl = wl;
	in->workload = ystr(wl, "workload", "");
	index_add(&p->ids, id, p->n - 1);
	return in;
}

void
add_output(struct inst *in, char *path)
{
	in->outputs = xrealloc(in->outputs, (in->noutputs + 1) * sizeof *in->outputs);
	in->outputs[in->noutputs++] = path;
}

void
add_serves(struct inst *in, const char *w)
{
	for (size_t i = 0; i < in->nserves; i++)
		if (!strcmp(in->serves[i], w))
			return;
	in->serves = xrealloc(in->serves, (in->nserves + 1) * sizeof *in->serves);
	in->serves[in->nserves++] = xstrdup(w);
}

struct inst *
plan_find(struct plan *p, const char *id)
{
	long i = index_get(&p->ids, id);
	return i < 0 ? NULL : &p->v[i];
}
