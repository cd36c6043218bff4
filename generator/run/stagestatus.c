/* stagestatus: `llmb status` and `llmb cancel`, what `make status` and
 * `make cancel` call: the selection's stages as the staleness predicate
 * and their job records see them, with one scheduler query per executor
 * for the jobs still owed a verdict. They read what stagerun.c writes and never
 * submit (cancel writes a record only to name the job of an interrupted
 * submission, as the next llmb run would); apart from stagerun.c so that
 * the driver of one make target holds nothing else. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/util.h"
#include "exec/executor.h"
#include "exec/slurm.h"
#include "plan/plan.h"
#include "plan/stale.h"
#include "run/recover.h"
#include "run/selenv.h"
#include "store/instance.h"
#include "store/jobrecord.h"
#include "store/layout.h"
#include "store/stagecfg.h"

static const char usage_status[] =
	"usage: llmb status [--top DIR] [--install DIR] [STAGE-ID...]\n"
	"The state of each stage of the selection in the environment (WORKLOAD, SIZE, ...),\n"
	"or of the stages named (each must be one of the selection's).\n";
static const char usage_cancel[] =
	"usage: llmb cancel [--top DIR] [--install DIR] [STAGE-ID...]\n"
	"Cancels the unfinished jobs of the selection in the environment (WORKLOAD, SIZE, ...),\n"
	"or of the stages named only (each must be one of the selection's).\n";

/* The plan of the selection in the environment, for status and cancel:
 * [--top DIR] [--install DIR] [STAGE-ID...], read whole before anything
 * is looked at or done. *only (p->n entries, or NULL: every stage) marks
 * the stages named. Returns -1 to exit 0 (--help), 0 to go on, or the exit
 * status after saying what is wrong. */
static int
selected_plan(int argc, char **argv, const char *usage, struct plan *p, const char **install, unsigned char **only)
{
	const char *top = ".", *text;
	*install = layout_install_root(getenv(LAYOUT_INSTALL_VAR));
	*only = NULL;
	static const struct option longopts[] = {
		{"top", required_argument, NULL, 't'}, {"install", required_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	int o, nids = 0;
	const char **ids = xcalloc((size_t)argc + 1, sizeof *ids);
	cliopt_start();
	/* in order: a stage id may stand before or after the options */
	while ((o = cliopt_next(argc, argv, "-h", longopts, &text)) != -1) {
		if (o == 't' || o == 'i') {
			*(o == 't' ? &top : install) = optarg;
		} else if (o == 1 && optarg[0] != '-') {
			ids[nids++] = optarg;
		} else if (o == 'h') {
			free(ids);
			fputs(usage, stdout);
			return -1;
		} else {
			free(ids);
			return cliopt_refuse(o == 1 ? optarg : text, "h", longopts, usage);
		}
	}
	for (; optind < argc; optind++) /* after "--" */
		ids[nids++] = argv[optind];
	struct sel s;
	if (sel_from_env(&s) < 0 || plan_build(p, top, &s, 0)) {
		plan_free(p);
		free(ids);
		return 2;
	}
	int bad = 0;
	if (nids)
		*only = xcalloc(p->n + 1, 1);
	for (int k = 0; k < nids; k++) {
		const struct inst *in = plan_find(p, ids[k]);
		if (in) {
			(*only)[in - p->v] = 1;
		} else {
			fprintf(stderr, "%s: error: no stage '%s' in the selection (llmb status lists them)\n", progname, ids[k]);
			bad = 1;
		}
	}
	free(ids);
	if (bad) {
		free(*only);
		plan_free(p);
		return 2;
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
	unsigned char *only;
	int rc = selected_plan(argc, argv, usage_status, &p, &install, &only);
	if (rc)
		return rc < 0 ? 0 : rc;
	enum { K_DONE, K_STALE, K_SUBMITTED, K_PENDING, K_RUNNING, K_FINISHED, K_FAILED, K_N };
	static const char *const names[K_N] = {"done", "stale", "submitted now", "pending", "running",
		"finished (run make to collect)", "failed"};
	int counts[K_N] = {0};
	long since = long_or(getenv("LLMB_RUN_START"), -1);
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
			if (only && !only[i])
				continue;
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
			if ((only && !only[i]) || strcmp(r->cfg, p.v[i].hash) || strcmp(r->state, "submitted") || !*r->job ||
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
		if (only && !only[i])
			continue;
		struct inst *in = &p.v[i];
		struct jobrec *r = &recs[i];
		struct stamp st;
		stamp_read(install, in->id, &st);
		int k = K_STALE;
		struct sb line = {0};
		char *log = *r->log ? jobrec_log_path(r->log, r->job) : xstrdup("?");
		struct stage_query q = {.install = install, .id = in->id, .hash = in->hash, .cfg = &in->conf};
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
	free(only);
	plan_free(&p);
	return 0;
}

/* llmb cancel: cancels the unfinished jobs of the selected stages, or of
 * the stages named only; 1 when one of them could not be cancelled, or
 * found. */
int
cmd_cancel(int argc, char **argv)
{
	const char *install;
	struct plan p;
	unsigned char *only;
	int rc = selected_plan(argc, argv, usage_cancel, &p, &install, &only);
	if (rc)
		return rc < 0 ? 0 : rc;
	int n = 0;
	for (size_t i = 0; i < p.n; i++) {
		if (only && !only[i])
			continue;
		struct jobrec r;
		char *dir = layout_jobs(install, p.v[i].id);
		if (jobrec_read_dir(dir, &r) < 0) {
			free(dir);
			continue;
		}
		/* Under the stage lock: a submission under way ends first, and one
		 * that was interrupted (killed between sbatch and the record) has
		 * its job found, as the next llmb run would find it. */
		int lock = jobrec_lock_dir(dir);
		if (jobrec_read_dir(dir, &r) == 0 && !strcmp(r.state, "submitting") && !*r.job && *r.token) {
			int found = recover_job(dir, p.v[i].id, &r);
			if (found < 0) {
				fprintf(stderr, "llmb cancel: %s: a submission was interrupted and the scheduler cannot be "
					"asked whether it went through; nothing cancelled (try again when squeue works)\n",
					p.v[i].id);
				rc = 1;
			} else if (found) {
				snprintf(r.state, sizeof r.state, "submitted");
				jobrec_write_dir(dir, &r);
			}
		}
		if (*r.job && !strcmp(r.state, "submitted") && executor_find(r.executor)) {
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
		close(lock);
		free(dir);
	}
	printf("%d job(s) cancelled\n", n);
	free(only);
	plan_free(&p);
	return rc;
}
