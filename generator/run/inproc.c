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
	size_t n;
	char **after = cfg_values(c->cfg, "after", &n);
	int ok = 1;
	for (size_t i = 0; i < n; i++) {
		size_t l = strcspn(after[i], " ");
		char *id = xstrndup(after[i], l);
		if (ok && !(after[i][l] && stage_stamped(c->install, id, after[i] + l + 1))) {
			printf("[%s] %s: waiting for %s\n", c->progress, c->label, id);
			ok = 0;
		}
		free(id);
		free(after[i]);
	}
	free(after);
	return ok;
}

/* The parse options of the stage: its window, log format, steps and
 * whether the run is marked profiled (as `llmb parse` would read them; a
 * bad value is a usage error, 2). */
static int
parse_stage_opts(const struct inproc_stage *c, struct parse_opts *po)
{
	char win[64], fmt[32], steps[32], *bad = NULL;
	if (parse_window(cfg_get(c->cfg, "window", win, sizeof win) ? win : LAYOUT_WINDOW_DEFAULT, &po->lp))
		bad = xasprintf("--window=%s", win);
	else if (lp_format_parse(cfg_get(c->cfg, "log_format", fmt, sizeof fmt) ? fmt : "auto", &po->lp.format))
		bad = xasprintf("--log-format=%s", fmt);
	else if (parse_long(cfg_get(c->cfg, "steps", steps, sizeof steps) ? steps : LAYOUT_STEPS_DEFAULT_STR, &po->lp.steps) || po->lp.steps <= 0)
		bad = xasprintf("--steps=%s", steps);
	/* profiled, traced or one-step runs: never compared with a reference */
	po->lp.profiled = cfg_get(c->cfg, "profiled", fmt, sizeof fmt) && !strcmp(fmt, "true");
	/* a proxy run's result says so: the report labels it, compares nothing */
	po->lp.proxy = cfg_get(c->cfg, "proxy", fmt, sizeof fmt) && !strcmp(fmt, "true");
	po->lp.unlisted = cfg_get(c->cfg, "unlisted", fmt, sizeof fmt) && !strcmp(fmt, "true");
	int rc = bad ? parse_bad_usage("bad option '%s'", bad) : 0;
	free(bad);
	return rc;
}

int
inproc_parse(const struct inproc_stage *c)
{
	char w[128], run[256];
	cfg_get(c->cfg, "workload", w, sizeof w);
	cfg_get(c->cfg, "run", run, sizeof run);
	if (c->async && !upstream_ready(c))
		return INPROC_WAITING;
	char *dir = layout_experiment(c->install, w, run), logb[PATH_MAX];
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
	char w[128], g[64], s[64], d[64], tol[32], rep[256];
	cfg_get(c->cfg, "workload", w, sizeof w);
	cfg_get(c->cfg, "gpu", g, sizeof g);
	cfg_get(c->cfg, "size", s, sizeof s);
	cfg_get(c->cfg, "dtype", d, sizeof d);
	cfg_get(c->cfg, "report", rep, sizeof rep);
	if (c->async && !upstream_ready(c))
		return INPROC_WAITING;
	char *out = layout_report(c->install, w, rep);
	char *expdir = layout_experiments(c->install, w);
	struct report_req q = {.top = c->top, .workload = w, .gpu = g, .size = s, .dtype = d,
		.tolerance = strtod(cfg_get(c->cfg, "tolerance_pct", tol, sizeof tol) ? tol : "5", NULL), .out = out,
		.format = "text"};
	mkdir_p(out, 1);
	int rc = q.tolerance >= 0 ? report_build(&q, &expdir, 1) : 2;
	free(out); free(expdir);
	return rc ? INPROC_FAILED : INPROC_DONE;
}
