#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "plan/envrec.h"
#include "plan/nightmatrix.h"
#include "plan/override.h"
#include "plan/selection.h"
#include "recipe/recipecheck.h"
#include "recipe/slurmcmd.h"
#include "store/stagecfg.h"

/* ---- the runs a selection names ------------------------------------------ */

static const char *
sel_v(const struct sel *s, enum knob k)
{
	return s->v[k];
}

/* A selection across several workloads (WORKLOAD unset or naming more
 * than one) keeps what suits each workload: what one workload cannot run
 * is said as a warning and that workload left out, not the whole
 * selection refused. */
static int
sel_soft(const struct wctx *w, const struct sel *s)
{
	/* a night's matrix or a suite names its entries: each must hold */
	if (w->p->sel.night || w->p->sel.exemplar)
		return 0;
	const char *q = s->v[K_WORKLOAD];
	size_t n = q ? list_word(&q) : 0;
	return !q ? w->p->rec.nworkloads > 1 : n && list_word((q += n, &q));
}

static void sel_refuse(const struct wctx *w, int soft, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void
sel_refuse(const struct wctx *w, int soft, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "llmb: %s: ", soft ? "warning" : "error");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (soft)
		fprintf(stderr, " (workload %s left out of the selection)", ystr(w->wl, "workload", ""));
	fputc('\n', stderr);
	diag_errors += !soft;
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
	const char *p = want;
	for (size_t n; (n = list_word(&p)); p += n) {
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
			sel_refuse(w, sel_soft(w, s), "%s=%s is not supported by workload %s%s%s%s; valid: %s",
				   knob_names[k], one, ystr(w->wl, "workload", ""), gpu ? " on " : "", gpu ? gpu : "", hw,
				   valid.buf ? valid.buf : "none");
			bad = 1;
		}
		free(one);
	}
	sb_free(&valid);
	return bad;
}

/* The listed scales of the selected runs, for messages. */
static void
listed_scales(const struct wctx *w, size_t n, struct sb *valid)
{
	for (size_t j = 0; j < n; j++) {
		char b[32];
		snprintf(b, sizeof b, "%ld", w->runs[j].scale);
		if (!valid->len || !in_words(valid->buf, b))
			sb_addf(valid, "%s%s", valid->len ? " " : "", b);
	}
}

/* A SCALES word MIN..MAX into *lo, *hi: 1, 0 when it is no range, -1
 * when it is one, malformed. */
static int
scale_range(const char *q, size_t n, long *lo, long *hi)
{
	const char *dots = memchr(q, '.', n);
	if (!dots)
		return 0;
	char *e1, *e2;
	errno = 0;
	*lo = strtol(q, &e1, 10);
	if (e1 != dots || dots == q || *q == '-' || *q == '+' || dots + 2 > q + n || dots[1] != '.' ||
	    dots + 2 == q + n || dots[2] == '-' || dots[2] == '+')
		return -1;
	*hi = strtol(dots + 2, &e2, 10);
	return e2 == q + n && !errno && *lo >= 1 && *lo <= *hi ? 1 : -1;
}

/* Scale sc, which no selected run lists, for the combinations of the
 * first n runs: as upstream's llmb-run (non-exact workloads), a scale
 * above a combination's largest listed one runs with a warning, on the
 * row of that largest scale with its TP, PP, CP and EP kept and DP and GA
 * derived from the GPU count (override.c's checks); below it, or where
 * the row says exact_scales, it is refused. Appends the runs it plans;
 * says why each other combination is left out in *why. */
/* The largest GPU count planned unlisted: far above any cluster, and low
 * enough that the params derived from it (GBS over scale) stay exact. */
#define MAX_UNLISTED (1L << 24)

static void
unlisted_scale(struct wctx *w, size_t n, long sc, struct sb *why)
{
	const char *wname = ystr(w->wl, "workload", "");
	for (size_t j = 0; j < n; j++) {
		const struct plan_run *r = &w->runs[j];
		if (ybool(r->row, "proxy", 0))
			continue;
		/* the first run of its combination stands for it */
		size_t first = 0, top = j;
		while (first < j && (ybool(w->runs[first].row, "proxy", 0) || strcmp(w->runs[first].gpu, r->gpu) ||
				     strcmp(w->runs[first].size, r->size) || strcmp(w->runs[first].dtype, r->dtype)))
			first++;
		if (first < j)
			continue;
		for (size_t k = j; k < n; k++)
			if (!ybool(w->runs[k].row, "proxy", 0) && !strcmp(w->runs[k].gpu, r->gpu) &&
			    !strcmp(w->runs[k].size, r->size) && !strcmp(w->runs[k].dtype, r->dtype) &&
			    w->runs[k].scale > w->runs[top].scale)
				top = k;
		struct plan_run u = w->runs[top];
		char no[256] = "";
		u.scale = sc;
		u.unlisted = 1;
		if (sc > MAX_UNLISTED)
			snprintf(no, sizeof no, "a scale not listed is at most %ld GPUs", MAX_UNLISTED);
		else if (ybool(u.row, "exact_scales", 0))
			snprintf(no, sizeof no, "its recipe row has exact_scales: true (only the listed scales run)");
		else if (sc < w->runs[top].scale)
			snprintf(no, sizeof no, "a scale not listed runs only above the largest listed one (%ld)",
				 w->runs[top].scale);
		else {
			static const struct ovr none;
			struct params prm = {0};
			if (run_params(&w->p->rec, &u, &prm))
				snprintf(no, sizeof no, "the row's params do not hold at %ld GPUs", sc);
			else
				ovr_params(&none, &prm, sc, no, sizeof no);
			params_free(&prm);
		}
		if (*no) {
			sb_addf(why, "%s%s %s %s: %s", why->len ? "; " : "", u.gpu, u.size, u.dtype, no);
			continue;
		}
		fprintf(stderr, "llmb: warning: SCALES: %ld is not a listed scale of %s %s %s %s (largest: %ld): planned "
			"with its row's TP, PP, CP and EP, DP and GA derived from %ld GPUs; not validated upstream\n",
			sc, wname, u.gpu, u.size, u.dtype, w->runs[top].scale, sc);
		w->runs = xrealloc(w->runs, (w->nruns + 1) * sizeof *w->runs);
		w->runs[w->nruns++] = u;
	}
}

/* SCALES over the runs selected so far: each word a listed scale of some
 * run, a range MIN..MAX of listed scales, or a scale unlisted_scale
 * plans. */
static int
select_scales(struct wctx *w, const struct sel *s, const char *scales_sel)
{
	const char *wname = ystr(w->wl, "workload", "");
	int soft = sel_soft(w, s);
	size_t n = w->nruns;
	char *keep = xcalloc(n + 1, 1);
	int bad = 0;
	const char *q = scales_sel;
	for (size_t len; !bad && (len = list_word(&q)); q += len) {
		long lo, hi;
		char *end;
		int rg = scale_range(q, len, &lo, &hi);
		if (rg < 0) {
			fprintf(stderr, "llmb: error: SCALES: %.*s is not a range MIN..MAX of GPU counts (e.g. 64..256, MIN at "
				"least 1 and not above MAX)\n", (int)len, q);
			diag_errors++;
			bad = 1;
			break;
		}
		if (!rg) {
			errno = 0;
			lo = hi = strtol(q, &end, 10);
			if (end != q + len || lo < 1 || errno)
				lo = hi = -1;
		}
		int found = 0;
		for (size_t j = 0; j < n; j++)
			if (w->runs[j].scale >= lo && w->runs[j].scale <= hi)
				found = keep[j] = 1;
		if (found)
			continue;
		struct sb why = {0}, valid = {0};
		size_t before = w->nruns;
		if (!rg && lo > 0)
			unlisted_scale(w, n, lo, &why);
		listed_scales(w, n, &valid);
		if (w->nruns == before) {
			sel_refuse(w, soft, "SCALES: %.*s %s of %s for this selection; valid: %s%s%s", (int)len, q,
				   rg ? "holds no configured scale" : "is not a configured scale", wname,
				   valid.buf ? valid.buf : "none", why.len ? "; " : "", why.len ? why.buf : "");
			bad = 1;
		} else if (why.len)
			fprintf(stderr, "llmb: warning: SCALES: %.*s left out for %s %s\n", (int)len, q, wname, why.buf);
		sb_free(&why);
		sb_free(&valid);
	}
	if (bad) {
		free(keep);
		return -1;
	}
	size_t k = 0;
	for (size_t j = 0; j < w->nruns; j++)
		if (j >= n || keep[j])
			w->runs[k++] = w->runs[j];
	w->nruns = k;
	free(keep);
	return 0;
}

int
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
				sel_refuse(w, sel_soft(w, s), "GPU_TYPE is required for workload %s: one of %s",
					   ystr(w->wl, "workload", ""), gpus.buf);
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
						w->runs[w->nruns++] = (struct plan_run){row, g[a]->str, sz[b]->str, dt[c]->str, sc, NULL, 0};
					}
				}
			}
		}
	}
	/* SCALES: listed scales, MIN..MAX ranges of them, and scales the
	 * recipe does not list (unlisted_scale). */
	const char *scales_sel = all ? NULL : sel_v(s, K_SCALES);
	if (scales_sel && select_scales(w, s, scales_sel) < 0)
		return -1;
	/* Proxy rows (shrunken models, never compared with a reference) are
	 * planned when asked: PROXY=1 adds them all, PROXY=only plans only
	 * them, and without PROXY a scale SCALES names brings its proxy run;
	 * PROXY=0 leaves every proxy out. */
	const char *px = all ? NULL : sel_v(s, K_PROXY);
	int want = !px ? (scales_sel ? 1 : 0) : !strcmp(px, "only") ? 2 : knob_true(px);
	if (!all) {
		size_t k = 0;
		for (size_t j = 0; j < w->nruns; j++) {
			int proxy = ybool(w->runs[j].row, "proxy", 0);
			if (want == 2 ? proxy : want == 1 || !proxy)
				w->runs[k++] = w->runs[j];
		}
		/* said when the selection as a whole plans no training */
		if (w->nruns && !k && !w->p->emptied)
			w->p->emptied = xasprintf("PROXY=%s leaves no run of workload %s%s%s (%s)", px ? px : "",
						  ystr(w->wl, "workload", ""), scales_sel ? " at SCALES=" : "",
						  scales_sel ? scales_sel : "",
						  want == 2 ? "no proxy run there" : "only proxy runs there");
		w->nruns = k;
	}
	return 0;
}

/* ---- the run knobs ------------------------------------------------------- */

/* Workloads whose knobs have key (and, for a scalar, the value "true"),
 * for messages that say where a knob is valid. */
static char *
knob_workloads(const struct plan *p, const char *key)
{
	struct sb sb = {0};
	for (size_t i = 0; i < p->rec.nworkloads; i++) {
		const struct ynode *wl = p->rec.workloads[i]->root;
		/* "profile.pytorch": a flag of knobs.profile */
		const char *dot = strchr(key, '.');
		char head[32];
		snprintf(head, sizeof head, "%.*s", dot ? (int)(dot - key) : (int)strlen(key), key);
		const struct ynode *v = ymap_get(ymap_get(wl, "knobs"), head);
		if (dot)
			v = ymap_get(v, dot + 1);
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
int
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
	/* checkpoint_gb names the sizes that checkpoint (upstream: llama3.1 8b) */
	const struct ynode *cgb = ymap_get(knobs, "checkpoint_gb"), *models = ymap_get(w->wl, "models");
	if (cgb && ybool(knobs, "checkpoint", 0) && (knob_true(s->v[K_ENABLE_CHECKPOINT]) || s->v[K_LOAD_CHECKPOINT_PATH]))
		for (size_t i = 0; i < ymap_len(models); i++) {
			const char *sz = ymap_key(models, i)->str;
			if (in_words(s->v[K_SIZE], sz) && !ymap_get(cgb, sz)) {
				char *ok = NULL;
				struct sb v = {0};
				for (size_t j = 0; j < ymap_len(cgb); j++)
					sb_addf(&v, "%s%s", j ? " " : "", ymap_key(cgb, j)->str);
				ok = sb_steal(&v);
				fprintf(stderr, "llmb: error: %s: workload %s checkpoints size%s %s only (as upstream), not %s: set SIZE\n",
					s->v[K_LOAD_CHECKPOINT_PATH] && !knob_true(s->v[K_ENABLE_CHECKPOINT]) ? "LOAD_CHECKPOINT_PATH" : "ENABLE_CHECKPOINT=true",
					wname, ymap_len(cgb) == 1 ? "" : "s", ok, sz);
				free(ok);
				diag_errors++;
				break;
			}
		}
	if (s->v[K_EXTRA_WORK] && !ymap_get(knobs, "extra_work_args"))
		knob_refuse(w, "extra_work_args", "EXTRA_WORK");
	if (profile && !ymap_get(knobs, "profile"))
		knob_refuse(w, "profile", "ENABLE_PROFILE=true");
	int pytorch = knob_true(s->v[K_ENABLE_PYTORCH_PROFILE]);
	if (pytorch && !ybool(ymap_get(knobs, "profile"), "pytorch", 0))
		knob_refuse(w, "profile.pytorch", "ENABLE_PYTORCH_PROFILE=true");
	if (knob_true(s->v[K_ENABLE_GPU_METRICS]) && !ybool(ymap_get(knobs, "profile"), "gpu_metrics", 0))
		knob_refuse(w, "profile.gpu_metrics", "ENABLE_GPU_METRICS=true");
	if (s->v[K_PROFILE_RANKS] && !ybool(ymap_get(knobs, "profile"), "ranks", 0))
		knob_refuse(w, "profile.ranks", "PROFILE_RANKS");
	if (pdef && s->v[K_ENABLE_PROFILE] && !profile) {
		fprintf(stderr, "llmb: error: ENABLE_PROFILE=%s: workload %s always profiles (its recipe says profile_default: true); leave ENABLE_PROFILE unset\n",
			s->v[K_ENABLE_PROFILE], wname);
		diag_errors++;
	}
	profile = profile || pytorch; /* the steps serve either profiler */
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

int
check_knobs(const struct sel *s)
{
	int errs = envrec_check(s->env);
	/* First, and alone: no make variable carries a newline or another
	 * control character, and the messages below would print it raw. */
	for (int k = 0; k < K_NKNOBS; k++) {
		if (s->v[k] && has_control(s->v[k])) {
			fprintf(stderr, "llmb: error: %s holds a control character (a newline, a tab?): "
				"a variable of the selection cannot carry one\n", knob_names[k]);
			errs++;
		}
	}
	if (errs) {
		diag_errors += errs;
		return errs;
	}
	static const enum knob bools[] = {K_ENABLE_PROFILE, K_ENABLE_NCCLTRACE, K_ENABLE_CHECKPOINT,
		K_ENABLE_PYTORCH_PROFILE, K_ENABLE_GPU_METRICS};
	static const enum knob ints[] = {K_PROFILE_START_STEP, K_PROFILE_STOP_STEP, K_MAX_STEPS, K_EXTRA_WORK,
		K_CHECKPOINT_INTERVAL};
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
	const char *px = s->v[K_PROXY];
	if (px && strcmp(px, "only") && parse_bool(px) < 0) {
		fprintf(stderr, "llmb: error: PROXY=%s: expected true, false or only (%s)\n", px, bool_spellings);
		errs++;
	}
	const char *tl = s->v[K_TIME_LIMIT];
	if (tl && !time_limit_ok(tl)) {
		fprintf(stderr, "llmb: error: TIME_LIMIT=%s: expected [D-]HH:MM:SS with minutes and seconds below 60, like 01:30:00 or 1-00:00:00\n", tl);
		errs++;
	}
	const char *pf = s->v[K_PREFLIGHT];
	if (pf && preflight_policy(pf) < 0) {
		fprintf(stderr, "llmb: error: PREFLIGHT=%s: expected off, warn, fail or exclude\n", pf);
		errs++;
	}
	static const enum knob paths[] = {K_LOAD_CHECKPOINT_PATH, K_CHECKPOINT_DIR};
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		const char *lp = s->v[paths[i]];
		if (lp && strspn(lp, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/+-=") != strlen(lp)) {
			fprintf(stderr, "llmb: error: %s=%s: a path may hold only letters, digits and ._/+=-\n",
				knob_names[paths[i]], lp);
			errs++;
		}
	}
	if ((s->v[K_CHECKPOINT_DIR] || s->v[K_CHECKPOINT_INTERVAL]) && !knob_true(s->v[K_ENABLE_CHECKPOINT])) {
		fprintf(stderr, "llmb: error: CHECKPOINT_DIR and CHECKPOINT_INTERVAL need ENABLE_CHECKPOINT=true\n");
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
	if (s->v[K_CHECKPOINT_INTERVAL] && !errs && strtol(s->v[K_CHECKPOINT_INTERVAL], NULL, 10) < 1) {
		fprintf(stderr, "llmb: error: CHECKPOINT_INTERVAL=%s: at least one step\n", s->v[K_CHECKPOINT_INTERVAL]);
		errs++;
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
	const char *pr = s->v[K_PROFILE_RANKS];
	if (pr && (strspn(pr, "0123456789,") != strlen(pr) || pr[0] == ',' || pr[strlen(pr) - 1] == ',' ||
		   strstr(pr, ",,") || strlen(pr) > 4096)) {
		fprintf(stderr, "llmb: error: PROFILE_RANKS=%s: expected ranks as whole numbers separated by commas, like 0,8\n", pr);
		errs++;
	}
	int nsys = knob_true(s->v[K_ENABLE_PROFILE]), torch = knob_true(s->v[K_ENABLE_PYTORCH_PROFILE]);
	if (nsys && torch) {
		fprintf(stderr, "llmb: error: ENABLE_PROFILE=true and ENABLE_PYTORCH_PROFILE=true exclude each other (as upstream): set one of them\n");
		errs++;
	}
	if (knob_true(s->v[K_ENABLE_GPU_METRICS]) && !nsys) {
		fprintf(stderr, "llmb: error: ENABLE_GPU_METRICS=true needs ENABLE_PROFILE=true (nsys collects the GPU metrics)\n");
		errs++;
	}
	if (pr && !nsys && !torch) {
		fprintf(stderr, "llmb: error: PROFILE_RANKS is set but profiling is off: add ENABLE_PROFILE=true or ENABLE_PYTORCH_PROFILE=true\n");
		errs++;
	}
	if ((nsys || torch) && knob_true(s->v[K_ENABLE_NCCLTRACE])) {
		fprintf(stderr, "llmb: error: ENABLE_PROFILE=true and ENABLE_NCCLTRACE=true exclude each other (as upstream): set one of them\n");
		errs++;
	}
	diag_errors += errs;
	return errs;
}

/* ---- make nightly's matrix ----------------------------------------------- */

/* make nightly: the matrix entries, narrowed by the command line, as
 * selections of their own (knobs from the command line). */
int
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

/* ---- make exemplar's suite ----------------------------------------------- */

/* How far a config row of wl offers the run: 1 the GPU type and size,
 * 2 and the dtype, 3 and the scale. */
static int
offers(const struct ynode *wl, const char *gpu, const char *size, const char *dtype, long scale)
{
	const struct ynode *configs = ymap_get(wl, "configs");
	int best = 0;
	for (size_t i = 0; configs && i < configs->nkids; i++) {
		const struct ynode *row = configs->kids[i], *sc = ymap_get(row, "scales");
		if (!ynames_have(ymap_get(row, "gpu"), gpu) || !ynames_have(ymap_get(row, "size"), size))
			continue;
		int got = 1 + ynames_have(ymap_get(row, "dtype"), dtype);
		for (size_t k = 0; got == 2 && sc && k < sc->nkids; k++)
			got += strtol(sc->kids[k]->str, NULL, 10) == scale;
		best = got > best ? got : best;
	}
	return best;
}

/* Each entry against the recipes, at its position in the suite: the
 * workload, its size, GPU type, dtypes and the suite's scale; the
 * profiled run needs the workload's profiling knob. */
static int
check_suite(struct plan *p, const char *path, const struct exsuite *x)
{
	int before = diag_errors;
	for (size_t i = 0; i < x->m.n; i++) {
		char *const *e = x->m.entry[i];
		const struct ynode *wl = workload_find(&p->rec, e[0], NULL);
		const struct ynode *knobs = ymap_get(wl, "knobs");
		int ln = x->line[i], cl = x->col[i];
		if (!wl) {
			diag_error(path, ln, cl, "no workload '%s' in workloads/", e[0]);
			continue;
		}
		if (!ymap_get(ymap_get(wl, "models"), e[1])) {
			diag_error(path, ln, cl, "workload %s has no size '%s'", e[0], e[1]);
			continue;
		}
		const char *q = e[2];
		for (size_t n; (n = list_word(&q)); q += n) {
			char *dt = xstrndup(q, n);
			int o = offers(wl, x->gpu, e[1], dt, x->scale);
			if (o == 0)
				diag_error(path, ln, cl, "workload %s does not run size %s on %s", e[0], e[1], x->gpu);
			else if (o == 1)
				diag_error(path, ln, cl, "workload %s has no dtype %s for size %s on %s", e[0], dt, e[1], x->gpu);
			else if (o == 2)
				diag_error(path, ln, cl, "workload %s does not run %s %s on %s at scale %s", e[0], e[1], dt, x->gpu, e[4]);
			free(dt);
		}
		if (x->profile && !ymap_get(knobs, "profile") && !ybool(knobs, "profile_default", 0))
			diag_error(path, ln, cl, "profile: true, but workload %s cannot profile (its recipe has no knobs.profile)",
				   e[0]);
	}
	return diag_errors - before;
}

int
exemplar_sels(struct plan *p, const char *top, const struct sel *s, struct sel **alts, struct exsuite *x)
{
	const char *gpu = s->v[K_GPU_TYPE];
	if (gpu && strpbrk(gpu, " ,")) {
		fprintf(stderr, "llmb: error: GPU_TYPE=%s: an exemplar suite runs on one GPU type\n", gpu);
		return ++diag_errors;
	}
	char *path = s->exemplar[0] == '/' || !strcmp(top, ".") ? xstrdup(s->exemplar) : xasprintf("%s/%s", top, s->exemplar);
	int errs = exsuite_load(top, path, gpu, x);
	if (!errs)
		errs = check_suite(p, path, x);
	if (!errs) {
		nmatrix_narrow(&x->m, s->v);
		if (!x->m.n) {
			fprintf(stderr, "llmb: error: the selection (WORKLOAD SIZE DTYPE GPU_TYPE SCALES) leaves nothing of the exemplar suite %s\n", path);
			errs = ++diag_errors;
		}
	}
	free(path);
	if (errs)
		return errs;
	p->night_repeats = x->m.repeats;
	p->exemplar_profile = x->profile;
	*alts = xcalloc(x->m.n, sizeof **alts);
	for (size_t i = 0; i < x->m.n; i++) {
		(*alts)[i] = *s;
		for (int k = 0; k < NM_VARS; k++)
			(*alts)[i].v[k] = x->m.entry[i][k];
	}
	return 0;
}

/* The runs of w that the matrix entries select, each once. */
int
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

/* ---- the overrides ------------------------------------------------------- */

int
select_overrides(struct wctx *w)
{
	const struct plan *p = w->p;
	const char *wname = ystr(w->wl, "workload", "");
	const char *fw = ystr(w->wl, "framework", "");
	if (strcmp(fw, "megatron_bridge")) {
		fprintf(stderr, "llmb: error: %s: workload %s (framework %s) takes no overrides: they are Megatron-Bridge's (its recipes have framework: megatron_bridge)\n",
			p->ovr[0].show, wname, *fw ? fw : "none");
		diag_errors++;
		return -1;
	}
	struct plan_run *v = xcalloc(w->nruns * p->novr + 1, sizeof *v);
	size_t n = 0;
	int errs = 0;
	for (size_t i = 0; i < w->nruns; i++)
		for (size_t c = 0; c < p->novr; c++) {
			const struct plan_run *r = &w->runs[i];
			const struct ovr *o = &p->ovr[c];
			char why[256] = "";
			struct params prm = {0};
			if (o->s.v[K_FP8_RECIPE] && strcmp(r->dtype, "fp8"))
				snprintf(why, sizeof why, "FP8_RECIPE applies to fp8 runs, this one is %s", r->dtype);
			else if (run_params(&p->rec, r, &prm) == 0) /* else the recipe checks say why */
				ovr_params(o, &prm, r->scale, why, sizeof why);
			params_free(&prm);
			if (!*why) {
				v[n] = *r;
				v[n++].ovr = o;
				continue;
			}
			fprintf(stderr, "llmb: %s: %s on %s %s %s %s x%ld: %s%s\n", p->novr > 1 ? "warning" : "error", o->show,
				wname, r->gpu, r->size, r->dtype, r->scale, why, p->novr > 1 ? "; skipped" : "");
			errs += p->novr == 1;
		}
	if (!errs && !n) {
		fprintf(stderr, "llmb: error: no combination of the sweep suits a selected run of workload %s\n", wname);
		errs++;
	}
	diag_errors += errs;
	free(w->runs);
	w->runs = v;
	w->nruns = n;
	return errs ? -1 : 0;
}
