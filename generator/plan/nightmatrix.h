/* nightmatrix: pipelines/nightly.yaml, the selections `make nightly` runs
 * each night (a matrix of workloads, GPU types, sizes, dtypes and scales,
 * and the night's repeats), narrowed by the make selection variables. The
 * file's `nightly:` block is the verdict policy; `llmb judge --policy`
 * reads it, this module only requires it to be a mapping. */
#ifndef LLMB_NIGHTMATRIX_H
#define LLMB_NIGHTMATRIX_H

#include <stddef.h>

/* The selection variables of one entry, in the order of plandata.h's knobs:
 * WORKLOAD SIZE DTYPE GPU_TYPE SCALES; NULL where the entry takes every
 * value the recipe offers. */
#define NM_VARS 5

struct nmatrix {
	char *(*entry)[NM_VARS];  /* space-separated values, owned */
	size_t n;
	long repeats;             /* runs of each configuration per night, >= 1 */
	int confirm_elsewhere;    /* confirmation runs on other nodes (confirm.h) */
	int bisect_on_regression; /* a confirmed regression is bisected (bisect.h) */
};

/* Loads path; prints file:line:col diagnostics and returns their count. */
int nmatrix_load(const char *path, struct nmatrix *m);
/* Keeps of every entry only what the command line also selects (NULL: all);
 * entries left with nothing are dropped. */
void nmatrix_narrow(struct nmatrix *m, const char *const cmd[NM_VARS]);
void nmatrix_free(struct nmatrix *m);

/* A night id is a real calendar date YYYY-MM-DD. */
int night_valid(const char *s);

#endif
