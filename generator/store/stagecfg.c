/* stagecfg: the stage configuration record, typed, and its one codec:
 * render writes the text gen has always written (every stage's hash is
 * taken over it, so its bytes never change), parse reads it back and is
 * held to render's output line by line. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "store/stagecfg.h"

#define HEADER "# llmb stage configuration: generated, do not edit"

const char *const pc_kind_names[] = {[PC_NONE] = "", [PC_IMAGE] = "image", [PC_VENV] = "venv", [PC_DATA] = "data",
				     [PC_TRAIN] = "train", [PC_PARSE] = "parse", [PC_REPORT] = "report", NULL};

/* ---- key=value lines ----------------------------------------------------- */

static void
cfg_add(struct sb *cfg, const char *key, const char *val)
{
	/* NULL only in a file being parsed that lacks the line: its render
	 * then differs where the line belongs */
	sb_addf(cfg, "%s=%s\n", key, val ? val : "");
}

const char *
kv_get(const char *text, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, key, kl) && l[kl] == '=') {
			size_t n = strcspn(l + kl + 1, "\n");
			snprintf(buf, len, "%.*s", (int)n, l + kl + 1);
			return buf;
		}
	}
	return NULL;
}

char **
kv_values(const char *text, const char *key, size_t *n)
{
	char **v = NULL;
	size_t kl = strlen(key);
	*n = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, key, kl) && l[kl] == '=') {
			v = xrealloc(v, (*n + 1) * sizeof *v);
			v[(*n)++] = xstrndup(l + kl + 1, strcspn(l + kl + 1, "\n"));
		}
	}
	return v;
}

const char *const preflight_names[] = {[PF_OFF] = "off", [PF_WARN] = "warn", [PF_FAIL] = "fail",
				       [PF_EXCLUDE] = "exclude", NULL};

int
preflight_policy(const char *word)
{
	for (int i = 0; preflight_names[i]; i++)
		if (!strcmp(word, preflight_names[i]))
			return i;
	return -1;
}

enum preflight
stagecfg_preflight(const struct stagecfg *c)
{
	int p = c->kind == PC_TRAIN && c->u.train.preflight ? preflight_policy(c->u.train.preflight) : -1;
	return p < 0 ? PF_WARN : (enum preflight)p;
}

const char *
stagecfg_knob(const struct stagecfg *c, const char *name)
{
	if (c->kind != PC_TRAIN)
		return NULL;
	for (size_t i = 0; i < c->u.train.nknobs; i++)
		if (!strcmp(c->u.train.knobs[i].name, name))
			return c->u.train.knobs[i].value;
	return NULL;
}

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
stagecfg_cmd(const struct stagecfg *c)
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
stagecfg_venv_set(const struct pc_venv *v, struct sb *out)
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

/* The caller's variables the record keeps: those the job's environment
 * does not set and the recipe does not name a secret (its value is passed
 * by name, never written: render, the job script and provenance leave the
 * others out). */
int
pc_callerenv_kept(const struct pc_train *t, size_t i)
{
	size_t l = strcspn(t->callerenv[i], "=");
	for (size_t k = 0; k < t->cmd.nenv; k++)
		if (!strncmp(t->cmd.env[k], t->callerenv[i], l + 1))
			return 0;
	for (size_t k = 0; k < t->cmd.nsecrets; k++)
		if (strlen(t->cmd.secrets[k]) == l && !strncmp(t->cmd.secrets[k], t->callerenv[i], l))
			return 0;
	return 1;
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
	for (size_t i = 0; i < t->ncallerenv; i++)
		if (pc_callerenv_kept(t, i))
			cfg_add(out, "callerenv", t->callerenv[i]);
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

static void
render_head(const struct stagecfg *c, struct sb *out)
{
	sb_addf(out, HEADER "\n");
	cfg_add(out, "id", c->id);
	cfg_add(out, "kind", pc_kind_names[c->kind]);
	cfg_add(out, "template", c->template);
	cfg_add(out, "workload", c->workload);
	cfg_add(out, "label", c->label);
	if (c->gpu) {
		cfg_add(out, "gpu", c->gpu);
		cfg_add(out, "size", c->size);
		cfg_add(out, "dtype", c->dtype);
	}
	if (c->scale)
		put_long(out, "scale", c->scale);
	if (c->retry_count) {
		cfg_add(out, "retry_count", c->retry_count);
		for (size_t k = 0; k < c->nretry_on; k++)
			cfg_add(out, "retry_on", c->retry_on[k]);
	}
	for (size_t k = 0; k < c->nafter; k++)
		put_pair(out, "after", c->after[k].id, " ", c->after[k].hash);
	for (size_t k = 0; k < c->noutputs; k++)
		cfg_add(out, "output", c->outputs[k]);
}

void
stagecfg_render(const struct stagecfg *c, struct sb *out)
{
	render_head(c, out);
	switch (c->kind) {
	case PC_NONE:
		break;
	case PC_IMAGE:
		cfg_add(out, "ref", c->u.image.ref);
		cfg_add(out, "file", c->u.image.stem);
		break;
	case PC_VENV:
		stagecfg_venv_set(&c->u.venv, out);
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

double
pc_recorded(double v)
{
	char buf[64];
	fmt_num(buf, sizeof buf, v);
	return strtod(buf, NULL);
}

double
pc_recorded_flops(double v)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%.6e", v);
	return strtod(buf, NULL);
}

void
stagecfg_config_hash(const struct stagecfg *c, char h[65])
{
	static const char *const skip[] = {"id=", "label=", "output=", "run=", "#"};
	struct sb text = {0}, s = {0};
	stagecfg_render(c, &text);
	for (const char *l = text.buf; l && *l;) {
		size_t n = strcspn(l, "\n");
		int keep = 1;
		for (size_t k = 0; k < sizeof skip / sizeof *skip; k++)
			keep &= strncmp(l, skip[k], strlen(skip[k])) != 0;
		if (keep) {
			sb_addn(&s, l, n);
			sb_addc(&s, '\n');
		}
		l += n + (l[n] == '\n');
	}
	sha256_hex(s.buf ? s.buf : "", s.len, h);
	sb_free(&s);
	sb_free(&text);
}

/* ---- parsing ------------------------------------------------------------- */

struct rd {
	struct stagecfg *c;
	const char *file;
	int line;
	char *key, *val;            /* the line, split in the arena */
	struct pc_repo repo;        /* a venv's repo= line, for the entry after it */
	int err;
};

static int
bad(struct rd *r, const char *what)
{
	if (!r->err)
		diag_error(r->file, r->line, 1, "%s: %s=%.80s", what, r->key, r->val);
	r->err = 1;
	return -1;
}

/* A line that may come once, kept as a copy: a second is refused (its
 * copy would be lost, and the render check would say less). */
static int
set_once(struct rd *r, char **slot)
{
	if (*slot)
		return bad(r, "a second line of the key");
	*slot = xstrdup(r->val);
	return 0;
}

static int
get_long(struct rd *r, long *out)
{
	char *end;
	errno = 0;
	*out = strtol(r->val, &end, 10);
	return *r->val && !*end && !errno ? 0 : bad(r, "not a whole number");
}

static int
get_num(struct rd *r, const char *s, double *out)
{
	char *end;
	*out = strtod(s, &end);
	return *s && !*end && isfinite(*out) ? 0 : bad(r, "not a number");
}

static int
get_bool(struct rd *r, int *out, int false_too)
{
	if (!strcmp(r->val, "true") || (false_too && !strcmp(r->val, "false"))) {
		*out = r->val[0] == 't';
		return 0;
	}
	return bad(r, false_too ? "neither true nor false" : "not true");
}

/* Splits the value at the first (last: from_end) sep into *a and *b. */
static int
split(struct rd *r, char sep, int from_end, const char **a, const char **b)
{
	char *at = from_end ? strrchr(r->val, sep) : strchr(r->val, sep);
	if (!at)
		return bad(r, "a part is missing");
	*at = 0;
	*a = r->val;
	*b = at + 1;
	return 0;
}

/* The measured window, FROM-TO: two whole numbers. */
static int
get_window(struct rd *r, long *from, long *to)
{
	char *end, *end2;
	errno = 0;
	*from = strtol(r->val, &end, 10);
	if (end == r->val || *end != '-' || errno)
		return bad(r, "not a window FROM-TO");
	*to = strtol(end + 1, &end2, 10);
	return end2 != end + 1 && !*end2 && !errno ? 0 : bad(r, "not a window FROM-TO");
}

/* The value's words: n of them, the last one taking the rest. */
static int
words(struct rd *r, const char **w, int n)
{
	char *s = r->val;
	for (int i = 0; i < n - 1; i++) {
		char *sp = strchr(s, ' ');
		if (!sp)
			return bad(r, "a part is missing");
		*sp = 0;
		w[i] = s;
		s = sp + 1;
	}
	w[n - 1] = s;
	return 0;
}

static int
read_cmd(struct rd *r, struct pc_cmd *c)
{
	if (!strcmp(r->key, "arg")) {
		c->args = xrealloc(c->args, (c->nargs + 1) * sizeof *c->args);
		c->args[c->nargs++] = (struct pc_arg){xstrdup(r->val), NULL};
	} else if (!strcmp(r->key, "file")) {
		const char *w, *h;
		if (!c->nargs || c->args[c->nargs - 1].hash || split(r, ' ', 1, &w, &h) ||
		    strcmp(w, c->args[c->nargs - 1].word))
			return bad(r, "not the hash of the argument before it");
		c->args[c->nargs - 1].hash = xstrdup(h);
	} else if (!strcmp(r->key, "env")) {
		pc_strv_add(&c->env, &c->nenv, xstrdup(r->val));
	} else if (!strcmp(r->key, "mount")) {
		pc_strv_add(&c->mounts, &c->nmounts, xstrdup(r->val));
	} else if (!strcmp(r->key, "secret")) {
		pc_constv_add(&c->secrets, &c->nsecrets, r->val);
	} else {
		return 1;
	}
	return 0;
}

static int
read_venv(struct rd *r, struct pc_venv *v)
{
	const char *w[4];
	struct pc_dep d = {0};
	if (!strcmp(r->key, "python")) {
		v->python = r->val;
		return 0;
	} else if (!strcmp(r->key, "system_site_packages")) {
		return get_bool(r, &v->system_site_packages, 1);
	} else if (!strcmp(r->key, "pip_arg")) {
		pc_constv_add(&v->pip_args, &v->npip_args, r->val);
		return 0;
	} else if (!strcmp(r->key, "dir")) {
		return set_once(r, &v->dir);
	} else if (!strcmp(r->key, "repo")) {
		if (r->repo.key || words(r, w, 3))
			return bad(r, "not a repository before an entry");
		r->repo = (struct pc_repo){w[0], w[1], w[2]};
		return 0;
	} else if (!strcmp(r->key, "git")) {
		if (words(r, w, 3))
			return -1;
		d = (struct pc_dep){.kind = PD_GIT, .name = w[0], .method = w[1], .path = w[2]};
	} else if (!strcmp(r->key, "pip")) {
		d = (struct pc_dep){.kind = PD_PIP, .name = r->val};
	} else if (!strcmp(r->key, "pipdep")) {
		if (words(r, w, 4))
			return -1;
		d = (struct pc_dep){.kind = PD_PIPDEP, .name = w[0], .repo_key = strcmp(w[1], "-") ? w[1] : NULL,
				    .target = w[2], .editable = !strcmp(w[3], "editable")};
	} else {
		return 1;
	}
	d.repo = r->repo;
	r->repo = (struct pc_repo){0};
	v->deps = xrealloc(v->deps, (v->ndeps + 1) * sizeof *v->deps);
	v->deps[v->ndeps++] = d;
	return 0;
}

static int
read_data(struct rd *r, struct pc_data *d)
{
	int rc = read_cmd(r, &d->cmd);
	if (rc <= 0)
		return rc;
	if (!strcmp(r->key, "task"))
		d->task = r->val;
	else if (!strcmp(r->key, "gpus"))
		return get_bool(r, &d->gpus, 1);
	else if (!strcmp(r->key, "image"))
		return set_once(r, &d->image);
	else if (!strcmp(r->key, "time_limit"))
		d->time_limit = r->val;
	else if (!strcmp(r->key, "size_gb"))
		d->size_gb = r->val;
	else if (!strcmp(r->key, "prove"))
		pc_constv_add(&d->proves, &d->nproves, r->val);
	else
		return 1;
	return 0;
}

static int
read_train_flags(struct rd *r, struct pc_train *t)
{
	static const char *const keys[] = {"nccltrace", "proxy", "container_writable", "node_setup", NULL};
	int *const fl[] = {&t->nccltrace, &t->proxy, &t->container_writable, &t->node_setup};
	for (int i = 0; keys[i]; i++)
		if (!strcmp(r->key, keys[i]))
			return get_bool(r, fl[i], 0);
	return 1;
}

static int
read_train(struct rd *r, struct pc_train *t)
{
	const char *a, *b;
	int rc = read_cmd(r, &t->cmd);
	if (rc <= 0 || (rc = read_train_flags(r, t)) <= 0)
		return rc;
	if (!strcmp(r->key, "nodes"))
		return get_long(r, &t->nodes);
	if (!strcmp(r->key, "ntasks_per_node"))
		return get_long(r, &t->tasks_per_node);
	if (!strcmp(r->key, "gpus_per_node"))
		return get_long(r, &t->gpus_per_node);
	if (!strcmp(r->key, "sbatch_segment"))
		return get_long(r, &t->segment);
	if (!strcmp(r->key, "steps"))
		return get_num(r, r->val, &t->steps);
	if (!strcmp(r->key, "model_flops")) {
		t->have_flops = 1;
		return get_num(r, r->val, &t->model_flops);
	}
	if (!strcmp(r->key, "knob")) {
		if (split(r, '=', 0, &a, &b))
			return -1;
		t->knobs = xrealloc(t->knobs, (t->nknobs + 1) * sizeof *t->knobs);
		t->knobs[t->nknobs++] = (struct pc_knob){a, b};
	} else if (!strcmp(r->key, "param")) {
		if (split(r, '=', 0, &a, &b))
			return -1;
		t->params = xrealloc(t->params, (t->nparams + 1) * sizeof *t->params);
		t->params[t->nparams].name = a;
		return get_num(r, b, &t->params[t->nparams++].value);
	} else if (!strcmp(r->key, "profile")) {
		if (split(r, '-', 0, &t->profile_start, &t->profile_stop))
			return -1;
		t->profile = 1;
	} else if (!strcmp(r->key, "callerenv")) {
		const char **v = (const char **)t->callerenv;
		pc_constv_add(&v, &t->ncallerenv, r->val);
		t->callerenv = v;
	} else if (!strcmp(r->key, "image")) {
		return set_once(r, &t->image);
	} else if (!strcmp(r->key, "time_limit")) {
		t->time_limit = r->val;
	} else if (!strcmp(r->key, "preflight")) {
		if (preflight_policy(r->val) < 0)
			return bad(r, "not a pre-flight policy");
		t->preflight = r->val;
	} else if (!strcmp(r->key, "recompute")) {
		return set_once(r, &t->recompute);
	} else if (!strcmp(r->key, "srun_mpi")) {
		t->srun_mpi = r->val;
	} else if (!strcmp(r->key, "container_env")) {
		return set_once(r, &t->container_env);
	} else if (!strcmp(r->key, "sbatch_mem")) {
		t->sbatch_mem = r->val;
	} else {
		return 1;
	}
	return 0;
}

static int
read_parse(struct rd *r, struct pc_parse *p)
{
	if (!strcmp(r->key, "window"))
		return get_window(r, &p->win_from, &p->win_to);
	if (!strcmp(r->key, "steps"))
		return get_num(r, r->val, &p->steps);
	if (!strcmp(r->key, "profiled"))
		return get_bool(r, &p->profiled, 0);
	if (!strcmp(r->key, "proxy"))
		return get_bool(r, &p->proxy, 0);
	if (!strcmp(r->key, "unlisted"))
		return get_bool(r, &p->unlisted, 0);
	if (!strcmp(r->key, "log_format"))
		p->log_format = r->val;
	else if (!strcmp(r->key, "indexing"))
		p->indexing = r->val;
	else if (!strcmp(r->key, "metric"))
		p->metric = r->val;
	else
		return 1;
	return 0;
}

/* A line of the kind's own: 0, -1 (said), 1 (not one of its keys). */
static int
read_body(struct rd *r)
{
	struct stagecfg *c = r->c;
	switch (c->kind) {
	case PC_IMAGE:
		if (!strcmp(r->key, "ref"))
			c->u.image.ref = r->val;
		else if (!strcmp(r->key, "file"))
			return set_once(r, &c->u.image.stem);
		else
			return 1;
		return 0;
	case PC_VENV:
		return read_venv(r, &c->u.venv);
	case PC_DATA:
		return read_data(r, &c->u.data);
	case PC_TRAIN:
	case PC_PARSE:
		if (!strcmp(r->key, "run"))
			return set_once(r, &c->run);
		if (!c->run)
			return 1;
		c->bound = 1;
		return c->kind == PC_TRAIN ? read_train(r, &c->u.train) : read_parse(r, &c->u.parse);
	case PC_REPORT:
		if (!strcmp(r->key, "report"))
			return set_once(r, &c->u.report.report);
		else if (!strcmp(r->key, "tolerance_pct"))
			c->u.report.tolerance_pct = r->val;
		else
			return 1;
		return 0;
	case PC_NONE:
		break;
	}
	return 1;
}

static int
read_kind(struct rd *r)
{
	/* the union holds one kind's fields: a second kind would read them as another's */
	if (r->c->kind != PC_NONE)
		return bad(r, "a second kind line");
	for (int k = PC_IMAGE; pc_kind_names[k]; k++) {
		if (!strcmp(r->val, pc_kind_names[k])) {
			r->c->kind = (enum pc_kind)k;
			return 0;
		}
	}
	return bad(r, "not a stage kind");
}

/* A line of the head: 0, -1 (said), 1 (not a head key). */
static int
read_head(struct rd *r)
{
	struct stagecfg *c = r->c;
	static const char *const keys[] = {"id", "template", "workload", "label", "gpu", "size", "dtype",
					   "retry_count", NULL};
	const char **const at[] = {&c->id, &c->template, &c->workload, &c->label, &c->gpu, &c->size, &c->dtype,
				   &c->retry_count};
	for (int i = 0; keys[i]; i++) {
		if (!strcmp(r->key, keys[i])) {
			*at[i] = r->val;
			return 0;
		}
	}
	if (!strcmp(r->key, "kind"))
		return read_kind(r);
	if (!strcmp(r->key, "scale"))
		return get_long(r, &c->scale);
	if (!strcmp(r->key, "retry_on")) {
		pc_constv_add(&c->retry_on, &c->nretry_on, r->val);
	} else if (!strcmp(r->key, "output")) {
		pc_constv_add(&c->outputs, &c->noutputs, r->val);
	} else if (!strcmp(r->key, "after")) {
		const char *id, *h;
		if (split(r, ' ', 0, &id, &h) || strlen(h) != 64 || h[strspn(h, "0123456789abcdef")])
			return bad(r, "not an instance id and its hash");
		c->after = xrealloc(c->after, (c->nafter + 1) * sizeof *c->after);
		c->after[c->nafter].id = id;
		memcpy(c->after[c->nafter++].hash, h, 65);
	} else {
		return 1;
	}
	return 0;
}

/* The first line where text and what render writes for c differ (0: none). */
static int
first_difference(const struct stagecfg *c, const char *text)
{
	struct sb out = {0};
	stagecfg_render(c, &out);
	const char *a = text, *b = out.buf ? out.buf : "";
	int line = 1, at = 0;
	while (*a && *a == *b) {
		if (*a == '\n')
			line++;
		a++, b++;
	}
	if (*a || *b)
		at = line;
	sb_free(&out);
	return at;
}

int
stagecfg_parse(struct stagecfg *c, const char *text, const char *file)
{
	memset(c, 0, sizeof *c);
	c->arena = xstrdup(text);
	struct rd r = {.c = c, .file = file, .line = 1};
	char *l = c->arena, *nl;
	if (strncmp(l, HEADER "\n", sizeof HEADER)) {
		diag_error(file, 1, 1, "not a stage configuration (its first line is not \"%s\")", HEADER);
		stagecfg_free(c);
		return -1;
	}
	for (l += sizeof HEADER; *l && !r.err; l = nl + 1) {
		r.line++;
		if (!(nl = strchr(l, '\n'))) {
			diag_error(file, r.line, 1, "the last line has no newline");
			r.err = 1;
			break;
		}
		*nl = 0;
		char *eq = strchr(l, '=');
		if (!eq) {
			diag_error(file, r.line, 1, "not a key=value line: %.80s", l);
			r.err = 1;
			break;
		}
		*eq = 0;
		r.key = l;
		r.val = eq + 1;
		int rc = c->kind == PC_NONE ? read_head(&r) : read_body(&r);
		if (rc > 0 && c->kind != PC_NONE)
			rc = read_head(&r);
		if (rc > 0) {
			diag_error(file, r.line, 1, "no %s= line in a%s %s stage's configuration", r.key,
				   c->kind == PC_IMAGE ? "n" : "", c->kind ? pc_kind_names[c->kind] : "kindless");
			r.err = 1;
		}
	}
	if (!r.err && (!c->id || !c->kind || !c->template || !c->workload || !c->label)) {
		diag_error(file, r.line, 1, "the id, kind, template, workload or label line is missing");
		r.err = 1;
	}
	int diff = r.err ? 0 : first_difference(c, text);
	if (diff) {
		diag_error(file, diff, 1, "a line missing, repeated or out of the order llmb writes");
		r.err = 1;
	}
	if (r.err) {
		stagecfg_free(c);
		return -1;
	}
	return 0;
}

int
stagecfg_load(struct stagecfg *c, const char *path)
{
	char *text = read_file(path, NULL);
	if (!text) {
		memset(c, 0, sizeof *c);
		fprintf(stderr, "%s: error: cannot read: %s\n", path, strerror(errno));
		return -1;
	}
	int rc = stagecfg_parse(c, text, path);
	free(text);
	return rc;
}

/* ---- equality ------------------------------------------------------------ */

static int
str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Numbers are the record's as the text writes them. */
static int
num_eq(double a, double b, const char *fmt)
{
	char x[64], y[64];
	if (fmt) {
		snprintf(x, sizeof x, fmt, a);
		snprintf(y, sizeof y, fmt, b);
	} else {
		fmt_num(x, sizeof x, a);
		fmt_num(y, sizeof y, b);
	}
	return !strcmp(x, y);
}

static int
strv_eq(const char *const *a, size_t na, const char *const *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (!str_eq(a[i], b[i]))
			return 0;
	return 1;
}

static int
cmd_eq(const struct pc_cmd *a, const struct pc_cmd *b)
{
	if (a->nargs != b->nargs)
		return 0;
	for (size_t i = 0; i < a->nargs; i++)
		if (!str_eq(a->args[i].word, b->args[i].word) || !str_eq(a->args[i].hash, b->args[i].hash))
			return 0;
	return strv_eq((const char *const *)a->env, a->nenv, (const char *const *)b->env, b->nenv) &&
	       strv_eq((const char *const *)a->mounts, a->nmounts, (const char *const *)b->mounts, b->nmounts) &&
	       strv_eq(a->secrets, a->nsecrets, b->secrets, b->nsecrets);
}

static int
venv_eq(const struct pc_venv *a, const struct pc_venv *b)
{
	if (!str_eq(a->python, b->python) || a->system_site_packages != b->system_site_packages ||
	    !str_eq(a->dir, b->dir) || a->ndeps != b->ndeps ||
	    !strv_eq(a->pip_args, a->npip_args, b->pip_args, b->npip_args))
		return 0;
	for (size_t i = 0; i < a->ndeps; i++) {
		const struct pc_dep *x = &a->deps[i], *y = &b->deps[i];
		if (x->kind != y->kind || !str_eq(x->repo.key, y->repo.key) || !str_eq(x->name, y->name))
			return 0;
		if (x->repo.key && (!str_eq(x->repo.url, y->repo.url) || !str_eq(x->repo.commit, y->repo.commit)))
			return 0;
		if (x->kind == PD_GIT && (!str_eq(x->method, y->method) || !str_eq(x->path, y->path)))
			return 0;
		if (x->kind == PD_PIPDEP && (!str_eq(x->repo_key, y->repo_key) || !str_eq(x->target, y->target) ||
					     x->editable != y->editable))
			return 0;
	}
	return 1;
}

static int
data_eq(const struct pc_data *a, const struct pc_data *b)
{
	return str_eq(a->task, b->task) && a->gpus == b->gpus && str_eq(a->image, b->image) && cmd_eq(&a->cmd, &b->cmd) &&
	       str_eq(a->time_limit, b->time_limit) && str_eq(a->size_gb, b->size_gb) &&
	       strv_eq(a->proves, a->nproves, b->proves, b->nproves);
}

static int
callerenv_eq(const struct pc_train *a, const struct pc_train *b)
{
	size_t i = 0, j = 0;
	for (;; i++, j++) {
		while (i < a->ncallerenv && !pc_callerenv_kept(a, i))
			i++;
		while (j < b->ncallerenv && !pc_callerenv_kept(b, j))
			j++;
		if (i == a->ncallerenv || j == b->ncallerenv)
			return i == a->ncallerenv && j == b->ncallerenv;
		if (strcmp(a->callerenv[i], b->callerenv[j]))
			return 0;
	}
}

static int
train_eq(const struct pc_train *a, const struct pc_train *b)
{
	if (a->nodes != b->nodes || a->tasks_per_node != b->tasks_per_node || a->gpus_per_node != b->gpus_per_node ||
	    !str_eq(a->image, b->image) || !str_eq(a->time_limit, b->time_limit) || a->nknobs != b->nknobs ||
	    !str_eq(a->preflight, b->preflight) || a->profile != b->profile || a->nccltrace != b->nccltrace ||
	    a->proxy != b->proxy || a->nparams != b->nparams || !num_eq(a->steps, b->steps, NULL) ||
	    a->have_flops != b->have_flops || (a->have_flops && !num_eq(a->model_flops, b->model_flops, "%.6e")) ||
	    !cmd_eq(&a->cmd, &b->cmd) || !str_eq(a->srun_mpi, b->srun_mpi) ||
	    a->container_writable != b->container_writable || a->node_setup != b->node_setup ||
	    !str_eq(a->container_env, b->container_env) || !str_eq(a->sbatch_mem, b->sbatch_mem) ||
	    a->segment != b->segment || !str_eq(a->recompute, b->recompute) || !callerenv_eq(a, b))
		return 0;
	if (a->profile && (!str_eq(a->profile_start, b->profile_start) || !str_eq(a->profile_stop, b->profile_stop)))
		return 0;
	for (size_t i = 0; i < a->nknobs; i++)
		if (!str_eq(a->knobs[i].name, b->knobs[i].name) || !str_eq(a->knobs[i].value, b->knobs[i].value))
			return 0;
	for (size_t i = 0; i < a->nparams; i++)
		if (!str_eq(a->params[i].name, b->params[i].name) || !num_eq(a->params[i].value, b->params[i].value, NULL))
			return 0;
	return 1;
}

static int
parse_eq(const struct pc_parse *a, const struct pc_parse *b)
{
	return a->win_from == b->win_from && a->win_to == b->win_to && str_eq(a->log_format, b->log_format) &&
	       str_eq(a->indexing, b->indexing) && str_eq(a->metric, b->metric) && num_eq(a->steps, b->steps, NULL) &&
	       a->profiled == b->profiled && a->proxy == b->proxy && a->unlisted == b->unlisted;
}

static int
head_eq(const struct stagecfg *a, const struct stagecfg *b)
{
	if (!str_eq(a->id, b->id) || a->kind != b->kind || !str_eq(a->template, b->template) ||
	    !str_eq(a->workload, b->workload) || !str_eq(a->label, b->label) || !str_eq(a->gpu, b->gpu) ||
	    (a->gpu && (!str_eq(a->size, b->size) || !str_eq(a->dtype, b->dtype))) || a->scale != b->scale ||
	    !str_eq(a->retry_count, b->retry_count) || a->nafter != b->nafter ||
	    !strv_eq(a->outputs, a->noutputs, b->outputs, b->noutputs))
		return 0;
	if (a->retry_count && !strv_eq(a->retry_on, a->nretry_on, b->retry_on, b->nretry_on))
		return 0;
	for (size_t i = 0; i < a->nafter; i++)
		if (!str_eq(a->after[i].id, b->after[i].id) || strcmp(a->after[i].hash, b->after[i].hash))
			return 0;
	return 1;
}

int
stagecfg_equal(const struct stagecfg *a, const struct stagecfg *b)
{
	if (!head_eq(a, b))
		return 0;
	switch (a->kind) {
	case PC_NONE:
		return 1;
	case PC_IMAGE:
		return str_eq(a->u.image.ref, b->u.image.ref) && str_eq(a->u.image.stem, b->u.image.stem);
	case PC_VENV:
		return venv_eq(&a->u.venv, &b->u.venv);
	case PC_DATA:
		return data_eq(&a->u.data, &b->u.data);
	case PC_TRAIN:
	case PC_PARSE:
		if (!str_eq(a->run, b->run) || a->bound != b->bound)
			return 0;
		return !a->bound || (a->kind == PC_TRAIN ? train_eq(&a->u.train, &b->u.train)
							  : parse_eq(&a->u.parse, &b->u.parse));
	case PC_REPORT:
		return str_eq(a->u.report.report, b->u.report.report) &&
		       str_eq(a->u.report.tolerance_pct, b->u.report.tolerance_pct);
	}
	return 0;
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
stagecfg_free(struct stagecfg *c)
{
	free(c->retry_on);
	free(c->after);
	free(c->outputs);
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
		if (c->arena) /* the planner's list is envrec's */
			free((void *)c->u.train.callerenv);
		break;
	case PC_PARSE:
		break;
	case PC_REPORT:
		free(c->u.report.report);
		break;
	}
	free(c->arena);
	memset(c, 0, sizeof *c);
}
