#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/makesafe.h"
#include "base/schema.h"
#include "plan/planbuild.h"
#include "store/layout.h"

/* ---- small helpers ------------------------------------------------------- */

int
in_words(const char *list, const char *w)
{
	if (!list)
		return 1;
	return list_has(list, w, strlen(w));
}

void
var_set(struct vars *vs, const char *name, double v)
{
	for (int i = 0; i < vs->n; i++) {
		if (!strcmp(vs->name[i], name)) {
			vs->val[i] = v;
			return;
		}
	}
	if (vs->n < MAXVARS) {
		vs->name[vs->n] = name;
		vs->val[vs->n++] = v;
	}
}

int
var_get(const struct vars *vs, const char *name, double *v)
{
	for (int i = 0; i < vs->n; i++) {
		if (!strcmp(vs->name[i], name)) {
			*v = vs->val[i];
			return 0;
		}
	}
	return -1;
}

int
var_lookup(void *ctx, const char *name, double *v)
{
	return var_get(ctx, name, v);
}

/* The run's text coordinates are placeholders too. */
static const char *
text_placeholder(const struct vars *vs, const char *name)
{
	if (!strcmp(name, "gpu"))
		return vs->at.gpu;
	if (!strcmp(name, "size"))
		return vs->at.size;
	if (!strcmp(name, "dtype"))
		return vs->at.dtype;
	if (!strcmp(name, "profile_ranks"))
		return vs->profile_ranks;
	if (!strcmp(name, "checkpoint_dir"))
		return vs->checkpoint_dir;
	if (!strcmp(name, "load_checkpoint_path"))
		return vs->load_checkpoint_path;
	return NULL;
}

/* Expands {name} placeholders with run values into out; -1 at an unknown
 * one (runcheck.c said so at its place). */
int
expand_word(const struct ynode *w, const struct vars *vs, struct sb *out)
{
	const char *s = w->str;
	while (*s) {
		const char *o = strchr(s, '{');
		if (!o) {
			sb_add(out, s);
			break;
		}
		sb_addn(out, s, (size_t)(o - s));
		const char *c = strchr(o, '}');
		size_t n = (size_t)(c - o - 1);
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)n, o + 1);
		double v;
		if (layout_path_placeholder(o + 1, n)) {
			sb_addn(out, o, n + 2);
		} else if (text_placeholder(vs, name)) {
			sb_add(out, text_placeholder(vs, name));
		} else if (!var_get(vs, name, &v)) {
			char buf[64];
			fmt_num(buf, sizeof buf, v);
			sb_add(out, buf);
		} else {
			return -1;
		}
		s = c + 1;
	}
	return 0;
}

/* ---- the command of an instance ------------------------------------------ */

const char *
time_limit_for(const struct wctx *w, const struct ynode *stage, const struct ynode *specific, const struct sel *s)
{
	if (s->v[K_TIME_LIMIT])
		return s->v[K_TIME_LIMIT];
	const char *t = specific ? ystr(specific, "time_limit", NULL) : NULL;
	if (!t)
		t = ystr(ymap_get(w->wl, "train"), "time_limit", NULL);
	if (!t)
		t = ystr(stage, "time_limit", NULL);
	return t;
}

void
add_secrets(struct pc_cmd *c, const struct ynode *v)
{
	const struct ynode *const *it, *one;
	size_t n = ynames(v, &it, &one);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < c->nsecrets && strcmp(c->secrets[k], it[i]->str))
			k++;
		if (k == c->nsecrets)
			pc_constv_add(&c->secrets, &c->nsecrets, it[i]->str);
	}
}

void
add_env(struct wctx *w, struct pc_cmd *c, const struct ynode *env, const struct vars *vs)
{
	for (size_t i = 0; i < ymap_len(env); i++) {
		struct sb v = {0};
		sb_addf(&v, "%s=", ymap_key(env, i)->str);
		if (expand_word(ymap_val(env, i), vs, &v) == 0)
			pc_strv_add(&c->env, &c->nenv, sb_steal(&v));
		else
			w->unsaid++;
		sb_free(&v);
	}
}

/* A program or data file of the checkout that a command names
 * ({recipe_dir}/train.py, {top}/workloads/x.py) decides the stage's output
 * as much as its arguments: its content hash joins the configuration, so
 * editing the script re-runs the stages that use it. Hashes are cached:
 * thousands of runs share one script. */
static char *
file_hash(struct wctx *w, const char *workload, const char *word)
{
	const char *rest;
	char *path;
	if (!strncmp(word, "{recipe_dir}/", 13)) {
		rest = word + 13;
		char *wdir = layout_workload(w->p->rec.top, workload);
		path = layout_in(wdir, rest);
		free(wdir);
	} else if (!strncmp(word, "{top}/", 6)) {
		rest = word + 6;
		path = xasprintf("%s/%s", w->p->rec.top, rest);
	} else {
		return NULL;
	}
	if (strchr(rest, '{')) {
		free(path);
		return NULL;
	}
	/* The file becomes a prerequisite in the make rules: a name make
	 * would read as syntax ($, #, %, :, spaces...) is refused (runcheck.c
	 * said so). */
	if (!valid_path(rest) || !mk_word_ok(rest)) {
		w->unsaid++;
		free(path);
		return NULL;
	}
	long k = index_get(&w->p->files, path);
	if (k < 0) {
		size_t len;
		char *data = read_file(path, &len);
		struct plan *p = w->p;
		p->fhash = xrealloc(p->fhash, (p->nfhash + 1) * sizeof *p->fhash);
		if (data)
			sha256_hex(data, len, p->fhash[p->nfhash]);
		else
			snprintf(p->fhash[p->nfhash], sizeof *p->fhash, "missing");
		free(data);
		k = (long)p->nfhash++;
		index_add(&p->files, path, (size_t)k);
	}
	free(path);
	return xstrdup(w->p->fhash[k]);
}

void
add_mounts(struct wctx *w, struct pc_cmd *c, const struct ynode *mounts, const struct vars *vs)
{
	for (size_t i = 0; mounts && i < mounts->nkids; i++) {
		struct sb m = {0};
		if (!expand_word(mounts->kids[i], vs, &m))
			pc_strv_add(&c->mounts, &c->nmounts, sb_steal(&m));
		else
			w->unsaid++;
		sb_free(&m);
	}
}

void
add_argv(struct wctx *w, struct pc_cmd *c, const char *workload, const struct ynode *cmd, const struct vars *vs)
{
	for (size_t i = 0; i < cmd->nkids; i++) {
		struct sb v = {0};
		if (expand_word(cmd->kids[i], vs, &v) == 0) {
			char *word = sb_steal(&v);
			c->args = xrealloc(c->args, (c->nargs + 1) * sizeof *c->args);
			c->args[c->nargs].word = word;
			c->args[c->nargs++].hash = file_hash(w, workload, word);
		} else {
			w->unsaid++;
		}
		sb_free(&v);
	}
}

int
knob_true(const char *v)
{
	return v && parse_bool(v) == 1;
}

const char *
image_ref_for(const struct wctx *w, const char *key, const char *ref)
{
	for (int i = 0; key && i < w->p->sel.nimages; i++)
		if (!strcmp(w->p->sel.image_key[i], key))
			return w->p->sel.image_ref[i];
	return ref;
}
