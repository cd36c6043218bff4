/* expr: a small, safe arithmetic evaluator for recipe values (run
 * parameters, model-FLOPs formulas). Numbers, names, + - * / ^ (power),
 * parentheses, unary minus, and the functions ceil, floor, min, max.
 * Nothing else: no shell, no m4, no side effects. */
#ifndef LLMB_EXPR_H
#define LLMB_EXPR_H

/* Looks a name up; returns 0 and sets *v when known. */
typedef int (*expr_lookup)(void *ctx, const char *name, double *v);

/* Evaluates src. On error returns -1 and writes a message and the 0-based
 * offset in src where it was found. */
int expr_eval(const char *src, expr_lookup lookup, void *ctx, double *out,
	      char *err, size_t errlen, int *erroff);

/* Is told each name an expression reads (not the functions it calls), with
 * its 0-based offset in the source. */
typedef void (*expr_name_fn)(void *ctx, const char *name, int off);

/* Parses src without evaluating it, telling names every name in the order
 * written: a recipe check sees every name an expression needs, where
 * expr_eval stops at the first unknown one. A syntax error: -1 with its
 * message and offset, as expr_eval. Values are not known, so division by
 * zero and values that are not finite are left to expr_eval. */
int expr_names(const char *src, expr_name_fn names, void *ctx, char *err, size_t errlen, int *erroff);

#endif
