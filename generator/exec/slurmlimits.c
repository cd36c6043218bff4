/* slurmlimits: what the Slurm controller will take, so that a plan of
 * thousands of jobs is spread out instead of failing halfway.
 *
 * `scontrol show config` gives MaxJobCount (the jobs slurmctld holds,
 * finished ones included until MinJobAge has passed: sbatch is refused
 * beyond it), MaxArraySize, MinJobAge and the RPC rate limit of Slurm
 * 23.02 and later (SlurmctldParameters=rl_enable, rl_bucket_size,
 * rl_refill_rate, rl_refill_period); with accounting, `sacctmgr show
 * assoc` gives the user's MaxSubmitJobs (and GrpSubmitJobs). The answer is
 * cached in state/executor/slurm.limits for 10 minutes.
 *
 * Before each sbatch, slurm_limits_wait_room() waits until the queue has
 * room: the count of jobs the controller holds (all users) and of this
 * user's unfinished jobs comes from one squeue every 2 s at most, shared
 * by every llmb process of the install tree through state/executor/
 * slurm.room (under flock), and each submission counts itself in between
 * (longer than 2 s when squeue itself is slow).
 * A margin of 2% (at least 10 jobs) is left for others. */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/capture.h"
#include "exec/dryrun.h"
#include "exec/slurmlimits.h"
#include "store/layout.h"

#define CACHE_S 600
#define ROOM_QUERY_S 2
/* scontrol ping and show config answer in well under a second from a
 * live controller; a hung one must not hold up llmb gen. */
#define QUERY_S 5

static long
num_after(const char *text, const char *key)
{
	/* "Key   = value" lines of scontrol show config */
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, key, kl) || (p[kl] != ' ' && p[kl] != '='))
			continue;
		const char *v = strchr(p, '=');
		if (!v)
			return -1;
		v += strspn(v + 1, " ") + 1;
		char *end;
		long n = strtol(v, &end, 10);
		return end == v ? -1 : n;
	}
	return -1;
}

static long
param_num(const char *params, const char *key, long def)
{
	const char *p = params ? strstr(params, key) : NULL;
	return p && p[strlen(key)] == '=' ? atol(p + strlen(key) + 1) : def;
}

static void
parse_config(const char *text, struct slurm_limits *l)
{
	l->max_job_count = num_after(text, "MaxJobCount");
	l->max_array_size = num_after(text, "MaxArraySize");
	l->min_job_age = num_after(text, "MinJobAge");
	const char *p = strstr(text, "\nSlurmctldParameters");
	char params[512] = "";
	if (p && (p = strchr(p, '=')))
		snprintf(params, sizeof params, "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
	l->rl_enable = strstr(params, "rl_enable") != NULL;
	l->rl_bucket_size = param_num(params, "rl_bucket_size", 30);
	l->rl_refill_rate = param_num(params, "rl_refill_rate", 2);
	l->rl_refill_period = param_num(params, "rl_refill_period", 1);
	l->accounting = strstr(text, "accounting_storage/slurmdbd") != NULL;
}

/* The lowest MaxSubmitJobs or GrpSubmitJobs of the user's associations. */
static long
assoc_limit(void)
{
	struct passwd *pw = getpwuid(getuid());
	if (!pw)
		return -1;
	char *who = xasprintf("user=%s", pw->pw_name);
	char *argv[] = {"sacctmgr", "-n", "-P", "show", "assoc", "where", who, "format=MaxSubmit,GrpSubmit", NULL};
	struct sb out = {0}, errs = {0};
	struct proc q = {.argv = argv, .in_fd = PROC_NULL, .out = &out, .err = &errs, .timeout = QUERY_S};
	long best = -1;
	if (proc_run(&q) == 0 && out.buf) {
		for (char *p = out.buf; *p;) {
			char *e = p + strcspn(p, "|\n");
			if (e > p) {
				long n = atol(p);
				if (n > 0 && (best < 0 || n < best))
					best = n;
			}
			p = *e ? e + 1 : e;
		}
	}
	free(who);
	sb_free(&out);
	sb_free(&errs);
	return best;
}

int
slurm_limits_load(const char *state_dir, struct slurm_limits *l)
{
	char *path = state_dir ? layout_executor_file(state_dir, LAYOUT_SLURM_LIMITS) : NULL;
	char *cached = path ? read_file(path, NULL) : NULL;
	long at = 0;
	memset(l, 0, sizeof *l);
	if (cached && sscanf(cached, "at=%ld max_job_count=%ld max_array_size=%ld min_job_age=%ld max_submit_jobs=%ld "
			     "rl_enable=%d rl_bucket_size=%ld rl_refill_rate=%ld rl_refill_period=%ld accounting=%d",
			     &at, &l->max_job_count, &l->max_array_size, &l->min_job_age, &l->max_submit_jobs,
			     &l->rl_enable, &l->rl_bucket_size, &l->rl_refill_rate, &l->rl_refill_period,
			     &l->accounting) == 10 &&
	    time(NULL) - at < CACHE_S) {
		free(cached);
		free(path);
		return 0;
	}
	free(cached);
	/* A controller that does not answer makes scontrol show config retry
	 * for about 9 s where scontrol ping fails at once: ask only when it
	 * answers (llmb gen of a plan with no controller up waited each time),
	 * and never longer than QUERY_S each, a hung scontrol killed. */
	char *ping[] = {"scontrol", "ping", NULL};
	struct proc pp = {.argv = ping, .in_fd = PROC_NULL, .out_fd = PROC_NULL, .err_fd = PROC_NULL,
			  .timeout = QUERY_S};
	char *argv[] = {"scontrol", "show", "config", NULL};
	struct sb out = {0}, errs = {0};
	struct proc cp = {.argv = argv, .in_fd = PROC_NULL, .out = &out, .err = &errs, .timeout = QUERY_S};
	int ok = proc_run(&pp) == 0 && proc_run(&cp) == 0 && out.buf;
	if (ok) {
		parse_config(out.buf, l);
		l->max_submit_jobs = l->accounting ? assoc_limit() : -1;
		if (path && !make_dry_run() && mkdir_p(state_dir, 0) == 0) {
			char *s = xasprintf("at=%ld max_job_count=%ld max_array_size=%ld min_job_age=%ld max_submit_jobs=%ld "
					    "rl_enable=%d rl_bucket_size=%ld rl_refill_rate=%ld rl_refill_period=%ld accounting=%d\n",
					    (long)time(NULL), l->max_job_count, l->max_array_size, l->min_job_age,
					    l->max_submit_jobs, l->rl_enable, l->rl_bucket_size, l->rl_refill_rate,
					    l->rl_refill_period, l->accounting);
			write_file_atomic(path, s, strlen(s));
			free(s);
		}
	} else {
		l->max_job_count = l->max_array_size = l->min_job_age = l->max_submit_jobs = -1;
	}
	sb_free(&out);
	sb_free(&errs);
	free(path);
	return ok ? 0 : -1;
}

long
slurm_limits_cap(const struct slurm_limits *l)
{
	long cap = -1;
	if (l->max_job_count > 0) {
		long margin = l->max_job_count / 50 > 10 ? l->max_job_count / 50 : 10;
		cap = l->max_job_count - margin > 1 ? l->max_job_count - margin : 1;
	}
	if (l->max_submit_jobs > 0 && (cap < 0 || l->max_submit_jobs < cap))
		cap = l->max_submit_jobs;
	return cap;
}

void
slurm_limits_describe(const struct slurm_limits *l, struct sb *out)
{
	sb_addf(out, "MaxJobCount %ld, MaxArraySize %ld, MinJobAge %ld s", l->max_job_count, l->max_array_size,
		l->min_job_age);
	if (l->max_submit_jobs > 0)
		sb_addf(out, ", MaxSubmitJobs %ld", l->max_submit_jobs);
	if (l->rl_enable)
		sb_addf(out, ", RPC rate limit %ld tokens refilled %ld per %ld s", l->rl_bucket_size,
			l->rl_refill_rate, l->rl_refill_period);
	else
		sb_add(out, ", no RPC rate limit");
}

/* held, mine: the jobs the controller holds (all users) and this user's
 * unfinished ones, from one squeue. 0, or -1 when it did not answer. */
static int
count_queue(long *held, long *mine)
{
	char *argv[] = {"squeue", "-h", "-t", "all", "-o", "%U %T", NULL};
	struct sb out = {0}, errs = {0};
	int rc = capture_run(argv, &out, &errs);
	unsigned me = (unsigned)getuid();
	*held = *mine = 0;
	for (char *p = out.buf; rc == 0 && p && *p;) {
		unsigned uid;
		char st[32];
		if (sscanf(p, "%u %31s", &uid, st) == 2) {
			++*held;
			if (uid == me && (!strcmp(st, "PENDING") || !strcmp(st, "RUNNING") || !strcmp(st, "COMPLETING") ||
					  !strcmp(st, "CONFIGURING") || !strcmp(st, "SUSPENDED") || !strcmp(st, "REQUEUED")))
				++*mine;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	sb_free(&out);
	sb_free(&errs);
	return rc == 0 ? 0 : -1;
}

void
slurm_limits_wait_room(const char *state_dir)
{
	struct slurm_limits l;
	if (slurm_limits_load(state_dir, &l) < 0)
		return;
	long cap_all = l.max_job_count > 0 ? slurm_limits_cap(&(struct slurm_limits){.max_job_count = l.max_job_count,
											   .max_submit_jobs = -1})
					    : -1;
	long cap_mine = l.max_submit_jobs;
	if (cap_all < 0 && cap_mine < 0)
		return;
	char *lock = layout_executor_file(state_dir, LAYOUT_ROOM_LOCK);
	char *path = layout_executor_file(state_dir, LAYOUT_SLURM_ROOM);
	int said = 0;
	for (;;) {
		int fd = lock_file(lock, 0);
		if (fd < 0)
			break;
		/* The count is fresh for 2 s, or for twice the time the last squeue
		 * took: a controller slow to list 9,000 jobs (14 s under load) made
		 * every submission wait for a query of its own. The time is taken
		 * after the query, and a failed query keeps the last count. */
		long at = 0, held = 0, mine = 0, dur = 0, now = (long)time(NULL);
		char *s = read_file(path, NULL);
		int have = s && sscanf(s, "at=%ld held=%ld mine=%ld dur=%ld", &at, &held, &mine, &dur) >= 3;
		free(s);
		if (!have || now - at >= (2 * dur > ROOM_QUERY_S ? 2 * dur : ROOM_QUERY_S)) {
			long h, m;
			if (count_queue(&h, &m) == 0) {
				held = h, mine = m, have = 1;
				at = (long)time(NULL);
				dur = at - now;
			}
		}
		/* no count at all: sbatch itself says whether the controller is full */
		int room = !have || ((cap_all < 0 || held < cap_all) && (cap_mine < 0 || mine < cap_mine));
		if (room)
			held++, mine++;
		if (have) {
			char buf[128];
			int n = snprintf(buf, sizeof buf, "at=%ld held=%ld mine=%ld dur=%ld\n", at, held, mine, dur);
			write_file_atomic(path, buf, (size_t)n);
		}
		close(fd);
		if (room)
			break;
		if (!said++)
			fprintf(stderr, "llmb: the controller holds %ld jobs (%ld of them yours unfinished), at the limit "
					"(MaxJobCount %ld, MaxSubmitJobs %ld, less a margin): waiting for room\n",
				held, mine, l.max_job_count, l.max_submit_jobs);
		sleep(ROOM_QUERY_S);
	}
	free(lock);
	free(path);
}

void
slurm_limits_plan_note(struct sb *mk, size_t njobs)
{
	const char *ex = getenv("EXECUTOR"), *install = getenv("LLMB_INSTALL");
	struct slurm_limits l;
	if (!ex || strcmp(ex, "slurm") || !njobs)
		return;
	char *dir = install && *install ? layout_executor_state(install) : NULL;
	int ok = slurm_limits_load(dir, &l) == 0;
	free(dir);
	if (!ok) {
		sb_addf(mk, "$(info llmb: the Slurm controller's limits could not be read (scontrol did not answer, or not "
			    "within %d s): the plan of %zu jobs is not checked against them)\n", QUERY_S, njobs);
		return;
	}
	long cap = slurm_limits_cap(&l);
	struct sb d = {0};
	slurm_limits_describe(&l, &d);
	if (cap > 0 && (long)njobs > cap)
		sb_addf(mk, "$(info llmb: the plan submits up to %zu jobs, more than this cluster holds at once (%s): "
			    "llmb spreads the submission, each sbatch waiting for room as jobs finish)\n", njobs, d.buf);
	if (l.rl_enable && (long)njobs > l.rl_bucket_size)
		sb_addf(mk, "$(info llmb: the controller rate-limits RPCs (%ld tokens, %ld per %ld s): submissions share "
			    "one token bucket, LLMB_SUBMIT_RATE per second (default 10); set it below the refill rate)\n",
			l.rl_bucket_size, l.rl_refill_rate, l.rl_refill_period);
	sb_free(&d);
}
