/* importsrc: what an imported run needs installed (import.h): container
 * images (a list, or by_gpu with lists or single images), repositories (and
 * their per-GPU pins), the venv of setup.dependencies (setup by_gpu: the
 * default's, other GPUs' a gap), setup tasks of every job type, downloads
 * (Hugging Face assets as tasks through workloads/hf-assets.py, as llmb's
 * own recipes fetch them) and tools (kept as a comment: llmb uses the
 * container's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/impkit.h"
#include "import/importsrc.h"
#include "recipe/recipe.h"

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
		url = imp_get(im, item, "url", Y_SCALAR, 1);
		const struct ynode *nm = imp_get(im, item, "name", Y_SCALAR, 0);
		if (nm)
			imp_note(im, nm, "image name '%s' dropped: llmb names image files by the upstream rule <parent>+<name>+<tag>.sqsh", nm->str);
	} else if (item->kind != Y_SCALAR) {
		imp_bad(im, item, "an image must be a string or {url, name}");
		return NULL;
	}
	if (!url || imp_check(im, url, &imp_t_image))
		return NULL;
	if (!strchr(url->str, '#')) {
		imp_bad(im, url, "image '%s' is not in enroot form registry#path:tag (write '#' after the registry)", url->str);
		return NULL;
	}
	long at = index_get(&im->img_refs, url->str);
	struct img *m = at >= 0 ? &im->imgs[at] : NULL;
	if (!m) {
		/* The key: the image's base name, its tag added when another
		 * image has that name, a number when that is taken too or the
		 * result is no name. */
		char *key = image_base(url->str);
		if (!valid_name(key) || index_get(&im->img_keys, key) >= 0) {
			const char *tag = strrchr(url->str, ':');
			char *k2 = valid_name(key) && tag && !strchr(tag, '/') ? xasprintf("%s-%s", key, tag + 1) : NULL;
			for (size_t n = im->nimgs + 1; !k2 || !valid_name(k2) || index_get(&im->img_keys, k2) >= 0; n++) {
				free(k2);
				k2 = xasprintf("%s-%zu", valid_name(key) && strlen(key) < 40 ? key : "image", n);
			}
			free(key);
			key = k2;
		}
		if (im->nimgs == im->imgs_cap) {
			im->imgs_cap = im->imgs_cap ? 2 * im->imgs_cap : 4;
			im->imgs = xrealloc(im->imgs, im->imgs_cap * sizeof *im->imgs);
		}
		index_add(&im->img_refs, url->str, im->nimgs);
		index_add(&im->img_keys, key, im->nimgs);
		m = &im->imgs[im->nimgs++];
		*m = (struct img){key, url, {0}, 0};
	}
	if (gpu)
		sb_addf(&m->gpus, "%s%s", m->gpus.len ? ", " : "", gpu);
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
	if (v->kind == Y_SCALAR) {
		struct img *m = image_add(im, v, gpu);   /* by_gpu: {h100: 'registry#image:tag'} */
		return m ? m->key : NULL;
	}
	if (v->kind != Y_SEQ) {
		imp_bad(im, v, "images must be a list or one image");
		return NULL;
	}
	for (size_t i = 0; i < v->nkids; i++) {
		struct img *m = image_add(im, v->kids[i], gpu);
		if (m && !first)
			first = m->key;
		if (m && i > 0)
			imp_note(im, v->kids[i], "image '%s' is imported too, but the training job runs in the first image", m->ref->str);
	}
	return first;
}

void
imp_images(struct imp *im, struct sb *o)
{
	const struct ynode *c = imp_get(im, im->root, "container", Y_MAP, 0);
	const struct ynode *imgs = imp_get(im, c, "images", -1, c != NULL);
	if (!imgs)
		return;
	const struct ynode *by = imgs->kind == Y_MAP ? imp_get(im, imgs, "by_gpu", Y_MAP, 1) : NULL;
	if (!by) {
		const char *k = image_list(im, imgs, NULL);
		im->train_image = k ? xstrdup(k) : NULL;
	} else {
		const char *dflt = NULL, *other = NULL;
		const struct ynode *where = NULL;
		for (size_t i = 0; i < ymap_len(by); i++) {
			const struct ynode *k = ymap_key(by, i);
			int isdef = !strcmp(k->str, "default");
			if (!isdef && imp_check(im, k, &imp_t_name))
				continue;       /* a GPU type is written into the output's gpus lists */
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
		if ((dflt && other && strcmp(dflt, other)) || where) {
			imp_gap(im, by, "per-GPU training images: llmb's train.image names one image for every GPU type; "
			    "the output trains in '%s' (split the workload per image or pick one)", tk);
			sb_addf(o, "\n# TODO per-GPU images: train.image names one image, '%s', for every GPU type;\n"
				   "# split the workload per image (keeping its GPU types) or pick one.", tk);
		}
	}
	/* A by_gpu default serves the GPU types without their own entry. */
	struct pindex bykeys = {0};
	for (size_t i = 0; i < ymap_len(by); i++)
		index_add(&bykeys, ymap_key(by, i)->str, i);
	sb_add(o, "\nimages:\n");
	for (size_t i = 0; i < im->nimgs; i++) {
		struct img *m = &im->imgs[i];
		sb_addf(o, "  %s:\n    ref: ", m->key);
		imp_q(o, m->ref->str);
		sb_add(o, "\n");
		if (by) {
			/* m's own GPU types (keys of by_gpu), then for the default
			 * image those of gpu_configs that by_gpu does not name. */
			struct sb gl = {0};
			sb_add(&gl, m->gpus.buf ? m->gpus.buf : "");
			const struct ynode *gc = im->gpu_configs;
			for (size_t g = 0; m->dflt && gc && g < ymap_len(gc); g++) {
				const char *name = ymap_key(gc, g)->str;
				if (index_get(&bykeys, name) < 0)
					sb_addf(&gl, "%s%s", gl.len ? ", " : "", name);
			}
			if (gl.len)
				sb_addf(o, "    gpus: [%s]\n", gl.buf);
			sb_free(&gl);
		}
		sb_addf(o, "    source: \"upstream metadata.yaml container.images%s\"\n", by ? " (by_gpu)" : "");
	}
	index_free(&bykeys);
}

/* ---- repositories --------------------------------------------------------- */

static void
repo_entry(struct imp *im, struct sb *o, const char *key, const struct ynode *r, const struct ynode *dflt, const char *gpus)
{
	const struct ynode *url = imp_get(im, r, "url", Y_SCALAR, !dflt);
	const struct ynode *sha = imp_get(im, r, "commit", Y_SCALAR, 1);
	if (!url && dflt)
		url = imp_get(im, dflt, "url", Y_SCALAR, 1);
	if (!url || !sha || imp_check(im, url, &imp_t_url) || imp_check(im, sha, &imp_t_sha))
		return;
	if (!valid_name(key)) {
		imp_bad(im, r, "repository key '%s' is not a name ([A-Za-z0-9] then [A-Za-z0-9._+-])", key);
		return;
	}
	if (index_get(&im->repo_keys, key) >= 0) {
		imp_bad(im, r, "repository key '%s' is there twice (a per-GPU pin is kept as <key>_<gpu>)", key);
		return;
	}
	index_add(&im->repo_keys, key, 0);
	sb_addf(o, "  %s:\n    url: ", key);
	imp_q(o, url->str);
	sb_add(o, "\n    commit: ");
	imp_q(o, sha->str);
	sb_add(o, "\n");
	if (gpus)
		sb_addf(o, "    gpus: [%s]\n", gpus);
}

void
imp_repos(struct imp *im)
{
	const struct ynode *rs = imp_get(im, im->root, "repositories", Y_MAP, 0);
	if (!rs)
		return;
	const struct ynode *by = ymap_get(rs, "by_gpu");
	if (!by) {
		for (size_t i = 0; i < ymap_len(rs); i++)
			if (ymap_val(rs, i)->kind == Y_MAP)
				repo_entry(im, &im->repos, ymap_key(rs, i)->str, ymap_val(rs, i), NULL, NULL);
			else
				imp_bad(im, ymap_val(rs, i), "repository '%s' must be {url, commit}", ymap_key(rs, i)->str);
		return;
	}
	if (by->kind != Y_MAP || !imp_get(im, by, "default", Y_MAP, 1))
		return;
	const struct ynode *dflt = ymap_get(by, "default");
	for (size_t i = 0; i < ymap_len(dflt); i++)
		repo_entry(im, &im->repos, ymap_key(dflt, i)->str, ymap_val(dflt, i), NULL, NULL);
	for (size_t g = 0; g < ymap_len(by); g++) {
		const struct ynode *gk = ymap_key(by, g), *gv = ymap_val(by, g);
		if (!strcmp(gk->str, "default") || imp_check(im, gk, &imp_t_name))
			continue;
		if (gv->kind != Y_MAP) {
			imp_bad(im, gv, "repositories.by_gpu.%s must be a mapping of repositories", gk->str);
			continue;
		}
		for (size_t i = 0; i < ymap_len(gv); i++) {
			const char *key = ymap_key(gv, i)->str;
			const struct ynode *d = ymap_get(dflt, key);
			const struct ynode *sha = ymap_get(ymap_val(gv, i), "commit");
			if (d && sha && sha->kind == Y_SCALAR && !strcmp(ystr(d, "commit", ""), sha->str))
				continue;
			if (!valid_name(key)) {
				imp_bad(im, ymap_key(gv, i), "repository key '%s' is not a name ([A-Za-z0-9] then [A-Za-z0-9._+-])", key);
				continue;
			}
			char *k2 = xasprintf("%s_%s", key, gk->str);
			repo_entry(im, &im->repos, k2, ymap_val(gv, i), d, gk->str);
			sb_addf(&im->repos, "    # TODO per-GPU pin: the venv installs '%s' for every GPU type (one venv per workload)\n", key);
			imp_gap(im, ymap_key(gv, i), "per-GPU pin of repository '%s' on %s: kept as '%s', but the venv installs '%s' "
			    "for every GPU type (llmb has one venv per workload)", key, gk->str, k2, key);
			free(k2);
		}
	}
}

/* ---- venv ----------------------------------------------------------------- */

static int
repo_known(const struct imp *im, const char *key)
{
	return index_get(&im->repo_keys, key) >= 0;
}

static void
pip_entry(struct imp *im, const struct ynode *e)
{
	static const char *const known[] = {"package", "repo_key", "url", "commit", "install_target", "editable", NULL};
	struct sb *o = &im->venv_pip;
	if (e->kind == Y_SCALAR) {
		if (imp_check(im, e, &imp_t_str))
			return;
		sb_add(o, "    - ");
		imp_q(o, e->str);
		sb_add(o, "\n");
		return;
	}
	if (e->kind != Y_MAP) {
		imp_bad(im, e, "a pip dependency must be a requirement string or {package, ...}");
		return;
	}
	imp_ignore_unknown(im, e, known, "pip entry key ");
	const struct ynode *pkg = imp_get(im, e, "package", Y_SCALAR, 1), *rk = imp_get(im, e, "repo_key", Y_SCALAR, 0);
	const struct ynode *url = imp_get(im, e, "url", Y_SCALAR, 0), *sha = imp_get(im, e, "commit", Y_SCALAR, 0);
	const struct ynode *tgt = imp_get(im, e, "install_target", Y_SCALAR, 0), *ed = imp_get(im, e, "editable", Y_SCALAR, 0);
	if (!pkg || imp_check(im, pkg, &imp_t_name))
		return;
	char *repo = NULL;
	if (rk) {
		if (!repo_known(im, rk->str))
			imp_bad(im, rk, "repo_key '%s' is not in repositories", rk->str);
		else
			repo = xstrdup(rk->str);
	} else if (url || sha) {
		/* pip install git+url@commit: the same as a clone at the pin. */
		if (!url || !sha) {
			imp_bad(im, url ? url : sha, "a pip dependency by URL needs both url and commit");
			return;
		}
		if (imp_check(im, url, &imp_t_url) || imp_check(im, sha, &imp_t_sha))
			return;
		repo = xasprintf("%s%s", pkg->str, repo_known(im, pkg->str) ? "_pip" : "");
		if (repo_known(im, repo) || !valid_name(repo)) {
			imp_bad(im, pkg, "pip dependency '%s' by URL: no repository key for it ('%s' is taken or too long)", pkg->str, repo);
			free(repo);
			return;
		}
		index_add(&im->repo_keys, repo, 0);
		sb_addf(&im->extra_repos, "  %s:\n    url: ", repo);
		imp_q(&im->extra_repos, url->str);
		sb_add(&im->extra_repos, "\n    commit: ");
		imp_q(&im->extra_repos, sha->str);
		sb_add(&im->extra_repos, "\n");
		imp_note(im, url, "pip dependency '%s' by URL becomes repository '%s', installed from its clone", pkg->str, repo);
	} else if (tgt || ed) {
		imp_bad(im, tgt ? tgt : ed, "install_target and editable need a repo_key or url+commit");
	}
	sb_addf(o, "    - {package: %s", pkg->str);
	if (repo)
		sb_addf(o, ", repo: %s", repo);
	if (tgt) {
		sb_add(o, ", install_target: ");
		imp_q(o, tgt->str);
	}
	if (ed)
		sb_addf(o, ", editable: %s", imp_bool(im, ed, "editable") == 1 ? "true" : "false");
	sb_add(o, "}\n");
	free(repo);
}

static void
git_entry(struct imp *im, const struct ynode *name, const struct ynode *e)
{
	const struct ynode *rk = imp_get(im, e, "repo_key", Y_SCALAR, 1);
	const struct ynode *m = imp_get(im, e, "install_method", Y_MAP, 1);
	const struct ynode *type = imp_get(im, m, "type", Y_SCALAR, m != NULL), *path = imp_get(im, m, "path", Y_SCALAR, 0);
	if (!rk || !type || imp_check(im, name, &imp_t_name))
		return;
	if (!repo_known(im, rk->str)) {
		imp_bad(im, rk, "repo_key '%s' is not in repositories", rk->str);
		return;
	}
	if (!strcmp(type->str, "script")) {
		if (!path) {
			imp_bad(im, m, "install_method script needs a path");
			return;
		}
		sb_addf(&im->venv_git, "    - {repo: %s, method: script, path: ", rk->str);
		imp_q(&im->venv_git, path->str);
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
		imp_bad(im, type, "install_method type '%s': expected script, clone or pip", type->str);
	}
}

/* setup, or its by_gpu default (the first entry without one): llmb has one
 * venv and one task list per workload. */
static const struct ynode *
setup_of(struct imp *im, struct sb *o)
{
	const struct ynode *setup = imp_get(im, im->root, "setup", Y_MAP, 0);
	const struct ynode *by = imp_get(im, setup, "by_gpu", Y_MAP, 0);
	if (!by || !ymap_len(by))
		return setup;
	const struct ynode *use = ymap_get(by, "default");
	use = use ? use : ymap_val(by, 0);
	if (use->kind != Y_MAP) {
		imp_bad(im, use, "a setup.by_gpu entry must be {venv_req, dependencies, tasks}");
		return NULL;
	}
	for (size_t i = 0; i < ymap_len(by); i++) {
		const struct ynode *k = ymap_key(by, i);
		if (ymap_val(by, i) != use && valid_name(k->str))
			sb_addf(o, "\n# TODO setup.by_gpu.%s: its own venv and tasks for %s; llmb has one venv per\n"
				   "# workload: make %s a workload of its own to keep them.", k->str, k->str, k->str);
		if (ymap_val(by, i) != use)
			imp_gap(im, k, "setup.by_gpu.%s: a per-GPU venv and setup; llmb has one venv per workload and installs "
				"'%s' for every GPU type (make %s a workload of its own to keep it)", k->str,
				ymap_get(by, "default") ? "default" : ymap_key(by, 0)->str, k->str);
	}
	return use;
}

void
imp_venv(struct imp *im, struct sb *o)
{
	const struct ynode *setup = im->setup = setup_of(im, o);
	static const char *const known[] = {"venv_req", "dependencies", "tasks", "setup_script", "by_gpu", NULL};
	imp_ignore_unknown(im, setup, known, "setup.");
	const struct ynode *req = imp_get(im, setup, "venv_req", Y_SCALAR, 0);
	const struct ynode *deps = imp_get(im, setup, "dependencies", Y_MAP, 0);
	const struct ynode *ss = imp_get(im, setup, "setup_script", Y_SCALAR, 0);
	if (ss)
		imp_gap(im, ss, "legacy setup_script '%s': llmb runs declared dependencies and tasks only; "
		    "restate what it does as venv entries or tasks", ss->str);
	if (deps) {
		const struct ynode *git = imp_get(im, deps, "git", Y_MAP, 0), *pip = imp_get(im, deps, "pip", Y_SEQ, 0);
		for (size_t i = 0; i < ymap_len(git); i++) {
			if (ymap_val(git, i)->kind == Y_MAP)
				git_entry(im, ymap_key(git, i), ymap_val(git, i));
			else
				imp_bad(im, ymap_val(git, i), "git dependency '%s' must be {repo_key, install_method}", ymap_key(git, i)->str);
		}
		for (size_t i = 0; pip && i < pip->nkids; i++)
			pip_entry(im, pip->kids[i]);
	}
	if (req && imp_bool(im, req, "venv_req") == 0) {
		if (im->venv_git.len || im->venv_pip.len)
			imp_note(im, req, "venv_req is false but dependencies are declared: they are installed into a venv anyway");
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
		imp_q(o, c);
		free(c);
	} else {
		int n = 0;
		for (const char *p = cmd + strspn(cmd, " \t"); *p; p += strspn(p, " \t")) {
			size_t l = strcspn(p, " \t");
			char *w = !strncmp(p, "./", 2) ? xasprintf("{recipe_dir}/%.*s", (int)l - 2, p + 2) : xstrndup(p, l);
			sb_add(o, n++ ? ", " : "");
			imp_q(o, w);
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
	imp_ignore_unknown(im, t, known, "task key ");
	const struct ynode *name = imp_get(im, t, "name", Y_SCALAR, 1), *cmd = imp_get(im, t, "cmd", Y_SCALAR, 1);
	const struct ynode *jt = imp_get(im, t, "job_type", Y_SCALAR, 0), *gpus = imp_get(im, t, "requires_gpus", Y_SCALAR, 0);
	const struct ynode *env = imp_get(im, t, "env", Y_MAP, 0);
	if (!name || !cmd || imp_check(im, cmd, &imp_t_str))
		return;
	char *nm = xstrdup(name->str);
	for (char *c = nm; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-", *c))
			*c = '-';
	if (!valid_name(nm)) {
		imp_bad(im, name, "task name '%s' cannot be made a name", name->str);
		free(nm);
		return;
	}
	if (strcmp(nm, name->str))
		imp_note(im, name, "task '%s' is named '%s'", name->str, nm);
	const char *type = jt ? jt->str : "local";
	sb_addf(o, "  - name: %s\n", nm);
	if (!strcmp(type, "nemo2") || !strcmp(type, "sbatch")) {
		sb_addf(o, "    # upstream job_type %s: the command submits its own Slurm job. llmb runs\n"
			"    # every task inside a job it submits itself, so that it knows the job id:\n"
			"    # the command must do the work in place.\n", type);
		imp_gap(im, jt, "task '%s' has job_type %s: its command submits its own job (%s); llmb runs the task inside its own job, "
		    "so cmd must do the work in place", nm, type, !strcmp(type, "nemo2") ? "through NeMo-Run" : "with sbatch");
	} else if (!strcmp(type, "srun")) {
		imp_note(im, jt, "task '%s': job_type srun becomes a job llmb submits; the command runs inside it", nm);
	} else if (strcmp(type, "local")) {
		imp_bad(im, jt, "job_type '%s': expected local, nemo2, srun or sbatch", type);
	}
	task_cmd(o, cmd->str);
	int ongpu = imp_bool(im, gpus, "requires_gpus") == 1;
	if (ongpu || strcmp(type, "local"))
		sb_addf(o, "    gpus: %s\n", ongpu ? "true" : "false");
	if (ongpu && im->train_image)
		sb_addf(o, "    image: %s\n", im->train_image);
	sb_add(o, "    # TODO proves: the files (below the workload directory) this task creates;\n"
		  "    # the upstream says none, and llmb needs them to know the task is done.\n");
	imp_gap(im, name, "task '%s': the upstream names no files that prove it finished; fill in proves", nm);
	if (env && ymap_len(env)) {
		sb_add(o, "    env:\n");
		for (size_t i = 0; i < ymap_len(env); i++) {
			const struct ynode *k = ymap_key(env, i), *v = ymap_val(env, i);
			if (v->kind != Y_SCALAR) {
				imp_bad(im, v, "task env %s must be a string, not %s", k->str, ykind_name(v->kind));
				continue;
			}
			if (imp_check(im, k, &imp_t_name) || imp_check(im, v, &imp_t_str))
				continue;
			sb_addf(o, "      %s: ", k->str);
			imp_q(o, v->str);
			sb_add(o, "\n");
		}
	}
	sb_add(o, "    source: ");
	char *src = xasprintf("upstream metadata.yaml setup.tasks '%s': %s", name->str, cmd->str);
	imp_q(o, src);
	free(src);
	sb_add(o, "\n");
	free(nm);
}

/* ---- downloads ------------------------------------------------------------ */

/* A Hugging Face repository id: ORG/NAME of name characters. It becomes an
 * argv word and a path below the workload directory. */
static int
hf_repo_ok(const char *r)
{
	const char *sl = strchr(r, '/');
	if (!sl || strchr(sl + 1, '/') || sl == r || !sl[1])
		return 0;
	char *org = xstrndup(r, (size_t)(sl - r));
	int ok = valid_name(org) && valid_name(sl + 1);
	free(org);
	return ok;
}

/* One download as llmb's own recipes write it: workloads/hf-assets.py in
 * the training image puts the assets into HF_HOME's hub cache (where the
 * runs read them offline) and proves each with a checked copy. */
static void
hf_task(struct imp *im, struct sb *o, const struct ynode *repo, const char *const *assets, size_t nassets, const char *from)
{
	if (!hf_repo_ok(repo->str)) {
		imp_bad(im, repo, "'%s' is not a Hugging Face repository id ORG/NAME", repo->str);
		return;
	}
	const char *base = strchr(repo->str, '/') + 1;
	if (index_get(&im->hf_names, base) >= 0) {
		imp_note(im, repo, "%s is downloaded by an earlier entry already", repo->str);
		return;
	}
	index_add(&im->hf_names, base, 0);
	sb_addf(o, "  - name: hf-%s\n    cmd: [\"python3\", \"{top}/workloads/hf-assets.py\", \"--repo\", \"%s\"", base, repo->str);
	for (size_t i = 0; i < nassets; i++)
		sb_addf(o, ", \"--asset\", \"%s\"", assets[i]);
	sb_add(o, ",\n          \"--proof-dir\", \"{workload_dir}/hf-assets\"]\n");
	if (im->train_image)
		sb_addf(o, "    image: %s\n", im->train_image);
	sb_add(o, "    mounts: [\"{install}:{install}\", \"{top}/workloads:{top}/workloads:ro\"]\n    proves: [");
	for (size_t i = 0; i < nassets; i++)
		sb_addf(o, "%shf-assets/%s/%s", i ? ", " : "", repo->str, !strcmp(assets[i], "config") ? "config.json" : "tokenizer_config.json");
	sb_add(o, "]\n    size_gb: 1\n    secrets: [HF_TOKEN]\n    env:\n      HF_HOME: \"{install}/.cache/huggingface\"\n"
		  "    time_limit: \"00:10:00\"\n    source: ");
	char *src = xasprintf("upstream metadata.yaml %s: %s", from, repo->str);
	imp_q(o, src);
	free(src);
	sb_add(o, "\n");
}

/* downloads.huggingface cache entry: {repo_id, assets, revision}. */
static void
hf_cache_entry(struct imp *im, struct sb *o, const struct ynode *e)
{
	static const char *const known[] = {"repo_id", "assets", "revision", NULL};
	if (e->kind != Y_MAP) {
		imp_bad(im, e, "a downloads.huggingface entry must be {repo_id, assets}");
		return;
	}
	imp_ignore_unknown(im, e, known, "downloads.huggingface entry key ");
	const struct ynode *id = imp_get(im, e, "repo_id", Y_SCALAR, 1), *as = imp_get(im, e, "assets", Y_SEQ, 0);
	const struct ynode *rev = imp_get(im, e, "revision", -1, 0);
	if (!id)
		return;
	const char *assets[2] = {"tokenizer", "config"};
	size_t n = 2;
	if (as) {
		n = 0;
		for (size_t i = 0; i < as->nkids; i++) {
			const struct ynode *a = as->kids[i];
			if (a->kind != Y_SCALAR || (strcmp(a->str, "tokenizer") && strcmp(a->str, "config")))
				imp_bad(im, a, "asset: expected tokenizer or config");
			else if ((n > 0 && !strcmp(assets[0], a->str)) || (n > 1 && !strcmp(assets[1], a->str)))
				imp_note(im, a, "asset %s is listed twice", a->str);
			else
				assets[n++] = !strcmp(a->str, "config") ? "config" : "tokenizer";
		}
	}
	if (rev && rev->kind == Y_SCALAR && *rev->str && strcmp(rev->str, "null") && strcmp(rev->str, "~"))
		imp_gap(im, rev, "revision '%s' of %s: workloads/hf-assets.py fetches the default revision; pin it by hand",
			rev->str, id->str);
	if (n)
		hf_task(im, o, id, assets, n, "downloads.huggingface");
}

/* Downloads become setup tasks: Hugging Face cache assets (tokenizer,
 * config) through workloads/hf-assets.py; whole repositories (repos:) are
 * a gap, llmb has no task for them. */
static void
do_downloads(struct imp *im, struct sb *o)
{
	static const char *const known[] = {"huggingface", "hf_tokenizers", NULL};
	const struct ynode *dl = imp_get(im, im->root, "downloads", Y_MAP, 0);
	if (!dl)
		return;
	imp_ignore_unknown(im, dl, known, "downloads.");
	const struct ynode *hf = imp_get(im, dl, "huggingface", -1, 0), *tok = imp_get(im, dl, "hf_tokenizers", Y_SEQ, 0);
	const struct ynode *cache = hf && hf->kind == Y_SEQ ? hf : NULL, *repos = NULL;
	if (hf && hf->kind == Y_MAP) {
		static const char *const hk[] = {"cache", "repos", NULL};
		imp_ignore_unknown(im, hf, hk, "downloads.huggingface.");
		cache = imp_get(im, hf, "cache", Y_SEQ, 0);
		repos = imp_get(im, hf, "repos", Y_SEQ, 0);
	} else if (hf && hf->kind != Y_SEQ)
		imp_bad(im, hf, "downloads.huggingface must be a list or {cache, repos}");
	for (size_t i = 0; cache && i < cache->nkids; i++)
		hf_cache_entry(im, o, cache->kids[i]);
	for (size_t i = 0; tok && i < tok->nkids; i++) {
		static const char *const t[] = {"tokenizer"};
		if (tok->kids[i]->kind == Y_SCALAR)
			hf_task(im, o, tok->kids[i], t, 1, "downloads.hf_tokenizers");
		else
			imp_bad(im, tok->kids[i], "an hf_tokenizers entry is a repository id");
	}
	for (size_t i = 0; repos && i < repos->nkids; i++) {
		const struct ynode *id = ymap_get(repos->kids[i], "repo_id");
		sb_addf(o, "  # TODO task: download of Hugging Face repository %s (downloads.huggingface.repos)\n",
			id && id->kind == Y_SCALAR && hf_repo_ok(id->str) ? id->str : "?");
		imp_gap(im, repos->kids[i], "a whole Hugging Face repository (downloads.huggingface.repos): workloads/hf-assets.py "
			"fetches tokenizer and config assets only; write a setup task that downloads it and proves it");
	}
}

void
imp_tasks(struct imp *im, struct sb *o)
{
	const struct ynode *tasks = imp_get(im, im->setup, "tasks", Y_SEQ, 0);
	struct sb dl = {0};
	do_downloads(im, &dl);
	if ((!tasks || !tasks->nkids) && !dl.len)
		return;
	sb_add(o, "\ntasks:\n");
	if (dl.len)
		sb_addf(o, "  # upstream downloads: the installer's Hugging Face downloads, as setup tasks\n%s", dl.buf);
	sb_free(&dl);
	for (size_t i = 0; tasks && i < tasks->nkids; i++) {
		if (tasks->kids[i]->kind == Y_MAP)
			task_entry(im, tasks->kids[i], o);
		else
			imp_bad(im, tasks->kids[i], "a setup task must be {name, cmd, job_type, requires_gpus, env}");
	}
}

/* ---- tools ---------------------------------------------------------------- */

/* Tool versions the upstream installer fetches (nsys, the CUPTI library)
 * serve profiling: llmb profiles with what the container has. Said, and
 * kept in the output as a comment, never dropped silently. */
void
imp_tools(struct imp *im, struct sb *o)
{
	const struct ynode *tl = imp_get(im, im->root, "tools", Y_MAP, 0);
	if (!tl || !ymap_len(tl))
		return;
	sb_add(o, "\n# upstream tools (installed by its installer, for profiling): not converted,\n"
		  "# llmb runs and profiles with the container's own tools.\n");
	for (size_t i = 0; i < ymap_len(tl); i++) {
		const struct ynode *k = ymap_key(tl, i), *v = ymap_val(tl, i), *by = ymap_get(v, "by_gpu");
		if (!valid_name(k->str)) {
			imp_bad(im, k, "tool '%s' is not a name", k->str);
			continue;
		}
		struct sb w = {0};
		if (v->kind == Y_SCALAR && valid_str(v->str))
			sb_addf(&w, "%s", v->str);
		for (size_t g = 0; by && by->kind == Y_MAP && g < ymap_len(by); g++) {
			const struct ynode *gk = ymap_key(by, g), *gv = ymap_val(by, g);
			if (gv->kind == Y_SCALAR && valid_name(gk->str) && valid_str(gv->str))
				sb_addf(&w, "%s%s %s", w.len ? ", " : "", gk->str, gv->str);
			else
				imp_bad(im, gv, "tools.%s.by_gpu: expected {gpu: version}", k->str);
		}
		if (!w.len) {
			imp_bad(im, v, "tools.%s: expected a version or {by_gpu: {gpu: version}}", k->str);
			sb_free(&w);
			continue;
		}
		for (char *c = w.buf; *c; c++)
			if (*c == '\n' || *c == '#')
				*c = ' ';
		sb_addf(o, "#   %s: %s\n", k->str, w.buf);
		imp_note(im, k, "tools.%s (%s): llmb uses the container's; kept as a comment", k->str, w.buf);
		sb_free(&w);
	}
}
