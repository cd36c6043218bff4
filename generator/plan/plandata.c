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

void
sel_from_env(struct sel *s)
{
	for (int i = 0; i < K_NKNOBS; i++) {
		/* ENV is also sh's start-up file: the make variable arrives
		 * under a name of llmb's (GNUmakefile) */
		const char *v = getenv(i == K_ENV ? "LLMB_KNOB_ENV" : knob_names[i]);
		s->v[i] = v && *v ? v : NULL;
	}
	s->night = getenv("LLMB_NIGHT") && *getenv("LLMB_NIGHT") ? getenv("LLMB_NIGHT") : NULL;
	s->nightly = getenv("LLMB_NIGHTLY") && *getenv("LLMB_NIGHTLY") ? getenv("LLMB_NIGHTLY") : NULL;
	const char *tag = getenv("LLMB_NIGHT_TAG");
	s->night_tag = tag && *tag && strlen(tag) <= 16 && !tag[strspn(tag, "abcdefghijklmnopqrstuvwxyz")] ? tag : NULL;
	s->exemplar = getenv("LLMB_EXEMPLAR") && *getenv("LLMB_EXEMPLAR") ? getenv("LLMB_EXEMPLAR") : NULL;
	s->sweep = getenv("SWEEP") && *getenv("SWEEP") ? getenv("SWEEP") : NULL;
}

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
