/* stagecfg: the stage configuration record and its one codec. gen writes
 * one configuration file per stage instance ("key=value" lines, one key
 * possibly repeated: arg=, after=, output=); run, the job script, records
 * and reports read it back. struct stagecfg is that record typed: the head
 * every stage has (id, kind, template, workload, label, run coordinates,
 * retry, upstream instances, outputs) and the fields of its kind (image,
 * venv, data task, train, parse, report). stagecfg_render writes the text
 * (its bytes are what each stage's hash is taken over), stagecfg_parse
 * reads it back; no other module reads the text by key.
 *
 * The planner fills records whose strings marked borrowed belong to the
 * recipes, the selection or the plan's instances, which outlive them; a
 * parsed record's borrowed strings point into its arena. */
#ifndef LLMB_STAGECFG_H
#define LLMB_STAGECFG_H

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

struct sc_after {
	const char *id;
	char hash[65];
};

struct stagecfg {
	/* the head every stage has */
	const char *id, *template, *workload, *label; /* workload "": a shared stage */
	const char *gpu, *size, *dtype;   /* NULL where the stage is not per run */
	long scale;                 /* 0 where not per run */
	const char *retry_count;    /* NULL: no retry block */
	const char **retry_on;
	size_t nretry_on;
	struct sc_after *after;     /* the upstream instances, each with its hash */
	size_t nafter;
	const char **outputs;       /* install-relative files proving completion */
	size_t noutputs;
	/* the kind's own fields: the kind is the head's kind= line */
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
	char *arena;                /* parsed: the text the borrowed strings point into */
};

/* The kinds' names as the configuration's kind= line spells them (those of
 * stagekind.h), PC_NONE "". */
extern const char *const pc_kind_names[];

/* v as the configuration writes numbers: whole ones without a fraction. */
void fmt_num(char *buf, size_t len, double v);

/* Appends s (taken over) to the word list v of n words. */
void pc_strv_add(char ***v, size_t *n, char *s);
/* Appends the borrowed s to v. */
void pc_constv_add(const char ***v, size_t *n, const char *s);

/* The caller's variable i of t is recorded: the job's environment does
 * not set it (render leaves the others out). */
int pc_callerenv_kept(const struct pc_train *t, size_t i);

/* The command of a job-running instance (data, train), else NULL. */
const struct pc_cmd *stagecfg_cmd(const struct stagecfg *c);

/* v at the precision the configuration records it: a run parameter or
 * steps (fmt_num), the model's FLOPs ("%.6e"). The planner keeps its
 * records at it, so a record read back equals the plan's. */
double pc_recorded(double v);
double pc_recorded_flops(double v);

/* The hash of the configuration without the lines that name a run rather
 * than configure it (id, label, outputs, run directory): a night's run has
 * its own, with the same configuration. Into h (65 bytes). */
void stagecfg_config_hash(const struct stagecfg *c, char h[65]);

/* Appends c's configuration text to out: what gen writes, byte for byte. */
void stagecfg_render(const struct stagecfg *c, struct sb *out);
/* The lines of a venv's dependency set (python, system site packages,
 * repositories, git and pip entries, pip arguments): what decides its id. */
void stagecfg_venv_set(const struct pc_venv *v, struct sb *out);
/* Reads the configuration text of file into c: 0, or -1 with a
 * "file:line:col: error:" said for the first line that is not as
 * stagecfg_render writes it (c is then empty). */
int stagecfg_parse(struct stagecfg *c, const char *text, const char *file);
/* Reads the configuration file path (0), or says why it cannot (-1). */
int stagecfg_load(struct stagecfg *c, const char *path);
/* a and b record the same configuration (numbers as the text writes them;
 * what the planner keeps for itself, cmd_nargs, aside). */
int stagecfg_equal(const struct stagecfg *a, const struct stagecfg *b);
void stagecfg_free(struct stagecfg *c);

/* The value of the run knob name as the train stage recorded it, or NULL
 * when it was generated without it. */
const char *stagecfg_knob(const struct stagecfg *c, const char *name);

/* The pre-flight policy of a training stage (templates/probe-node.sh
 * checks each node before training): off, warn (the default: findings are
 * recorded and flag the run), fail (a failing node stops the job before
 * training), exclude (fail, and the stage's retry runs without the node). */
enum preflight { PF_OFF, PF_WARN, PF_FAIL, PF_EXCLUDE };
extern const char *const preflight_names[];
/* The policy a word names; -1 when it names none. */
int preflight_policy(const char *word);
/* The stage's policy: its preflight field (set only when it is not the
 * default), else PF_WARN. */
enum preflight stagecfg_preflight(const struct stagecfg *c);

/* The other state files of the install tree written in the same
 * "key=value" form (done stamps, job records, exit files, image
 * identities): the value of the first key= line, or NULL; kv_values
 * collects every value of a repeated key. Not for the configuration. */
const char *kv_get(const char *text, const char *key, char *buf, size_t len);
char **kv_values(const char *text, const char *key, size_t *n);

#endif
