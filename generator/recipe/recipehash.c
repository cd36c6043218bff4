/* recipehash: see recipehash.h. */
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "base/yamlload.h"
#include "recipe/recipehash.h"

/* The tree as unambiguous text (scalars length-prefixed); in a mapping,
 * the value of key skip is left out. */
static void
canon(struct sb *o, const struct ynode *n, const char *skip)
{
	if (n->kind == Y_SCALAR) {
		sb_addf(o, "%zu:%s", strlen(n->str ? n->str : ""), n->str ? n->str : "");
		return;
	}
	sb_add(o, n->kind == Y_SEQ ? "[" : "{");
	for (size_t i = 0; i < n->nkids; i++) {
		const struct ynode *k = n->kids[i];
		canon(o, k, NULL);
		if (n->kind == Y_MAP && k->kind == Y_SCALAR && i + 1 < n->nkids) {
			const struct ynode *v = n->kids[++i];
			if (skip && k->str && !strcmp(k->str, skip))
				sb_add(o, "*");
			else
				canon(o, v, NULL);
		}
	}
	sb_add(o, n->kind == Y_SEQ ? "]" : "}");
}

int
recipe_pins_aside_sha256(const char *path, char hex[65])
{
	struct ydoc *d = yaml_load_file(path);
	if (!d || d->errors || d->root->kind != Y_MAP) {
		ydoc_free(d);
		return -1;
	}
	struct sb o = {0};
	sb_add(&o, "{");
	for (size_t i = 0; i < ymap_len(d->root); i++) {
		const struct ynode *k = ymap_key(d->root, i), *v = ymap_val(d->root, i);
		/* images: {KEY: {ref: ...}}, repositories: {KEY: {commit: ...}} */
		const char *skip = !k->str || v->kind != Y_MAP ? NULL : !strcmp(k->str, "images") ? "ref"
				 : !strcmp(k->str, "repositories") ? "commit" : NULL;
		canon(&o, k, NULL);
		if (!skip) {
			canon(&o, v, NULL);
			continue;
		}
		sb_add(&o, "{");
		for (size_t j = 0; j < ymap_len(v); j++) {
			canon(&o, ymap_key(v, j), NULL);
			canon(&o, ymap_val(v, j), skip);
		}
		sb_add(&o, "}");
	}
	sb_add(&o, "}");
	sha256_hex(o.buf, o.len, hex);
	sb_free(&o);
	ydoc_free(d);
	return 0;
}
