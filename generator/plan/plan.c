#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "plan/nightmatrix.h"
#include "plan/override.h"
#include "plan/plan.h"
#include "plan/planbuild.h"
#include "plan/runcheck.h"
#include "plan/runstages.h"
#include "plan/selection.h"
#include "plan/setupstages.h"
#include "plan/sweepfile.h"
#include "recipe/recipecheck.h"
#include "store/instance.h"
#include "store/stagekind.h"

/* ---- the stage graph of a pipeline --------------------------------------- */

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

/* ---- dependencies and hashes --------------------------------------------- */

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

/* The per-run instances of each stage by workload, GPU, size and dtype,
 * in creation order: a report (one per size, all scales) finds its parses
 * there instead of in the whole stage list, which made a plan of 10,000
 * sizes quadratic. matches() still decides. */
struct run_groups {
	struct pindex key;          /* "stage\x1fworkload\x1fgpu\x1fsize\x1fdtype" -> group */
	struct { size_t *v, n; } *g;
	size_t ng;
};

static char *
run_group_key(const char *stage, const struct inst *x)
{
	return xasprintf("%s\x1f%s\x1f%s\x1f%s\x1f%s", stage, x->workload, x->gpu, x->size, x->dtype);
}

static void
run_groups_build(struct run_groups *rg, const struct plan *p)
{
	memset(rg, 0, sizeof *rg);
	for (size_t i = 0; i < p->n; i++) {
		const struct inst *u = &p->v[i];
		if (!u->gpu || u->nserves != 1)
			continue;
		char *key = run_group_key(ystr(u->stage, "name", ""), u);
		long at = index_get(&rg->key, key);
		if (at < 0) {
			rg->g = xrealloc(rg->g, (rg->ng + 1) * sizeof *rg->g);
			rg->g[rg->ng].v = NULL;
			rg->g[rg->ng].n = 0;
			index_add(&rg->key, key, rg->ng);
			at = (long)rg->ng++;
		}
		free(key);
		rg->g[at].v = xrealloc(rg->g[at].v, (rg->g[at].n + 1) * sizeof *rg->g[at].v);
		rg->g[at].v[rg->g[at].n++] = i;
	}
}

static void
run_groups_free(struct run_groups *rg)
{
	for (size_t i = 0; i < rg->ng; i++)
		free(rg->g[i].v);
	free(rg->g);
	index_free(&rg->key);
}

/* Whether every instance of the stage list is in a run group: then an
 * instance with run coordinates can match only those of its own group. */
static int
all_grouped(const struct plan *p, const struct stage_list *sl)
{
	for (size_t k = 0; k < sl->n; k++)
		if (!p->v[sl->v[k]].gpu || p->v[sl->v[k]].nserves != 1)
			return 0;
	return 1;
}

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
	struct run_groups rg;
	run_groups_build(&rg, p);
	size_t nlists = 0;
	while (lists[nlists].name)
		nlists++;
	char *grouped = xcalloc(nlists + 1, 1);
	for (size_t k = 0; k < nlists; k++)
		grouped[k] = (char)all_grouped(p, &lists[k]);
	for (size_t i = from; i < p->n; i++) {
		struct inst *d = &p->v[i];
		const struct ynode *const *it, *one;
		size_t na = ynames(ymap_get(d->stage, "after"), &it, &one);
		struct stagecfg *c = &d->conf;
		/* An image or a venv is shared by every workload that needs it: its
		 * configuration must not depend on which one declared it first. */
		c->id = d->id;
		c->template = ystr(d->stage, "template", d->kind);
		c->workload = stage_kind_is(d->kind, SK_SHARED) ? "" : d->workload;
		c->label = d->label;
		c->gpu = d->gpu;
		c->size = d->size;
		c->dtype = d->dtype;
		c->scale = d->scale;
		const struct ynode *retry = ymap_get(d->stage, "retry");
		if (retry) {
			c->retry_count = ystr(retry, "count", "0");
			const struct ynode *on = ymap_get(retry, "on");
			for (size_t k = 0; k < on->nkids; k++)
				pc_constv_add(&c->retry_on, &c->nretry_on, on->kids[k]->str);
		}
		for (size_t a = 0; a < na; a++) {
			/* A run depends on the same run of a per-run stage: one lookup. */
			char *key = d->scale ? instance_id(&(struct instance_key){it[a]->str, d->workload, .gpu = d->gpu,
				.size = d->size, .dtype = d->dtype, .scale = d->scale, .rep = d->rep}) : NULL;
			long hit = key ? index_get(&p->ids, key) : -1;
			free(key);
			struct stage_list *sl = stage_list_of(lists, it[a]->str);
			const size_t *cand = sl ? sl->v : NULL;
			size_t ncand = hit >= 0 ? 1 : sl ? sl->n : 0;
			if (hit < 0 && sl && d->gpu && grouped[sl - lists]) {
				char *gk = run_group_key(it[a]->str, d);
				long g = index_get(&rg.key, gk);
				free(gk);
				cand = g >= 0 ? rg.g[g].v : NULL;
				ncand = g >= 0 ? rg.g[g].n : 0;
			}
			for (size_t k = 0; k < ncand; k++) {
				size_t j = hit >= 0 ? (size_t)hit : cand[k];
				struct inst *u = &p->v[j];
				if (j >= i || strcmp(ystr(u->stage, "name", ""), it[a]->str) || !matches(u, d))
					continue;
				d->deps = xrealloc(d->deps, (d->ndeps + 1) * sizeof *d->deps);
				d->deps[d->ndeps++] = j;
				c->after = xrealloc(c->after, (c->nafter + 1) * sizeof *c->after);
				c->after[c->nafter].id = u->id;
				memcpy(c->after[c->nafter++].hash, u->hash, sizeof u->hash);
			}
		}
		for (size_t k = 0; k < d->noutputs; k++)
			pc_constv_add(&c->outputs, &c->noutputs, d->outputs[k]);
		/* the configuration's text, written once */
		stagecfg_render(c, &d->cfg);
		sha256_hex(d->cfg.buf, d->cfg.len, d->hash);
	}
	for (struct stage_list *l = lists; l->name; l++)
		free(l->v);
	free(lists);
	free(grouped);
	run_groups_free(&rg);
}

/* ---- the plan ------------------------------------------------------------ */

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
	/* a sweep file's knobs join the command line's: planned as they are */
	if (s->sweep && sweep_file_apply(&p->sel, s->sweep, &p->sweep_vals))
		return diag_errors - before;
	s = &p->sel;
	if (check_knobs(s) || ovr_check(s, &p->rec))
		return diag_errors - before;
	p->novr = ovr_expand(s, &p->ovr);
	qsort(p->rec.workloads, p->rec.nworkloads, sizeof *p->rec.workloads, cmp_wl);
	struct sel *alts = NULL;
	struct exsuite ex = {0};
	struct nmatrix nm = {0};
	/* the entries the planner reads: the night's matrix or the suite's */
	const struct nmatrix *mx = s->night ? &nm : &ex.m;
	if (!all && ((s->night && nightly_sels(p, top, s, &alts, &nm)) ||
		     (!s->night && s->exemplar && exemplar_sels(p, top, s, &alts, &ex)))) {
		nmatrix_free(&nm);
		exsuite_free(&ex);
		return diag_errors - before;
	}
	const char *wsel = all ? NULL : s->v[K_WORKLOAD];
	if (wsel) {
		const char *q = wsel;
		for (size_t n; (n = list_word(&q)); q += n) {
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
		}
		if (diag_errors > before) {
			free(alts);
			nmatrix_free(&nm);
			exsuite_free(&ex);
			return diag_errors - before;
		}
	}
	struct order_memo *memo = xcalloc(p->rec.npipelines + 1, sizeof *memo);
	size_t nmemo = 0;
	for (size_t wi = 0; wi < p->rec.nworkloads; wi++) {
		struct wctx w = {.p = p, .doc = p->rec.workloads[wi], .wl = p->rec.workloads[wi]->root};
		w.file = w.doc->file;
		const char *wname = ystr(w.wl, "workload", "");
		int named = 0;
		for (size_t a = 0; a < mx->n; a++)
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
		int selected = (alts ? select_matrix_runs(&w, alts, mx->n) : select_runs(&w, s, all)) == 0;
		if (selected && p->novr)
			selected = select_overrides(&w) == 0;
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
			case SK_BUILD_RUNS: build_runs(&w, order[k]); break;
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
	/* A selection that plans no training would still set up images,
	 * venvs and downloads, measure nothing and succeed. */
	if (!all && !alts && diag_errors == before) {
		size_t ntrain = 0;
		for (size_t i = 0; i < p->n; i++)
			ntrain += stage_kind_is(p->v[i].kind, SK_TRAINING);
		if (!ntrain) {
			struct sb set = {0};
			for (int k = K_WORKLOAD; k <= K_PROXY; k++)
				if (s->v[k])
					sb_addf(&set, " %s=%s", knob_names[k], s->v[k]);
			if (p->emptied)
				fprintf(stderr, "llmb: error: the selection plans no training: %s\n", p->emptied);
			else
				fprintf(stderr, "llmb: error: the selection%s plans no training: no run of a workload matches it\n",
					set.buf ? set.buf : "");
			sb_free(&set);
			diag_errors++;
		}
	}
	/* Hash in creation order: every dependency has a lower index. Shared
	 * instances (images, venvs) were created by their first workload. */
	link_and_hash(p, 0);
	free(alts);
	nmatrix_free(&nm);
	exsuite_free(&ex);
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
		stagecfg_free(&in->conf);
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
	free(p->emptied);
	ovr_free(p->ovr, p->novr);
	free(p->sweep_vals);
	recipes_free(&p->rec);
	memset(p, 0, sizeof *p);
}
