/* mbflops: Megatron-Bridge's model FLOPs for the sizes of its table.
 *
 * Every count is per sample and token-sequence of length s, forward and
 * backward: each GEMM runs three times (forward, data and weight
 * gradients) at two FLOPs per multiply-add, so a GEMM of a [s, a] by
 * [a, b] matrix costs 6 s a b. Megatron-Bridge has two accountings and
 * llmb keeps them apart, as it does:
 *  - transformers (dense, MoE, MLA, MTP): per layer, the attention
 *    projections and the causal half of the core attention, the MLP as
 *    2 (3 with SwiGLU) GEMMs of hidden x ffn, top-k routed experts plus the
 *    shared ones; MTP depths count as more layers of the last layer's kind,
 *    plus their norms and projection; the logits once per depth;
 *  - hybrid models (layer pattern of Mamba, attention, MLP and MoE layers):
 *    per pattern character, with its own Mamba mixer count; MTP depths are
 *    the pattern's blocks after '/', counted like the main ones, and a
 *    latent MoE runs its routed experts on moe_latent_size wide tokens,
 *    plus the projections to and from it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/schema.h"
#include "base/util.h"
#include "recipe/mbflops.h"

#define SCALAR(k) {k, 0, 0, 0}
static const struct ytype t_int = SCALAR(T_INT), t_bool = SCALAR(T_BOOL), t_str = SCALAR(T_STR),
	t_sha = SCALAR(T_SHA), t_path = SCALAR(T_PATH);
static const struct field row_fields[] = {
	{"commit", &t_sha, 1, "the Megatron-Bridge commit the upstream recipe pins"},
	{"path", &t_path, 1, "the recipe file that builds the model, in that commit"},
	{"source", &t_str, 1, "the function, the Hugging Face config it loads, the other files read"},
	{"seq", &t_int, 1, "sequence length of the performance script"},
	{"layers", &t_int, 1, "num_layers"},
	{"hidden", &t_int, 1, "hidden_size"},
	{"ffn_hidden", &t_int, 1, "ffn_hidden_size"},
	{"heads", &t_int, 1, "num_attention_heads"},
	{"query_groups", &t_int, 0, "num_query_groups (default: heads)"},
	{"kv_channels", &t_int, 0, "kv_channels (default: hidden / heads)"},
	{"vocab", &t_int, 1, "vocab_size, unpadded"},
	{"vocab_multiple", &t_int, 0, "make_vocab_size_divisible_by (default 128)"},
	{"swiglu", &t_bool, 1, "gated linear unit with SiLU"},
	{"experts", &t_int, 0, "num_moe_experts"},
	{"topk", &t_int, 0, "moe_router_topk"},
	{"moe_ffn_hidden", &t_int, 0, "moe_ffn_hidden_size (default: ffn_hidden)"},
	{"shared_ffn_hidden", &t_int, 0, "moe_shared_expert_intermediate_size"},
	{"dense_layers", &t_int, 0, "leading dense layers of an MoE model"},
	{"mtp_layers", &t_int, 0, "mtp_num_layers"},
	{"q_lora_rank", &t_int, 0, "MLA query compression rank"},
	{"kv_lora_rank", &t_int, 0, "MLA key-value compression rank"},
	{"qk_head_dim", &t_int, 0, "MLA query-key head dimension (default 64)"},
	{"qk_pos_head_dim", &t_int, 0, "MLA rotary head dimension (default 0)"},
	{"v_head_dim", &t_int, 0, "MLA value head dimension (default 64)"},
	{"pattern", &t_str, 0, "hybrid_layer_pattern: M Mamba, * attention, - MLP, E MoE; MTP depths after '/'"},
	{"moe_latent", &t_int, 0, "moe_latent_size of a latent MoE (hybrid; default none)"},
	{"mamba_state", &t_int, 0, "mamba_state_dim (default 128)"},
	{"mamba_heads", &t_int, 0, "mamba_num_heads (default 128)"},
	{"mamba_head_dim", &t_int, 0, "mamba_head_dim (default 64)"},
	{"mamba_groups", &t_int, 0, "mamba_num_groups (default 8)"},
	{NULL},
};
static const struct ytype t_row = {T_OBJ, 0, row_fields, 0};
static const struct ytype t_sizes = {T_DICT, &t_row, 0, 0};
static const struct ytype t_models = {T_DICT, &t_sizes, 0, 0};
static const struct field table_fields[] = {
	{"models", &t_models, 1, "model sizes by model name"},
	{NULL},
};
static const struct ytype t_table = {T_OBJ, 0, table_fields, 0};

struct ydoc *
mbtable_load(const char *top)
{
	char *path = strcmp(top, ".") ? xasprintf("%s/%s", top, MBFLOPS_TABLE) : xstrdup(MBFLOPS_TABLE);
	struct ydoc *d = yaml_load_file(path);
	free(path);
	if (d && (d->errors || schema_check(d->file, d->root, &t_table))) {
		ydoc_free(d);
		d = NULL;
	}
	return d;
}

const struct ynode *
mbtable_row(const struct ydoc *t, const char *model, const char *size)
{
	return ymap_get(ymap_get(ymap_get(t->root, "models"), model), size);
}

/* A dimension of row, or def when the row leaves it out. */
static double
dim(const struct ynode *row, const char *key, double def)
{
	const struct ynode *n = ymap_get(row, key);
	return n ? strtod(n->str, NULL) : def;
}

/* The model as the count reads it, Megatron's defaults filled in. */
struct dims {
	double s, layers, h, ffn, heads, groups, kv, experts, topk, moe_ffn, shared, dense, mtp, latent;
	double qr, kvr, qk, qkpos, v;           /* MLA */
	double mstate, mheads, mhdim, mgroups;  /* Mamba */
	double glu;                             /* 3/2 with SwiGLU, else 1 */
	int mla;
};

static void
dims_read(const struct ynode *row, struct dims *d)
{
	d->s = dim(row, "seq", 0);
	d->layers = dim(row, "layers", 0);
	d->h = dim(row, "hidden", 0);
	d->ffn = dim(row, "ffn_hidden", 0);
	d->heads = dim(row, "heads", 1);
	d->groups = dim(row, "query_groups", d->heads);
	d->kv = dim(row, "kv_channels", floor(d->h / d->heads));
	d->experts = dim(row, "experts", 0);
	d->topk = dim(row, "topk", d->experts > 0 ? 2 : 0);
	d->moe_ffn = dim(row, "moe_ffn_hidden", d->ffn);
	d->shared = dim(row, "shared_ffn_hidden", 0);
	d->dense = dim(row, "dense_layers", 0);
	d->mtp = dim(row, "mtp_layers", 0);
	d->latent = dim(row, "moe_latent", 0);
	d->mla = ymap_get(row, "kv_lora_rank") != NULL;
	d->qr = dim(row, "q_lora_rank", 0);
	d->kvr = dim(row, "kv_lora_rank", 0);
	d->qk = dim(row, "qk_head_dim", 64);
	d->qkpos = dim(row, "qk_pos_head_dim", 0);
	d->v = dim(row, "v_head_dim", 64);
	d->mstate = dim(row, "mamba_state", 128);
	d->mheads = dim(row, "mamba_heads", 128);
	d->mhdim = dim(row, "mamba_head_dim", 64);
	d->mgroups = dim(row, "mamba_groups", 8);
	d->glu = !strcmp(ymap_get(row, "swiglu")->str, "true") ? 1.5 : 1;
}

/* Per token and layer: grouped-query attention, Q, K, V and output
 * projections and the causal half of QK^T and AV. */
static double
gqa_per_layer(const struct dims *d)
{
	double proj = d->kv * d->heads / d->h;
	return 12 * d->h * d->h * ((1 + d->groups / d->heads + d->s / d->h / 2) * proj);
}

/* Per token and layer: multi-latent attention, the query and key-value
 * compressions with their norms, the up-projections, the rotary key, the
 * output projection and the causal core. */
static double
mla_per_layer(const struct dims *d)
{
	double qdim = d->heads * (d->qk + d->qkpos);
	double q = d->qr ? d->qr * (d->h + qdim + 1) : d->h * qdim;
	double kv = d->kvr * (d->h + d->heads * (d->qk + d->v) + 1);
	double core = d->s * qdim / 2 + d->s * d->heads * d->v / 2;
	return 6 * (q + kv + d->h * d->qkpos + d->heads * d->v * d->h + core);
}

static void
count_transformer(const struct dims *d, double vp, struct mbflops *f)
{
	double moe = d->experts > 0 ? d->layers - d->dense : 0;
	double dense = d->layers - moe;
	double topk = d->experts > 0 ? d->topk : 0;
	/* MTP depths repeat the last layer, an MoE one when any is. */
	if (moe > 0)
		moe += d->mtp;
	else
		dense += d->mtp;
	double layers = d->layers + d->mtp;
	double attn = d->mla ? mla_per_layer(d) : gqa_per_layer(d);
	f->kind = d->mla ? "mla-moe" : moe > 0 ? "moe" : "dense";
	f->attention = d->s * layers * attn;
	f->mlp = d->s * 12 * layers * d->h *
		 (d->ffn * d->glu * (dense / layers) + d->moe_ffn * topk * d->glu * (moe / layers) +
		  d->shared * d->glu * (moe / layers));
	f->mtp = d->s * 6 * d->mtp * (3 * d->h + 2 * d->h * d->h);
	f->logits = d->s * 6 * d->h * vp * (d->mtp + 1);
}

/* Hybrid layers, forward only (the caller multiplies by 3). */
static double
hybrid_attention(const struct dims *d)
{
	double p = d->kv ? d->kv * d->heads / d->h : 1;
	return 4 * d->s * d->h * p * (d->h + d->h * (d->groups / d->heads) + d->s / 2);
}

static double
hybrid_mamba(const struct dims *d)
{
	double din = 2 * d->h;
	double nheads = d->mheads ? d->mheads : floor(din / d->mhdim);
	return 2 * d->s * d->h * (2 * din + 2 * d->mgroups * d->mstate + nheads) + 7 * d->s * din * d->mstate +
	       2 * d->s * din * d->h;
}

static void
count_hybrid(const struct dims *d, const char *pattern, double vp, struct mbflops *f)
{
	double n[4] = {0, 0, 0, 0};  /* M * - E */
	for (const char *p = pattern; *p; p++) {
		const char *k = strchr("M*-E", *p);
		if (k)
			n[k - "M*-E"]++;
	}
	double mlp = 4 * (d->ffn / d->h) * d->glu * d->s * d->h * d->h;
	/* Routed experts on latent wide tokens and the two latent projections,
	 * or on hidden wide ones; the shared expert on hidden wide ones. */
	double routed = d->latent ? 4 * d->s * d->latent * d->moe_ffn * d->topk * d->glu + 4 * d->s * d->h * d->latent
				  : 4 * d->s * d->h * d->moe_ffn * d->topk * d->glu;
	double moe = routed + 4 * d->s * d->h * d->shared * d->glu;
	f->kind = n[3] > 0 ? "hybrid-moe" : "hybrid";
	f->attention = 3 * n[1] * hybrid_attention(d);
	f->mamba = 3 * n[0] * hybrid_mamba(d);
	f->mlp = 3 * (n[2] * mlp + n[3] * moe);
	f->logits = 3 * 2 * d->s * d->h * vp * (1 + d->mtp);
}

void
mbflops_count(const struct ynode *row, long tp, struct mbflops *f)
{
	struct dims d;
	dims_read(row, &d);
	memset(f, 0, sizeof *f);
	double mult = dim(row, "vocab_multiple", 128) * (double)(tp > 0 ? tp : 1);
	f->vocab_padded = ceil(dim(row, "vocab", 0) / mult) * mult;
	const struct ynode *pattern = ymap_get(row, "pattern");
	if (pattern)
		count_hybrid(&d, pattern->str, f->vocab_padded, f);
	else
		count_transformer(&d, f->vocab_padded, f);
	f->total = f->attention + f->mlp + f->mamba + f->mtp + f->logits;
}
