/* jobscript: a stage's job script, made with m4 -P from templates/<template>.m4
 * and macros llmb defines from the stage configuration. Every value is
 * shell-quoted here, then m4-quoted twice so m4 copies it untouched.
 * Path placeholders ({workload_dir}, {venv_dir}, ...) are resolved here,
 * where the install tree is known. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/capture.h"
#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/util.h"
#include "plan/envrec.h"
#include "recipe/slurmcmd.h"
#include "run/jobscript.h"
#include "store/layout.h"
#include "store/stagecfg.h"
#include "store/stagekind.h"

/* m4 substitutes $1, $#, $* and $@ in a macro's body even when the macro
 * is used without arguments, so every "$" of the value ends a quoted
 * string and the rest starts a new one: "$]][[1" comes out as "$1". */
static void
define(struct sb *d, const char *name, const char *value)
{
	sb_addf(d, "m4_define([[%s]], [[[[", name);
	for (const char *v = value; *v; v++) {
		if (*v == '$')
			sb_add(d, "$]][[");
		else
			sb_addc(d, *v);
	}
	sb_add(d, "]]]])m4_dnl\n");
}

static void
define_q(struct sb *d, const char *name, const char *value)
{
	struct sb q = {0};
	sb_add_shquote(&q, value);
	define(d, name, q.buf);
	sb_free(&q);
}

/* The install-relative folder of the stage's upstream venv, or NULL. */
static char *
upstream_venv_dir(const struct jobctx *c)
{
	for (size_t i = 0; i < c->cfg->nafter; i++) {
		const char *id = c->cfg->after[i].id;
		if (strncmp(id, "venv.", 5))
			continue;
		char *path = layout_cfg(c->gen, id), *text = read_file(path, NULL), *res = NULL;
		struct stagecfg up;
		if (text && stagecfg_parse(&up, text, path) == 0) {
			res = up.kind == PC_VENV && up.u.venv.dir ? xstrdup(up.u.venv.dir) : NULL;
			stagecfg_free(&up);
		}
		free(text);
		free(path);
		return res;
	}
	return NULL;
}

/* The stage's image (a stem), or NULL. */
static const char *
image_stem(const struct stagecfg *cfg)
{
	return cfg->kind == PC_TRAIN && cfg->bound ? cfg->u.train.image : cfg->kind == PC_DATA ? cfg->u.data.image : NULL;
}

/* The value of a path placeholder (layout.h names them). */
char *
jobscript_path_value(const struct jobctx *c, const char *name)
{
	const char *w = c->cfg->workload, *img;
	if (!strcmp(name, "install"))
		return xstrdup(c->install);
	if (!strcmp(name, "top"))
		return xstrdup(c->top);
	if (!strcmp(name, "workload_dir"))
		return layout_workload(c->install, w);
	if (!strcmp(name, "experiment_dir"))
		return c->cfg->run ? layout_experiment(c->install, w, c->cfg->run) : NULL;
	if (!strcmp(name, "recipe_dir"))
		return layout_workload(c->top, w);
	if (!strcmp(name, "state_dir"))
		return xstrdup(c->state_dir);
	/* Always the install tree's name: with a shared image folder it is a
	 * link into that folder, made by the import job. */
	if (!strcmp(name, "image_file"))
		return (img = image_stem(c->cfg)) ? layout_image(c->install, img) : NULL;
	if (!strcmp(name, "venv_dir") || !strncmp(name, "repo_", 5)) {
		char *dir = upstream_venv_dir(c);
		if (!dir)
			return NULL;
		char *v = !strcmp(name, "venv_dir") ? xasprintf("%s/%s", c->install, dir)
						     : xasprintf("%s/%s/src/%s", c->install, dir, name + 5);
		free(dir);
		return v;
	}
	return NULL;
}

/* Replaces {path placeholders} in s. */
static int
resolve(const struct jobctx *c, const char *s, struct sb *out, struct sb *err)
{
	while (*s) {
		const char *o = strchr(s, '{'), *e = o ? strchr(o, '}') : NULL;
		if (!o || !e) {
			sb_add(out, s);
			return 0;
		}
		sb_addn(out, s, (size_t)(o - s));
		char *name = xstrndup(o + 1, (size_t)(e - o - 1));
		char *v = jobscript_path_value(c, name);
		if (!v) {
			sb_addf(err, "placeholder {%s} has no value for this stage", name);
			free(name);
			return -1;
		}
		sb_add(out, v);
		free(v);
		free(name);
		s = e + 1;
	}
	return 0;
}

static int
quoted_list(const struct jobctx *c, const char *const *v, size_t n, const char *sep, const char *prefix,
	    struct sb *out, struct sb *err)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		struct sb r = {0};
		if (!rc && resolve(c, v[i], &r, err) == 0) {
			if (out->len)
				sb_add(out, sep);
			if (prefix) {
				/* env NAME=value: export NAME='value' */
				char *eq = strchr(r.buf ? r.buf : "", '=');
				if (eq) {
					sb_addf(out, "%s%.*s=", prefix, (int)(eq - r.buf), r.buf);
					sb_add_shquote(out, eq + 1);
				}
			} else {
				sb_add_shquote(out, r.buf ? r.buf : "");
			}
		} else {
			rc = -1;
		}
		sb_free(&r);
	}
	return rc;
}

/* The caller's recorded variables (NAME=value, envrec.h),
 * exported as planned, before the recipe's own env (which wins): the job
 * runs with what its configuration says, whatever shell submits it. */
static int
caller_env(const struct jobctx *c, struct sb *out, struct sb *err)
{
	const struct pc_train *t = c->cfg->kind == PC_TRAIN && c->cfg->bound ? &c->cfg->u.train : NULL;
	int rc = 0;
	for (size_t i = 0; t && i < t->ncallerenv; i++) {
		const char *const *v = t->callerenv;
		if (!pc_callerenv_kept(t, i))
			continue;
		size_t l = strcspn(v[i], "=");
		if (!l || !v[i][l] || strspn(v[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != l) {
			if (!rc)
				sb_addf(err, "callerenv line is not NAME=value with a variable name: %.64s", v[i]);
			rc = -1;
		} else if (!rc) {
			if (out->len)
				sb_addc(out, '\n');
			sb_addf(out, "export %.*s=", (int)l, v[i]);
			sb_add_shquote(out, v[i] + l + 1);
		}
	}
	return rc;
}

/* One clone step per repository, in first-use order, each once. */
static void
clone_step(struct sb *s, const char *line, struct sb *seen)
{
	char key[128], url[1024], commit[64];
	if (sscanf(line, "%127s %1023s %63s", key, url, commit) != 3)
		return;
	char *mark = xasprintf(" %s ", key);
	int dup = seen->buf && strstr(seen->buf, mark);
	if (!dup) {
		sb_add(seen, mark);
		sb_add(s, "llmb_clone ");
		sb_add_shquote(s, key);
		sb_addc(s, ' ');
		sb_add_shquote(s, url);
		sb_addc(s, ' ');
		sb_add_shquote(s, commit);
		sb_addc(s, '\n');
	}
	free(mark);
}

/* A git dependency: "clone" is the checkout alone; "script" runs the
 * script inside the clone with the venv active (upstream reinstall.sh). */
static void
git_step(struct sb *s, const char *line)
{
	char key[128], method[32], path[1024];
	if (sscanf(line, "%127s %31s %1023s", key, method, path) != 3 || strcmp(method, "script"))
		return;
	sb_add(s, "llmb_in_clone ");
	sb_add_shquote(s, key);
	sb_add(s, " bash ./");
	sb_add_shquote(s, path);
	sb_addc(s, '\n');
}

/* A pip dependency with the upstream meanings: a plain requirement string
 * as is; {package, repo} from the verified clone: install_target inside
 * the clone (".[all]"), editable as -e, otherwise the clone itself (the
 * pinned commit upstream installs as git+url@commit). */
static void
pipdep_step(struct sb *s, const char *line)
{
	char pkg[128], repo[128], target[256], ed[16];
	if (sscanf(line, "%127s %127s %255s %15s", pkg, repo, target, ed) != 4)
		return;
	if (!strcmp(repo, "-")) {
		sb_add(s, "llmb_pip ");
		sb_add_shquote(s, pkg);
	} else {
		sb_add(s, "llmb_in_clone ");
		sb_add_shquote(s, repo);
		sb_add(s, " llmb_pip ");
		if (!strcmp(ed, "editable"))
			sb_add(s, "-e ");
		sb_add_shquote(s, strcmp(target, "-") ? target : ".");
	}
	sb_addc(s, '\n');
}

/* Placeholders a venv's pip arguments may use: a venv is shared by every
 * workload with the same dependency set, so only paths that do not depend
 * on the workload. */
static int
venv_pip_args(const struct jobctx *c, struct sb *args, struct sb *err)
{
	const struct pc_venv *venv = &c->cfg->u.venv;
	const char *const *v = venv->pip_args;
	int rc = 0;
	for (size_t i = 0; i < venv->npip_args; i++) {
		struct sb r = {0};
		const char *o = strchr(v[i], '{');
		if (o && strncmp(o, "{install}", 9) && strncmp(o, "{top}", 5)) {
			sb_addf(err, "pip_args '%s': a venv is shared between workloads, so only {install} and {top} "
				"are allowed", v[i]);
			rc = -1;
		} else if (!rc && resolve(c, v[i], &r, err) == 0) {
			if (args->len)
				sb_addc(args, ' ');
			sb_add_shquote(args, r.buf ? r.buf : "");
		} else {
			rc = -1;
		}
		sb_free(&r);
	}
	return rc;
}

/* The build steps in upstream order: every clone first, then the git
 * scripts, then the pip dependencies in declared order (strings and
 * objects interleaved as the recipe lists them). */
static int
venv_steps(const struct jobctx *c, struct sb *d, struct sb *err)
{
	struct sb s = {0}, args = {0}, seen = {0}, pips = {0};
	const struct pc_venv *v = &c->cfg->u.venv;
	for (size_t i = 0; i < v->ndeps; i++) {
		const struct pc_repo *r = &v->deps[i].repo;
		if (r->key) {
			char *line = xasprintf("%s %s %s", r->key, r->url, r->commit);
			clone_step(&s, line, &seen);
			free(line);
		}
	}
	for (size_t i = 0; i < v->ndeps; i++) {
		const struct pc_dep *p = &v->deps[i];
		char *line = NULL;
		if (p->kind == PD_GIT) {
			git_step(&s, line = xasprintf("%s %s %s", p->name, p->method, p->path));
		} else if (p->kind == PD_PIP) {
			sb_add(&pips, "llmb_pip ");
			sb_add_shquote(&pips, p->name);
			sb_addc(&pips, '\n');
		} else {
			pipdep_step(&pips, line = xasprintf("%s %s %s %s", p->name, p->repo_key ? p->repo_key : "-",
							    p->target, p->editable ? "editable" : "-"));
		}
		free(line);
	}
	sb_add(&s, pips.buf ? pips.buf : "");
	int rc = venv_pip_args(c, &args, err);
	define(d, "LLMB_STEPS", s.buf ? s.buf : ":");
	define(d, "LLMB_PIP_ARGS", args.buf ? args.buf : "");
	sb_free(&s);
	sb_free(&args);
	sb_free(&seen);
	sb_free(&pips);
	return rc;
}

/* The free-space check of a task that declares size_gb: refused before
 * the download starts, with the numbers, when the disk cannot hold it. */
static void
space_check(const struct jobctx *c, struct sb *s)
{
	const struct pc_data *dt = c->cfg->kind == PC_DATA ? &c->cfg->u.data : NULL;
	if (!dt || !dt->size_gb)
		return;
	sb_add(s, "llmb_need_gb=");
	sb_add_shquote(s, dt->size_gb);
	sb_add(s, "\nllmb_need_kb=$(awk -v g=\"$llmb_need_gb\" 'BEGIN { printf \"%.0f\", g * 1024 * 1024 }')\n"
		  "llmb_free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')\n"
		  "if [ \"$llmb_free_kb\" -lt \"$llmb_need_kb\" ]; then\n"
		  "\techo \"llmb: error: not enough disk space for task ");
	sb_add(s, dt->task);
	sb_add(s, ": it needs $llmb_need_gb GB (size_gb in the recipe), $PWD has $((llmb_free_kb / 1048576)) GB free\" >&2\n"
		  "\texit 4\nfi\n"
		  "echo \"llmb: disk space ok: the task needs $llmb_need_gb GB, $((llmb_free_kb / 1048576)) GB free\"");
}

/* Image import: the reference, where the image goes (the install tree's
 * images/, or the shared image folder LLMB_IMAGE_DIR that images/ then
 * links to) and the node architecture. */
static void
image_definitions(const struct jobctx *c, struct sb *d, const char *ref)
{
	const char *file = c->cfg->u.image.stem;
	char *uri = xasprintf("docker://%s", ref);
	define_q(d, "LLMB_URI", uri);
	define_q(d, "LLMB_REF", ref);
	free(uri);
	const char *dir = getenv("LLMB_IMAGE_DIR");
	char *out = layout_image(c->install, file);
	char *store = dir && *dir ? xasprintf("%s/%s" LAYOUT_IMAGE_SUFFIX, dir, file) : xstrdup(out);
	define_q(d, "LLMB_OUT", out);
	define_q(d, "LLMB_STORE", store);
	free(out);
	free(store);
	const char *arch = getenv("LLMB_ARCH");
	define_q(d, "LLMB_ARCH", arch && *arch ? arch : "x86_64");
}

/* How the training step is launched: its srun flags (train.srun) as
 * literal words, so a job without them renders as before they existed, and
 * whether the node setup step runs (train.node_setup), with its script. */
static void
launch_definitions(const struct jobctx *c, struct sb *d)
{
	static const struct pc_train none;
	const struct pc_train *t = c->cfg->kind == PC_TRAIN && c->cfg->bound ? &c->cfg->u.train : &none;
	struct sb s = {0};
	if (t->srun_mpi) {
		char *f = xasprintf("--mpi=%s", t->srun_mpi);
		sb_add_shquote(&s, f);
		sb_addc(&s, ' ');
		free(f);
	}
	define(d, "LLMB_SRUN_FLAGS", s.buf ? s.buf : "");
	sb_reset(&s);
	if (t->container_writable)
		sb_add(&s, " '--container-writable'");
	/* names only: the values are the job's exports (LLMB_ENV) */
	if (t->container_env) {
		char *f = xasprintf("--container-env=%s", t->container_env);
		sb_addc(&s, ' ');
		sb_add_shquote(&s, f);
		free(f);
	}
	define(d, "LLMB_CONTAINER_FLAGS", s.buf ? s.buf : "");
	sb_reset(&s);
	define(d, "LLMB_NODE_SETUP_ON", t->node_setup ? "1" : "0");
	char *wdir = layout_workloads(c->top), *script = layout_in(wdir, "node-setup.sh");
	free(wdir);
	sb_add_shquote(&s, script);
	define(d, "LLMB_NODE_SETUP_SCRIPT", s.buf);
	free(script);
	sb_free(&s);
}

/* The training job's #SBATCH lines (train.sbatch): --mem and upstream's
 * --segment. ADDITIONAL_SLURM_PARAMS goes on sbatch's command line and
 * wins over them; a memory option there (mem, mem-per-cpu, mem-per-gpu
 * exclude each other) or a segment leaves the line out, as does a
 * cluster whose sbatch has no --segment (stagerun.c notes it). */
static void
sbatch_definitions(const struct jobctx *c, struct sb *d)
{
	struct sb s = {0};
	const struct pc_train *t = c->cfg->kind == PC_TRAIN && c->cfg->bound ? &c->cfg->u.train : NULL;
	const char *extra = stagecfg_knob(c->cfg, "ADDITIONAL_SLURM_PARAMS");
	int own_mem = slurm_params_sets(extra, "mem", 3) || slurm_params_sets(extra, "mem-per-cpu", 9) ||
		slurm_params_sets(extra, "mem-per-gpu", 9);
	if (t && t->sbatch_mem && !own_mem)
		sb_addf(&s, "#SBATCH --mem=%s\n", t->sbatch_mem);
	if (t && t->segment && !c->no_segment && !slurm_params_sets(extra, "segment", 3))
		sb_addf(&s, "#SBATCH --segment=%ld\n", t->segment);
	define(d, "LLMB_SBATCH", s.buf ? s.buf : "");
	sb_free(&s);
}

/* The m4 macros of one stage. */
static int
definitions(const struct jobctx *c, struct sb *d, struct sb *err)
{
	const struct stagecfg *cfg = c->cfg;
	const struct pc_cmd *cmd = stagecfg_cmd(cfg);
	static const struct pc_cmd nocmd;
	if (!cmd)
		cmd = &nocmd;
	char buf[32];
	struct sb s = {0};
	sb_add(d, "m4_changequote([[, ]])m4_dnl\n");
	/* the names of the files the script writes, the install tree's */
#define NAME_MACRO(key, name) define(d, "LLMB_NAME_" #key, name);
	LAYOUT_SCRIPT_NAMES(NAME_MACRO)
#undef NAME_MACRO
	define(d, "LLMB_ID", cfg->id);
	define_q(d, "LLMB_QID", cfg->id);
	define(d, "LLMB_LABEL", cfg->label);
	define(d, "LLMB_TEMPLATE", cfg->template);
	define(d, "LLMB_TOKEN", c->token);
	define_q(d, "LLMB_INSTALL_DIR", c->install);
	define_q(d, "LLMB_STATE_DIR", c->state_dir);
	char *probe = xasprintf("%s/templates/probe-node.sh", c->top);
	define_q(d, "LLMB_PROBE_SCRIPT", probe);
	free(probe);
	/* a word of four (stagecfg.h): the template decides on it */
	define(d, "LLMB_PREFLIGHT_POLICY", preflight_names[stagecfg_preflight(cfg)]);
	snprintf(buf, sizeof buf, "%ld", cfg->kind == PC_TRAIN && cfg->bound ? cfg->u.train.tasks_per_node : 1L);
	define(d, "LLMB_NTASKS", buf);
	const char **words = xcalloc(cmd->nargs + 1, sizeof *words);
	for (size_t i = 0; i < cmd->nargs; i++)
		words[i] = cmd->args[i].word;
	int rc = quoted_list(c, words, cmd->nargs, " ", NULL, &s, err);
	free(words);
	define(d, "LLMB_CMD", s.len ? s.buf : ":");
	sb_reset(&s);
	rc |= caller_env(c, &s, err);
	rc |= quoted_list(c, (const char *const *)cmd->env, cmd->nenv, "\n", "export ", &s, err);
	define(d, "LLMB_ENV", s.buf ? s.buf : "");
	sb_reset(&s);
	const char *const *sec = cmd->secrets;
	size_t n = cmd->nsecrets;
	for (size_t i = 0; i < n; i++) {
		/* Names only: the value comes from the environment of the job. */
		sb_addf(&s, ": \"${%s:?%s must be set in the environment (it is passed by name)}\"\nexport %s\n",
			sec[i], sec[i], sec[i]);
	}
	define(d, "LLMB_SECRETS", s.buf ? s.buf : "");
	sb_reset(&s);
	/* the rank-0 task's environment dump leaves these values out */
	envrec_case_pattern(&s, (char *const *)sec, n);
	define(d, "LLMB_REDACT", s.buf);
	define(d, "LLMB_REDACTED", ENVREC_REDACTED);
	sb_reset(&s);
	char *img = jobscript_path_value(c, "image_file");
	sb_add_shquote(&s, img ? img : "");
	define(d, "LLMB_IMAGE", s.buf);
	free(img);
	sb_reset(&s);
	rc |= quoted_list(c, (const char *const *)cmd->mounts, cmd->nmounts, ",", NULL, &s, err);
	/* the mounts are one comma-joined word */
	define(d, "LLMB_MOUNTS", s.len ? s.buf : "''");
	sb_reset(&s);
	if (cfg->kind == PC_DATA)
		rc |= quoted_list(c, cfg->u.data.proves, cfg->u.data.nproves, " ", NULL, &s, err);
	define(d, "LLMB_PROVES", s.buf ? s.buf : "");
	sb_reset(&s);
	char *wd = jobscript_path_value(c, "experiment_dir");
	if (!wd)
		wd = jobscript_path_value(c, "workload_dir");
	sb_add_shquote(&s, wd);
	define(d, "LLMB_WORKDIR", s.buf);
	free(wd);
	sb_reset(&s);
	space_check(c, &s);
	define(d, "LLMB_SPACE_CHECK", s.buf ? s.buf : "");
	sb_reset(&s);
	if (cfg->kind == PC_IMAGE)
		image_definitions(c, d, cfg->u.image.ref);
	launch_definitions(c, d);
	sbatch_definitions(c, d);
	/* the venv a setup task runs in, as upstream runs its tasks */
	char *venv = stage_kind_is(pc_kind_names[cfg->kind], SK_TASK_VENV) ? jobscript_path_value(c, "venv_dir") : NULL;
	sb_add_shquote(&s, venv ? venv : "");
	define(d, "LLMB_TASK_VENV", s.buf);
	free(venv);
	sb_reset(&s);
	if (cfg->kind == PC_VENV && cfg->u.venv.dir) {
		char *dir = xasprintf("%s/%s", c->install, cfg->u.venv.dir);
		define_q(d, "LLMB_VENV_DIR", dir);
		free(dir);
		define_q(d, "LLMB_PYTHON", cfg->u.venv.python ? cfg->u.venv.python : "python3");
		define(d, "LLMB_VENV_FLAGS", cfg->u.venv.system_site_packages ? "--system-site-packages" : "");
		rc |= venv_steps(c, d, err);
	}
	sb_free(&s);
	return rc;
}

int
jobscript_render(const struct jobctx *c, struct sb *out, struct sb *err)
{
	struct sb defs = {0};
	if (definitions(c, &defs, err)) {
		sb_free(&defs);
		return -1;
	}
	char *tdir = xasprintf("%s/templates", c->top);
	char *tfile = xasprintf("%s/%s.m4", tdir, c->cfg->template);
	const char *m4 = getenv("M4") ? getenv("M4") : "m4";
	char *argv[] = {(char *)m4, "-P", "--fatal-warnings", "-I", tdir, "-", tfile, NULL};
	/* the definitions go to m4's stdin while its output is read */
	struct proc p = {.argv = argv, .in = defs.buf ? defs.buf : "", .inlen = defs.len, .out = out};
	int st = proc_run(&p);
	if (st < 0 && !p.exec_failed)
		die("fork: %s", strerror(p.error));
	if (st < 0) {
		fprintf(stderr, "llmb: cannot run m4: %s\n", strerror(p.error));
		st = 127;
	}
	sb_free(&defs);
	free(tdir);
	int ok = st == 0;
	if (!ok)
		sb_addf(err, "m4 failed on %s (exit %d)", tfile, p.signaled ? -1 : st);
	free(tfile);
	return ok ? 0 : -1;
}

/* llmb script [--top DIR] [--gen DIR] [--install DIR] ID: prints the job
 * script that `llmb run` would submit for the stage. */
int
cmd_script(int argc, char **argv)
{
	const char *top = ".", *gen = "build/gen", *install = layout_install_root(getenv(LAYOUT_INSTALL_VAR));
	static const struct option longopts[] = {
		{"top", required_argument, NULL, 't'}, {"gen", required_argument, NULL, 'g'},
		{"install", required_argument, NULL, 'i'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	static const char usage[] = "usage: llmb script [--top DIR] [--gen DIR] [--install DIR] STAGE-ID\n";
	int i = 1, o;
	cliopt_start();
	while ((o = cliopt_next_word(argc, argv, longopts, &i)) != -1) {
		if (o == 'h')
			return fputs(usage, stdout), 0;
		*(o == 't' ? &top : o == 'g' ? &gen : &install) = optarg;
	}
	/* a stage id never starts with '-': an option not understood */
	int stop = cliopt_operands(argc, argv, longopts, usage, &i);
	if (stop >= 0)
		return stop;
	if (i != argc - 1) {
		fputs(usage, stderr);
		return 2;
	}
	char *path = layout_cfg(gen, argv[i]);
	char *cfg = read_file(path, NULL);
	if (!cfg) {
		fprintf(stderr, "llmb script: error: no configuration %s: %s (run llmb gen first)\n", path, strerror(errno));
		free(path);
		return 2;
	}
	struct stagecfg rec;
	if (stagecfg_parse(&rec, cfg, path)) {
		free(cfg);
		free(path);
		return 2;
	}
	char *state = layout_jobs(install, argv[i]);
	struct jobctx c = {.top = top, .gen = gen, .install = install, .cfg = &rec, .token = "TOKEN", .state_dir = state};
	struct sb out = {0}, err = {0};
	int rc = jobscript_render(&c, &out, &err);
	if (rc)
		fprintf(stderr, "llmb script: error: %s: %s\n", argv[i], err.buf);
	else
		fwrite(out.buf, 1, out.len, stdout);
	sb_free(&out);
	sb_free(&err);
	free(state);
	stagecfg_free(&rec);
	free(cfg);
	free(path);
	return rc ? 2 : 0;
}
