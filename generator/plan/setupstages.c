#include <stdlib.h>
#include <string.h>

#include "plan/setupstages.h"
#include "recipe/recipecheck.h"
#include "store/instance.h"
#include "store/layout.h"

void
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
		const char *ref = image_ref_for(w, ymap_key(images, i)->str, ystr(im, "ref", ""));
		char *stem = image_stem(ref);
		char *id = instance_id(&(struct instance_key){ystr(stage, "name", ""), .part = stem});
		struct inst *in = plan_find(w->p, id);
		if (in) {
			free(id);
		} else {
			in = add_inst(w->p, id, stage, w->wl);
			in->gpus = gpus;
			in->label = xasprintf("%s %s", ystr(stage, "name", ""), stem);
			in->conf.kind = PC_IMAGE;
			in->conf.u.image.ref = ref;
			in->conf.u.image.stem = xstrdup(stem);
			char *img = layout_image(NULL, stem);
			add_output(in, img); /* the instance's now */
			in->plan = xasprintf("enroot import -o %s docker://%s", img, ref);
		}
		add_serves(in, w->wl ? ystr(w->wl, "workload", "") : "");
		free(stem);
	}
}

/* The repository key names, for the entry that installs from it. */
static struct pc_repo
repo_of(const struct ynode *repos, const char *key)
{
	const struct ynode *r = key ? ymap_get(repos, key) : NULL;
	struct pc_repo out = {0};
	if (r)
		out = (struct pc_repo){key, ystr(r, "url", ""), ystr(r, "commit", "")};
	return out;
}

/* A bisection's pin of the repository (LLMB_BISECT_PIN) in place of the
 * recipe's commit: the venv's dependency set, and so the venv, differ. */
static struct pc_repo
pinned(const struct sel *s, struct pc_repo r)
{
	for (int i = 0; r.key && i < s->npins; i++)
		if (!strcmp(s->pin_key[i], r.key))
			r.commit = s->pin_commit[i];
	return r;
}

static struct pc_dep *
new_dep(struct pc_venv *v)
{
	v->deps = xrealloc(v->deps, (v->ndeps + 1) * sizeof *v->deps);
	struct pc_dep *d = &v->deps[v->ndeps++];
	memset(d, 0, sizeof *d);
	return d;
}

/* The venv's dependency set as the recipe declares it. */
static void
venv_set(struct wctx *w, const struct ynode *venv, struct pc_venv *v)
{
	const struct ynode *repos = ymap_get(w->wl, "repositories");
	v->python = ystr(venv, "python", "python3");
	v->system_site_packages = ybool(venv, "system_site_packages", 0);
	const struct ynode *git = ymap_get(venv, "git");
	for (size_t i = 0; git && i < git->nkids; i++) {
		const char *key = ystr(git->kids[i], "repo", "");
		w->unsaid += !ymap_get(repos, key);
		struct pc_dep *d = new_dep(v);
		d->kind = PD_GIT;
		d->repo = pinned(&w->p->sel, repo_of(repos, key));
		d->name = key;
		d->method = ystr(git->kids[i], "method", "");
		d->path = ystr(git->kids[i], "path", "-");
	}
	const struct ynode *pip = ymap_get(venv, "pip");
	for (size_t i = 0; pip && i < pip->nkids; i++) {
		const struct ynode *e = pip->kids[i];
		struct pc_dep *d = new_dep(v);
		if (e->kind == Y_SCALAR) {
			d->kind = PD_PIP;
			d->name = e->str;
			continue;
		}
		const char *key = ystr(e, "repo", NULL);
		w->unsaid += key && !ymap_get(repos, key);
		d->kind = PD_PIPDEP;
		d->repo = pinned(&w->p->sel, repo_of(repos, key));
		d->name = ystr(e, "package", "");
		d->repo_key = key;
		d->target = ystr(e, "install_target", "-");
		d->editable = ybool(e, "editable", 0);
	}
	const struct ynode *pa = ymap_get(venv, "pip_args");
	for (size_t i = 0; pa && i < pa->nkids; i++)
		pc_constv_add(&v->pip_args, &v->npip_args, pa->kids[i]->str);
}

void
build_venv(struct wctx *w, const struct ynode *stage)
{
	const struct ynode *venv = ymap_get(w->wl, "venv");
	if (!venv)
		return;
	/* The dependency set decides the venv, as upstream groups them: the
	 * same set in two workloads is one venv. */
	struct stagecfg conf = {.kind = PC_VENV};
	venv_set(w, venv, &conf.u.venv);
	struct sb set = {0};
	stagecfg_venv_set(&conf.u.venv, &set);
	char h[65];
	sha256_hex(set.buf, set.len, h);
	sb_free(&set);
	char *id = instance_id(&(struct instance_key){ystr(stage, "name", ""), .hash = h});
	struct inst *in = plan_find(w->p, id);
	if (in) {
		free(id);
		stagecfg_free(&conf);
	} else {
		in = add_inst(w->p, id, stage, w->wl);
		in->conf = conf;
		char *dir = layout_venv(NULL, h);
		in->conf.u.venv.dir = xstrdup(dir);
		/* written last by the venv job: a half-built venv has none */
		add_output(in, layout_in(dir, LAYOUT_VENV_DONE));
		in->label = xasprintf("%s " LAYOUT_VENV_PREFIX "%.12s", ystr(stage, "name", ""), h);
		in->plan = xasprintf("python venv %s (%s)", dir, ystr(venv, "python", "python3"));
		free(dir);
	}
	add_serves(in, ystr(w->wl, "workload", ""));
}

void
build_data(struct wctx *w, const struct ynode *stage)
{
	/* A task serves every run of its workload: it binds paths alone. */
	const struct vars none = {0}, *vs = &none;
	const struct ynode *tasks = ymap_get(w->wl, "tasks");
	const char *wname = ystr(w->wl, "workload", "");
	for (size_t i = 0; tasks && i < tasks->nkids; i++) {
		const struct ynode *t = tasks->kids[i];
		char *id = instance_id(&(struct instance_key){ystr(stage, "name", ""), wname, .part = ystr(t, "name", "")});
		if (plan_find(w->p, id)) { /* a duplicate task name */
			w->unsaid++;
			free(id);
			continue;
		}
		struct inst *in = add_inst(w->p, id, stage, w->wl);
		add_serves(in, wname);
		in->label = xasprintf("%s %s %s", ystr(stage, "name", ""), wname, ystr(t, "name", ""));
		in->conf.kind = PC_DATA;
		struct pc_data *d = &in->conf.u.data;
		d->task = ystr(t, "name", "");
		d->gpus = ybool(t, "gpus", 0);
		const char *img = ystr(t, "image", NULL);
		if (img) {
			const struct ynode *im = ymap_get(ymap_get(w->wl, "images"), img);
			if (!im)
				w->unsaid++;
			else
				d->image = image_stem(image_ref_for(w, img, ystr(im, "ref", "")));
		}
		add_argv(w, &d->cmd, wname, ymap_get(t, "cmd"), vs);
		add_env(w, &d->cmd, ymap_get(t, "env"), vs);
		add_mounts(w, &d->cmd, ymap_get(t, "mounts"), vs);
		add_secrets(&d->cmd, ymap_get(w->wl, "secrets"));
		add_secrets(&d->cmd, ymap_get(t, "secrets"));
		d->time_limit = time_limit_for(w, stage, t, &w->p->sel);
		d->size_gb = ystr(t, "size_gb", NULL);
		const struct ynode *pr = ymap_get(t, "proves");
		for (size_t j = 0; j < pr->nkids; j++) {
			pc_constv_add(&d->proves, &d->nproves, pr->kids[j]->str);
			char *wdir = layout_workload(NULL, wname);
			add_output(in, layout_in(wdir, pr->kids[j]->str));
			free(wdir);
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
