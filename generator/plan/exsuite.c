/* exsuite: loading an exemplar suite file (see the header). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/schema.h"
#include "base/util.h"
#include "base/yamlload.h"
#include "plan/exsuite.h"
#include "recipe/upnames.h"

static const struct ytype t_name = {T_NAME, 0, 0, 0}, t_int = {T_INT, 0, 0, 0},
	t_num = {T_NUM, 0, 0, 0}, t_bool = {T_BOOL, 0, 0, 0}, t_str = {T_STR, 0, 0, 0};
static const struct ytype t_dtypes = {T_LIST, &t_name, 0, 0};
static const struct field entry_fields[] = {
	{"dtypes", &t_dtypes, 1, "the dtypes to run of this workload and size"},
	{NULL},
};
static const struct ytype t_body = {T_OBJ, 0, entry_fields, 0};
static const struct ytype t_entry = {T_DICT, &t_body, 0, 0};
static const struct ytype t_entries = {T_LIST, &t_entry, 0, 0};
static const struct ytype t_gpus = {T_DICT, &t_entries, 0, 0};
static const struct field config_fields[] = {
	{"scale", &t_int, 0, "GPUs of every run (default 512)"},
	{"repeats", &t_int, 0, "measured runs of each configuration (default 1)"},
	{"profile", &t_bool, 0, "one more, profiled run of each configuration, never counted (default false)"},
	{"pass_pct", &t_num, 0, "a configuration passes above this percentage of its reference (default 95)"},
	{NULL},
};
static const struct ytype t_config = {T_OBJ, 0, config_fields, 0};
static const struct field top_fields[] = {
	{"description", &t_str, 0, "what the suite certifies"},
	{"config", &t_config, 1, "scale, repeats, profiling and the pass line of every run"},
	{"workloads", &t_gpus, 1, "per GPU type, a list of <workload>_<size>: {dtypes: [...]}"},
	{NULL},
};
static const struct ytype t_top = {T_OBJ, 0, top_fields, 0};

/* The GPU type's list of entries; an error names the file's types. */
static const struct ynode *
gpu_entries(const char *path, const struct ynode *wls, const char *gpu, char **chosen)
{
	struct sb have = {0};
	for (size_t i = 0; i < ymap_len(wls); i++)
		sb_addf(&have, "%s%s", i ? ", " : "", ymap_key(wls, i)->str);
	const struct ynode *list = NULL;
	if (gpu)
		list = ymap_get(wls, gpu);
	else if (ymap_len(wls) == 1)
		list = ymap_val(wls, 0), gpu = ymap_key(wls, 0)->str;
	if (!list && gpu)
		diag_error(path, wls->line, wls->col, "no workloads for GPU type '%s'; the suite has: %s", gpu,
			   have.buf ? have.buf : "none");
	else if (!list)
		diag_error(path, wls->line, wls->col, "the suite has several GPU types (%s): set GPU_TYPE to one",
			   have.buf ? have.buf : "none");
	else if (!list->nkids)
		diag_error(path, list->line, list->col, "no workloads for GPU type '%s'", gpu);
	sb_free(&have);
	*chosen = list ? xstrdup(gpu) : NULL;
	return list && list->nkids ? list : NULL;
}

/* "<workload>_<size>" split at its last underscore, as upstream names them;
 * the workload is llmb's, or upstream's name of it (pretrain_gpt_oss). */
static int
add_entry(const char *path, struct exsuite *s, const struct ydoc *names, const struct ynode *e)
{
	if (ymap_len(e) != 1) {
		diag_error(path, e->line, e->col, "an entry has one key, <workload>_<size>; this one has %zu", ymap_len(e));
		return -1;
	}
	const struct ynode *k = ymap_key(e, 0);
	const char *us = strrchr(k->str, '_');
	if (!us || us == k->str || !us[1]) {
		diag_error(path, k->line, k->col, "'%s' is not <workload>_<size> (like nemotron4_340b)", k->str);
		return -1;
	}
	const struct ynode *dt = ymap_get(ymap_val(e, 0), "dtypes");
	if (!dt->nkids) {
		diag_error(path, dt->line, dt->col, "'%s' lists no dtypes", k->str);
		return -1;
	}
	struct nmatrix *m = &s->m;
	char *(*row)[NM_VARS] = &m->entry[m->n];
	(*row)[0] = xstrndup(k->str, (size_t)(us - k->str));
	const char *llmb = names ? upnames_workload(names, (*row)[0]) : NULL;
	if (llmb) {
		free((*row)[0]);
		(*row)[0] = xstrdup(llmb);
	}
	(*row)[1] = xstrdup(us + 1);
	struct sb d = {0};
	for (size_t i = 0; i < dt->nkids; i++)
		sb_addf(&d, "%s%s", i ? " " : "", dt->kids[i]->str);
	(*row)[2] = sb_steal(&d);
	(*row)[3] = xstrdup(s->gpu);
	(*row)[4] = xasprintf("%ld", s->scale);
	for (size_t i = 0; i < m->n; i++) {
		if (!strcmp(m->entry[i][0], (*row)[0]) && !strcmp(m->entry[i][1], (*row)[1])) {
			diag_error(path, k->line, k->col, "'%s' is listed twice for %s (first at %d:%d)", k->str, s->gpu,
				   s->line[i], s->col[i]);
			for (int j = 0; j < NM_VARS; j++)
				free((*row)[j]);
			return -1;
		}
	}
	s->line[m->n] = k->line;
	s->col[m->n] = k->col;
	m->n++;
	return 0;
}

static long
config_int(const struct ynode *cfg, const char *key, long def)
{
	const struct ynode *v = ymap_get(cfg, key);
	return v ? strtol(v->str, NULL, 10) : def;
}

int
exsuite_load(const char *top, const char *path, const char *gpu, struct exsuite *s)
{
	int before = diag_errors;
	memset(s, 0, sizeof *s);
	struct ydoc *d = yaml_load_file(path);
	if (!d)
		return diag_errors - before ? diag_errors - before : 1;
	const struct ynode *root = d->root;
	if (d->errors || schema_check(path, root, &t_top) || diag_errors > before) {
		ydoc_free(d);
		return diag_errors - before ? diag_errors - before : 1;
	}
	const struct ynode *cfg = ymap_get(root, "config");
	s->scale = config_int(cfg, "scale", 512);
	s->m.repeats = config_int(cfg, "repeats", 1);
	s->profile = ymap_get(cfg, "profile") && !strcmp(ymap_get(cfg, "profile")->str, "true");
	s->pass_pct = ymap_get(cfg, "pass_pct") ? strtod(ymap_get(cfg, "pass_pct")->str, NULL) : EXSUITE_PASS_PCT;
	const struct ynode *v;
	if (s->scale < 1 && (v = ymap_get(cfg, "scale")))
		diag_error(path, v->line, v->col, "scale must be at least 1 GPU");
	if ((s->m.repeats < 1 || s->m.repeats > 99) && (v = ymap_get(cfg, "repeats")))
		diag_error(path, v->line, v->col, "repeats must be between 1 and 99");
	if (!(s->pass_pct > 0 && s->pass_pct < 1000) && (v = ymap_get(cfg, "pass_pct")))
		diag_error(path, v->line, v->col, "pass_pct must be a percentage above 0 (95: more than 95%% of the reference)");
	const struct ynode *list = gpu_entries(path, ymap_get(root, "workloads"), gpu, &s->gpu);
	int bad;
	struct ydoc *names = list && diag_errors == before ? upnames_load(top, &bad) : NULL;
	if (list && diag_errors == before) {
		s->m.entry = xcalloc(list->nkids, sizeof *s->m.entry);
		s->line = xcalloc(list->nkids, sizeof *s->line);
		s->col = xcalloc(list->nkids, sizeof *s->col);
		for (size_t i = 0; i < list->nkids; i++)
			add_entry(path, s, names, list->kids[i]);
	}
	ydoc_free(names);
	ydoc_free(d);
	return diag_errors - before;
}

void
exsuite_free(struct exsuite *s)
{
	nmatrix_free(&s->m);
	free(s->line);
	free(s->col);
	free(s->gpu);
	memset(s, 0, sizeof *s);
}
