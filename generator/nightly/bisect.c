/* bisect: see bisect.h. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/capture.h"
#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/makesafe.h"
#include "base/schema.h"
#include "base/stats.h"
#include "base/util.h"
#include "base/yamlload.h"
#include "exec/dryrun.h"
#include "nightly/bisect.h"
#include "nightly/confirm.h"
#include "plan/envrec.h"
#include "plan/plan.h"
#include "plan/plandata.h"
#include "recipe/policy.h"
#include "results/bisectfind.h"
#include "results/record.h"
#include "run/selenv.h"
#include "store/layout.h"

extern char **environ;

enum { BX_CULPRIT = 0, BX_NONE = 1, BX_ERROR = 2, BX_BUDGET = 3, BX_INCONCLUSIVE = 4 };
enum { D_SAME, D_SLOWER, D_INCONCLUSIVE, D_BUDGET, D_ERROR };
static const char *const dword[] = {"same", "slower", "inconclusive", "budget", "error"};

/* One swappable difference: the good and bad side's values (NULL: unset). */
struct comp {
	enum { C_PIN, C_KNOB, C_ENV, C_IMAGE } kind;
	char *name, *good, *bad;
	char **commits;             /* pins: good .. bad, first-parent path (commits[0] = good) */
	size_t ncommits;
};

struct bis {
	const char *top, *install, *policy_path, *good_arg, *bad_arg;
	char **make_argv;
	struct policy pol;
	int repeats, max_repeats;
	double max_gh, spent, run_gh;
	json_t *good, *bad;         /* the two provenances */
	char *good_path, *bad_path;
	const char *wl;
	char gpu[256], size[256], dtype[256], scale[256];
	char *nodes;                /* where every run of the bisection runs, or NULL */
	char *max_steps;            /* the caller's MAX_STEPS: shorter runs, both sides */
	char id[13];
	char *dir;                  /* INSTALL/bisect/<id> */
	struct comp *c;
	size_t nc;
	json_t *fixed, *rounds;
	int nround;
};

static const char *
jstr(const json_t *o, const char *path)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", path);
	const json_t *v = o;
	for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save))
		v = json_object_get(v, k);
	return json_string_value(v);
}

static const char *
jstr0(const json_t *o, const char *path)
{
	const char *s = jstr(o, path);
	return s ? s : "";
}

static int
same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* ---- good and bad: nights, run directories, provenance files ----------- */

static int
is_night(const char *s)
{
	return strlen(s) == 10 && s[4] == '-' && s[7] == '-' && strspn(s, "0123456789-") == 10;
}

/* A night's run of the selected workload: the one night-<NIGHT> (or its
 * first repeat) under experiments/; NULL with a message otherwise. */
static char *
night_run(const struct bis *b, const char *night)
{
	const char *w = getenv("WORKLOAD"), *g = getenv("GPU_TYPE"), *sz = getenv("SIZE"), *dt = getenv("DTYPE"),
		   *sc = getenv("SCALES");
	/* a whole selection names the run directory */
	char *want = g && sz && dt && sc && *g && *sz && *dt && *sc ? xasprintf("%s_%s_%s_%s", g, sz, dt, sc) : NULL;
	char *found = NULL;
	int n = 0;
	char *wdir = layout_workloads(b->install);
	DIR *d = opendir(wdir);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.' || (w && *w && strcmp(w, e->d_name)))
			continue;
		char *ex = layout_experiments(b->install, e->d_name);
		DIR *r = opendir(ex);
		for (struct dirent *f; r && (f = readdir(r));) {
			if (f->d_name[0] == '.' || !strcmp(f->d_name, LAYOUT_BISECT_RUNS) ||
			    !strcmp(f->d_name, LAYOUT_EXEMPLAR_RUNS) || (want && strcmp(want, f->d_name)))
				continue;
			const char *reps[] = {"", "-1"};
			for (int i = 0; i < 2; i++) {
				char *p = xasprintf("%s/%s/night-%s%s/" LAYOUT_PROVENANCE, ex, f->d_name, night, reps[i]);
				if (file_exists(p)) {
					n++;
					free(found);
					found = p;
					break;
				}
				free(p);
			}
		}
		if (r)
			closedir(r);
		free(ex);
	}
	if (d)
		closedir(d);
	free(wdir);
	free(want);
	if (n != 1) {
		fprintf(stderr, "llmb bisect: error: night %s: %s; give WORKLOAD (and SIZE, DTYPE, SCALES) or a run directory\n",
			night, n ? "several runs of that night" : "no run of that night");
		free(found);
		return NULL;
	}
	return found;
}

/* A value that reaches make's command line or the environment of the
 * bisection's runs: make expands "$", and no control character is a
 * word's (one line each). */
static int
plain_value(const char *s)
{
	return s && !strchr(s, '$') && !has_control(s);
}

/* What a provenance gives the bisection's runs is checked before anything
 * runs: the workload and the run's name (make words), each pin (KEY URL
 * COMMIT, a full commit: git reads it), each run knob (one llmb knows)
 * and each environment variable (a name llmb records: a family's, never a
 * secret's), every value plain; NULL with why otherwise. */
static char *
side_unsafe(const json_t *j)
{
	const char *wl = jstr(j, "configuration.workload"), *run = jstr(j, "configuration.run");
	char name[256];
	snprintf(name, sizeof name, "%.*s", (int)strcspn(run, "/"), run);
	if (!mk_word_ok(wl))
		return xasprintf("configuration.workload \"%s\" is no workload name (%s)", wl, mk_word_what);
	if (!mk_word_ok(name) || strcspn(run, "/") >= sizeof name)
		return xasprintf("configuration.run \"%s\" is no run directory name (%s)", run, mk_word_what);
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(json_object_get(json_object_get(j, "software"), "venv"), "pins"), i, v) {
		const char *t = json_string_value(v), *sp = t ? strchr(t, ' ') : NULL, *cm = t ? strrchr(t, ' ') : NULL;
		char key[64];
		if (!t || !sp || sp == t || cm == sp || (size_t)(sp - t) >= sizeof key || has_control(t))
			return xasprintf("software.venv.pins[%zu]: expected \"KEY URL COMMIT\"", i);
		snprintf(key, sizeof key, "%.*s", (int)(sp - t), t);
		if (key[strspn(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")] || !valid_sha(cm + 1))
			return xasprintf("software.venv.pins[%zu] \"%s\": expected a key of letters, digits, _ and -, "
					 "and a full 40-digit lowercase hex commit", i, t);
	}
	const char *k;
	json_object_foreach(json_object_get(json_object_get(j, "configuration"), "run_knobs"), k, v) {
		int known = 0;
		for (int n = 0; n < K_NKNOBS && !known; n++)
			known = !strcmp(k, knob_names[n]);
		if (!known)
			return xasprintf("configuration.run_knobs: \"%s\" is no run knob of llmb's", k);
		if (!plain_value(json_string_value(v)))
			return xasprintf("configuration.run_knobs.%s: expected a string without \"$\" or control characters", k);
	}
	json_object_foreach(json_object_get(json_object_get(j, "configuration"), "environment"), k, v) {
		if (!envrec_records(k))
			return xasprintf("configuration.environment: \"%s\" is no variable llmb records (README: The job's environment)", k);
		if (!plain_value(json_string_value(v)))
			return xasprintf("configuration.environment.%s: expected a string without \"$\" or control characters", k);
	}
	const char *ref = jstr(j, "software.image.ref"), *nodes = jstr(j, "machine.nodes");
	if (ref && (!plain_value(ref) || strchr(ref, ' ')))
		return xstrdup("software.image.ref: expected one word without \"$\" or control characters");
	if (nodes && (!plain_value(nodes) || strchr(nodes, ' ')))
		return xstrdup("machine.nodes: expected one word without \"$\" or control characters");
	return NULL;
}

static json_t *
load_side(const struct bis *b, const char *arg, char **path)
{
	*path = is_night(arg) ? night_run(b, arg) : NULL;
	if (!*path && is_night(arg))
		return NULL;
	if (!*path) {
		char *p = xasprintf("%s/" LAYOUT_PROVENANCE, arg);
		*path = file_exists(p) ? p : (free(p), xstrdup(arg));
	}
	/* read as llmb diff reads one: a FIFO is refused, not waited on */
	size_t len;
	const char *why;
	char *text = read_regular_file(*path, &len, &why);
	if (!text) {
		fprintf(stderr, "%s: error: %s\n", *path, why);
		return NULL;
	}
	json_error_t je;
	json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (!j || !json_is_object(j)) {
		fprintf(stderr, "%s:%d:%d: error: %s\n", *path, j || je.line < 1 ? 1 : je.line, j || je.column < 1 ? 1 : je.column,
			j ? "not a provenance (no JSON object)" : je.text);
		json_decref(j);
		return NULL;
	}
	if (!jstr(j, "configuration.workload") || !jstr(j, "configuration.run")) {
		fprintf(stderr, "%s:1:1: error: not a run's provenance (no configuration.workload, configuration.run)\n", *path);
		json_decref(j);
		return NULL;
	}
	char *bad = side_unsafe(j);
	if (bad) {
		fprintf(stderr, "%s:1:1: error: %s: not a provenance llmb bisect runs\n", *path, bad);
		free(bad);
		json_decref(j);
		return NULL;
	}
	return j;
}

/* ---- what differs -------------------------------------------------------- */

static void
add_comp(struct bis *b, int kind, const char *name, const char *g, const char *bad)
{
	b->c = xrealloc(b->c, (b->nc + 1) * sizeof *b->c);
	b->c[b->nc++] = (struct comp){kind, xstrdup(name), g ? xstrdup(g) : NULL, bad ? xstrdup(bad) : NULL, NULL, 0};
}

/* "KEY URL COMMIT" pins of a provenance's venv: the commit of key. */
static const char *
pin_of(const json_t *prov, const char *key, char *buf, size_t len)
{
	const json_t *a = json_object_get(json_object_get(json_object_get(prov, "software"), "venv"), "pins");
	size_t kl = strlen(key), i;
	json_t *v;
	json_array_foreach(a, i, v) {
		const char *s = json_string_value(v);
		if (s && !strncmp(s, key, kl) && s[kl] == ' ' && strrchr(s, ' ')) {
			snprintf(buf, len, "%s", strrchr(s, ' ') + 1);
			return buf;
		}
	}
	return NULL;
}

/* The keys of both sides' objects at path, each once. */
static void
diff_object(struct bis *b, int kind, const char *path)
{
	const json_t *og = json_object_get(json_object_get(b->good, "configuration"), path);
	const json_t *ob = json_object_get(json_object_get(b->bad, "configuration"), path);
	const json_t *sides[] = {og, ob};
	for (int s = 0; s < 2; s++) {
		const char *k;
		json_t *v;
		json_object_foreach((json_t *)sides[s], k, v) {
			if (s == 1 && json_object_get(og, k))
				continue;
			/* where the runs run is the bisection's (nodelist=) */
			if (kind == C_KNOB && !strcmp(k, "ADDITIONAL_SLURM_PARAMS"))
				continue;
			const char *g = json_string_value(json_object_get(og, k)), *x = json_string_value(json_object_get(ob, k));
			if (!same_str(g, x))
				add_comp(b, kind, k, g, x);
		}
	}
}

/* Every driver_version under a provenance's nodes, comma-joined. */
static void
drivers(const json_t *v, struct sb *o)
{
	const char *k;
	json_t *x;
	size_t i;
	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, x) {
			const char *s = json_string_value(x);
			if (!strcmp(k, "driver_version") && s && !(o->buf && strstr(o->buf, s)))
				sb_addf(o, "%s%s", o->len ? "," : "", s);
			else
				drivers(x, o);
		}
	} else if (json_is_array(v)) {
		json_array_foreach((json_t *)v, i, x)
			drivers(x, o);
	}
}

static void
add_fixed(struct bis *b, const char *what, const char *g, const char *x, const char *why)
{
	if (same_str(g, x))
		return;
	json_array_append_new(b->fixed, json_pack("{s:s, s:s, s:s, s:s}", "what", what, "good", g ? g : "unset", "bad",
						  x ? x : "unset", "why", why));
}

/* The commits from good to bad in the repository's clone (any venv's
 * src/<key> that has both), first parent only, good first. */
static void
commits_of(const struct bis *b, struct comp *c)
{
	char *vd = layout_venvs(b->install);
	DIR *d = opendir(vd);
	for (struct dirent *e; d && (e = readdir(d)) && !c->commits;) {
		if (e->d_name[0] == '.')
			continue;
		char *src = xasprintf("%s/%s/src/%s", vd, e->d_name, c->name), *range = xasprintf("%s..%s", c->good, c->bad);
		char *argv[] = {"git", "-C", src, "rev-list", "--first-parent", "--reverse", "--end-of-options", range, NULL};
		struct sb out = {0}, err = {0};
		if (file_exists(src) && capture_run(argv, &out, &err) == 0 && out.len) {
			c->commits = xcalloc(out.len / 8 + 2, sizeof *c->commits);
			c->commits[c->ncommits++] = xstrdup(c->good);
			for (char *save = NULL, *l = strtok_r(out.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
				c->commits[c->ncommits++] = xstrdup(l);
		}
		sb_free(&out);
		sb_free(&err);
		free(src);
		free(range);
	}
	if (d)
		closedir(d);
	free(vd);
}

/* A commit's subject, from the clone that listed it. */
static char *
subject_of(const struct bis *b, const char *key, const char *commit)
{
	char *vd = layout_venvs(b->install), *subj = NULL;
	DIR *d = opendir(vd);
	for (struct dirent *e; d && (e = readdir(d)) && !subj;) {
		if (e->d_name[0] == '.')
			continue;
		char *src = xasprintf("%s/%s/src/%s", vd, e->d_name, key);
		char *argv[] = {"git", "-C", src, "log", "-1", "--format=%s", "--end-of-options", (char *)commit, "--", NULL};
		if (file_exists(src))
			subj = capture_first_line(argv);
		free(src);
	}
	if (d)
		closedir(d);
	free(vd);
	return subj;
}

/* The recipe's key of the image the training runs in (its train.image),
 * else of the image it waits for: the one whose ref is either side's, or
 * the recipe's only one. NULL where none. */
static char *
train_image_key(const struct bis *b, const char *ig, const char *ib)
{
	char *rf = layout_recipe(b->top, b->wl), *key = NULL;
	struct ydoc *d = file_exists(rf) ? yaml_load_file(rf) : NULL;
	const struct ynode *root = d && !d->errors && d->root->kind == Y_MAP ? d->root : NULL;
	const struct ynode *img = root ? ymap_get(ymap_get(root, "train"), "image") : NULL;
	const struct ynode *images = root ? ymap_get(root, "images") : NULL;
	if (img && img->kind == Y_SCALAR && img->str)
		key = xstrdup(img->str);
	for (size_t i = 0; !key && images && images->kind == Y_MAP && i < ymap_len(images); i++) {
		const struct ynode *ref = ymap_get(ymap_val(images, i), "ref");
		if (ref && ref->kind == Y_SCALAR && ref->str && (!strcmp(ref->str, ig) || !strcmp(ref->str, ib) || ymap_len(images) == 1))
			key = xstrdup(ymap_key(images, i)->str);
	}
	ydoc_free(d);
	free(rf);
	return key;
}

static void
differences(struct bis *b)
{
	/* pins: both sides' keys */
	const json_t *sides[] = {b->good, b->bad};
	for (int s = 0; s < 2; s++) {
		const json_t *a = json_object_get(json_object_get(json_object_get(sides[s], "software"), "venv"), "pins");
		size_t i;
		json_t *v;
		json_array_foreach(a, i, v) {
			const char *t = json_string_value(v);
			const char *sp = t ? strchr(t, ' ') : NULL;
			if (!sp || (size_t)(sp - t) >= 64)
				continue;
			char key[64], g[64], x[64];
			snprintf(key, sizeof key, "%.*s", (int)(sp - t), t);
			int seen = 0;
			for (size_t j = 0; j < b->nc; j++)
				seen |= b->c[j].kind == C_PIN && !strcmp(b->c[j].name, key);
			const char *pg = pin_of(b->good, key, g, sizeof g), *pb = pin_of(b->bad, key, x, sizeof x);
			if (seen || same_str(pg, pb))
				continue;
			if (!pg || !pb) {
				add_fixed(b, key, pg, pb, "a repository only one side pins: the recipes differ");
				continue;
			}
			add_comp(b, C_PIN, key, pg, pb);
			commits_of(b, &b->c[b->nc - 1]);
		}
	}
	diff_object(b, C_KNOB, "run_knobs");
	diff_object(b, C_ENV, "environment");
	/* the training's image, by the recipe's key of it: an image stage of
	 * its own for the swapped ref (LLMB_BISECT_IMAGE) */
	const char *ig = jstr(b->good, "software.image.ref"), *ib = jstr(b->bad, "software.image.ref");
	char *key = ig && ib && !same_str(ig, ib) ? train_image_key(b, ig, ib) : NULL;
	if (key)
		add_comp(b, C_IMAGE, key, ig, ib);
	else
		add_fixed(b, "image", ig, ib, ig && ib ? "the recipe's training names no image key to swap" : "one side ran in no image");
	free(key);
	/* a recipe that moved only its pins is explained by them (the image
	 * and each repository are listed on their own) */
	const char *pg = jstr(b->good, "configuration.recipe.pins_aside_sha256"),
		   *pb = jstr(b->bad, "configuration.recipe.pins_aside_sha256");
	if (!pg || !pb || strcmp(pg, pb))
		add_fixed(b, "recipe", jstr(b->good, "configuration.recipe.sha256"), jstr(b->bad, "configuration.recipe.sha256"),
			  "the recipe file changed: beyond its pins, its fields are not swapped one by one");
	add_fixed(b, "llmb", jstr(b->good, "software.llmb_version"), jstr(b->bad, "software.llmb_version"),
		  "llmb runs the bisection as it is checked out");
	add_fixed(b, "nodes", jstr(b->good, "machine.nodes"), jstr(b->bad, "machine.nodes"),
		  "hardware: every run of the bisection runs on the bad run's nodes, both sides");
	struct sb dg = {0}, db = {0};
	drivers(json_object_get(b->good, "nodes"), &dg);
	drivers(json_object_get(b->bad, "nodes"), &db);
	add_fixed(b, "driver", dg.buf, db.buf, "a node's driver and firmware are the cluster's, not a job's");
	sb_free(&dg);
	sb_free(&db);
}

/* ---- one run -------------------------------------------------------------- */

/* The environment and make words of a point: the good configuration with
 * component swap (-1: none) at the bad side's value, or at commit. */
static char **
point_setup(struct bis *b, int swap, const char *commit, const char *point)
{
	size_t na = 0;
	while (b->make_argv[na])
		na++;
	/* the make command, then a NAME=VALUE word per variable set: grown as
	 * they come (the knobs both sides share are any number) */
	size_t n = na, cap = na + 32;
	char **argv = xcalloc(cap, sizeof *argv);
	memcpy(argv, b->make_argv, na * sizeof *argv);
#define SETV(name, val)                                                                                                \
	do {                                                                                                           \
		const char *v_ = (val);                                                                                \
		setenv(!strcmp(name, "ENV") ? "LLMB_KNOB_ENV" : name, v_ ? v_ : "", 1);                                \
		if (n + 2 > cap)                                                                                       \
			argv = xrealloc(argv, (cap *= 2) * sizeof *argv);                                              \
		argv[n++] = xasprintf("%s=%s", name, v_ ? v_ : "");                                                    \
		argv[n] = NULL;                                                                                        \
	} while (0)
	char *tag = xasprintf("%s-%s", b->id, point);
	SETV("LLMB_BISECT", tag);
	free(tag);
	/* the tree this bisection reads its runs from, whatever the caller's
	 * environment says; absolute, as the make command may run elsewhere */
	char *inst = realpath(b->install, NULL);
	SETV("LLMB_INSTALL", inst ? inst : b->install);
	free(inst);
	/* every repository at the good run's pin (the recipe's may have moved
	 * since), the swapped one at its bad pin or at commit */
	struct sb pins = {0};
	size_t k0;
	json_t *pv;
	json_array_foreach(json_object_get(json_object_get(json_object_get(b->good, "software"), "venv"), "pins"), k0, pv) {
		const char *t = json_string_value(pv), *sp = t ? strchr(t, ' ') : NULL, *cm = t ? strrchr(t, ' ') : NULL;
		if (!sp || sp == t || cm == sp)
			continue;
		for (size_t i = 0; i < b->nc; i++)
			if (b->c[i].kind == C_PIN && (int)i == swap && strlen(b->c[i].name) == (size_t)(sp - t) &&
			    !strncmp(b->c[i].name, t, (size_t)(sp - t)))
				cm = NULL;
		if (cm)
			sb_addf(&pins, "%s%.*s=%s", pins.len ? " " : "", (int)(sp - t), t, cm + 1);
	}
	for (size_t i = 0; i < b->nc; i++) {
		const struct comp *c = &b->c[i];
		const char *v = (int)i == swap ? (commit ? commit : c->bad) : c->good;
		if (c->kind == C_PIN && (int)i == swap)
			sb_addf(&pins, "%s%s=%s", pins.len ? " " : "", c->name, v);
		else if (c->kind == C_KNOB)
			SETV(c->name, v);
		else if (c->kind == C_IMAGE)
			continue;
		else if (v)
			setenv(c->name, v, 1);
		else
			unsetenv(c->name);
	}
	SETV("LLMB_BISECT_PIN", pins.buf ? pins.buf : "");
	sb_free(&pins);
	/* the training's image at the good run's ref, or the swapped one at the bad's */
	struct sb imgs = {0};
	for (size_t i = 0; i < b->nc; i++)
		if (b->c[i].kind == C_IMAGE)
			sb_addf(&imgs, "%s%s=%s", imgs.len ? " " : "", b->c[i].name, (int)i == swap ? b->c[i].bad : b->c[i].good);
	SETV("LLMB_BISECT_IMAGE", imgs.buf ? imgs.buf : "");
	sb_free(&imgs);
	/* the knobs both sides share, as they ran (a MAX_STEPS of the caller's
	 * shortens the runs) */
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(json_object_get(b->good, "configuration"), "run_knobs"), k, v) {
		int differs = 0;
		for (size_t i = 0; i < b->nc; i++)
			differs |= b->c[i].kind == C_KNOB && !strcmp(b->c[i].name, k);
		if (!differs && strcmp(k, "ADDITIONAL_SLURM_PARAMS") && !(!strcmp(k, "MAX_STEPS") && b->max_steps))
			SETV(k, json_string_value(v));
	}
	if (b->max_steps)
		SETV("MAX_STEPS", b->max_steps);
	char *nl = b->nodes ? xasprintf("nodelist=%s", b->nodes) : NULL;
	SETV("ADDITIONAL_SLURM_PARAMS", nl);
	free(nl);
	SETV("WORKLOAD", b->wl);
	SETV("GPU_TYPE", b->gpu);
	SETV("SIZE", b->size);
	SETV("DTYPE", b->dtype);
	SETV("SCALES", b->scale);
	SETV("ASYNC", "0");
#undef SETV
	unsetenv("LLMB_NIGHT");
	unsetenv("LLMB_NIGHTLY");
	unsetenv("LLMB_NIGHT_TAG");
	unsetenv("LLMB_EXEMPLAR");
	return argv;
}

static void
free_argv_from(char **argv, size_t from)
{
	for (size_t i = from; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* The one parse instance of the point's plan: its record (samples), or
 * NULL with why in err. */
static json_t *
point_record(struct bis *b, char **run_dir, struct sb *err)
{
	struct sel s;
	sel_from_env(&s);
	struct plan p;
	json_t *rec = NULL;
	size_t found = 0;
	if (plan_build(&p, b->top, &s, 0)) {
		sb_add(err, "the selection does not plan");
		plan_free(&p);
		return NULL;
	}
	for (size_t i = 0; i < p.n; i++) {
		const struct inst *in = &p.v[i];
		if (strcmp(in->kind, "parse") || !in->rep || strncmp(in->rep, "bisect-", 7))
			continue;
		if (found++)
			continue;
		char *ver = llmb_version(b->top);
		rec = record_of_stage(&p, in, b->install, "bisect", ver, err);
		*run_dir = layout_experiment(b->install, in->workload, in->conf.run);
		free(ver);
	}
	plan_free(&p);
	if (found != 1) {
		json_decref(rec);
		rec = NULL;
		sb_addf(err, "the selection plans %zu runs, not one", found);
	}
	return rec;
}

/* Both sides of a round run with the same knobs: a run that is no
 * baseline only because a knob changed it from the recipe (MAX_STEPS:
 * shorter runs) still compares with its pair; one that failed, missed its
 * window or saw NaNs does not. */
static int
comparable(const json_t *rec)
{
	if (strcmp(jstr0(rec, "status"), "ok"))
		return 0;
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(rec, "invalid"), i, v) {
		const char *why = json_string_value(v);
		if (!why || strncmp(why, "configuration differs from the recipe: ", 39))
			return 0;
	}
	return 1;
}

/* Runs one point; its run (samples, job, GPU-hours) into runs, samples
 * appended to x. Non-zero when it left no valid run. */
static int
run_point(struct bis *b, int swap, const char *commit, const char *point, json_t *runs, double **x, size_t *nx)
{
	size_t na = 0;
	while (b->make_argv[na])
		na++;
	char **argv = point_setup(b, swap, commit, point);
	int rc = proc_run_child(argv, "bisect");
	free_argv_from(argv, na);
	struct sb err = {0};
	char *dir = NULL;
	json_t *rec = point_record(b, &dir, &err);
	const json_t *sm = json_object_get(rec, "samples");
	if (!rec || !comparable(rec) || !json_array_size(sm)) {
		fprintf(stderr, "llmb bisect: error: run %s (make exited %d) left no valid run%s%s\n", point, rc,
			err.len ? ": " : "", err.len ? err.buf : "");
		sb_free(&err);
		json_decref(rec);
		free(dir);
		return -1;
	}
	sb_free(&err);
	char *pp = xasprintf("%s/" LAYOUT_PROVENANCE, dir);
	double gh = confirm_gpu_hours(pp, atol(b->scale));
	free(pp);
	if (!(gh >= 0))
		gh = 0;
	b->spent += gh;
	size_t i;
	json_t *v;
	*x = xrealloc(*x, (*nx + json_array_size(sm)) * sizeof **x);
	json_array_foreach(sm, i, v)
		(*x)[(*nx)++] = json_number_value(v);
	const char *rel = dir + strlen(b->install) + (dir[strlen(b->install)] == '/');
	json_array_append_new(runs, json_pack("{s:s, s:s, s:s, s:f, s:O}", "point", point, "job",
					      jstr(rec, "job") ? jstr(rec, "job") : "", "run_dir", rel, "gpu_hours", gh,
					      "samples", sm));
	json_decref(rec);
	free(dir);
	return 0;
}

/* ---- a round's decision --------------------------------------------------- */

static json_t *
side_json(const char *label, const double *x, size_t n, double *mean, double *se)
{
	double *kept = xcalloc(n ? n : 1, sizeof *kept);
	size_t nk;
	*mean = stats_robust_mean(x, n, kept, &nk);
	*se = stats_batch_se(x, n);
	free(kept);
	return json_pack("{s:s, s:f, s:f, s:f, s:I}", "label", label, "mean", *mean, "std", stats_std(x, n), "se", *se,
			 "n", (json_int_t)n);
}

/* B against A: slower (a shift of at least min_effect, significant at the
 * judge's alpha, one-sided), same (the shift's upper bound at that level
 * below min_effect) or inconclusive, with the pairs it would need. */
static int
decide(const struct bis *b, const double *xa, size_t na, const double *xb, size_t nb, int pairs, json_t *o,
       const char *la, const char *lb)
{
	double ma, sa, mb, sb;
	json_object_set_new(o, "a", side_json(la, xa, na, &ma, &sa));
	json_object_set_new(o, "b", side_json(lb, xb, nb, &mb, &sb));
	double d = mb - ma, se = sqrt(sa * sa + sb * sb), df = na + nb > 3 ? (double)(na + nb - 2) : 1;
	double tc = stats_t_isf(b->pol.alpha, df), me = b->pol.min_effect * ma;
	json_object_set_new(o, "effect", json_real(ma > 0 ? d / ma : 0));
	json_object_set_new(o, "p", json_real(se > 0 ? stats_t_sf(d / se, df) : d > 0 ? 0 : 1));
	json_object_set_new(o, "pairs", json_integer(pairs));
	if (d >= me && (se <= 0 || d / se >= tc))
		return D_SLOWER;
	if (d + tc * se < me)
		return D_SAME;
	/* the error shrinks as the square root of the pairs */
	double gap = d >= me ? d : me - d, f = gap > 0 && se > 0 ? pow(tc * se / gap, 2) : INFINITY;
	if (isfinite(f) && f * pairs < 10000)
		json_object_set_new(o, "needed_pairs", json_integer((json_int_t)ceil(f * pairs)));
	return D_INCONCLUSIVE;
}

static void
round_text(const json_t *r, struct sb *o)
{
	const json_t *a = json_object_get(r, "a"), *bb = json_object_get(r, "b");
	if (!a || !bb) {
		sb_addf(o, "round %lld: %s: %s\n", (long long)json_integer_value(json_object_get(r, "round")),
			json_string_value(json_object_get(r, "what")), json_string_value(json_object_get(r, "decision")));
		return;
	}
	sb_addf(o, "round %lld: %s: %s %.4g s (sd %.2g, n %lld) vs %s %.4g s (sd %.2g, n %lld): %+.1f%%, %s\n",
		(long long)json_integer_value(json_object_get(r, "round")), json_string_value(json_object_get(r, "what")),
		json_string_value(json_object_get(a, "label")), json_number_value(json_object_get(a, "mean")),
		json_number_value(json_object_get(a, "std")), (long long)json_integer_value(json_object_get(a, "n")),
		json_string_value(json_object_get(bb, "label")), json_number_value(json_object_get(bb, "mean")),
		json_number_value(json_object_get(bb, "std")), (long long)json_integer_value(json_object_get(bb, "n")),
		100 * json_number_value(json_object_get(r, "effect")), json_string_value(json_object_get(r, "decision")));
}

static void
round_line(const json_t *r)
{
	struct sb o = {0};
	round_text(r, &o);
	fputs(o.buf, stdout);
	fflush(stdout);
	sb_free(&o);
}

/* One round: A (the good configuration, or the pin at commit ca) against
 * B (component swap at the bad value, or at commit cb); pairs of runs
 * until it decides or max_repeats pairs. A round decided before (its file)
 * is not run again. */
static int
round_run(struct bis *b, const char *what, int swap, const char *ca, const char *cb, const char *la, const char *lb,
	  json_t **out)
{
	int n = ++b->nround;
	char *path = xasprintf("%s/" LAYOUT_BISECT_ROUND "%d.json", b->dir, n);
	json_t *r = json_load_file(path, 0, NULL);
	const char *dw = json_string_value(json_object_get(r, "decision"));
	for (int i = 0; dw && i <= D_ERROR; i++)
		if (!strcmp(dw, dword[i]) && !strcmp(jstr0(r, "what"), what)) {
			b->spent += json_number_value(json_object_get(r, "gpu_hours"));
			round_line(r);
			json_array_append_new(b->rounds, r); /* the rounds own it; *out borrows */
			*out = r;
			free(path);
			return i;
		}
	json_decref(r);
	r = json_pack("{s:i, s:s}", "round", n, "what", what);
	json_t *runs = json_array();
	double *xa = NULL, *xb = NULL, gh0 = b->spent;
	size_t na = 0, nb = 0;
	int dec = D_INCONCLUSIVE, pair;
	for (pair = 1; pair <= b->max_repeats && dec == D_INCONCLUSIVE; pair++) {
		if (b->max_gh > 0 && b->spent + 2 * b->run_gh > b->max_gh) {
			dec = D_BUDGET;
			break;
		}
		char pa[32], pb[32];
		snprintf(pa, sizeof pa, "r%da%d", n, pair);
		snprintf(pb, sizeof pb, "r%db%d", n, pair);
		if (run_point(b, ca ? swap : -1, ca, pa, runs, &xa, &na) || run_point(b, swap, cb, pb, runs, &xb, &nb)) {
			dec = D_ERROR;
			break;
		}
		if (pair >= b->repeats)
			dec = decide(b, xa, na, xb, nb, pair, r, la, lb);
	}
	if (dec == D_BUDGET && na && nb)
		decide(b, xa, na, xb, nb, pair - 1, r, la, lb);
	free(xa);
	free(xb);
	json_object_set_new(r, "runs", runs);
	json_object_set_new(r, "gpu_hours", json_real(b->spent - gh0));
	json_object_set_new(r, "decision", json_string(dword[dec]));
	/* only a decided round is final; a stopped one runs again */
	if (dec != D_BUDGET && dec != D_ERROR) {
		char *t = json_dumps(r, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(8)), *tl = xasprintf("%s\n", t);
		if (write_file_atomic(path, tl, strlen(tl)) < 0)
			fprintf(stderr, "llmb bisect: cannot write %s: %s\n", path, strerror(errno));
		free(t);
		free(tl);
	}
	round_line(r);
	free(path);
	json_array_append_new(b->rounds, r); /* the rounds own it; *out borrows */
	*out = r;
	return dec;
}

/* ---- the plan --------------------------------------------------------------- */

static int
ceil_log2(size_t k)
{
	int r = 0;
	while (((size_t)1 << r) < k)
		r++;
	return r;
}

static char *
short_val(const char *v)
{
	size_t n = v ? strlen(v) : 0;
	return !v ? xstrdup("unset") : (n == 40 || n == 64) && strspn(v, "0123456789abcdef") == n ? xasprintf("%.*s", n == 40 ? 7 : 12, v) : xstrdup(v);
}

static void
plan_text(struct bis *b, struct sb *o)
{
	sb_addf(o, "llmb bisect %s: %s %s %s %s x%s\n  good: %s\n  bad:  %s\n", b->id, b->wl, b->gpu, b->size, b->dtype,
		b->scale, b->good_path, b->bad_path);
	sb_add(o, "differs, swapped one at a time:\n");
	int bis_rounds = 0;
	for (size_t i = 0; i < b->nc; i++) {
		const struct comp *c = &b->c[i];
		char *g = short_val(c->good), *x = short_val(c->bad);
		static const char *const kinds[] = {"repository", "run knob", "environment", "image"};
		sb_addf(o, "  %s %s: %s -> %s", kinds[c->kind], c->name, g, x);
		if (c->kind == C_PIN && c->ncommits > 1) {
			sb_addf(o, " (%zu commit%s)", c->ncommits - 1, c->ncommits == 2 ? "" : "s");
			if (ceil_log2(c->ncommits - 1) > bis_rounds)
				bis_rounds = ceil_log2(c->ncommits - 1);
		} else if (c->kind == C_PIN) {
			sb_add(o, " (no clone lists the commits between: swapped whole)");
		}
		sb_add(o, "\n");
		free(g);
		free(x);
	}
	if (!b->nc)
		sb_add(o, "  nothing\n");
	sb_add(o, "differs, not swapped:\n");
	size_t i;
	json_t *v;
	json_array_foreach(b->fixed, i, v) {
		char *g = short_val(jstr(v, "good")), *x = short_val(jstr(v, "bad"));
		sb_addf(o, "  %s: %s -> %s (%s)\n", jstr(v, "what"), g, x, jstr(v, "why"));
		free(g);
		free(x);
	}
	if (!json_array_size(b->fixed))
		sb_add(o, "  nothing\n");
	int rounds = (int)b->nc + bis_rounds;
	long runs = 2L * rounds * b->max_repeats;
	sb_addf(o, "plan: at most %d round%s (%zu component%s, then %d of commit bisection), %d pair%s of runs a round "
		   "(up to %d while inconclusive): at most %ld runs, %.4g GPU-hours%s%s\n",
		rounds, rounds == 1 ? "" : "s", b->nc, b->nc == 1 ? "" : "s", bis_rounds, b->repeats, b->repeats == 1 ? "" : "s",
		b->max_repeats, runs, runs * b->run_gh, b->nodes ? ", on " : "", b->nodes ? b->nodes : "");
	if (b->max_gh > 0)
		sb_addf(o, "limit: BISECT_MAX_GPU_HOURS=%g\n", b->max_gh);
	if (b->max_steps)
		sb_addf(o, "shorter runs, both sides: MAX_STEPS=%s\n", b->max_steps);
}

/* ---- the bisection ------------------------------------------------------------ */

static json_t *
culprit_of(struct bis *b, const struct comp *c, const char *commit, const json_t *r)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:O, s:O, s:O}", "component",
			      c->kind == C_PIN ? "repository" : c->kind == C_KNOB ? "run knob" : c->kind == C_IMAGE ? "image" : "environment", "name", c->name,
			      "good", c->good ? c->good : "unset", "bad", c->bad ? c->bad : "unset", "a", json_object_get(r, "a"), "b",
			      json_object_get(r, "b"), "effect", json_object_get(r, "effect"));
	if (commit) {
		json_object_set_new(o, "commit", json_string(commit));
		char *s = subject_of(b, c->name, commit);
		json_object_set_new(o, "subject", json_string(s ? s : ""));
		free(s);
	}
	return o;
}

static int
bisect_run(struct bis *b, json_t *res)
{
	int code = BX_NONE;
	const char *why = "no single swapped component made the runs slower";
	json_t *r = NULL, *culprit = NULL, *inc = NULL;
	for (size_t i = 0; i < b->nc && !culprit && code == BX_NONE; i++) {
		struct comp *c = &b->c[i];
		char *g = short_val(c->good), *x = short_val(c->bad);
		char *what = xasprintf("%s %s -> %s", c->name, g, x), *lb = xasprintf("%s=%s", c->name, x);
		int d = round_run(b, what, (int)i, NULL, NULL, "good", lb, &r);
		free(g);
		free(x);
		free(what);
		free(lb);
		if (d == D_SAME)
			continue;
		if (d != D_SLOWER) {
			code = d == D_BUDGET ? BX_BUDGET : d == D_ERROR ? BX_ERROR : BX_INCONCLUSIVE;
			inc = r;
			break;
		}
		if (c->kind != C_PIN || c->ncommits <= 2) {
			culprit = culprit_of(b, c, c->kind == C_PIN ? c->bad : NULL, r);
			break;
		}
		/* commits[lo] is as fast as good, commits[hi] slower */
		size_t lo = 0, hi = c->ncommits - 1;
		const json_t *last = r;
		while (hi - lo > 1 && code == BX_NONE) {
			size_t mid = lo + (hi - lo) / 2;
			char *what2 = xasprintf("%s %.7s vs %.7s (%zu commits left)", c->name, c->commits[lo], c->commits[mid], hi - lo);
			char *la = xasprintf("%.7s", c->commits[lo]), *lb2 = xasprintf("%.7s", c->commits[mid]);
			int d2 = round_run(b, what2, (int)i, c->commits[lo], c->commits[mid], la, lb2, &r);
			free(what2);
			free(la);
			free(lb2);
			if (d2 == D_SLOWER)
				hi = mid, last = r;
			else if (d2 == D_SAME)
				lo = mid;
			else
				code = d2 == D_BUDGET ? BX_BUDGET : d2 == D_ERROR ? BX_ERROR : BX_INCONCLUSIVE, inc = r;
		}
		if (code == BX_NONE)
			culprit = culprit_of(b, c, c->commits[hi], last);
		else
			json_object_set_new(res, "range", json_pack("{s:s, s:s, s:s, s:I}", "repository", c->name, "good", c->commits[lo],
								   "bad", c->commits[hi], "commits", (json_int_t)(hi - lo)));
	}
	if (culprit) {
		code = BX_CULPRIT;
		json_object_set_new(res, "culprit", culprit);
	}
	if (code == BX_INCONCLUSIVE) {
		why = "a round stayed inconclusive after the repeats allowed";
		if (json_object_get(inc, "needed_pairs"))
			json_object_set(res, "needed_pairs", json_object_get(inc, "needed_pairs"));
	} else if (code == BX_BUDGET) {
		why = "BISECT_MAX_GPU_HOURS would be exceeded by the next round";
	} else if (code == BX_ERROR) {
		why = "a run failed";
	}
	static const char *const outcome[] = {"culprit", "none", "error", "stopped", "inconclusive"};
	json_object_set_new(res, "outcome", json_string(outcome[code]));
	if (code != BX_CULPRIT)
		json_object_set_new(res, "why", json_string(why));
	return code;
}

static void
result_text(const json_t *res, struct sb *o, int rounds)
{
	const json_t *c = json_object_get(res, "culprit");
	const char *out = jstr(res, "outcome");
	size_t runs = 0, i;
	json_t *r;
	json_array_foreach(json_object_get(res, "rounds"), i, r) {
		runs += json_array_size(json_object_get(r, "runs"));
		if (rounds)
			round_text(r, o);
	}
	if (c) {
		bisect_culprit_text(o, c, "");
	} else {
		sb_addf(o, "%s: %s", !strcmp(out, "none") ? "NO CULPRIT" : !strcmp(out, "stopped") ? "STOPPED" : !strcmp(out, "error") ? "ERROR" : "INCONCLUSIVE",
			jstr(res, "why"));
		if (json_object_get(res, "needed_pairs"))
			sb_addf(o, "; it would need about %lld pairs of runs a round (BISECT_MAX_REPEATS)",
				(long long)json_integer_value(json_object_get(res, "needed_pairs")));
		sb_add(o, "\n");
		const json_t *rg = json_object_get(res, "range");
		if (rg)
			sb_addf(o, "  learned: %s between %.12s (as good) and %.12s (slower), %lld commits\n", jstr(rg, "repository"),
				jstr(rg, "good"), jstr(rg, "bad"), (long long)json_integer_value(json_object_get(rg, "commits")));
	}
	sb_addf(o, "bisection: %zu round%s, %zu runs, %.4g GPU-hours\n", json_array_size(json_object_get(res, "rounds")),
		json_array_size(json_object_get(res, "rounds")) == 1 ? "" : "s", runs,
		json_number_value(json_object_get(res, "gpu_hours")));
}

static int
write_text(const char *path, const char *txt)
{
	if (write_file_atomic(path, txt, strlen(txt)) < 0) {
		fprintf(stderr, "llmb bisect: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The run's GPU type, size, dtype and scale from its run directory's name
 * (<gpu>_<size>_<dtype>_<scale>); the caller's selection wins. */
static int
run_key(struct bis *b)
{
	const char *run = jstr(b->bad, "configuration.run");
	char name[256];
	snprintf(name, sizeof name, "%.*s", (int)strcspn(run, "/"), run);
	char *u1 = strchr(name, '_'), *u2 = u1 ? strchr(u1 + 1, '_') : NULL, *ul = strrchr(name, '_');
	if (!u2 || ul <= u2) {
		fprintf(stderr, "%s:1:1: error: configuration.run %s names no <gpu>_<size>_<dtype>_<scale>\n", b->bad_path, run);
		return -1;
	}
	*u1 = *u2 = *ul = 0;
	const char *e;
	snprintf(b->gpu, sizeof b->gpu, "%s", (e = getenv("GPU_TYPE")) && *e ? e : name);
	snprintf(b->size, sizeof b->size, "%s", (e = getenv("SIZE")) && *e ? e : u1 + 1);
	snprintf(b->dtype, sizeof b->dtype, "%s", (e = getenv("DTYPE")) && *e ? e : u2 + 1);
	snprintf(b->scale, sizeof b->scale, "%s", ul + 1);
	b->wl = jstr(b->bad, "configuration.workload");
	return 0;
}

static int
bisect_main(struct bis *b)
{
	policy_defaults(&b->pol);
	if (b->policy_path && policy_load(b->policy_path, &b->pol))
		return BX_ERROR;
	if (!(b->good = load_side(b, b->good_arg, &b->good_path)) || !(b->bad = load_side(b, b->bad_arg, &b->bad_path)))
		return BX_ERROR;
	if (strcmp(jstr(b->good, "configuration.workload"), jstr(b->bad, "configuration.workload"))) {
		fprintf(stderr, "llmb bisect: error: GOOD is a run of %s, BAD of %s: one configuration is bisected\n",
			jstr(b->good, "configuration.workload"), jstr(b->bad, "configuration.workload"));
		return BX_ERROR;
	}
	/* the run directory's name is the configuration (<gpu>_<size>_<dtype>_<scale>) */
	const char *rg = jstr(b->good, "configuration.run"), *rb = jstr(b->bad, "configuration.run");
	if (strcspn(rg, "/") != strcspn(rb, "/") || strncmp(rg, rb, strcspn(rg, "/"))) {
		fprintf(stderr, "%s:1:1: error: configuration.run %.*s, the good run's %.*s: one configuration is bisected\n",
			b->bad_path, (int)strcspn(rb, "/"), rb, (int)strcspn(rg, "/"), rg);
		return BX_ERROR;
	}
	if (run_key(b))
		return BX_ERROR;
	if (getenv("MAX_STEPS") && *getenv("MAX_STEPS"))
		b->max_steps = xstrdup(getenv("MAX_STEPS"));
	const char *nodes = jstr(b->bad, "machine.nodes"), *ex = getenv("EXECUTOR");
	if (nodes && ex && !strcmp(ex, "slurm"))
		b->nodes = xstrdup(nodes);
	b->fixed = json_array();
	differences(b);
	/* the id: what is compared, so the same command resumes */
	struct sb key = {0};
	sb_addf(&key, "%s %s %s %s %s %d %d %s", jstr0(b->good, "machine.job"), jstr0(b->bad, "machine.job"),
		jstr0(b->good, "configuration.config_hash"), jstr0(b->bad, "configuration.config_hash"), b->scale,
		b->repeats, b->max_repeats, b->max_steps ? b->max_steps : "");
	char h[65];
	sha256_hex(key.buf, key.len, h);
	sb_free(&key);
	snprintf(b->id, sizeof b->id, "%.12s", h);
	b->dir = layout_bisect(b->install, b->id);
	b->run_gh = confirm_gpu_hours(b->bad_path, atol(b->scale));
	if (!(b->run_gh >= 0))
		b->run_gh = 0;
	struct sb o = {0};
	plan_text(b, &o);
	fputs(o.buf, stdout);
	fflush(stdout);
	if (make_dry_run() || !*b->make_argv) {
		sb_free(&o);
		return 0;
	}
	if (mkdir_p(b->dir, 0)) {
		fprintf(stderr, "llmb bisect: cannot create %s: %s\n", b->dir, strerror(errno));
		sb_free(&o);
		return BX_ERROR;
	}
	b->rounds = json_array();
	/* absolute, so that llmb diff finds the bisection from anywhere */
	char *gabs = realpath(b->good_path, NULL), *babs = realpath(b->bad_path, NULL);
	json_t *res = json_pack("{s:i, s:s, s:s, s:s, s:s, s:O}", "v", 1, "id", b->id, "workload", b->wl, "good",
				gabs ? gabs : b->good_path, "bad", babs ? babs : b->bad_path, "not_swapped", b->fixed);
	free(gabs);
	free(babs);
	int code = bisect_run(b, res);
	json_object_set(res, "rounds", b->rounds);
	json_object_set_new(res, "gpu_hours", json_real(b->spent));
	json_object_set_new(res, "label", json_string("bisection runs: not nights, never a baseline"));
	struct sb t = {0};
	result_text(res, &t, 0);
	/* the rounds were printed as they were decided */
	fputs(t.buf, stdout);
	sb_reset(&t);
	result_text(res, &t, 1);
	char *jp = layout_in(b->dir, LAYOUT_BISECT_JSON), *tp = layout_in(b->dir, LAYOUT_BISECT_TEXT);
	char *js = json_dumps(res, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(8)), *jl = xasprintf("%s\n", js);
	sb_add(&o, t.buf);
	if (write_text(jp, jl) || write_text(tp, o.buf))
		code = BX_ERROR;
	free(js);
	free(jl);
	free(jp);
	free(tp);
	sb_free(&t);
	sb_free(&o);
	json_decref(res);
	return code;
}

static void
bis_free(struct bis *b)
{
	for (size_t i = 0; i < b->nc; i++) {
		for (size_t j = 0; j < b->c[i].ncommits; j++)
			free(b->c[i].commits[j]);
		free(b->c[i].commits);
		free(b->c[i].name);
		free(b->c[i].good);
		free(b->c[i].bad);
	}
	free(b->c);
	json_decref(b->good);
	json_decref(b->bad);
	json_decref(b->fixed);
	json_decref(b->rounds);
	free(b->good_path);
	free(b->bad_path);
	free(b->nodes);
	free(b->max_steps);
	free(b->dir);
}

/* A whole number from lo to hi, in decimal digits only. */
static int
whole_arg(const char *s, int lo, int hi, int *out)
{
	size_t n = strlen(s);
	if (!n || n > 4 || s[strspn(s, "0123456789")])
		return -1;
	int v = atoi(s);
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int
bisect_gpu_hours(const char *s, double *out)
{
	/* decimal digits and a point: no sign, exponent, hex, inf or nan */
	char *end;
	if (!*s || s[strspn(s, "0123456789.")] || strchr(s, '.') != strrchr(s, '.'))
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !(v > 0 && v <= 1e9))
		return -1;
	*out = v;
	return 0;
}

int
cmd_bisect(int argc, char **argv)
{
	static const char usage[] =
		"usage: llmb bisect [--top DIR] [--install DIR] [--policy FILE] --good=A --bad=B [--repeats=N]\n"
		"                   [--max-repeats=N] [--max-gpu-hours=H] [-- MAKE-COMMAND...]\n"
		"What `make bisect` runs. A and B: a night (YYYY-MM-DD: the selected workload's run of that night),\n"
		"a run directory or its provenance.json. Lists what differs, then runs MAKE-COMMAND for each\n"
		"A/B run (runs under experiments/bisect/<id>/, on the bad run's nodes), swapping one component\n"
		"at a time and bisecting a repository's commits; each round decided with the nightly policy's\n"
		"min_effect and alpha (FILE, default none: the judge's defaults). Without MAKE-COMMAND, or\n"
		"under make -n, prints the plan only. Writes INSTALL/bisect/<id>/bisect.json and bisect.txt.\n"
		"Exit status: 0 a culprit, 1 none found, 2 error, 3 stopped by --max-gpu-hours, 4 inconclusive.\n";
	struct bis b = {.top = ".", .install = layout_install_root(getenv(LAYOUT_INSTALL_VAR)), .repeats = 1,
		.max_repeats = 3};
	/* each option once: a second would silently replace the first */
	const char *seen[128] = {0};
	static const struct option longopts[] = {
		{"top", required_argument, NULL, 't'}, {"install", required_argument, NULL, 'i'},
		{"policy", required_argument, NULL, 'p'}, {"good", required_argument, NULL, 'g'},
		{"bad", required_argument, NULL, 'b'}, {"repeats", required_argument, NULL, 'r'},
		{"max-repeats", required_argument, NULL, 'm'}, {"max-gpu-hours", required_argument, NULL, 'G'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *text, *rep = NULL, *maxrep = NULL, *maxgh = NULL;
	int c;
	cliopt_start();
	while ((c = cliopt_next(argc, argv, "", longopts, &text)) != -1) {
		if (c > 0 && c < 128 && c != 'h' && c != '?' && seen[c]) {
			fprintf(stderr, "llmb bisect: error: %s given twice (first %s)\n%s", text, seen[c], usage);
			return BX_ERROR;
		}
		if (c > 0 && c < 128)
			seen[c] = text;
		switch (c) {
		case 'h': fputs(usage, stdout); return 0;
		case 't': b.top = optarg; break;
		case 'i': b.install = layout_install_root(optarg); break;
		case 'p': b.policy_path = optarg; break;
		case 'g': b.good_arg = optarg; break;
		case 'b': b.bad_arg = optarg; break;
		case 'r': rep = optarg; break;
		case 'm': maxrep = optarg; break;
		case 'G': maxgh = optarg; break;
		default: return cliopt_refuse(text, "", longopts, usage);
		}
	}
	if (optind < argc && !cliopt_dashes()) {
		fprintf(stderr, "llmb bisect: error: unexpected argument %s\n%s", argv[optind], usage);
		return BX_ERROR;
	}
	if (rep && whole_arg(rep, 1, 20, &b.repeats)) {
		fprintf(stderr, "llmb bisect: error: --repeats=%s: expected a whole number of pairs from 1 to 20\n", rep);
		return BX_ERROR;
	}
	if (maxrep && whole_arg(maxrep, 1, 50, &b.max_repeats)) {
		fprintf(stderr, "llmb bisect: error: --max-repeats=%s: expected a whole number of pairs from 1 to 50\n", maxrep);
		return BX_ERROR;
	}
	if (maxgh && bisect_gpu_hours(maxgh, &b.max_gh)) {
		fprintf(stderr, "llmb bisect: error: --max-gpu-hours=%s: expected GPU-hours above 0 (a decimal number)\n", maxgh);
		return BX_ERROR;
	}
	if (b.max_repeats < b.repeats)
		b.max_repeats = b.repeats;
	if (!b.good_arg || !b.bad_arg) {
		fprintf(stderr, "llmb bisect: error: give both sides: GOOD= and BAD= (nights, run directories or provenance files)\n");
		return BX_ERROR;
	}
	b.make_argv = argv + optind;
	int rc = bisect_main(&b);
	bis_free(&b);
	return rc;
}

/* The whole environment, copied; and put back, every variable set since
 * unset (the bisection's runs set knobs and variables of any name). */
static char **
env_save(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **v = xcalloc(n + 1, sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = xstrdup(environ[i]);
	return v;
}

static void
env_restore(char **saved)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **names = xcalloc(n + 1, sizeof *names);
	for (size_t i = 0; i < n; i++)
		names[i] = xstrndup(environ[i], strcspn(environ[i], "="));
	for (size_t i = 0; i < n; i++) {
		unsetenv(names[i]);
		free(names[i]);
	}
	free(names);
	for (char **e = saved; *e; e++) {
		char *eq = strchr(*e, '=');
		if (eq) {
			*eq = 0;
			setenv(*e, eq + 1, 1);
		}
		free(*e);
	}
	free(saved);
}

void
bisect_regressions(const char *top, const char *install, const char *policy, const json_t *verdict,
		   char **make_argv, struct sb *summary)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(verdict, "configurations"), i, c) {
		const char *good = jstr(c, "last_good_night"), *bad = jstr(c, "first_bad_night");
		const json_t *key = json_object_get(c, "key");
		if (strcmp(jstr0(c, "state"), "CONFIRMED") || !good || !bad || !json_is_object(key))
			continue;
		char scale[32];
		snprintf(scale, sizeof scale, "%lld", (long long)json_integer_value(json_object_get(key, "scale")));
		char **env = env_save();
		setenv("WORKLOAD", jstr0(key, "workload"), 1);
		setenv("GPU_TYPE", jstr0(key, "gpu"), 1);
		setenv("SIZE", jstr0(key, "size"), 1);
		setenv("DTYPE", jstr0(key, "dtype"), 1);
		setenv("SCALES", scale, 1);
		struct bis b = {.top = top, .install = install, .policy_path = policy, .good_arg = good, .bad_arg = bad,
			.make_argv = make_argv, .repeats = 1, .max_repeats = 3};
		/* checked when the night started (nightly.c) */
		const char *mg = getenv("BISECT_MAX_GPU_HOURS");
		if (mg && *mg && bisect_gpu_hours(mg, &b.max_gh))
			b.max_gh = 0;
		printf("llmb nightly: bisecting %s, nights %s..%s\n", jstr0(c, "fingerprint"), good, bad);
		int code = bisect_main(&b);
		env_restore(env);
		char *jp = b.dir ? layout_in(b.dir, LAYOUT_BISECT_JSON) : NULL;
		json_t *res = jp ? json_load_file(jp, 0, NULL) : NULL;
		sb_addf(summary, "BISECTION %s (nights %s..%s, %s):\n", jstr0(c, "fingerprint"), good, bad,
			b.dir ? b.dir + strlen(install) + 1 : "no bisection");
		if (res)
			result_text(res, summary, 0);
		else
			sb_addf(summary, "ERROR: the bisection did not run (status %d)\n", code);
		json_decref(res);
		free(jp);
		bis_free(&b);
	}
}
