/* stagestatus: `llmb status` and `llmb cancel`, what `make status` and
 * `make cancel` call: the selection's stages as the staleness predicate
 * and their job records see them, with one scheduler query per executor
 * for the jobs still owed a verdict. They read what run.c writes and never
 * submit; apart from run.c so that the driver of one make target holds
 * nothing else. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cliopt.h"
#include "cmds.h"
#include "executor.h"
#include "instance.h"
#include "jobrecord.h"
#include "layout.h"
#include "plan.h"
#include "slurm.h"
#include "stagecfg.h"
#include "stale.h"
#include "util.h"

/* The plan of the selection in the environment, for status and cancel:
 * [--top DIR] [--install DIR]. Non-zero after printing errors. */
static int
selected_plan(int argc, char **argv, struct plan *p, const char **install)
{
	const char *top = ".";
	*install = layout_install_root();
	static const struct option longopts[] = {
		{"top", required_argument, NULL, 't'}, {"install", required_argument, NULL, 'i'}, {NULL, 0, NULL, 0},
	};
	const char *text;
	int o;
	/* anything else is ignored, as make passes what it has */
	cliopt_start();
	while ((o = cliopt_next(argc, argv, "", longopts, &text)) != -1)
		if (o == 't' || o == 'i')
			*(o == 't' ? &top : install) = optarg;
	struct sel s;
	sel_from_env(&s);
	if (plan_build(p, top, &s, 0)) {
		plan_free(p);
		return -1;
	}
	return 0;
}

/* llmb status: one line per selected stage (done, stale, submitted,
 * pending, running, finished, failed) and a closing summary. Jobs still
 * owed a verdict are asked about in one scheduler query per executor. A job
 * counts as "submitted" when this make submitted it (LLMB_RUN_START). */
int
cmd_status(int argc, char **argv)
{
	const char *install;
	struct plan p;
	if (selected_plan(argc, argv, &p, &install))
		return 2;
	enum { K_DONE, K_STALE, K_SUBMITTED, K_PENDING, K_RUNNING, K_FINISHED, K_FAILED, K_N };
	static const char *const names[K_N] = {"done", "stale", "submitted now", "pending", "running",
		"finished (run make to collect)", "failed"};
	int counts[K_N] = {0};
	long since = env_long("LLMB_RUN_START", -1);
	struct jobrec *recs = xcalloc(p.n ? p.n : 1, sizeof *recs);
	struct jobinfo *ji = xcalloc(p.n ? p.n : 1, sizeof *ji);
	int *kind = xcalloc(p.n ? p.n : 1, sizeof *kind);
	long *elapsed = xcalloc(p.n ? p.n : 1, sizeof *elapsed);
	char *cache = layout_executor_state(install);
	/* the jobs owed a verdict, one bulk query per executor */
	for (int e = 0; e < 2; e++) {
		const struct executor *ex = e ? &slurm_executor : &local_executor;
		size_t n = 0;
		for (size_t i = 0; i < p.n; i++) {
			char *dir = layout_jobs(install, p.v[i].id);
			if (e == 0)
				jobrec_read_dir(dir, &recs[i]);
			free(dir);
			struct jobrec *r = &recs[i];
			if (!strcmp(r->cfg, p.v[i].hash) && !strcmp(r->state, "submitted") && *r->job &&
			    !strcmp(r->executor, ex->name)) {
				snprintf(ji[n].id, sizeof ji[n].id, "%s", r->job);
				ji[n].elapsed = -1;
				n++;
			}
		}
		if (n && access(install, W_OK) == 0)
			ex->query(cache, ji, (int)n);
		for (size_t i = 0, k = 0; i < p.n && k < n; i++) {
			struct jobrec *r = &recs[i];
			if (strcmp(r->cfg, p.v[i].hash) || strcmp(r->state, "submitted") || !*r->job ||
			    strcmp(r->executor, ex->name))
				continue;
			elapsed[i] = ji[k].elapsed;
			enum jstate st = ji[k++].state;
			kind[i] = st == J_PENDING ? K_PENDING : st == J_RUNNING || st == J_COMPLETING ? K_RUNNING
				: jstate_terminal(st) ? K_FINISHED : K_PENDING;
			if (kind[i] == K_PENDING && since >= 0 && r->submitted >= since)
				kind[i] = K_SUBMITTED;
		}
	}
	for (size_t i = 0; i < p.n; i++) {
		struct inst *in = &p.v[i];
		struct jobrec *r = &recs[i];
		struct stamp st;
		stamp_read(install, in->id, &st);
		int k = K_STALE;
		struct sb line = {0};
		char *log = *r->log ? jobrec_log_path(r->log, r->job) : xstrdup("?");
		struct stage_query q = {.install = install, .id = in->id, .hash = in->hash, .cfg = in->cfg.buf};
		struct sb bad = {0};
		enum staleness sn = stage_staleness(&q, &bad);
		if (sn == STAGE_OUTPUT || sn == STAGE_UPSTREAM) {
			sb_addf(&line, "stale: %s", bad.buf);
		} else if (sn == STAGE_DONE) {
			k = K_DONE;
			sb_addf(&line, "done%s%s", *st.job ? ", job " : "", st.job);
		} else if (!strcmp(r->cfg, in->hash) && *r->state) {
			if (!strcmp(r->state, "failed") || !strcmp(r->state, "submit-failed")) {
				k = K_FAILED;
				sb_addf(&line, "failed, job %s, log %s", r->job, log);
			} else if (!strcmp(r->state, "submitted")) {
				k = kind[i];
				char el[32] = "";
				if (k == K_RUNNING && elapsed[i] >= 0)
					snprintf(el, sizeof el, " %02ld:%02ld:%02ld", elapsed[i] / 3600, elapsed[i] / 60 % 60, elapsed[i] % 60);
				sb_addf(&line, "%s%s, job %s, log %s", names[k], el, r->job, log);
			} else if (!strcmp(r->state, "submitting")) {
				k = K_PENDING;
				sb_add(&line, "submission interrupted; the next make finds or submits the job");
			} else {
				sb_addf(&line, "stale: output changed since job %s", r->job);
			}
		} else {
			sb_add(&line, st.text ? "stale: configuration changed" : "stale: never run");
		}
		free(log);
		sb_free(&bad);
		counts[k]++;
		printf("%-52s %s\n", in->id, line.buf);
		sb_free(&line);
		stamp_free(&st);
	}
	struct sb sum = {0};
	for (int k = 0; k < K_N; k++)
		if (counts[k] || k == K_DONE || k == K_FAILED || k == K_RUNNING || k == K_PENDING || (k == K_SUBMITTED && since >= 0))
			sb_addf(&sum, "%s%d %s", sum.len ? ", " : "", counts[k], names[k]);
	printf("%s\n", sum.buf);
	sb_free(&sum);
	free(cache);
	free(kind);
	free(elapsed);
	free(ji);
	free(recs);
	plan_free(&p);
	return 0;
}

/* llmb cancel: cancels the unfinished jobs of the selected stages. */
int
cmd_cancel(int argc, char **argv)
{
	const char *install;
	struct plan p;
	if (selected_plan(argc, argv, &p, &install))
		return 2;
	int n = 0, rc = 0;
	for (size_t i = 0; i < p.n; i++) {
		struct jobrec r;
		if (jobrec_read(install, p.v[i].id, &r) == 0 && *r.job && !strcmp(r.state, "submitted") &&
		    executor_find(r.executor)) {
			struct sb err = {0};
			if (executor_find(r.executor)->cancel(r.job, &err) == 0) {
				printf("cancelled job %s (%s)\n", r.job, p.v[i].id);
				n++;
			} else {
				fprintf(stderr, "llmb cancel: %s: %s\n", p.v[i].id, err.buf);
				rc = 1;
			}
			sb_free(&err);
		}
	}
	printf("%d job(s) cancelled\n", n);
	plan_free(&p);
	return rc;
}
