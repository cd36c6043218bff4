/* slurm: sbatch submission, the shared squeue status cache, scancel. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* flock */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "layout.h"
#include "slurm.h"
#include "slurmlimits.h"
#include "throttle.h"

#define STALE_WAITER_SECONDS 600 /* a registered job nobody asked about */
#define MAX_POLL_SECONDS 60.0    /* back-off (x1.5) ceiling while nothing changes */

/* ---- argv arrays ----------------------------------------------------------- */

struct strv {
	char **v;
	size_t n, cap;
};

static void
strv_push(struct strv *a, char *owned)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? 2 * a->cap : 16;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = owned;
	a->v[a->n] = NULL;
}

static void
strv_add(struct strv *a, const char *s)
{
	strv_push(a, xstrdup(s));
}

void
slurm_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
}

static char **
strv_finish(struct strv *a)
{
	if (!a->v)
		strv_push(a, NULL); /* an empty, NULL-terminated array */
	return a->v;
}

void
slurm_argv_shell(struct sb *out, char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			sb_addc(out, ' ');
		if (argv[i][0] && !argv[i][strspn(argv[i],
		    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=:,./@%")])
			sb_add(out, argv[i]);
		else
			sb_add_shquote(out, argv[i]);
	}
}

/* ---- ADDITIONAL_SLURM_PARAMS ------------------------------------------------- */

/* Options llmb sets from the recipe, or that would change how llmb talks to
 * sbatch. sbatch accepts unambiguous abbreviations of long options, so a key
 * that is a prefix of one of these is refused as well. */
static const char *const reserved_opts[] = {
	"parsable", "job-name", "output", "error", "chdir", "nodes",
	"ntasks-per-node", "gpus-per-node", "exclusive", "time", "dependency",
	"account", "partition", "export",
	/* from here on: options that change how sbatch answers llmb */
	"wrap", "wait", "test-only", "help", "usage", "version",
};
#define FIRST_BEHAVIOUR_OPT 14
/* Real sbatch options that happen to be prefixes of reserved ones. */
static const char *const exact_opts[] = {"gpus", "ntasks"};

static int
has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* Index in reserved_opts of the option key names or abbreviates, or -1. */
static int
reserved_match(const char *key)
{
	size_t n = strlen(key);
	for (size_t i = 0; i < sizeof exact_opts / sizeof *exact_opts; i++)
		if (!strcmp(key, exact_opts[i]))
			return -1;
	for (size_t i = 0; i < sizeof reserved_opts / sizeof *reserved_opts; i++)
		if (!strncmp(reserved_opts[i], key, n))
			return (int)i;
	return -1;
}

/* One "k=v" or "flag" part (len bytes at p, already trimmed). */
static int
param_add(struct strv *a, const char *p, size_t len, struct sb *err)
{
	char *part = xstrndup(p, len);
	char *eq = strchr(part, '=');
	const char *val = NULL;
	int ret = -1;
	if (eq) {
		*eq = 0;
		val = eq + 1;
	}
	const char *key = part;
	int r;
	if (key[0] == '-') {
		sb_addf(err, "ADDITIONAL_SLURM_PARAMS: write '%s' without the leading dashes", key);
	} else if (!(key[0] >= 'a' && key[0] <= 'z') || key[strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-")]) {
		sb_add(err, "ADDITIONAL_SLURM_PARAMS: invalid option name ");
		sb_add_shquote(err, key);
		sb_add(err, " (want lowercase letters, digits and '-', like 'mem=0' or 'exclusive')");
	} else if ((r = reserved_match(key)) >= 0) {
		if (strcmp(reserved_opts[r], key))
			sb_addf(err, "ADDITIONAL_SLURM_PARAMS: '%s' abbreviates sbatch's '--%s', which llmb controls",
			    key, reserved_opts[r]);
		else if (r >= FIRST_BEHAVIOUR_OPT)
			sb_addf(err, "ADDITIONAL_SLURM_PARAMS: '%s' would change how sbatch answers llmb; remove it", key);
		else
			sb_addf(err, "ADDITIONAL_SLURM_PARAMS: '%s' is set by llmb itself (from the recipe and the environment); remove it", key);
	} else if (val && !*val) {
		sb_addf(err, "ADDITIONAL_SLURM_PARAMS: empty value for '%s'", key);
	} else if (val && has_ctl(val)) {
		sb_addf(err, "ADDITIONAL_SLURM_PARAMS: value of '%s' contains a control character", key);
	} else {
		strv_push(a, val ? xasprintf("--%s=%s", key, val) : xasprintf("--%s", key));
		ret = 0;
	}
	free(part);
	return ret;
}

int
slurm_params_each(const char *s, int (*fn)(const char *p, size_t len, void *arg), void *arg)
{
	const char *ws = " \t\r\n";
	const char *sep = s && strchr(s, ';') ? ";" : ws;
	while (s && *s) {
		size_t len = strcspn(s, sep);
		const char *p = s, *end = s + len;
		while (p < end && strchr(ws, *p))
			p++;
		while (end > p && strchr(ws, end[-1]))
			end--;
		int r = end > p ? fn(p, (size_t)(end - p), arg) : 0;
		if (r < 0)
			return r;
		s += len;
		if (*s)
			s++;
	}
	return 0;
}

struct params_parse {
	struct strv a;
	struct sb *err;
};

static int
params_parse_part(const char *p, size_t len, void *arg)
{
	struct params_parse *pp = arg;
	return param_add(&pp->a, p, len, pp->err);
}

int
slurm_params_parse(const char *s, char ***argv, struct sb *err)
{
	struct params_parse pp = {{0}, err};
	*argv = NULL;
	if (slurm_params_each(s, params_parse_part, &pp) < 0) {
		slurm_argv_free(pp.a.v);
		return -1;
	}
	*argv = strv_finish(&pp.a);
	return (int)pp.a.n;
}

/* ---- sbatch command line ------------------------------------------------------ */

static const char *
env_nonempty(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

static int
valid_env_name(const char *s)
{
	if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return 0;
	return !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")];
}

static int
check_str(const char *what, const char *v, int required, struct sb *err)
{
	if (!v) {
		if (required)
			sb_addf(err, "slurm: job has no %s", what);
		return required ? -1 : 0;
	}
	if (!*v || has_ctl(v)) {
		sb_addf(err, "slurm: %s is empty or contains a control character", what);
		return -1;
	}
	return 0;
}

static int
jobspec_check(const struct jobspec *js, struct sb *err)
{
	if (check_str("job name", js->job_name, 1, err) || check_str("script", js->script, 1, err) ||
	    check_str("log path", js->log, 1, err) || check_str("workdir", js->workdir, 1, err) ||
	    check_str("time limit", js->time_limit, 0, err) || check_str("dependency", js->dependency, 0, err))
		return -1;
	/* sbatch expands %j, %x, ... in -o/-e. %j (the job id) is part of the
	 * executor contract; any other % would be expanded by surprise. */
	for (const char *p = strchr(js->log, '%'); p; p = strchr(p + 2, '%')) {
		if (p[1] != 'j') {
			sb_addf(err, "slurm: log path '%s' contains '%%%c', which sbatch would expand", js->log, p[1]);
			return -1;
		}
	}
	if (js->nodes < 1 || js->ntasks_per_node < 1 || js->gpus_per_node < 0) {
		sb_addf(err, "slurm: invalid shape: %d node(s), %d task(s) per node, %d GPU(s) per node",
		    js->nodes, js->ntasks_per_node, js->gpus_per_node);
		return -1;
	}
	for (const char *const *e = js->env_pass; e && *e; e++)
		if (!valid_env_name(*e)) {
			sb_add(err, "slurm: invalid environment variable name ");
			sb_add_shquote(err, *e);
			return -1;
		}
	return 0;
}

char **
slurm_sbatch_argv(const struct jobspec *js, struct sb *err)
{
	struct strv a = {0};
	char **extra = NULL;
	const char *acct = env_nonempty("SBATCH_ACCOUNT");
	const char *part = env_nonempty("SBATCH_PARTITION");
	if (js->cpu_only && env_nonempty("LLMB_CPU_PARTITION"))
		part = env_nonempty("LLMB_CPU_PARTITION");
	if (jobspec_check(js, err) < 0 || slurm_params_parse(js->extra, &extra, err) < 0)
		return NULL;
	if ((acct && has_ctl(acct)) || (part && has_ctl(part))) {
		sb_add(err, "slurm: SBATCH_ACCOUNT or the partition contains a control character");
		slurm_argv_free(extra);
		return NULL;
	}
	strv_add(&a, "sbatch");
	strv_add(&a, "--parsable");
	strv_add(&a, "-J");
	strv_add(&a, js->job_name);
	strv_add(&a, "-o");
	strv_add(&a, js->log);
	strv_add(&a, "-e");
	strv_add(&a, js->log);
	strv_add(&a, "--chdir");
	strv_add(&a, js->workdir);
	strv_add(&a, "-N");
	strv_push(&a, xasprintf("%d", js->nodes));
	strv_add(&a, "--ntasks-per-node");
	strv_push(&a, xasprintf("%d", js->ntasks_per_node));
	if (js->gpus_per_node > 0) {
		strv_add(&a, "--gpus-per-node");
		strv_push(&a, xasprintf("%d", js->gpus_per_node));
	}
	if (js->exclusive)
		strv_add(&a, "--exclusive");
	if (js->time_limit) {
		strv_add(&a, "--time");
		strv_add(&a, js->time_limit);
	}
	if (js->dependency) {
		strv_add(&a, "--dependency");
		strv_add(&a, js->dependency);
	}
	if (acct) {
		strv_add(&a, "-A");
		strv_add(&a, acct);
	}
	if (part) {
		strv_add(&a, "-p");
		strv_add(&a, part);
	}
	/* Secrets (env_pass) reach the job by inheritance only: never a value here. */
	strv_add(&a, "--export=ALL");
	for (char **p = extra; *p; p++)
		strv_push(&a, *p);
	free(extra);
	strv_add(&a, js->script);
	return a.v;
}

/* ---- running a command ---------------------------------------------------------- */

static void
add_trimmed(struct sb *err, const struct sb *text)
{
	size_t n = text->len;
	while (n && (text->buf[n - 1] == '\n' || text->buf[n - 1] == ' '))
		n--;
	if (n)
		sb_addn(err, text->buf, n);
}

static int
valid_job_id(const char *id)
{
	size_t n = strspn(id, "0123456789");
	if (!n || n >= 32)
		return 0;
	if (id[n] == '_')
		return strspn(id + n + 1, "0123456789") > 0 && !id[n + 1 + strspn(id + n + 1, "0123456789")];
	return !id[n];
}

/* ---- submit and cancel -------------------------------------------------------------- */

/* sbatch once, through the shared throttle. A failure the controller calls
 * temporary (busy, timed out, queue full) is tried again after a backoff,
 * but only once Slurm says no job of this submission's name exists: a
 * reply lost after the job was created must not make a second job. */
static int
slurm_submit(const struct jobspec *js, char *id, size_t idlen, struct sb *err)
{
	struct sb out = {0}, errs = {0};
	char **argv = slurm_sbatch_argv(js, err);
	char *state_dir = layout_executor_state(js->workdir);
	int rc = 0, ret = -1, known = 0;
	if (!argv) {
		free(state_dir);
		return -1;
	}
	for (int try = 0;; try++) {
		sb_reset(&out);
		sb_reset(&errs);
		slurm_limits_wait_room(state_dir);
		throttle_take(state_dir);
		rc = capture_run(argv, &out, &errs);
		/* sbatch killed by a signal (SIGPIPE: the controller dropped the
		 * connection) may or may not have created the job: ask by name. */
		if (rc == 0 || !(throttle_transient(errs.buf) || rc > 128) || try >= throttle_retries())
			break;
		do {
			sleep((unsigned)throttle_backoff(++try));
			known = slurm_find_job(js->job_name, id, idlen);
		} while (known < 0 && try < throttle_retries());
		if (known > 0) {
			fprintf(stderr, "llmb: sbatch for '%s' reported a temporary failure, yet created job %s: using it\n",
				js->stage ? js->stage : js->job_name, id);
			ret = 0;
			goto out;
		}
		if (known < 0)
			break;
		/* One fprintf per line: many llmb processes share make's stderr. */
		const char *why = errs.buf ? errs.buf : "";
		char what[1024];
		if (rc > 128)
			snprintf(what, sizeof what, "was killed by signal %d; no job of its name exists", rc - 128);
		else
			snprintf(what, sizeof what, "failed for now (%.*s)", (int)strcspn(why, "\n"), why);
		fprintf(stderr, "llmb: sbatch for '%s' %s; submitting again (try %d of %d)\n",
			js->stage ? js->stage : js->job_name, what, try + 1, throttle_retries() + 1);
	}
	if (rc != 0) {
		sb_addf(err, "sbatch failed for stage '%s'", js->stage ? js->stage : js->job_name);
		if (rc > 0)
			sb_addf(err, " (exit %d)", rc);
		sb_add(err, ": ");
		add_trimmed(err, &errs);
		goto out;
	}
	/* --parsable prints "id" or "id;cluster". */
	size_t n = out.buf ? strcspn(out.buf, ";\n") : 0;
	char *got = xstrndup(out.buf ? out.buf : "", n);
	if (!valid_job_id(got) || n >= idlen) {
		sb_add(err, "sbatch printed no job id: ");
		add_trimmed(err, &out);
		add_trimmed(err, &errs);
	} else {
		memcpy(id, got, n + 1);
		ret = 0;
	}
	free(got);
out:
	slurm_argv_free(argv);
	free(state_dir);
	sb_free(&out);
	sb_free(&errs);
	return ret;
}

static int
slurm_cancel(const char *id, struct sb *err)
{
	struct sb out = {0}, errs = {0};
	char *argv[] = {"scancel", (char *)id, NULL};
	int rc;
	if (!valid_job_id(id)) {
		sb_add(err, "scancel: invalid job id ");
		sb_add_shquote(err, id);
		return -1;
	}
	rc = capture_run(argv, &out, &errs);
	if (rc != 0) {
		sb_addf(err, "scancel %s failed", id);
		if (rc > 0)
			sb_addf(err, " (exit %d)", rc);
		sb_add(err, ": ");
		add_trimmed(err, &errs);
	}
	sb_free(&out);
	sb_free(&errs);
	return rc == 0 ? 0 : -1;
}

/* ---- parsing scheduler answers -------------------------------------------------------- */

/* "[D-][H:]M:SS" (squeue TimeUsed, sacct Elapsed) to seconds; -1 if not a time. */
static long
parse_elapsed(const char *s)
{
	long days = 0, secs = 0;
	int nf = 0;
	char *end;
	const char *dash = strchr(s, '-');
	if (dash) {
		days = strtol(s, &end, 10);
		if (end != dash || end == s)
			return -1;
		s = dash + 1;
	}
	for (;;) {
		if (!strchr("0123456789", *s) || !*s || ++nf > 3)
			return -1;
		secs = secs * 60 + strtol(s, &end, 10);
		if (*end != ':')
			break;
		s = end + 1;
	}
	return *end ? -1 : days * 86400 + secs;
}

struct ent {
	char id[32];
	char state[24];       /* canonical jstate name */
	int exit_code, signal, restarts;
	long elapsed;
	long seen;            /* cache: when the scheduler said so; registry: last asked */
	char reason[160];
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

/* squeue -O JobID:|,State:|,exit_code:|,TimeUsed:|,RestartCnt:|,Reason: */
static void
parse_squeue(char *text, struct table *reg, struct table *got)
{
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[6];
		if (split_bar(line, f, 6) != 6 || !table_find(reg, f[0]))
			continue;
		struct ent *e = table_add(got, f[0]);
		set_reason(e, f[5]);
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
		if (jstate_terminal(jstate_parse(e->state)) && strchr(f[2], ':')) {
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

static double
poll_seconds(void)
{
	const char *v = getenv("LLMB_POLL_SECONDS");
	char *end;
	double d;
	if (!v || !*v)
		return 10;
	d = strtod(v, &end);
	return *end || !isfinite(d) || d < 0 ? 10 : d;
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
		if (sscanf(line, "%31s %ld", id, &asked) == 2 && valid_job_id(id))
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
	if (line && sscanf(line, "llmb-slurm-cache 3 %lf %lf %d", &c->time, &c->interval, &c->ok) == 3)
		c->valid = 1;
	while (c->valid && (line = strtok_r(NULL, "\n", &save))) {
		char *f[8], *p = line;
		int n = 0;
		f[n++] = p;
		while (n < 8 && (p = strchr(p, '\t'))) {
			*p++ = 0;
			f[n++] = p;
		}
		if (n != 8 || !valid_job_id(f[0]))
			continue;
		struct ent *e = table_add(&c->t, f[0]);
		snprintf(e->state, sizeof e->state, "%s", f[1]);
		e->exit_code = atoi(f[2]);
		e->signal = atoi(f[3]);
		e->elapsed = atol(f[4]);
		e->seen = atol(f[5]);
		e->restarts = atoi(f[6]);
		set_reason(e, f[7]);
	}
	free(text);
}

static void
cache_save(const char *path, const struct cache *c)
{
	struct sb s = {0};
	sb_addf(&s, "llmb-slurm-cache 3 %.3f %.3f %d\n", c->time, c->interval, c->ok);
	for (size_t i = 0; i < c->t.n; i++) {
		const struct ent *e = &c->t.e[i];
		sb_addf(&s, "%s\t%s\t%d\t%d\t%ld\t%ld\t%d\t%s\n", e->id, e->state, e->exit_code,
		    e->signal, e->elapsed, e->seen, e->restarts, e->reason);
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
		"JobID:|,State:|,exit_code:|,TimeUsed:|,RestartCnt:|,Reason:", NULL};
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
		struct ent *e = valid_job_id(jobs[i].id) ? table_find(&c.t, jobs[i].id) : NULL;
		if (!valid_job_id(jobs[i].id) || (e && jstate_terminal(jstate_parse(e->state))))
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
		struct ent *e = ret < 0 || !valid_job_id(jobs[i].id) ? NULL : table_find(&c.t, jobs[i].id);
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

static int
slurm_query(const char *cache_dir, struct jobinfo *jobs, int n)
{
	struct paths p = {
		xasprintf("%s/slurm.lock", cache_dir), xasprintf("%s/slurm.jobs", cache_dir),
		xasprintf("%s/slurm.cache", cache_dir), xasprintf("%s/queries.log", cache_dir), 0,
	};
	int fd = -1, ret = -1;
	for (int i = 0; i < n; i++)
		fill_job(&jobs[i], NULL);
	if (mkdir_p(cache_dir, 0) < 0) {
		warn("cannot create '%s': %s", cache_dir, strerror(errno));
		goto out;
	}
	fd = open(p.lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		warn("cannot open '%s': %s", p.lock, strerror(errno));
		goto out;
	}
	while (flock(fd, LOCK_EX) < 0)
		if (errno != EINTR) {
			warn("cannot lock '%s': %s", p.lock, strerror(errno));
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

int
slurm_find_job(const char *name, char *id, size_t idlen)
{
	struct sb out = {0}, errs = {0};
	char *sq[] = {"squeue", "-h", "-t", "all", "-n", (char *)name, "-o", "%i", NULL};
	char *sa[] = {"sacct", "-n", "-X", "-P", "-S", "now-7days", "--name", (char *)name, "-o", "JobID", NULL};
	int ret = -1;
	if (capture_run(sq, &out, &errs) != 0)
		goto out;
	if (!out.len) {
		/* purged after MinJobAge: accounting, when the cluster has it */
		sb_reset(&errs);
		ret = capture_run(sa, &out, &errs) == 0 ? 0 : errs.buf && strstr(errs.buf, "disabled") ? 0 : -1;
		if (!out.len)
			goto out;
	}
	size_t n = strcspn(out.buf, "\n");
	char *got = xstrndup(out.buf, n);
	ret = valid_job_id(got) && n < idlen ? 1 : -1;
	if (ret == 1)
		memcpy(id, got, n + 1);
	free(got);
out:
	sb_free(&out);
	sb_free(&errs);
	return ret;
}

const struct executor slurm_executor = {"slurm", slurm_submit, slurm_query, slurm_cancel, slurm_find_job};

char *
slurm_job_nodes(const char *job)
{
	char *sa[] = {"sacct", "-n", "-X", "-P", "-j", (char *)job, "-o", "NodeList", NULL};
	char *sq[] = {"squeue", "-h", "-t", "all", "-j", (char *)job, "-o", "%N", NULL};
	char *n = capture_first_line(sa);
	for (int i = 0; i < 2; i++) {
		if (n && *n && strcmp(n, "None assigned"))
			return n;
		free(n);
		n = i ? NULL : capture_first_line(sq);
	}
	return NULL;
}
