#include <stdlib.h>

#include "instance.h"
#include "layout.h"
#include "recipecheck.h"
#include "setupstages.h"

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
		char *stem = image_stem(ystr(im, "ref", ""));
		char *id = instance_id(&(struct instance_key){ystr(stage, "name", ""), .part = stem});
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

void
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
	char *id = instance_id(&(struct instance_key){ystr(stage, "name", ""), .hash = h});
	struct inst *in = plan_find(w->p, id);
	if (in) {
		free(id);
		sb_free(&tmp.cfg);
	} else {
		in = add_inst(w->p, id, stage, w->wl);
		in->cfg = tmp.cfg;
		char *dir = layout_venv(NULL, h);
		cfg_line(in, "dir", dir);
		/* written last by the venv job: a half-built venv has none */
		add_output(in, layout_in(dir, LAYOUT_VENV_DONE));
		in->label = xasprintf("%s venv_%.12s", ystr(stage, "name", ""), h);
		in->plan = xasprintf("python venv %s (%s)", dir, ystr(venv, "python", "python3"));
		free(dir);
	}
	add_serves(in, ystr(w->wl, "workload", ""));
}

void
build_data(struct wctx *w, const struct ynode *stage)
{
	/* A task serves every run of its workload: it binds paths alone. */
	struct vars none = {0}, *vs = &none;
	expand_coords(NULL, NULL, NULL);
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
