/* sweepfile: a sweep file's `overrides:` into the selection's override
 * knobs (see sweepfile.h). Only the shape is checked here: each value's
 * meaning is ovr_check's, as for the command line. */
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

int
sweep_file_apply(struct sel *s, const char *path, char **owned)
{
	int before = diag_errors;
	*owned = NULL;
	struct ydoc *d = yaml_load_file(path);
	if (!d)
		return diag_errors - before ? diag_errors - before : 1;
	const struct ynode *r = d->root, *ov = NULL;
	if (d->errors) {
		ydoc_free(d);
		return diag_errors - before ? diag_errors - before : 1;
	}
	if (r->kind != Y_MAP) {
		diag_error(path, r->line, r->col, "a sweep file is a mapping with 'overrides:'");
		ydoc_free(d);
		return diag_errors - before;
	}
	for (size_t i = 0; i < ymap_len(r); i++) {
		const struct ynode *k = ymap_key(r, i);
		if (!strcmp(k->str, "overrides"))
			ov = ymap_val(r, i);
		else if (strcmp(k->str, "description"))
			diag_error(path, k->line, k->col, "unknown key '%s' (expected overrides, description)", k->str);
	}
	if (!ov || ov->kind != Y_MAP || !ymap_len(ov)) {
		const struct ynode *at = ov ? ov : r;
		diag_error(path, at->line, at->col, "'overrides' must be a mapping of knobs (tp, mbs, ...) to values");
		ydoc_free(d);
		return diag_errors - before;
	}
	struct sb vals = {0};
	size_t off[K_NKNOBS];
	int set[K_NKNOBS] = {0};
	for (size_t i = 0; i < ymap_len(ov); i++) {
		const struct ynode *k = ymap_key(ov, i), *v = ymap_val(ov, i);
		int kn = knob_of(k->str);
		if (kn < 0) {
			diag_error(path, k->line, k->col, "'%s' is not an override knob (tp pp cp vp ep etp mbs gbs "
				   "fp8_recipe config_variant cuda_graph_scope)", k->str);
			continue;
		}
		if (s->v[kn]) {
			diag_error(path, k->line, k->col, "%s is also given as %s=%s on the command line: give it in one place",
				   k->str, knob_names[kn], s->v[kn]);
			continue;
		}
		size_t start = vals.len;
		int ok = 1;
		if (v->kind == Y_SEQ) {
			if (!v->nkids) {
				diag_error(path, v->line, v->col, "%s: the list of values is empty", k->str);
				ok = 0;
			}
			for (size_t j = 0; j < v->nkids; j++) {
				if (word_ok(path, v->kids[j], k->str))
					sb_addf(&vals, "%s%s", j ? " " : "", v->kids[j]->str);
				else
					ok = 0;
			}
		} else if (word_ok(path, v, k->str)) {
			sb_add(&vals, v->str);
		} else {
			ok = 0;
		}
		if (ok) {
			sb_addn(&vals, "", 1); /* the value's terminator */
			off[kn] = start;
			set[kn] = 1;
		}
	}
	ydoc_free(d);
	if (diag_errors > before) {
		sb_free(&vals);
		return diag_errors - before;
	}
	/* the buffer holds every value: s points into it once it is complete */
	for (int k = 0; k < K_NKNOBS; k++)
		if (set[k])
			s->v[k] = vals.buf + off[k];
	*owned = vals.buf;
	return 0;
}
