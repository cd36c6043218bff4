#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/schema.h"
#include "base/util.h"
#include "recipe/recipe.h"
#include "store/layout.h"
#include "store/stagekind.h"

/* ---- schemas ---------------------------------------------------------- */

#define SCALAR(k) {k, 0, 0, 0}
static const struct ytype t_name = SCALAR(T_NAME), t_str = SCALAR(T_STR),
	t_word = SCALAR(T_WORD), t_path = SCALAR(T_PATH), t_image = SCALAR(T_IMAGE),
	t_url = SCALAR(T_URL), t_sha = SCALAR(T_SHA), t_time = SCALAR(T_TIME),
	t_int = SCALAR(T_INT), t_num = SCALAR(T_NUM), t_bool = SCALAR(T_BOOL),
	t_expr = SCALAR(T_EXPR), t_names = SCALAR(T_NAMES);
static const struct ytype t_words = {T_LIST, &t_word, 0, 0};
static const struct ytype t_paths = {T_LIST, &t_path, 0, 0};
static const struct ytype t_ints = {T_LIST, &t_int, 0, 0};
static const struct ytype t_env = {T_VARDICT, &t_word, 0, 0}, t_vars = SCALAR(T_VARS);
static const struct ytype t_numdict = {T_DICT, &t_num, 0, 0};
static const struct ytype t_exprdict = {T_DICT, &t_expr, 0, 0};

static const char *const wtypes[] = {"pretrain", "finetune", NULL};
static const char *const log_formats[] = {"nemo2", "maxtext", "mbridge", NULL};
static const char *const indexings[] = {"zero", "one", NULL};
static const char *const metrics[] = {"mean", "last", NULL};
static const char *const git_methods[] = {"clone", "script", NULL};
static const char *const preflights[] = {"off", "warn", "fail", "exclude", NULL};
static const char *const states[] = {"FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL",
	"OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "VANISHED", NULL};
static const struct ytype t_kind = {T_ENUM, 0, 0, stage_kind_names}, t_wtype = {T_ENUM, 0, 0, wtypes},
	t_logfmt = {T_ENUM, 0, 0, log_formats}, t_indexing = {T_ENUM, 0, 0, indexings},
	t_metric = {T_ENUM, 0, 0, metrics}, t_gitm = {T_ENUM, 0, 0, git_methods},
	t_state = {T_ENUM, 0, 0, states}, t_preflight = {T_ENUM, 0, 0, preflights};
static const struct ytype t_states = {T_LIST, &t_state, 0, 0};

/* pipelines/<name>.yaml */
static const struct field retry_fields[] = {
	{"count", &t_int, 1, "how many times a failed job is submitted again"},
	{"on", &t_states, 1, "the final job states that allow a retry"},
	{NULL},
};
static const struct ytype t_retry = {T_OBJ, 0, retry_fields, 0};
static const struct field stage_fields[] = {
	{"name", &t_name, 1, "stage name, unique in the pipeline"},
	{"kind", &t_kind, 1, "image, venv, data, train, parse or report"},
	{"after", &t_names, 0, "stages this one depends on"},
	{"template", &t_name, 0, "job script template in templates/ (default: the kind)"},
	{"retry", &t_retry, 0, "retry policy for failed jobs"},
	{"time_limit", &t_time, 0, "default time limit of the stage's jobs"},
	{"preflight", &t_preflight, 0, "what a node failing its pre-flight checks does (training stages; PREFLIGHT overrides)"},
	{"description", &t_str, 0, "what the stage does"},
	{NULL},
};
static const struct ytype t_stage = {T_OBJ, 0, stage_fields, 0};
static const struct ytype t_stages = {T_LIST, &t_stage, 0, 0};
static const struct field pipeline_fields[] = {
	{"pipeline", &t_name, 1, "pipeline name, equal to the file name"},
	{"description", &t_str, 0, "what the pipeline is for"},
	{"stages", &t_stages, 1, "the stages"},
	{NULL},
};
static const struct ytype t_pipeline = {T_OBJ, 0, pipeline_fields, 0};

/* workloads/gpus.yaml */
static const struct field gpu_fields[] = {
	{"gpus_per_node", &t_int, 1, "GPUs in one node"},
	{"peak_tflops", &t_numdict, 0, "dense peak TFLOPS per dtype"},
	{"arch", &t_name, 0, "CPU architecture of the nodes (x86_64, aarch64)"},
	{"source", &t_str, 0, "where the numbers come from"},
	{NULL},
};
static const struct ytype t_gpu = {T_OBJ, 0, gpu_fields, 0};
static const struct ytype t_gpudict = {T_DICT, &t_gpu, 0, 0};
static const struct field gpus_fields[] = {
	{"gpus", &t_gpudict, 1, "GPU types by name"},
	{NULL},
};
static const struct ytype t_gpus = {T_OBJ, 0, gpus_fields, 0};

/* workloads/<name>.yaml */
static const struct field image_fields[] = {
	{"ref", &t_image, 1, "image reference, enroot form registry#path:tag"},
	{"gpus", &t_names, 0, "GPU types that use this image (default: all)"},
	{"source", &t_str, 0, "where the reference comes from"},
	{NULL},
};
static const struct ytype t_imagedef = {T_OBJ, 0, image_fields, 0};
static const struct ytype t_images = {T_DICT, &t_imagedef, 0, 0};
static const struct field repo_fields[] = {
	{"url", &t_url, 1, "git URL"},
	{"commit", &t_sha, 1, "pinned commit, 40 hex digits"},
	{"gpus", &t_names, 0, "GPU types that use this pin (default: all)"},
	{NULL},
};
static const struct ytype t_repo = {T_OBJ, 0, repo_fields, 0};
static const struct ytype t_repos = {T_DICT, &t_repo, 0, 0};
static const struct field pip_fields[] = {
	{"package", &t_name, 1, "package name"},
	{"repo", &t_name, 0, "repository key: install from its clone"},
	{"install_target", &t_str, 0, "pip target inside the clone, e.g. .[all]"},
	{"editable", &t_bool, 0, "pip install -e the clone"},
	{NULL},
};
static const struct ytype t_pip = {T_STR_OR_OBJ, 0, pip_fields, 0};
static const struct ytype t_pips = {T_LIST, &t_pip, 0, 0};
static const struct field git_fields[] = {
	{"repo", &t_name, 1, "repository key"},
	{"method", &t_gitm, 1, "clone, or script (run path inside the clone, in the venv)"},
	{"path", &t_path, 0, "script inside the clone"},
	{NULL},
};
static const struct ytype t_git = {T_OBJ, 0, git_fields, 0};
static const struct ytype t_gits = {T_LIST, &t_git, 0, 0};
static const struct field venv_fields[] = {
	{"python", &t_word, 0, "interpreter that makes the venv (default python3)"},
	{"system_site_packages", &t_bool, 0, "venv sees the interpreter's packages"},
	{"git", &t_gits, 0, "repositories installed from their clones, in order"},
	{"pip", &t_pips, 0, "pip requirements, in order"},
	{"pip_args", &t_words, 0, "extra pip arguments (e.g. --no-index --find-links ...)"},
	{NULL},
};
static const struct ytype t_venv = {T_OBJ, 0, venv_fields, 0};
static const struct field task_fields[] = {
	{"name", &t_name, 1, "task name"},
	{"cmd", &t_words, 1, "argv of the task; {placeholders} from the stage configuration"},
	{"gpus", &t_bool, 0, "runs on the GPU partition"},
	{"image", &t_name, 0, "image key to run in"},
	{"proves", &t_paths, 1, "files (relative to the workload directory) that prove it finished"},
	{"size_gb", &t_num, 0, "disk space it needs, checked before it starts"},
	{"secrets", &t_vars, 0, "environment variables passed by name (HF_TOKEN)"},
	{"env", &t_env, 0, "environment of the task"},
	{"mounts", &t_words, 0, "container mounts src:dst when the task runs in an image"},
	{"time_limit", &t_time, 0, "time limit"},
	{"source", &t_str, 0, "where the task comes from"},
	{NULL},
};
static const struct ytype t_task = {T_OBJ, 0, task_fields, 0};
static const struct ytype t_tasks = {T_LIST, &t_task, 0, 0};
static const struct ytype t_models = {T_DICT, &t_numdict, 0, 0};
static const struct field measure_fields[] = {
	{"window", &t_ints, 1, "first and last iteration measured, inclusive"},
	{"indexing", &t_indexing, 0, "zero (NeMo) or one (Megatron) based iterations"},
	{"steps", &t_int, 0, "training steps of a run (default 50)"},
	{"metric", &t_metric, 0, "mean over the window, or the last step"},
	{"tolerance_pct", &t_num, 0, "step time tolerance against the reference (default 5)"},
	{NULL},
};
static const struct ytype t_measure = {T_OBJ, 0, measure_fields, 0};
/* The srun line of the training step, as upstream's executor builds it. */
static const struct field srun_fields[] = {
	{"mpi", &t_name, 0, "srun --mpi= plugin (pmix, pmi2, none...); absent: the site's MpiDefault"},
	{"container_writable", &t_bool, 0, "pyxis --container-writable: the container's root file system is writable"},
	{"container_env", &t_names, 0, "pyxis --container-env: the variables, of those the run sets, whose value wins "
	 "over the image's ENV"},
	{NULL},
};
static const struct ytype t_srun = {T_OBJ, 0, srun_fields, 0};
/* The #SBATCH lines of the training job, as upstream's executor writes them. */
static const struct field segment_fields[] = {
	{"max", &t_int, 1, "the largest segment: --segment is the largest divisor of the node count up to it"},
	{"gpus", &t_names, 1, "the GPU types whose jobs get --segment"},
	{NULL},
};
static const struct ytype t_segment = {T_OBJ, 0, segment_fields, 0};
static const struct field sbatch_fields[] = {
	{"mem", &t_name, 0, "sbatch --mem= (0: all of each node's memory)"},
	{"segment", &t_segment, 0, "sbatch --segment= on the named GPU types (nodes kept in blocks of one rack)"},
	{NULL},
};
static const struct ytype t_sbatch = {T_OBJ, 0, sbatch_fields, 0};
static const struct field train_fields[] = {
	{"image", &t_name, 0, "image key the job runs in"},
	{"cmd", &t_words, 1, "argv of the training program; {placeholders} from the stage configuration"},
	{"env", &t_env, 0, "environment of the job"},
	{"secrets", &t_vars, 0, "environment variables passed by name"},
	{"time_limit", &t_time, 0, "time limit"},
	{"mounts", &t_words, 0, "container mounts src:dst"},
	{"srun", &t_srun, 0, "flags of the training step's srun line"},
	{"sbatch", &t_sbatch, 0, "options of the training job's sbatch"},
	{"node_setup", &t_bool, 0, "the command, run once with LLMB_NODE_SETUP=FILE, writes host commands "
		"that every node runs once before training (workloads/node-setup.sh)"},
	{"source", &t_str, 0, "where the command comes from"},
	{NULL},
};
static const struct ytype t_train = {T_OBJ, 0, train_fields, 0};
static const struct field config_fields[] = {
	{"gpu", &t_names, 1, "GPU type(s)"},
	{"size", &t_names, 1, "model size(s)"},
	{"dtype", &t_names, 1, "dtype(s)"},
	{"scales", &t_ints, 1, "GPU counts"},
	{"exact_scales", &t_bool, 0, "only the listed scales run (upstream metadata.yaml's exact_scales); else a scale above "
	 "the largest listed one (SCALES) runs with a warning, the row's parallelism kept and DP and GA derived"},
	{"params", &t_exprdict, 0, "run parameters (numbers or expressions over scale, gpus_per_node, nodes)"},
	{"time_limit", &t_time, 0, "time limit"},
	{"env", &t_env, 0, "extra environment"},
	{"args", &t_words, 0, "arguments appended to the training command for this row's runs"},
	{"recompute", &t_names, 0, "the modules whose activations the run recomputes (selective recompute), as its "
	 "framework's configuration names them"},
	{"proxy", &t_bool, 0, "a proxy run (a shrunken model): planned only when asked (PROXY, SCALES), labelled, never "
	 "compared with a reference"},
	{"source", &t_str, 0, "where the row comes from"},
	{NULL},
};
static const struct ytype t_config = {T_OBJ, 0, config_fields, 0};
static const struct ytype t_configs = {T_LIST, &t_config, 0, 0};
static const struct field ref_fields[] = {
	{"gpu", &t_name, 1, "GPU type"},
	{"size", &t_name, 1, "model size"},
	{"dtype", &t_name, 1, "dtype"},
	{"scale", &t_int, 1, "GPU count"},
	{"step_time", &t_num, 0, "published step time, seconds"},
	{"tokens_per_s", &t_num, 0, "published tokens per second"},
	{"tflops_per_gpu", &t_num, 0, "published TFLOPS per GPU"},
	{"mfu_pct", &t_num, 0, "published MFU, percent"},
	{"days_1t", &t_num, 0, "published days to train 1T tokens"},
	{"note", &t_str, 0, "what is known to be inconsistent about the row"},
	{NULL},
};
static const struct ytype t_ref = {T_OBJ, 0, ref_fields, 0};
static const struct ytype t_refs = {T_LIST, &t_ref, 0, 0};
static const struct field profile_fields[] = {
	{"start", &t_int, 1, "first profiled step"},
	{"stop", &t_int, 1, "last profiled step"},
	{"pytorch", &t_bool, 0, "ENABLE_PYTORCH_PROFILE is supported (the PyTorch profiler, same steps)"},
	{"gpu_metrics", &t_bool, 0, "ENABLE_GPU_METRICS is supported (nsys GPU metrics)"},
	{"ranks", &t_bool, 0, "PROFILE_RANKS is supported (the ranks profiled)"},
	{NULL},
};
static const struct ytype t_profile = {T_OBJ, 0, profile_fields, 0};
static const struct field knob_fields[] = {
	{"profile", &t_profile, 0, "profiling steps when ENABLE_PROFILE=true"},
	{"profile_default", &t_bool, 0, "profiling is on unless ENABLE_PROFILE=false"},
	{"nccltrace_steps", &t_int, 0, "steps of an ENABLE_NCCLTRACE run"},
	{"checkpoint", &t_bool, 0, "ENABLE_CHECKPOINT is supported"},
	{"checkpoint_gb", &t_numdict, 0, "the sizes ENABLE_CHECKPOINT supports (every size when absent), each with the space one save needs, in GB"},
	{"extra_work_args", &t_words, 0, "argv words added to the training command when EXTRA_WORK is set ({extra_work})"},
	{NULL},
};
static const struct ytype t_knobs = {T_OBJ, 0, knob_fields, 0};
static const struct field workload_fields[] = {
	{"workload", &t_name, 1, "workload name, equal to the file name"},
	{"type", &t_wtype, 1, "pretrain or finetune"},
	{"pipeline", &t_name, 1, "pipeline in pipelines/"},
	{"description", &t_str, 0, "what the workload is"},
	{"source", &t_str, 0, "where the recipe comes from"},
	{"framework", &t_name, 0, "framework name recorded with results"},
	{"log_format", &t_logfmt, 1, "nemo2, maxtext or mbridge"},
	{"images", &t_images, 0, "container images by key"},
	{"repositories", &t_repos, 0, "git repositories by key"},
	{"venv", &t_venv, 0, "the python environment"},
	{"tasks", &t_tasks, 0, "setup tasks: dataset and checkpoint downloads"},
	{"models", &t_models, 1, "model dimensions by size"},
	{"flops", &t_exprdict, 0, "model FLOPs per sample: attention, mlp, embedding (summed), factor"},
	{"measure", &t_measure, 1, "how step times are measured"},
	{"train", &t_train, 1, "the training job"},
	{"configs", &t_configs, 1, "supported GPU types, sizes, dtypes, scales and parameters"},
	{"default_gpu", &t_name, 0, "GPU type planned when GPU_TYPE is not given (default: every one)"},
	{"reference", &t_refs, 0, "published performance"},
	{"knobs", &t_knobs, 0, "defaults of the run knobs"},
	{"secrets", &t_vars, 0, "environment variables every job of the workload needs, by name"},
	{NULL},
};
static const struct ytype t_workload = {T_OBJ, 0, workload_fields, 0};

/* ---- loading ----------------------------------------------------------- */

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* *.yaml files of dir, sorted, as "dir/name". */
static char **
list_yaml(const char *dir, size_t *n)
{
	char **v = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	for (struct dirent *e; (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l > 5 && !strcmp(e->d_name + l - 5, ".yaml") && e->d_name[0] != '.') {
			v = xrealloc(v, (*n + 1) * sizeof *v);
			v[(*n)++] = xasprintf("%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, cmp_str);
	return v;
}

static struct ydoc *
load_checked(struct recipes *r, const char *path, const struct ytype *t, const char *namekey)
{
	r->files = xrealloc(r->files, (r->nfiles + 1) * sizeof *r->files);
	r->files[r->nfiles++] = xstrdup(path);
	struct ydoc *d = yaml_load_file(path);
	if (!d)
		return NULL;
	if (schema_check(path, d->root, t) || d->errors) {
		ydoc_free(d);
		return NULL;
	}
	if (namekey) {
		const struct ynode *n = ymap_get(d->root, namekey);
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		if (strlen(base) != strlen(n->str) + 5 || strncmp(base, n->str, strlen(n->str))) {
			diag_error(path, n->line, n->col, "%s '%s' must match the file name '%s'", namekey, n->str, base);
			ydoc_free(d);
			return NULL;
		}
	}
	return d;
}

int
recipes_load(struct recipes *r, const char *top)
{
	int before = diag_errors;
	memset(r, 0, sizeof *r);
	r->top = top;
	/* Paths in diagnostics read "workloads/x.yaml", not "./workloads/x.yaml". */
	int here = !strcmp(top, ".");
	char *wdir = layout_workloads(here ? NULL : top);
	char *pdir = here ? xstrdup("pipelines") : xasprintf("%s/pipelines", top);
	size_t nw, np;
	char **wf = list_yaml(wdir, &nw), **pf = list_yaml(pdir, &np);
	for (size_t i = 0; i < np; i++) {
		/* the nightly matrix and the exemplar suite are not stage graphs
		 * (nightmatrix.c and exsuite.c read them) */
		const char *base = strrchr(pf[i], '/');
		base = base ? base + 1 : pf[i];
		struct ydoc *d = strcmp(base, "nightly.yaml") && strcmp(base, "exemplar.yaml") ?
			load_checked(r, pf[i], &t_pipeline, "pipeline") : NULL;
		if (d) {
			r->pipelines = xrealloc(r->pipelines, (r->npipelines + 1) * sizeof *r->pipelines);
			r->pipelines[r->npipelines++] = d;
		}
		free(pf[i]);
	}
	for (size_t i = 0; i < nw; i++) {
		const char *base = strrchr(wf[i], '/') + 1;
		struct ydoc *d;
		if (!strcmp(base, "gpus.yaml"))
			d = r->gpus = load_checked(r, wf[i], &t_gpus, NULL);
		else if ((d = load_checked(r, wf[i], &t_workload, "workload"))) {
			r->workloads = xrealloc(r->workloads, (r->nworkloads + 1) * sizeof *r->workloads);
			r->workloads[r->nworkloads++] = d;
		}
		free(wf[i]);
	}
	if (!r->gpus && diag_errors == before)
		diag_error(wdir, 0, 0, "no gpus.yaml: the GPU table is required");
	free(wf);
	free(pf);
	free(wdir);
	free(pdir);
	return diag_errors - before;
}

void
recipes_free(struct recipes *r)
{
	for (size_t i = 0; i < r->nworkloads; i++)
		ydoc_free(r->workloads[i]);
	for (size_t i = 0; i < r->npipelines; i++)
		ydoc_free(r->pipelines[i]);
	for (size_t i = 0; i < r->nfiles; i++)
		free(r->files[i]);
	ydoc_free(r->gpus);
	free(r->workloads);
	free(r->pipelines);
	free(r->files);
	memset(r, 0, sizeof *r);
}

static const struct ynode *
find_doc(struct ydoc **docs, size_t n, const char *key, const char *name, struct ydoc **out)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(ystr(docs[i]->root, key, ""), name)) {
			if (out)
				*out = docs[i];
			return docs[i]->root;
		}
	}
	return NULL;
}

const struct ynode *
workload_find(const struct recipes *r, const char *name, struct ydoc **doc)
{
	return find_doc(r->workloads, r->nworkloads, "workload", name, doc);
}

const struct ynode *
pipeline_find(const struct recipes *r, const char *name, struct ydoc **doc)
{
	return find_doc(r->pipelines, r->npipelines, "pipeline", name, doc);
}

const struct ynode *
gpu_find(const struct recipes *r, const char *name)
{
	return r->gpus ? ymap_get(ymap_get(r->gpus->root, "gpus"), name) : NULL;
}

const char *
ystr(const struct ynode *m, const char *key, const char *def)
{
	const struct ynode *v = ymap_get(m, key);
	return v && v->kind == Y_SCALAR ? v->str : def;
}

long
yint(const struct ynode *m, const char *key, long def)
{
	const char *s = ystr(m, key, NULL);
	return s ? strtol(s, NULL, 10) : def;
}

int
ybool(const struct ynode *m, const char *key, int def)
{
	const char *s = ystr(m, key, NULL);
	return s ? !strcmp(s, "true") : def;
}

size_t
ynames(const struct ynode *v, const struct ynode *const **items, const struct ynode **one)
{
	if (!v)
		return 0;
	if (v->kind == Y_SCALAR) {
		*one = v;
		*items = one;
		return 1;
	}
	*items = (const struct ynode *const *)v->kids;
	return v->nkids;
}

int
ynames_have(const struct ynode *v, const char *name)
{
	const struct ynode *const *it, *one;
	size_t n = ynames(v, &it, &one);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(it[i]->str, name))
			return 1;
	return 0;
}
