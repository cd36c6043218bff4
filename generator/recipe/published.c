/* published: Megatron-Bridge's published rows, found and matched. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/schema.h"
#include "recipe/flops.h"
#include "recipe/published.h"

#define SCALAR(k) {k, 0, 0, 0}
static const struct ytype t_int = SCALAR(T_INT), t_num = SCALAR(T_NUM), t_str = SCALAR(T_STR),
	t_name = SCALAR(T_NAME), t_sha = SCALAR(T_SHA), t_path = SCALAR(T_PATH);
static const struct ytype t_paths = {T_LIST, &t_path, 0, 0};
static const struct field row_fields[] = {
	{"release", &t_str, 1, "NeMo container release of the section"},
	{"file", &t_path, 1, "the Megatron-Bridge file"},
	{"line", &t_int, 1, "the row's line in it"},
	{"section", &t_str, 1, "the container section"},
	{"table", &t_name, 1, "pretrain, sft or lora"},
	{"model", &t_str, 1, "Megatron-Bridge's model name"},
	{"workload", &t_name, 0, "llmb's workload of the model"},
	{"size", &t_name, 0, "llmb's size of the model"},
	{"gpu", &t_name, 1, "GPU type of the system"},
	{"scale", &t_int, 1, "#-GPUs"},
	{"precision", &t_str, 1, "as published: BF16, FP8, MXFP8, NVFP4"},
	{"dtype", &t_name, 1, "llmb's dtype of the precision"},
	{"compute_dtype", &t_name, 1, "the performance scripts' --compute_dtype of the precision"},
	{"gbs", &t_int, 1, "global batch size"},
	{"mbs", &t_int, 1, "micro batch size"},
	{"seq", &t_int, 1, "sequence length"},
	{"fsdp", &t_int, 1, "FSDP sharding group (0: DDP)"},
	{"tp", &t_int, 1, "tensor parallel"},
	{"pp", &t_int, 1, "pipeline parallel"},
	{"cp", &t_int, 1, "context parallel"},
	{"vp", &t_int, 1, "virtual pipeline (n/a: 0)"},
	{"ep", &t_int, 1, "expert parallel (n/a: 1)"},
	{"tokens_per_s_per_gpu", &t_num, 1, "Tokens / sec / GPU"},
	{"tflops_per_gpu", &t_num, 1, "Model TFLOP / sec / GPU"},
	{"published_note", &t_str, 0, "the row's footnote"},
	{NULL},
};
static const struct ytype t_row = {T_OBJ, 0, row_fields, 0};
static const struct ytype t_rows = {T_LIST, &t_row, 0, 0};
static const struct field skip_fields[] = {
	{"file", &t_path, 1, "the file"},
	{"section", &t_str, 1, "the section not imported"},
	{"why", &t_str, 1, "why"},
	{NULL},
};
static const struct ytype t_skip = {T_OBJ, 0, skip_fields, 0};
static const struct ytype t_skips = {T_LIST, &t_skip, 0, 0};
static const struct field note_fields[] = {
	{"release", &t_str, 1, "release"},
	{"model", &t_str, 0, "that model's rows only"},
	{"gpu", &t_name, 0, "that GPU type's rows only"},
	{"note", &t_str, 1, "what is known to be inconsistent"},
	{NULL},
};
static const struct ytype t_note = {T_OBJ, 0, note_fields, 0};
static const struct ytype t_notes = {T_LIST, &t_note, 0, 0};
static const struct field table_fields[] = {
	{"repository", &t_str, 1, "the repository read"},
	{"commit", &t_sha, 1, "the commit read"},
	{"files", &t_paths, 1, "the files read"},
	{"skipped_sections", &t_skips, 0, "sections not imported"},
	{"release_notes", &t_notes, 0, "known inconsistencies of releases' rows"},
	{"published", &t_rows, 1, "the rows"},
	{NULL},
};
static const struct ytype t_table = {T_OBJ, 0, table_fields, 0};

struct ydoc *
published_load(const char *top, int *bad)
{
	char *path = strcmp(top, ".") ? xasprintf("%s/%s", top, PUBLISHED_FILE) : xstrdup(PUBLISHED_FILE);
	struct ydoc *d = NULL;
	*bad = 0;
	if (file_exists(path)) {
		d = yaml_load_file(path);
		if (!d || d->errors || schema_check(d->file, d->root, &t_table)) {
			ydoc_free(d);
			d = NULL;
			*bad = 1;
		}
	}
	free(path);
	return d;
}

int
published_release(const struct ynode *wl, char *buf, size_t n)
{
	const struct ynode *img = ymap_get(wl, "images");
	for (size_t i = 0; img && i < img->nkids; i++) {
		const char *ref = ystr(img->kids[i], "ref", NULL), *colon = ref ? strrchr(ref, ':') : NULL;
		if (colon && !strchr(colon, '/')) {
			snprintf(buf, n, "%s", colon + 1);
			return 0;
		}
	}
	return -1;
}

/* The config row's --compute_dtype, or NULL. */
static const char *
compute_dtype(const struct ynode *c)
{
	const struct ynode *a = ymap_get(c, "args");
	for (size_t i = 0; a && i < a->nkids; i++) {
		const char *s = a->kids[i]->str;
		if (!s)
			continue;
		if (!strncmp(s, "--compute_dtype=", 16))
			return s + 16;
		if (!strcmp(s, "--compute_dtype") && i + 1 < a->nkids)
			return a->kids[i + 1]->str;
	}
	return NULL;
}

static void
said(struct sb *why, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void
said(struct sb *why, int *n, const char *fmt, ...)
{
	va_list ap;
	if ((*n)++)
		sb_add(why, ", ");
	va_start(ap, fmt);
	sb_vaddf(why, fmt, ap);
	va_end(ap);
}

int
published_differs(const struct ynode *row, const struct ynode *wl, const char *gpu, const char *size,
		  const char *dtype, long scale, long gpus_per_node, struct sb *why)
{
	const struct ynode *c = workload_config(wl, gpu, size, dtype, scale);
	struct params p = {0};
	int n = 0;
	if (!c || config_params(NULL, c, scale, gpus_per_node, &p)) {
		params_free(&p);
		return -1;
	}
	if (strcmp(ystr(row, "gpu", ""), gpu))
		said(why, &n, "GPU type %s (run %s)", ystr(row, "gpu", ""), gpu);
	if (yint(row, "scale", 0) != scale)
		said(why, &n, "GPUs %ld (run %ld)", yint(row, "scale", 0), scale);
	const char *cd = compute_dtype(c);
	if (strcmp(ystr(row, "dtype", ""), dtype) || (cd && strcmp(ystr(row, "compute_dtype", ""), cd)))
		said(why, &n, "precision %s (run %s)", ystr(row, "precision", ""), cd ? cd : dtype);
	static const char *const keys[] = {"seq", "gbs", "mbs", "tp", "pp", "cp", "vp", "ep", "fsdp"};
	for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
		double v;
		if (params_get(&p, keys[k], &v))
			continue;
		long pub = yint(row, keys[k], 0), run = (long)v;
		int same = !strcmp(keys[k], "vp") ? (pub > 1 ? pub : 0) == (run > 1 ? run : 0)
			: !strcmp(keys[k], "fsdp") ? (pub > 0) == (run > 0) : pub == run;
		if (!same)
			said(why, &n, "%s %ld (run %ld)", keys[k], pub, run);
	}
	params_free(&p);
	return n;
}

const struct ynode *
published_find(const struct ydoc *t, const struct ynode *wl, const char *gpu, const char *size, const char *dtype,
	       long scale, long gpus_per_node, int *differs, struct sb *why)
{
	char rel[64];
	const struct ynode *rows = ymap_get(t->root, "published"), *best = NULL;
	long best_score = 0;
	if (published_release(wl, rel, sizeof rel))
		return NULL;
	for (size_t i = 0; rows && i < rows->nkids; i++) {
		const struct ynode *r = rows->kids[i];
		if (strcmp(ystr(r, "workload", ""), ystr(wl, "workload", "")) || strcmp(ystr(r, "size", ""), size) ||
		    strcmp(ystr(r, "release", ""), rel) || strcmp(ystr(r, "table", ""), "pretrain"))
			continue;
		struct sb w = {0};
		int n = published_differs(r, wl, gpu, size, dtype, scale, gpus_per_node, &w);
		long score = n < 0 ? 1000 : n + 100 * !!strcmp(ystr(r, "gpu", ""), gpu) +
			50 * !!strcmp(ystr(r, "dtype", ""), dtype);
		if (!best || score < best_score) {
			best = r;
			best_score = score;
			*differs = n < 0 ? 1 : n;
			sb_reset(why);
			if (w.buf)
				sb_add(why, w.buf);
		}
		sb_free(&w);
	}
	return best;
}

const char *
published_note(const struct ydoc *t, const struct ynode *row)
{
	const struct ynode *notes = ymap_get(t->root, "release_notes");
	for (size_t i = 0; notes && i < notes->nkids; i++) {
		const struct ynode *n = notes->kids[i];
		const char *m = ystr(n, "model", NULL), *g = ystr(n, "gpu", NULL);
		if (!strcmp(ystr(n, "release", ""), ystr(row, "release", "")) &&
		    (!m || !strcmp(m, ystr(row, "model", ""))) && (!g || !strcmp(g, ystr(row, "gpu", ""))))
			return ystr(n, "note", NULL);
	}
	return NULL;
}

char *
published_source(const struct ydoc *t, const struct ynode *row)
{
	return xasprintf("Megatron-Bridge %s, %s:%s at %.12s", ystr(row, "release", ""), ystr(row, "file", ""),
			 ystr(row, "line", ""), ystr(t->root, "commit", ""));
}
