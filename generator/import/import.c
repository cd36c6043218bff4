/* import: `llmb import [--top DIR] [-o OUT.yaml] metadata.yaml` converts an
 * upstream recipe (metadata.yaml of the NVIDIA LLM Benchmarking Collection,
 * releases 25.07 to 26.06) into an llmb workload. What the upstream keeps
 * outside metadata.yaml (the parallelism and flags of launch.sh, the
 * FLOPs formula, the proofs of setup tasks; the model dimensions where
 * llmb does not know the model) cannot be converted: each gap is an error
 * at the position it belongs to, and the output leaves the key out with a
 * TODO comment, so `llmb check` refuses the file until it is filled.
 *
 * -o writes atomically and replaces only a regular file (- or no -o: stdout).
 *
 * This module owns the command, the refusal of recipes that are not
 * training (inference, microbenchmarks, reinforcement learning), the
 * general section, the model llmb knows the workload as, and the order of
 * the output; impkit.h lists the others.
 *
 * Exit status: 0 complete, 1 converted with gaps (listed), 2 bad input
 * (nothing written), 3 not a training recipe (one line, nothing written). */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cmds.h"
#include "base/diag.h"
#include "base/schema.h"
#include "base/util.h"
#include "base/yamlload.h"
#include "import/impkit.h"
#include "import/importrun.h"
#include "import/importsrc.h"
#include "recipe/mbflops.h"
#include "store/layout.h"

/* ---- what is not training -------------------------------------------------- */

/* The upstream workload types llmb does not convert, said in one line. */
static const struct {
	const char *type, *what;
} refused[] = {
	{"inference", "an inference recipe (it serves a model and measures requests)"},
	{"microbenchmark", "a microbenchmark (it measures one part of a system, not a training run)"},
	{"rl", "a reinforcement-learning recipe (generation and training in one loop)"},
};

/* 1 (said in one line) when the file is a recipe of a kind llmb refuses. */
static int
refuse(const char *file, const struct ynode *root)
{
	const struct ynode *g = ymap_get(root, "general"), *t = ymap_get(g, "workload_type");
	const struct ynode *fw = ymap_get(g, "framework"), *lt = ymap_get(ymap_get(root, "run"), "launcher_type");
	if (!t || t->kind != Y_SCALAR)
		return 0;
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
		if (strcmp(t->str, refused[i].type))
			continue;
		int named = fw && fw->kind == Y_SCALAR && valid_name(fw->str);
		int launched = lt && lt->kind == Y_SCALAR && valid_name(lt->str);
		fprintf(stderr, "llmb import: %s: not converted: %s%s%s%s%s; llmb benchmarks training (workload_type "
			"pretrain or finetune)\n", file, refused[i].what, named ? ", framework " : "", named ? fw->str : "",
			launched ? ", launcher " : "", launched ? lt->str : "");
		return 1;
	}
	return 0;
}

/* ---- the model llmb knows ------------------------------------------------- */

/* Upstream workload (or general.model) -> llmb's model and workload file. */
static const struct {
	const char *upstream, *model;
} model_names[] = {
	{"llama3.1", "llama3.1"}, {"llama3", "llama3-lora"}, {"deepseek-v3", "deepseek-v3"},
	{"deepseek-v3-torchtitan", "deepseek-v3"}, {"qwen3", "qwen3"}, {"gpt_oss", "gpt-oss"},
	{"gpt-oss", "gpt-oss"}, {"kimi-k2", "kimi-k2"}, {"nemotron-h", "nemotron-h"},
	{"nemotron_3", "nemotron3"}, {"nemotron3", "nemotron3"}, {"nemotron4", "nemotron4"},
	{"nemotron4-15b", "nemotron4"}, {"nemotron4-340b", "nemotron4"}, {"grok1", "grok1"},
	{"llama4-maverick", "llama4-maverick"},
};

static void
find_model(struct imp *im, const struct ynode *g)
{
	const struct ynode *w = ymap_get(g, "workload"), *m = ymap_get(g, "model");
	for (int pass = 0; pass < 2 && !im->model; pass++) {
		const struct ynode *n = pass ? w : m;
		for (size_t i = 0; n && n->kind == Y_SCALAR && i < sizeof model_names / sizeof *model_names; i++)
			if (!strcmp(model_names[i].upstream, n->str))
				im->model = xstrdup(model_names[i].model);
	}
	if (!im->model)
		return;
	char *p = layout_recipe(im->top, im->model);
	if (access(p, R_OK) == 0 && (im->wl = yaml_load_file(p)) && (im->wl->errors || im->wl->root->kind != Y_MAP)) {
		ydoc_free(im->wl);
		im->wl = NULL;
	}
	free(p);
	p = xasprintf("%s/%s", im->top, MBFLOPS_TABLE);
	if (access(p, R_OK) == 0)
		im->mbt = mbtable_load(im->top);
	free(p);
}

/* ---- general -------------------------------------------------------------- */

static const struct {
	const char *framework, *log_format;
} log_formats[] = {
	{"nemo2", "nemo2"}, {"maxtext", "maxtext"}, {"megatron_bridge", "mbridge"},
};

static void
do_general(struct imp *im, struct sb *o)
{
	static const char *const known[] = {"workload", "workload_type", "gsw_version", "framework", "model", "display_name",
		"workload_aliases", NULL};
	const struct ynode *g = imp_get(im, im->root, "general", Y_MAP, 1);
	if (!g)
		return;
	imp_ignore_unknown(im, g, known, "general.");
	const struct ynode *w = imp_get(im, g, "workload", Y_SCALAR, 1), *t = imp_get(im, g, "workload_type", Y_SCALAR, 1);
	const struct ynode *fw = imp_get(im, g, "framework", Y_SCALAR, 0), *ver = imp_get(im, g, "gsw_version", Y_SCALAR, 0);
	if (ver)
		imp_check(im, ver, &imp_t_name);     /* written into a comment of the output */
	if (w && !imp_check(im, w, &imp_t_name)) {
		sb_addf(o, "workload: %s\n", w->str);
		imp_note(im, w, "save the output as " LAYOUT_WORKLOADS "/%s.yaml: the file name must match the workload", w->str);
	}
	if (t && (!strcmp(t->str, "pretrain") || !strcmp(t->str, "finetune")))
		sb_addf(o, "type: %s\n", t->str);
	else if (t)
		imp_bad(im, t, "workload_type '%s': expected pretrain or finetune (inference, microbenchmark and rl are "
			"refused: llmb benchmarks training)", t->str);
	sb_add(o, "pipeline: benchmark\n");
	if (w && t) {
		sb_add(o, "description: ");
		char *d = xasprintf("%s %s, imported from upstream metadata.yaml", w->str, t->str);
		imp_q(o, d);
		free(d);
		sb_add(o, "\n");
	}
	sb_add(o, "source: ");
	char *src = xasprintf("upstream metadata.yaml%s%s", ver ? ", release " : "", ver ? ver->str : "");
	imp_q(o, src);
	free(src);
	sb_add(o, "\n");
	if (fw && !imp_check(im, fw, &imp_t_name)) {
		sb_addf(o, "framework: %s\n", fw->str);
		for (size_t i = 0; i < sizeof log_formats / sizeof *log_formats; i++)
			if (!strcmp(fw->str, log_formats[i].framework))
				im->log_format = log_formats[i].log_format;
		if (im->log_format)
			sb_addf(o, "log_format: %s\n", im->log_format);
		else {
			sb_add(o, "# TODO log_format: nemo2, maxtext or mbridge (the log this framework writes)\n");
			imp_gap(im, fw, "framework '%s' has no log format llmb parses (nemo2, maxtext, mbridge): set log_format",
				fw->str);
		}
	} else if (!fw) {
		sb_add(o, "# TODO log_format: nemo2, maxtext or mbridge\n");
		imp_gap(im, g, "no general.framework: set log_format");
	}
	find_model(im, g);
	if (im->model && w && strcmp(im->model, w->str))
		imp_note(im, w, "llmb knows this model as '%s' (workloads/%s.yaml)", im->model, im->model);
}

/* ---- command -------------------------------------------------------------- */

static void
imp_free(struct imp *im)
{
	for (size_t i = 0; i < im->nimgs; i++) {
		free(im->imgs[i].key);
		sb_free(&im->imgs[i].gpus);
	}
	free(im->imgs);
	index_free(&im->img_refs);
	index_free(&im->img_keys);
	index_free(&im->repo_keys);
	index_free(&im->hf_names);
	free(im->train_image);
	free(im->model);
	if (im->wl)
		ydoc_free(im->wl);
	if (im->mbt)
		ydoc_free(im->mbt);
	sb_free(&im->repos);
	sb_free(&im->extra_repos);
	sb_free(&im->venv_git);
	sb_free(&im->venv_pip);
	free(im->sizes);
	index_free(&im->size_set);
}

static void
convert(struct imp *im, struct sb *o)
{
	static const char *const known[] = {"general", "container", "repositories", "setup", "run", "tools", "downloads", NULL};
	struct sb head = {0}, venv = {0}, tasks = {0}, tools = {0}, configs = {0}, models = {0}, measure = {0}, train = {0};
	const char *base = strrchr(im->file, '/');
	imp_ignore_unknown(im, im->root, known, "");
	const struct ynode *run = imp_get(im, im->root, "run", Y_MAP, 1);
	const struct ynode *lt = imp_get(im, run, "launcher_type", Y_SCALAR, 0);
	im->launcher = lt ? lt->str : "nemo";
	im->gpu_configs = imp_get(im, run, "gpu_configs", Y_MAP, run != NULL);
	do_general(im, &head);
	imp_images(im, &head);
	imp_repos(im);
	imp_venv(im, &venv);
	imp_tasks(im, &tasks);
	imp_tools(im, &tools);
	imp_configs(im, &configs);
	imp_models(im, &models);
	imp_measure(im, &measure);
	imp_train(im, &train);
	/* The file's name goes into a comment: a control character (a newline
	 * would end the comment) is written as '?'. */
	char *name = xstrdup(base ? base + 1 : im->file);
	for (char *c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	sb_addf(o, "# Imported by llmb import from upstream %s. Every TODO below is something the\n"
		   "# upstream keeps outside metadata.yaml; llmb check refuses the file until they are filled.\n", name);
	free(name);
	sb_add(o, head.buf ? head.buf : "");
	if (im->repos.len || im->extra_repos.len)
		sb_addf(o, "\nrepositories:\n%s%s", im->repos.buf ? im->repos.buf : "", im->extra_repos.buf ? im->extra_repos.buf : "");
	struct sb *parts[] = {&venv, &tasks, &tools, &models, &measure, &train, &configs};
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
		sb_add(o, parts[i]->buf ? parts[i]->buf : "");
		sb_free(parts[i]);
	}
	sb_free(&head);
}

int
cmd_import(int argc, char **argv)
{
	static const char usage[] = "usage: llmb import [--top DIR] [-o OUT.yaml|-] metadata.yaml\n"
		"Converts an upstream recipe (metadata.yaml, releases 25.07-26.06) into an llmb workload;\n"
		"model dimensions and FLOPs come from the llmb checkout DIR (default .) when it knows the model.\n"
		"Exit 0: complete; 1: converted, with gaps listed as errors; 2: bad input;\n"
		"3: not a training recipe (inference, microbenchmark, rl): nothing converted.\n";
	static const struct option lo[] = {{"output", required_argument, 0, 'o'}, {"top", required_argument, 0, 't'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	const char *out = NULL, *top = ".";     /* out NULL or "-": stdout */
	optind = 1;
	for (int c; (c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1;) {
		if (c == 'o')
			out = optarg;
		else if (c == 't')
			top = optarg;
		else if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage, stderr);
		return 2;
	}
	if (out && !strcmp(out, "-"))
		out = NULL;
	/* Only a regular file (or nothing) is replaced: never a device, a
	 * FIFO, a directory or a link such as /dev/stdout. */
	if (out && out_path_ok("llmb import", out) < 0)
		return 2;
	struct imp im = {.file = argv[optind], .top = top};
	/* The loader's complaints are said only about a file that is converted. */
	struct sb held = {0};
	diag_hold = &held;
	struct ydoc *d = yaml_load_file(im.file);
	diag_hold = NULL;
	if (d && d->root->kind == Y_MAP && refuse(im.file, d->root)) {
		sb_free(&held);
		ydoc_free(d);
		return 3;
	}
	fputs(held.buf ? held.buf : "", stderr);
	sb_free(&held);
	if (!d)
		return 2;
	im.root = d->root;
	im.bad = d->errors;
	struct sb o = {0};
	if (im.root->kind != Y_MAP)
		imp_bad(&im, im.root, "a metadata.yaml is a mapping (general, container, setup, run)");
	else
		convert(&im, &o);
	int rc = im.bad ? 2 : im.gaps ? 1 : 0;
	if (!im.bad) {
		if (!out)
			fwrite(o.buf, 1, o.len, stdout);
		else if (write_file_atomic(out, o.buf, o.len) < 0) {
			fprintf(stderr, "llmb import: error: cannot write '%s'\n", out);
			rc = 2;
		}
	}
	if (im.bad)
		fprintf(stderr, "llmb import: %d error%s in %s: nothing written\n", im.bad, im.bad == 1 ? "" : "s", im.file);
	else if (im.gaps)
		fprintf(stderr, "llmb import: converted with %d gap%s to fill in (the errors above, TODO in the output)\n",
			im.gaps, im.gaps == 1 ? "" : "s");
	sb_free(&o);
	imp_free(&im);
	ydoc_free(d);
	return rc;
}
