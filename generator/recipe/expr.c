#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmds.h"
#include "base/util.h"
#include "recipe/expr.h"

/* Recursive descent:
 *   sum   := prod (('+' | '-') prod)*
 *   prod  := unary (('*' | '/') unary)*
 *   unary := '-' unary | power
 *   power := atom ('^' unary)?          (right associative)
 *   atom  := number | name | name '(' sum (',' sum)* ')' | '(' sum ')'  */
struct ex {
	const char *src, *p;
	expr_lookup lookup;
	expr_name_fn names; /* set: parse only, every name to it */
	void *ctx;
	char *err;
	size_t errlen;
	int erroff;
	int failed;
	int depth;
};

static double sum(struct ex *e);

static double
fail(struct ex *e, const char *at, const char *msg, const char *arg)
{
	if (!e->failed) {
		e->failed = 1;
		e->erroff = (int)(at - e->src);
		snprintf(e->err, e->errlen, msg, arg);
	}
	return 0;
}

static void
skip(struct ex *e)
{
	while (*e->p == ' ')
		e->p++;
}

static double
call(struct ex *e, const char *name, const char *at)
{
	double a[2];
	int n = 0;
	e->p++; /* ( */
	for (;;) {
		if (n == 2)
			return fail(e, e->p, "too many arguments to %s", name);
		a[n++] = sum(e);
		skip(e);
		if (*e->p == ',') {
			e->p++;
			continue;
		}
		if (*e->p != ')')
			return fail(e, e->p, "expected ')' after the arguments of %s", name);
		e->p++;
		break;
	}
	static const struct { const char *name; int args; } fns[] = {
		{"ceil", 1}, {"floor", 1}, {"min", 2}, {"max", 2},
	};
	for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
		if (strcmp(name, fns[i].name))
			continue;
		if (n != fns[i].args)
			return fail(e, at, "wrong number of arguments to %s", name);
		switch (i) {
		case 0: return ceil(a[0]);
		case 1: return floor(a[0]);
		case 2: return a[0] < a[1] ? a[0] : a[1];
		default: return a[0] > a[1] ? a[0] : a[1];
		}
	}
	return fail(e, at, "unknown function '%s' (known: ceil, floor, min, max)", name);
}

static double
atom(struct ex *e)
{
	skip(e);
	const char *at = e->p;
	if (isdigit((unsigned char)*e->p) || *e->p == '.') {
		char *end;
		double v = strtod(e->p, &end);
		if (end == e->p)
			return fail(e, at, "bad number", NULL);
		e->p = end;
		return v;
	}
	if (isalpha((unsigned char)*e->p) || *e->p == '_') {
		char name[64];
		size_t n = 0;
		while ((isalnum((unsigned char)*e->p) || *e->p == '_') && n < sizeof name - 1)
			name[n++] = *e->p++;
		name[n] = 0;
		skip(e);
		if (*e->p == '(')
			return call(e, name, at);
		if (e->names) {
			e->names(e->ctx, name, (int)(at - e->src));
			return 1;
		}
		double v;
		if (!e->lookup || e->lookup(e->ctx, name, &v))
			return fail(e, at, "unknown name '%s'", name);
		return v;
	}
	if (*e->p == '(') {
		e->p++;
		double v = sum(e);
		skip(e);
		if (*e->p != ')')
			return fail(e, e->p, "expected ')'", NULL);
		e->p++;
		return v;
	}
	if (!*e->p)
		return fail(e, at, "unexpected end of expression", NULL);
	return fail(e, at, "unexpected character '%.1s'", e->p);
}

static double unary(struct ex *e);

static double
power(struct ex *e)
{
	double b = atom(e);
	skip(e);
	if (*e->p == '^') {
		e->p++;
		return pow(b, unary(e));
	}
	return b;
}

static double
unary(struct ex *e)
{
	skip(e);
	if (++e->depth > 100)
		return fail(e, e->p, "expression nested too deeply", NULL);
	double v;
	if (*e->p == '-') {
		e->p++;
		v = -unary(e);
	} else {
		v = power(e);
	}
	e->depth--;
	return v;
}

static double
prod(struct ex *e)
{
	double v = unary(e);
	for (;;) {
		skip(e);
		char op = *e->p;
		if (op != '*' && op != '/')
			return v;
		const char *at = e->p++;
		double r = unary(e);
		if (op == '/' && r == 0 && !e->failed && !e->names)
			return fail(e, at, "division by zero", NULL);
		v = op == '*' ? v * r : v / r;
	}
}

static double
sum(struct ex *e)
{
	double v = prod(e);
	for (;;) {
		skip(e);
		char op = *e->p;
		if (op != '+' && op != '-')
			return v;
		e->p++;
		double r = prod(e);
		v = op == '+' ? v + r : v - r;
	}
}

static int
run(struct ex *e, double *out, int *erroff)
{
	double v = sum(e);
	skip(e);
	if (!e->failed && *e->p)
		fail(e, e->p, "unexpected '%.1s' after the expression", e->p);
	if (!e->failed && !e->names && !isfinite(v))
		fail(e, e->src, "the value is not finite", NULL);
	if (e->failed) {
		if (erroff)
			*erroff = e->erroff;
		return -1;
	}
	if (out)
		*out = v;
	return 0;
}

int
expr_eval(const char *src, expr_lookup lookup, void *ctx, double *out,
	  char *err, size_t errlen, int *erroff)
{
	struct ex e = {.src = src, .p = src, .lookup = lookup, .ctx = ctx, .err = err, .errlen = errlen};
	return run(&e, out, erroff);
}

int
expr_names(const char *src, expr_name_fn names, void *ctx, char *err, size_t errlen, int *erroff)
{
	struct ex e = {.src = src, .p = src, .names = names, .ctx = ctx, .err = err, .errlen = errlen};
	return run(&e, NULL, erroff);
}

/* llmb calc 'EXPR' [name=value...]: evaluates an expression like a recipe would. */
struct vars {
	int n;
	char **argv;
};

static int
lookup_args(void *ctx, const char *name, double *v)
{
	struct vars *vs = ctx;
	size_t l = strlen(name);
	for (int i = 0; i < vs->n; i++) {
		if (!strncmp(vs->argv[i], name, l) && vs->argv[i][l] == '=') {
			char *end;
			*v = strtod(vs->argv[i] + l + 1, &end);
			return *end ? -1 : 0;
		}
	}
	return -1;
}

int
cmd_calc(int argc, char **argv)
{
	static const char usage[] = "usage: llmb calc EXPR [name=value...]\n";
	if (argc < 2)
		return fputs(usage, stderr), 2;
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return fputs(usage, stdout), 0;
	struct vars vs = {argc - 2, argv + 2};
	char err[160];
	int off = 0;
	double v;
	if (expr_eval(argv[1], lookup_args, &vs, &v, err, sizeof err, &off)) {
		fprintf(stderr, "<expr>:1:%d: error: %s\n", off + 1, err);
		return 2;
	}
	printf("%.17g\n", v);
	return 0;
}
