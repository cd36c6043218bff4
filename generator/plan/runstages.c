#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/envrec.h"
#include "plan/override.h"
#include "plan/runcheck.h"
#include "plan/runstages.h"
#include "recipe/flops.h"
#include "recipe/recipecheck.h"
#include "store/instance.h"
#include "store/layout.h"
#include "store/stagekind.h"

/* Binds the run's values: coordinates, gpus_per_node, nodes, the model
 * dimensions of its size and its parameters, evaluated by runcheck.c's
 * run_params (quietly: runcheck.c said what is wrong with them). */
static int
bind_run(struct wctx *w, const struct plan_run *r, struct vars *vs, struct params *prm)
{
	const struct ynode *gpu = gpu_find(&w->p->rec, r->gpu);
	long gpn = yint(gpu, "gpus_per_node", 8);
	vs->n = 0;
	vs->at = (struct coords){r->gpu, r->size, r->dtype};
	var_set(vs, "scale", (double)r->scale);
	var_set(vs, "gpus_per_node", (double)gpn);
	var_set(vs, "nodes", ceil((double)r->scale / (double)gpn));
	const struct ynode *model = ymap_get(ymap_get(w->wl, "models"), r->size);
	for (size_t i = 0; i < ymap_len(model); i++)
		var_set(vs, ymap_key(model, i)->str, strtod(ymap_val(model, i)->str, NULL));
	if (run_params(&w->p->rec, r, prm)) {
		w->unsaid++;
		return -1;
	}
	char why[256];
	static const struct ovr none;
	const struct ovr *o = r->ovr ? r->ovr : r->unlisted ? &none : NULL;
	if (o && ovr_params(o, prm, r->scale, why, sizeof why)) { /* said by select_runs, select_overrides */
		w->unsaid++;
		return -1;
	}
	for (size_t i = 0; i < prm->n; i++)
		var_set(vs, prm->names[i], prm->vals[i]);
	return 0;
}

/* Model FLOPs per sample through flops.c: 1 when the recipe has no formula. */
static int
model_flops(struct wctx *w, const struct plan_run *r, const struct params *prm, double *out)
{
	int rc = run_flops(w->wl, r, prm, out);
	w->unsaid += rc < 0;
	return rc;
}

/* The job's environment for the plan line: values of env, names of secrets. */
static void
plan_env(struct sb *pl, const struct pc_cmd *c)
{
	for (size_t i = 0; i < c->nenv; i++)
		sb_addf(pl, "%s%s", i ? " " : " env: ", c->env[i]);
	for (size_t i = 0; i < c->nsecrets; i++)
		sb_addf(pl, "%s%s", i ? " " : " secrets by name: ", c->secrets[i]);
}

/* The arguments a config row appends to the training command: the
 * command's words after the first skip. */
static void
plan_row_args(struct sb *pl, const struct pc_cmd *c, size_t skip)
{
	for (size_t i = skip; i < c->nargs; i++)
		sb_addf(pl, "%s%s", i > skip ? " " : " args: ", c->args[i].word);
}

/* The run knobs as they apply to one workload. */
struct runknobs {
	double steps;
	int profile, nccl;
	int pytorch, gpu_metrics;   /* the PyTorch profiler; nsys's GPU metrics */
	double ckpt_gb;             /* the space one checkpoint save needs, GB; 0 unknown */
	int marked;                 /* not comparable with published numbers */
	int proxy;                  /* the row's proxy run: labelled, never compared */
	int unlisted;               /* a scale the row does not list: labelled, never compared */
	const char *ovr;            /* its overrides ("TP=2 MBS=1"), or NULL: labelled, never compared */
	const char *pstart, *pstop;
};

static void
run_knobs(struct wctx *w, const struct sel *s, struct vars *vs, struct runknobs *k)
{
	const struct ynode *knobs = ymap_get(w->wl, "knobs");
	int profile_default = ybool(knobs, "profile_default", 0);
	k->steps = (double)yint(ymap_get(w->wl, "measure"), "steps", LAYOUT_STEPS_DEFAULT);
	k->profile = s->v[K_ENABLE_PROFILE] ? knob_true(s->v[K_ENABLE_PROFILE]) : profile_default;
	k->nccl = knob_true(s->v[K_ENABLE_NCCLTRACE]);
	if (s->v[K_MAX_STEPS])
		k->steps = strtod(s->v[K_MAX_STEPS], NULL);
	if (k->nccl)
		k->steps = (double)yint(knobs, "nccltrace_steps", 5);
	if (s->v[K_LOAD_CHECKPOINT_PATH])
		k->steps = 1;
	const struct ynode *pk = ymap_get(knobs, "profile");
	k->pstart = s->v[K_PROFILE_START_STEP] ? s->v[K_PROFILE_START_STEP] : ystr(pk, "start", "0");
	k->pstop = s->v[K_PROFILE_STOP_STEP] ? s->v[K_PROFILE_STOP_STEP] : ystr(pk, "stop", "0");
	/* Not comparable with the published numbers: traced runs, one-step
	 * loads, and profiling the workload does not do by default (the
	 * published numbers of an always-profiled workload are profiled). */
	k->pytorch = knob_true(s->v[K_ENABLE_PYTORCH_PROFILE]);
	k->gpu_metrics = k->profile && knob_true(s->v[K_ENABLE_GPU_METRICS]);
	k->marked = k->nccl || s->v[K_LOAD_CHECKPOINT_PATH] || (k->profile && !profile_default) || k->pytorch;
	/* a checkpoint saved inside the measured window slows the step after it */
	const struct ynode *win = ymap_get(ymap_get(w->wl, "measure"), "window");
	if (knob_true(s->v[K_ENABLE_CHECKPOINT]) && win && win->nkids == 2) {
		long every = s->v[K_CHECKPOINT_INTERVAL] ? strtol(s->v[K_CHECKPOINT_INTERVAL], NULL, 10) : (long)k->steps;
		long lo = strtol(win->kids[0]->str, NULL, 10) - 1, hi = strtol(win->kids[1]->str, NULL, 10);
		if (every > 0 && (lo + every - 1) / every * every <= hi)
			k->marked = 1;
	}
	/* Knobs are placeholders too, for commands that pass them on. */
	var_set(vs, "steps", k->steps);
	var_set(vs, "profile", k->profile);
	var_set(vs, "profile_start", strtod(k->pstart, NULL));
	var_set(vs, "profile_stop", strtod(k->pstop, NULL));
	var_set(vs, "pytorch_profile", k->pytorch);
	var_set(vs, "gpu_metrics", k->gpu_metrics);
	/* validated by check_knobs: whole numbers separated by commas */
	vs->profile_ranks = s->v[K_PROFILE_RANKS] ? s->v[K_PROFILE_RANKS] : "all";
	var_set(vs, "nccltrace", k->nccl);
	var_set(vs, "checkpoint", knob_true(s->v[K_ENABLE_CHECKPOINT]));
	/* upstream's CHECKPOINT_INTERVAL default: one save, at the last step */
	var_set(vs, "checkpoint_interval", s->v[K_CHECKPOINT_INTERVAL] ? strtod(s->v[K_CHECKPOINT_INTERVAL], NULL) : k->steps);
	/* validated by check_knobs: plain paths */
	vs->checkpoint_dir = s->v[K_CHECKPOINT_DIR] ? s->v[K_CHECKPOINT_DIR] : "default";
	vs->load_checkpoint_path = s->v[K_LOAD_CHECKPOINT_PATH] ? s->v[K_LOAD_CHECKPOINT_PATH] : "none";
	var_set(vs, "extra_work", s->v[K_EXTRA_WORK] ? strtod(s->v[K_EXTRA_WORK], NULL) : 0);
}

static void
build_report(struct wctx *w, struct inst *in, const struct plan_run *r)
{
	const char *wname = in->workload;
	in->label = xasprintf("%s %s %s %s %s", ystr(in->stage, "name", ""), wname, r->gpu, r->size, r->dtype);
	char *name = xasprintf("%s_%s_%s.json", r->gpu, r->size, r->dtype);
	add_output(in, layout_report(NULL, wname, name));
	in->conf.kind = PC_REPORT;
	in->conf.u.report.report = name;
	in->conf.u.report.tolerance_pct = ystr(ymap_get(w->wl, "measure"), "tolerance_pct", "5");
	in->plan = xasprintf("report of %s %s %s %s", wname, r->gpu, r->size, r->dtype);
}

static void
build_parse(struct wctx *w, struct inst *in, const char *run, const struct runknobs *k)
{
	const struct ynode *measure = ymap_get(w->wl, "measure"), *win = ymap_get(measure, "window");
	if (win->nkids != 2) { /* refused by recipes_check_values */
		w->unsaid++;
		return;
	}
	struct pc_parse *c = &in->conf.u.parse;
	in->conf.bound = 1;
	c->win_from = strtol(win->kids[0]->str, NULL, 10);
	c->win_to = strtol(win->kids[1]->str, NULL, 10);
	c->log_format = ystr(w->wl, "log_format", "");
	c->indexing = ystr(measure, "indexing", "zero");
	c->metric = ystr(measure, "metric", "mean");
	c->steps = k->steps;
	/* A run that ends before the window (LOAD_CHECKPOINT_PATH's one step
	 * after the load, ENABLE_NCCLTRACE's few) is measured on its last
	 * step; it is never compared (k->marked). */
	long last = (long)k->steps - (strcmp(c->indexing, "one") ? 1 : 0);
	if (k->marked && last < c->win_to)
		c->win_from = c->win_to = last;
	c->profiled = k->marked;
	c->proxy = k->proxy;
	c->unlisted = k->unlisted;
	add_output(in, layout_experiment_file(NULL, in->workload, run, LAYOUT_RESULT));
	in->plan = xasprintf("parse %s log, window %ld-%ld (%s-based)", c->log_format, c->win_from, c->win_to,
			     c->indexing);
}

/* The image a train job runs in, by its file stem; NULL for none. */
static char *
train_image(struct wctx *w)
{
	const struct ynode *train = ymap_get(w->wl, "train");
	const char *img = ystr(train, "image", NULL);
	if (!img)
		return NULL;
	const struct ynode *im = ymap_get(ymap_get(w->wl, "images"), img);
	if (!im) /* said once by recipe_check_runs */
		return NULL;
	return image_stem(image_ref_for(w, img, ystr(im, "ref", "")));
}

/* Upstream's --segment (Megatron-Bridge utils/executors.py): the node
 * count itself up to max, else its largest divisor up to max, so that
 * the job's nodes come in whole blocks of one rack. */
static long
segment_for(long nodes, long max)
{
	if (nodes <= max)
		return nodes;
	for (long s = max; s > 1; s--)
		if (nodes % s == 0)
			return s;
	return 1;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of srun.container_env that the run's environment sets, sorted
 * as the executor sorts them: a name the run leaves unset has no value to
 * give the container. */
static char *
container_env_for(const struct pc_cmd *cmd, const struct ynode *names)
{
	const struct ynode *const *items, *one;
	size_t n = ynames(names, &items, &one), k = 0;
	const char **keep = xcalloc(n + 1, sizeof *keep);
	for (size_t i = 0; i < n; i++) {
		const char *name = items[i]->str;
		size_t len = strlen(name);
		for (size_t e = 0; e < cmd->nenv; e++)
			if (!strncmp(cmd->env[e], name, len) && cmd->env[e][len] == '=') {
				keep[k++] = name;
				break;
			}
	}
	qsort(keep, k, sizeof *keep, cmp_str);
	struct sb s = {0};
	for (size_t i = 0; i < k; i++) {
		if (i)
			sb_addc(&s, ',');
		sb_add(&s, keep[i]);
	}
	free(keep);
	return s.len ? sb_steal(&s) : NULL;
}

/* How the training step is launched (train.srun, train.sbatch,
 * train.node_setup): the srun flags and sbatch options upstream's
 * executor passes, and the host commands its framework runs on every node
 * before training. The container flags and node setup need the image. */
static void
add_launch(struct wctx *w, struct pc_train *t, const struct ynode *train, const char *gpu)
{
	const struct ynode *sbatch = ymap_get(train, "sbatch"), *seg = ymap_get(sbatch, "segment");
	t->sbatch_mem = ystr(sbatch, "mem", NULL);
	if (seg && ynames_have(ymap_get(seg, "gpus"), gpu) && yint(seg, "max", 0) >= 1)
		t->segment = segment_for(t->nodes, yint(seg, "max", 0));
	const struct ynode *names = ymap_get(ymap_get(train, "srun"), "container_env");
	if (names && t->image)
		t->container_env = container_env_for(&t->cmd, names);

	const struct ynode *srun = ymap_get(train, "srun");
	t->srun_mpi = ystr(srun, "mpi", NULL);
	const char *const keys[] = {"container_writable", "node_setup"};
	const struct ynode *const maps[] = {srun, train};
	int *const flags[] = {&t->container_writable, &t->node_setup};
	for (int i = 0; i < 2; i++) {
		if (!ybool(maps[i], keys[i], 0))
			continue;
		if (!t->image) /* said by runcheck.c */
			w->unsaid++;
		else
			*flags[i] = 1;
	}
}

/* The run knobs set, as the train stage records them: a boolean's
 * spelling is not its meaning (yes and true are one configuration). */
static void
train_knobs(struct pc_train *t, const struct sel *s)
{
	for (int i = K_ENABLE_PROFILE; i < K_NKNOBS; i++) {
		if (!s->v[i])
			continue;
		int b = i == K_ENABLE_PROFILE || i == K_ENABLE_NCCLTRACE || i == K_ENABLE_CHECKPOINT ||
			i == K_ENABLE_PYTORCH_PROFILE || i == K_ENABLE_GPU_METRICS;
		t->knobs = xrealloc(t->knobs, (t->nknobs + 1) * sizeof *t->knobs);
		t->knobs[t->nknobs++] = (struct pc_knob){knob_names[i], b ? (knob_true(s->v[i]) ? "true" : "false") : s->v[i]};
	}
	t->callerenv = envrec_caller(s->env, &t->ncallerenv);
}

/* An override's word after the command's words. */
static void
add_word(void *ctx, char *word)
{
	struct pc_cmd *c = ctx;
	c->args = xrealloc(c->args, (c->nargs + 1) * sizeof *c->args);
	c->args[c->nargs].word = word;
	c->args[c->nargs++].hash = NULL;
}

/* An override's NAME=VALUE, in place of the recipe's value of NAME. */
static void
set_env(void *ctx, char *kv)
{
	struct pc_cmd *c = ctx;
	size_t n = strcspn(kv, "=") + 1;
	for (size_t i = 0; i < c->nenv; i++)
		if (!strncmp(c->env[i], kv, n)) {
			free(c->env[i]);
			c->env[i] = kv;
			return;
		}
	pc_strv_add(&c->env, &c->nenv, kv);
}

/* The row's CUDA_DEVICE_MAX_CONNECTIONS as Megatron-Bridge sets it for
 * the overridden TP and CP (override.h). */
static void
ovr_connections(struct pc_cmd *c, const struct plan_run *r, const struct vars *vs)
{
	static const char key[] = "CUDA_DEVICE_MAX_CONNECTIONS=";
	const struct ynode *params = ymap_get(r->row, "params");
	double tp = 1, cp = 1;
	var_get(vs, "tp", &tp);
	var_get(vs, "cp", &cp);
	for (size_t i = 0; i < c->nenv; i++) {
		if (strncmp(c->env[i], key, sizeof key - 1))
			continue;
		const char *v = ovr_max_connections(r->gpu, c->env[i] + sizeof key - 1, strtod(ystr(params, "tp", "1"), NULL),
						    strtod(ystr(params, "cp", "1"), NULL), tp, cp);
		if (v)
			set_env(c, xasprintf("%s%s", key, v));
		return;
	}
}

/* The plan line of a train job: its shape, parameters, knobs, image,
 * the row's arguments, environment and secrets. */
static char *
train_plan(const struct pc_train *t, const struct sel *s, const struct runknobs *k, long gpn)
{
	char buf[64];
	struct sb pl = {0};
	sb_addf(&pl, "nodes=%ld gpus/node=%ld tasks/node=%ld", t->nodes, gpn, t->tasks_per_node);
	for (size_t i = 0; i < t->nparams; i++) {
		fmt_num(buf, sizeof buf, t->params[i].value);
		sb_addf(&pl, " %s=%s", t->params[i].name, buf);
	}
	if (t->recompute)
		sb_addf(&pl, " recompute=%s", t->recompute);
	fmt_num(buf, sizeof buf, t->steps);
	sb_addf(&pl, " steps=%s time=%s image=%s", buf, t->time_limit ? t->time_limit : "default",
		t->image ? t->image : "none");
	if (t->sbatch_mem)
		sb_addf(&pl, " mem=%s", t->sbatch_mem);
	if (t->segment)
		sb_addf(&pl, " segment=%ld", t->segment);
	plan_row_args(&pl, &t->cmd, t->cmd_nargs);
	plan_env(&pl, &t->cmd);
	if (t->container_env)
		sb_addf(&pl, " container-env: %s", t->container_env);
	if (k->profile)
		sb_addf(&pl, " PROFILED(steps %s-%s)", k->pstart, k->pstop);
	if (k->pytorch)
		sb_addf(&pl, " PYTORCH-PROFILED(steps %s-%s)", k->pstart, k->pstop);
	if ((k->profile || k->pytorch) && s->v[K_PROFILE_RANKS])
		sb_addf(&pl, " PROFILE_RANKS=%s", s->v[K_PROFILE_RANKS]);
	if (k->gpu_metrics)
		sb_add(&pl, " GPU-METRICS");
	if (k->nccl)
		sb_add(&pl, " NCCLTRACE");
	if (knob_true(s->v[K_ENABLE_CHECKPOINT])) {
		fmt_num(buf, sizeof buf, s->v[K_CHECKPOINT_INTERVAL] ? strtod(s->v[K_CHECKPOINT_INTERVAL], NULL) : t->steps);
		sb_addf(&pl, " CHECKPOINT(every %s steps, to %s", buf, s->v[K_CHECKPOINT_DIR] ? s->v[K_CHECKPOINT_DIR] : "the run folder");
		if (k->ckpt_gb > 0) {
			long saves = (long)(t->steps / (s->v[K_CHECKPOINT_INTERVAL] ? strtod(s->v[K_CHECKPOINT_INTERVAL], NULL) : t->steps));
			fmt_num(buf, sizeof buf, k->ckpt_gb * (double)saves);
			sb_addf(&pl, ", needs %s GB: %ld save%s", buf, saves, saves == 1 ? "" : "s");
		}
		sb_add(&pl, ")");
	}
	if (s->v[K_LOAD_CHECKPOINT_PATH])
		sb_add(&pl, " LOAD-CHECKPOINT");
	if (s->v[K_EXTRA_WORK])
		sb_addf(&pl, " EXTRA_WORK=%s", s->v[K_EXTRA_WORK]);
	if (t->preflight)
		sb_addf(&pl, " PREFLIGHT=%s", t->preflight);
	if (k->proxy)
		sb_add(&pl, " PROXY");
	if (k->unlisted)
		sb_add(&pl, " UNLISTED");
	if (k->ovr)
		sb_addf(&pl, " OVERRIDE(%s)", k->ovr);
	if (k->marked || k->proxy || k->unlisted || k->ovr)
		sb_add(&pl, " (not compared with the reference)");
	return sb_steal(&pl);
}

/* The job of a train stage: its shape, image, knobs, parameters, argv,
 * environment and secrets, and the plan line that shows them. */
static void
build_train(struct wctx *w, struct inst *in, const struct plan_run *r, const char *run, const struct vars *vs,
	    const struct sel *s, const struct runknobs *k, int have_flops, double mf)
{
	const struct ynode *train = ymap_get(w->wl, "train"), *gpu = gpu_find(&w->p->rec, r->gpu);
	long gpn = yint(gpu, "gpus_per_node", 8);
	struct pc_train *t = &in->conf.u.train;
	in->conf.bound = 1;
	t->nodes = (r->scale + gpn - 1) / gpn;
	t->tasks_per_node = r->scale < gpn ? r->scale : gpn;
	t->gpus_per_node = ymap_get(gpu, "peak_tflops") ? gpn : 0L;
	t->image = train_image(w);
	t->time_limit = time_limit_for(w, in->stage, r->row, s);
	train_knobs(t, s);
	/* the pre-flight policy: the knob, else the pipeline's; the default
	 * is not written, so configurations from before it stay as they were */
	const char *pf = s->v[K_PREFLIGHT] ? s->v[K_PREFLIGHT] : ystr(in->stage, "preflight", "warn");
	t->preflight = strcmp(pf, "warn") ? pf : NULL;
	t->profile = k->profile;
	t->profile_start = k->pstart;
	t->profile_stop = k->pstop;
	t->nccltrace = k->nccl;
	t->proxy = k->proxy;
	const struct ynode *params = ymap_get(r->row, "params");
	t->params = xcalloc(ymap_len(params) + 1, sizeof *t->params);
	for (size_t i = 0; i < ymap_len(params); i++) {
		struct pc_param *pm = &t->params[t->nparams++];
		pm->name = ymap_key(params, i)->str;
		var_get(vs, pm->name, &pm->value);
		pm->value = pc_recorded(pm->value);
	}
	const struct ynode *const *rc, *rc1;
	size_t nrc = ynames(ymap_get(r->row, "recompute"), &rc, &rc1);
	if (nrc) {
		struct sb j = {0};
		for (size_t i = 0; i < nrc; i++) {
			if (i)
				sb_addc(&j, ',');
			sb_add(&j, rc[i]->str);
		}
		t->recompute = sb_steal(&j);
	}
	t->steps = k->steps;
	t->have_flops = have_flops;
	t->model_flops = pc_recorded_flops(mf);
	add_argv(w, &t->cmd, in->workload, ymap_get(train, "cmd"), vs);
	t->cmd_nargs = t->cmd.nargs;
	if (ymap_get(r->row, "args"))
		add_argv(w, &t->cmd, in->workload, ymap_get(r->row, "args"), vs);
	/* the workload's own words for the extra-work knob, only when it is set */
	if (s->v[K_EXTRA_WORK])
		add_argv(w, &t->cmd, in->workload, ymap_get(ymap_get(w->wl, "knobs"), "extra_work_args"), vs);
	add_env(w, &t->cmd, ymap_get(train, "env"), vs);
	add_env(w, &t->cmd, ymap_get(r->row, "env"), vs);
	if (r->ovr) {
		ovr_args(r->ovr, add_word, &t->cmd);
		ovr_connections(&t->cmd, r, vs);
		ovr_env(r->ovr, set_env, &t->cmd);
	}
	add_mounts(w, &t->cmd, ymap_get(train, "mounts"), vs);
	add_launch(w, t, train, r->gpu);
	add_secrets(&t->cmd, ymap_get(w->wl, "secrets"));
	add_secrets(&t->cmd, ymap_get(train, "secrets"));
	in->plan = train_plan(t, s, k, gpn);
	add_output(in, layout_experiment_file(NULL, in->workload, run, LAYOUT_TRAIN_DONE));
}

/* A run's instance name (NULL: the ordinary run) for the j-th of the
 * nper instances of its configuration: a night's run, night-<NIGHT>[-<r>]
 * (the selection's night tag, llmb nightly's confirmation runs:
 * night-<NIGHT>-<tag>),
 * or an exemplar's, exemplar-<r> and, last, exemplar-profile. */
static char *
run_rep(const struct plan *p, size_t j, long nrep, long nper)
{
	const char *night = p->sel.night;
	if (p->sel.bisect)
		return xasprintf("bisect-%s", p->sel.bisect);
	if (!night && p->sel.exemplar)
		return (long)(j % (size_t)nper) < nrep ? xasprintf("exemplar-%zu", j % (size_t)nper + 1)
						       : xstrdup("exemplar-profile");
	if (!night)
		return NULL;
	const char *tag = p->sel.night_tag;
	return tag ? xasprintf("night-%s-%s", night, tag)
		   : nrep > 1 ? xasprintf("night-%s-%zu", night, j % (size_t)nrep + 1) : xasprintf("night-%s", night);
}

/* The run directory below experiments/: an exemplar's runs live apart,
 * exemplar/<run>/repeat-<r>, where the report's scan of experiments/ does
 * not mix them with the ordinary runs and the certification reads them as
 * one configuration's repeats. */
static char *
run_dir(const struct plan_run *r, const char *rep)
{
	if (rep && !strncmp(rep, "exemplar-", 9))
		return xasprintf(LAYOUT_EXEMPLAR_RUNS "/%s_%s_%s_%ld/repeat-%s", r->gpu, r->size, r->dtype, r->scale, rep + 9);
	/* a bisection's run, bisect-<id>-<point>: bisect/<id>/<run>/<point> */
	const char *pt = rep && !strncmp(rep, "bisect-", 7) ? strchr(rep + 7, '-') : NULL;
	if (pt)
		return xasprintf(LAYOUT_BISECT_RUNS "/%.*s/%s_%s_%s_%ld/%s", (int)(pt - rep - 7), rep + 7, r->gpu, r->size,
				 r->dtype, r->scale, pt + 1);
	return xasprintf("%s_%s_%s_%ld%s%s", r->gpu, r->size, r->dtype, r->scale, rep ? "/" : "", rep ? rep : "");
}

/* Instances of a per-run stage (train, parse) or per-configuration stage
 * (report) for every selected run of the workload. */
void
build_runs(struct wctx *w, const struct ynode *stage)
{
	const char *kind = ystr(stage, "kind", ""), *sname = ystr(stage, "name", "");
	const char *wname = ystr(w->wl, "workload", "");
	int report = stage_kind_is(kind, SK_PER_CONFIG), train = stage_kind_is(kind, SK_TRAINING);
	if (train && !w->knobs_ok)
		return;
	/* A night's runs are recorded and judged, an exemplar's certified:
	 * neither is reported. */
	const char *night = w->p->sel.night;
	int exemplar = !night && w->p->sel.exemplar;
	/* nor a bisection's (llmb bisect compares them) */
	if (report && (night || exemplar || w->p->sel.bisect))
		return;
	long nrep = night || exemplar ? w->p->night_repeats : 1;
	long nper = nrep + (exemplar && w->p->exemplar_profile);
	for (size_t j = 0; j < w->nruns * (size_t)nper; j++) {
		const struct plan_run *r = &w->runs[j / (size_t)nper];
		/* an overridden run lives apart (its report is the row's) */
		char *rep = r->ovr && !report ? xasprintf(LAYOUT_OVERRIDE_PREFIX "%s", r->ovr->tag) : run_rep(w->p, j, nrep, nper);
		char *id = instance_id(&(struct instance_key){sname, wname, .gpu = r->gpu, .size = r->size, .dtype = r->dtype,
							      .scale = report ? 0 : r->scale, .rep = report ? NULL : rep});
		if (plan_find(w->p, id)) {
			free(id);
			free(rep);
			continue;
		}
		struct inst *in = add_inst(w->p, id, stage, w->wl);
		add_serves(in, wname);
		in->gpu = r->gpu;
		in->size = r->size;
		in->dtype = r->dtype;
		in->scale = report ? 0 : r->scale;
		in->rep = rep;
		if (report) {
			build_report(w, in, r);
			continue;
		}
		char *run = run_dir(r, rep);
		in->label = xasprintf("%s %s %s %s %s x%ld%s%s", sname, wname, r->gpu, r->size, r->dtype, r->scale,
				      rep ? " " : "", rep ? rep : "");
		in->conf.kind = train ? PC_TRAIN : PC_PARSE;
		in->conf.run = run;
		/* the exemplar's profiled run: this instance alone profiles */
		struct sel s = r->ovr ? r->ovr->s : w->p->sel;
		if (rep && !strcmp(rep, "exemplar-profile"))
			s.v[K_ENABLE_PROFILE] = "true";
		struct vars vs = {0};
		struct params prm = {0};
		if (bind_run(w, r, &vs, &prm) == 0) {
			struct runknobs k;
			run_knobs(w, &s, &vs, &k);
			k.proxy = ybool(r->row, "proxy", 0);
			k.unlisted = r->unlisted;
			k.ckpt_gb = strtod(ystr(ymap_get(ymap_get(w->wl, "knobs"), "checkpoint_gb"), r->size, "0"), NULL);
			k.ovr = r->ovr ? r->ovr->show : NULL;
			double mf = 0;
			int have_flops = model_flops(w, r, &prm, &mf) == 0;
			if (have_flops)
				var_set(&vs, "model_flops", mf);
			if (train)
				build_train(w, in, r, run, &vs, &s, &k, have_flops, mf);
			else
				build_parse(w, in, run, &k);
		}
		params_free(&prm);
	}
}
