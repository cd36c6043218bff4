/* nightmatrix: loading and narrowing the nightly matrix (see the header). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/schema.h"
#include "base/util.h"
#include "base/yamlload.h"
#include "plan/nightmatrix.h"

static const struct ytype t_names = {T_NAMES, 0, 0, 0}, t_int = {T_INT, 0, 0, 0},
	t_str = {T_STR, 0, 0, 0}, t_bool = {T_BOOL, 0, 0, 0};
static const struct ytype t_ints = {T_LIST, &t_int, 0, 0};
/* The keys of an entry, in the order of the selection variables. */
static const struct field entry_fields[] = {
	{"workload", &t_names, 1, "workload(s) of the entry"},
	{"size", &t_names, 0, "model size(s); default: every size of the recipe"},
	{"dtype", &t_names, 0, "dtype(s); default: every dtype"},
	{"gpu", &t_names, 0, "GPU type(s); default: the workload's only one"},
	{"scales", &t_ints, 0, "scales; default: every configured scale"},
	{NULL},
};
static const struct ytype t_entry = {T_OBJ, 0, entry_fields, 0};
static const struct ytype t_entries = {T_LIST, &t_entry, 0, 0};
static const struct field top_fields[] = {
	{"description", &t_str, 0, "what the matrix is for"},
	{"repeats", &t_int, 0, "runs of each configuration per night (default 1)"},
	{"matrix", &t_entries, 1, "the selections run each night"},
	{"confirm_elsewhere", &t_bool, 0, "a SUSPECT night runs its configuration once more without its nodes (Slurm; default false)"},
	{"bisect_on_regression", &t_bool, 0, "a CONFIRMED regression is bisected between its last good and first bad night (default false)"},
	{NULL},
};
static const struct ytype t_top = {T_OBJ, 0, top_fields, 0};

/* The value of a T_NAMES or list node as space-separated words. */
static char *
words_of(const struct ynode *v)
{
	if (!v)
		return NULL;
	if (v->kind == Y_SCALAR)
		return xstrdup(v->str);
	struct sb s = {0};
	for (size_t i = 0; i < v->nkids; i++)
		sb_addf(&s, "%s%s", i ? " " : "", v->kids[i]->str);
	return s.buf ? sb_steal(&s) : xstrdup("");
}

int
nmatrix_load(const char *path, struct nmatrix *m)
{
	int before = diag_errors;
	memset(m, 0, sizeof *m);
	m->repeats = 1;
	struct ydoc *d = yaml_load_file(path);
	if (!d)
		return diag_errors - before ? diag_errors - before : 1;
	const struct ynode *root = d->root;
	/* nightly: is the judge's policy; it only has to be a mapping here. */
	struct ynode copy = *root;
	struct ynode *kids[64];
	copy.nkids = 0;
	copy.kids = kids;
	for (size_t i = 0; root->kind == Y_MAP && i < root->nkids && copy.nkids < 64; i += 2) {
		const struct ynode *k = root->kids[i], *v = root->kids[i + 1];
		if (!strcmp(k->str, "nightly")) {
			if (v->kind != Y_MAP)
				diag_error(path, v->line, v->col, "'nightly' must be a mapping (the verdict policy)");
			continue;
		}
		kids[copy.nkids++] = root->kids[i];
		kids[copy.nkids++] = root->kids[i + 1];
	}
	if (d->errors || schema_check(path, &copy, &t_top) || diag_errors > before) {
		ydoc_free(d);
		return diag_errors - before ? diag_errors - before : 1;
	}
	m->confirm_elsewhere = ymap_get(root, "confirm_elsewhere") && !strcmp(ymap_get(root, "confirm_elsewhere")->str, "true");
	m->bisect_on_regression = ymap_get(root, "bisect_on_regression") &&
				  !strcmp(ymap_get(root, "bisect_on_regression")->str, "true");
	m->repeats = ymap_get(root, "repeats") ? strtol(ymap_get(root, "repeats")->str, NULL, 10) : 1;
	if (m->repeats < 1 || m->repeats > 99) {
		const struct ynode *r = ymap_get(root, "repeats");
		diag_error(path, r->line, r->col, "repeats must be between 1 and 99");
	}
	const struct ynode *mx = ymap_get(root, "matrix");
	m->entry = xcalloc(mx->nkids ? mx->nkids : 1, sizeof *m->entry);
	for (size_t i = 0; i < mx->nkids; i++) {
		for (int k = 0; k < NM_VARS; k++)
			m->entry[i][k] = words_of(ymap_get(mx->kids[i], entry_fields[k].key));
	}
	m->n = mx->nkids;
	if (!m->n)
		diag_error(path, mx->line, mx->col, "the matrix is empty");
	ydoc_free(d);
	return diag_errors - before;
}

/* Words of a that b also has; NULL stands for every value. *empty when
 * nothing is left. */
static char *
intersect(const char *a, const char *b, int *empty)
{
	if (!a || !b)
		return a ? xstrdup(a) : b ? xstrdup(b) : NULL;
	struct sb s = {0};
	const char *p = a;
	for (size_t n; (n = list_word(&p)); p += n)
		if (list_has(b, p, n))
			sb_addf(&s, "%s%.*s", s.len ? " " : "", (int)n, p);
	if (!s.len)
		*empty = 1;
	return s.buf ? sb_steal(&s) : xstrdup("");
}

void
nmatrix_narrow(struct nmatrix *m, const char *const cmd[NM_VARS])
{
	size_t keep = 0;
	for (size_t i = 0; i < m->n; i++) {
		int empty = 0;
		for (int k = 0; k < NM_VARS; k++) {
			char *v = intersect(m->entry[i][k], cmd[k], &empty);
			free(m->entry[i][k]);
			m->entry[i][k] = v;
		}
		if (empty) {
			for (int k = 0; k < NM_VARS; k++)
				free(m->entry[i][k]);
			continue;
		}
		memmove(m->entry[keep++], m->entry[i], sizeof *m->entry);
	}
	m->n = keep;
}

void
nmatrix_free(struct nmatrix *m)
{
	for (size_t i = 0; i < m->n; i++)
		for (int k = 0; k < NM_VARS; k++)
			free(m->entry[i][k]);
	free(m->entry);
	memset(m, 0, sizeof *m);
}

int
night_valid(const char *s)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int y, mo, d, n = 0;
	if (!s || strlen(s) != 10 || strspn(s, "0123456789-") != 10 || s[4] != '-' || s[7] != '-' ||
	    sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10)
		return 0;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1])
		return 0;
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return !(mo == 2 && d == 29 && !leap);
}
