#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plancfg.h"
#include "store/stagecfg.h"

void
fmt_num(char *buf, size_t len, double v)
{
	if (fabs(v) < 1e15 && v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.10g", v);
}

void
pc_strv_add(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = s;
}

void
pc_constv_add(const char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = s;
}

const struct pc_cmd *
plancfg_cmd(const struct plancfg *c)
{
	return c->kind == PC_DATA ? &c->u.data.cmd : c->kind == PC_TRAIN ? &c->u.train.cmd : NULL;
}

/* ---- rendering ----------------------------------------------------------- */

static void
put_num(struct sb *out, const char *key, double v)
{
	char buf[64];
	fmt_num(buf, sizeof buf, v);
	cfg_add(out, key, buf);
}

static void
put_long(struct sb *out, const char *key, long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%ld", v);
	cfg_add(out, key, buf);
}

static void
put_pair(struct sb *out, const char *key, const char *a, const char *sep, const char *b)
{
	char *v = xasprintf("%s%s%s", a, sep, b);
	cfg_add(out, key, v);
	free(v);
}

static void
put_strv(struct sb *out, const char *key, char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cfg_add(out, key, v[i]);
}

static void
put_args(struct sb *out, const struct pc_cmd *c)
{
	for (size_t i = 0; i < c->nargs; i++) {
		cfg_add(out, "arg", c->args[i].word);
		if (c->args[i].hash)
			put_pair(out, "file", c->args[i].word, " ", c->args[i].hash);
	}
}

static void
put_secrets(struct sb *out, const struct pc_cmd *c)
{
	for (size_t i = 0; i < c->nsecrets; i++)
		cfg_add(out, "secret", c->secrets[i]);
}

static void
put_repo(struct sb *out, const struct pc_repo *r)
{
	if (r->key) {
		char *v = xasprintf("%s %s %s", r->key, r->url, r->commit);
		cfg_add(out, "repo", v);
		free(v);
	}
}

void
plancfg_venv_set(const struct pc_venv *v, struct sb *out)
{
	cfg_add(out, "python", v->python);
	cfg_add(out, "system_site_packages", v->system_site_packages ? "true" : "false");
	for (size_t i = 0; i < v->ndeps; i++) {
		const struct pc_dep *d = &v->deps[i];
		put_repo(out, &d->repo);
		char *line = NULL;
		switch (d->kind) {
		case PD_GIT:
			line = xasprintf("%s %s %s", d->name, d->method, d->path);
			cfg_add(out, "git", line);
			break;
		case PD_PIP:
			cfg_add(out, "pip", d->name);
			break;
		case PD_PIPDEP:
			line = xasprintf("%s %s %s %s", d->name, d->repo_key ? d->repo_key : "-", d->target,
					 d->editable ? "editable" : "-");
			cfg_add(out, "pipdep", line);
			break;
		}
		free(line);
	}
	for (size_t i = 0; i < v->npip_args; i++)
		cfg_add(out, "pip_arg", v->pip_args[i]);
}

static void
render_data(const struct pc_data *d, struct sb *out)
{
	cfg_add(out, "task", d->task);
	cfg_add(out, "gpus", d->gpus ? "true" : "false");
	if (d->image)
		cfg_add(out, "image", d->image);
	put_args(out, &d->cmd);
	put_strv(out, "env", d->cmd.env, d->cmd.nenv);
	put_strv(out, "mount", d->cmd.mounts, d->cmd.nmounts);
	put_secrets(out, &d->cmd);
	if (d->time_limit)
		cfg_add(out, "time_limit", d->time_limit);
	if (d->size_gb)
		cfg_add(out, "size_gb", d->size_gb);
	for (size_t i = 0; i < d->nproves; i++)
		cfg_add(out, "prove", d->proves[i]);
}

static void
render_train(const struct pc_train *t, struct sb *out)
{
	put_long(out, "nodes", t->nodes);
	put_long(out, "ntasks_per_node", t->tasks_per_node);
	put_long(out, "gpus_per_node", t->gpus_per_node);
	if (t->image)
		cfg_add(out, "image", t->image);
	if (t->time_limit)
		cfg_add(out, "time_limit", t->time_limit);
	for (size_t i = 0; i < t->nknobs; i++)
		put_pair(out, "knob", t->knobs[i].name, "=", t->knobs[i].value);
	if (t->preflight)
		cfg_add(out, "preflight", t->preflight);
	if (t->profile)
		put_pair(out, "profile", t->profile_start, "-", t->profile_stop);
	if (t->nccltrace)
		cfg_add(out, "nccltrace", "true");
	if (t->proxy)
		cfg_add(out, "proxy", "true");
	for (size_t i = 0; i < t->nparams; i++) {
		char buf[64];
		fmt_num(buf, sizeof buf, t->params[i].value);
		put_pair(out, "param", t->params[i].name, "=", buf);
	}
	if (t->recompute)
		cfg_add(out, "recompute", t->recompute);
	put_num(out, "steps", t->steps);
	if (t->have_flops) {
		char buf[64];
		snprintf(buf, sizeof buf, "%.6e", t->model_flops);
		cfg_add(out, "model_flops", buf);
	}
	put_args(out, &t->cmd);
	put_strv(out, "env", t->cmd.env, t->cmd.nenv);
	/* the caller's value of a variable the recipe sets is not the job's */
	for (size_t i = 0; i < t->ncallerenv; i++) {
		size_t l = strcspn(t->callerenv[i], "="), k = 0;
		while (k < t->cmd.nenv && !(!strncmp(t->cmd.env[k], t->callerenv[i], l + 1)))
			k++;
		if (k == t->cmd.nenv)
			cfg_add(out, "callerenv", t->callerenv[i]);
	}
	put_strv(out, "mount", t->cmd.mounts, t->cmd.nmounts);
	if (t->srun_mpi)
		cfg_add(out, "srun_mpi", t->srun_mpi);
	if (t->container_writable)
		cfg_add(out, "container_writable", "true");
	if (t->container_env)
		cfg_add(out, "container_env", t->container_env);
	if (t->sbatch_mem)
		cfg_add(out, "sbatch_mem", t->sbatch_mem);
	if (t->segment)
		put_long(out, "sbatch_segment", t->segment);
	if (t->node_setup)
		cfg_add(out, "node_setup", "true");
	put_secrets(out, &t->cmd);
}

static void
render_parse(const struct pc_parse *p, struct sb *out)
{
	char win[48];
	snprintf(win, sizeof win, "%ld-%ld", p->win_from, p->win_to);
	cfg_add(out, "window", win);
	cfg_add(out, "log_format", p->log_format);
	cfg_add(out, "indexing", p->indexing);
	cfg_add(out, "metric", p->metric);
	put_num(out, "steps", p->steps);
	if (p->profiled)
		cfg_add(out, "profiled", "true");
	if (p->proxy)
		cfg_add(out, "proxy", "true");
	if (p->unlisted)
		cfg_add(out, "unlisted", "true");
}

void
plancfg_render(const struct plancfg *c, struct sb *out)
{
	switch (c->kind) {
	case PC_NONE:
		break;
	case PC_IMAGE:
		cfg_add(out, "ref", c->u.image.ref);
		cfg_add(out, "file", c->u.image.stem);
		break;
	case PC_VENV:
		plancfg_venv_set(&c->u.venv, out);
		cfg_add(out, "dir", c->u.venv.dir);
		break;
	case PC_DATA:
		render_data(&c->u.data, out);
		break;
	case PC_TRAIN:
	case PC_PARSE:
		cfg_add(out, "run", c->run);
		if (c->bound && c->kind == PC_TRAIN)
			render_train(&c->u.train, out);
		else if (c->bound)
			render_parse(&c->u.parse, out);
		break;
	case PC_REPORT:
		cfg_add(out, "report", c->u.report.report);
		cfg_add(out, "tolerance_pct", c->u.report.tolerance_pct);
		break;
	}
}

/* ---- release ------------------------------------------------------------- */

static void
free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void
free_cmd(struct pc_cmd *c)
{
	for (size_t i = 0; i < c->nargs; i++) {
		free(c->args[i].word);
		free(c->args[i].hash);
	}
	free(c->args);
	free_strv(c->env, c->nenv);
	free_strv(c->mounts, c->nmounts);
	free(c->secrets);
}

void
plancfg_free(struct plancfg *c)
{
	free(c->run);
	switch (c->kind) {
	case PC_NONE:
		break;
	case PC_IMAGE:
		free(c->u.image.stem);
		break;
	case PC_VENV:
		free(c->u.venv.deps);
		free(c->u.venv.pip_args);
		free(c->u.venv.dir);
		break;
	case PC_DATA:
		free(c->u.data.image);
		free_cmd(&c->u.data.cmd);
		free(c->u.data.proves);
		break;
	case PC_TRAIN:
		free(c->u.train.image);
		free(c->u.train.knobs);
		free(c->u.train.params);
		free(c->u.train.container_env);
		free(c->u.train.recompute);
		free_cmd(&c->u.train.cmd);
		break;
	case PC_PARSE:
		break;
	case PC_REPORT:
		free(c->u.report.report);
		break;
	}
	memset(c, 0, sizeof *c);
}
