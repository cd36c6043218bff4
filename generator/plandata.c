#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "plandata.h"

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
	const char *b = getenv("LLMB_BISECT");
	s->bisect = b && *b && strlen(b) <= 64 && strchr(b, '-') && b[0] != '-' &&
			    !b[strspn(b, "abcdefghijklmnopqrstuvwxyz0123456789-")]
			? b
			: NULL;
	/* the pins' words, split once into static storage (the environment
	 * outlives every plan); a word that is no KEY=COMMIT of hex digits is
	 * left out: llmb bisect checks what it sets */
	static char pins[1024];
	const char *pv = getenv("LLMB_BISECT_PIN");
	s->npins = 0;
	if (pv && strlen(pv) < sizeof pins) {
		strcpy(pins, pv);
		for (char *save = NULL, *w = strtok_r(pins, " ", &save); w && s->npins < 8; w = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(w, '=');
			if (!eq || eq == w || strlen(eq + 1) < 7 || eq[1 + strspn(eq + 1, "0123456789abcdef")] ||
			    w[strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")] != '=')
				continue;
			*eq = 0;
			s->pin_key[s->npins] = w;
			s->pin_commit[s->npins++] = eq + 1;
		}
	}
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
