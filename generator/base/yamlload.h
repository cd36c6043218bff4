/* yamlload: reads one YAML file through libyaml's document API into a small
 * tree that keeps 1-based positions. Rejects what a recipe must not
 * contain before any schema looks at it: syntax errors, empty and
 * multi-document files, aliases (and anchors reused through them), and
 * duplicate mapping keys. */
#ifndef LLMB_YAMLLOAD_H
#define LLMB_YAMLLOAD_H

#include <stddef.h>

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ykind kind;
	int line, col;          /* 1-based */
	int plain;              /* scalar written without quotes */
	char *str;              /* scalar text */
	struct ynode **kids;    /* seq: items; map: key0, val0, key1, val1, ... */
	size_t nkids;
};

struct ydoc {
	char *file;             /* as given, for diagnostics */
	struct ynode *root;
	int errors;             /* already reported; the tree is usable for more checks */
};

/* Loads path, printing diagnostics (diag.h). NULL when there is no tree
 * (syntax error, empty file); otherwise d->errors says whether the tree
 * broke a rule (duplicate key, alias) and must not be used beyond checks. */
struct ydoc *yaml_load_file(const char *path);
void ydoc_free(struct ydoc *d);

/* Mapping helpers. */
size_t ymap_len(const struct ynode *m);
const struct ynode *ymap_key(const struct ynode *m, size_t i);
const struct ynode *ymap_val(const struct ynode *m, size_t i);
const struct ynode *ymap_get(const struct ynode *m, const char *key);
const char *ykind_name(enum ykind k);

#endif
