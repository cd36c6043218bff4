/* impkit: what the parts of `llmb import` (upstream metadata.yaml -> llmb
 * workload) share: the import's state, the diagnostics, checked access to
 * the upstream tree and the YAML quoting. Below the parts:
 *  - import.c     the command, the refusal of what is not training, the
 *                 general section, the assembly of the output;
 *  - importsrc.c  what a run needs installed: images, repositories, the
 *                 venv, setup tasks, downloads, tools;
 *  - importrun.c  what a run is: configs (scales, exact and proxy scales,
 *                 dtypes), models, FLOPs, measurement, and the training job
 *                 of the nemo, sbatch and configured_sbatch launchers;
 *  - importmb.c   the megatron_bridge launcher: the training job through
 *                 workloads/mbridge-launch.py, as llmb's own recipes run it.
 * Every section appends YAML to a string buffer and reports what it could
 * not convert as an error at its upstream position (a gap: the output has a
 * TODO comment there) or what is wrong with the input (bad: nothing is
 * written). */
#ifndef LLMB_IMPKIT_H
#define LLMB_IMPKIT_H

#include "base/htab.h"
#include "base/schema.h"
#include "base/util.h"
#include "base/yamlload.h"

struct img {
	char *key;
	const struct ynode *ref;    /* upstream url */
	struct sb gpus;             /* explicit GPU types, ", "-separated */
	int dflt;                   /* listed under by_gpu default or without by_gpu */
};

struct imp {
	const char *file;
	const char *top;            /* llmb checkout: its model table and workloads */
	int bad, gaps;
	int said_inexact;           /* the exact_scales note is said once */
	const struct ynode *root, *gpu_configs, *setup;
	const char *launcher;       /* run.launcher_type (default nemo) */
	const char *log_format;     /* NULL when unknown */
	char *model;                /* llmb's name of the model, when known */
	struct ydoc *wl;            /* llmb's workloads/<model>.yaml, when there */
	struct ydoc *mbt;           /* llmb's Megatron-Bridge model table */
	struct img *imgs;
	size_t nimgs, imgs_cap;
	struct pindex img_refs;     /* image url -> its imgs index */
	struct pindex img_keys;     /* image keys, a set */
	struct pindex repo_keys;    /* keys of repositories and extra_repos, a set */
	struct pindex hf_names;     /* names of the download tasks, a set */
	char *train_image;          /* key of the training image */
	struct sb repos, venv_git, venv_pip, extra_repos;
	const struct ynode **sizes; /* model sizes of the configs, first mention of each */
	size_t nsizes, sizes_cap;
	struct pindex size_set;
};

extern const struct ytype imp_t_name, imp_t_url, imp_t_sha, imp_t_image, imp_t_str;

/* Diagnostics: bad input, a gap ("not converted: ..."), a note. */
void imp_bad(struct imp *im, const struct ynode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void imp_gap(struct imp *im, const struct ynode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void imp_note(struct imp *im, const struct ynode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Child key of mapping m of kind k (-1: any); absent is NULL, a wrong kind bad. */
const struct ynode *imp_get(struct imp *im, const struct ynode *m, const char *key, int kind, int required);
/* schema_check, counted as bad. */
int imp_check(struct imp *im, const struct ynode *n, const struct ytype *t);
/* A note for each key of m not in known. */
void imp_ignore_unknown(struct imp *im, const struct ynode *m, const char *const *known, const char *where);
/* A boolean as upstream's reader (PyYAML, YAML 1.1) takes a plain scalar:
 * true/yes/on 1, false/no/off 0 (any case it knows); anything else is bad,
 * and absent (n NULL) is -1 without a word. */
int imp_bool(struct imp *im, const struct ynode *n, const char *what);
/* A double-quoted YAML scalar. */
void imp_q(struct sb *s, const char *v);

#endif
