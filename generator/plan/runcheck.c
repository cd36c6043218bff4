#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/htab.h"
#include "base/makesafe.h"
#include "base/schema.h"
#include "base/util.h"
#include "plan/runcheck.h"
#include "recipe/expr.h"
#include "recipe/recipecheck.h"
#include "store/layout.h"

/* What one selected run binds, found quietly before anything is said. */
struct runinfo {
	struct params prm;
	int bound; /* its params are valid: the plan expands it */
	int flops; /* its flops formula evaluates: {model_flops} is bound */
};

struct rc {
	const struct recipes *r;
	const char *file;
	const struct ynode *wl;
	const struct runset *rs; /* NULL: nothing expands */
	struct runinfo *info;
	int errs;
};

/* ---- what a run binds ----------------------------------------------------- */

int
run_params(const struct recipes *r, const struct plan_run *run, struct params *prm)
{
	long gpn = yint(gpu_find(r, run->gpu), "gpus_per_node", 8);
	if (config_params(NULL, run->row, run->scale, gpn, prm))
		return -1;
	const struct ynode *ps = ymap_get(run->row, "params");
	int bad = 0;
	for (size_t i = 0; i < prm->n; i++)
		for (size_t k = 0; k < ymap_len(ps); k++)
			if (ymap_key(ps, k)->str == prm->names[i])
				bad |= param_value_ok(NULL, ymap_key(ps, k), ymap_val(ps, k), prm->vals[i], run->scale);
	return bad ? -1 : 0;
}

int
run_flops(const struct ynode *wl, const struct plan_run *run, const struct params *prm, double *total)
{
	if (!ymap_get(wl, "flops"))
		return 1;
	struct flops f;
	if (flops_eval(NULL, wl, run->size, prm, &f))
		return -1;
	*total = f.total;
	return 0;
}

static void
rc_start(struct rc *c, const struct recipes *r, const char *file, const struct ynode *wl, const struct runset *rs)
{
	memset(c, 0, sizeof *c);
	c->r = r;
	c->file = file;
	c->wl = wl;
	c->rs = rs;
	c->info = xcalloc(rs ? rs->n + 1 : 1, sizeof *c->info);
	for (size_t i = 0; rs && rs->params && i < rs->n; i++) {
		struct runinfo *in = &c->info[i];
		const struct plan_run *run = &rs->v[i];
		long gpn = yint(gpu_find(r, run->gpu), "gpus_per_node", 8);
		double mf;
		in->bound = rs->ranges ? run_params(r, run, &in->prm) == 0
				       : config_params(NULL, run->row, run->scale, gpn, &in->prm) == 0;
		in->flops = in->bound && run_flops(wl, &rs->v[i], &in->prm, &mf) == 0;
	}
}

static void
rc_end(struct rc *c)
{
	for (size_t i = 0; c->rs && i < c->rs->n; i++)
		params_free(&c->info[i].prm);
	free(c->info);
}

/* Whether run i is expanded (of row, when row is not NULL). */
static int
expanded(const struct rc *c, size_t i, const struct ynode *row)
{
	return c->info[i].bound && (!row || c->rs->v[i].row == row);
}

static int
any_expanded(const struct rc *c, const struct ynode *row)
{
	for (size_t i = 0; c->rs && i < c->rs->n; i++)
		if (expanded(c, i, row))
			return 1;
	return 0;
}

/* The names a run's words may use, as runstages.c binds them (bind_run,
 * run_knobs, and model_flops when the formula evaluates). A formula that
 * does not evaluate for the run is check_flops' error, said once there:
 * its {model_flops} is no second one. */
static int
run_binds(const struct rc *c, size_t i, const char *name)
{
	static const char *const always[] = {"gpu", "size", "dtype", "scale", "gpus_per_node", "nodes", "steps",
		"profile", "profile_start", "profile_stop", "profile_ranks", "pytorch_profile", "gpu_metrics", "nccltrace", "checkpoint", "checkpoint_interval", "checkpoint_dir", "load_checkpoint_path", "extra_work", NULL};
	const struct plan_run *run = &c->rs->v[i];
	for (const char *const *p = always; *p; p++)
		if (!strcmp(*p, name))
			return 1;
	if (ymap_get(ymap_get(ymap_get(c->wl, "models"), run->size), name) || ymap_get(ymap_get(run->row, "params"), name))
		return 1;
	return !strcmp(name, "model_flops") && (c->info[i].flops || ymap_get(c->wl, "flops"));
}

/* ---- expressions ------------------------------------------------------------ */

/* An error of an expression at offset off of scalar n: a quoted scalar's
 * text starts one column after its quote. */
static void
expr_diag(struct rc *c, const struct ynode *n, int off, const char *what, const char *key, const char *msg)
{
	diag_error(c->file, n->line, n->col + off + !n->plain, "%s.%s: %s", what, key, msg);
	c->errs++;
}

struct names {
	const char *name[64];
	int off[64];
	char buf[64][64];
	int n;
};

static void
add_name(void *ctx, const char *name, int off)
{
	struct names *nm = ctx;
	if (nm->n == 64)
		return;
	snprintf(nm->buf[nm->n], sizeof nm->buf[nm->n], "%s", name);
	nm->name[nm->n] = nm->buf[nm->n];
	nm->off[nm->n++] = off;
}

/* The names expression n of key reads, or -1 after its syntax error. */
static int
expr_read(struct rc *c, const struct ynode *n, const char *what, const char *key, struct names *nm)
{
	char err[160];
	int off = 0;
	nm->n = 0;
	if (!expr_names(n->str, add_name, nm, err, sizeof err, &off))
		return 0;
	expr_diag(c, n, off, what, key, err);
	return -1;
}

/* A param may use scale, gpus_per_node, nodes and the params before it
 * (those that did not fail, when failed is not NULL). */
static int
param_binds(const struct ynode *ps, size_t k, const char *failed, const char *name)
{
	if (!strcmp(name, "scale") || !strcmp(name, "gpus_per_node") || !strcmp(name, "nodes"))
		return 1;
	for (size_t j = 0; j < k; j++)
		if ((!failed || !failed[j]) && !strcmp(ymap_key(ps, j)->str, name))
			return 1;
	return 0;
}

/* The places a row's params are evaluated at: the distinct scale and GPUs
 * per node of its selected runs, by scale. */
struct at {
	long scale, gpn;
	int whole; /* every param of the row evaluates here */
};

static int
cmp_at(const void *a, const void *b)
{
	const struct at *x = a, *y = b;
	return x->scale != y->scale ? (x->scale < y->scale ? -1 : 1) : (x->gpn > y->gpn) - (x->gpn < y->gpn);
}

static size_t
row_places(const struct rc *c, const struct ynode *row, struct at **out)
{
	struct at *v = xcalloc(c->rs->n + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < c->rs->n; i++) {
		const struct plan_run *run = &c->rs->v[i];
		if (run->row != row)
			continue; /* first: a plan of 10,000 rows asks this 10,000 times */
		long gpn = yint(gpu_find(c->r, run->gpu), "gpus_per_node", 8);
		size_t k = 0;
		while (k < n && (v[k].scale != run->scale || v[k].gpn != gpn))
			k++;
		if (k < n)
			continue;
		struct params p;
		v[n++] = (struct at){run->scale, gpn, config_params(NULL, row, run->scale, gpn, &p) == 0};
		params_free(&p);
	}
	qsort(v, n, sizeof *v, cmp_at);
	*out = v;
	return n;
}

/* Param k's value at each place: an evaluation error once, a value out of
 * range once (once per scale when it is an expression of the scale). */
static void
param_values(struct rc *c, const struct ynode *row, size_t k, const struct at *at, size_t nat, char *failed)
{
	const struct ynode *ps = ymap_get(row, "params"), *key = ymap_key(ps, k), *v = ymap_val(ps, k);
	char *end;
	strtod(v->str, &end);
	int said = 0;
	long said_scale = 0;
	for (size_t i = 0; i < nat; i++) {
		char err[160];
		int off = 0;
		double val;
		if (config_param_eval(row, k, at[i].scale, at[i].gpn, &val, err, sizeof err, &off)) {
			expr_diag(c, v, off, "params", key->str, err);
			failed[k] = 1;
			return;
		}
		if (!c->rs->ranges || !at[i].whole || (said && (!*end || said_scale == at[i].scale)))
			continue;
		if (param_value_ok(c->file, key, v, val, at[i].scale)) {
			c->errs++;
			said = failed[k] = 1;
			said_scale = at[i].scale;
		}
	}
}

static void
check_params(struct rc *c, const struct ynode *row)
{
	const struct ynode *ps = ymap_get(row, "params");
	struct at *at;
	size_t nat = row_places(c, row, &at);
	char *failed = xcalloc(ymap_len(ps) + 1, 1);
	for (size_t k = 0; nat && k < ymap_len(ps); k++) {
		const char *key = ymap_key(ps, k)->str;
		struct names nm;
		if (expr_read(c, ymap_val(ps, k), "params", key, &nm)) {
			failed[k] = 1;
			continue;
		}
		for (int j = 0; j < nm.n; j++) {
			if (param_binds(ps, k, failed, nm.name[j]))
				continue;
			/* a param built from one whose error was said fails with it, silently */
			if (!param_binds(ps, k, NULL, nm.name[j])) {
				char msg[120];
				snprintf(msg, sizeof msg, "unknown name '%s'", nm.name[j]);
				expr_diag(c, ymap_val(ps, k), nm.off[j], "params", key, msg);
			}
			failed[k] = 1;
		}
		if (!failed[k])
			param_values(c, row, k, at, nat, failed);
	}
	free(failed);
	free(at);
}

/* The flops formula: its terms, the names each reads against every
 * expanded run, then its value at each of them, then the total. A run is
 * held to one error: once a term failed for it, the later terms and the
 * total, which fail from the same values, are not evaluated for it. */
static void
check_flops(struct rc *c, const struct ynode *f)
{
	if (!c->rs || !c->rs->params || !any_expanded(c, NULL))
		return;
	char *said = xcalloc(c->rs->n + 1, 1); /* run i has its error */
	int terms_ok = 1;
	for (size_t t = 0; t < ymap_len(f); t++) {
		const struct ynode *k = ymap_key(f, t), *e = ymap_val(f, t);
		struct names nm;
		int bad = 0;
		if (flops_term(c->file, k) < 0) {
			c->errs++;
			terms_ok = 0;
			continue;
		}
		if (expr_read(c, e, "flops", k->str, &nm)) {
			terms_ok = 0;
			continue;
		}
		for (int j = 0; j < nm.n; j++) {
			for (size_t i = 0; i < c->rs->n; i++) {
				const struct plan_run *run = &c->rs->v[i];
				if (!expanded(c, i, NULL) || ymap_get(ymap_get(ymap_get(c->wl, "models"), run->size), nm.name[j]) ||
				    ymap_get(ymap_get(run->row, "params"), nm.name[j]))
					continue;
				char msg[120];
				snprintf(msg, sizeof msg, "unknown name '%s'", nm.name[j]);
				expr_diag(c, e, nm.off[j], "flops", k->str, msg);
				bad = 1;
				break;
			}
		}
		if (bad) {
			terms_ok = 0;
			continue;
		}
		/* said once per term; every run it fails for has had its error */
		for (size_t i = 0; i < c->rs->n; i++) {
			char err[160];
			int off = 0;
			double v;
			if (expanded(c, i, NULL) && !said[i] &&
			    flops_term_eval(c->wl, c->rs->v[i].size, &c->info[i].prm, e, &v, err, sizeof err, &off)) {
				if (!bad)
					expr_diag(c, e, off, "flops", k->str, err);
				bad = said[i] = 1;
			}
		}
	}
	/* every term evaluates, yet their sum times the factor may not (a size
	 * without models is check_row's error) */
	for (size_t i = 0; terms_ok && i < c->rs->n; i++) {
		double total;
		if (expanded(c, i, NULL) && !said[i] && ymap_get(ymap_get(c->wl, "models"), c->rs->v[i].size) &&
		    run_flops(c->wl, &c->rs->v[i], &c->info[i].prm, &total) < 0) {
			diag_error(c->file, f->line, f->col, "flops: the total of size %s, (attention + mlp + embedding) * factor, is not finite",
				   c->rs->v[i].size);
			c->errs++;
			break;
		}
	}
	free(said);
}

/* ---- words: placeholders and checkout files ----------------------------- */

/* Every {placeholder} of word w names a path or what each expanded run
 * (of row, when not NULL) binds; tasks bind paths alone. */
static void
check_word(struct rc *c, const struct ynode *w, const struct ynode *row, int task)
{
	for (const char *s = w->str, *o; (o = strchr(s, '{'));) {
		const char *e = strchr(o, '}');
		if (!e)
			break;
		size_t n = (size_t)(e - o - 1);
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)n, o + 1);
		int ok = layout_path_placeholder(o + 1, n) || !task;
		for (size_t i = 0; ok && !task && i < c->rs->n; i++)
			ok = !expanded(c, i, row) || run_binds(c, i, name) || layout_path_placeholder(o + 1, n);
		if (!ok) {
			diag_error(c->file, w->line, w->col + (int)(o - w->str) + (w->plain ? 0 : 1), "unknown placeholder {%s}", name);
			c->errs++;
		}
		s = e + 1;
	}
}

/* A command word naming a checkout file ({recipe_dir}/x, {top}/x) makes it
 * a make prerequisite: its path must be a word make reads as itself. The
 * numbers a run puts in it cannot make it so; a path placeholder keeps it
 * out of the rules. */
static void
check_file_word(struct rc *c, const struct ynode *w)
{
	const char *rest = !strncmp(w->str, "{recipe_dir}/", 13) ? w->str + 13 : !strncmp(w->str, "{top}/", 6) ? w->str + 6 : NULL;
	if (!rest)
		return;
	struct sb path = {0};
	for (const char *s = rest; *s;) {
		const char *o = strchr(s, '{'), *e = o ? strchr(o, '}') : NULL;
		if (!e) {
			sb_add(&path, s);
			break;
		}
		if (layout_path_placeholder(o + 1, (size_t)(e - o - 1))) {
			sb_free(&path);
			return;
		}
		sb_addn(&path, s, (size_t)(o - s));
		sb_add(&path, "0");
		s = e + 1;
	}
	const char *p = path.buf ? path.buf : "";
	if (!valid_path(p) || !mk_word_ok(p)) {
		diag_error(c->file, w->line, w->col, "'%s' names a checkout file that make tracks: its path must be [A-Za-z0-9._/+-] without '..'",
			   w->str);
		c->errs++;
	}
	sb_free(&path);
}

/* The words of a list (a command, arguments, mounts) or the values of a
 * map (an environment); argv words may name checkout files. */
static void
check_words(struct rc *c, const struct ynode *v, const struct ynode *row, int task, int argv)
{
	int map = v && v->kind == Y_MAP;
	size_t n = map ? ymap_len(v) : v && v->kind == Y_SEQ ? v->nkids : 0;
	for (size_t i = 0; i < n; i++) {
		const struct ynode *w = map ? ymap_val(v, i) : v->kids[i];
		check_word(c, w, row, task);
		if (argv)
			check_file_word(c, w);
	}
}

/* ---- the workload's keys, in source order ----------------------------------- */

static int
image_known(const struct rc *c, const char *name)
{
	return ymap_get(ymap_get(c->wl, "images"), name) != NULL;
}

/* train.srun.container_env names environment variables; train.sbatch's
 * segment has a largest segment of one node at least. */
static void
check_launch(struct rc *c, const struct ynode *train)
{
	const struct ynode *const *it, *one;
	size_t n = ynames(ymap_get(ymap_get(train, "srun"), "container_env"), &it, &one);
	for (size_t i = 0; i < n; i++) {
		const char *s = it[i]->str;
		if ((*s >= '0' && *s <= '9') || s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")]) {
			diag_error(c->file, it[i]->line, it[i]->col, "container_env: '%s' is not an environment variable name", s);
			c->errs++;
		}
	}
	const struct ynode *max = ymap_get(ymap_get(ymap_get(train, "sbatch"), "segment"), "max");
	if (max && max->kind == Y_SCALAR && strtol(max->str, NULL, 10) < 1) {
		diag_error(c->file, max->line, max->col, "segment max: a segment holds one node at least");
		c->errs++;
	}
}

static void
check_train(struct rc *c, const struct ynode *train)
{
	check_launch(c, train);
	int words = c->rs && c->rs->train && any_expanded(c, NULL);
	const struct ynode *img = ymap_get(train, "image");
	int stem = img && image_known(c, img->str);
	for (size_t k = 0; k < ymap_len(train); k++) {
		const char *key = ymap_key(train, k)->str;
		const struct ynode *v = ymap_val(train, k);
		/* the launch options add_launch in runstages.c writes */
		const struct ynode *in = !strcmp(key, "srun") ? v : !strcmp(key, "node_setup") ? train : NULL;
		const char *opt = in == v ? "container_writable" : "node_setup";
		const struct ynode *launch = in && ybool(in, opt, 0) ? ymap_get(in, opt) : NULL;
		if (!strcmp(key, "image") && !stem) {
			diag_error(c->file, v->line, v->col, "image '%s' is not in images", v->str);
			c->errs++;
		} else if (words && (!strcmp(key, "cmd") || !strcmp(key, "env") || !strcmp(key, "mounts"))) {
			check_words(c, v, NULL, 0, !strcmp(key, "cmd"));
		} else if (words && launch && !stem) {
			diag_error(c->file, launch->line, launch->col, "%s needs the training image (train.image)", opt);
			c->errs++;
		}
	}
}

/* A task's name is its own, its image is in images, its words bind paths. */
static void
check_tasks(struct rc *c, const struct ynode *tasks)
{
	for (size_t i = 0; c->rs && c->rs->tasks && i < tasks->nkids; i++) {
		const struct ynode *t = tasks->kids[i], *nm = ymap_get(t, "name");
		size_t j = 0;
		while (j < i && strcmp(ystr(tasks->kids[j], "name", ""), nm->str))
			j++;
		if (j < i) {
			diag_error(c->file, nm->line, nm->col, "duplicate task name '%s'", nm->str);
			c->errs++;
			continue;
		}
		for (size_t k = 0; k < ymap_len(t); k++) {
			const char *key = ymap_key(t, k)->str;
			const struct ynode *v = ymap_val(t, k);
			if (!strcmp(key, "image") && !image_known(c, v->str)) {
				diag_error(c->file, v->line, v->col, "image '%s' is not in images", v->str);
				c->errs++;
			} else if (!strcmp(key, "cmd") || !strcmp(key, "env") || !strcmp(key, "mounts")) {
				check_words(c, v, NULL, 1, !strcmp(key, "cmd"));
			}
		}
	}
}

static void
check_repo(struct rc *c, const struct ynode *entry)
{
	const struct ynode *k = ymap_get(entry, "repo");
	if (k && !ymap_get(ymap_get(c->wl, "repositories"), k->str)) {
		diag_error(c->file, k->line, k->col, "repository '%s' is not in repositories", k->str);
		c->errs++;
	}
}

static void
check_venv(struct rc *c, const struct ynode *venv)
{
	for (size_t k = 0; c->rs && c->rs->venv && k < ymap_len(venv); k++) {
		const char *key = ymap_key(venv, k)->str;
		const struct ynode *v = ymap_val(venv, k);
		for (size_t i = 0; (!strcmp(key, "git") || !strcmp(key, "pip")) && v && i < v->nkids; i++)
			if (v->kids[i]->kind == Y_MAP)
				check_repo(c, v->kids[i]);
	}
}

static void
check_knobs(struct rc *c, const struct ynode *knobs)
{
	if (c->rs && c->rs->train && c->rs->extra_work && any_expanded(c, NULL))
		check_words(c, ymap_get(knobs, "extra_work_args"), NULL, 0, 1);
}

/* One config row's runs: every GPU type in gpus.yaml and size in models,
 * and for each scale of a known GPU type and size, a run configured once
 * and a scale of at least 1. Names come before scales, as in the row. */
static int
check_row(const struct recipes *r, const char *file, const struct ynode *wl, size_t i, struct pindex *seen)
{
	const struct ynode *configs = ymap_get(wl, "configs"), *row = configs->kids[i];
	const struct ynode *const *g, *const *sz, *const *dt, *o1, *o2, *o3;
	size_t ng = ynames(ymap_get(row, "gpu"), &g, &o1);
	size_t ns = ynames(ymap_get(row, "size"), &sz, &o2);
	size_t nd = ynames(ymap_get(row, "dtype"), &dt, &o3);
	const struct ynode *scales = ymap_get(row, "scales");
	int errs = 0, any = 0, *okg = xcalloc(ng + 1, sizeof *okg), *oks = xcalloc(ns + 1, sizeof *oks);
	for (size_t a = 0; a < ng; a++)
		if (!(okg[a] = gpu_find(r, g[a]->str) != NULL)) {
			diag_error(file, g[a]->line, g[a]->col, "GPU type '%s' is not in gpus.yaml", g[a]->str);
			errs++;
		}
	for (size_t b = 0; b < ns; b++) {
		int used = 0;
		for (size_t a = 0; a < ng; a++)
			used |= okg[a];
		oks[b] = !used || ymap_get(ymap_get(wl, "models"), sz[b]->str) != NULL;
		if (!oks[b]) {
			diag_error(file, sz[b]->line, sz[b]->col, "size '%s' has no entry in models", sz[b]->str);
			errs++;
		}
		any |= used && oks[b];
	}
	for (size_t d = 0; any && nd && scales && d < scales->nkids; d++) {
		const struct ynode *sn = scales->kids[d];
		long sc = strtol(sn->str, NULL, 10);
		for (size_t a = 0; a < ng; a++)
			for (size_t b = 0; okg[a] && b < ns; b++)
				for (size_t c = 0; oks[b] && c < nd; c++) {
					char *key = xasprintf("%s %s %s x%ld", g[a]->str, sz[b]->str, dt[c]->str, sc);
					long first = index_get(seen, key);
					if (first >= 0) {
						diag_error(file, sn->line, sn->col, "run %s is configured twice (first at %d:%d)", key,
							   configs->kids[first]->line, configs->kids[first]->col);
						errs++;
					} else {
						index_add(seen, key, i);
					}
					free(key);
				}
		if (sc < 1) {
			diag_error(file, sn->line, sn->col, "a scale must be at least 1");
			errs++;
		}
	}
	free(okg);
	free(oks);
	return errs;
}

/* A row's own parts after its runs: params, then the arguments and
 * environment it adds to the training command, in the row's order. */
static void
check_row_parts(struct rc *c, const struct ynode *row)
{
	if (!c->rs)
		return;
	for (size_t k = 0; k < ymap_len(row); k++) {
		const char *key = ymap_key(row, k)->str;
		const struct ynode *v = ymap_val(row, k);
		if (!strcmp(key, "params") && c->rs->params)
			check_params(c, row);
		else if ((!strcmp(key, "args") || !strcmp(key, "env")) && c->rs->train && any_expanded(c, row))
			check_words(c, v, row, 0, !strcmp(key, "args"));
	}
}

static void
check_configs(struct rc *c, const struct ynode *configs, int rows)
{
	struct pindex seen = {0}; /* "gpu size dtype xscale" -> config row */
	for (size_t i = 0; configs && i < configs->nkids; i++) {
		if (rows)
			c->errs += check_row(c->r, c->file, c->wl, i, &seen);
		check_row_parts(c, configs->kids[i]);
	}
	index_free(&seen);
}

static int
walk(const struct recipes *r, const char *file, const struct ynode *wl, const struct runset *rs, int all)
{
	struct rc c;
	rc_start(&c, r, file, wl, rs);
	for (size_t k = 0; k < ymap_len(wl); k++) {
		const char *key = ymap_key(wl, k)->str;
		const struct ynode *v = ymap_val(wl, k);
		if (!strcmp(key, "configs"))
			check_configs(&c, v, all);
		else if (!strcmp(key, "flops"))
			check_flops(&c, v);
		else if (!all)
			continue;
		else if (!strcmp(key, "train"))
			check_train(&c, v);
		else if (!strcmp(key, "tasks"))
			check_tasks(&c, v);
		else if (!strcmp(key, "venv"))
			check_venv(&c, v);
		else if (!strcmp(key, "knobs"))
			check_knobs(&c, v);
		else if (!strcmp(key, "default_gpu") && !recipe_default_gpu(wl)) {
			diag_error(file, v->line, v->col, "default_gpu '%s' is not the GPU type of any config row", v->str);
			c.errs++;
		}
	}
	rc_end(&c);
	return c.errs;
}

int
recipe_check_runs(const struct recipes *r, const char *file, const struct ynode *wl, const struct runset *rs)
{
	return walk(r, file, wl, rs, 1);
}

int
recipe_check_exprs(const struct recipes *r, const char *file, const struct ynode *wl, const struct runset *rs)
{
	return walk(r, file, wl, rs, 0);
}
