/* stagerun: one make target = one stage instance. `llmb run ID` submits the
 * stage's job or reattaches to the one already submitted for the same
 * configuration, waits, decides whether it finished (scheduler state, the
 * job's exit record, and for training the log), and only then writes the
 * stamp make looks at. The job record is written atomically under a lock
 * before and right after submission, so a make killed at any instant and
 * a new make never submit the same configuration twice.
 *
 * Install tree state, per stage:  state/jobs/<id>/{lock,record,job.<token>.sh,
 * started.<token>,exit.<jobid>,<jobid>.out}  and the stamp state/done/<id>.
 * No file format is this module's: the job record, its lock and the job's
 * own files are jobrecord.c's, the stamp, the identity and train.done
 * instance.c's; parse and report run in this process (inproc.c); status
 * and cancel only read (stagestatus.c). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/util.h"
#include "exec/executor.h"
#include "exec/feasible.h"
#include "exec/nodelost.h"
#include "exec/preflight.h"
#include "exec/slurm.h"
#include "exec/slurmpend.h"
#include "exec/slurmqueue.h"
#include "plan/stale.h"
#include "results/logparse.h"
#include "results/provenance.h"
#include "run/dependents.h"
#include "run/inproc.h"
#include "run/jobscript.h"
#include "run/recover.h"
#include "store/instance.h"
#include "store/jobnote.h"
#include "store/jobrecord.h"
#include "store/layout.h"
#include "store/outputs.h"
#include "store/stagecfg.h"
#include "store/stagekind.h"

/* PENDING_LIMIT and LLMB_PENDING_GRACE (README): how long a job may wait
 * in the queue. */
struct pendpol {
	long limit;                 /* seconds pending, whatever the reason; 0: none */
	int infinite;               /* PENDING_LIMIT=infinite: never give up */
	long grace;                 /* how long a reason that cannot clear must hold */
};

struct ctx {
	char top[PATH_MAX], install[PATH_MAX];
	struct pendpol pend;
	const char *gen;
	const struct executor *ex;
	int async;
	const char *progress;       /* "3/9" */
	const char *id;
	char *cfg;                  /* its configuration's text (the hash's) */
	struct stagecfg rec;        /* and its record */
	char hash[65];
	const char *label, *kind;
	char *state;                /* state/jobs/<id> */
	int lockfd;
	long start;                 /* when this process started */
	long gpus_env;              /* SBATCH_GPUS_PER_NODE; -1: unset */
	long max_requeues, preempt_wait, node_lost_wait; /* README: LLMB_MAX_REQUEUES, ... */
};

static volatile sig_atomic_t interrupted;

static void
on_signal(int sig)
{
	interrupted = sig;
}

/* The training's fields; NULL for another kind of stage. */
static const struct pc_train *
train_of(const struct ctx *c)
{
	return c->rec.kind == PC_TRAIN && c->rec.bound ? &c->rec.u.train : NULL;
}

static const char *
run_of(const struct ctx *c)
{
	return c->rec.run ? c->rec.run : "";
}

/* ---- the job record (jobrecord.h), under the stage lock ---------------------- */

static int
record_read(struct ctx *c, struct jobrec *r)
{
	return jobrec_read_dir(c->state, r);
}

static void
record_write(struct ctx *c, const struct jobrec *r)
{
	jobrec_write_dir(c->state, r);
}

static void
lock_stage(struct ctx *c)
{
	c->lockfd = jobrec_lock_dir(c->state);
}

static void
unlock_stage(struct ctx *c)
{
	if (c->lockfd >= 0)
		close(c->lockfd);
	c->lockfd = -1;
}

/* Sets the state of r's job under the stage lock, unless the record has
 * moved on to another job meanwhile (another make resubmitted): a verdict
 * about an old job never overwrites the record of a new one. */
static int
record_set_state(struct ctx *c, struct jobrec *r, const char *state)
{
	struct jobrec cur;
	lock_stage(c);
	int same = record_read(c, &cur) == 0 && !strcmp(cur.job, r->job) && !strcmp(cur.token, r->token);
	snprintf(r->state, sizeof r->state, "%s", state);
	if (same)
		record_write(c, r);
	unlock_stage(c);
	return same ? 0 : -1;
}

/* ---- outcomes ---------------------------------------------------------------- */

static void
print_tail(const char *path, int lines)
{
	size_t len;
	char *s = read_file(path, &len);
	if (!s) {
		fprintf(stderr, "    (no log at %s)\n", path);
		return;
	}
	size_t i = len;
	int n = 0;
	while (i > 0 && n <= lines)
		if (s[--i] == '\n' && i + 1 < len)
			n++;
	if (n > lines)
		i++;
	fprintf(stderr, "    last lines of %s:\n", path);
	for (char *line = s + i; *line;) {
		size_t l = strcspn(line, "\n");
		fprintf(stderr, "    | %.*s\n", (int)(l > 200 ? 200 : l), line);
		line += l + (line[l] == '\n');
	}
	free(s);
}

/* What the job made is whole (train.done is written by llmb itself after). */
static int
outputs_ok(struct ctx *c, struct sb *why)
{
	return stage_outputs_ok(c->install, &c->rec, "/" LAYOUT_TRAIN_DONE, why);
}

/* The staleness predicate (stale.h) says this stage is done. */
static int
stage_done(struct ctx *c)
{
	struct stage_query q = {.install = c->install, .id = c->id, .hash = c->hash, .cfg = &c->rec};
	return stage_staleness(&q, NULL) == STAGE_DONE;
}

/* The identity first: a stamp never stands without it. The identity, new
 * or not, takes its stamp's time (instance.h); dependents that recorded it
 * level themselves (stale.h). */
static void
write_stamp(struct ctx *c, const char *job, const char *note)
{
	if (identity_write(c->install, c->id, &c->rec) < 0 ||
	    stamp_write(c->install, c->id, c->hash, &c->rec, job, note) < 0) {
		int e = errno;
		die("cannot write stamp %s: %s", layout_done(c->install, c->id), strerror(e));
	}
}

/* provenance.json beside train.done: what the run ran on (provenance.c). */
static void
write_provenance(struct ctx *c, const struct jobrec *r, const struct jobinfo *ji)
{
	char *dir = layout_experiment(c->install, c->rec.workload, run_of(c));
	struct prov_src s = {.top = c->top, .install = c->install, .gen = c->gen, .run_dir = dir, .cfg = &c->rec,
			     .cfg_hash = c->hash, .state_dir = c->state, .token = r->token, .job = r->job,
			     .executor = r->executor, .submitted = r->submitted,
			     .restarts = ji->restarts};
	provenance_write(&s);
	free(dir);
}

/* Writes the run's record next to its log for parse and report. */
static void
write_train_done(struct ctx *c, const struct jobrec *r, const char *log, const char *note)
{
	const struct pc_train *t = train_of(c);
	char *dir = layout_experiment(c->install, c->rec.workload, run_of(c));
	struct runrec rr = {.job = r->job, .log = log, .cfg = c->hash, .executor = r->executor,
			    .image = t && t->image ? t->image : "none", .note = note};
	if (runrec_write(dir, &rr) < 0) {
		int e = errno;
		die("cannot write %s: %s", runrec_path(dir), strerror(e));
	}
	free(dir);
}

static const char *
fmt_elapsed(long s, char *buf, size_t len)
{
	if (s < 0)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%02ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	return buf;
}

/* ---- submit, wait, decide ------------------------------------------------------ */

/* afterok:<ids> of upstream jobs that have not finished (ASYNC mode): an
 * upstream stage without its stamp for the configuration this one was
 * generated from (a stamp of an older one does not count). */
static char *
upstream_dependency(struct ctx *c)
{
	struct sb dep = {0};
	for (size_t i = 0; i < c->rec.nafter; i++) {
		const struct sc_after *a = &c->rec.after[i];
		struct jobrec r;
		if (!stage_stamped(c->install, a->id, a->hash) && jobrec_read(c->install, a->id, &r) == 0 && *r.job)
			sb_addf(&dep, "%s%s", dep.len ? ":" : "afterok:", r.job);
	}
	return dep.len ? sb_steal(&dep) : NULL;
}

/* PREFLIGHT=exclude: a training job of the stage leaves out the nodes that
 * failed an earlier job's pre-flight (Slurm only). Takes extra. */
static char *
exclude_failed_nodes(struct ctx *c, char *extra)
{
	if (stagecfg_preflight(&c->rec) != PF_EXCLUDE || strcmp(c->ex->name, "slurm"))
		return extra;
	struct sb nodes = {0}, err = {0};
	char *merged = preflight_exclude(c->state, extra, &nodes, &err);
	if (merged) {
		printf("[%s] %s: leaving out %s (failed pre-flight)\n", c->progress, c->label, nodes.buf);
		free(extra);
		extra = merged;
	} else if (err.len) {
		fprintf(stderr, "llmb: [%s] %s: cannot leave out %s: %s\n", c->progress, c->label,
			nodes.buf ? nodes.buf : "", err.buf);
	}
	sb_free(&nodes);
	sb_free(&err);
	return extra;
}

struct submitted {
	struct ctx *c;
	struct jobrec *r;
	const char *dep;
};

/* The executor knows the job's id (jobspec's on_id): recorded before the
 * job goes on where the executor can hold it. */
static void
record_job(void *arg, const char *id)
{
	struct submitted *s = arg;
	/* Test hook: die like a SIGKILL between submission and the record
	 * update, so tests can prove the next run finds the job by its name
	 * (Slurm), or that it never ran (local). */
	if (getenv("LLMB_TEST_DIE_AFTER_SUBMIT") && *getenv("LLMB_TEST_DIE_AFTER_SUBMIT"))
		_exit(137);
	snprintf(s->r->job, sizeof s->r->job, "%s", id);
	snprintf(s->r->after, sizeof s->r->after, "%s", s->dep ? s->dep + 8 : "");
	snprintf(s->r->state, sizeof s->r->state, "submitted");
	record_write(s->c, s->r);
}

static int
submit(struct ctx *c, struct jobrec *r, int attempt)
{
	char token[40];
	jobrec_new_token(token);
	struct jobctx jc = {c->top, c->gen, c->install, &c->rec, token, c->state, 0};
	struct sb script = {0}, err = {0};
	/* Upstream's --segment where this cluster's sbatch knows it; an older
	 * Slurm (no topology/block, no --segment) runs the job without it,
	 * and the run's note says so. */
	const struct pc_train *t = train_of(c);
	char *seg_note = NULL;
	if (t && t->segment && !strcmp(c->ex->name, "slurm") && slurm_sbatch_knows("segment") == 0) {
		jc.no_segment = 1;
		seg_note = xasprintf("submitted without --segment=%ld: this cluster's sbatch has no --segment (Slurm "
				     "before 23.11), so the nodes are not kept in blocks of one rack", t->segment);
		printf("[%s] %s: note: %s\n", c->progress, c->label, seg_note);
	}
	if (jobscript_render(&jc, &script, &err)) {
		fprintf(stderr, "llmb run: error: %s: %s\n", c->id, err.buf);
		free(seg_note);
		sb_free(&script);
		sb_free(&err);
		return -1;
	}
	char *spath = layout_job_script(c->state, token);
	if (write_file_atomic(spath, script.buf, script.len) < 0)
		die("cannot write %s: %s", spath, strerror(errno));
	char run[256], buf[64];
	char *logpat;
	int training = stage_kind_is(c->kind, SK_TRAINING);
	if (c->rec.run && training) {
		const char *w = c->rec.workload;
		snprintf(run, sizeof run, "%s", c->rec.run);
		char *dir = layout_experiment(c->install, w, run);
		mkdir_p(dir, 0);
		/* a night's run lives in <run>/night-<NIGHT>: one file name */
		for (char *q = run; *q; q++)
			if (*q == '/')
				*q = '_';
		logpat = layout_log_pattern(dir, w, run);
		free(dir);
	} else {
		logpat = layout_job_output(c->state);
	}
	/* Recorded before sbatch: a crash from here on leaves a token that
	 * identifies the job (its name and its started marker). */
	memset(r, 0, sizeof *r);
	memcpy(r->cfg, c->hash, sizeof r->cfg);
	snprintf(r->token, sizeof r->token, "%s", token);
	snprintf(r->log, sizeof r->log, "%s", logpat);
	snprintf(r->executor, sizeof r->executor, "%s", c->ex->name);
	snprintf(r->state, sizeof r->state, "submitting");
	r->attempt = attempt;
	r->submitted = (long)time(NULL);
	record_write(c, r);
	/* From now on the stage is not done: a stamp left by an earlier job
	 * must not vouch for outputs this job is rewriting. */
	stamp_remove(c->install, c->id);
	char *jobname = jobrec_job_name(c->id, token);
	const struct pc_cmd *cmd = stagecfg_cmd(&c->rec);
	size_t nsec = cmd ? cmd->nsecrets : 0;
	const char **secrets = xcalloc(nsec + 1, sizeof *secrets);
	for (size_t i = 0; i < nsec; i++)
		secrets[i] = cmd->secrets[i];
	long nodes = t ? t->nodes : 1, tpn = t ? t->tasks_per_node : 1, gpn = t ? t->gpus_per_node : 0;
	const struct pc_data *data = c->rec.kind == PC_DATA ? &c->rec.u.data : NULL;
	char *dep = c->async ? upstream_dependency(c) : NULL;
	char wd[PATH_MAX];
	snprintf(wd, sizeof wd, "%s", c->install);
	int cpu_only = !training && !(data && data->gpus);
	/* What gen recorded, not the environment of this process: the job
	 * gets the parameters its configuration (and identity) says. */
	const char *knob = training ? stagecfg_knob(&c->rec, "ADDITIONAL_SLURM_PARAMS") : NULL;
	char *extra = knob ? xstrdup(knob) : NULL;
	if (training)
		extra = exclude_failed_nodes(c, extra);
	struct jobspec js = {
		.stage = c->id, .script = spath, .log = logpat, .workdir = wd, .job_name = jobname,
		.nodes = (int)nodes, .ntasks_per_node = (int)tpn,
		/* A setup task on the GPU partition needs one GPU, as upstream's
		 * one-node one-GPU download job; training takes whole nodes. */
		.gpus_per_node = cpu_only ? 0 : !training ? 1
			       : c->gpus_env >= 0 ? (int)c->gpus_env : (int)gpn,
		.cpu_only = cpu_only, .exclusive = training && gpn > 0,
		.time_limit = t ? t->time_limit : data ? data->time_limit : NULL, .dependency = dep,
		.extra = extra,
		.env_pass = (const char *const *)secrets,
	};
	struct submitted sub = {c, r, dep};
	js.on_id = record_job;
	js.on_id_arg = &sub;
	char id[64];
	int rc = c->ex->submit(&js, id, sizeof id, &err);
	if (rc == 0) {
		if (seg_note && jobnote_submit(c->state, id, seg_note) < 0)
			fprintf(stderr, "llmb run: warning: %s: cannot write the submission note: %s\n", c->id, strerror(errno));
		char *lp = jobrec_log_path(logpat, id);
		printf("[%s] %s: submitted job %s (%s), log %s%s%s\n", c->progress, c->label, id, c->ex->name, lp,
		       dep ? ", after " : "", dep ? dep + 8 : "");
		free(lp);
	} else {
		snprintf(r->state, sizeof r->state, "submit-failed");
		record_write(c, r);
		fprintf(stderr, "llmb run: error: %s: submission failed: %s\n", c->id, err.buf ? err.buf : "");
	}
	(void)buf;
	free(secrets);
	free(extra);
	free(dep);
	free(jobname);
	free(logpat);
	free(spath);
	free(seg_note);
	sb_free(&script);
	sb_free(&err);
	fflush(stdout);
	return rc;
}

/* A record that says "submitting" without a job id: the submitting process
 * died around sbatch. Returns -1 when whether its job exists cannot be
 * known (Slurm did not answer): then nothing may be submitted, or the job
 * could run twice. */
static int
recover_submission(struct ctx *c, struct jobrec *r)
{
	if (recover_job(c->state, c->id, r) < 0) {
		fprintf(stderr, "llmb: [%s] %s: a submission was interrupted and Slurm cannot be asked whether "
			"it went through; not submitting again (run make again when squeue works)\n",
			c->progress, c->label);
		return -1;
	}
	if (*r->job) {
		snprintf(r->state, sizeof r->state, "submitted");
		record_write(c, r);
		printf("[%s] %s: found job %s of an interrupted submission\n", c->progress, c->label, r->job);
	}
	return 0;
}

static int
in_list(struct ctx *c, enum jstate s)
{
	int hit = 0;
	for (size_t i = 0; c->rec.retry_count && i < c->rec.nretry_on; i++)
		hit |= jstate_parse(c->rec.retry_on[i]) == s;
	return hit;
}

/* The stage's retry policy covers a job that ended in state s. A job llmb
 * gave up on after too many requeues was requeued for node failures or
 * preemptions: the policy for those covers it. */
static int
in_retry_list(struct ctx *c, enum jstate s)
{
	if (s == J_REQUEUED)
		return in_list(c, J_REQUEUED) || in_list(c, J_NODE_FAIL) || in_list(c, J_PREEMPTED);
	return in_list(c, s);
}

enum outcome { O_DONE, O_FAILED, O_RETRY, O_WAITING };

/* What a person can do about a job that ended in state s. */
static const char *
hint(enum jstate s)
{
	switch (s) {
	case J_FAILED: return "the job's command failed; see the log";
	case J_TIMEOUT: return "the job ran into its time limit before training finished: raise TIME_LIMIT or lower MAX_STEPS";
	case J_CANCELLED: return "the job was cancelled; run make again to submit it again";
	case J_NODE_FAIL: return "a node of the job failed; run make again (the stage's retry policy may do so itself)";
	case J_OOM: return "the job ran out of memory: ask for more with ADDITIONAL_SLURM_PARAMS=mem=... "
		"(mem=0: all of each node's), or run the model on more GPUs";
	case J_PREEMPTED: return "the job was preempted and not requeued; run make again (the stage's retry policy may do so itself)";
	case J_REQUEUED: return "the job was requeued over and over (node failures or preemption): check the nodes "
		"(sinfo -R); raise LLMB_MAX_REQUEUES to wait longer";
	case J_BOOT_FAIL: return "a node of the job failed to boot; run make again";
	case J_DEADLINE: return "the job missed its deadline";
	case J_PREFLIGHT: return "a node failed its pre-flight checks, and the job stopped before training: fix or drain "
		"the node, or let the stage's retry run without it (PREFLIGHT=exclude)";
	case J_VANISHED: return "the scheduler no longer knows the job (purged, and no accounting remembers it) "
		"and it left no exit record; run make again to submit it again";
	case J_COMPLETED: return "the job completed but its outputs are not all there";
	case J_PENDING: return "the job could not start and llmb cancelled it: ask the cluster's operator (sinfo -R; "
		"scontrol show partition), or change the request (SBATCH_PARTITION, TIME_LIMIT, ADDITIONAL_SLURM_PARAMS); "
		"PENDING_LIMIT=infinite waits for ever; run make again to submit it again";
	default: return "";
	}
}

/* The log shows Slurm's cgroup out-of-memory kill. Slurm 22.05 says
 * OUT_OF_MEMORY only when the batch step itself is killed; a training step
 * (srun) killed for memory leaves the job FAILED with exit code 1. */
static int
log_shows_oom(const char *log)
{
	char *s = read_file(log, NULL);
	int hit = s && (strstr(s, "oom-kill event") || strstr(s, ": Out Of Memory"));
	free(s);
	return hit;
}

/* Decides from the three signals: scheduler state, exit record, log. */
static enum outcome
decide(struct ctx *c, struct jobrec *r, struct jobinfo *ji)
{
	char *log = jobrec_log_path(r->log, r->job);
	int st = jobrec_exit_status(c->state, r->job);
	enum jstate s = ji->state;
	const char *note = NULL;
	const struct pc_train *t = train_of(c);
	int ok = 0;
	if (s == J_VANISHED)
		s = st == 0 ? J_COMPLETED : st > 0 ? J_FAILED : J_VANISHED;
	if (s == J_COMPLETED)
		ok = st == 0 || (st < 0 && ji->exit_code == 0);
	if (s == J_FAILED && log_shows_oom(log)) {
		s = J_OOM;
		snprintf(ji->reason, sizeof ji->reason, "a step was killed for memory (Slurm says FAILED)");
	}
	/* A node lost between two steps: Slurm says FAILED, the policy for
	 * NODE_FAIL covers it. */
	if (s == J_FAILED && !strcmp(c->ex->name, "slurm") &&
	    nodelost_check(r->job, log, c->node_lost_wait, ji->reason, sizeof ji->reason))
		s = J_NODE_FAIL;
	struct sb pf_nodes = {0};
	if (s == J_FAILED && preflight_failed(c->state, r->job, ji->reason, sizeof ji->reason, &pf_nodes))
		s = J_PREFLIGHT;
	int training = stage_kind_is(c->kind, SK_TRAINING);
	/* Upstream's known issue 2: a run that reached its last step (so its
	 * measurement window, which gen keeps within the steps, is complete)
	 * and then failed in cleanup is a success, with a note saying how it
	 * ended. A run that stopped before its last step stays failed; a node
	 * lost (NODE_FAIL) is left to the stage's retry policy. */
	char failnote[160];
	if (training && !ok &&
	    (s == J_TIMEOUT || s == J_CANCELLED || s == J_COMPLETED || s == J_FAILED || s == J_OOM) &&
	    lp_reached_final(log, t ? (long)t->steps : LAYOUT_STEPS_DEFAULT)) {
		ok = 1;
		int code = st > 0 ? st : ji->exit_code;
		if (s == J_TIMEOUT || s == J_CANCELLED || s == J_COMPLETED) {
			note = s == J_TIMEOUT ? "completed, then killed at the time limit" : "completed, then cancelled";
		} else {
			int n = snprintf(failnote, sizeof failnote, "completed every step, then ended %s", jstate_name(s));
			if (code >= 0 && n > 0 && (size_t)n < sizeof failnote)
				n += snprintf(failnote + n, sizeof failnote - (size_t)n, " (exit code %d", code);
			else if (n > 0 && (size_t)n < sizeof failnote)
				n += snprintf(failnote + n, sizeof failnote - (size_t)n, " (exit code unknown");
			if (n > 0 && (size_t)n < sizeof failnote)
				snprintf(failnote + n, sizeof failnote - (size_t)n, ji->signal > 0 ? ", signal %d)" : ")",
					 ji->signal);
			note = failnote;
		}
	}
	struct sb why = {0};
	if (ok && !outputs_ok(c, &why))
		ok = 0;
	if (ok) {
		char *jn = jobnote_read(c->state, r->job), *all = jobnote_join(note, jn);
		if (training) {
			write_train_done(c, r, log, all);
			write_provenance(c, r, ji);
			/* the nodes a failed pre-flight left out may be mended by the next run */
			preflight_exclude_forget(c->state);
		}
		write_stamp(c, r->job, all);
		record_set_state(c, r, "done");
		printf("[%s] %s: done (job %s%s%s)\n", c->progress, c->label, r->job, all ? ", " : "", all ? all : "");
		fflush(stdout);
		free(jn);
		free(all);
		free(log);
		sb_free(&why);
		sb_free(&pf_nodes);
		return O_DONE;
	}
	char el[32], buf[16];
	fprintf(stderr, "llmb: [%s] %s FAILED\n    job %s (%s), state %s%s%s, exit code %s, elapsed %s\n    %s\n    log %s\n",
		c->progress, c->label, r->job, r->executor, jstate_name(s), *ji->reason ? ", " : "", ji->reason,
		st >= 0 ? (snprintf(buf, sizeof buf, "%d", st), buf) : ji->exit_code >= 0 ? (snprintf(buf, sizeof buf, "%d", ji->exit_code), buf) : "unknown",
		fmt_elapsed(ji->elapsed, el, sizeof el), hint(s), log);
	if (why.len)
		fprintf(stderr, "    %s\n", why.buf);
	print_tail(log, 10);
	int mine = record_set_state(c, r, "failed") == 0;
	sb_free(&why);
	free(log);
	if (mine)
		cancel_dependents_of(c->install, r->job);
	int retries = c->rec.retry_count ? atoi(c->rec.retry_count) : 0;
	int retry = in_retry_list(c, s);
	if (s == J_PREFLIGHT && stagecfg_preflight(&c->rec) == PF_EXCLUDE) {
		/* counted like a NODE_FAIL retry: the stage's retry count */
		if (strcmp(c->ex->name, "slurm"))
			fprintf(stderr, "    not retried: only Slurm can run the job without the node\n");
		else if (r->attempt > retries)
			fprintf(stderr, "    not retried: the stage's retries (%d) are spent\n", retries);
		else if (!pf_nodes.len || preflight_exclude_add(c->state, pf_nodes.buf) < 0)
			fprintf(stderr, "    not retried: cannot record the nodes to leave out\n");
		else
			retry = 1;
	}
	sb_free(&pf_nodes);
	if (retry && r->attempt <= retries) {
		fprintf(stderr, "    retrying (attempt %d of %d): the stage's retry policy covers %s\n",
			r->attempt + 1, retries + 1, jstate_name(s));
		return O_RETRY;
	}
	return O_FAILED;
}

/* Tenths of a second between two looks at the job: LLMB_POLL_SECONDS,
 * else 1 s for a local job, 10 s for a scheduler's. */
static long
poll_tenths(struct ctx *c)
{
	double d = poll_seconds_env();
	return d > 0 ? lround(d * 10) : strcmp(c->ex->name, "local") ? 100 : 10;
}

/* A pending job whose reason depends on the nodes or a group's jobs is
 * looked at again (scontrol per job; the node states are shared) this
 * often while blocked, and this seldom while it is not. */
#define PEND_RECHECK_BLOCKED_S 30
#define PEND_RECHECK_S 300

struct pendwatch {
	long since;                 /* pending since (submission, or the last requeue) */
	long blocked_since;         /* 0: not blocked */
	long checked;
	char reason[512];           /* the reason last checked */
	struct sb why;              /* why it is blocked */
};

/* The pending policy (PENDING_LIMIT): a job whose reason cannot clear
 * without an operator, for the grace period, or pending over the limit, is
 * cancelled while still pending. Returns 1 when it was: ji then says why,
 * and pending.<job> keeps it for llmb nightly. */
static int
watch_pending(struct ctx *c, const char *cache, struct jobrec *r, struct jobinfo *ji, struct pendwatch *w, long now)
{
	if (ji->state != J_PENDING || !c->ex->blocked) {
		w->blocked_since = 0;
		w->reason[0] = 0;
		return 0;
	}
	/* waiting for its own upstream jobs (ASYNC's afterok) is not waiting
	 * in the queue: PENDING_LIMIT counts from when that ends */
	if (!strncmp(ji->reason, "Dependency", 10) && !ji->reason[10])
		w->since = now;
	if (strcmp(w->reason, ji->reason) || now - w->checked >= (w->blocked_since ? PEND_RECHECK_BLOCKED_S : PEND_RECHECK_S) ||
	    (w->blocked_since && now - w->blocked_since >= c->pend.grace)) {
		struct sb why = {0};
		int b = c->ex->blocked(cache, ji, &why);
		w->checked = now;
		snprintf(w->reason, sizeof w->reason, "%s", ji->reason);
		if (b == 1) {
			sb_reset(&w->why);
			sb_add(&w->why, why.buf ? why.buf : "");
		}
		if (b == 1 && !w->blocked_since) {
			w->blocked_since = now;
			char act[96];
			if (c->pend.infinite)
				snprintf(act, sizeof act, "waiting for an operator (PENDING_LIMIT=infinite)");
			else
				snprintf(act, sizeof act, "cancelling it in %ld s unless that changes (PENDING_LIMIT)", c->pend.grace);
			printf("[%s] %s: job %s cannot start without an operator: %s: %s; expected start %s; %s\n", c->progress,
			       c->label, r->job, ji->reason, w->why.buf ? w->why.buf : "", *ji->start ? ji->start : "unknown", act);
			fflush(stdout);
		} else if (b == 0 && w->blocked_since) {
			w->blocked_since = 0;
			printf("[%s] %s: job %s may start now: what kept it from starting has cleared\n", c->progress, c->label,
			       r->job);
			fflush(stdout);
		}
		sb_free(&why);
	}
	int stuck = !c->pend.infinite && w->blocked_since && now - w->blocked_since >= c->pend.grace;
	int over = !c->pend.infinite && c->pend.limit > 0 && now - w->since >= c->pend.limit;
	if (!stuck && !over)
		return 0;
	struct sb err = {0};
	int rc = c->ex->cancel_pending ? c->ex->cancel_pending(r->job, &err) : c->ex->cancel(r->job, &err);
	if (rc != 0) {
		if (rc < 0)
			fprintf(stderr, "llmb: [%s] %s: cannot cancel job %s: %s\n", c->progress, c->label, r->job, err.buf);
		sb_free(&err);
		return 0; /* it started meanwhile, or the next poll tries again */
	}
	sb_free(&err);
	struct sb what = {0};
	if (stuck)
		sb_addf(&what, "%s: %s; cancelled by llmb after %ld s pending (%ld s blocked)", ji->reason, w->why.buf ? w->why.buf : "",
			now - w->since, now - w->blocked_since);
	else
		sb_addf(&what, "%s; pending over PENDING_LIMIT=%ld s, cancelled by llmb", ji->reason, c->pend.limit);
	size_t n = what.len < sizeof ji->reason ? what.len : sizeof ji->reason - 1;
	memcpy(ji->reason, what.buf, n);
	ji->reason[n] = 0;
	sb_free(&what);
	fprintf(stderr, "llmb: [%s] %s: job %s could not start: cancelled\n", c->progress, c->label, r->job);
	char *path = layout_job_pending(c->state, r->job), *line = xasprintf("%s\n", ji->reason);
	if (write_file_atomic(path, line, strlen(line)) < 0)
		warn("cannot write %s: %s", path, strerror(errno));
	free(path);
	free(line);
	return 1;
}

static enum outcome
wait_job(struct ctx *c, struct jobrec *r)
{
	enum jstate last = (enum jstate)-1;
	char *cache = layout_executor_state(c->install);
	/* Requeues are Slurm's business, but bounded: a job requeued over and
	 * over (node failures, preemption), or held after a requeue, is
	 * cancelled and the retry policy decides. */
	long max_requeues = c->max_requeues, hold_wait = c->preempt_wait;
	int requeues = 0;
	long held_since = 0, unknown_since = 0;
	struct pendwatch pw = {.since = r->submitted};
	int last_kind = -1;
	mkdir_p(cache, 0);
	for (;;) {
		struct jobinfo ji;
		memset(&ji, 0, sizeof ji);
		snprintf(ji.id, sizeof ji.id, "%s", r->job);
		ji.exit_code = -1;
		ji.elapsed = -1;
		c->ex->query(cache, &ji, 1);
		long now = (long)time(NULL);
		if (ji.state == J_PENDING && strstr(ji.reason, "DependencyNeverSatisfied")) {
			struct sb err = {0};
			c->ex->cancel(r->job, &err);
			fprintf(stderr, "llmb: [%s] %s: job %s can never start (an upstream job failed): cancelled\n"
				"    run make again once the upstream stage succeeds\n", c->progress, c->label, r->job);
			sb_free(&err);
			if (record_set_state(c, r, "failed") == 0)
				cancel_dependents_of(c->install, r->job);
			free(cache);
			sb_free(&pw.why);
			return O_FAILED;
		}
		/* Slurm shows a requeued job PENDING again and counts its
		 * restarts; a REQUEUE_* state counts where nothing else does. */
		int seen = ji.restarts;
		if (ji.state == J_REQUEUED && last != J_REQUEUED && seen <= requeues)
			seen = requeues + 1;
		if (seen > requeues) {
			requeues = seen;
			printf("[%s] %s: job %s was requeued by the scheduler (%d time(s), at most %ld); waiting for it "
			       "to run again\n", c->progress, c->label, r->job, requeues, max_requeues);
			fflush(stdout);
			last = (enum jstate)-1;
			pw.since = now;
		}
		held_since = ji.state == J_REQUEUED ? (held_since ? held_since : now) : 0;
		if (requeues > max_requeues || (held_since && now - held_since > hold_wait)) {
			struct sb err = {0};
			c->ex->cancel(r->job, &err);
			sb_free(&err);
			fprintf(stderr, "llmb: [%s] %s: job %s was requeued %d time(s)%s: cancelled\n", c->progress,
				c->label, r->job, requeues, requeues > max_requeues ? ", more than LLMB_MAX_REQUEUES"
				: " and stays held");
			ji.state = J_REQUEUED;
			snprintf(ji.reason, sizeof ji.reason, "requeued %d time(s), cancelled by llmb", requeues);
			free(cache);
			sb_free(&pw.why);
			return decide(c, r, &ji);
		}
		if (jstate_terminal(ji.state)) {
			free(cache);
			sb_free(&pw.why);
			return decide(c, r, &ji);
		}
		/* a pending job's line again when its reason turns to another kind */
		int kind = ji.state == J_PENDING && !strcmp(c->ex->name, "slurm") ? (int)slurm_pend_kind(ji.reason) : -1;
		if (kind != last_kind && last == J_PENDING && ji.state == J_PENDING)
			last = (enum jstate)-1;
		last_kind = kind;
		unknown_since = ji.state == J_UNKNOWN ? (unknown_since ? unknown_since : now) : 0;
		if (ji.state != last) {
			char el[32];
			char *log = jobrec_log_path(r->log, r->job);
			long e = ji.elapsed >= 0 ? ji.elapsed : now - r->submitted;
			if (ji.state == J_UNKNOWN)
				printf("[%s] %s: submitted, not yet reported by the scheduler, job %s, log %s\n",
				       c->progress, c->label, r->job, log);
			else if (ji.state == J_PENDING)
				printf("[%s] %s: %s %s%s%s, expected start %s, job %s, log %s\n", c->progress, c->label,
				       jstate_name(ji.state), fmt_elapsed(now - pw.since, el, sizeof el), *ji.reason ? ", " : "",
				       ji.reason, *ji.start ? ji.start : "unknown", r->job, log);
			else
				printf("[%s] %s: %s %s%s%s, job %s, log %s\n", c->progress, c->label, jstate_name(ji.state),
				       fmt_elapsed(e, el, sizeof el), *ji.reason ? ", " : "", ji.reason, r->job, log);
			fflush(stdout);
			free(log);
			last = ji.state;
		}
		if (watch_pending(c, cache, r, &ji, &pw, now)) {
			free(cache);
			sb_free(&pw.why);
			return decide(c, r, &ji);
		}
		if (unknown_since && now - unknown_since == 300)
			fprintf(stderr, "llmb: [%s] %s: no answer about job %s for 5 minutes; still waiting\n",
				c->progress, c->label, r->job);
		if (c->async) {
			free(cache);
			sb_free(&pw.why);
			return O_WAITING;
		}
		for (long t = poll_tenths(c); t > 0 && !interrupted; t--)
			nanosleep(&(struct timespec){0, 100000000}, NULL);
		if (interrupted) {
			fprintf(stderr, "llmb: interrupted: job %s (%s) keeps running; run the same make command again to "
				"reattach, or `make cancel` with the same variables to cancel it\n", r->job, c->label);
			free(cache);
			sb_free(&pw.why);
			exit(130);
		}
	}
}

/* The stamp says this configuration is done, and it was written after this
 * process started: another make finished the stage meanwhile. */
static int
done_meanwhile(struct ctx *c)
{
	struct timespec t;
	return stamp_mtime(c->install, c->id, &t) == 0 && t.tv_sec >= c->start && stage_done(c);
}

/* Under the stage lock: attach to the job owed a verdict, or submit. The
 * lock makes two llmb processes for one stage (two makes at once) agree on
 * one job. failed_job: the job this process just saw fail with a retry
 * allowed ("" for the first round). Returns 1 when there is nothing to wait
 * for (done meanwhile), -1 on failure. */
static int
attach_or_submit(struct ctx *c, struct jobrec *r, const char *failed_job)
{
	lock_stage(c);
	int have = record_read(c, r) == 0 && !strcmp(r->cfg, c->hash) && *r->executor;
	if (have) {
		const struct executor *rex = executor_find(r->executor);
		if (rex)
			c->ex = rex; /* a job is watched by the executor that ran it */
		if (!*r->job && *r->token && recover_submission(c, r) < 0) {
			unlock_stage(c);
			return -1;
		}
	}
	int ret = 0;
	/* Only a job still owed a verdict is attached to; a finished one
	 * ("done" or "failed") is history, and make asked for a new run. */
	if (have && *r->job && !strcmp(r->state, "submitted")) {
		printf("[%s] %s: attached to job %s\n", c->progress, c->label, r->job);
	} else if (have && !strcmp(r->state, "done") && done_meanwhile(c)) {
		printf("[%s] %s: done by another make meanwhile (job %s)\n", c->progress, c->label, r->job);
		ret = 1;
	} else if (*failed_job && have && strcmp(r->job, failed_job)) {
		/* another make already retried */
		printf("[%s] %s: attached to job %s\n", c->progress, c->label, r->job);
	} else {
		int attempt = 0;
		if (*failed_job)
			attempt = r->attempt;
		else if (have && !strcmp(r->state, "failed"))
			printf("[%s] %s: previous job %s failed; submitting again\n", c->progress, c->label, r->job);
		ret = submit(c, r, attempt + 1) ? -1 : 0;
	}
	unlock_stage(c);
	fflush(stdout);
	return ret;
}

static int
run_job(struct ctx *c)
{
	c->state = layout_jobs(c->install, c->id);
	mkdir_p(c->state, 0);
	struct jobrec r;
	char failed[64] = "";
	for (;;) {
		int rc = attach_or_submit(c, &r, failed);
		if (rc)
			return rc < 0;
		/* async: a job just submitted is reported by the summary */
		if (c->async && !strcmp(r.state, "submitted") && r.submitted >= c->start)
			return 0;
		enum outcome o = wait_job(c, &r);
		if (o != O_RETRY)
			return o == O_FAILED;
		snprintf(failed, sizeof failed, "%s", r.job);
	}
}

/* Parse and report run in this process (inproc.c); the stamp is written
 * here, as for a job. */
static int
run_inproc(struct ctx *c, int (*stage)(const struct inproc_stage *))
{
	struct inproc_stage s = {.top = c->top, .install = c->install, .id = c->id, .cfg = &c->rec,
		.progress = c->progress, .label = c->label, .async = c->async};
	int rc = stage(&s);
	if (rc == INPROC_DONE)
		write_stamp(c, NULL, NULL);
	return rc == INPROC_FAILED ? 1 : 0;
}

/* Upstream stages done before identities existed get theirs, so make
 * stops seeing them as changed. */
static void
upstream_identities(struct ctx *c)
{
	for (size_t i = 0; i < c->rec.nafter; i++) {
		const char *id = c->rec.after[i].id;
		char *cfgp = layout_cfg(c->gen, id);
		struct timespec t;
		struct stagecfg up;
		if (identity_mtime(c->install, id, &t) < 0 && stamp_mtime(c->install, id, &t) == 0 &&
		    file_exists(cfgp) && stagecfg_load(&up, cfgp) == 0) {
			identity_write(c->install, id, &up);
			stagecfg_free(&up);
		}
		free(cfgp);
	}
}

/* ---- commands ------------------------------------------------------------------ */

static void
common_paths(struct ctx *c, const char *top, const char *install)
{
	if (!realpath(top, c->top))
		die("%s: %s", top, strerror(errno));
	mkdir_p(install, 0);
	if (!realpath(install, c->install))
		die("%s: %s", install, strerror(errno));
}

/* v as a whole number from 0 to max; -1 when it is not one. */
static long
whole_number(const char *v, long max)
{
	char *end;
	long n = strtol(v, &end, 10);
	return *v >= '0' && *v <= '9' && !*end && n >= 0 && n <= max ? n : -1;
}

/* Seconds in name's value, a whole number up to a year; -1 when it is
 * not one. */
static long
env_seconds(const char *v)
{
	return whole_number(v, 366L * 86400);
}

/* *out = the whole number from 0 to max in the variable name, left as it
 * is when the variable is unset or empty; -1 after saying it is not one. */
static int
env_whole(const char *name, long *out, long max, const char *what)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 0;
	if ((*out = whole_number(v, max)) >= 0)
		return 0;
	fprintf(stderr, "llmb run: error: %s=%s: expected %s (a whole number from 0 to %ld)\n", name,
		has_control(v) ? "(a control character)" : v, what, max);
	return -1;
}

/* The numbers llmb run reads from the environment, read before anything
 * is created or submitted: one that is not a number is refused, never
 * taken for 0. */
static int
env_numbers(struct ctx *c)
{
	c->gpus_env = -1;
	c->max_requeues = 3;
	c->preempt_wait = 600;
	c->node_lost_wait = 60;
	if (poll_seconds_env() < 0) {
		const char *v = getenv("LLMB_POLL_SECONDS");
		fprintf(stderr, "llmb run: error: LLMB_POLL_SECONDS=%s: expected seconds (a number from 0.1 to 3600)\n",
			has_control(v) ? "(a control character)" : v);
		return -1;
	}
	return env_whole("SBATCH_GPUS_PER_NODE", &c->gpus_env, 1024, "GPUs per node, 0 to leave out --gpus-per-node") |
	       env_whole("LLMB_MAX_REQUEUES", &c->max_requeues, 100000, "a number of requeues") |
	       env_whole("LLMB_PREEMPT_WAIT", &c->preempt_wait, 366L * 86400, "seconds") |
	       env_whole("LLMB_NODE_LOST_WAIT", &c->node_lost_wait, 366L * 86400, "seconds");
}

/* "K/N", the stage's place in the plan, as gen writes it. */
static int
is_progress(const char *s)
{
	size_t k = strspn(s, "0123456789");
	return k && s[k] == '/' && s[k + 1] && !s[k + 1 + strspn(s + k + 1, "0123456789")];
}

/* PENDING_LIMIT: unset (or auto), seconds, or infinite; LLMB_PENDING_GRACE:
 * seconds (default 300: a node rebooting, a partition toggled for an
 * update, an operator's moment, do not cost a job). */
static int
pending_policy(struct pendpol *p)
{
	const char *v = getenv("PENDING_LIMIT"), *g = getenv("LLMB_PENDING_GRACE");
	p->limit = 0;
	p->infinite = v && !strcmp(v, "infinite");
	p->grace = 300;
	if (v && *v && !p->infinite && strcmp(v, "auto") && (p->limit = env_seconds(v)) <= 0) {
		fprintf(stderr, "llmb run: error: PENDING_LIMIT=%s: expected a number of seconds (1 to a year), "
			"auto (the default) or infinite\n", has_control(v) ? "(a control character)" : v);
		return -1;
	}
	if (g && *g && (p->grace = env_seconds(g)) < 0) {
		fprintf(stderr, "llmb run: error: LLMB_PENDING_GRACE=%s: expected a number of seconds\n",
			has_control(g) ? "(a control character)" : g);
		return -1;
	}
	return 0;
}

int
cmd_run(int argc, char **argv)
{
	struct ctx c = {.gen = "build/gen", .lockfd = -1, .start = (long)time(NULL)};
	const char *top = ".", *install = layout_install_root(getenv(LAYOUT_INSTALL_VAR));
	static const struct option longopts[] = {
		{"async", no_argument, NULL, 'a'}, {"top", required_argument, NULL, 't'},
		{"gen", required_argument, NULL, 'g'}, {"install", required_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	static const char usage[] = "usage: llmb run [--top DIR] [--gen DIR] [--install DIR] [--async] [K/N] STAGE-ID\n";
	int i = 1, o;
	cliopt_start();
	while ((o = cliopt_next_word(argc, argv, longopts, &i)) != -1) {
		if (o == 'h')
			return fputs(usage, stdout), 0;
		if (o == 'a')
			c.async = 1;
		else
			*(o == 't' ? &top : o == 'g' ? &c.gen : &install) = optarg;
	}
	/* a stage id never starts with '-': an option not understood, refused
	 * before anything is created or submitted */
	int stop = cliopt_operands(argc, argv, longopts, usage, &i);
	if (stop >= 0)
		return stop;
	/* K/N is what gen writes before the id: anything else (a second
	 * stage id) is not taken for it */
	if (argc - i == 1) {
		c.progress = "-";
		c.id = argv[i];
	} else if (argc - i == 2 && is_progress(argv[i])) {
		c.progress = argv[i];
		c.id = argv[i + 1];
	} else {
		fputs(usage, stderr);
		return 2;
	}
	const char *as = getenv("ASYNC");
	if (as && *as && parse_bool(as) < 0) {
		fprintf(stderr, "llmb run: error: ASYNC=%s: expected %s\n", as, bool_spellings);
		return 2;
	}
	/* --async, or ASYNC true */
	if (as && *as && parse_bool(as) == 1)
		c.async = 1;
	if (pending_policy(&c.pend) < 0 || env_numbers(&c) < 0)
		return 2;
	common_paths(&c, top, install);
	char *path = layout_cfg(c.gen, c.id);
	size_t len;
	c.cfg = read_file(path, &len);
	if (!c.cfg)
		die("no configuration %s: %s", path, strerror(errno));
	if (stagecfg_parse(&c.rec, c.cfg, path))
		die("%s: not a stage configuration gen wrote", path);
	free(path);
	sha256_hex(c.cfg, len, c.hash);
	c.kind = pc_kind_names[c.rec.kind];
	c.label = c.rec.label;
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	int rc;
	/* Done by content though make saw it stale by time (the generated
	 * files were lost, an edit was reverted, an upstream stage ran again
	 * and made the same outputs): run nothing, and bring the times make
	 * compares level (stale.h), rewriting no byte. */
	if (!getenv("LLMB_FORCE") && stage_done(&c)) {
		upstream_identities(&c);
		identity_write(c.install, c.id, &c.rec);
		stage_level(c.install, c.id, c.hash, &c.rec);
		rc = 0;
	} else if (stage_kind_run(c.kind) == SK_RUN_PARSE) {
		rc = run_inproc(&c, inproc_parse);
	} else if (stage_kind_run(c.kind) == SK_RUN_REPORT) {
		rc = run_inproc(&c, inproc_report);
	} else {
		c.ex = executor_default();
		const char *no = stage_infeasible(&c.rec, c.ex);
		if (no) {
			fprintf(stderr, "llmb: [%s] %s: error: %s (executor local, %s); run on a Slurm cluster with EXECUTOR=slurm\n",
				c.progress, c.label, no, executor_why(c.ex));
			rc = 1;
		} else {
			/* On a cluster the import runs on a CPU node, which this
			 * host cannot see: said before submission, not refused. */
			if (c.ex == &slurm_executor && stage_kind_is(c.kind, SK_IMPORT) && !have_enroot())
				fprintf(stderr, "llmb: [%s] %s: warning: enroot is not installed on this host (not on PATH, no "
					"LLMB_ENROOT); the import job needs it on the CPU partition's nodes and stops at once, "
					"saying so, where they lack it too\n", c.progress, c.label);
			rc = run_job(&c);
		}
	}
	stagecfg_free(&c.rec);
	free(c.cfg);
	free(c.state);
	return rc;
}
