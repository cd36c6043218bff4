/* importrun: what an imported run is (import.h): the config rows of
 * run.gpu_configs (dtypes as a string, a list or a mapping to scales or
 * {scales, exact_scales, proxy_scales}; proxy_scales become `proxy: true`
 * rows), the model dimensions and FLOPs formula llmb has for the model, the
 * measurement window of the launcher's parse script, and the training job
 * of the nemo, sbatch and configured_sbatch launchers (megatron_bridge:
 * importmb.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/impkit.h"
#include "import/importmb.h"
#include "import/importrun.h"
#include "recipe/mbflops.h"
#include "store/layout.h"

/* ---- configs --------------------------------------------------------------- */

struct dt {
	const struct ynode *name, *scales, *proxy;
	int exact;
};

static int
scales_ok(struct imp *im, const struct ynode *s, const char *what)
{
	if (!s || s->kind != Y_SEQ || !s->nkids) {
		imp_bad(im, s, "%s must be a non-empty list of GPU counts", what);
		return 0;
	}
	for (size_t i = 0; i < s->nkids; i++) {
		const char *v = s->kids[i]->str;
		if (s->kids[i]->kind != Y_SCALAR || !*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 7 || atol(v) < 1) {
			imp_bad(im, s->kids[i], "a scale must be a whole number of GPUs, at least 1");
			return 0;
		}
		/* YAML 1.1 (upstream's reader, PyYAML) takes a plain 010 as
		 * octal 8 and 08 as a string; YAML 1.2 as 10 and 8. Refused
		 * rather than guessed: the row would run at a scale upstream's
		 * does not. */
		if (*v == '0') {
			if (s->kids[i]->plain && strspn(v, "01234567") == strlen(v))
				imp_bad(im, s->kids[i], "scale %s has a leading zero: ambiguous, upstream's YAML 1.1 reader takes it as "
					"octal %ld, a YAML 1.2 reader as %ld; write the number of GPUs without it", v, strtol(v, NULL, 8),
					strtol(v, NULL, 10));
			else
				imp_bad(im, s->kids[i], "scale %s has a leading zero: ambiguous, upstream's YAML 1.1 reader takes it as "
					"%s, a YAML 1.2 reader as %ld; write the number of GPUs without it", v,
					s->kids[i]->plain ? "a string, not a number" : "the string it is", strtol(v, NULL, 10));
			return 0;
		}
	}
	return 1;
}

/* Normalises dtypes (string, list, or mapping dtype -> scales or
 * {scales, exact_scales, proxy_scales}) as llmb-run does into *out (as
 * many as there are; freed by the caller); returns the count. proxy_scales
 * of the model config serve every dtype without its own. */
static size_t
dtypes_of(struct imp *im, const struct ynode *mc, struct dt **out)
{
	const struct ynode *d = imp_get(im, mc, "dtypes", -1, 1), *sc = ymap_get(mc, "scales");
	const struct ynode *px = ymap_get(mc, "proxy_scales");
	int exact = imp_bool(im, ymap_get(mc, "exact_scales"), "exact_scales") == 1;
	size_t n = 0;
	*out = NULL;
	if (!d || (px && !scales_ok(im, px, "proxy_scales")))
		return 0;
	struct dt *o = *out = xcalloc(d->kind == Y_SCALAR ? 1 : d->nkids + 1, sizeof *o);
	if (d->kind == Y_SCALAR || d->kind == Y_SEQ) {
		if (!scales_ok(im, sc ? sc : mc, "scales"))
			return 0;
		if (d->kind == Y_SCALAR)
			o[n++] = (struct dt){d, sc, px, exact};
		for (size_t i = 0; d->kind == Y_SEQ && i < d->nkids; i++)
			o[n++] = (struct dt){d->kids[i], sc, px, exact};
	} else {
		if (sc)
			imp_note(im, sc, "scales are ignored: the dtypes mapping gives them (as llmb-run does)");
		for (size_t i = 0; i < ymap_len(d); i++) {
			const struct ynode *v = ymap_val(d, i), *s = v, *e = NULL, *p = px;
			if (v->kind == Y_MAP) {
				s = ymap_get(v, "scales");
				e = ymap_get(v, "exact_scales");
				if (ymap_get(v, "proxy_scales")) {
					p = ymap_get(v, "proxy_scales");
					if (!scales_ok(im, p, "proxy_scales"))
						continue;
				}
			}
			if (!scales_ok(im, s ? s : v, "scales"))
				continue;
			o[n++] = (struct dt){ymap_key(d, i), s, p, e ? imp_bool(im, e, "exact_scales") == 1 : exact};
		}
	}
	for (size_t i = 0; i < n; i++)
		if (o[i].name->kind != Y_SCALAR || imp_check(im, o[i].name, &imp_t_name))
			return 0;
	return n;
}

/* A dtype's row key: its scales (and, outside proxy rows, whether they
 * are exact), so that dtypes sharing a row are found by hashing. */
static char *
row_key(const struct dt *d, int proxy)
{
	const struct ynode *sc = proxy ? d->proxy : d->scales;
	struct sb k = {0};
	sb_addc(&k, proxy ? 'p' : d->exact ? 'e' : 'i');
	for (size_t i = 0; i < sc->nkids; i++)
		sb_addf(&k, ",%s", sc->kids[i]->str);
	return sb_steal(&k);
}

/* One row of dtype d[i] and those after it with the same scales (the
 * chain next[] links them, SIZE_MAX ends it). */
static void
row(struct imp *im, struct sb *o, const char *gpu, const char *size, const struct dt *d, const size_t *next, size_t i, int proxy)
{
	const struct ynode *sc = proxy ? d[i].proxy : d[i].scales;
	sb_addf(o, "  - gpu: %s\n    size: %s\n    dtype: [%s", gpu, size, d[i].name->str);
	for (size_t j = next[i]; j != SIZE_MAX; j = next[j])
		sb_addf(o, ", %s", d[j].name->str);
	sb_add(o, "]\n    scales: [");
	for (size_t k = 0; k < sc->nkids; k++)
		sb_addf(o, "%s%s", k ? ", " : "", sc->kids[k]->str);
	sb_add(o, "]\n    # TODO params: the parallelism and batch sizes of launch.sh (tp, pp, cp, ep, vp, mbs, gbs, ...)\n");
	if (!strcmp(im->launcher, "megatron_bridge"))
		imp_mb_row(im, o, size);
	if (proxy)
		sb_add(o, "    proxy: true\n");
	else if (d[i].exact)
		sb_add(o, "    exact_scales: true\n");
	sb_addf(o, "    source: \"upstream metadata.yaml run.gpu_configs.%s%s\"\n", gpu, proxy ? " proxy_scales" : "");
	if (!proxy && !d[i].exact && !im->said_inexact++)
		imp_note(im, sc, "exact_scales is false (here and in the rows below that leave it so): llmb-run also accepts scales above %s, and so does llmb (SCALES), with a warning",
			 sc->kids[sc->nkids - 1]->str);
}

/* The rows of n dtypes (proxy: of those with proxy_scales), each in the
 * order of its first dtype. */
static void
rows(struct imp *im, struct sb *o, const char *gpu, const char *size, const struct dt *d, size_t n, int proxy)
{
	struct pindex first = {0};      /* row key -> its first dtype */
	size_t *next = xcalloc(n + 1, sizeof *next), *last = xcalloc(n + 1, sizeof *last);
	for (size_t i = 0; i < n; i++) {
		next[i] = SIZE_MAX;
		if (proxy && !d[i].proxy)
			continue;
		char *k = row_key(&d[i], proxy);
		long f = index_get(&first, k);
		if (f < 0) {
			index_add(&first, k, i);
			last[i] = i;
		} else {
			next[last[f]] = i;
			last[f] = i;
		}
		free(k);
	}
	for (size_t i = 0; i < n; i++) {
		if (proxy && !d[i].proxy)
			continue;
		char *k = row_key(&d[i], proxy);
		if (index_get(&first, k) == (long)i)
			row(im, o, gpu, size, d, next, i, proxy);
		free(k);
	}
	free(next);
	free(last);
	index_free(&first);
}

static void
config_rows(struct imp *im, const struct ynode *gpu, const struct ynode *mc, struct sb *o)
{
	static const char *const known[] = {"model_size", "dtypes", "scales", "exact_scales", "proxy_scales", NULL};
	imp_ignore_unknown(im, mc, known, "model config key ");
	const struct ynode *size = imp_get(im, mc, "model_size", Y_SCALAR, 1);
	if (!size || imp_check(im, size, &imp_t_name))
		return;
	if (index_get(&im->size_set, size->str) < 0) {
		index_add(&im->size_set, size->str, im->nsizes);
		if (im->nsizes == im->sizes_cap) {
			im->sizes_cap = im->sizes_cap ? 2 * im->sizes_cap : 8;
			im->sizes = xrealloc(im->sizes, im->sizes_cap * sizeof *im->sizes);
		}
		im->sizes[im->nsizes++] = size;
	}
	struct dt *d;
	size_t n = dtypes_of(im, mc, &d);
	rows(im, o, gpu->str, size->str, d, n, 0);
	/* Proxy rows: the shrunken runs of proxy_scales, planned only when asked. */
	rows(im, o, gpu->str, size->str, d, n, 1);
	free(d);
}

void
imp_configs(struct imp *im, struct sb *o)
{
	const struct ynode *gc = im->gpu_configs;
	if (!gc)
		return;
	sb_add(o, "\n# upstream run.gpu_configs; dtypes with the same scales share a row. proxy_scales\n"
		  "# are `proxy: true` rows (shrunken models: planned only when asked, never compared).\nconfigs:\n");
	for (size_t g = 0; g < ymap_len(gc); g++) {
		const struct ynode *gpu = ymap_key(gc, g);
		const struct ynode *mcs = imp_get(im, ymap_val(gc, g), "model_configs", Y_SEQ, 1);
		if (imp_check(im, gpu, &imp_t_name))
			continue;
		for (size_t i = 0; mcs && i < mcs->nkids; i++) {
			if (mcs->kids[i]->kind == Y_MAP)
				config_rows(im, gpu, mcs->kids[i], o);
			else
				imp_bad(im, mcs->kids[i], "a model config must be {model_size, dtypes, scales}");
		}
	}
	if (im->nsizes)
		imp_gap(im, gc, "the parallelism of each config row (tp, pp, cp, ep, vp, mbs, gbs as launch.sh sets them per GPU type) "
		    "is not in metadata.yaml: fill in params");
}

/* ---- models and FLOPs ------------------------------------------------------ */

static int
number(const char *s)
{
	return *s && strspn(s, "0123456789.") == strlen(s) && strlen(s) < 24;
}

/* A size's dimensions as a flow mapping: llmb's recipe of the model first
 * (what a person wrote), else the Megatron-Bridge model table; numbers
 * only, the table's own keys (seq, commit, sources) left out. 0 when unknown. */
static int
dims(struct imp *im, struct sb *o, const char *size, const char **from)
{
	static const char *const skip[] = {"seq", "vocab_multiple", NULL};
	const struct ynode *r = im->wl ? ymap_get(ymap_get(im->wl->root, "models"), size) : NULL;
	*from = "llmb's recipe of the model";
	if (!r || r->kind != Y_MAP) {
		r = im->mbt && im->model ? mbtable_row(im->mbt, im->model, size) : NULL;
		*from = "llmb's Megatron-Bridge model table";
	}
	if (!r || r->kind != Y_MAP)
		return 0;
	int n = 0;
	for (size_t i = 0; i < ymap_len(r); i++) {
		const struct ynode *k = ymap_key(r, i), *v = ymap_val(r, i);
		const char *const *p = skip;
		while (*p && strcmp(*p, k->str))
			p++;
		if (*p || v->kind != Y_SCALAR || !number(v->str) || !valid_name(k->str))
			continue;
		sb_addf(o, "%s%s: %s", n++ ? ", " : "{", k->str, v->str);
	}
	if (n)
		sb_add(o, "}");
	return n > 0;
}

void
imp_models(struct imp *im, struct sb *o)
{
	if (!im->nsizes)
		return;
	struct sb rows = {0};
	int unknown = 0;
	const char *from = NULL;
	for (size_t i = 0; i < im->nsizes; i++) {
		const char *size = im->sizes[i]->str;
		sb_addf(&rows, "  %s: ", size);
		if (!dims(im, &rows, size, &from)) {
			sb_add(&rows, "{}");
			unknown++;
			imp_gap(im, im->sizes[i], "model dimensions of size '%s' (layers, hidden, heads, vocab, ...; for FLOPs "
				"and parameters) are not in metadata.yaml%s: fill in models.%s", size,
				!im->model ? " and llmb does not know the model" : im->wl || im->mbt ? ", nor has llmb this size of the model"
				: " and the llmb checkout (--top) has no recipe or table of the model", size);
		}
		sb_add(&rows, "\n");
	}
	if (unknown)
		sb_add(o, "\n# TODO model dimensions per size (layers, hidden, ffn_hidden, heads, query_groups, vocab):\n"
			  "# the recipe README's FLOPs notes or launch.sh give them.\n");
	else
		sb_addf(o, "\n# Model dimensions: %s (workloads/%s%s), by size.\n", from,
			from && strstr(from, "table") ? "models/megatron-bridge.yaml" : im->model, from && strstr(from, "table") ? "" : ".yaml");
	sb_addf(o, "models:\n%s", rows.buf);
	sb_free(&rows);
	/* The FLOPs formula of llmb's recipe of the model, when it reads the
	 * same log format (one framework's accounting). */
	const struct ynode *f = im->wl ? ymap_get(im->wl->root, "flops") : NULL;
	const struct ynode *lf = im->wl ? ymap_get(im->wl->root, "log_format") : NULL;
	int ok = f && f->kind == Y_MAP && lf && im->log_format && lf->kind == Y_SCALAR && !strcmp(lf->str, im->log_format);
	for (size_t i = 0; ok && i < ymap_len(f); i++)
		ok = ymap_val(f, i)->kind == Y_SCALAR && valid_name(ymap_key(f, i)->str) && valid_str(ymap_val(f, i)->str);
	if (!ok) {
		sb_add(o, "\n# TODO flops: attention, mlp, embedding per sample (the recipe README's notes)\n");
		imp_gap(im, ymap_get(im->root, "general"), "FLOPs formula: not in metadata.yaml (the recipe README's notes give it)%s; "
			"without it no MFU is reported", !im->wl ? "" : f ? ", and llmb's recipe of the model counts for another framework"
			: ", nor in llmb's recipe of the model");
		return;
	}
	sb_addf(o, "\n# FLOPs per sample: llmb's " LAYOUT_WORKLOADS "/%s.yaml (the same framework's accounting).\nflops:\n", im->model);
	for (size_t i = 0; i < ymap_len(f); i++) {
		sb_addf(o, "  %s: ", ymap_key(f, i)->str);
		imp_q(o, ymap_val(f, i)->str);
		sb_add(o, "\n");
	}
}

/* ---- measurement ----------------------------------------------------------- */

void
imp_measure(struct imp *im, struct sb *o)
{
	const struct ynode *g = ymap_get(im->root, "general"), *ver = ymap_get(g, "gsw_version");
	const char *v = ver && ver->kind == Y_SCALAR && valid_name(ver->str) ? ver->str : NULL;
	if (!strcmp(im->launcher, "nemo")) {
		/* parse_train_timing.sh: 11-44 in 25.07, 35-44 from 25.08 on (zero-based). */
		const char *win = v && !strcmp(v, "25.07") ? "[11, 44]" : "[35, 44]";
		sb_addf(o, "\n# The upstream parse_train_timing.sh%s%s: mean step time over\n"
			   "# iterations %s of 50 (NeMo counts from 0).\nmeasure:\n  window: %s\n  indexing: zero\n  steps: 50\n"
			   "  metric: mean\n", v ? " of release " : "", v ? v : "", win, win);
	} else if (!strcmp(im->launcher, "megatron_bridge")) {
		sb_add(o, "\n# The upstream parse_train_timing_mbridge.sh (README \"Performance Measurement\"):\n"
			  "# 50 steps, iterations 35-44 averaged; Megatron counts iterations from 1.\n"
			  "measure:\n  window: [35, 44]\n  indexing: one\n  steps: 50\n  metric: mean\n");
	} else if (!strcmp(im->launcher, "sbatch") || !strcmp(im->launcher, "configured_sbatch")) {
		sb_add(o, "\n# TODO measure: window (first and last iteration measured), indexing, steps, metric\n");
		imp_gap(im, ymap_get(ymap_get(im->root, "run"), "launcher_type"), "measurement window: launcher %s runs the "
			"recipe's own script and log; its README says which iterations count", im->launcher);
	}
}

/* ---- training -------------------------------------------------------------- */

/* What each launcher of llmb-run does, and what llmb does instead. */
static const struct {
	const char *launcher, *how;
} launchers[] = {
	{"nemo", "# There launch.sh runs a NeMo performance script whose NeMo-Run slurm executor\n"
		 "# submits the job itself. llmb instead writes and submits the sbatch script\n"
		 "# itself (srun with pyxis --container-image and the mounts), so that it always\n"
		 "# knows the job id it tracks: train.cmd is the program every task runs inside\n"
		 "# that job, not a launcher.\n"},
	{"sbatch", "# There llmb-run submits launch.sh with sbatch. llmb writes and submits its\n"
		   "# own sbatch script (srun with pyxis), so train.cmd is what launch.sh runs under srun.\n"},
	{"configured_sbatch", "# There llmb-run submits launch.sh with sbatch into an experiment directory it\n"
			      "# creates (LLMB_EXPERIMENT_DIR; MODEL_SIZE, DTYPE, JOB_TOTAL_GPUS, GPU_TYPE set).\n"
			      "# llmb writes and submits its own sbatch script (srun with pyxis): train.cmd is\n"
			      "# what launch.sh runs under srun, {experiment_dir} its experiment directory.\n"},
	{"megatron_bridge", NULL},
};

void
imp_train(struct imp *im, struct sb *o)
{
	const struct ynode *run = ymap_get(im->root, "run"), *lt = ymap_get(run, "launcher_type");
	static const char *const known[] = {"launcher_type", "launch_script", "gpu_configs", NULL};
	imp_ignore_unknown(im, run, known, "run.");
	const struct ynode *ls = imp_get(im, run, "launch_script", Y_SCALAR, 0);
	if (ls && !valid_path(ls->str)) {
		imp_bad(im, ls, "launch_script '%s' is not a path inside the recipe", ls->str);
		return;
	}
	size_t i = 0;
	while (i < sizeof launchers / sizeof *launchers && strcmp(launchers[i].launcher, im->launcher))
		i++;
	if (i == sizeof launchers / sizeof *launchers) {
		imp_bad(im, lt, "launcher_type '%s': expected nemo, megatron_bridge, sbatch or configured_sbatch", im->launcher);
		return;
	}
	if (!launchers[i].how) {
		imp_mb_train(im, o, ls);
		return;
	}
	sb_addf(o, "\n# upstream run.launcher_type %s, launch script %s.\n%s", im->launcher, ls ? ls->str : "launch.sh",
		launchers[i].how);
	sb_add(o, "train:\n");
	if (im->train_image)
		sb_addf(o, "  image: %s\n", im->train_image);
	sb_add(o, "  # TODO cmd: the training program and its flags, with {placeholders}\n");
	imp_gap(im, ls ? ls : lt ? lt : run, "training command: %s builds it (flags, parallelism, log directory); write train.cmd "
	    "as the command llmb runs inside its own job", ls ? ls->str : "launch.sh");
	sb_addf(o, "  source: \"upstream %s (launcher_type %s)\"\n", ls ? ls->str : "launch.sh", im->launcher);
}
