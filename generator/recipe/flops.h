/* flops: a workload's model FLOPs per sample, from the formula in its
 * recipe (flops: attention + mlp + embedding, times factor), with names
 * bound from models.<size> and from the run parameters of a config row.
 * Errors are printed as file:line:col pointing into the recipe. */
#ifndef LLMB_FLOPS_H
#define LLMB_FLOPS_H

#include "recipe/recipe.h"

struct flops {
	double attention, mlp, embedding;   /* terms as written, before factor */
	double factor;                      /* 1 when the recipe has none */
	double total;                       /* (attention + mlp + embedding) * factor */
};

/* The run parameters of one config row at one scale. names are borrowed
 * from the recipe tree; params_free releases the arrays only. */
struct params {
	size_t n;
	const char **names;
	double *vals;
};

/* First config row of workload w that lists gpu, size, dtype and scale;
 * NULL, 0 or "" for any of them matches every row. NULL if none. */
const struct ynode *workload_config(const struct ynode *w, const char *gpu, const char *size,
				    const char *dtype, long scale);

/* Evaluates the params of config at scale (bound: scale, gpus_per_node,
 * nodes = scale / gpus_per_node). 0, or -1 after printing errors; a NULL
 * file prints nothing (the recipe pass, runcheck.c, said them). */
int config_params(const char *file, const struct ynode *config, long scale, long gpus_per_node,
		  struct params *p);
/* The k-th param of config at scale, with the params before it bound as
 * config_params binds them: 0 and *v, or -1 with the message and the
 * offset in the expression. Prints nothing. */
int config_param_eval(const struct ynode *config, size_t k, long scale, long gpus_per_node, double *v,
		      char *err, size_t errlen, int *off);
void params_free(struct params *p);
/* 0 and *v when p has name. */
int params_get(const struct params *p, const char *name, double *v);

/* Evaluates the flops formula of workload w for size with params p.
 * 0, or -1 after printing errors (none with a NULL file). */
int flops_eval(const char *file, const struct ynode *w, const char *size,
	       const struct params *p, struct flops *out);
/* The index of the flops term named by key k (attention, mlp, embedding,
 * factor), or -1 after an error at k (none with a NULL file). */
int flops_term(const char *file, const struct ynode *k);
/* One term's expression n with p and the dimensions of size bound: 0 and
 * *v, or -1 with the message and offset. Prints nothing. */
int flops_term_eval(const struct ynode *w, const char *size, const struct params *p, const struct ynode *n,
		    double *v, char *err, size_t errlen, int *off);

/* Model FLOPs per sample of workload/size on gpu (NULL: the first config
 * row of the size), with that row's params at its first scale. parts (may
 * be NULL) gets attention, mlp and embedding, each already multiplied by
 * the factor, so they sum to *total. 0, or -1 after printing errors. */
int workload_model_flops(const struct recipes *r, const char *workload, const char *size,
			 const char *gpu, double *total, double parts[3]);

#endif
