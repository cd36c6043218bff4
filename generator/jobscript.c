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
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "jobscript.h"
#include "plan.h"
#include "util.h"

static void
define(struct sb *d, const char *name, const char *value)
{
	sb_addf(d, "m4_define([[%s]], [[[[%s]]]])m4_dnl\n", name, value);
}

static void
define_q(struct sb *d, const char *name, const char *value)
{
	struct sb q = {0};
	sb_add_shquote(&q, value);
	define(d, name, q.buf);
	sb_free(&q);
}

/* Path of an upstream stage's "dir=" (the venv), or NULL. */
static char *
upstream_value(const struct jobctx *c, const char *prefix, const char *key)
{
	size_t n;
	char **after = cfg_values(c->cfg, "after", &n), *res = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!res && !strncmp(after[i], prefix, strlen(prefix))) {
			char *id = xstrndup(after[i], strcspn(after[i], " "));
			char *path = xasprintf("%s/cfg/%s", c->gen, id);
			char *cfg = read_file(path, NULL);
			char buf[PATH_MAX];
			if (cfg && cfg_get(cfg, key, buf, sizeof buf))
				res = xstrdup(buf);
			free(cfg);
			free(path);
			free(id);
		}
		free(after[i]);
	}
	free(after);
	return res;
}

char *
jobscript_path_value(const struct jobctx *c, const char *name)
{
	char w[256], run[256], img[256];
	cfg_get(c->cfg, "workload", w, sizeof w);
	if (!strcmp(name, "install"))
		return xstrdup(c->install);
	if (!strcmp(name, "workload_dir"))
		return xasprintf("%s/workloads/%s", c->install, w);
	if (!strcmp(name, "experiment_dir"))
		return cfg_get(c->cfg, "run", run, sizeof run) ? xasprintf("%s/workloads/%s/experiments/%s", c->install, w, run) : NULL;
	if (!strcmp(name, "recipe_dir"))
		return xasprintf("%s/workloads/%s", c->top, w);
	if (!strcmp(name, "state_dir"))
		return xstrdup(c->state_dir);
	if (!strcmp(name, "image_file")) {
		const char *dir = getenv("LLMB_IMAGE_DIR");
		return cfg_get(c->cfg, "image", img, sizeof img)
			? (dir && *dir ? xasprintf("%s/%s.sqsh", dir, img) : xasprintf("%s/images/%s.sqsh", c->install, img))
			: NULL;
	}
	if (!strcmp(name, "venv_dir") || !strncmp(name, "repo_", 5)) {
		char *dir = upstream_value(c, "venv.", "dir");
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
quoted_list(const struct jobctx *c, const char *key, const char *sep, const char *prefix,
	    struct sb *out, struct sb *err)
{
	size_t n;
	char **v = cfg_values(c->cfg, key, &n);
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
		free(v[i]);
	}
	free(v);
	return rc;
}

static void
venv_steps(const struct jobctx *c, struct sb *d)
{
	struct sb s = {0}, args = {0};
	size_t n;
	char **v = cfg_values(c->cfg, "repo", &n);
	for (size_t i = 0; i < n; i++) {
		char key[128], url[1024], commit[64];
		if (sscanf(v[i], "%127s %1023s %63s", key, url, commit) == 3) {
			sb_add(&s, "llmb_clone ");
			sb_add_shquote(&s, key);
			sb_addc(&s, ' ');
			sb_add_shquote(&s, url);
			sb_addc(&s, ' ');
			sb_add_shquote(&s, commit);
			sb_addc(&s, '\n');
		}
		free(v[i]);
	}
	free(v);
	v = cfg_values(c->cfg, "git", &n);
	for (size_t i = 0; i < n; i++) {
		char key[128], method[32], path[1024];
		if (sscanf(v[i], "%127s %31s %1023s", key, method, path) == 3 && !strcmp(method, "script")) {
			sb_add(&s, "(cd \"$src\"/");
			sb_add_shquote(&s, key);
			sb_add(&s, " && VIRTUAL_ENV=\"$dir\" PATH=\"$dir/bin:$PATH\" bash ./");
			sb_add_shquote(&s, path);
			sb_add(&s, ")\n");
		}
		free(v[i]);
	}
	free(v);
	v = cfg_values(c->cfg, "pip", &n);
	for (size_t i = 0; i < n; i++) {
		sb_add(&s, "llmb_pip ");
		sb_add_shquote(&s, v[i]);
		sb_addc(&s, '\n');
		free(v[i]);
	}
	free(v);
	v = cfg_values(c->cfg, "pipdep", &n);
	for (size_t i = 0; i < n; i++) {
		char pkg[128], repo[128], target[256], ed[16];
		if (sscanf(v[i], "%127s %127s %255s %15s", pkg, repo, target, ed) == 4) {
			sb_add(&s, "llmb_pip ");
			if (!strcmp(repo, "-")) {
				sb_add_shquote(&s, pkg);
			} else {
				if (!strcmp(ed, "editable"))
					sb_add(&s, "-e ");
				sb_add(&s, "\"$src\"/");
				sb_add_shquote(&s, repo);
				if (strcmp(target, "-")) {
					/* install_target ".[all]": extras of the clone */
					sb_add_shquote(&s, target[0] == '.' ? target + 1 : target);
				}
			}
			sb_addc(&s, '\n');
		}
		free(v[i]);
	}
	free(v);
	v = cfg_values(c->cfg, "pip_arg", &n);
	for (size_t i = 0; i < n; i++) {
		if (args.len)
			sb_addc(&args, ' ');
		sb_add_shquote(&args, v[i]);
		free(v[i]);
	}
	free(v);
	define(d, "LLMB_STEPS", s.buf ? s.buf : ":");
	define(d, "LLMB_PIP_ARGS", args.buf ? args.buf : "");
	sb_free(&s);
	sb_free(&args);
}

/* The m4 macros of one stage. */
static int
definitions(const struct jobctx *c, struct sb *d, struct sb *err)
{
	char buf[4096], tmpl[128];
	struct sb s = {0};
	sb_add(d, "m4_changequote([[, ]])m4_dnl\n");
	cfg_get(c->cfg, "id", buf, sizeof buf);
	define(d, "LLMB_ID", buf);
	define_q(d, "LLMB_QID", buf);
	define(d, "LLMB_LABEL", cfg_get(c->cfg, "label", buf, sizeof buf) ? buf : "");
	define(d, "LLMB_TEMPLATE", cfg_get(c->cfg, "template", tmpl, sizeof tmpl) ? tmpl : "");
	define(d, "LLMB_TOKEN", c->token);
	define_q(d, "LLMB_INSTALL_DIR", c->install);
	define_q(d, "LLMB_STATE_DIR", c->state_dir);
	define(d, "LLMB_NTASKS", cfg_get(c->cfg, "ntasks_per_node", buf, sizeof buf) ? buf : "1");
	int rc = quoted_list(c, "arg", " ", NULL, &s, err);
	define(d, "LLMB_CMD", s.len ? s.buf : ":");
	sb_reset(&s);
	rc |= quoted_list(c, "env", "\n", "export ", &s, err);
	define(d, "LLMB_ENV", s.buf ? s.buf : "");
	sb_reset(&s);
	size_t n;
	char **sec = cfg_values(c->cfg, "secret", &n);
	for (size_t i = 0; i < n; i++) {
		/* Names only: the value comes from the environment of the job. */
		sb_addf(&s, ": \"${%s:?%s must be set in the environment (it is passed by name)}\"\nexport %s\n",
			sec[i], sec[i], sec[i]);
		free(sec[i]);
	}
	free(sec);
	define(d, "LLMB_SECRETS", s.buf ? s.buf : "");
	sb_reset(&s);
	char *img = jobscript_path_value(c, "image_file");
	sb_add_shquote(&s, img ? img : "");
	define(d, "LLMB_IMAGE", s.buf);
	free(img);
	sb_reset(&s);
	rc |= quoted_list(c, "mount", ",", NULL, &s, err);
	/* the mounts are one comma-joined word */
	define(d, "LLMB_MOUNTS", s.len ? s.buf : "''");
	sb_reset(&s);
	rc |= quoted_list(c, "prove", " ", NULL, &s, err);
	define(d, "LLMB_PROVES", s.buf ? s.buf : "");
	sb_reset(&s);
	char *wd = jobscript_path_value(c, "experiment_dir");
	if (!wd)
		wd = jobscript_path_value(c, "workload_dir");
	sb_add_shquote(&s, wd);
	define(d, "LLMB_WORKDIR", s.buf);
	free(wd);
	sb_reset(&s);
	if (cfg_get(c->cfg, "size_gb", buf, sizeof buf)) {
		sb_add(&s, "llmb_need_kb=$(awk -v g=");
		sb_add_shquote(&s, buf);
		sb_add(&s, " 'BEGIN { printf \"%d\", g * 1024 * 1024 }')\n"
			   "llmb_free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')\n"
			   "if [ \"$llmb_free_kb\" -lt \"$llmb_need_kb\" ]; then\n"
			   "\techo \"llmb: not enough space in $PWD: $llmb_free_kb KiB free, the task needs $llmb_need_kb KiB\" >&2\n"
			   "\texit 4\nfi");
	}
	define(d, "LLMB_SPACE_CHECK", s.buf ? s.buf : "");
	sb_reset(&s);
	/* image */
	if (cfg_get(c->cfg, "ref", buf, sizeof buf)) {
		char *uri = xasprintf("docker://%s", buf);
		define_q(d, "LLMB_URI", uri);
		free(uri);
		char file[512];
		cfg_get(c->cfg, "file", file, sizeof file);
		const char *dir = getenv("LLMB_IMAGE_DIR");
		char *out = dir && *dir ? xasprintf("%s/%s.sqsh", dir, file) : xasprintf("%s/images/%s.sqsh", c->install, file);
		define_q(d, "LLMB_OUT", out);
		free(out);
		const char *arch = getenv("LLMB_ARCH");
		define_q(d, "LLMB_ARCH", arch && *arch ? arch : "x86_64");
	}
	/* venv */
	if (cfg_get(c->cfg, "dir", buf, sizeof buf)) {
		char *dir = xasprintf("%s/%s", c->install, buf);
		define_q(d, "LLMB_VENV_DIR", dir);
		free(dir);
		define_q(d, "LLMB_PYTHON", cfg_get(c->cfg, "python", buf, sizeof buf) ? buf : "python3");
		define(d, "LLMB_VENV_FLAGS", cfg_get(c->cfg, "system_site_packages", buf, sizeof buf) && !strcmp(buf, "true")
			? "--system-site-packages" : "");
		venv_steps(c, d);
	}
	sb_free(&s);
	return rc;
}

int
jobscript_render(const struct jobctx *c, struct sb *out, struct sb *err)
{
	struct sb defs = {0};
	char tmpl[128];
	if (definitions(c, &defs, err)) {
		sb_free(&defs);
		return -1;
	}
	cfg_get(c->cfg, "template", tmpl, sizeof tmpl);
	char *tdir = xasprintf("%s/templates", c->top);
	char *tfile = xasprintf("%s/%s.m4", tdir, tmpl);
	int in[2], outp[2];
	if (pipe(in) < 0 || pipe(outp) < 0)
		die("pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(outp[1], 1);
		close(in[0]); close(in[1]); close(outp[0]); close(outp[1]);
		const char *m4 = getenv("M4") ? getenv("M4") : "m4";
		execlp(m4, m4, "-P", "--fatal-warnings", "-I", tdir, "-", tfile, (char *)NULL);
		fprintf(stderr, "llmb: cannot run m4: %s\n", strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	/* The definitions are small; m4 reads them all before writing much. */
	const char *p = defs.buf;
	size_t left = defs.len;
	while (left) {
		ssize_t w = write(in[1], p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	close(in[1]);
	char buf[8192];
	for (ssize_t r; (r = read(outp[0], buf, sizeof buf)) != 0;) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		sb_addn(out, buf, (size_t)r);
	}
	close(outp[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	sb_free(&defs);
	free(tdir);
	int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (!ok)
		sb_addf(err, "m4 failed on %s (exit %d)", tfile, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	free(tfile);
	return ok ? 0 : -1;
}

/* llmb script [--top DIR] [--gen DIR] [--install DIR] ID: prints the job
 * script that `llmb run` would submit for the stage. */
int
cmd_script(int argc, char **argv)
{
	const char *top = ".", *gen = "build/gen", *install = getenv("LLMB_INSTALL") ? getenv("LLMB_INSTALL") : "install";
	int i = 1;
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "--top"))
			top = argv[i + 1];
		else if (!strcmp(argv[i], "--gen"))
			gen = argv[i + 1];
		else if (!strcmp(argv[i], "--install"))
			install = argv[i + 1];
		else
			break;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: llmb script [--top DIR] [--gen DIR] [--install DIR] STAGE-ID\n");
		return 2;
	}
	char *path = xasprintf("%s/cfg/%s", gen, argv[i]);
	char *cfg = read_file(path, NULL);
	if (!cfg) {
		fprintf(stderr, "llmb script: error: no configuration %s: %s (run llmb gen first)\n", path, strerror(errno));
		free(path);
		return 2;
	}
	char *state = xasprintf("%s/state/jobs/%s", install, argv[i]);
	struct jobctx c = {.top = top, .gen = gen, .install = install, .cfg = cfg, .token = "TOKEN", .state_dir = state};
	struct sb out = {0}, err = {0};
	int rc = jobscript_render(&c, &out, &err);
	if (rc)
		fprintf(stderr, "llmb script: error: %s: %s\n", argv[i], err.buf);
	else
		fwrite(out.buf, 1, out.len, stdout);
	sb_free(&out);
	sb_free(&err);
	free(state);
	free(cfg);
	free(path);
	return rc ? 2 : 0;
}
