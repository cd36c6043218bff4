/* mbflops: model FLOPs per sample as Megatron-Bridge counts them
 * (training/utils/flop_utils.py), for the model sizes of the table
 * workloads/models/megatron-bridge.yaml: dense GQA, SwiGLU, MoE with
 * shared experts, multi-latent attention, multi-token prediction and
 * hybrid Mamba models. The table is read on demand; it is not a recipe. */
#ifndef LLMB_MBFLOPS_H
#define LLMB_MBFLOPS_H

#include "base/yamlload.h"
#include "store/layout.h"

/* The table's path below top. */
#define MBFLOPS_TABLE LAYOUT_WORKLOADS "/models/megatron-bridge.yaml"

/* One count, per sample (batch 1), forward and backward (3 x forward). */
struct mbflops {
	const char *kind;       /* dense, moe, mla-moe, hybrid, hybrid-moe */
	double vocab_padded;    /* the vocabulary as the logits count it */
	double attention;       /* self attention: projections and core */
	double mlp;             /* dense MLPs, routed and shared experts */
	double mamba;           /* Mamba mixers (hybrid models) */
	double mtp;             /* MTP norms and projections */
	double logits;          /* output layer, once per MTP depth too */
	double total;
};

/* Loads and checks the table below top: the document, or NULL after
 * printing errors. ydoc_free releases it. */
struct ydoc *mbtable_load(const char *top);
/* The row of model/size in the table, or NULL. */
const struct ynode *mbtable_row(const struct ydoc *t, const char *model, const char *size);
/* Counts row with tensor parallelism tp (which pads the vocabulary). */
void mbflops_count(const struct ynode *row, long tp, struct mbflops *f);

#endif
