/* sweepfile: a sweep file's `overrides:`, or upstream's bulk header and
 * task, into the selection's knobs (see sweepfile.h). Only the shape is
 * checked here: each value's meaning is check_knobs' and ovr_check's, as
 * for the command line. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/util.h"
#include "base/yamlload.h"
#include "plan/sweepfile.h"

/* The knob a key names (lowercase, as upstream's bulk YAML), or -1. ENV
 * is left out: its K=V pairs are not a list of alternatives. */
static int
knob_of(const char *key)
{
	for (int k = K_TP; k < K_ENV; k++) {
		const char *n = knob_names[k];
		size_t i = 0;
		while (n[i] && key[i] && tolower((unsigned char)n[i]) == key[i])
			i++;
		if (!n[i] && !key[i])
			return k;
	}
	return -1;
}

/* One value: a non-empty scalar of one word (the knobs' lists are
 * space-separated). */
static int
word_ok(const char *f, const struct ynode *v, const char *key)
{
	if (v->kind != Y_SCALAR) {
		diag_error(f, v->line, v->col, "%s: a value must be a scalar, not %s", key, ykind_name(v->kind));
		return 0;
	}
	if (!*v->str || v->str[strcspn(v->str, " \t\n\r")]) {
		diag_error(f, v->line, v->col, "%s: '%s' must be one word, not empty and without spaces", key, v->str);
		return 0;
	}
	return 1;
}

/* What the file sets: values one after the other in vals, each knob's at
 * off[knob]; s points into vals once the whole file is read. */
struct acc {
	const char *path;
	const struct sel *cmd;      /* the command line's knobs */
	struct sb vals;
	size_t off[K_NKNOBS];
	int set[K_NKNOBS];
};

/* Knob kn from v (a word, or a list of words: the knob's alternatives),
 * unless the command line or the file sets it already. */
static void
put(struct acc *a, int kn, const struct ynode *k, const struct ynode *v)
{
	if (a->cmd->v[kn]) {
		diag_error(a->path, k->line, k->col, "%s is also given as %s=%s on the command line: give it in one place",
			   k->str, knob_names[kn], a->cmd->v[kn]);
		return;
	}
	if (a->set[kn]) {
		diag_error(a->path, k->line, k->col, "%s: %s is set twice in the file", k->str, knob_names[kn]);
		return;
	}
	size_t start = a->vals.len;
	int ok = 1;
	if (v->kind == Y_SEQ) {
		if (!v->nkids) {
			diag_error(a->path, v->line, v->col, "%s: the list of values is empty", k->str);
			ok = 0;
		}
		for (size_t j = 0; j < v->nkids; j++) {
			if (word_ok(a->path, v->kids[j], k->str))
				sb_addf(&a->vals, "%s%s", j ? " " : "", v->kids[j]->str);
			else
				ok = 0;
		}
	} else if (word_ok(a->path, v, k->str)) {
		sb_add(&a->vals, v->str);
	} else {
		ok = 0;
	}
	if (!ok) {
		a->vals.len = start;
		return;
	}
	sb_addn(&a->vals, "", 1); /* the value's terminator */
	a->off[kn] = start;
	a->set[kn] = 1;
}

/* env: a mapping of variables to one-word values, added to *env as K=V,
 * but for the names skip (a mapping, or NULL) holds. */
static void
env_words(struct acc *a, const struct ynode *m, const struct ynode *skip, struct sb *env)
{
	if (m->kind != Y_MAP) {
		diag_error(a->path, m->line, m->col, "env: a mapping of variables to values, not %s", ykind_name(m->kind));
		return;
	}
	for (size_t i = 0; i < ymap_len(m); i++)
		if ((!skip || skip->kind != Y_MAP || !ymap_get(skip, ymap_key(m, i)->str)) &&
		    word_ok(a->path, ymap_val(m, i), ymap_key(m, i)->str))
			sb_addf(env, "%s%s=%s", env->len ? " " : "", ymap_key(m, i)->str, ymap_val(m, i)->str);
}

/* Override knobs (tp, mbs, ...) to a value or a list of values; with
 * fill, only those not set yet (upstream's defaults.params). */
static void
knobs(struct acc *a, const struct ynode *ov, int fill)
{
	if (ov->kind != Y_MAP) {
		diag_error(a->path, ov->line, ov->col, "a mapping of knobs (tp, mbs, ...) to values, not %s",
			   ykind_name(ov->kind));
		return;
	}
	for (size_t i = 0; i < ymap_len(ov); i++) {
		const struct ynode *k = ymap_key(ov, i), *v = ymap_val(ov, i);
		int kn = knob_of(k->str);
		if (kn < 0)
			diag_error(a->path, k->line, k->col, "'%s' is not an override knob (tp pp cp vp ep etp mbs gbs "
				   "fp8_recipe config_variant cuda_graph_scope)", k->str);
		else if (!fill || !a->set[kn])
			put(a, kn, k, v);
	}
}

/* A true/false of a bulk task into knob kn: yes, or unset when false. */
static void
put_flag(struct acc *a, int kn, const struct ynode *k, const struct ynode *v, const char *yes)
{
	if (v->kind != Y_SCALAR || (strcmp(v->str, "true") && strcmp(v->str, "false"))) {
		diag_error(a->path, v->line, v->col, "%s: true or false", k->str);
		return;
	}
	if (!strcmp(v->str, "true")) {
		struct ynode w = *v;
		w.str = (char *)yes;
		put(a, kn, k, &w);
	}
}

/* Unknown keys of a bulk header (lvl 0) or task (1), each said. */
static void
bulk_keys(struct acc *a, const struct ynode *m, int lvl)
{
	static const char *const known[2][8] = {{"tasks", "dtypes", "scales", "repeats", "defaults", NULL},
						{"dtypes", "scales", "repeats", "profile", "proxy", "overrides", NULL}};
	for (size_t i = 0; i < ymap_len(m); i++) {
		const struct ynode *k = ymap_key(m, i);
		const char *const *ok = known[lvl];
		while (*ok && strcmp(*ok, k->str))
			ok++;
		if (!strcmp(k->str, "add_profile"))
			diag_error(a->path, k->line, k->col, "add_profile: llmb plans one selection a make: "
				   "run the profiled one apart (profile: true, or ENABLE_PROFILE=1)");
		else if (!*ok)
			diag_error(a->path, k->line, k->col, "unknown key '%s' in a bulk %s (expected %s)", k->str,
				   lvl ? "task" : "header", lvl ? "dtypes, scales, repeats, profile, proxy, overrides"
				   : "tasks, dtypes, scales, repeats, defaults");
	}
}

/* Upstream's bulk shape (llmb-run submit -f, task_loader.py): one header
 * <type>_<workload>_<size> holding tasks, of which llmb plans one
 * selection, so one task: its dtypes, scales and repeats over the
 * header's, profile, proxy, overrides.params (the knobs; a list sweeps)
 * and overrides.env over defaults.params and defaults.env. */
static void
bulk(struct acc *a, const struct ynode *hk, const struct ynode *h, struct sb *env)
{
	const char *u1 = strchr(hk->str, '_'), *u2 = strrchr(hk->str, '_');
	size_t n = strlen(hk->str);
	if (!u1 || u1 == u2 || u1 == hk->str || u2 == u1 + 1 || !isdigit((unsigned char)u2[1]) ||
	    (hk->str[n - 1] != 'b' && hk->str[n - 1] != 't')) {
		diag_error(a->path, hk->line, hk->col, "'%s' is not a bulk header <type>_<workload>_<size> "
			   "(pretrain_llama3.1_8b), nor overrides or description", hk->str);
		return;
	}
	if (h->kind != Y_MAP) {
		diag_error(a->path, h->line, h->col, "%s: a mapping with tasks", hk->str);
		return;
	}
	const struct ynode *tasks = ymap_get(h, "tasks");
	if (!tasks || tasks->kind != Y_SEQ || tasks->nkids != 1 || tasks->kids[0]->kind != Y_MAP) {
		const struct ynode *at = tasks ? tasks : hk;
		diag_error(a->path, at->line, at->col, "%s: tasks must be a list of one task: llmb plans one selection "
			   "a make (its sweep, the cartesian product of its overrides); give each other task its own file", hk->str);
		return;
	}
	const struct ynode *t = tasks->kids[0], *v, *k;
	bulk_keys(a, h, 0);
	bulk_keys(a, t, 1);
	/* the workload by its name (its recipe's type is the prefix), the size */
	struct ynode w = *hk;
	char *name = xstrndup(u1 + 1, (size_t)(u2 - u1 - 1)), *size = xstrdup(u2 + 1);
	w.str = name;
	put(a, K_WORKLOAD, hk, &w);
	w.str = size;
	put(a, K_SIZE, hk, &w);
	free(name);
	free(size);
	static const char *const sel[] = {"dtypes", "scales", "repeats"};
	for (size_t i = 0; i < 3; i++) {
		const struct ynode *m = ymap_get(t, sel[i]) ? t : h;
		for (size_t j = 0; j < ymap_len(m); j++) {
			k = ymap_key(m, j);
			v = ymap_val(m, j);
			if (strcmp(k->str, sel[i]))
				continue;
			if (i == 2 && (v->kind != Y_SCALAR || strcmp(v->str, "1")))
				diag_error(a->path, v->line, v->col, "repeats: llmb runs each configuration once a make "
					   "(a run that is done is not run again): 1, or leave it out");
			else if (i < 2)
				put(a, i ? K_SCALES : K_DTYPE, k, v);
		}
	}
	for (size_t j = 0; j < ymap_len(t); j++) {
		k = ymap_key(t, j);
		v = ymap_val(t, j);
		if (!strcmp(k->str, "profile"))
			put_flag(a, K_ENABLE_PROFILE, k, v, "true");
		else if (!strcmp(k->str, "proxy"))
			put_flag(a, K_PROXY, k, v, "only");
	}
	const struct ynode *ov = ymap_get(t, "overrides"), *df = ymap_get(h, "defaults");
	const struct ynode *oenv = NULL;
	if (ov && ov->kind != Y_MAP)
		diag_error(a->path, ov->line, ov->col, "overrides: a mapping with params and env");
	else if (ov)
		for (size_t j = 0; j < ymap_len(ov); j++) {
			k = ymap_key(ov, j);
			v = ymap_val(ov, j);
			if (!strcmp(k->str, "params"))
				knobs(a, v, 0);
			else if (!strcmp(k->str, "env"))
				env_words(a, oenv = v, NULL, env);
			else
				diag_error(a->path, k->line, k->col, "unknown key '%s' in overrides (expected params, env)", k->str);
		}
	if (df && df->kind != Y_MAP)
		diag_error(a->path, df->line, df->col, "defaults: a mapping with params and env");
	else if (df)
		for (size_t j = 0; j < ymap_len(df); j++) {
			k = ymap_key(df, j);
			v = ymap_val(df, j);
			if (!strcmp(k->str, "params"))
				knobs(a, v, 1);
			else if (!strcmp(k->str, "env"))
				env_words(a, v, oenv, env);
			else
				diag_error(a->path, k->line, k->col, "unknown key '%s' in defaults (expected params, env)", k->str);
		}
}

int
sweep_file_apply(struct sel *s, const char *path, char **owned)
{
	int before = diag_errors;
	*owned = NULL;
	struct ydoc *d = yaml_load_file(path);
	if (!d)
		return diag_errors - before ? diag_errors - before : 1;
	const struct ynode *r = d->root, *ov = NULL, *hk = NULL;
	if (d->errors) {
		ydoc_free(d);
		return diag_errors - before ? diag_errors - before : 1;
	}
	if (r->kind != Y_MAP) {
		diag_error(path, r->line, r->col, "a sweep file is a mapping with 'overrides:', or upstream's bulk header");
		ydoc_free(d);
		return diag_errors - before;
	}
	struct acc a = {.path = path, .cmd = s};
	struct sb env = {0};
	ov = ymap_get(r, "overrides"); /* llmb's shape; else upstream's bulk header */
	for (size_t i = 0; i < ymap_len(r); i++) {
		const struct ynode *k = ymap_key(r, i);
		if (!strcmp(k->str, "overrides") || !strcmp(k->str, "description"))
			continue;
		else if (ov)
			diag_error(path, k->line, k->col, "unknown key '%s' (expected overrides, description)", k->str);
		else if (hk)
			diag_error(path, k->line, k->col, "a second bulk header '%s': llmb plans one selection a make; "
				   "give it a file of its own", k->str);
		else
			bulk(&a, hk = k, ymap_val(r, i), &env);
	}
	if (!hk && (!ov || ov->kind != Y_MAP || !ymap_len(ov))) {
		const struct ynode *at = ov ? ov : r;
		diag_error(path, at->line, at->col, "'overrides' must be a mapping of knobs (tp, mbs, ...) to values");
	} else if (ov)
		knobs(&a, ov, 0);
	/* ENV takes the K=V words as one value, as on the command line */
	if (env.len && s->v[K_ENV])
		diag_error(path, hk->line, hk->col, "env is also given as ENV=%s on the command line: give it in one place",
			   s->v[K_ENV]);
	else if (env.len) {
		a.off[K_ENV] = a.vals.len;
		a.set[K_ENV] = 1;
		sb_addn(&a.vals, env.buf, env.len + 1);
	}
	sb_free(&env);
	ydoc_free(d);
	if (diag_errors > before) {
		sb_free(&a.vals);
		return diag_errors - before;
	}
	/* the buffer holds every value: s points into it once it is complete */
	for (int k = 0; k < K_NKNOBS; k++)
		if (a.set[k])
			s->v[k] = a.vals.buf + a.off[k];
	*owned = a.vals.buf;
	return 0;
}
