#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "expr.h"
#include "flops.h"
#include "layout.h"
#include "makesafe.h"
#include "nightmatrix.h"
#include "plan.h"
#include "recipecheck.h"
#include "runcheck.h"
#include "schema.h"
#include "slurm.h"
#include "stagecfg.h"
#include "stagekind.h"

const char *const knob_names[K_NKNOBS] = {
	"WORKLOAD", "SIZE", "DTYPE", "GPU_TYPE", "SCALES",
	"ENABLE_PROFILE", "PROFILE_START_STEP", "PROFILE_STOP_STEP",
	"ENABLE_NCCLTRACE", "ENABLE_CHECKPOINT", "LOAD_CHECKPOINT_PATH",
	"ADDITIONAL_SLURM_PARAMS", "TIME_LIMIT", "MAX_STEPS", "EXTRA_WORK",
};

void
sel_from_env(struct sel *s)
{
	for (int i = 0; i < K_NKNOBS; i++) {
		const char *v = getenv(knob_names[i]);
		s->v[i] = v && *v ? v : NULL;
	}
	s->night = getenv("LLMB_NIGHT") && *getenv("LLMB_NIGHT") ? getenv("LLMB_NIGHT") : NULL;
	s->nightly = getenv("LLMB_NIGHTLY") && *getenv("LLMB_NIGHTLY") ? getenv("LLMB_NIGHTLY") : NULL;
}

/* ---- small helpers ------------------------------------------------------ */

static int
in_words(const char *list, const char *w)
{
	if (!list)
		return 1;
	size_t l = strlen(w);
	for (const char *p = list; *p;) {
		p += strspn(p, " \t,");
		size_t n = strcspn(p, " \t,");
		if (n == l && !strncmp(p, w, l))
			return 1;
		p += n;
	}
	return 0;
}

static void
fmt_num(char *buf, size_t len, double v)
{
	if (fabs(v) < 1e15 && v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.10g", v);
}

/* Values known for one run: coordinates, model dimensions, parameters. */
#define MAXVARS 96
struct vars {
	const char *name[MAXVARS];
	double val[MAXVARS];
	int n;
};

static void
var_set(struct vars *vs, const char *name, double v)
{
	for (int i = 0; i < vs->n; i++) {
		if (!strcmp(vs->name[i], name)) {
			vs->val[i] = v;
			return;
		}
	}
	if (vs->n < MAXVARS) {
		vs->name[vs->n] = name;
		vs->val[vs->n++] = v;
	}
}

static int
var_lookup(void *ctx, const char *name, double *v)
{
	struct vars *vs = ctx;
	for (int i = 0; i < vs->n; i++) {
		if (!strcmp(vs->name[i], name)) {
			*v = vs->val[i];
			return 0;
		}
	}
	return -1;
}

/* The run being expanded: its text coordinates are placeholders too. */
static const char *cur_gpu, *cur_size, *cur_dtype;

static const char *
text_placeholder(const char *name)
{
	if (!strcmp(name, "gpu"))
		return cur_gpu;
	if (!strcmp(name, "size"))
		return cur_size;
	if (!strcmp(name, "dtype"))
		return cur_dtype;
	return NULL;
}

/* Expands {name} placeholders with run values into out; -1 at an unknown
 * one (runcheck.c said so at its place). */
static int
expand_word(const struct ynode *w, struct vars *vs, struct sb *out)
{
	const char *s = w->str;
	while (*s) {
		const char *o = strchr(s, '{');
		if (!o) {
			sb_add(out, s);
			break;
		}
		sb_addn(out, s, (size_t)(o - s));
		const char *c = strchr(o, '}');
		size_t n = (size_t)(c - o - 1);
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)n, o + 1);
		double v;
		if (layout_path_placeholder(o + 1, n)) {
			sb_addn(out, o, n + 2);
		} else if (text_placeholder(name)) {
			sb_add(out, text_placeholder(name));
		} else if (!var_lookup(vs, name, &v)) {
			char buf[64];
			fmt_num(buf, sizeof buf, v);
			sb_add(out, buf);
		} else {
			return -1;
		}
		s = c + 1;
	}
	return 0;
}

/* ---- instances ------------------------------------------------------------ */


static struct inst *
add_inst(struct plan *p, char *id, const struct ynode *stage, const struct ynode *wl)
{
	p->v = xrealloc(p->v, (p->n + 1) * sizeof *p->v);
	struct inst *in = &p->v[p->n++];
	memset(in, 0, sizeof *in);
	in->id = id;
	in->stage = stage;
	in->kind = ystr(stage, "kind", "");
	in->wl = wl;
	in->workload = ystr(wl, "workload", "");
	index_add(&p->ids, id, p->n - 1);
	return in;
}

static void
add_output(struct inst *in, char *path)
{
	in->outputs = xrealloc(in->outputs, (in->noutputs + 1) * sizeof *in->outputs);
	in->outputs[in->noutputs++] = path;
}

static void
add_serves(struct inst *in, const char *w)
{
	for (size_t i = 0; i < in->nserves; i++)
		if (!strcmp(in->serves[i], w))
			return;
	in->serves = xrealloc(in->serves, (in->nserves + 1) * sizeof *in->serves);
	in->serves[in->nserves++] = xstrdup(w);
}

struct inst *
plan_find(struct plan *p, const char *id)
{
	long i = index_get(&p->ids, id);
	return i < 0 ? NULL : &p->v[i];
}

struct wctx {
	struct plan *p;
	struct ydoc *doc;
	const char *file;
	const struct ynode *wl;
	struct plan_run *runs;
	size_t nruns;
	int knobs_ok;  /* the run knobs suit the workload (check_wl_knobs) */
	int unsaid;    /* problems met that runcheck.c should have said */
};

static const char *
sel_v(const struct sel *s, enum knob k)
{
	return s->v[k];
}

static void
list_names(struct sb *sb, const struct ynode *v)
{
	const struct ynode *const *it, *one;
	size_t n = ynames(v, &it, &one);
	for (size_t i = 0; i < n; i++) {
		int dup = 0;
		if (sb->len) {
			/* avoid repeats across rows */
			const char *q = sb->buf;
			size_t l = strlen(it[i]->str);
			while ((q = strstr(q, it[i]->str))) {
				if ((q == sb->buf || q[-1] == ' ') && (q[l] == ',' || q[l] == 0))
					dup = 1;
				q += l;
			}
		}
		if (!dup)
			sb_addf(sb, "%s%s", sb->len ? ", " : "", it[i]->str);
	}
}

/* Refuses a selection value that no config row of the workload offers,
 * listing what is valid. */
static int
check_sel_value(struct wctx *w, const struct sel *s, enum knob k, const char *key, const char *gpu)
{
	const char *want = sel_v(s, k);
	if (!want)
		return 0;
	const struct ynode *configs = ymap_get(w->wl, "configs");
	struct sb valid = {0};
	int bad = 0;
	for (const char *p = want; *p;) {
		p += strspn(p, " ,");
		size_t n = strcspn(p, " ,");
		if (!n)
			break;
		char *one = xstrndup(p, n);
		int found = 0;
		sb_reset(&valid);
		for (size_t i = 0; i < configs->nkids; i++) {
			const struct ynode *row = configs->kids[i];
			if (gpu && !ynames_have(ymap_get(row, "gpu"), gpu))
				continue;
			found |= ynames_have(ymap_get(row, key), one);
			list_names(&valid, ymap_get(row, key));
		}
		if (!found) {
			/* A dtype with no peak for the GPU type is a hardware limit. */
			const struct ynode *peaks = gpu ? ymap_get(gpu_find(&w->p->rec, gpu), "peak_tflops") : NULL;
			int nohw = k == K_DTYPE && peaks && !ymap_get(peaks, one);
			char hw[160] = "";
			if (nohw)
				snprintf(hw, sizeof hw, " (%s has no %s: gpus.yaml lists no %s peak for it)", gpu, one, one);
			fprintf(stderr, "llmb: error: %s=%s is not supported by workload %s%s%s%s; valid: %s\n",
				knob_names[k], one, ystr(w->wl, "workload", ""), gpu ? " on " : "", gpu ? gpu : "", hw,
				valid.buf ? valid.buf : "none");
			diag_errors++;
			bad = 1;
		}
		free(one);
		p += n;
	}
	sb_free(&valid);
	return bad;
}

static int
select_runs(struct wctx *w, const struct sel *s, int all)
{
	const struct ynode *configs = ymap_get(w->wl, "configs");
	const char *gpu_sel = all ? NULL : sel_v(s, K_GPU_TYPE);
	const char *gpu_def = recipe_default_gpu(w->wl);
	if (!all) {
		if (check_sel_value(w, s, K_GPU_TYPE, "gpu", NULL))
			return -1;
		/* A workload with a default GPU type (the CPU demo) plans only
		 * it unless GPU_TYPE says otherwise. */
		if (!gpu_sel)
			gpu_sel = gpu_def;
		if (!gpu_sel && sel_v(s, K_WORKLOAD)) {
			struct sb gpus = {0};
			for (size_t i = 0; i < configs->nkids; i++)
				list_names(&gpus, ymap_get(configs->kids[i], "gpu"));
			if (strchr(gpus.buf, ',')) {
				fprintf(stderr, "llmb: error: GPU_TYPE is required for workload %s: one of %s\n",
					ystr(w->wl, "workload", ""), gpus.buf);
				diag_errors++;
				sb_free(&gpus);
				return -1;
			}
			sb_free(&gpus);
		}
		int bad = check_sel_value(w, s, K_SIZE, "size", gpu_sel) |
			  check_sel_value(w, s, K_DTYPE, "dtype", gpu_sel);
		if (bad)
			return -1;
	}
	/* The names and scales were checked by recipe_check_runs: a run
	 * whose GPU type or size is unknown is left out. */
	for (size_t i = 0; i < configs->nkids; i++) {
		const struct ynode *row = configs->kids[i];
		const struct ynode *const *g, *const *sz, *const *dt, *o1, *o2, *o3;
		size_t ng = ynames(ymap_get(row, "gpu"), &g, &o1);
		size_t ns = ynames(ymap_get(row, "size"), &sz, &o2);
		size_t nd = ynames(ymap_get(row, "dtype"), &dt, &o3);
		const struct ynode *scales = ymap_get(row, "scales");
		for (size_t a = 0; a < ng; a++) {
			if (!gpu_find(&w->p->rec, g[a]->str))
				continue;
			for (size_t b = 0; b < ns; b++) {
				if (!ymap_get(ymap_get(w->wl, "models"), sz[b]->str))
					continue;
				for (size_t c = 0; c < nd; c++) {
					for (size_t d = 0; d < scales->nkids; d++) {
						long sc = strtol(scales->kids[d]->str, NULL, 10);
						if (!all && (!in_words(gpu_sel, g[a]->str) || !in_words(sel_v(s, K_SIZE), sz[b]->str) ||
							     !in_words(sel_v(s, K_DTYPE), dt[c]->str)))
							continue;
						w->runs = xrealloc(w->runs, (w->nruns + 1) * sizeof *w->runs);
						w->runs[w->nruns++] = (struct plan_run){row, g[a]->str, sz[b]->str, dt[c]->str, sc};
					}
				}
			}
		}
	}
	/* SCALES: each must be a configured scale of every selected combination. */
	const char *scales_sel = all ? NULL : sel_v(s, K_SCALES);
	if (scales_sel) {
		for (const char *q = scales_sel; *q;) {
			q += strspn(q, " ,");
			size_t n = strcspn(q, " ,");
			if (!n)
				break;
			char *end;
			long sc = strtol(q, &end, 10);
			int found = 0;
			for (size_t j = 0; j < w->nruns; j++)
				found |= w->runs[j].scale == sc;
			if (end != q + n || !found) {
				struct sb valid = {0};
				for (size_t j = 0; j < w->nruns; j++) {
					char b[32];
					snprintf(b, sizeof b, "%ld", w->runs[j].scale);
					if (!in_words(valid.buf ? valid.buf : "", b) || !valid.len)
						sb_addf(&valid, "%s%s", valid.len ? " " : "", b);
				}
				fprintf(stderr, "llmb: error: SCALES: %.*s is not a configured scale of %s for this selection; valid: %s\n",
					(int)n, q, ystr(w->wl, "workload", ""), valid.buf ? valid.buf : "none");
				sb_free(&valid);
				diag_errors++;
				return -1;
			}
			q += n;
		}
		size_t k = 0;
		for (size_t j = 0; j < w->nruns; j++) {
			char buf[32];
			snprintf(buf, sizeof buf, "%ld", w->runs[j].scale);
			if (in_words(scales_sel, buf))
				w->runs[k++] = w->runs[j];
		}
		w->nruns = k;
	}
	return 0;
}

/* ---- the stage graph of a pipeline ---------------------------------------- */

/* Topological order of the pipeline's stages; a cycle is an error that
 * names every stage on it with its position. */
static int
stage_order(const char *file, const struct ynode *pl, const struct ynode **order)
{
	const struct ynode *stages = ymap_get(pl, "stages");
	size_t n = stages->nkids;
	int *mark = xcalloc(n, sizeof *mark), errs = 0;
	size_t *stack = xcalloc(n + 1, sizeof *stack), no = 0;
	for (size_t i = 0; i < n; i++) {
		const struct ynode *const *it, *one;
		size_t na = ynames(ymap_get(stages->kids[i], "after"), &it, &one);
		for (size_t j = 0; j < na; j++) {
			size_t k;
			for (k = 0; k < n; k++)
				if (!strcmp(ystr(stages->kids[k], "name", ""), it[j]->str))
					break;
			if (k == n) {
				diag_error(file, it[j]->line, it[j]->col, "'after' names an unknown stage '%s'", it[j]->str);
				errs++;
			}
		}
		for (size_t k = 0; k < i; k++) {
			if (!strcmp(ystr(stages->kids[k], "name", ""), ystr(stages->kids[i], "name", ""))) {
				const struct ynode *nm = ymap_get(stages->kids[i], "name");
				diag_error(file, nm->line, nm->col, "duplicate stage name '%s'", nm->str);
				errs++;
			}
		}
	}
	/* Depth-first search with an explicit path for the cycle message. */
	int cyc = 0;
	for (size_t root = 0; root < n && !cyc; root++) {
		if (mark[root])
			continue;
		size_t depth = 0;
		size_t *next = xcalloc(n, sizeof *next);
		stack[depth++] = root;
		mark[root] = 1;
		while (depth && !cyc) {
			size_t cur = stack[depth - 1];
			const struct ynode *const *it, *one;
			size_t na = ynames(ymap_get(stages->kids[cur], "after"), &it, &one);
			if (next[cur] < na) {
				const char *dep = it[next[cur]++]->str;
				size_t k;
				for (k = 0; k < n; k++)
					if (!strcmp(ystr(stages->kids[k], "name", ""), dep))
						break;
				if (k == n)
					continue; /* unknown: reported above */
				if (mark[k] == 1) {
					struct sb path = {0};
					size_t from = 0;
					while (stack[from] != k)
						from++;
					for (size_t q = from; q < depth; q++) {
						const struct ynode *s = stages->kids[stack[q]];
						sb_addf(&path, "%s (%d:%d) -> ", ystr(s, "name", ""), s->line, s->col);
					}
					sb_addf(&path, "%s", ystr(stages->kids[k], "name", ""));
					diag_error(file, stages->kids[k]->line, stages->kids[k]->col,
						   "stage dependency cycle: %s", path.buf);
					sb_free(&path);
					cyc = 1;
				} else if (!mark[k]) {
					mark[k] = 1;
					stack[depth++] = k;
				}
			} else {
				mark[cur] = 2;
				order[no++] = stages->kids[cur];
				depth--;
			}
		}
		free(next);
	}
	free(mark);
	free(stack);
	return errs || cyc ? -1 : (int)no;
}

/* ---- building instances per stage kind ------------------------------------- */

static void
cfg_line(struct inst *in, const char *key, const char *val)
{
	cfg_add(&in->cfg, key, val);
}

static const char *
time_limit_for(const struct wctx *w, const struct ynode *stage, const struct ynode *specific, const struct sel *s)
{
	if (s->v[K_TIME_LIMIT])
		return s->v[K_TIME_LIMIT];
	const char *t = specific ? ystr(specific, "time_limit", NULL) : NULL;
	if (!t)
		t = ystr(ymap_get(w->wl, "train"), "time_limit", NULL);
	if (!t)
		t = ystr(stage, "time_limit", NULL);
	return t;
}

static void
add_secrets(struct inst *in, const struct ynode *v)
{
	const struct ynode *const *it, *one;
	size_t n = ynames(v, &it, &one);
	for (size_t i = 0; i < n; i++) {
		char *line = xasprintf("secret=%s\n", it[i]->str);
		if (!in->cfg.buf || !strstr(in->cfg.buf, line))
			cfg_line(in, "secret", it[i]->str);
		free(line);
	}
}

static void
add_env(struct wctx *w, struct inst *in, const struct ynode *env, struct vars *vs)
{
	for (size_t i = 0; i < ymap_len(env); i++) {
		struct sb v = {0};
		sb_addf(&v, "%s=", ymap_key(env, i)->str);
		if (expand_word(ymap_val(env, i), vs, &v) == 0)
			cfg_line(in, "env", v.buf);
		else
			w->unsaid++;
		sb_free(&v);
	}
}

/* A program or data file of the checkout that a command names
 * ({recipe_dir}/train.py, {top}/workloads/x.py) decides the stage's output
 * as much as its arguments: its content hash joins the configuration, so
 * editing the script re-runs the stages that use it. Hashes are cached:
 * thousands of runs share one script. */
static void
add_file_hash(struct wctx *w, struct inst *in, const char *word)
{
	const char *rest;
	char *path;
	if (!strncmp(word, "{recipe_dir}/", 13)) {
		rest = word + 13;
		path = xasprintf("%s/workloads/%s/%s", w->p->rec.top, in->workload, rest);
	} else if (!strncmp(word, "{top}/", 6)) {
		rest = word + 6;
		path = xasprintf("%s/%s", w->p->rec.top, rest);
	} else {
		return;
	}
	if (strchr(rest, '{')) {
		free(path);
		return;
	}
	/* The file becomes a prerequisite in the make rules: a name make
	 * would read as syntax ($, #, %, :, spaces...) is refused (runcheck.c
	 * said so). */
	if (!valid_path(rest) || !mk_word_ok(rest)) {
		w->unsaid++;
		free(path);
		return;
	}
	long k = index_get(&w->p->files, path);
	if (k < 0) {
		size_t len;
		char *data = read_file(path, &len);
		struct plan *p = w->p;
		p->fhash = xrealloc(p->fhash, (p->nfhash + 1) * sizeof *p->fhash);
		if (data)
			sha256_hex(data, len, p->fhash[p->nfhash]);
		else
			snprintf(p->fhash[p->nfhash], sizeof *p->fhash, "missing");
		free(data);
		k = (long)p->nfhash++;
		index_add(&p->files, path, (size_t)k);
	}
	char *line = xasprintf("%s %s", word, w->p->fhash[k]);
	cfg_line(in, "file", line);
	free(line);
	free(path);
}

static void
add_mounts(struct wctx *w, struct inst *in, const struct ynode *mounts, struct vars *vs)
{
	for (size_t i = 0; mounts && i < mounts->nkids; i++) {
		struct sb m = {0};
		if (!expand_word(mounts->kids[i], vs, &m))
			cfg_line(in, "mount", m.buf);
		else
			w->unsaid++;
		sb_free(&m);
	}
}

static void
add_argv(struct wctx *w, struct inst *in, const struct ynode *cmd, struct vars *vs)
{
	for (size_t i = 0; i < cmd->nkids; i++) {
		struct sb v = {0};
		if (expand_word(cmd->kids[i], vs, &v) == 0) {
			cfg_line(in, "arg", v.buf ? v.buf : "");
			add_file_hash(w, in, v.buf ? v.buf : "");
		} else {
			w->unsaid++;
		}
		sb_free(&v);
	}
}

static void
build_images(struct wctx *w, const struct ynode *stage)
{
	const struct ynode *images = ymap_get(w->wl, "images");
	for (size_t i = 0; i < ymap_len(images); i++) {
		const struct ynode *im = ymap_val(images, i);
		const struct ynode *gpus = ymap_get(im, "gpus");
		int used = !gpus;
		for (size_t j = 0; j < w->nruns && !used; j++)
			used = ynames_have(gpus, w->runs[j].gpu);
		if (!used)
			continue;
		char *stem = image_stem(ystr(im, "ref", ""));
		char *id = xasprintf("%s.%s", ystr(stage, "name", ""), stem);
		struct inst *in = plan_find(w->p, id);
		if (in) {
			free(id);
		} else {
			in = add_inst(w->p, id, stage, w->wl);
			in->gpus = gpus;
			in->label = xasprintf("%s %s", ystr(stage, "name", ""), stem);
			cfg_line(in, "ref", ystr(im, "ref", ""));
			cfg_line(in, "file", stem);
			add_output(in, layout_image(NULL, stem));
			in->plan = xasprintf("enroot import -o images/%s.sqsh docker://%s", stem, ystr(im, "ref", ""));
		}
		add_serves(in, w->wl ? ystr(w->wl, "workload", "") : "");
		free(stem);
	}
}

static void
repo_line(struct inst *in, const struct ynode *repos, const char *key)
{
	const struct ynode *r = ymap_get(repos, key);
	if (r) {
		char *v = xasprintf("%s %s %s", key, ystr(r, "url", ""), ystr(r, "commit", ""));
		cfg_line(in, "repo", v);
		free(v);
	}
}

static void
build_venv(struct wctx *w, const struct ynode *stage)
{
	const struct ynode *venv = ymap_get(w->wl, "venv");
	if (!venv)
		return;
	/* The dependency set decides the venv, as upstream groups them: the
	 * same set in two workloads is one venv. */
	struct inst tmp = {0};
	const struct ynode *repos = ymap_get(w->wl, "repositories");
	cfg_line(&tmp, "python", ystr(venv, "python", "python3"));
	cfg_line(&tmp, "system_site_packages", ybool(venv, "system_site_packages", 0) ? "true" : "false");
	const struct ynode *git = ymap_get(venv, "git");
	for (size_t i = 0; git && i < git->nkids; i++) {
		const char *key = ystr(git->kids[i], "repo", "");
		w->unsaid += !ymap_get(repos, key);
		repo_line(&tmp, repos, key);
		char *v = xasprintf("%s %s %s", key, ystr(git->kids[i], "method", ""), ystr(git->kids[i], "path", "-"));
		cfg_line(&tmp, "git", v);
		free(v);
	}
	const struct ynode *pip = ymap_get(venv, "pip");
	for (size_t i = 0; pip && i < pip->nkids; i++) {
		const struct ynode *e = pip->kids[i];
		if (e->kind == Y_SCALAR) {
			cfg_line(&tmp, "pip", e->str);
			continue;
		}
		const char *key = ystr(e, "repo", NULL);
		w->unsaid += key && !ymap_get(repos, key);
		if (key)
			repo_line(&tmp, repos, key);
		char *v = xasprintf("%s %s %s %s", ystr(e, "package", ""), key ? key : "-",
				    ystr(e, "install_target", "-"), ybool(e, "editable", 0) ? "editable" : "-");
		cfg_line(&tmp, "pipdep", v);
		free(v);
	}
	const struct ynode *pa = ymap_get(venv, "pip_args");
	for (size_t i = 0; pa && i < pa->nkids; i++)
		cfg_line(&tmp, "pip_arg", pa->kids[i]->str);
	char h[65];
	sha256_hex(tmp.cfg.buf, tmp.cfg.len, h);
	char *id = xasprintf("%s.%.12s", ystr(stage, "name", ""), h);
	struct inst *in = plan_find(w->p, id);
	if (in) {
		free(id);
		sb_free(&tmp.cfg);
	} else {
		in = add_inst(w->p, id, stage, w->wl);
		in->cfg = tmp.cfg;
		char *dir = xasprintf("venvs/venv_%.12s", h);
		cfg_line(in, "dir", dir);
		/* written last by the venv job: a half-built venv has none */
		add_output(in, xasprintf("%s/llmb-venv.txt", dir));
		in->label = xasprintf("%s venv_%.12s", ystr(stage, "name", ""), h);
		in->plan = xasprintf("python venv %s (%s)", dir, ystr(venv, "python", "python3"));
		free(dir);
	}
	add_serves(in, ystr(w->wl, "workload", ""));
}

static void
build_data(struct wctx *w, const struct ynode *stage)
{
	/* A task serves every run of its workload: it binds paths alone. */
	struct vars none = {0}, *vs = &none;
	cur_gpu = cur_size = cur_dtype = NULL;
	const struct ynode *tasks = ymap_get(w->wl, "tasks");
	const char *wname = ystr(w->wl, "workload", "");
	for (size_t i = 0; tasks && i < tasks->nkids; i++) {
		const struct ynode *t = tasks->kids[i];
		char *id = xasprintf("%s.%s.%s", ystr(stage, "name", ""), wname, ystr(t, "name", ""));
		if (plan_find(w->p, id)) { /* a duplicate task name */
			w->unsaid++;
			free(id);
			continue;
		}
		struct inst *in = add_inst(w->p, id, stage, w->wl);
		add_serves(in, wname);
		in->label = xasprintf("%s %s %s", ystr(stage, "name", ""), wname, ystr(t, "name", ""));
		cfg_line(in, "task", ystr(t, "name", ""));
		cfg_line(in, "gpus", ybool(t, "gpus", 0) ? "true" : "false");
		const char *img = ystr(t, "image", NULL);
		if (img) {
			const struct ynode *im = ymap_get(ymap_get(w->wl, "images"), img);
			if (!im) {
				w->unsaid++;
			} else {
				char *stem = image_stem(ystr(im, "ref", ""));
				cfg_line(in, "image", stem);
				free(stem);
			}
		}
		add_argv(w, in, ymap_get(t, "cmd"), vs);
		add_env(w, in, ymap_get(t, "env"), vs);
		add_mounts(w, in, ymap_get(t, "mounts"), vs);
		add_secrets(in, ymap_get(w->wl, "secrets"));
		add_secrets(in, ymap_get(t, "secrets"));
		const char *tl = time_limit_for(w, stage, t, &w->p->sel);
		if (tl)
			cfg_line(in, "time_limit", tl);
		if (ystr(t, "size_gb", NULL))
			cfg_line(in, "size_gb", ystr(t, "size_gb", ""));
		const struct ynode *pr = ymap_get(t, "proves");
		for (size_t j = 0; j < pr->nkids; j++) {
			cfg_line(in, "prove", pr->kids[j]->str);
			add_output(in, xasprintf("workloads/%s/%s", wname, pr->kids[j]->str));
		}
		{
			struct sb pl = {0};
			sb_addf(&pl, "task %s on the %s partition", ystr(t, "name", ""), ybool(t, "gpus", 0) ? "GPU" : "CPU");
			if (ystr(t, "size_gb", NULL))
				sb_addf(&pl, ", needs %s GB", ystr(t, "size_gb", ""));
			in->plan = sb_steal(&pl);
		}
	}
}

/* Binds the run's values: coordinates, gpus_per_node, nodes, the model
 * dimensions of its size and its parameters, evaluated by runcheck.c's
 * run_params (quietly: runcheck.c said what is wrong with them). */
static int
bind_run(struct wctx *w, const struct plan_run *r, struct vars *vs, struct params *prm)
{
	const struct ynode *gpu = gpu_find(&w->p->rec, r->gpu);
	long gpn = yint(gpu, "gpus_per_node", 8);
	vs->n = 0;
	cur_gpu = r->gpu;
	cur_size = r->size;
	cur_dtype = r->dtype;
	var_set(vs, "scale", (double)r->scale);
	var_set(vs, "gpus_per_node", (double)gpn);
	var_set(vs, "nodes", ceil((double)r->scale / (double)gpn));
	const struct ynode *model = ymap_get(ymap_get(w->wl, "models"), r->size);
	for (size_t i = 0; i < ymap_len(model); i++)
		var_set(vs, ymap_key(model, i)->str, strtod(ymap_val(model, i)->str, NULL));
	if (run_params(&w->p->rec, r, prm)) {
		w->unsaid++;
		return -1;
	}
	for (size_t i = 0; i < prm->n; i++)
		var_set(vs, prm->names[i], prm->vals[i]);
	return 0;
}

/* Model FLOPs per sample through flops.c: 1 when the recipe has no formula. */
static int
model_flops(struct wctx *w, const struct plan_run *r, const struct params *prm, double *out)
{
	int rc = run_flops(w->wl, r, prm, out);
	w->unsaid += rc < 0;
	return rc;
}

/* The job's environment for the plan line: values of env, names of secrets. */
static void
plan_env(struct sb *pl, const char *cfg)
{
	size_t n, ns;
	char **env = cfg_values(cfg, "env", &n), **sec = cfg_values(cfg, "secret", &ns);
	for (size_t i = 0; i < n; i++) {
		sb_addf(pl, "%s%s", i ? " " : " env: ", env[i]);
		free(env[i]);
	}
	for (size_t i = 0; i < ns; i++) {
		sb_addf(pl, "%s%s", i ? " " : " secrets by name: ", sec[i]);
		free(sec[i]);
	}
	free(env);
	free(sec);
}

static void
free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The arguments a config row appends to the training command: the
 * configuration's arg lines after the first skip. */
static void
plan_row_args(struct sb *pl, const char *cfg, size_t skip)
{
	size_t n;
	char **args = cfg_values(cfg, "arg", &n);
	for (size_t i = skip; i < n; i++)
		sb_addf(pl, "%s%s", i > skip ? " " : " args: ", args[i]);
	free_strv(args, n);
}

static int
knob_true(const char *v)
{
	return v && parse_bool(v) == 1;
}

/* Workloads whose knobs have key (and, for a scalar, the value "true"),
 * for messages that say where a knob is valid. */
static char *
knob_workloads(const struct plan *p, const char *key)
{
	struct sb sb = {0};
	for (size_t i = 0; i < p->rec.nworkloads; i++) {
		const struct ynode *wl = p->rec.workloads[i]->root;
		const struct ynode *v = ymap_get(ymap_get(wl, "knobs"), key);
		if (v && (v->kind != Y_SCALAR || strcmp(v->str, "false")))
			sb_addf(&sb, "%s%s", sb.len ? ", " : "", ystr(wl, "workload", ""));
	}
	return sb.buf ? sb_steal(&sb) : xstrdup("none");
}

static void
knob_refuse(struct wctx *w, const char *key, const char *what)
{
	char *valid = knob_workloads(w->p, key);
	fprintf(stderr, "llmb: error: %s is not supported by workload %s (its recipe has no knobs.%s); supported by: %s\n",
		what, ystr(w->wl, "workload", ""), key, valid);
	free(valid);
	diag_errors++;
}

/* The knobs against what the workload's recipe supports; the generic
 * checks (syntax, exclusions) are check_knobs'. Errors are counted; -1
 * when the workload's runs must not be planned. */
static int
check_wl_knobs(struct wctx *w)
{
	const struct sel *s = &w->p->sel;
	const struct ynode *knobs = ymap_get(w->wl, "knobs"), *measure = ymap_get(w->wl, "measure");
	const char *wname = ystr(w->wl, "workload", "");
	int before = diag_errors, pdef = ybool(knobs, "profile_default", 0);
	int profile = s->v[K_ENABLE_PROFILE] ? knob_true(s->v[K_ENABLE_PROFILE]) : pdef;
	if (knob_true(s->v[K_ENABLE_NCCLTRACE]) && !ymap_get(knobs, "nccltrace_steps"))
		knob_refuse(w, "nccltrace_steps", "ENABLE_NCCLTRACE=true");
	if (knob_true(s->v[K_ENABLE_CHECKPOINT]) && !ybool(knobs, "checkpoint", 0))
		knob_refuse(w, "checkpoint", "ENABLE_CHECKPOINT=true");
	if (s->v[K_LOAD_CHECKPOINT_PATH] && !ybool(knobs, "checkpoint", 0))
		knob_refuse(w, "checkpoint", "LOAD_CHECKPOINT_PATH");
	if (s->v[K_EXTRA_WORK] && !ymap_get(knobs, "extra_work_args"))
		knob_refuse(w, "extra_work_args", "EXTRA_WORK");
	if (profile && !ymap_get(knobs, "profile"))
		knob_refuse(w, "profile", "ENABLE_PROFILE=true");
	if (pdef && s->v[K_ENABLE_PROFILE] && !profile) {
		fprintf(stderr, "llmb: error: ENABLE_PROFILE=%s: workload %s always profiles (its recipe says profile_default: true); leave ENABLE_PROFILE unset\n",
			s->v[K_ENABLE_PROFILE], wname);
		diag_errors++;
	}
	if (pdef && (s->v[K_PROFILE_START_STEP] || s->v[K_PROFILE_STOP_STEP])) {
		fprintf(stderr, "llmb: error: PROFILE_START_STEP and PROFILE_STOP_STEP cannot change the profiling of workload %s (always on, steps %s-%s)\n",
			wname, ystr(ymap_get(knobs, "profile"), "start", "?"), ystr(ymap_get(knobs, "profile"), "stop", "?"));
		diag_errors++;
	} else if (!profile && (s->v[K_PROFILE_START_STEP] || s->v[K_PROFILE_STOP_STEP])) {
		fprintf(stderr, "llmb: error: PROFILE_START_STEP/PROFILE_STOP_STEP are set but profiling is off: add ENABLE_PROFILE=true\n");
		diag_errors++;
	}
	const char *ms = s->v[K_MAX_STEPS];
	if (ms && (knob_true(s->v[K_ENABLE_NCCLTRACE]) || s->v[K_LOAD_CHECKPOINT_PATH])) {
		fprintf(stderr, "llmb: error: MAX_STEPS=%s cannot be combined with %s, which sets the steps itself\n", ms,
			s->v[K_LOAD_CHECKPOINT_PATH] ? "LOAD_CHECKPOINT_PATH (one step after the load)" : "ENABLE_NCCLTRACE=true (the first steps only)");
		diag_errors++;
	} else if (ms) {
		/* A run shorter than the measurement window can never be measured. */
		const struct ynode *win = ymap_get(measure, "window");
		long last = win && win->nkids == 2 ? strtol(win->kids[1]->str, NULL, 10) : 0;
		long need = last + (strcmp(ystr(measure, "indexing", "zero"), "one") ? 1 : 0);
		if (strtol(ms, NULL, 10) < need) {
			fprintf(stderr, "llmb: error: MAX_STEPS=%s ends before the measurement window of workload %s (iterations %s-%s, %s-based): at least %ld\n",
				ms, wname, win->kids[0]->str, win->kids[1]->str, ystr(measure, "indexing", "zero"), need);
			diag_errors++;
		}
	}
	return diag_errors > before ? -1 : 0;
}

/* The run knobs as they apply to one workload. */
struct runknobs {
	double steps;
	int profile, nccl;
	int marked;                 /* not comparable with published numbers */
	const char *pstart, *pstop;
};

static void
run_knobs(struct wctx *w, struct vars *vs, struct runknobs *k)
{
	const struct sel *s = &w->p->sel;
	const struct ynode *knobs = ymap_get(w->wl, "knobs");
	int profile_default = ybool(knobs, "profile_default", 0);
	k->steps = (double)yint(ymap_get(w->wl, "measure"), "steps", LAYOUT_STEPS_DEFAULT);
	k->profile = s->v[K_ENABLE_PROFILE] ? knob_true(s->v[K_ENABLE_PROFILE]) : profile_default;
	k->nccl = knob_true(s->v[K_ENABLE_NCCLTRACE]);
	if (s->v[K_MAX_STEPS])
		k->steps = strtod(s->v[K_MAX_STEPS], NULL);
	if (k->nccl)
		k->steps = (double)yint(knobs, "nccltrace_steps", 5);
	if (s->v[K_LOAD_CHECKPOINT_PATH])
		k->steps = 1;
	const struct ynode *pk = ymap_get(knobs, "profile");
	k->pstart = s->v[K_PROFILE_START_STEP] ? s->v[K_PROFILE_START_STEP] : ystr(pk, "start", "0");
	k->pstop = s->v[K_PROFILE_STOP_STEP] ? s->v[K_PROFILE_STOP_STEP] : ystr(pk, "stop", "0");
	/* Not comparable with the published numbers: traced runs, one-step
	 * loads, and profiling the workload does not do by default (the
	 * published numbers of an always-profiled workload are profiled). */
	k->marked = k->nccl || s->v[K_LOAD_CHECKPOINT_PATH] || (k->profile && !profile_default);
	/* Knobs are placeholders too, for commands that pass them on. */
	var_set(vs, "steps", k->steps);
	var_set(vs, "profile", k->profile);
	var_set(vs, "profile_start", strtod(k->pstart, NULL));
	var_set(vs, "profile_stop", strtod(k->pstop, NULL));
	var_set(vs, "nccltrace", k->nccl);
	var_set(vs, "checkpoint", knob_true(s->v[K_ENABLE_CHECKPOINT]));
	var_set(vs, "extra_work", s->v[K_EXTRA_WORK] ? strtod(s->v[K_EXTRA_WORK], NULL) : 0);
}

static void
build_report(struct wctx *w, struct inst *in, const struct plan_run *r)
{
	const char *wname = in->workload;
	in->label = xasprintf("%s %s %s %s %s", ystr(in->stage, "name", ""), wname, r->gpu, r->size, r->dtype);
	char *name = xasprintf("%s_%s_%s.json", r->gpu, r->size, r->dtype);
	add_output(in, layout_report(NULL, wname, name));
	cfg_line(in, "report", name);
	free(name);
	cfg_line(in, "tolerance_pct", ystr(ymap_get(w->wl, "measure"), "tolerance_pct", "5"));
	in->plan = xasprintf("report of %s %s %s %s", wname, r->gpu, r->size, r->dtype);
}

static void
build_parse(struct wctx *w, struct inst *in, const char *run, const struct runknobs *k)
{
	const struct ynode *measure = ymap_get(w->wl, "measure"), *win = ymap_get(measure, "window");
	char buf[64];
	if (win->nkids != 2) { /* refused by recipes_check_values */
		w->unsaid++;
		return;
	}
	snprintf(buf, sizeof buf, "%s-%s", win->kids[0]->str, win->kids[1]->str);
	cfg_line(in, "window", buf);
	cfg_line(in, "log_format", ystr(w->wl, "log_format", ""));
	cfg_line(in, "indexing", ystr(measure, "indexing", "zero"));
	cfg_line(in, "metric", ystr(measure, "metric", "mean"));
	fmt_num(buf, sizeof buf, k->steps);
	cfg_line(in, "steps", buf);
	if (k->marked)
		cfg_line(in, "profiled", "true");
	add_output(in, layout_experiment_file(NULL, in->workload, run, "result.json"));
	in->plan = xasprintf("parse %s log, window %s-%s (%s-based)", ystr(w->wl, "log_format", ""),
			     win->kids[0]->str, win->kids[1]->str, ystr(measure, "indexing", "zero"));
}

/* The image a train job runs in, by its file stem; NULL for none. */
static char *
train_image(struct wctx *w, struct inst *in)
{
	const struct ynode *train = ymap_get(w->wl, "train");
	const char *img = ystr(train, "image", NULL);
	if (!img)
		return NULL;
	const struct ynode *im = ymap_get(ymap_get(w->wl, "images"), img);
	if (!im) /* said once by recipe_check_runs */
		return NULL;
	char *stem = image_stem(ystr(im, "ref", ""));
	cfg_line(in, "image", stem);
	return stem;
}

static void
cfg_num(struct inst *in, const char *key, long v)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%ld", v);
	cfg_line(in, key, buf);
}

/* How the training step is launched (train.srun, train.node_setup): the
 * srun flags upstream's executor passes, and the host commands its
 * framework runs on every node before training. Both need the image. */
static void
add_launch(struct wctx *w, struct inst *in, const struct ynode *train, const char *stem)
{
	const struct ynode *srun = ymap_get(train, "srun");
	const char *mpi = ystr(srun, "mpi", NULL);
	if (mpi)
		cfg_line(in, "srun_mpi", mpi);
	const char *const keys[] = {"container_writable", "node_setup"};
	const struct ynode *const maps[] = {srun, train};
	for (int i = 0; i < 2; i++) {
		if (!ybool(maps[i], keys[i], 0))
			continue;
		if (!stem) /* said by runcheck.c */
			w->unsaid++;
		else
			cfg_line(in, keys[i], "true");
	}
}

/* The job of a train stage: its shape, image, knobs, parameters, argv,
 * environment and secrets, and the plan line that shows them. */
static void
build_train(struct wctx *w, struct inst *in, const struct plan_run *r, const char *run, struct vars *vs,
	    const struct runknobs *k, int have_flops, double mf)
{
	const struct sel *s = &w->p->sel;
	const struct ynode *train = ymap_get(w->wl, "train"), *gpu = gpu_find(&w->p->rec, r->gpu);
	long gpn = yint(gpu, "gpus_per_node", 8);
	long nodes = (r->scale + gpn - 1) / gpn, tpn = r->scale < gpn ? r->scale : gpn;
	char buf[64];
	cfg_num(in, "nodes", nodes);
	cfg_num(in, "ntasks_per_node", tpn);
	cfg_num(in, "gpus_per_node", ymap_get(gpu, "peak_tflops") ? gpn : 0L);
	char *stem = train_image(w, in);
	const char *tl = time_limit_for(w, in->stage, r->row, s);
	if (tl)
		cfg_line(in, "time_limit", tl);
	for (int i = K_ENABLE_PROFILE; i < K_NKNOBS; i++) {
		if (s->v[i]) {
			/* A boolean's spelling is not its meaning: yes and true
			 * are one configuration. */
			int b = i == K_ENABLE_PROFILE || i == K_ENABLE_NCCLTRACE || i == K_ENABLE_CHECKPOINT;
			char *kv = xasprintf("%s=%s", knob_names[i], b ? (knob_true(s->v[i]) ? "true" : "false") : s->v[i]);
			cfg_line(in, "knob", kv);
			free(kv);
		}
	}
	if (k->profile) {
		snprintf(buf, sizeof buf, "%s-%s", k->pstart, k->pstop);
		cfg_line(in, "profile", buf);
	}
	if (k->nccl)
		cfg_line(in, "nccltrace", "true");
	struct sb pl = {0};
	sb_addf(&pl, "nodes=%ld gpus/node=%ld tasks/node=%ld", nodes, gpn, tpn);
	const struct ynode *params = ymap_get(r->row, "params");
	for (size_t i = 0; i < ymap_len(params); i++) {
		double v = 0;
		var_lookup(vs, ymap_key(params, i)->str, &v);
		fmt_num(buf, sizeof buf, v);
		char *kv = xasprintf("%s=%s", ymap_key(params, i)->str, buf);
		cfg_line(in, "param", kv);
		sb_addf(&pl, " %s", kv);
		free(kv);
	}
	char steps[32];
	fmt_num(steps, sizeof steps, k->steps);
	cfg_line(in, "steps", steps);
	if (have_flops) {
		snprintf(buf, sizeof buf, "%.6e", mf);
		cfg_line(in, "model_flops", buf);
	}
	add_argv(w, in, ymap_get(train, "cmd"), vs);
	size_t nargs;
	char **cmd_args = cfg_values(in->cfg.buf, "arg", &nargs);
	free_strv(cmd_args, nargs);
	if (ymap_get(r->row, "args"))
		add_argv(w, in, ymap_get(r->row, "args"), vs);
	/* the workload's own words for the extra-work knob, only when it is set */
	if (s->v[K_EXTRA_WORK])
		add_argv(w, in, ymap_get(ymap_get(w->wl, "knobs"), "extra_work_args"), vs);
	add_env(w, in, ymap_get(train, "env"), vs);
	add_env(w, in, ymap_get(r->row, "env"), vs);
	add_mounts(w, in, ymap_get(train, "mounts"), vs);
	add_launch(w, in, train, stem);
	add_secrets(in, ymap_get(w->wl, "secrets"));
	add_secrets(in, ymap_get(train, "secrets"));
	sb_addf(&pl, " steps=%s time=%s image=%s", steps, tl ? tl : "default", stem ? stem : "none");
	plan_row_args(&pl, in->cfg.buf, nargs);
	plan_env(&pl, in->cfg.buf);
	if (k->profile)
		sb_addf(&pl, " PROFILED(steps %s-%s)", k->pstart, k->pstop);
	if (k->nccl)
		sb_add(&pl, " NCCLTRACE");
	if (s->v[K_LOAD_CHECKPOINT_PATH])
		sb_add(&pl, " LOAD-CHECKPOINT");
	if (s->v[K_EXTRA_WORK])
		sb_addf(&pl, " EXTRA_WORK=%s", s->v[K_EXTRA_WORK]);
	if (k->marked)
		sb_add(&pl, " (not compared with the reference)");
	in->plan = sb_steal(&pl);
	free(stem);
	add_output(in, layout_experiment_file(NULL, in->workload, run, LAYOUT_TRAIN_DONE));
}

/* Instances of a per-run stage (train, parse) or per-configuration stage
 * (report) for every selected run of the workload. */
static void
build_runs(struct wctx *w, const struct ynode *stage, struct vars *vs)
{
	const char *kind = ystr(stage, "kind", ""), *sname = ystr(stage, "name", "");
	const char *wname = ystr(w->wl, "workload", "");
	int report = stage_kind_is(kind, SK_PER_CONFIG), train = stage_kind_is(kind, SK_TRAINING);
	if (train && !w->knobs_ok)
		return;
	/* A night's runs are recorded and judged, not reported. */
	const char *night = w->p->sel.night;
	if (report && night)
		return;
	long nrep = night ? w->p->night_repeats : 1;
	for (size_t j = 0; j < w->nruns * (size_t)nrep; j++) {
		const struct plan_run *r = &w->runs[j / (size_t)nrep];
		/* LLMB_NIGHT_TAG (llmb nightly's confirmation runs): night-<NIGHT>-<tag> */
		const char *tag = getenv("LLMB_NIGHT_TAG");
		if (tag && (!*tag || strlen(tag) > 16 || tag[strspn(tag, "abcdefghijklmnopqrstuvwxyz")]))
			tag = NULL;
		char *rep = !night ? NULL : tag ? xasprintf("night-%s-%s", night, tag)
			    : nrep > 1 ? xasprintf("night-%s-%zu", night, j % (size_t)nrep + 1) : xasprintf("night-%s", night);
		char *id = report ? xasprintf("%s.%s.%s.%s.%s", sname, wname, r->gpu, r->size, r->dtype)
				  : xasprintf("%s.%s.%s.%s.%s.%ld%s%s", sname, wname, r->gpu, r->size, r->dtype, r->scale,
					      rep ? "." : "", rep ? rep : "");
		if (plan_find(w->p, id)) {
			free(id);
			free(rep);
			continue;
		}
		struct inst *in = add_inst(w->p, id, stage, w->wl);
		add_serves(in, wname);
		in->gpu = r->gpu;
		in->size = r->size;
		in->dtype = r->dtype;
		in->scale = report ? 0 : r->scale;
		in->rep = rep;
		if (report) {
			build_report(w, in, r);
			continue;
		}
		char *run = xasprintf("%s_%s_%s_%ld%s%s", r->gpu, r->size, r->dtype, r->scale, rep ? "/" : "", rep ? rep : "");
		in->label = xasprintf("%s %s %s %s %s x%ld%s%s", sname, wname, r->gpu, r->size, r->dtype, r->scale,
				      rep ? " " : "", rep ? rep : "");
		cfg_line(in, "run", run);
		struct params prm = {0};
		if (bind_run(w, r, vs, &prm) == 0) {
			struct runknobs k;
			run_knobs(w, vs, &k);
			double mf = 0;
			int have_flops = model_flops(w, r, &prm, &mf) == 0;
			if (have_flops)
				var_set(vs, "model_flops", mf);
			if (train)
				build_train(w, in, r, run, vs, &k, have_flops, mf);
			else
				build_parse(w, in, run, &k);
		}
		params_free(&prm);
		free(run);
	}
}

/* Slurm's [D-]HH:MM:SS, the form the recipes use. */
static int
time_limit_ok(const char *t)
{
	const char *p = t + strspn(t, "0123456789");
	int days = 0, h, m, sec, n = 0;
	if (*p == '-' && p > t) {
		days = atoi(t);
		t = p + 1;
	}
	if (strspn(t, "0123456789:") != strlen(t) || sscanf(t, "%2d:%2d:%2d%n", &h, &m, &sec, &n) != 3)
		return 0;
	return n == 8 && t[n] == 0 && m < 60 && sec < 60 && (days || h || m || sec);
}

static int
check_knobs(const struct sel *s)
{
	int errs = 0;
	static const enum knob bools[] = {K_ENABLE_PROFILE, K_ENABLE_NCCLTRACE, K_ENABLE_CHECKPOINT};
	static const enum knob ints[] = {K_PROFILE_START_STEP, K_PROFILE_STOP_STEP, K_MAX_STEPS, K_EXTRA_WORK};
	for (size_t i = 0; i < sizeof bools / sizeof *bools; i++) {
		const char *v = s->v[bools[i]];
		if (v && parse_bool(v) < 0) {
			fprintf(stderr, "llmb: error: %s=%s: expected true or false (%s)\n", knob_names[bools[i]], v,
				bool_spellings);
			errs++;
		}
	}
	for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
		const char *v = s->v[ints[i]];
		if (v && (strspn(v, "0123456789") != strlen(v) || strlen(v) > 9)) {
			fprintf(stderr, "llmb: error: %s=%s: expected a whole number\n", knob_names[ints[i]], v);
			errs++;
		}
	}
	const char *tl = s->v[K_TIME_LIMIT];
	if (tl && !time_limit_ok(tl)) {
		fprintf(stderr, "llmb: error: TIME_LIMIT=%s: expected [D-]HH:MM:SS with minutes and seconds below 60, like 01:30:00 or 1-00:00:00\n", tl);
		errs++;
	}
	const char *lp = s->v[K_LOAD_CHECKPOINT_PATH];
	if (lp && strspn(lp, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/+-=") != strlen(lp)) {
		fprintf(stderr, "llmb: error: LOAD_CHECKPOINT_PATH=%s: a path may hold only letters, digits and ._/+=-\n", lp);
		errs++;
	}
	const char *ap = s->v[K_ADDITIONAL_SLURM_PARAMS];
	if (ap) {
		/* The Slurm executor's own parser: what passes here is what sbatch gets. */
		char **argv = NULL;
		struct sb err = {0};
		if (slurm_params_parse(ap, &argv, &err) < 0) {
			fprintf(stderr, "llmb: error: %s\n", err.buf ? err.buf : "ADDITIONAL_SLURM_PARAMS is invalid");
			errs++;
		}
		slurm_argv_free(argv);
		sb_free(&err);
	}
	for (int k = K_WORKLOAD; k <= K_SCALES; k++) {
		const char *v = s->v[k];
		if (v && strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-, ") != strlen(v)) {
			fprintf(stderr, "llmb: error: %s=%s: only names separated by spaces or commas\n", knob_names[k], v);
			errs++;
		} else if (v && strspn(v, ", ") == strlen(v)) {
			/* Set but naming nothing would select nothing and succeed. */
			fprintf(stderr, "llmb: error: %s='%s' names nothing: give one or more names, or leave %s unset for all\n",
				knob_names[k], v, knob_names[k]);
			errs++;
		}
	}
	if (s->v[K_MAX_STEPS] && !errs && strtol(s->v[K_MAX_STEPS], NULL, 10) < 1) {
		fprintf(stderr, "llmb: error: MAX_STEPS=%s: a run needs at least one step\n", s->v[K_MAX_STEPS]);
		errs++;
	}
	if (s->v[K_PROFILE_START_STEP] && s->v[K_PROFILE_STOP_STEP] && !errs &&
	    strtol(s->v[K_PROFILE_START_STEP], NULL, 10) >= strtol(s->v[K_PROFILE_STOP_STEP], NULL, 10)) {
		fprintf(stderr, "llmb: error: PROFILE_START_STEP=%s must be below PROFILE_STOP_STEP=%s\n",
			s->v[K_PROFILE_START_STEP], s->v[K_PROFILE_STOP_STEP]);
		errs++;
	}
	if (knob_true(s->v[K_ENABLE_PROFILE]) && knob_true(s->v[K_ENABLE_NCCLTRACE])) {
		fprintf(stderr, "llmb: error: ENABLE_PROFILE=true and ENABLE_NCCLTRACE=true exclude each other (as upstream): set one of them\n");
		errs++;
	}
	diag_errors += errs;
	return errs;
}

/* Dependencies: an instance depends on the instances of its "after"
 * stages that serve its workload and agree on every run coordinate both
 * have; an image restricted to GPU types only serves those. */
static int
matches(const struct inst *u, const struct inst *d)
{
	int serves = 0;
	for (size_t i = 0; i < u->nserves; i++)
		serves |= !strcmp(u->serves[i], d->workload);
	if (!serves)
		return 0;
	if (u->gpus && d->gpu && !ynames_have(u->gpus, d->gpu))
		return 0;
	if (u->gpu && d->gpu && strcmp(u->gpu, d->gpu))
		return 0;
	if (u->size && d->size && strcmp(u->size, d->size))
		return 0;
	if (u->dtype && d->dtype && strcmp(u->dtype, d->dtype))
		return 0;
	if (u->rep && d->rep && strcmp(u->rep, d->rep))
		return 0;
	return !(u->scale && d->scale && u->scale != d->scale);
}

/* The instances of each stage name, in creation order. */
struct stage_list {
	const char *name;
	size_t *v, n;
};

static struct stage_list *
stage_list_of(struct stage_list *l, const char *name)
{
	for (; l && l->name; l++)
		if (!strcmp(l->name, name))
			return l;
	return NULL;
}

static struct stage_list *
stage_lists(struct plan *p)
{
	struct stage_list *l = xcalloc(1, sizeof *l);
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++) {
		const char *name = ystr(p->v[i].stage, "name", "");
		struct stage_list *s = stage_list_of(l, name);
		if (!s) {
			l = xrealloc(l, (n + 2) * sizeof *l);
			s = &l[n++];
			memset(s, 0, 2 * sizeof *s);
			s->name = name;
		}
		s->v = xrealloc(s->v, (s->n + 1) * sizeof *s->v);
		s->v[s->n++] = i;
	}
	return l;
}

static void
link_and_hash(struct plan *p, size_t from)
{
	struct stage_list *lists = stage_lists(p);
	for (size_t i = from; i < p->n; i++) {
		struct inst *d = &p->v[i];
		const struct ynode *const *it, *one;
		size_t na = ynames(ymap_get(d->stage, "after"), &it, &one);
		struct sb head = {0};
		/* An image or a venv is shared by every workload that needs it: its
		 * configuration must not depend on which one declared it first. */
		int shared = stage_kind_is(d->kind, SK_SHARED);
		sb_addf(&head, "# llmb stage configuration: generated, do not edit\nid=%s\nkind=%s\ntemplate=%s\nworkload=%s\nlabel=%s\n",
			d->id, d->kind, ystr(d->stage, "template", d->kind), shared ? "" : d->workload, d->label);
		if (d->gpu)
			sb_addf(&head, "gpu=%s\nsize=%s\ndtype=%s\n", d->gpu, d->size, d->dtype);
		if (d->scale)
			sb_addf(&head, "scale=%ld\n", d->scale);
		const struct ynode *retry = ymap_get(d->stage, "retry");
		if (retry) {
			sb_addf(&head, "retry_count=%s\n", ystr(retry, "count", "0"));
			const struct ynode *on = ymap_get(retry, "on");
			for (size_t k = 0; k < on->nkids; k++)
				sb_addf(&head, "retry_on=%s\n", on->kids[k]->str);
		}
		for (size_t a = 0; a < na; a++) {
			/* A run depends on the same run of a per-run stage: one lookup. */
			char *key = d->scale ? xasprintf("%s.%s.%s.%s.%s.%ld%s%s", it[a]->str, d->workload, d->gpu,
							 d->size, d->dtype, d->scale, d->rep ? "." : "",
							 d->rep ? d->rep : "") : NULL;
			long hit = key ? index_get(&p->ids, key) : -1;
			free(key);
			struct stage_list *sl = stage_list_of(lists, it[a]->str);
			size_t ncand = hit >= 0 ? 1 : sl ? sl->n : 0;
			for (size_t k = 0; k < ncand; k++) {
				size_t j = hit >= 0 ? (size_t)hit : sl->v[k];
				struct inst *u = &p->v[j];
				if (j >= i || strcmp(ystr(u->stage, "name", ""), it[a]->str) || !matches(u, d))
					continue;
				d->deps = xrealloc(d->deps, (d->ndeps + 1) * sizeof *d->deps);
				d->deps[d->ndeps++] = j;
				sb_addf(&head, "after=%s %s\n", u->id, u->hash);
			}
		}
		for (size_t k = 0; k < d->noutputs; k++)
			sb_addf(&head, "output=%s\n", d->outputs[k]);
		sb_add(&head, d->cfg.buf ? d->cfg.buf : "");
		sb_free(&d->cfg);
		d->cfg = head;
		sha256_hex(d->cfg.buf, d->cfg.len, d->hash);
	}
	for (struct stage_list *l = lists; l->name; l++)
		free(l->v);
	free(lists);
}

/* make nightly: the matrix entries, narrowed by the command line, as
 * selections of their own (knobs from the command line). */
static int
nightly_sels(struct plan *p, const char *top, const struct sel *s, struct sel **alts, struct nmatrix *m)
{
	if (!night_valid(s->night)) {
		fprintf(stderr, "llmb: error: NIGHT=%s: a night is a date, YYYY-MM-DD\n", s->night);
		return ++diag_errors;
	}
	p->night_repeats = 1;
	if (!s->nightly)
		return 0;
	char *path = s->nightly[0] == '/' || !strcmp(top, ".") ? xstrdup(s->nightly) : xasprintf("%s/%s", top, s->nightly);
	int errs = nmatrix_load(path, m);
	if (!errs) {
		nmatrix_narrow(m, s->v);
		if (!m->n) {
			fprintf(stderr, "llmb: error: the selection (WORKLOAD SIZE DTYPE GPU_TYPE SCALES) leaves nothing of the nightly matrix %s\n", path);
			errs = ++diag_errors;
		}
	}
	free(path);
	if (errs)
		return errs;
	p->night_repeats = m->repeats;
	*alts = xcalloc(m->n, sizeof **alts);
	for (size_t i = 0; i < m->n; i++) {
		(*alts)[i] = *s;
		for (int k = 0; k < NM_VARS; k++)
			(*alts)[i].v[k] = m->entry[i][k];
	}
	return 0;
}

/* The runs of w that the matrix entries select, each once. */
static int
select_matrix_runs(struct wctx *w, const struct sel *alts, size_t nalts)
{
	const char *wname = ystr(w->wl, "workload", "");
	for (size_t a = 0; a < nalts; a++) {
		if (!in_words(alts[a].v[K_WORKLOAD], wname))
			continue;
		struct wctx t = *w;
		t.runs = NULL;
		t.nruns = 0;
		if (select_runs(&t, &alts[a], 0) < 0) {
			free(t.runs);
			return -1;
		}
		for (size_t i = 0; i < t.nruns; i++) {
			const struct plan_run *r = &t.runs[i];
			size_t k = 0;
			while (k < w->nruns && (strcmp(w->runs[k].gpu, r->gpu) || strcmp(w->runs[k].size, r->size) ||
						strcmp(w->runs[k].dtype, r->dtype) || w->runs[k].scale != r->scale))
				k++;
			if (k < w->nruns)
				continue;
			w->runs = xrealloc(w->runs, (w->nruns + 1) * sizeof *w->runs);
			w->runs[w->nruns++] = *r;
		}
		free(t.runs);
	}
	return 0;
}

/* A pipeline's stage order, found (and its errors said) once however many
 * workloads use it. */
struct order_memo {
	const struct ynode *pl;
	int no;
	const struct ynode *order[64];
};

static int
pipeline_order(struct order_memo *m, size_t *nm, const struct ydoc *pdoc, const struct ynode *pl,
	       const struct ynode ***order)
{
	size_t i = 0;
	while (i < *nm && m[i].pl != pl)
		i++;
	if (i == *nm) {
		m[*nm].pl = pl;
		if (ymap_get(pl, "stages")->nkids > 64) {
			diag_error(pdoc->file, pl->line, pl->col, "more than 64 stages");
			m[*nm].no = -1;
		} else {
			m[*nm].no = stage_order(pdoc->file, pl, m[*nm].order);
		}
		(*nm)++;
	}
	*order = m[i].order;
	return m[i].no;
}

/* The recipe pass for w's runs (NULL when the selection failed), told
 * what the stages of order will expand; the knobs are held to the
 * workload first, as a training stage plans nothing when they do not
 * suit it. Returns the number of errors said. */
static int
check_runs(struct wctx *w, const struct ynode *const *order, int no, int selected)
{
	struct runset rs = {.v = w->runs, .n = w->nruns, .extra_work = w->p->sel.v[K_EXTRA_WORK] != NULL, .ranges = 1};
	int before = diag_errors, training = 0;
	for (int k = 0; k < no; k++)
		training |= stage_kind_is(ystr(order[k], "kind", ""), SK_TRAINING);
	w->knobs_ok = !selected || !training || !w->nruns || !check_wl_knobs(w);
	for (int k = 0; k < no; k++) {
		const char *kind = ystr(order[k], "kind", "");
		const struct stagekind *sk = stage_kind(kind);
		enum sk_build b = sk ? sk->build : SK_BUILD_RUNS;
		int train = stage_kind_is(kind, SK_TRAINING);
		rs.params |= b == SK_BUILD_RUNS && !stage_kind_is(kind, SK_PER_CONFIG) && (!train || w->knobs_ok);
		rs.train |= train && w->knobs_ok;
		rs.tasks |= b == SK_BUILD_DATA;
		rs.venv |= b == SK_BUILD_VENV;
	}
	recipe_check_runs(&w->p->rec, w->file, w->wl, selected ? &rs : NULL);
	return diag_errors - before;
}

static int
cmp_wl(const void *a, const void *b)
{
	const struct ydoc *x = *(struct ydoc *const *)a, *y = *(struct ydoc *const *)b;
	return strcmp(ystr(x->root, "workload", ""), ystr(y->root, "workload", ""));
}

int
plan_build(struct plan *p, const char *top, const struct sel *s, int all)
{
	int before = diag_errors;
	memset(p, 0, sizeof *p);
	p->sel = *s;
	if (recipes_load(&p->rec, top) || recipes_check_values(&p->rec))
		return diag_errors - before;
	if (check_knobs(s))
		return diag_errors - before;
	qsort(p->rec.workloads, p->rec.nworkloads, sizeof *p->rec.workloads, cmp_wl);
	struct sel *alts = NULL;
	struct nmatrix mx = {0};
	if (!all && s->night && nightly_sels(p, top, s, &alts, &mx)) {
		nmatrix_free(&mx);
		return diag_errors - before;
	}
	const char *wsel = all ? NULL : s->v[K_WORKLOAD];
	if (wsel) {
		for (const char *q = wsel; *q;) {
			q += strspn(q, " ,");
			size_t n = strcspn(q, " ,");
			if (!n)
				break;
			char *one = xstrndup(q, n);
			if (!workload_find(&p->rec, one, NULL)) {
				struct sb valid = {0};
				for (size_t i = 0; i < p->rec.nworkloads; i++)
					sb_addf(&valid, "%s%s", i ? ", " : "", ystr(p->rec.workloads[i]->root, "workload", ""));
				fprintf(stderr, "llmb: error: WORKLOAD=%s is not a workload; valid: %s\n", one, valid.buf ? valid.buf : "none");
				sb_free(&valid);
				diag_errors++;
			}
			free(one);
			q += n;
		}
		if (diag_errors > before) {
			free(alts);
			nmatrix_free(&mx);
			return diag_errors - before;
		}
	}
	struct vars vs = {0};
	struct order_memo *memo = xcalloc(p->rec.npipelines + 1, sizeof *memo);
	size_t nmemo = 0;
	for (size_t wi = 0; wi < p->rec.nworkloads; wi++) {
		struct wctx w = {.p = p, .doc = p->rec.workloads[wi], .wl = p->rec.workloads[wi]->root};
		w.file = w.doc->file;
		const char *wname = ystr(w.wl, "workload", "");
		int named = 0;
		for (size_t a = 0; a < mx.n; a++)
			named |= in_words(alts[a].v[K_WORKLOAD], wname);
		if (alts ? !named : !in_words(wsel, wname))
			continue;
		struct ydoc *pdoc = NULL;
		const struct ynode *pl = pipeline_find(&p->rec, ystr(w.wl, "pipeline", ""), &pdoc);
		if (!pl) {
			const struct ynode *k = ymap_get(w.wl, "pipeline");
			diag_error(w.file, k->line, k->col, "no pipeline '%s' in pipelines/", k->str);
			continue;
		}
		const struct ynode **order;
		int no = pipeline_order(memo, &nmemo, pdoc, pl, &order);
		if (no < 0)
			continue;
		int selected = (alts ? select_matrix_runs(&w, alts, mx.n) : select_runs(&w, s, all)) == 0;
		int said = check_runs(&w, order, no, selected);
		if (!selected) {
			free(w.runs);
			continue;
		}
		for (int k = 0; k < no; k++) {
			const struct stagekind *sk = stage_kind(ystr(order[k], "kind", ""));
			switch (sk ? sk->build : SK_BUILD_RUNS) {
			case SK_BUILD_IMAGES: build_images(&w, order[k]); break;
			case SK_BUILD_VENV: build_venv(&w, order[k]); break;
			case SK_BUILD_DATA: build_data(&w, order[k]); break;
			case SK_BUILD_RUNS: build_runs(&w, order[k], &vs); break;
			}
		}
		if (w.unsaid && !said) {
			/* Never a plan from a recipe the checks let through wrongly. */
			fprintf(stderr, "llmb: internal error: workload %s: the plan met %d problem(s) that the recipe checks (runcheck.c) did not report\n",
				wname, w.unsaid);
			diag_errors++;
		}
		free(w.runs);
	}
	free(memo);
	/* Hash in creation order: every dependency has a lower index. Shared
	 * instances (images, venvs) were created by their first workload. */
	link_and_hash(p, 0);
	free(alts);
	nmatrix_free(&mx);
	return diag_errors - before;
}

void
plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct inst *in = &p->v[i];
		free(in->id);
		free(in->label);
		free(in->rep);
		free(in->plan);
		sb_free(&in->cfg);
		free(in->deps);
		for (size_t k = 0; k < in->noutputs; k++)
			free(in->outputs[k]);
		free(in->outputs);
		for (size_t k = 0; k < in->nserves; k++)
			free(in->serves[k]);
		free(in->serves);
	}
	free(p->v);
	index_free(&p->ids);
	index_free(&p->files);
	free(p->fhash);
	recipes_free(&p->rec);
	memset(p, 0, sizeof *p);
}
