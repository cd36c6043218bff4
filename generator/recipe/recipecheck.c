#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/diag.h"
#include "base/makesafe.h"
#include "base/util.h"
#include "recipe/recipecheck.h"
#include "store/layout.h"

/* Upstream image file name rule: "#" is "/", the last two path parts and
 * the tag make "<parent>+<name>+<tag>"; a digest becomes sha256-<12 hex>. */
char *
image_stem(const char *ref)
{
	char *r = xstrdup(ref), *tag = NULL;
	for (char *c = r; *c; c++)
		if (*c == '#')
			*c = '/';
	char *at = strchr(r, '@');
	if (at) {
		*at = 0;
		const char *d = at + 1;
		if (!strncmp(d, "sha256:", 7))
			d += 7;
		tag = xasprintf("sha256-%.12s", d);
	} else {
		char *slash = strrchr(r, '/'), *colon = strrchr(r, ':');
		if (colon && (!slash || colon > slash)) {
			*colon = 0;
			tag = xstrdup(colon + 1);
		} else {
			tag = xstrdup("latest");
		}
	}
	char *name = strrchr(r, '/');
	char *parent = NULL;
	if (name) {
		*name++ = 0;
		parent = strrchr(r, '/');
		parent = parent ? parent + 1 : r;
	} else {
		name = r;
	}
	char *stem = parent ? xasprintf("%s+%s+%s", parent, name, tag) : xasprintf("%s+%s", name, tag);
	free(tag);
	free(r);
	return stem;
}

static double
num(const struct ynode *v)
{
	return v ? strtod(v->str, NULL) : 0;
}

/* A scalar of m at key below min: an error at the value. */
static int
at_least(const char *file, const struct ynode *m, const char *key, double min, const char *why)
{
	const struct ynode *v = ymap_get(m, key);
	if (!v || v->kind != Y_SCALAR || num(v) >= min)
		return 0;
	diag_error(file, v->line, v->col, "%s is %s: %s", key, v->str, why);
	return 1;
}

static int
not_empty(const char *file, const struct ynode *list, const char *what)
{
	if (!list || list->kind != Y_SEQ || list->nkids)
		return 0;
	diag_error(file, list->line, list->col, "%s", what);
	return 1;
}

static int
check_gpus(const struct ydoc *d)
{
	const struct ynode *gpus = ymap_get(d->root, "gpus");
	int errs = 0;
	for (size_t i = 0; i < ymap_len(gpus); i++) {
		const struct ynode *g = ymap_val(gpus, i), *peaks = ymap_get(g, "peak_tflops");
		errs += at_least(d->file, g, "gpus_per_node", 1, "a node has at least one GPU");
		for (size_t k = 0; k < ymap_len(peaks); k++)
			errs += at_least(d->file, peaks, ymap_key(peaks, k)->str, 1e-9, "a peak must be above 0");
	}
	return errs;
}

static int
check_pipeline(const char *top, const struct ydoc *d)
{
	const struct ynode *stages = ymap_get(d->root, "stages");
	int errs = not_empty(d->file, stages, "a pipeline needs at least one stage");
	for (size_t i = 0; stages && i < stages->nkids; i++) {
		const struct ynode *t = ymap_get(stages->kids[i], "template");
		if (!t)
			continue;
		char *path = xasprintf("%s/templates/%s.m4", top, t->str);
		struct stat st;
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			diag_error(d->file, t->line, t->col, "no template '%s': templates/%s.m4 does not exist", t->str, t->str);
			errs++;
		}
		free(path);
	}
	return errs;
}

static int
check_images(const char *file, const struct ynode *wl)
{
	const struct ynode *images = ymap_get(wl, "images");
	int errs = 0;
	for (size_t i = 0; i < ymap_len(images); i++) {
		const struct ynode *ref = ymap_get(ymap_val(images, i), "ref");
		if (!ref)
			continue;
		char *stem = image_stem(ref->str);
		char *f = layout_image(NULL, stem);
		if (!mk_word_ok(f) || strchr(stem, '/')) {
			diag_error(file, ref->line, ref->col, "image '%s' would be the file '%s': its last two path parts and tag may hold only [A-Za-z0-9._+-]",
				   ref->str, f);
			errs++;
		}
		free(f);
		free(stem);
	}
	return errs;
}

/* The window, first and last iteration measured, inside a run of steps
 * steps: the rule MAX_STEPS is held to on the command line. */
static int
check_measure(const char *file, const struct ynode *wl)
{
	const struct ynode *m = ymap_get(wl, "measure"), *win = ymap_get(m, "window");
	int errs = at_least(file, m, "steps", 1, "a run needs at least one step");
	errs += at_least(file, m, "tolerance_pct", 0, "a tolerance cannot be negative");
	if (!win || win->kind != Y_SEQ)
		return errs;
	if (win->nkids != 2) {
		diag_error(file, win->line, win->col, "window needs exactly two iterations, first and last");
		return errs + 1;
	}
	long first = strtol(win->kids[0]->str, NULL, 10), last = strtol(win->kids[1]->str, NULL, 10);
	long steps = yint(m, "steps", LAYOUT_STEPS_DEFAULT);
	int one = !strcmp(ystr(m, "indexing", "zero"), "one");
	if (first > last) {
		diag_error(file, win->line, win->col, "window [%ld, %ld] is reversed: the first iteration comes after the last", first, last);
		errs++;
	} else if (one && first < 1) {
		diag_error(file, win->kids[0]->line, win->kids[0]->col, "window starts at iteration 0 but iterations are one-based (indexing: one)");
		errs++;
	} else if (steps >= 1 && last > steps - (one ? 0 : 1)) {
		diag_error(file, win->kids[1]->line, win->kids[1]->col,
			   "window ends at iteration %ld, after the last iteration of a %ld-step run (%ld, %s-based)",
			   last, steps, steps - (one ? 0 : 1), one ? "one" : "zero");
		errs++;
	}
	return errs;
}

static int
check_workload(const struct ydoc *d)
{
	const struct ynode *wl = d->root, *tasks = ymap_get(wl, "tasks"), *configs = ymap_get(wl, "configs");
	const struct ynode *knobs = ymap_get(wl, "knobs"), *prof = ymap_get(knobs, "profile");
	int errs = check_images(d->file, wl) + check_measure(d->file, wl);
	for (size_t i = 0; tasks && i < tasks->nkids; i++)
		errs += at_least(d->file, tasks->kids[i], "size_gb", 0, "the space a task needs cannot be negative");
	const struct ynode *models = ymap_get(wl, "models");
	for (size_t i = 0; i < ymap_len(models); i++) {
		const struct ynode *m = ymap_val(models, i);
		for (size_t k = 0; m && m->kind == Y_MAP && k < ymap_len(m); k++)
			errs += at_least(d->file, m, ymap_key(m, k)->str, 0, "a model dimension cannot be negative");
	}
	errs += not_empty(d->file, configs, "configs needs at least one row");
	for (size_t i = 0; configs && i < configs->nkids; i++)
		errs += not_empty(d->file, ymap_get(configs->kids[i], "scales"), "scales needs at least one GPU count");
	const struct ynode *refs = ymap_get(wl, "reference");
	static const char *const published[] = {"step_time", "tokens_per_s", "tflops_per_gpu", "mfu_pct", "days_1t"};
	for (size_t i = 0; refs && i < refs->nkids; i++)
		for (size_t k = 0; k < sizeof published / sizeof *published; k++)
			errs += at_least(d->file, refs->kids[i], published[k], 1e-300, "a published number is above 0");
	errs += at_least(d->file, knobs, "nccltrace_steps", 1, "a traced run needs at least one step");
	if (prof && num(ymap_get(prof, "start")) >= num(ymap_get(prof, "stop"))) {
		diag_error(d->file, prof->line, prof->col, "profile start %s must be below stop %s (as PROFILE_START_STEP and PROFILE_STOP_STEP)",
			   ystr(prof, "start", "?"), ystr(prof, "stop", "?"));
		errs++;
	}
	return errs;
}

int
recipes_check_values(const struct recipes *r)
{
	int errs = r->gpus ? check_gpus(r->gpus) : 0;
	for (size_t i = 0; i < r->npipelines; i++)
		errs += check_pipeline(r->top, r->pipelines[i]);
	for (size_t i = 0; i < r->nworkloads; i++)
		errs += check_workload(r->workloads[i]);
	return errs;
}

int
param_value_ok(const char *file, const struct ynode *key, const struct ynode *v, double val, long scale)
{
	static const char *const positive[] = {"mbs", "gbs", "seq", NULL};
	int pos = 0;
	for (const char *const *p = positive; *p; p++)
		pos |= !strcmp(*p, key->str);
	if (isfinite(val) && val >= (pos ? 1 : 0))
		return 0;
	if (!file)
		return -1;
	/* An expression may go wrong at one scale only: that scale is named. */
	char *end;
	strtod(v->str, &end);
	if (*end)
		diag_error(file, v->line, v->col, "params.%s is %g at scale %ld: a run parameter must be a finite number >= %d",
			   key->str, val, scale, pos);
	else
		diag_error(file, v->line, v->col, "params.%s is %g: a run parameter must be a finite number >= %d",
			   key->str, val, pos);
	return -1;
}

const char *
recipe_default_gpu(const struct ynode *wl)
{
	const struct ynode *d = ymap_get(wl, "default_gpu"), *configs = ymap_get(wl, "configs");
	if (!d)
		return NULL;
	for (size_t i = 0; configs && i < configs->nkids; i++)
		if (ynames_have(ymap_get(configs->kids[i], "gpu"), d->str))
			return d->str;
	return NULL;
}
