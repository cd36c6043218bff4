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

#endif
