/* import: `llmb import [-o OUT.yaml] metadata.yaml` converts an upstream
 * recipe (metadata.yaml, schema of releases 25.07/25.08) into an llmb
 * workload. What the upstream keeps outside metadata.yaml (the training
 * command and parallelism of launch.sh, the model dimensions, the FLOPs
 * formula, the proofs of setup tasks) cannot be converted: each gap is an
 * error at the position it belongs to, and the output leaves the key out
 * with a TODO comment, so `llmb check` refuses the file until it is filled.
 *
 * Exit status: 0 complete, 1 converted with gaps (listed), 2 bad input
 * (nothing written). The upstream schema never holds a training command,
 * so a real metadata.yaml always gives 1. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "diag.h"
#include "recipe.h"
#include "schema.h"
#include "util.h"
#include "yamlload.h"

struct img {
	char *key;
	const struct ynode *ref;    /* upstream url */
	char *gpus;                 /* explicit GPU types, ", "-separated */
	int dflt;                   /* listed under by_gpu default or without by_gpu */
};

struct imp {
	const char *file;
	int bad, gaps;
	const struct ynode *root, *gpu_configs;
	struct img *imgs;
	size_t nimgs;
	char *train_image;          /* key of the training image */
	struct sb repos, venv_git, venv_pip, extra_repos;
};

static const struct ytype t_name = {T_NAME, 0, 0, 0}, t_url = {T_URL, 0, 0, 0},
	t_sha = {T_SHA, 0, 0, 0}, t_image = {T_IMAGE, 0, 0, 0}, t_str = {T_STR, 0, 0, 0};

/* ---- diagnostics and checked access -------------------------------------- */

static void
bad(struct imp *im, const struct ynode *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_error(im->file, n ? n->line : 0, n ? n->col : 0, "%s", msg);
	im->bad++;
}

/* Something the output must get by hand: an error at its upstream place. */
static void
gap(struct imp *im, const struct ynode *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_error(im->file, n ? n->line : 0, n ? n->col : 0, "not converted: %s", msg);
	im->gaps++;
}

static void
note(struct imp *im, const struct ynode *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_note(im->file, n ? n->line : 0, n ? n->col : 0, "%s", msg);
}

/* Child key of mapping m with kind k; absent is NULL, a wrong kind is bad. */
static const struct ynode *
get(struct imp *im, const struct ynode *m, const char *key, int kind, int required)
{
	const struct ynode *v = m && m->kind == Y_MAP ? ymap_get(m, key) : NULL;
	if (!v) {
		if (required)
			bad(im, m, "missing key '%s'", key);
		return NULL;
	}
	if (kind >= 0 && (int)v->kind != kind) {
		bad(im, v, "'%s' must be a %s, not a %s", key, ykind_name((enum ykind)kind), ykind_name(v->kind));
		return NULL;
	}
	return v;
}

static int
check(struct imp *im, const struct ynode *n, const struct ytype *t)
{
	int e = schema_check(im->file, n, t);
	im->bad += e;
	return e;
}

static void
ignore_unknown(struct imp *im, const struct ynode *m, const char *const *known, const char *where)
{
	for (size_t i = 0; m && m->kind == Y_MAP && i < ymap_len(m); i++) {
		const struct ynode *k = ymap_key(m, i);
		const char *const *p = known;
		while (*p && strcmp(*p, k->str))
			p++;
		if (!*p)
			note(im, k, "%s'%s' is not part of the 25.07/25.08 schema llmb converts; ignored", where, k->str);
	}
}

/* ---- output --------------------------------------------------------------- */

/* A double-quoted YAML scalar. */
static void
q(struct sb *s, const char *v)
{
	sb_addc(s, '"');
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			sb_addf(s, "\\%c", *v);
		else if ((unsigned char)*v < 0x20)
			sb_addf(s, "\\x%02x", (unsigned char)*v);
		else
			sb_addc(s, *v);
	}
	sb_addc(s, '"');
}

static void
list_add(char **list, const char *w)
{
	char *old = *list;
	*list = old ? xasprintf("%s, %s", old, w) : xstrdup(w);
	free(old);
}

static int
in_list(const char *list, const char *w)
{
	size_t l = strlen(w);
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ", ");
		if (n == l && !strncmp(p, w, l))
			return 1;
		p += n;
		p += strspn(p, ", ");
	}
	return 0;
}

/* ---- general -------------------------------------------------------------- */

static void
do_general(struct imp *im, struct sb *o)
{
	static const char *const known[] = {"workload", "workload_type", "gsw_version", "framework", "model", NULL};
	const struct ynode *g = get(im, im->root, "general", Y_MAP, 1);
	if (!g)
		return;
	ignore_unknown(im, g, known, "general.");
	const struct ynode *w = get(im, g, "workload", Y_SCALAR, 1), *t = get(im, g, "workload_type", Y_SCALAR, 1);
	const struct ynode *fw = get(im, g, "framework", Y_SCALAR, 0), *ver = get(im, g, "gsw_version", Y_SCALAR, 0);
	if (w && !check(im, w, &t_name)) {
		sb_addf(o, "workload: %s\n", w->str);
		note(im, w, "save the output as workloads/%s.yaml: the file name must match the workload", w->str);
	}
	if (t && (!strcmp(t->str, "pretrain") || !strcmp(t->str, "finetune")))
		sb_addf(o, "type: %s\n", t->str);
	else if (t)
		bad(im, t, "workload_type '%s': llmb benchmarks training only (pretrain, finetune)", t->str);
	sb_add(o, "pipeline: benchmark\n");
	if (w && t) {
		sb_add(o, "description: ");
		char *d = xasprintf("%s %s, imported from upstream metadata.yaml", w->str, t->str);
		q(o, d);
		free(d);
		sb_add(o, "\n");
	}
	sb_add(o, "source: ");
	char *src = xasprintf("upstream metadata.yaml%s%s", ver ? ", release " : "", ver ? ver->str : "");
	q(o, src);
	free(src);
	sb_add(o, "\n");
	if (fw && !check(im, fw, &t_name)) {
		sb_addf(o, "framework: %s\n", fw->str);
		const char *lf = !strcmp(fw->str, "nemo2") ? "nemo2" : !strcmp(fw->str, "maxtext") ? "maxtext"
			: !strcmp(fw->str, "megatron_bridge") ? "mbridge" : NULL;
		if (lf)
			sb_addf(o, "log_format: %s\n", lf);
		else {
			sb_add(o, "# TODO log_format: nemo2, maxtext or mbridge\n");
			gap(im, fw, "framework '%s' has no known log format: set log_format", fw->str);
		}
	} else if (!fw) {
		sb_add(o, "# TODO log_format: nemo2, maxtext or mbridge\n");
		gap(im, g, "no general.framework: set log_format");
	}
}

/* ---- images --------------------------------------------------------------- */

/* "nvcr.io#nvidia/nemo:25.07.01" -> "nemo" */
static char *
image_base(const char *ref)
{
	const char *s = strrchr(ref, '/'), *h = strrchr(ref, '#');
	s = s && (!h || s > h) ? s + 1 : h ? h + 1 : ref;
	size_t n = strcspn(s, ":@");
	char *b = xstrndup(s, n);
	for (char *c = b; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-", *c))
			*c = '-';
	return b;
}

static struct img *
image_add(struct imp *im, const struct ynode *item, const char *gpu)
{
	const struct ynode *url = item;
	if (item->kind == Y_MAP) {
		url = get(im, item, "url", Y_SCALAR, 1);
		const struct ynode *nm = get(im, item, "name", Y_SCALAR, 0);
		if (nm)
			note(im, nm, "image name '%s' dropped: llmb names image files by the upstream rule <parent>+<name>+<tag>.sqsh", nm->str);
	} else if (item->kind != Y_SCALAR) {
		bad(im, item, "an image must be a string or {url, name}");
		return NULL;
	}
	if (!url || check(im, url, &t_image))
		return NULL;
	if (!strchr(url->str, '#')) {
		bad(im, url, "image '%s' is not in enroot form registry#path:tag (write '#' after the registry)", url->str);
		return NULL;
	}
	struct img *m = NULL;
	for (size_t i = 0; i < im->nimgs && !m; i++)
		if (!strcmp(im->imgs[i].ref->str, url->str))
			m = &im->imgs[i];
	if (!m) {
		char *key = image_base(url->str);
		for (size_t i = 0; i < im->nimgs; i++) {
			if (!strcmp(im->imgs[i].key, key)) {
				const char *tag = strrchr(url->str, ':');
				char *k2 = tag && !strchr(tag, '/') ? xasprintf("%s-%s", key, tag + 1) : xasprintf("%s-%zu", key, im->nimgs + 1);
				if (!valid_name(k2)) {
					free(k2);
					k2 = xasprintf("%s-%zu", key, im->nimgs + 1);
				}
				free(key);
				key = k2;
				break;
			}
		}
		im->imgs = xrealloc(im->imgs, (im->nimgs + 1) * sizeof *im->imgs);
		m = &im->imgs[im->nimgs++];
		*m = (struct img){key, url, NULL, 0};
	}
	if (gpu)
		list_add(&m->gpus, gpu);
	else
		m->dflt = 1;
	return m;
}

/* The images of one by_gpu entry (or of the plain list); returns the key
 * of the first, the one the training job of that GPU runs in. */
static const char *
image_list(struct imp *im, const struct ynode *v, const char *gpu)
{
	const char *first = NULL;
	if (v->kind != Y_SEQ) {
		bad(im, v, "images must be a list");
		return NULL;
	}
	for (size_t i = 0; i < v->nkids; i++) {
		struct img *m = image_add(im, v->kids[i], gpu);
		if (m && !first)
			first = m->key;
		if (m && i > 0)
			note(im, v->kids[i], "image '%s' is imported too, but the training job runs in the first image", m->ref->str);
	}
	return first;
}

static void
do_images(struct imp *im, struct sb *o)
{
	const struct ynode *c = get(im, im->root, "container", Y_MAP, 0);
	const struct ynode *imgs = get(im, c, "images", -1, c != NULL);
	if (!imgs)
		return;
	const struct ynode *by = imgs->kind == Y_MAP ? get(im, imgs, "by_gpu", Y_MAP, 1) : NULL;
	if (!by) {
		const char *k = image_list(im, imgs, NULL);
		im->train_image = k ? xstrdup(k) : NULL;
	} else {
		const char *dflt = NULL, *other = NULL;
		const struct ynode *where = NULL;
		for (size_t i = 0; i < ymap_len(by); i++) {
			const struct ynode *k = ymap_key(by, i);
			int isdef = !strcmp(k->str, "default");
			const char *first = image_list(im, ymap_val(by, i), isdef ? NULL : k->str);
			if (isdef)
				dflt = first;
			else if (first && (!other || strcmp(other, first))) {
				if (other)
					where = k;
				else
					other = first;
			}
		}
		const char *tk = dflt ? dflt : other;
		im->train_image = tk ? xstrdup(tk) : NULL;
		if ((dflt && other && strcmp(dflt, other)) || where)
			gap(im, by, "per-GPU training images: llmb's train.image names one image for every GPU type; "
			    "the output trains in '%s' (split the workload per image or pick one)", tk);
	}
	/* A by_gpu default serves the GPU types without their own entry. */
	sb_add(o, "\nimages:\n");
	for (size_t i = 0; i < im->nimgs; i++) {
		struct img *m = &im->imgs[i];
		sb_addf(o, "  %s:\n    ref: ", m->key);
		q(o, m->ref->str);
		sb_add(o, "\n");
		if (by) {
			char *gl = m->gpus ? xstrdup(m->gpus) : NULL;
			const struct ynode *gc = im->gpu_configs;
			for (size_t g = 0; m->dflt && gc && g < ymap_len(gc); g++) {
				const char *name = ymap_key(gc, g)->str;
				if (!ymap_get(by, name) && !in_list(gl, name))
					list_add(&gl, name);
			}
			if (gl)
				sb_addf(o, "    gpus: [%s]\n", gl);
			free(gl);
		}
		sb_addf(o, "    source: \"upstream metadata.yaml container.images%s\"\n", by ? " (by_gpu)" : "");
	}
}

/* ---- repositories --------------------------------------------------------- */

static void
repo_entry(struct imp *im, struct sb *o, const char *key, const struct ynode *r, const struct ynode *dflt, const char *gpus)
{
	const struct ynode *url = get(im, r, "url", Y_SCALAR, !dflt);
	const struct ynode *sha = get(im, r, "commit", Y_SCALAR, 1);
	if (!url && dflt)
		url = get(im, dflt, "url", Y_SCALAR, 1);
	if (!url || !sha || check(im, url, &t_url) || check(im, sha, &t_sha))
		return;
	if (!valid_name(key)) {
		bad(im, r, "repository key '%s' is not a name ([A-Za-z0-9] then [A-Za-z0-9._+-])", key);
		return;
	}
	sb_addf(o, "  %s:\n    url: ", key);
	q(o, url->str);
	sb_add(o, "\n    commit: ");
	q(o, sha->str);
	sb_add(o, "\n");
	if (gpus)
		sb_addf(o, "    gpus: [%s]\n", gpus);
}

static void
do_repos(struct imp *im)
{
	const struct ynode *rs = get(im, im->root, "repositories", Y_MAP, 0);
	if (!rs)
		return;
	const struct ynode *by = ymap_get(rs, "by_gpu");
	if (!by) {
		for (size_t i = 0; i < ymap_len(rs); i++)
			if (ymap_val(rs, i)->kind == Y_MAP)
				repo_entry(im, &im->repos, ymap_key(rs, i)->str, ymap_val(rs, i), NULL, NULL);
			else
				bad(im, ymap_val(rs, i), "repository '%s' must be {url, commit}", ymap_key(rs, i)->str);
		return;
	}
	if (by->kind != Y_MAP || !get(im, by, "default", Y_MAP, 1))
		return;
	const struct ynode *dflt = ymap_get(by, "default");
	for (size_t i = 0; i < ymap_len(dflt); i++)
		repo_entry(im, &im->repos, ymap_key(dflt, i)->str, ymap_val(dflt, i), NULL, NULL);
	for (size_t g = 0; g < ymap_len(by); g++) {
		const struct ynode *gk = ymap_key(by, g), *gv = ymap_val(by, g);
		if (!strcmp(gk->str, "default") || gv->kind != Y_MAP)
			continue;
		for (size_t i = 0; i < ymap_len(gv); i++) {
			const char *key = ymap_key(gv, i)->str;
			const struct ynode *d = ymap_get(dflt, key);
			const struct ynode *sha = ymap_get(ymap_val(gv, i), "commit");
			if (d && sha && !strcmp(ystr(d, "commit", ""), sha->str))
				continue;
			char *k2 = xasprintf("%s_%s", key, gk->str);
			repo_entry(im, &im->repos, k2, ymap_val(gv, i), d, gk->str);
			gap(im, ymap_key(gv, i), "per-GPU pin of repository '%s' on %s: kept as '%s', but the venv installs '%s' "
			    "for every GPU type (llmb has one venv per workload)", key, gk->str, k2, key);
			free(k2);
		}
	}
}

/* ---- venv ----------------------------------------------------------------- */

static int
repo_known(const struct imp *im, const char *key)
{
	char *pat = xasprintf("\n  %s:\n", key), *all = xasprintf("\n%s%s", im->repos.buf ? im->repos.buf : "",
		im->extra_repos.buf ? im->extra_repos.buf : "");
	int r = strstr(all, pat) != NULL;
	free(pat);
	free(all);
	return r;
}

static void
pip_entry(struct imp *im, const struct ynode *e)
{
	static const char *const known[] = {"package", "repo_key", "url", "commit", "install_target", "editable", NULL};
	struct sb *o = &im->venv_pip;
	if (e->kind == Y_SCALAR) {
		if (check(im, e, &t_str))
			return;
		sb_add(o, "    - ");
		q(o, e->str);
		sb_add(o, "\n");
		return;
	}
	if (e->kind != Y_MAP) {
		bad(im, e, "a pip dependency must be a requirement string or {package, ...}");
		return;
	}
	ignore_unknown(im, e, known, "pip entry key ");
	const struct ynode *pkg = get(im, e, "package", Y_SCALAR, 1), *rk = get(im, e, "repo_key", Y_SCALAR, 0);
	const struct ynode *url = get(im, e, "url", Y_SCALAR, 0), *sha = get(im, e, "commit", Y_SCALAR, 0);
	const struct ynode *tgt = get(im, e, "install_target", Y_SCALAR, 0), *ed = get(im, e, "editable", Y_SCALAR, 0);
	if (!pkg || check(im, pkg, &t_name))
		return;
	char *repo = NULL;
	if (rk) {
		if (!repo_known(im, rk->str))
			bad(im, rk, "repo_key '%s' is not in repositories", rk->str);
		else
			repo = xstrdup(rk->str);
	} else if (url || sha) {
		/* pip install git+url@commit: the same as a clone at the pin. */
		if (!url || !sha) {
			bad(im, url ? url : sha, "a pip dependency by URL needs both url and commit");
			return;
		}
		if (check(im, url, &t_url) || check(im, sha, &t_sha))
			return;
		repo = xasprintf("%s%s", pkg->str, repo_known(im, pkg->str) ? "_pip" : "");
		sb_addf(&im->extra_repos, "  %s:\n    url: ", repo);
		q(&im->extra_repos, url->str);
		sb_add(&im->extra_repos, "\n    commit: ");
		q(&im->extra_repos, sha->str);
		sb_add(&im->extra_repos, "\n");
		note(im, url, "pip dependency '%s' by URL becomes repository '%s', installed from its clone", pkg->str, repo);
	} else if (tgt || ed) {
		bad(im, tgt ? tgt : ed, "install_target and editable need a repo_key or url+commit");
	}
	sb_addf(o, "    - {package: %s", pkg->str);
	if (repo)
		sb_addf(o, ", repo: %s", repo);
	if (tgt) {
		sb_add(o, ", install_target: ");
		q(o, tgt->str);
	}
	if (ed) {
		if (strcmp(ed->str, "true") && strcmp(ed->str, "false"))
			bad(im, ed, "editable must be true or false");
		sb_addf(o, ", editable: %s", ed->str);
	}
	sb_add(o, "}\n");
	free(repo);
}

static void
git_entry(struct imp *im, const struct ynode *name, const struct ynode *e)
{
	const struct ynode *rk = get(im, e, "repo_key", Y_SCALAR, 1);
	const struct ynode *m = get(im, e, "install_method", Y_MAP, 1);
	const struct ynode *type = get(im, m, "type", Y_SCALAR, m != NULL), *path = get(im, m, "path", Y_SCALAR, 0);
	if (!rk || !type)
		return;
	if (!repo_known(im, rk->str)) {
		bad(im, rk, "repo_key '%s' is not in repositories", rk->str);
		return;
	}
	if (!strcmp(type->str, "script")) {
		if (!path) {
			bad(im, m, "install_method script needs a path");
			return;
		}
		sb_addf(&im->venv_git, "    - {repo: %s, method: script, path: ", rk->str);
		q(&im->venv_git, path->str);
		sb_add(&im->venv_git, "}\n");
	} else if (!strcmp(type->str, "clone")) {
		sb_addf(&im->venv_git, "    - {repo: %s, method: clone}\n", rk->str);
	} else if (!strcmp(type->str, "pip")) {
		/* Installed before the pip list, as the upstream installer does. */
		struct sb first = {0};
		sb_addf(&first, "    - {package: %s, repo: %s}\n", name->str, rk->str);
		sb_add(&first, im->venv_pip.buf ? im->venv_pip.buf : "");
		sb_free(&im->venv_pip);
		im->venv_pip = first;
	} else {
		bad(im, type, "install_method type '%s': expected script, clone or pip", type->str);
	}
}

static void
do_venv(struct imp *im, const struct ynode *setup, struct sb *o)
{
	const struct ynode *req = get(im, setup, "venv_req", Y_SCALAR, 0);
	const struct ynode *deps = get(im, setup, "dependencies", Y_MAP, 0);
	const struct ynode *ss = get(im, setup, "setup_script", Y_SCALAR, 0);
	if (ss)
		gap(im, ss, "legacy setup_script '%s': llmb runs declared dependencies and tasks only; "
		    "restate what it does as venv entries or tasks", ss->str);
	if (deps) {
		const struct ynode *git = get(im, deps, "git", Y_MAP, 0), *pip = get(im, deps, "pip", Y_SEQ, 0);
		for (size_t i = 0; i < ymap_len(git); i++) {
			if (ymap_val(git, i)->kind == Y_MAP)
				git_entry(im, ymap_key(git, i), ymap_val(git, i));
			else
				bad(im, ymap_val(git, i), "git dependency '%s' must be {repo_key, install_method}", ymap_key(git, i)->str);
		}
		for (size_t i = 0; pip && i < pip->nkids; i++)
			pip_entry(im, pip->kids[i]);
	}
	if (req && !strcmp(req->str, "false")) {
		if (im->venv_git.len || im->venv_pip.len)
			note(im, req, "venv_req is false but dependencies are declared: they are installed into a venv anyway");
		else
			return;
	}
	if (!im->venv_git.len && !im->venv_pip.len)
		return;
	sb_add(o, "\n# upstream setup.dependencies, in the installer's order: git, then pip.\nvenv:\n");
	if (im->venv_git.len)
		sb_addf(o, "  git:\n%s", im->venv_git.buf);
	if (im->venv_pip.len)
		sb_addf(o, "  pip:\n%s", im->venv_pip.buf);
}

/* ---- tasks ---------------------------------------------------------------- */

/* An upstream task command is a shell string run in the recipe directory:
 * plain words become argv ("./x.sh" is found in {recipe_dir}); anything
 * with shell syntax runs under bash -c. */
static void
task_cmd(struct sb *o, const char *cmd)
{
	sb_add(o, "    cmd: [");
	if (strpbrk(cmd, "'\"$;&|<>(){}*?`\\~#")) {
		sb_add(o, "\"bash\", \"-c\", ");
		char *c = xasprintf("cd {recipe_dir} && %s", cmd);
		q(o, c);
		free(c);
	} else {
		int n = 0;
		for (const char *p = cmd + strspn(cmd, " \t"); *p; p += strspn(p, " \t")) {
			size_t l = strcspn(p, " \t");
			char *w = !strncmp(p, "./", 2) ? xasprintf("{recipe_dir}/%.*s", (int)l - 2, p + 2) : xstrndup(p, l);
			sb_add(o, n++ ? ", " : "");
			q(o, w);
			free(w);
			p += l;
		}
	}
	sb_add(o, "]\n");
}

static void
task_entry(struct imp *im, const struct ynode *t, struct sb *o)
{
	static const char *const known[] = {"name", "cmd", "job_type", "requires_gpus", "env", NULL};
	ignore_unknown(im, t, known, "task key ");
	const struct ynode *name = get(im, t, "name", Y_SCALAR, 1), *cmd = get(im, t, "cmd", Y_SCALAR, 1);
	const struct ynode *jt = get(im, t, "job_type", Y_SCALAR, 0), *gpus = get(im, t, "requires_gpus", Y_SCALAR, 0);
	const struct ynode *env = get(im, t, "env", Y_MAP, 0);
	if (!name || !cmd || check(im, cmd, &t_str))
		return;
	char *nm = xstrdup(name->str);
	for (char *c = nm; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-", *c))
			*c = '-';
	if (!valid_name(nm)) {
		bad(im, name, "task name '%s' cannot be made a name", name->str);
		free(nm);
		return;
	}
	if (strcmp(nm, name->str))
		note(im, name, "task '%s' is named '%s'", name->str, nm);
	const char *type = jt ? jt->str : "local";
	sb_addf(o, "  - name: %s\n", nm);
	if (!strcmp(type, "nemo2") || !strcmp(type, "sbatch")) {
		sb_addf(o, "    # upstream job_type %s: the command submits its own Slurm job. llmb runs\n"
			"    # every task inside a job it submits itself, so that it knows the job id:\n"
			"    # the command must do the work in place.\n", type);
		gap(im, jt, "task '%s' has job_type %s: its command submits its own job (%s); llmb runs the task inside its own job, "
		    "so cmd must do the work in place", nm, type, !strcmp(type, "nemo2") ? "through NeMo-Run" : "with sbatch");
	} else if (!strcmp(type, "srun")) {
		note(im, jt, "task '%s': job_type srun becomes a job llmb submits; the command runs inside it", nm);
	} else if (strcmp(type, "local")) {
		bad(im, jt, "job_type '%s': expected local, nemo2, srun or sbatch", type);
	}
	task_cmd(o, cmd->str);
	int ongpu = gpus && !strcmp(gpus->str, "true");
	if (ongpu || strcmp(type, "local"))
		sb_addf(o, "    gpus: %s\n", ongpu ? "true" : "false");
	if (ongpu && im->train_image)
		sb_addf(o, "    image: %s\n", im->train_image);
	sb_add(o, "    # TODO proves: the files (below the workload directory) this task creates;\n"
		  "    # the upstream says none, and llmb needs them to know the task is done.\n");
	gap(im, name, "task '%s': the upstream names no files that prove it finished; fill in proves", nm);
	if (env && ymap_len(env)) {
		sb_add(o, "    env:\n");
		for (size_t i = 0; i < ymap_len(env); i++) {
			const struct ynode *k = ymap_key(env, i), *v = ymap_val(env, i);
			if (v->kind != Y_SCALAR || check(im, k, &t_name) || check(im, v, &t_str))
				continue;
			sb_addf(o, "      %s: ", k->str);
			q(o, v->str);
			sb_add(o, "\n");
		}
	}
	sb_add(o, "    source: ");
	char *src = xasprintf("upstream metadata.yaml setup.tasks '%s': %s", name->str, cmd->str);
	q(o, src);
	free(src);
	sb_add(o, "\n");
	free(nm);
}

static void
do_tasks(struct imp *im, const struct ynode *setup, struct sb *o)
{
	const struct ynode *tasks = get(im, setup, "tasks", Y_SEQ, 0);
	if (!tasks || !tasks->nkids)
		return;
	sb_add(o, "\ntasks:\n");
	for (size_t i = 0; i < tasks->nkids; i++) {
		if (tasks->kids[i]->kind == Y_MAP)
			task_entry(im, tasks->kids[i], o);
		else
			bad(im, tasks->kids[i], "a setup task must be {name, cmd, job_type, requires_gpus, env}");
	}
}

/* ---- run: configs, models, measurement, training ------------------------- */

struct dt {
	const struct ynode *name, *scales;
	int exact;
};

static int
scales_ok(struct imp *im, const struct ynode *s)
{
	if (!s || s->kind != Y_SEQ || !s->nkids) {
		bad(im, s, "scales must be a non-empty list of GPU counts");
		return 0;
	}
	for (size_t i = 0; i < s->nkids; i++) {
		const char *v = s->kids[i]->str;
		if (s->kids[i]->kind != Y_SCALAR || !*v || strspn(v, "0123456789") != strlen(v) || atol(v) < 1) {
			bad(im, s->kids[i], "a scale must be a whole number of GPUs, at least 1");
			return 0;
		}
	}
	return 1;
}

/* Normalises dtypes (string, list, or mapping dtype -> scales or
 * {scales, exact_scales}) as llmb-run does; returns the count. */
static size_t
dtypes_of(struct imp *im, const struct ynode *mc, struct dt *out, size_t max)
{
	const struct ynode *d = get(im, mc, "dtypes", -1, 1), *sc = ymap_get(mc, "scales");
	const struct ynode *ex = ymap_get(mc, "exact_scales");
	int exact = ex && !strcmp(ex->str, "true");
	size_t n = 0;
	if (!d)
		return 0;
	if (d->kind == Y_SCALAR || d->kind == Y_SEQ) {
		if (!scales_ok(im, sc ? sc : mc))
			return 0;
		if (d->kind == Y_SCALAR)
			out[n++] = (struct dt){d, sc, exact};
		for (size_t i = 0; d->kind == Y_SEQ && i < d->nkids && n < max; i++)
			out[n++] = (struct dt){d->kids[i], sc, exact};
	} else {
		if (sc)
			note(im, sc, "scales are ignored: the dtypes mapping gives them (as llmb-run does)");
		for (size_t i = 0; i < ymap_len(d) && n < max; i++) {
			const struct ynode *v = ymap_val(d, i), *s = v, *e = NULL;
			if (v->kind == Y_MAP) {
				s = ymap_get(v, "scales");
				e = ymap_get(v, "exact_scales");
				if (ymap_get(v, "proxy_scales"))
					note(im, ymap_get(v, "proxy_scales"), "proxy_scales are not converted: llmb has no proxy runs");
			}
			if (!scales_ok(im, s ? s : v))
				continue;
			out[n++] = (struct dt){ymap_key(d, i), s, e ? !strcmp(e->str, "true") : exact};
		}
	}
	for (size_t i = 0; i < n; i++)
		if (out[i].name->kind != Y_SCALAR || check(im, out[i].name, &t_name))
			return 0;
	return n;
}

static int
same_scales(const struct ynode *a, const struct ynode *b)
{
	if (a->nkids != b->nkids)
		return 0;
	for (size_t i = 0; i < a->nkids; i++)
		if (strcmp(a->kids[i]->str, b->kids[i]->str))
			return 0;
	return 1;
}

static void
config_rows(struct imp *im, const struct ynode *gpu, const struct ynode *mc, struct sb *o, struct sb *sizes)
{
	const struct ynode *size = get(im, mc, "model_size", Y_SCALAR, 1);
	if (!size || check(im, size, &t_name))
		return;
	char *pat = xasprintf("\n%s\n", size->str);
	char *have = xasprintf("\n%s", sizes->buf ? sizes->buf : "");
	if (!strstr(have, pat)) {
		sb_addf(sizes, "%s\n", size->str);
		gap(im, size, "model dimensions of size '%s' (layers, hidden, heads, vocab, ...; for FLOPs and parameters) "
		    "are not in metadata.yaml: fill in models.%s", size->str, size->str);
	}
	free(pat);
	free(have);
	struct dt d[16];
	size_t n = dtypes_of(im, mc, d, 16);
	int *done = xcalloc(n + 1, sizeof *done);
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		sb_addf(o, "  - gpu: %s\n    size: %s\n    dtype: [%s", gpu->str, size->str, d[i].name->str);
		for (size_t j = i + 1; j < n; j++) {
			if (!done[j] && same_scales(d[i].scales, d[j].scales) && d[i].exact == d[j].exact) {
				sb_addf(o, ", %s", d[j].name->str);
				done[j] = 1;
			}
		}
		sb_add(o, "]\n    scales: [");
		for (size_t k = 0; k < d[i].scales->nkids; k++)
			sb_addf(o, "%s%s", k ? ", " : "", d[i].scales->kids[k]->str);
		sb_add(o, "]\n    # TODO params: the parallelism and batch sizes of launch.sh (tp, pp, cp, ep, vp, mbs, gbs, ...)\n");
		sb_addf(o, "    source: \"upstream metadata.yaml run.gpu_configs.%s\"\n", gpu->str);
		if (!d[i].exact)
			note(im, d[i].scales, "exact_scales is false: llmb-run also accepts scales above %s; llmb runs the listed scales only",
			     d[i].scales->kids[d[i].scales->nkids - 1]->str);
	}
	free(done);
}

static void
do_configs(struct imp *im, struct sb *o, struct sb *models)
{
	const struct ynode *gc = im->gpu_configs;
	if (!gc)
		return;
	struct sb sizes = {0};
	sb_add(o, "\n# upstream run.gpu_configs; dtypes with the same scales share a row.\nconfigs:\n");
	for (size_t g = 0; g < ymap_len(gc); g++) {
		const struct ynode *gpu = ymap_key(gc, g);
		const struct ynode *mcs = get(im, ymap_val(gc, g), "model_configs", Y_SEQ, 1);
		if (check(im, gpu, &t_name))
			continue;
		for (size_t i = 0; mcs && i < mcs->nkids; i++) {
			if (mcs->kids[i]->kind == Y_MAP)
				config_rows(im, gpu, mcs->kids[i], o, &sizes);
			else
				bad(im, mcs->kids[i], "a model config must be {model_size, dtypes, scales}");
		}
	}
	if (sizes.len)
		gap(im, gc, "the parallelism of each config row (tp, pp, cp, ep, vp, mbs, gbs as launch.sh sets them per GPU type) "
		    "is not in metadata.yaml: fill in params");
	sb_add(models, "\n# TODO model dimensions per size (layers, hidden, ffn_hidden, heads, query_groups, vocab):\n"
		       "# the recipe README's FLOPs notes or launch.sh give them.\nmodels:\n");
	for (const char *p = sizes.buf; p && *p; p = strchr(p, '\n') + 1)
		sb_addf(models, "  %.*s: {}\n", (int)strcspn(p, "\n"), p);
	sb_free(&sizes);
}

static void
do_train(struct imp *im, struct sb *o)
{
	const struct ynode *run = get(im, im->root, "run", Y_MAP, 1);
	const struct ynode *g = ymap_get(im->root, "general"), *ver = ymap_get(g, "gsw_version");
	static const char *const known[] = {"launcher_type", "launch_script", "gpu_configs", NULL};
	ignore_unknown(im, run, known, "run.");
	const struct ynode *lt = get(im, run, "launcher_type", Y_SCALAR, 0), *ls = get(im, run, "launch_script", Y_SCALAR, 0);
	/* parse_train_timing.sh windows of the releases (zero-based iterations). */
	const char *win = ver && !strcmp(ver->str, "25.07") ? "[11, 44]" : ver && !strcmp(ver->str, "25.08") ? "[35, 44]" : NULL;
	if (win)
		sb_addf(o, "\n# The upstream parse_train_timing.sh of release %s: mean step time over\n"
			   "# iterations %s of 50.\nmeasure:\n  window: %s\n  indexing: zero\n  steps: 50\n  metric: mean\n",
			ver->str, win, win);
	else {
		sb_add(o, "\n# TODO measure: window (first and last iteration measured), indexing, steps, metric\n");
		gap(im, ver ? ver : g, "measurement window: only releases 25.07 and 25.08 are known (iterations 11-44, 35-44)");
	}
	sb_add(o, "\n# TODO flops: attention, mlp, embedding per sample (the recipe README's notes)\n");
	gap(im, g, "FLOPs formula: not in metadata.yaml (the recipe README's notes give it); without it no MFU is reported");
	const char *l = lt ? lt->str : "nemo";
	sb_addf(o, "\n# upstream run.launcher_type %s, launch script %s.\n", l, ls ? ls->str : "launch.sh");
	if (!strcmp(l, "nemo"))
		sb_add(o, "# There launch.sh runs a NeMo performance script whose NeMo-Run slurm executor\n"
			  "# submits the job itself. llmb instead writes and submits the sbatch script\n"
			  "# itself (srun with pyxis --container-image and the mounts), so that it always\n"
			  "# knows the job id it tracks: train.cmd is the program every task runs inside\n"
			  "# that job, not a launcher.\n");
	else if (!strcmp(l, "sbatch"))
		sb_add(o, "# There llmb-run submits launch.sh with sbatch. llmb writes and submits its\n"
			  "# own sbatch script (srun with pyxis), so train.cmd is what launch.sh runs under srun.\n");
	else
		bad(im, lt, "launcher_type '%s': expected nemo or sbatch (25.07/25.08)", l);
	sb_add(o, "train:\n");
	if (im->train_image)
		sb_addf(o, "  image: %s\n", im->train_image);
	sb_add(o, "  # TODO cmd: the training program and its flags, with {placeholders}\n");
	gap(im, ls ? ls : lt ? lt : run, "training command: %s builds it (flags, parallelism, log directory); write train.cmd "
	    "as the command llmb runs inside its own job", ls ? ls->str : "launch.sh");
	sb_addf(o, "  source: \"upstream %s (launcher_type %s)\"\n", ls ? ls->str : "launch.sh", l);
}

/* ---- command -------------------------------------------------------------- */

static void
imp_free(struct imp *im)
{
	for (size_t i = 0; i < im->nimgs; i++) {
		free(im->imgs[i].key);
		free(im->imgs[i].gpus);
	}
	free(im->imgs);
	free(im->train_image);
	sb_free(&im->repos);
	sb_free(&im->extra_repos);
	sb_free(&im->venv_git);
	sb_free(&im->venv_pip);
}

static void
convert(struct imp *im, struct sb *o)
{
	static const char *const known[] = {"general", "container", "repositories", "setup", "run", "tools", "downloads", NULL};
	struct sb head = {0}, venv = {0}, tasks = {0}, configs = {0}, models = {0}, train = {0};
	const char *base = strrchr(im->file, '/');
	ignore_unknown(im, im->root, known, "");
	for (size_t i = 0; i < ymap_len(im->root); i++) {
		const struct ynode *k = ymap_key(im->root, i);
		if (!strcmp(k->str, "tools") || !strcmp(k->str, "downloads"))
			gap(im, k, "'%s' (release 25.10 and later): restate it as setup tasks", k->str);
	}
	im->gpu_configs = get(im, get(im, im->root, "run", Y_MAP, 0), "gpu_configs", Y_MAP, 1);
	do_general(im, &head);
	do_images(im, &head);
	do_repos(im);
	const struct ynode *setup = get(im, im->root, "setup", Y_MAP, 0);
	do_venv(im, setup, &venv);
	do_tasks(im, setup, &tasks);
	do_configs(im, &configs, &models);
	do_train(im, &train);
	sb_addf(o, "# Imported by llmb import from upstream %s. Every TODO below is something the\n"
		   "# upstream keeps outside metadata.yaml; llmb check refuses the file until they are filled.\n",
		base ? base + 1 : im->file);
	sb_add(o, head.buf ? head.buf : "");
	if (im->repos.len || im->extra_repos.len)
		sb_addf(o, "\nrepositories:\n%s%s", im->repos.buf ? im->repos.buf : "", im->extra_repos.buf ? im->extra_repos.buf : "");
	sb_add(o, venv.buf ? venv.buf : "");
	sb_add(o, tasks.buf ? tasks.buf : "");
	sb_add(o, models.buf ? models.buf : "");
	sb_add(o, train.buf ? train.buf : "");
	sb_add(o, configs.buf ? configs.buf : "");
	sb_free(&head);
	sb_free(&venv);
	sb_free(&tasks);
	sb_free(&configs);
	sb_free(&models);
	sb_free(&train);
}

int
cmd_import(int argc, char **argv)
{
	static const char usage[] = "usage: llmb import [-o OUT.yaml] metadata.yaml\n"
		"Converts an upstream recipe (metadata.yaml, 25.07/25.08) into an llmb workload.\n"
		"Exit 0: complete; 1: converted, with gaps listed as errors; 2: bad input.\n";
	static const struct option lo[] = {{"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	const char *out = NULL;
	optind = 1;
	for (int c; (c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1;) {
		if (c == 'o')
			out = optarg;
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
	struct imp im = {.file = argv[optind]};
	struct ydoc *d = yaml_load_file(im.file);
	if (!d)
		return 2;
	im.root = d->root;
	struct sb o = {0};
	if (im.root->kind != Y_MAP)
		bad(&im, im.root, "a metadata.yaml is a mapping (general, container, setup, run)");
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
