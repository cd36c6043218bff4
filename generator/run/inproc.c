/* inproc: see inproc.h. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "plan/stale.h"
#include "results/logparse.h"
#include "results/parse.h"
#include "results/report.h"
#include "run/inproc.h"
#include "store/instance.h"
#include "store/layout.h"
#include "store/stagecfg.h"

/* ASYNC: every upstream stage has its stamp for the configuration this one
 * was generated from; otherwise say so and let a later make do the work. */
static int
upstream_ready(const struct inproc_stage *c)
{
	for (size_t i = 0; i < c->cfg->nafter; i++) {
		const struct sc_after *a = &c->cfg->after[i];
		if (!stage_stamped(c->install, a->id, a->hash)) {
			printf("[%s] %s: waiting for %s\n", c->progress, c->label, a->id);
			return 0;
		}
	}
	return 1;
}

/* The parse options of the stage: its window, log format, steps and
 * whether the run is marked profiled (as `llmb parse` would read them; a
 * bad value is a usage error, 2). */
static int
parse_stage_opts(const struct inproc_stage *c, struct parse_opts *po)
{
	/* a parse stage planned without its run's values has the defaults */
	const struct pc_parse *p = c->cfg->kind == PC_PARSE && c->cfg->bound ? &c->cfg->u.parse : NULL;
	char win[64] = LAYOUT_WINDOW_DEFAULT, steps[64] = LAYOUT_STEPS_DEFAULT_STR, *bad = NULL;
	const char *fmt = p ? p->log_format : "auto";
	if (p) {
		snprintf(win, sizeof win, "%ld-%ld", p->win_from, p->win_to);
		fmt_num(steps, sizeof steps, p->steps);
	}
	if (parse_window(win, &po->lp))
		bad = xasprintf("--window=%s", win);
	else if (lp_format_parse(fmt, &po->lp.format))
		bad = xasprintf("--log-format=%s", fmt);
	else if (parse_long(steps, &po->lp.steps) || po->lp.steps <= 0)
		bad = xasprintf("--steps=%s", steps);
	/* profiled, traced or one-step runs: never compared with a reference */
	po->lp.profiled = p && p->profiled;
	/* a proxy run's result says so: the report labels it, compares nothing */
	po->lp.proxy = p && p->proxy;
	po->lp.unlisted = p && p->unlisted;
	int rc = bad ? parse_bad_usage("bad option '%s'", bad) : 0;
	free(bad);
	return rc;
}

int
inproc_parse(const struct inproc_stage *c)
{
	if (c->async && !upstream_ready(c))
		return INPROC_WAITING;
	char *dir = layout_experiment(c->install, c->cfg->workload, c->cfg->run ? c->cfg->run : ""), logb[PATH_MAX];
	struct runrec *td = runrec_load(dir);
	if (!td || !td->log) {
		runrec_free(td);
		if (c->async) {
			printf("[%s] %s: waiting for the training job\n", c->progress, c->label);
			free(dir);
			return INPROC_WAITING;
		}
		fprintf(stderr, "llmb run: error: %s: no finished training run in %s\n", c->id, dir);
		free(dir);
		return INPROC_FAILED;
	}
	snprintf(logb, sizeof logb, "%s", td->log);
	runrec_free(td);
	char *res = layout_in(dir, LAYOUT_RESULT), *logs[] = {logb};
	char *prov = layout_in(dir, LAYOUT_PROVENANCE);
	struct parse_opts po = PARSE_OPTS_INIT;
	po.result = res;
	/* validity: what the job saw (validity.h); a run without provenance.json
	 * is judged on its log alone ("checked" says so), one that is there
	 * must be read */
	po.provenance = prov;
	po.provenance_may_miss = 1;
	int rc = parse_stage_opts(c, &po);
	if (!rc)
		rc = parse_logs(&po, 1, logs);
	if (rc == 1) /* 2: an error of its own, said */
		fprintf(stderr, "llmb: [%s] %s: the run did not succeed; see %s\n", c->progress, c->label, logb);
	free(res); free(prov); free(dir);
	return rc ? INPROC_FAILED : INPROC_DONE;
}

int
inproc_report(const struct inproc_stage *c)
{
	const struct stagecfg *cfg = c->cfg;
	const struct pc_report *r = cfg->kind == PC_REPORT ? &cfg->u.report : NULL;
	if (c->async && !upstream_ready(c))
		return INPROC_WAITING;
	const char *w = cfg->workload;
	char *out = layout_report(c->install, w, r ? r->report : "");
	char *expdir = layout_experiments(c->install, w);
	struct report_req q = {.top = c->top, .workload = w, .gpu = cfg->gpu ? cfg->gpu : "", .size = cfg->size ? cfg->size : "",
		.dtype = cfg->dtype ? cfg->dtype : "", .tolerance = strtod(r ? r->tolerance_pct : "5", NULL), .out = out,
		.format = "text"};
	mkdir_p(out, 1);
	int rc = q.tolerance >= 0 ? report_build(&q, &expdir, 1) : 2;
	free(out); free(expdir);
	return rc ? INPROC_FAILED : INPROC_DONE;
}
