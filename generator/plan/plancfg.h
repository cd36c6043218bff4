/* plancfg: the typed configuration of one planned stage instance, the
 * fields each kind of stage carries (image, venv, data task, train, parse,
 * report), filled by the plan's builders, and its one rendering as the
 * stage configuration text (stagecfg.h's "key=value" lines) that gen
 * writes. Strings marked borrowed belong to the recipes or the selection,
 * which outlive the plan's instances; the others are the record's own. */
#ifndef LLMB_PLANCFG_H
#define LLMB_PLANCFG_H

#include <stddef.h>

#include "base/util.h"

/* One word of a command, expanded; hash: the content hash of the checkout
 * file it names (a "file=" line after its "arg=" line), else NULL. */
struct pc_arg {
	char *word, *hash;
};

/* A job's command: its words, environment, mounts and secrets. */
struct pc_cmd {
	struct pc_arg *args;
	size_t nargs;
	char **env;                 /* "KEY=VALUE", expanded */
	size_t nenv;
	char **mounts;              /* expanded */
	size_t nmounts;
	const char **secrets;       /* borrowed names, each once, never values */
	size_t nsecrets;
};

struct pc_image {
	const char *ref;            /* borrowed */
	char *stem;                 /* the image's file stem */
};

/* A repository a venv entry installs from (its "repo=" line), key NULL:
 * none. All borrowed. */
struct pc_repo {
	const char *key, *url, *commit;
};

/* One entry of a venv's dependency set, in the recipe's order. */
struct pc_dep {
	enum { PD_GIT, PD_PIP, PD_PIPDEP } kind;
	struct pc_repo repo;        /* git and pipdep: the repository line before it */
	const char *name;           /* git: the repository key; pip: the requirement; pipdep: the package */
	const char *method, *path;  /* git: how and where it installs ("-": none) */
	const char *repo_key;       /* pipdep: its repository, NULL: none */
	const char *target;         /* pipdep: install_target ("-": none) */
	int editable;               /* pipdep */
};

struct pc_venv {
	const char *python;         /* borrowed */
	int system_site_packages;
	struct pc_dep *deps;
	size_t ndeps;
	const char **pip_args;      /* borrowed */
	size_t npip_args;
	char *dir;                  /* install-relative; set once the id is known */
};

struct pc_data {
	const char *task;           /* borrowed, like the other const strings */
	int gpus;
	char *image;                /* stem, NULL: none */
	struct pc_cmd cmd;
	const char *time_limit, *size_gb;
	const char **proves;
	size_t nproves;
};

/* A run knob as the train stage records it (name=value). */
struct pc_knob {
	const char *name, *value;   /* borrowed */
};

/* A training parameter of the run's row, as evaluated. */
struct pc_param {
	const char *name;           /* borrowed */
	double value;
};

struct pc_train {
	long nodes, tasks_per_node, gpus_per_node;
	char *image;                /* stem, NULL: none */
	const char *time_limit;
	struct pc_knob *knobs;
	size_t nknobs;
	const char *preflight;      /* NULL: the default (warn), not written */
	int profile;                /* with profile_start-profile_stop */
	const char *profile_start, *profile_stop;
	int nccltrace, proxy;
	struct pc_param *params;
	size_t nparams;
	double steps;
	int have_flops;
	double model_flops;
	struct pc_cmd cmd;
	size_t cmd_nargs;           /* cmd's words from train.cmd; the rest: the row's */
	const char *srun_mpi;
	int container_writable, node_setup;
	char *container_env;        /* names, comma-joined; NULL: none */
	const char *sbatch_mem;     /* NULL: the cluster's default */
	long segment;               /* 0: no --segment */
	char *recompute;            /* the row's recompute modules, comma-joined; NULL: none */
	/* the caller's variables of the recorded families (envrec.h),
	 * "NAME=value", borrowed */
	const char *const *callerenv;
	size_t ncallerenv;
};

struct pc_parse {
	long win_from, win_to;      /* the measured iterations */
	const char *log_format, *indexing, *metric;
	double steps;
	int profiled, proxy, unlisted;
};

struct pc_report {
	char *report;               /* the report file's name */
	const char *tolerance_pct;
};

enum pc_kind { PC_NONE, PC_IMAGE, PC_VENV, PC_DATA, PC_TRAIN, PC_PARSE, PC_REPORT };

struct plancfg {
	enum pc_kind kind;
	char *run;                  /* train and parse: the run directory */
	int bound;                  /* train and parse: the run's values were bound
	                             * (else the record holds the run alone) */
	union {
		struct pc_image image;
		struct pc_venv venv;
		struct pc_data data;
		struct pc_train train;
		struct pc_parse parse;
		struct pc_report report;
	} u;
};

/* v as the configuration writes numbers: whole ones without a fraction. */
void fmt_num(char *buf, size_t len, double v);

/* Appends s (taken over) to the word list v of n words. */
void pc_strv_add(char ***v, size_t *n, char *s);
/* Appends the borrowed s to v. */
void pc_constv_add(const char ***v, size_t *n, const char *s);

/* The command of a job-running instance (data, train), else NULL. */
const struct pc_cmd *plancfg_cmd(const struct plancfg *c);

/* Appends c's configuration lines to out. */
void plancfg_render(const struct plancfg *c, struct sb *out);
/* The lines of a venv's dependency set (python, system site packages,
 * repositories, git and pip entries, pip arguments): what decides its id. */
void plancfg_venv_set(const struct pc_venv *v, struct sb *out);
void plancfg_free(struct plancfg *c);

#endif
