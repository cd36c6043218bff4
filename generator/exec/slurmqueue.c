/* slurmqueue: job states from the scheduler, asked rarely. Every waiting
 * llmb process calls slurm_query; under one flock the registry of active
 * ids and the last answer are shared, so one squeue per poll interval (and
 * sacct for jobs squeue has purged or whose canceller it does not name)
 * serves them all. Separate from slurm.c because this is the part that must
 * stay cheap for the controller, with its own files and back-off; sbatch
 * and scancel do not touch it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/capture.h"
#include "exec/slurmqueue.h"
#include "recipe/slurmcmd.h"
#include "store/layout.h"

#define STALE_WAITER_SECONDS 600 /* a registered job nobody asked about */
#define MAX_POLL_SECONDS 60.0    /* back-off (x1.5) ceiling while nothing changes */

/* ---- parsing scheduler answers -------------------------------------------------------- */

/* "[D-][H:]M:SS" (squeue TimeUsed, sacct Elapsed) to seconds; -1 if not a
 * time. A century at most, the fields after the first of two digits: a
 * garbled answer never overflows the sum. */
#define MAX_ELAPSED_DAYS 36500L

static long
parse_elapsed(const char *s)
{
	long days = 0, secs = 0;
	int nf = 0;
	char *end;
	const char *dash = strchr(s, '-');
	if (dash) {
		errno = 0;
		days = strtol(s, &end, 10);
		if (end != dash || !strchr("0123456789", *s) || errno || days > MAX_ELAPSED_DAYS)
			return -1;
		s = dash + 1;
	}
	for (;;) {
		if (!*s || !strchr("0123456789", *s) || ++nf > 3)
			return -1;
		errno = 0;
		long f = strtol(s, &end, 10);
		if (errno || (nf > 1 && end - s > 2) || f > MAX_ELAPSED_DAYS * 86400)
			return -1;
		secs = secs * 60 + f;
		if (*end != ':')
			break;
		s = end + 1;
	}
	return *end || secs > MAX_ELAPSED_DAYS * 86400 ? -1 : days * 86400 + secs;
}

struct ent {
	char id[32];
	char state[24];       /* canonical jstate name */
	int exit_code, signal, restarts;
	long elapsed;
	long seen;            /* cache: when the scheduler said so; registry: last asked */
	char reason[160];
	char start[32];       /* StartTime of a pending job, "" unknown */
};

struct table {
	struct ent *e;
	size_t n, cap;
};

static struct ent *
table_find(struct table *t, const char *id)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].id, id))
			return &t->e[i];
	return NULL;
}

static struct ent *
table_add(struct table *t, const char *id)
{
	struct ent *e = table_find(t, id);
	if (e)
		return e;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->e = xrealloc(t->e, t->cap * sizeof *t->e);
	}
	e = &t->e[t->n++];
	memset(e, 0, sizeof *e);
	snprintf(e->id, sizeof e->id, "%s", id);
	e->exit_code = -1;
	e->elapsed = -1;
	return e;
}

static void
set_reason(struct ent *e, const char *r)
{
	size_t i;
	if (!strcmp(r, "None") || !strcmp(r, "(null)"))
		r = "";
	for (i = 0; r[i] && i + 1 < sizeof e->reason; i++)
		e->reason[i] = (unsigned char)r[i] < 0x20 || r[i] == 0x7f ? ' ' : r[i];
	e->reason[i] = 0;
}

static void
set_state(struct ent *e, const char *raw)
{
	enum jstate s = jstate_parse(raw);
	const char *by = strstr(raw, " by ");
	snprintf(e->state, sizeof e->state, "%s", jstate_name(s));
	if (s == J_CANCELLED && by) {
		char r[96];
		char *end;
		long uid = strtol(by + 4, &end, 10);
		struct passwd *pw = end != by + 4 && uid >= 0 ? getpwuid((uid_t)uid) : NULL;
		if (pw)
			snprintf(r, sizeof r, "cancelled by %.32s (uid %ld)", pw->pw_name, uid);
		else
			snprintf(r, sizeof r, "cancelled by uid %.32s", by + 4);
		set_reason(e, r);
	}
}

/* Split line in place at '|' into at most max fields; the last keeps the rest. */
static int
split_bar(char *line, char **f, int max)
{
	int n = 0;
	f[n++] = line;
	while (n < max && (line = strchr(line, '|'))) {
		*line++ = 0;
		f[n++] = line;
	}
	return n;
}

/* A pending job's StartTime: a date Slurm expects it to start by, else
 * "N/A", "Unknown" or "(null)", kept as "". */
static void
set_start(struct ent *e, const char *s)
{
	size_t n = strspn(s, "0123456789-T:");
	e->start[0] = 0;
	if (n == strlen(s) && n >= 10 && n < sizeof e->start)
		memcpy(e->start, s, n + 1);
}

/* squeue -O JobID:|,State:|,exit_code:|,TimeUsed:|,RestartCnt:|,StartTime:|,Reason: */
static void
parse_squeue(char *text, struct table *reg, struct table *got)
{
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[7];
		if (split_bar(line, f, 7) != 7 || !table_find(reg, f[0]))
			continue;
		struct ent *e = table_add(got, f[0]);
		set_reason(e, f[6]);
		if (jstate_parse(f[1]) == J_PENDING)
			set_start(e, f[5]);
		e->restarts = atoi(f[4]);
		set_state(e, f[1]);
		if (jstate_terminal(jstate_parse(e->state))) {
			int st = atoi(f[2]);
			e->exit_code = (st >> 8) & 0xff;
			e->signal = st & 0x7f;
		}
		e->elapsed = parse_elapsed(f[3]);
	}
}

/* sacct -n -X -P -o JobID,State,ExitCode,Elapsed,Reason ("3:0" = code:signal) */
static void
parse_sacct(char *text, struct table *reg, struct table *got)
{
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[5];
		int n = split_bar(line, f, 5);
		if (n < 3 || !table_find(reg, f[0]) || table_find(got, f[0]))
			continue;
		struct ent *e = table_add(got, f[0]);
		if (n >= 5)
			set_reason(e, f[4]);
		set_state(e, f[1]);
		enum jstate st = jstate_parse(e->state);
		/* slurmdbd may hold a job's end state before its exit code: a
		 * FAILED job reading 0:0 has an exit code not yet recorded. */
		if (jstate_terminal(st) && strchr(f[2], ':') && !(st == J_FAILED && !strcmp(f[2], "0:0"))) {
			e->exit_code = atoi(f[2]);
			e->signal = atoi(strchr(f[2], ':') + 1);
		}
		if (n >= 4)
			e->elapsed = parse_elapsed(f[3]);
	}
}

/* ---- the shared cache ------------------------------------------------------------------ */

struct cache {
	int valid, ok;
	double time, interval;
	struct table t;
};

struct reg {
	struct table t;  /* id and seen only */
	char *text;      /* as read, to skip rewriting an unchanged file */
};

struct paths {
	char *lock, *jobs, *cache, *qlog;
	double now; /* when this query decided to ask: what the query log records */
};

double
poll_seconds_env(void)
{
	const char *v = getenv("LLMB_POLL_SECONDS");
	char *end;
	if (!v || !*v)
		return 0;
	double d = strtod(v, &end);
	return *v >= '0' && *v <= '9' && !*end && isfinite(d) && d >= 0.1 && d <= 3600 ? d : -1;
}

/* llmb run refuses a malformed LLMB_POLL_SECONDS; other callers get 10 s. */
static double
poll_seconds(void)
{
	double d = poll_seconds_env();
	return d > 0 ? d : 10;
}

static void
reg_load(const char *path, struct reg *r)
{
	char *line, *save = NULL;
	r->text = read_file(path, NULL);
	if (!r->text)
		return;
	char *copy = xstrdup(r->text);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char id[32];
		long asked;
		if (sscanf(line, "%31s %ld", id, &asked) == 2 && slurm_job_id_valid(id))
			table_add(&r->t, id)->seen = asked;
	}
	free(copy);
}

static void
reg_save(const char *path, struct reg *r)
{
	struct sb s = {0};
	for (size_t i = 0; i < r->t.n; i++)
		if (r->t.e[i].id[0])
			sb_addf(&s, "%s %ld\n", r->t.e[i].id, r->t.e[i].seen);
	if (!r->text || strcmp(r->text, s.buf ? s.buf : "")) {
		if (write_file_atomic(path, s.buf ? s.buf : "", s.len) < 0)
			warn("cannot write '%s': %s", path, strerror(errno));
	}
	sb_free(&s);
}

static void
cache_load(const char *path, struct cache *c)
{
	char *text = read_file(path, NULL), *line, *save = NULL;
	if (!text)
		return;
	line = strtok_r(text, "\n", &save);
	if (line && sscanf(line, "llmb-slurm-cache 4 %lf %lf %d", &c->time, &c->interval, &c->ok) == 3)
		c->valid = 1;
	while (c->valid && (line = strtok_r(NULL, "\n", &save))) {
		char *f[9], *p = line;
		int n = 0;
		f[n++] = p;
		while (n < 9 && (p = strchr(p, '\t'))) {
			*p++ = 0;
			f[n++] = p;
		}
		if (n != 9 || !slurm_job_id_valid(f[0]))
			continue;
		struct ent *e = table_add(&c->t, f[0]);
		snprintf(e->state, sizeof e->state, "%s", f[1]);
		e->exit_code = atoi(f[2]);
		e->signal = atoi(f[3]);
		e->elapsed = atol(f[4]);
		e->seen = atol(f[5]);
		e->restarts = atoi(f[6]);
		set_start(e, f[7]);
		set_reason(e, f[8]);
	}
	free(text);
}

static void
cache_save(const char *path, const struct cache *c)
{
	struct sb s = {0};
	sb_addf(&s, "llmb-slurm-cache 4 %.3f %.3f %d\n", c->time, c->interval, c->ok);
	for (size_t i = 0; i < c->t.n; i++) {
		const struct ent *e = &c->t.e[i];
		sb_addf(&s, "%s\t%s\t%d\t%d\t%ld\t%ld\t%d\t%s\t%s\n", e->id, e->state, e->exit_code,
		    e->signal, e->elapsed, e->seen, e->restarts, e->start, e->reason);
	}
	if (write_file_atomic(path, s.buf, s.len) < 0)
		warn("cannot write '%s': %s", path, strerror(errno));
	sb_free(&s);
}

static void
log_query(const struct paths *p, const char *tool, size_t nids)
{
	int fd = open(p->qlog, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	dprintf(fd, "%.3f %s %zu\n", p->now, tool, nids);
	close(fd);
}

static char *
join_ids(struct table *t, struct table *skip)
{
	struct sb s = {0};
	for (size_t i = 0; i < t->n; i++) {
		if (skip && table_find(skip, t->e[i].id))
			continue;
		if (s.len)
			sb_addc(&s, ',');
		sb_add(&s, t->e[i].id);
	}
	return sb_steal(&s);
}

/* squeue says CANCELLED but not by whom; accounting does ("CANCELLED by
 * 0"). One sacct call for the jobs that have no reason yet; without
 * accounting they keep none. */
static void
who_cancelled(const struct paths *p, struct table *got)
{
	struct table want = {0};
	for (size_t i = 0; i < got->n; i++)
		if (!strcmp(got->e[i].state, jstate_name(J_CANCELLED)) && !got->e[i].reason[0])
			table_add(&want, got->e[i].id);
	if (!want.n)
		return;
	struct sb out = {0}, errs = {0};
	char *ids = join_ids(&want, NULL);
	char *sa[] = {"sacct", "-n", "-X", "-P", "-j", ids, "-o", "JobID,State", NULL};
	log_query(p, "sacct", want.n);
	if (capture_run(sa, &out, &errs) == 0 && out.buf) {
		char *save = NULL;
		for (char *line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *f[2];
			struct ent *e;
			if (split_bar(line, f, 2) == 2 && table_find(&want, f[0]) && (e = table_find(got, f[0])))
				set_state(e, f[1]);
		}
	}
	free(ids);
	free(want.e);
	sb_free(&out);
	sb_free(&errs);
}

/* Ask the scheduler about every registered id. Returns 0, or -1 when squeue
 * itself failed (then got is left empty). */
static int
refresh(const struct paths *p, struct table *reg, struct table *got)
{
	struct sb out = {0}, errs = {0};
	char *ids = join_ids(reg, NULL);
	char *sq[] = {"squeue", "-h", "-t", "all", "-j", ids, "-O",
		"JobID:|,State:|,exit_code:|,TimeUsed:|,RestartCnt:|,StartTime:|,Reason:", NULL};
	int rc, ret = 0;
	log_query(p, "squeue", reg->n);
	rc = capture_run(sq, &out, &errs);
	/* One unknown id alone is an error for squeue; in a list it is not. */
	if (rc != 0 && !(errs.buf && strstr(errs.buf, "Invalid job id"))) {
		warn("job status query failed (squeue exit %d): %.*s", rc,
		    errs.buf ? (int)strcspn(errs.buf, "\n") : 0, errs.buf ? errs.buf : "");
		ret = -1;
		goto out;
	}
	if (out.buf)
		parse_squeue(out.buf, reg, got);
	who_cancelled(p, got);
	if (got->n == reg->n)
		goto out;

	/* Purged after MinJobAge: accounting, then the job completion log. */
	char *missing = join_ids(reg, got);
	char *sa[] = {"sacct", "-n", "-X", "-P", "-j", missing, "-o",
		"JobID,State,ExitCode,Elapsed,Reason", NULL};
	/* jobcomp/filetxt has no Reason column */
	char *sc[] = {"sacct", "-c", "-n", "-P", "-j", missing, "-o",
		"JobID,State,ExitCode,Elapsed", NULL};
	int known = 1;
	size_t nmiss = reg->n - got->n;
	sb_reset(&out);
	sb_reset(&errs);
	log_query(p, "sacct", nmiss);
	rc = capture_run(sa, &out, &errs);
	if (rc != 0 && errs.buf && strstr(errs.buf, "accounting storage is disabled")) {
		sb_reset(&out);
		sb_reset(&errs);
		log_query(p, "sacct-c", nmiss);
		rc = capture_run(sc, &out, &errs);
	}
	/* With neither accounting nor a completion log nothing remembers a
	 * purged job: squeue answered without it, so it is gone. */
	if (rc != 0 && errs.buf && strstr(errs.buf, "job completion is disabled"))
		rc = 0;
	if (rc != 0)
		known = 0; /* cannot tell purged from unreachable: leave them unknown */
	else if (out.buf)
		parse_sacct(out.buf, reg, got);
	for (size_t i = 0; known && i < reg->n; i++)
		if (!table_find(got, reg->e[i].id))
			snprintf(table_add(got, reg->e[i].id)->state, sizeof got->e->state, "%s",
			    jstate_name(J_VANISHED));
	free(missing);
out:
	free(ids);
	sb_free(&out);
	sb_free(&errs);
	return ret;
}

/* Did any job appear or change state? (Jobs that left are no change.) */
static int
table_changed(struct table *old, struct table *cur)
{
	for (size_t i = 0; i < cur->n; i++) {
		struct ent *o = table_find(old, cur->e[i].id);
		if (!o || strcmp(o->state, cur->e[i].state))
			return 1;
	}
	return 0;
}

static void
fill_job(struct jobinfo *j, const struct ent *e)
{
	j->state = e ? jstate_parse(e->state) : J_UNKNOWN;
	j->exit_code = e ? e->exit_code : -1;
	j->signal = e ? e->signal : 0;
	j->elapsed = e ? e->elapsed : -1;
	j->restarts = e ? e->restarts : 0;
	snprintf(j->reason, sizeof j->reason, "%s", e ? e->reason : "");
	snprintf(j->start, sizeof j->start, "%s", e ? e->start : "");
}

static int
query_locked(struct paths *p, struct jobinfo *jobs, int n)
{
	struct reg reg = {0};
	struct cache c = {0};
	double now = p->now = now_seconds(), base = poll_seconds();
	double cap = base > MAX_POLL_SECONDS ? base : MAX_POLL_SECONDS;
	int added = 0, ret = 0;

	reg_load(p->jobs, &reg);
	cache_load(p->cache, &c);
	for (int i = 0; i < n; i++) {
		struct ent *e = slurm_job_id_valid(jobs[i].id) ? table_find(&c.t, jobs[i].id) : NULL;
		if (!slurm_job_id_valid(jobs[i].id) || (e && jstate_terminal(jstate_parse(e->state))))
			continue; /* the cache still holds its final state */
		e = table_find(&reg.t, jobs[i].id);
		if (!e) {
			e = table_add(&reg.t, jobs[i].id);
			added = 1;
		}
		/* coarse, so that a steady poll does not rewrite the registry */
		if (now - e->seen > 60)
			e->seen = (long)now;
	}
	double interval = c.valid && !added ? c.interval : base;
	if (reg.t.n && (!c.valid || now - c.time >= interval || now < c.time)) {
		struct cache nc = {.valid = 1, .ok = 1, .time = now};
		if (refresh(p, &reg.t, &nc.t) < 0) {
			nc.ok = 0;
			nc.interval = base;
		} else {
			nc.interval = added || table_changed(&c.t, &nc.t) ? base
			    : (interval * 1.5 < cap ? interval * 1.5 : cap);
			if (nc.interval < base)
				nc.interval = base;
		}
		for (size_t i = 0; i < nc.t.n; i++)
			nc.t.e[i].seen = (long)now;
		/* Keep final states a while for callers that ask once more. */
		for (size_t i = 0; i < c.t.n; i++)
			if (jstate_terminal(jstate_parse(c.t.e[i].state)) && !table_find(&nc.t, c.t.e[i].id) &&
			    now - c.t.e[i].seen < STALE_WAITER_SECONDS)
				*table_add(&nc.t, c.t.e[i].id) = c.t.e[i];
		cache_save(p->cache, &nc);
		free(c.t.e);
		c = nc;
	}
	if (c.valid && !c.ok)
		ret = -1;
	for (int i = 0; i < n; i++) {
		struct ent *e = ret < 0 || !slurm_job_id_valid(jobs[i].id) ? NULL : table_find(&c.t, jobs[i].id);
		fill_job(&jobs[i], e);
		struct ent *r = e && jstate_terminal(jobs[i].state) ? table_find(&reg.t, jobs[i].id) : NULL;
		if (r)
			r->id[0] = 0; /* reported: forget it */
	}
	for (size_t i = 0; i < reg.t.n; i++)
		if (now - reg.t.e[i].seen > STALE_WAITER_SECONDS)
			reg.t.e[i].id[0] = 0;
	reg_save(p->jobs, &reg);
	free(reg.t.e);
	free(reg.text);
	free(c.t.e);
	return ret;
}

int
slurm_query(const char *cache_dir, struct jobinfo *jobs, int n)
{
	struct paths p = {
		layout_executor_file(cache_dir, LAYOUT_SLURM_LOCK), layout_executor_file(cache_dir, LAYOUT_SLURM_JOBS),
		layout_executor_file(cache_dir, LAYOUT_SLURM_CACHE), layout_executor_file(cache_dir, LAYOUT_QUERY_LOG), 0,
	};
	int fd = -1, ret = -1;
	for (int i = 0; i < n; i++)
		fill_job(&jobs[i], NULL);
	if (mkdir_p(cache_dir, 0) < 0) {
		warn("cannot create '%s': %s", cache_dir, strerror(errno));
		goto out;
	}
	fd = lock_file(p.lock, 0);
	if (fd < 0) {
		warn("cannot %s '%s': %s", fd == -1 ? "open" : "lock", p.lock, strerror(errno));
		goto out;
	}
	ret = query_locked(&p, jobs, n);
out:
	if (fd >= 0)
		close(fd);
	free(p.lock);
	free(p.jobs);
	free(p.cache);
	free(p.qlog);
	return ret;
}
