/* override: the run knobs that change a Megatron-Bridge run's configuration
 * as upstream's launch.sh takes them from the submit line (TP PP CP VP EP
 * ETP MBS GBS FP8_RECIPE CONFIG_VARIANT CUDA_GRAPH_SCOPE, and ENV="K=V
 * ..."): their spellings, the sweep that several values of a knob make
 * (the cartesian product, one selection per combination), each
 * combination held to a run's parallelism, and what it adds to the job
 * (the parser's flags, the environment). An overridden run is a run of its
 * own, <run>/override-<tag>, never compared with the recipe's reference. */
#ifndef LLMB_OVERRIDE_H
#define LLMB_OVERRIDE_H

#include <stddef.h>

#include "plan/plandata.h"
#include "recipe/flops.h"

/* One combination: the selection with one value per override knob. */
struct ovr {
	struct sel s;
	char *tag;   /* "tp2-mbs1": the run directory's override-<tag> */
	char *show;  /* "TP=2 MBS=1": the plan line's and the warnings' */
	char *vals;  /* the values s points into */
};

/* 1 when s sets an override knob. */
int ovr_set(const struct sel *s);
/* The override knobs of s on their own (spellings, secrets in ENV, nightly
 * and exemplar runs refuse them); returns the number of errors said. */
int ovr_check(const struct sel *s, const struct recipes *rec);
/* The combinations of s (the cartesian product of the knobs' values) as
 * *out; their number (0 when no override knob is set). */
size_t ovr_expand(const struct sel *s, struct ovr **out);
void ovr_free(struct ovr *v, size_t n);
/* Applies o to a run's params prm at scale (layers: the model's, 0 when
 * unknown): tp..gbs replaced, dp and ga derived again. 0, or -1 with the
 * constraint it breaks in why. */
int ovr_params(const struct ovr *o, struct params *prm, long scale, char *why, size_t n);
/* The words o adds to the Megatron-Bridge command (after the row's: the
 * parser keeps the last), and the KEY=VALUE pairs of ENV, each taken
 * over by add(ctx, word). */
void ovr_args(const struct ovr *o, void (*add)(void *ctx, char *word), void *ctx);
void ovr_env(const struct ovr *o, void (*add)(void *ctx, char *kv), void *ctx);
/* CUDA_DEVICE_MAX_CONNECTIONS after TP or CP changed from the row's
 * (rtp, rcp) to (tp, cp) on gpu, where the row's value (cur) follows
 * Megatron-Bridge's rule; NULL: leave it as it is. */
const char *ovr_max_connections(const char *gpu, const char *cur, double rtp, double rcp, double tp, double cp);

#endif
