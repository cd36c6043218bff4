/* importmb: the megatron_bridge launcher of an imported recipe (import.h).
 * Upstream's launch.sh runs Megatron-Bridge's scripts/performance
 * setup_experiment.py, which hands run_script.py to NeMo-Run to submit.
 * llmb submits the job itself and runs workloads/mbridge-launch.py in every
 * task, which execs run_script.py from the pinned clone: the output's
 * train section is the one llmb's own Megatron-Bridge recipes have
 * (workloads/llama3.1.yaml and the others), with the model family of the
 * table below. What launch.sh decides per row (the recipe name, the compute
 * dtype, the parallelism and batch, the environment of the performance
 * plugin) is not in metadata.yaml: each row says so in a TODO. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/impkit.h"
#include "import/importmb.h"

/* llmb's model -> setup_experiment.py --model_family_name, and the
 * arguments its launch.sh adds (as llmb's recipe of the model has them). */
static const struct {
	const char *model, *family, *extra;
} families[] = {
	{"llama3.1", "llama", "\"--config_variant\", \"v2\", "},
	{"deepseek-v3", "deepseek", ""},
	{"qwen3", "qwen", ""},
	{"gpt-oss", "gpt_oss", "\"--task\", \"pretrain\", \"--config_variant\", \"v2\", "},
	{"kimi-k2", "kimi", ""},
	{"nemotron-h", "nemotronh", ""},
	{"nemotron3", "nemotronh", ""},
};

/* utils/executors.py's PERF_ENV_VARS with --offline, and launch.sh's
 * OPENBLAS_NUM_THREADS and HF_HOME: what every llmb Megatron-Bridge recipe
 * sets for the whole job. */
static const char *const job_env[][2] = {
	{"TORCH_NCCL_AVOID_RECORD_STREAMS", "1"}, {"TRANSFORMERS_OFFLINE", "1"}, {"TOKENIZERS_PARALLELISM", "False"},
	{"NCCL_NVLS_ENABLE", "0"}, {"TORCH_NCCL_HIGH_PRIORITY", "1"}, {"HF_HUB_OFFLINE", "1"},
	{"OPENBLAS_NUM_THREADS", "1"}, {"HF_HOME", "{install}/.cache/huggingface"},
};

/* The --model_recipe_name llmb's recipe of the model gives size, or NULL. */
static const char *
recipe_name(const struct imp *im, const char *size)
{
	const struct ynode *cs = im->wl ? ymap_get(im->wl->root, "configs") : NULL;
	for (size_t i = 0; cs && cs->kind == Y_SEQ && i < cs->nkids; i++) {
		const struct ynode *sz = ymap_get(cs->kids[i], "size"), *a = ymap_get(cs->kids[i], "args");
		if (!sz || sz->kind != Y_SCALAR || strcmp(sz->str, size) || !a || a->kind != Y_SEQ)
			continue;
		for (size_t j = 0; j + 1 < a->nkids; j++)
			if (a->kids[j]->kind == Y_SCALAR && !strcmp(a->kids[j]->str, "--model_recipe_name") &&
			    a->kids[j + 1]->kind == Y_SCALAR && valid_name(a->kids[j + 1]->str))
				return a->kids[j + 1]->str;
	}
	return NULL;
}

void
imp_mb_row(struct imp *im, struct sb *o, const char *size)
{
	const char *rn = recipe_name(im, size);
	sb_addf(o, "    # TODO args: [\"--model_recipe_name\", \"%s\", \"--compute_dtype\", \"...\"] and env:\n"
		   "    # launch.sh's recipe and compute dtype (bf16, fp8_cs, fp8_mx, nvfp4) and the\n"
		   "    # environment perf_plugins.py sets for this GPU, dtype and parallelism.\n", rn ? rn : "...");
}

void
imp_mb_train(struct imp *im, struct sb *o, const struct ynode *ls)
{
	const struct ynode *run = ymap_get(im->root, "run");
	const struct ynode *wt = ymap_get(ymap_get(im->root, "general"), "workload_type");
	const char *script = ls ? ls->str : "launch.sh";
	const char *family = NULL, *extra = "";
	/* A workload_type missing or not a string is an error of the general
	 * section already; here it only means no known family. */
	int pretrain = wt && wt->kind == Y_SCALAR && !strcmp(wt->str, "pretrain");
	for (size_t i = 0; pretrain && im->model && i < sizeof families / sizeof *families; i++)
		if (!strcmp(families[i].model, im->model)) {
			family = families[i].family;
			extra = families[i].extra;
		}
	int have_mb = im->repos.buf && strstr(im->repos.buf, "\n  megatron_bridge:\n") ? 1 :
		im->repos.buf && !strncmp(im->repos.buf, "  megatron_bridge:\n", 19);
	int hf = ymap_get(im->root, "downloads") != NULL;
	if (im->nsizes)
		imp_gap(im, im->gpu_configs, "each row's Megatron-Bridge recipe name and compute dtype (--model_recipe_name, "
			"--compute_dtype) and environment: %s and perf_plugins.py choose them per GPU type, size and dtype; "
			"fill in args and env", script);
	sb_addf(o, "\n# upstream run.launcher_type megatron_bridge, launch script %s: it runs\n"
		   "# Megatron-Bridge's scripts/performance/setup_experiment.py, whose NeMo-Run\n"
		   "# executor submits the job. llmb submits the job itself, so that it always\n"
		   "# knows the job id it tracks, and runs workloads/mbridge-launch.py in every\n"
		   "# task, which execs run_script.py from the pinned clone with the same\n"
		   "# arguments (as llmb's own Megatron-Bridge recipes, e.g. workloads/llama3.1.yaml).\n"
		   "# -gb passes each row's GBS (params.gbs). launch.sh's TIME_LIMIT is not in\n"
		   "# metadata.yaml: without time_limit the pipeline's default applies.\n", script);
	sb_add(o, "train:\n");
	if (im->train_image)
		sb_addf(o, "  image: %s\n", im->train_image);
	if (!family || !have_mb) {
		sb_addf(o, "  # TODO cmd: [\"python3\", \"{top}/workloads/mbridge-launch.py\", \"--mbridge-src\", "
			   "\"{repo_megatron_bridge}\", \"--\",\n  #   \"--model_family_name\", \"%s\", ...] as in workloads/llama3.1.yaml\n",
			   family ? family : "...");
		imp_gap(im, ls ? ls : run, "training command: %s", !have_mb ? "no repository 'megatron_bridge' to run "
			"scripts/performance from; write train.cmd" : "llmb knows no Megatron-Bridge model family for this "
			"workload (setup_experiment.py --model_family_name, --task); write train.cmd as in workloads/llama3.1.yaml");
	} else {
		sb_addf(o, "  cmd: [\"python3\", \"{top}/workloads/mbridge-launch.py\", \"--mbridge-src\", \"{repo_megatron_bridge}\", \"--\",\n"
			   "        \"--model_family_name\", \"%s\", \"--gpu\", \"{gpu}\", \"--container_image\", \"{image_file}\",\n"
			   "        \"--num_gpus\", \"{scale}\", \"--gpus_per_node\", \"{gpus_per_node}\", \"--offline\",\n"
			   "        \"--max_steps={steps}\", %s\"--enable_pct_binding\", \"false\", %s\"--log_dir\", \"{experiment_dir}\",\n"
			   "        \"-gb\", \"{gbs}\"]\n", family, hf ? "\"--custom_mounts={install}/.cache/huggingface\",\n        " : "",
			   extra);
		imp_note(im, ls ? ls : run, "train.cmd is llmb's for model family '%s' (from its recipe of %s); check it against this "
			 "release's %s", family, im->model, script);
	}
	sb_add(o, "  mounts: [\"{install}:{install}\", \"{top}/workloads:{top}/workloads:ro\"]\n  env:\n");
	for (size_t i = 0; i < sizeof job_env / sizeof *job_env; i++)
		sb_addf(o, "    %s: \"%s\"\n", job_env[i][0], job_env[i][1]);
	sb_add(o, "  srun:\n    mpi: pmix\n    container_writable: true\n");
	sb_addf(o, "  source: \"upstream %s (launcher_type megatron_bridge); llmb's workloads/mbridge-launch.py\"\n", script);
}
