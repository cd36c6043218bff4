/* flops: model FLOPs per sample of a workload, and `llmb flops`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/diag.h"
#include "base/util.h"
#include "recipe/expr.h"
#include "recipe/flops.h"
#include "recipe/mbflops.h"
#include "store/layout.h"

static int
ints_has(const struct ynode *v, long x)
{
	for (size_t i = 0; v && i < v->nkids; i++)
		if (strtol(v->kids[i]->str, NULL, 10) == x)
			return 1;
	return 0;
}

const struct ynode *
workload_config(const struct ynode *w, const char *gpu, const char *size, const char *dtype, long scale)
{
	const struct ynode *cs = ymap_get(w, "configs");
	for (size_t i = 0; cs && i < cs->nkids; i++) {
		const struct ynode *c = cs->kids[i];
		if (gpu && *gpu && !ynames_have(ymap_get(c, "gpu"), gpu))
			continue;
		if (size && *size && !ynames_have(ymap_get(c, "size"), size))
			continue;
		if (dtype && *dtype && !ynames_have(ymap_get(c, "dtype"), dtype))
			continue;
		if (scale && !ints_has(ymap_get(c, "scales"), scale))
			continue;
		return c;
	}
	return NULL;
}

/* Where an expression error at offset off of scalar n is in the file: a
 * quoted scalar's text starts one column after its quote. */
static void
expr_error(const char *file, const struct ynode *n, int off, const char *what, const char *msg)
{
	diag_error(file, n->line, n->col + off + !n->plain, "%s: %s", what, msg);
}

struct scope {
	double scale, gpus_per_node, nodes;
	const struct params *params;
	const struct ynode *model;
};

static int
lookup(void *ctx, const char *name, double *v)
{
	const struct scope *s = ctx;
	if (s->params && s->params->names && !params_get(s->params, name, v))
		return 0;
	if (s->model) {
		const struct ynode *n = ymap_get(s->model, name);
		if (n) {
			*v = strtod(n->str, NULL);
			return 0;
		}
		return -1;
	}
	if (!strcmp(name, "scale"))
		*v = s->scale;
	else if (!strcmp(name, "gpus_per_node"))
		*v = s->gpus_per_node;
	else if (!strcmp(name, "nodes"))
		*v = s->nodes;
	else
		return -1;
	return 0;
}

/* A NULL file evaluates quietly: the recipe pass said it already. */
static int
eval_node(const char *file, const struct ynode *n, const char *what, struct scope *s, double *v)
{
	char err[160];
	int off = 0;
	if (!expr_eval(n->str, lookup, s, v, err, sizeof err, &off))
		return 0;
	if (file)
		expr_error(file, n, off, what, err);
	return -1;
}

/* Evaluates the first upto params of config in order into p; a param may
 * use the params before it that evaluated. */
static int
params_upto(const char *file, const struct ynode *config, size_t upto, struct scope *s, struct params *p)
{
	const struct ynode *ps = ymap_get(config, "params");
	size_t n = ymap_len(ps);
	int rc = 0;
	memset(p, 0, sizeof *p);
	p->names = xcalloc(n + 1, sizeof *p->names);
	p->vals = xcalloc(n + 1, sizeof *p->vals);
	for (size_t i = 0; i < n && i < upto; i++) {
		const struct ynode *k = ymap_key(ps, i);
		char *what = xasprintf("params.%s", k->str);
		if (eval_node(file, ymap_val(ps, i), what, s, &p->vals[p->n]))
			rc = -1;
		else
			p->names[p->n++] = k->str;
		free(what);
	}
	return rc;
}

/* nodes as the job gets them: ceil(scale / gpus per node). */
static struct scope
run_scope(long scale, long gpus_per_node, const struct params *p)
{
	return (struct scope){(double)scale, (double)gpus_per_node,
		gpus_per_node ? ceil((double)scale / (double)gpus_per_node) : 0, p, NULL};
}

int
config_params(const char *file, const struct ynode *config, long scale, long gpus_per_node, struct params *p)
{
	struct scope s = run_scope(scale, gpus_per_node, p);
	return params_upto(file, config, (size_t)-1, &s, p);
}

int
config_param_eval(const struct ynode *config, size_t k, long scale, long gpus_per_node, double *v,
		  char *err, size_t errlen, int *off)
{
	struct params p;
	struct scope s = run_scope(scale, gpus_per_node, &p);
	params_upto(NULL, config, k, &s, &p);
	int rc = expr_eval(ymap_val(ymap_get(config, "params"), k)->str, lookup, &s, v, err, errlen, off);
	params_free(&p);
	return rc;
}

int
flops_term_eval(const struct ynode *w, const char *size, const struct params *p, const struct ynode *n,
		double *v, char *err, size_t errlen, int *off)
{
	struct scope s = {0, 0, 0, p, ymap_get(ymap_get(w, "models"), size)};
	return expr_eval(n->str, lookup, &s, v, err, errlen, off);
}

void
params_free(struct params *p)
{
	free(p->names);
	free(p->vals);
	memset(p, 0, sizeof *p);
}

int
params_get(const struct params *p, const char *name, double *v)
{
	for (size_t i = 0; i < p->n; i++) {
		if (!strcmp(p->names[i], name)) {
			*v = p->vals[i];
			return 0;
		}
	}
	return -1;
}

int
flops_term(const char *file, const struct ynode *k)
{
	static const char *const terms[] = {"attention", "mlp", "embedding", "factor", NULL};
	for (int t = 0; terms[t]; t++)
		if (!strcmp(terms[t], k->str))
			return t;
	const char *sug = file ? diag_suggest(k->str, terms) : NULL;
	if (file)
		diag_error(file, k->line, k->col, "unknown flops term '%s'%s%s%s (terms: attention, mlp, embedding, factor)",
			   k->str, sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
	return -1;
}

int
flops_eval(const char *file, const struct ynode *w, const char *size, const struct params *p, struct flops *out)
{
	const struct ynode *f = ymap_get(w, "flops");
	const struct ynode *model = ymap_get(ymap_get(w, "models"), size);
	double v[4] = {0, 0, 0, 1};
	int rc = 0;
	if (file && !f)
		diag_error(file, w->line, w->col, "workload has no flops formula");
	else if (file && !model)
		diag_error(file, ymap_get(w, "models")->line, ymap_get(w, "models")->col,
			   "no models.%s: the dimensions of size '%s'", size, size);
	if (!f || !model)
		return -1;
	for (size_t i = 0; i < ymap_len(f); i++) {
		const struct ynode *k = ymap_key(f, i);
		int t = flops_term(file, k);
		if (t < 0) {
			rc = -1;
			continue;
		}
		struct scope s = {0, 0, 0, p, model};
		char *what = xasprintf("flops.%s", k->str);
		if (eval_node(file, ymap_val(f, i), what, &s, &v[t]))
			rc = -1;
		free(what);
	}
	if (rc)
		return -1;
	out->attention = v[0];
	out->mlp = v[1];
	out->embedding = v[2];
	out->factor = v[3];
	out->total = (v[0] + v[1] + v[2]) * v[3];
	if (isfinite(out->total))
		return 0;
	if (file)
		diag_error(file, f->line, f->col, "flops: the total of size %s, (attention + mlp + embedding) * factor, is not finite",
			   size);
	return -1;
}

/* The params of the row for gpu/size at its first scale, and the gpu the
 * row is for. */
static int
row_params(const struct recipes *r, const char *file, const struct ynode *w, const char *size,
	   const char *gpu, struct params *p, const char **gpu_out)
{
	const struct ynode *c = workload_config(w, gpu, size, NULL, 0);
	if (!c) {
		diag_error(file, w->line, w->col, "no config row for size '%s'%s%s", size,
			   gpu ? " on GPU type " : "", gpu ? gpu : "");
		return -1;
	}
	const struct ynode *const *items, *one;
	if (!gpu) {
		ynames(ymap_get(c, "gpu"), &items, &one);
		gpu = items[0]->str;
	}
	*gpu_out = gpu;
	const struct ynode *scales = ymap_get(c, "scales");
	long scale = scales && scales->nkids ? strtol(scales->kids[0]->str, NULL, 10) : 0;
	return config_params(file, c, scale, yint(gpu_find(r, gpu), "gpus_per_node", 0), p);
}

int
workload_model_flops(const struct recipes *r, const char *workload, const char *size,
		     const char *gpu, double *total, double parts[3])
{
	struct ydoc *doc;
	const struct ynode *w = workload_find(r, workload, &doc);
	if (!w) {
		diag_error(r->top, 0, 0, "no workload '%s'", workload);
		return -1;
	}
	struct params p = {0};
	struct flops f;
	const char *g;
	int rc = row_params(r, doc->file, w, size, gpu, &p, &g);
	if (!rc)
		rc = flops_eval(doc->file, w, size, &p, &f);
	params_free(&p);
	if (rc)
		return -1;
	*total = f.total;
	if (parts) {
		parts[0] = f.attention * f.factor;
		parts[1] = f.mlp * f.factor;
		parts[2] = f.embedding * f.factor;
	}
	return 0;
}

static void
print_term(const char *name, double v)
{
	printf("%-10s %14.6e  %.0f\n", name, v, v);
}

/* llmb flops MODEL SIZE from the Megatron-Bridge table: its source, the
 * kind of count and the terms. */
static int
show_mbflops(const char *top, const char *model, const char *size, long tp)
{
	struct ydoc *t = mbtable_load(top);
	if (!t)
		return 2;
	const struct ynode *row = mbtable_row(t, model, size);
	int rc = 2;
	if (!row) {
		fprintf(stderr, "%s: no workload '%s' in %s/workloads, and no size '%s' of model '%s' in %s\n",
			progname, model, top, size, model, t->file);
	} else {
		struct mbflops f;
		mbflops_count(row, tp, &f);
		printf("model      %s\nsize       %s\nkind       %s\n", model, size, f.kind);
		printf("source     NVIDIA-NeMo/Megatron-Bridge@%s %s\n", ystr(row, "commit", ""), ystr(row, "path", ""));
		printf("from       %s\n", ystr(row, "source", ""));
		printf("seq        %s\ntp         %ld\n", ystr(row, "seq", ""), tp);
		printf("vocab      %s padded %.0f\n", ystr(row, "vocab", ""), f.vocab_padded);
		print_term("attention", f.attention);
		print_term("mlp", f.mlp);
		print_term("mamba", f.mamba);
		print_term("mtp", f.mtp);
		print_term("logits", f.logits);
		print_term("total", f.total);
		rc = 0;
	}
	ydoc_free(t);
	return rc;
}

/* A workload's formula at its config row. */
static int
show_workload_flops(struct recipes *r, const char *top, const char **args)
{
	struct ydoc *doc;
	const struct ynode *w = workload_find(r, args[0], &doc);
	struct params p = {0};
	struct flops f;
	const char *gpu = NULL;
	int rc = 2;
	if (!w)
		fprintf(stderr, "%s: no workload '%s' in %s/" LAYOUT_WORKLOADS "\n", progname, args[0], top);
	else if (!row_params(r, doc->file, w, args[1], args[2], &p, &gpu) &&
		 !flops_eval(doc->file, w, args[1], &p, &f)) {
		double seq;
		printf("workload   %s\nsize       %s\ngpu        %s\n", args[0], args[1], gpu);
		if (!params_get(&p, "seq", &seq))
			printf("seq        %.0f\n", seq);
		print_term("attention", f.attention);
		print_term("mlp", f.mlp);
		print_term("embedding", f.embedding);
		printf("%-10s %14.6g\n", "factor", f.factor);
		print_term("total", f.total);
		rc = 0;
	}
	params_free(&p);
	return rc;
}

/* The table has a row for model/size: no when there is no table; a table
 * that does not load says why and counts as no. */
static int
table_has(const char *top, const char *model, const char *size)
{
	char *path = xasprintf("%s/%s", top, MBFLOPS_TABLE);
	int exists = access(path, F_OK) == 0;
	free(path);
	if (!exists)
		return 0;
	struct ydoc *t = mbtable_load(top);
	int has = t && mbtable_row(t, model, size);
	ydoc_free(t);
	return has;
}

int
cmd_flops(int argc, char **argv)
{
	const char *top = ".", *args[3] = {NULL, NULL, NULL}, *tps = NULL;
	int na = 0;
	static const struct option longopts[] = {
		{"top", required_argument, NULL, 't'}, {"tp", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	static const char usage[] = "usage: llmb flops WORKLOAD SIZE [GPU_TYPE] [--top DIR]\n"
				    "       llmb flops MODEL SIZE [--tp N] [--top DIR]   (" MBFLOPS_TABLE ")\n";
	const char *text;
	int c;
	cliopt_start();
	while ((c = cliopt_next(argc, argv, "-", longopts, &text)) != -1) {
		if (c == 't')
			top = optarg;
		else if (c == 'p')
			tps = optarg;
		else if (c == 1 && optarg[0] != '-' && na < 3)
			args[na++] = optarg;
		else if (c == 'h')
			return fputs(usage, stdout), 0;
		else if (c == '?')
			return cliopt_refuse(text, "", longopts, usage);
		else
			na = 9;
	}
	if (cliopt_dashes()) /* never allowed */
		na = 9;
	char *end = NULL;
	long tp = tps ? strtol(tps, &end, 10) : 1;
	if (na < 2 || na > 3 || (tps && (*end || tp < 1 || na != 2))) {
		fputs(usage, stderr);
		return 2;
	}
	struct recipes r;
	if (recipes_load(&r, top)) {
		recipes_free(&r);
		return 2;
	}
	/* Without a GPU type, a model of the table wins over a workload of the
	 * same name (llama3.1 is both: the recipe and the model it trains);
	 * with one, the name is a workload's. */
	int rc, is_workload = workload_find(&r, args[0], NULL) != NULL;
	if (is_workload && na == 2 && table_has(top, args[0], args[1]))
		is_workload = 0;
	if (is_workload && tps) {
		fprintf(stderr, "%s: --tp is for the models of %s; workload '%s' takes tp from its config row\n",
			progname, MBFLOPS_TABLE, args[0]);
		rc = 2;
	} else if (is_workload || na == 3) {
		rc = show_workload_flops(&r, top, args);
	} else {
		rc = show_mbflops(top, args[0], args[1], tp);
	}
	recipes_free(&r);
	return rc;
}
