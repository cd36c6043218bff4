/* nightly: `llmb nightly`, what `make nightly` runs. One night at a time
 * per install tree (flock on INSTALL/nightly/.lock; a second make waits):
 * fixes the night's id (NIGHT, else the unfinished night recorded in
 * INSTALL/nightly/current, else today's UTC date), plans the night once,
 * runs its make graph (setup stages shared with `make report`, fresh runs
 * under night-<NIGHT>; the child make generates its rules itself), records
 * every finished run of the plan in the history, then judges the night in
 * its own process (judge_night, judge.h: `llmb judge` in three formats)
 * and leaves the verdict in INSTALL/nightly/<NIGHT>/: summary.txt,
 * verdict.json, trend.html and status ("<code> <word>").
 * A night whose jobs still run (ASYNC=1) stays current; the next
 * `make nightly` collects it. Killing make at any point loses nothing: jobs
 * run on, stamps and records are written whole, recording is idempotent. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "base/capture.h"
#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/util.h"
#include "exec/dryrun.h"
#include "nightly/bisect.h"
#include "nightly/confirm.h"
#include "plan/nightmatrix.h"
#include "plan/plan.h"
#include "plan/stale.h"
#include "results/record.h"
#include "run/selenv.h"
#include "store/layout.h"
#include "store/stagecfg.h"
#include "store/stagekind.h"
#include "verdict/judge.h"

/* Exit statuses of `llmb judge`, and so of `llmb nightly`. */
static const char *const verdict_words[] = {
	[0] = "pass", [1] = "regression", [2] = "error", [3] = "invalid", [4] = "inconclusive",
};

struct night {
	const char *top, *install, *policy;
	char *dir;                  /* INSTALL/nightly */
	char id[16];
	int async;
};

static char *
today_utc(void)
{
	return utc_now_as("%Y-%m-%d");
}

/* Holds INSTALL/nightly/.lock for the life of the process; *waited: it
 * was another night's first. */
static int
take_lock(const struct night *n, int *waited)
{
	char *path = layout_in(n->dir, LAYOUT_NIGHTLY_LOCK);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die("cannot open %s: %s", path, strerror(errno));
	if ((*waited = flock(fd, LOCK_EX | LOCK_NB) < 0)) {
		fprintf(stderr, "llmb nightly: another make nightly is running on %s; waiting for it\n", n->install);
		while (flock(fd, LOCK_EX) < 0)
			if (errno != EINTR)
				die("cannot lock %s: %s", path, strerror(errno));
	}
	free(path);
	return fd;
}

/* NIGHT, else the unfinished night, else today (UTC); written down so a
 * night resumed after midnight keeps its id. */
static int
fix_night(struct night *n, int dry)
{
	const char *want = getenv("NIGHT"); /* make exports an unset NIGHT as "" */
	if (want && !*want)
		want = NULL;
	char *cur_path = layout_in(n->dir, LAYOUT_NIGHTLY_CURRENT), *cur = read_file(cur_path, NULL), *today = NULL;
	if (cur)
		cur[strcspn(cur, "\n")] = 0;
	const char *id = want ? want : cur && night_valid(cur) ? cur : (today = today_utc());
	if (!night_valid(id)) {
		fprintf(stderr, "llmb nightly: error: NIGHT=%s: a night is a date, YYYY-MM-DD (default: today in UTC)\n", id);
		free(cur_path); free(cur); free(today);
		return -1;
	}
	if (!want && cur && night_valid(cur))
		printf("llmb nightly: resuming night %s\n", cur);
	else if (cur && night_valid(cur) && strcmp(cur, id))
		fprintf(stderr, "llmb nightly: warning: night %s was not finished; make nightly NIGHT=%s collects it\n", cur, cur);
	snprintf(n->id, sizeof n->id, "%s", id);
	if (dry) {
		free(cur_path); free(cur); free(today);
		return 0;
	}
	char *line = xasprintf("%s\n", n->id);
	if ((!cur || strcmp(cur, n->id)) && write_file_atomic(cur_path, line, strlen(line)) < 0)
		die("cannot write %s: %s", cur_path, strerror(errno));
	/* the version of the checkout the night runs, captured when it starts */
	char *vpath = layout_nightly(n->install, n->id, LAYOUT_NIGHT_VERSION);
	if (!file_exists(vpath)) {
		char *v = llmb_version(n->top), *vl = xasprintf("%s\n", v);
		mkdir_p(vpath, 1);
		if (write_file_atomic(vpath, vl, strlen(vl)) < 0)
			die("cannot write %s: %s", vpath, strerror(errno));
		free(v);
		free(vl);
	}
	free(vpath); free(line); free(cur_path); free(cur); free(today);
	return 0;
}

/* Records every finished run of the night; returns the runs still pending.
 * nostart: one line per run whose job could never start. */
static int
collect(struct night *n, struct plan *p, struct sb *workloads, struct sb *nostart)
{
	char *vpath = layout_nightly(n->install, n->id, LAYOUT_NIGHT_VERSION), *ver = read_file(vpath, NULL);
	free(vpath);
	if (ver)
		ver[strcspn(ver, "\n")] = 0;
	int pending = 0, runs = 0, fresh = 0;
	for (size_t i = 0; i < p->n; i++) {
		struct inst *in = &p->v[i];
		if (stage_kind_run(in->kind) != SK_RUN_PARSE)
			continue;
		runs++;
		char w[160];
		snprintf(w, sizeof w, ",%s,", in->workload);
		if (!workloads->buf || !strstr(workloads->buf, w))
			sb_addf(workloads, "%s%s,", workloads->len ? "" : ",", in->workload);
		enum runstate st = run_state(p, in, n->install);
		if (st == R_PENDING) {
			pending++;
			continue;
		}
		struct sb one = {0};
		if (st == R_FAILED && run_never_started(p, in, n->install, &one))
			sb_addf(nostart, "  %s\n", one.buf);
		sb_free(&one);
		struct sb err = {0};
		json_t *rec = record_of_stage(p, in, n->install, n->id, ver, &err);
		int rc = rec ? record_append(n->install, rec) : -1;
		if (!rec)
			fprintf(stderr, "llmb nightly: error: %s\n", err.len ? err.buf : "the run's record could not be built");
		fresh += rc > 0;
		json_decref(rec);
		sb_free(&err);
	}
	free(ver);
	printf("llmb nightly: night %s: %d run(s), %d recorded now, %d pending\n", n->id, runs, fresh, pending);
	return pending;
}

static void
write_status(struct night *n, int code)
{
	char *path = layout_nightly(n->install, n->id, LAYOUT_NIGHT_STATUS);
	char *s = xasprintf("%d %s\n", code, code >= 0 && code <= 4 ? verdict_words[code] : "error");
	if (write_file_atomic(path, s, strlen(s)) < 0)
		die("cannot write %s: %s", path, strerror(errno));
	free(path);
	free(s);
}

/* A night that could not be judged still says why, in the summary.txt the
 * notify hook mails: an error night is never silent. */
static void
night_failed(struct night *n, const char *why)
{
	char *path = layout_nightly(n->install, n->id, LAYOUT_NIGHT_SUMMARY);
	char *s = xasprintf("night %s: ERROR: the night was not judged\n%s%s", n->id, why ? why : "",
			    why && *why && why[strlen(why) - 1] != '\n' ? "\n" : "");
	mkdir_p(path, 1);
	if (write_file_atomic(path, s, strlen(s)) < 0)
		fprintf(stderr, "llmb nightly: error: cannot write %s: %s\n", path, strerror(errno));
	free(path);
	free(s);
}

/* Runs whose jobs could never start (drained nodes, a partition down, a
 * request over a limit) end the night as an error, not as a verdict on
 * performance: the summary says which and why, and the notify hook runs. */
static void
night_blocked(struct night *n, const char *lines, int count)
{
	char *path = layout_nightly(n->install, n->id, LAYOUT_NIGHT_SUMMARY), *old = read_file(path, NULL);
	char *s = xasprintf("%snight %s: ERROR: %d run(s) could not start; llmb cancelled their jobs (PENDING_LIMIT):\n%s",
			    old ? old : "", n->id, count, lines);
	fprintf(stderr, "llmb nightly: error: night %s: %d run(s) could not start:\n%s", n->id, count, lines);
	mkdir_p(path, 1);
	if (write_file_atomic(path, s, strlen(s)) < 0)
		fprintf(stderr, "llmb nightly: error: cannot write %s: %s\n", path, strerror(errno));
	free(path);
	free(old);
	free(s);
}

/* The workloads of the night that have a history (judge refuses a
 * --select name without one: a night whose runs all failed to record). */
static char *
with_history(const struct night *n, const char *workloads)
{
	struct sb o = {0};
	char *hd = layout_history(n->install, NULL);
	DIR *d = opendir(hd);
	for (const char *s = workloads; *s;) {
		size_t l = strcspn(s, ","), found = 0;
		if (d) {
			rewinddir(d);
			for (struct dirent *e; !found && (e = readdir(d));)
				found = !strncmp(e->d_name, s, l) && e->d_name[l] == '_';
		}
		if (found)
			sb_addf(&o, "%s%.*s", o.len ? "," : "", (int)l, s);
		s += l + (s[l] == ',');
	}
	if (d)
		closedir(d);
	free(hd);
	return o.buf ? sb_steal(&o) : xstrdup("");
}

/* The night judged (judge.h: the history read once, text, JSON and HTML
 * rendered from one model) into the night's directory; the judge's exit
 * status is the night's. A judge that refuses the history (status 2)
 * leaves the files of an earlier judging as they were, and the summary
 * says why in the words `llmb judge` would have used. */
static int
judge(struct night *n, const char *workloads)
{
	static const char *const files[JUDGE_NFORMATS] = {
		[JUDGE_TEXT] = LAYOUT_NIGHT_SUMMARY, [JUDGE_JSON] = LAYOUT_NIGHT_VERDICT, [JUDGE_HTML] = LAYOUT_NIGHT_TREND,
	};
	struct sb out[JUDGE_NFORMATS] = {{0}}, err = {0}, why = {0};
	char *sel = with_history(n, workloads);
	int code = judge_night(n->install, n->id, sel, file_exists(n->policy) ? n->policy : NULL, out, &err);
	if (err.len)
		fputs(err.buf, stderr);
	if (code == 2) {
		fprintf(stderr, "llmb nightly: error: llmb judge --format=text exited with status 2\n");
		sb_addf(&why, "llmb judge --format=text exited with status 2:\n%s", err.buf ? err.buf : "");
	}
	/* the trend page first and the summary last, as they were written */
	for (int f = JUDGE_HTML; f >= 0 && code != 2; f--) {
		char *path = layout_nightly(n->install, n->id, files[f]);
		if (write_file_atomic(path, out[f].buf ? out[f].buf : "", out[f].len) < 0) {
			sb_addf(&why, "cannot write %s: %s\n", path, strerror(errno));
			fprintf(stderr, "llmb nightly: error: %s", why.buf);
			code = 2;
		}
		free(path);
	}
	if (code == 2)
		night_failed(n, why.buf);
	for (int f = 0; f < JUDGE_NFORMATS; f++)
		sb_free(&out[f]);
	sb_free(&err);
	sb_free(&why);
	free(sel);
	return code;
}

static int
run_make(char **argv)
{
	return proc_run_child(argv, "nightly");
}

/* confirm_elsewhere (confirm.h): the SUSPECT configurations of the night
 * run once more without their nodes; a normal one acknowledges the night,
 * which is judged again. The outcome goes into the night's summary.txt,
 * verdict.json and confirmations.json. */
static int
confirm_elsewhere(struct night *n, const char *workloads, char **make_argv, int code)
{
	struct nmatrix m;
	int on = file_exists(n->policy) && !nmatrix_load(n->policy, &m) && m.confirm_elsewhere;
	if (file_exists(n->policy))
		nmatrix_free(&m);
	const char *ex = getenv("EXECUTOR");
	if (!on || code == 2)
		return code;
	if (!ex || strcmp(ex, "slurm")) {
		printf("llmb nightly: confirm_elsewhere needs EXECUTOR=slurm; no confirmation run\n");
		return code;
	}
	char *vp = layout_nightly(n->install, n->id, LAYOUT_NIGHT_VERDICT), *sp = layout_nightly(n->install, n->id, LAYOUT_NIGHT_SUMMARY);
	char *cp = layout_nightly(n->install, n->id, LAYOUT_NIGHT_CONFIRMATIONS);
	json_t *v = json_load_file(vp, 0, NULL), *conf = NULL;
	struct confirm_ctx c = {n->top, n->install, n->id, v, make_argv, run_make};
	/* a night judged again keeps the confirmations it had (their runs are done) */
	if (v && ((conf = confirm_night(&c)) || (conf = json_load_file(cp, 0, NULL)))) {
		if (json_integer_value(json_object_get(conf, "acknowledged")))
			code = judge(n, workloads);
		json_decref(v);
		v = json_load_file(vp, 0, NULL);
		struct sb o = {0};
		char *sum = read_file(sp, NULL);
		sb_add(&o, sum ? sum : "");
		confirm_text(&o, conf);
		char *cj = json_dumps(conf, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(6));
		char *cjl = xasprintf("%s\n", cj);
		if (v)
			json_object_set(v, "confirmations", conf);
		char *vj = v ? json_dumps(v, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(6)) : NULL;
		char *vjl = vj ? xasprintf("%s\n", vj) : NULL;
		if (write_file_atomic(cp, cjl, strlen(cjl)) < 0 || write_file_atomic(sp, o.buf, o.len) < 0 ||
		    (vjl && write_file_atomic(vp, vjl, strlen(vjl)) < 0))
			die("cannot write the confirmations of night %s: %s", n->id, strerror(errno));
		free(cj); free(cjl); free(vj); free(vjl); free(sum);
		sb_free(&o);
		json_decref(conf);
	}
	json_decref(v);
	free(cp);
	free(vp);
	free(sp);
	return code;
}

/* bisect_on_regression (bisect.h): each CONFIRMED regression of the night
 * is bisected; what it found goes into the night's summary, and the trend
 * page is drawn again, with each culprit (the judge finds bisect.json). */
static void
bisect_night(struct night *n, const char *workloads, char **make_argv, int code)
{
	struct nmatrix m;
	int on = code == 1 && *make_argv && file_exists(n->policy) && !nmatrix_load(n->policy, &m) && m.bisect_on_regression;
	if (code == 1 && *make_argv && file_exists(n->policy))
		nmatrix_free(&m);
	if (!on)
		return;
	char *vp = layout_nightly(n->install, n->id, LAYOUT_NIGHT_VERDICT), *sp = layout_nightly(n->install, n->id, LAYOUT_NIGHT_SUMMARY);
	json_t *v = json_load_file(vp, 0, NULL);
	char *sum = read_file(sp, NULL);
	struct sb o = {0};
	sb_add(&o, sum ? sum : "");
	size_t before = o.len;
	if (v)
		bisect_regressions(n->top, n->install, n->policy, v, make_argv, &o);
	if (o.len > before && write_file_atomic(sp, o.buf, o.len) < 0)
		die("cannot write the summary of night %s: %s", n->id, strerror(errno));
	if (o.len > before) {
		struct sb out[JUDGE_NFORMATS] = {{0}}, err = {0};
		char *sel = with_history(n, workloads), *tp = layout_nightly(n->install, n->id, LAYOUT_NIGHT_TREND);
		if (judge_night(n->install, n->id, sel, file_exists(n->policy) ? n->policy : NULL, out, &err) != 2 &&
		    write_file_atomic(tp, out[JUDGE_HTML].buf ? out[JUDGE_HTML].buf : "", out[JUDGE_HTML].len) < 0)
			die("cannot write the trend page of night %s: %s", n->id, strerror(errno));
		for (int f = 0; f < JUDGE_NFORMATS; f++)
			sb_free(&out[f]);
		sb_free(&err);
		free(sel);
		free(tp);
	}
	json_decref(v);
	sb_free(&o);
	free(sum);
	free(vp);
	free(sp);
}

/* NIGHTLY_NOTIFY='cmd' runs as `cmd SUMMARY-FILE` when the night needs
 * attention; the command is the user's own shell text. */
static void
notify(struct night *n, int code)
{
	const char *cmd = getenv("NIGHTLY_NOTIFY");
	if (!cmd || !*cmd || code == 0)
		return;
	char *sum = layout_nightly(n->install, n->id, LAYOUT_NIGHT_SUMMARY), *script = xasprintf("%s \"$1\"", cmd);
	char *argv[] = {"/bin/sh", "-c", script, "nightly-notify", sum, NULL};
	int rc = proc_run_child(argv, "nightly");
	if (rc)
		fprintf(stderr, "llmb nightly: warning: NIGHTLY_NOTIFY exited with status %d\n", rc);
	free(sum);
	free(script);
}

static void
print_file(const char *path)
{
	char *s = read_file(path, NULL);
	if (s)
		fputs(s, stdout);
	free(s);
}

static int
nightly_run(struct night *n, char **make_argv)
{
	int dry = make_dry_run();
	if (fix_night(n, 1))
		return 2;
	setenv("LLMB_NIGHT", n->id, 1);
	if (!getenv("LLMB_NIGHTLY") || !*getenv("LLMB_NIGHTLY"))
		setenv("LLMB_NIGHTLY", n->policy, 1);
	/* The night's plan, built once: a selection that plans nothing runs
	 * nothing (make -k would go on with the rules of an earlier night),
	 * and the runs collected after make are the runs it planned. It reads
	 * the checkout only, which the night's stages do not write; after a
	 * wait for another night, which may have lasted hours, it is read
	 * again. */
	struct sel s;
	int selbad = sel_from_env(&s) < 0;
	struct plan p;
	int waited = 0, bad = plan_build(&p, n->top, &s, 0) || selbad;
	if (!dry && !bad)
		mkdir_p(n->dir, 0);
	int lockfd = dry || bad ? -1 : take_lock(n, &waited);
	if (waited) {
		plan_free(&p);
		bad = plan_build(&p, n->top, &s, 0);
	}
	if (bad || fix_night(n, dry)) {
		plan_free(&p);
		if (lockfd >= 0)
			close(lockfd);
		return 2;
	}
	printf("llmb nightly: night %s%s\n", n->id, dry ? " (make -n: what would run)" : "");
	int mk = *make_argv ? proc_run_child(make_argv, "nightly") : 0;
	if (dry) {
		plan_free(&p);
		return mk;
	}
	struct sb wls = {0}, nostart = {0};
	int pending = collect(n, &p, &wls, &nostart);
	plan_free(&p);
	if (pending && n->async) {
		printf("llmb nightly: night %s: %d run(s) still running; the next make nightly collects and judges them\n",
		       n->id, pending);
		sb_free(&wls);
		sb_free(&nostart);
		close(lockfd);
		return 0;
	}
	if (pending)
		fprintf(stderr, "llmb nightly: night %s: %d run(s) did not run (make exited %d); judged without them\n",
			n->id, pending, mk);
	/* ",a,b," -> "a,b" */
	char *w = xstrndup(wls.buf ? wls.buf + 1 : "", wls.len > 1 ? wls.len - 2 : 0);
	sb_free(&wls);
	int code = confirm_elsewhere(n, w, make_argv, judge(n, w));
	bisect_night(n, w, make_argv, code);
	free(w);
	if (code == 0 && pending)
		code = 3;
	if (nostart.len) {
		int count = 0;
		for (size_t i = 0; i < nostart.len; i++)
			count += nostart.buf[i] == '\n';
		night_blocked(n, nostart.buf, count);
		code = 2;
	}
	sb_free(&nostart);
	write_status(n, code);
	char *sum = layout_nightly(n->install, n->id, LAYOUT_NIGHT_SUMMARY);
	print_file(sum);
	free(sum);
	notify(n, code);
	/* the night is over: the next make nightly starts a new one */
	char *cur = layout_in(n->dir, LAYOUT_NIGHTLY_CURRENT);
	unlink(cur);
	free(cur);
	close(lockfd);
	return code;
}

/* llmb nightly status [NIGHT]: the stored outcome of a night (default: the
 * latest judged one); exits with its status. */
static int
nightly_status(struct night *n, const char *want)
{
	char *night = want ? xstrdup(want) : NULL;
	if (!night) {
		char *cur = layout_in(n->dir, LAYOUT_NIGHTLY_CURRENT), *c = read_file(cur, NULL);
		if (c) {
			c[strcspn(c, "\n")] = 0;
			printf("night %s: in progress (make nightly collects it)\n", c);
		}
		free(c);
		free(cur);
		/* the latest night with a status */
		char *cmd = xasprintf("%s", n->dir);
		struct sb best = {0};
		DIR *d = opendir(cmd);
		for (struct dirent *e; d && (e = readdir(d));) {
			char *st = layout_nightly(n->install, e->d_name, LAYOUT_NIGHT_STATUS);
			if (night_valid(e->d_name) && file_exists(st) && (!best.buf || strcmp(e->d_name, best.buf) > 0)) {
				sb_reset(&best);
				sb_add(&best, e->d_name);
			}
			free(st);
		}
		if (d)
			closedir(d);
		free(cmd);
		night = best.buf ? sb_steal(&best) : NULL;
	}
	if (!night || !night_valid(night)) {
		fprintf(stderr, "llmb nightly: %s\n", night ? "error: NIGHT is a date, YYYY-MM-DD" : "no judged night yet");
		free(night);
		return 2;
	}
	char *sp = layout_nightly(n->install, night, LAYOUT_NIGHT_STATUS), *st = read_file(sp, NULL);
	int code = st ? atoi(st) : 2;
	printf("night %s: %s", night, st ? st : "not judged\n");
	char *sum = layout_nightly(n->install, night, LAYOUT_NIGHT_SUMMARY);
	print_file(sum);
	printf("files: %s/%s/{summary.txt,verdict.json,trend.html,status}\n", n->dir, night);
	free(sum); free(sp); free(st); free(night);
	return code;
}

int
cmd_nightly(int argc, char **argv)
{
	static const char usage[] =
		"usage: llmb nightly run [--top DIR] [--install DIR] [--policy FILE] [--async] -- MAKE-COMMAND...\n"
		"       llmb nightly status [--install DIR] [NIGHT]\n"
		"run: one night of the nightly matrix (what `make nightly` calls): fixes the night (NIGHT,\n"
		"else the unfinished one, else today in UTC), runs MAKE-COMMAND with LLMB_NIGHT set, records\n"
		"the finished runs in INSTALL/history, judges with `llmb judge` and writes\n"
		"INSTALL/nightly/<NIGHT>/{summary.txt,verdict.json,trend.html,status}.\n"
		"Exit status (also in the status file): 0 pass (suspects only warn), 1 confirmed regression,\n"
		"2 error, 3 invalid or failed runs, 4 inconclusive.\n";
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout, "%s", usage);
		return argc < 2 ? 2 : 0;
	}
	struct night n = {.top = ".", .install = layout_install_root(getenv(LAYOUT_INSTALL_VAR)),
		.policy = "pipelines/nightly.yaml"};
	const char *a = getenv("ASYNC"); /* read as the GNUmakefile reads it */
	n.async = a && *a ? parse_bool(a) : 0;
	if (n.async < 0) {
		fprintf(stderr, "llmb nightly: error: ASYNC=%s: expected %s\n", a, bool_spellings);
		return 2;
	}
	/* the limit of bisect_on_regression's bisections: refused now, not
	 * found wrong (or taken as no limit) after the night ran */
	const char *mg = getenv("BISECT_MAX_GPU_HOURS");
	double gh;
	if (mg && *mg && bisect_gpu_hours(mg, &gh)) {
		fprintf(stderr, "llmb nightly: error: BISECT_MAX_GPU_HOURS=%s: expected GPU-hours above 0 (a decimal number)\n", mg);
		return 2;
	}
	static const struct option longopts[] = {
		{"top", required_argument, NULL, 't'}, {"install", required_argument, NULL, 'i'},
		{"policy", required_argument, NULL, 'p'}, {"async", no_argument, NULL, 'a'}, {NULL, 0, NULL, 0},
	};
	const char *text;
	int c;
	/* the options follow the subcommand, argv[1]; the values are
	 * "--name=value" or the next word */
	cliopt_start();
	while ((c = cliopt_next(argc - 1, argv + 1, "", longopts, &text)) != -1) {
		if (c == '?') {
			fprintf(stderr, "%s", usage);
			return 2;
		}
		if (c == 'a')
			n.async = 1;
		else
			*(c == 't' ? &n.top : c == 'i' ? &n.install : &n.policy) = optarg;
	}
	/* i: the "--" before the make command, or status's NIGHT */
	int i = cliopt_dashes() ? optind : optind + 1;
	if (i < argc && !cliopt_dashes() && (argv[i][0] == '-' || strcmp(argv[1], "status"))) {
		fprintf(stderr, "%s", usage);
		return 2;
	}
	n.dir = layout_nightly(n.install, NULL, NULL);
	int rc;
	if (!strcmp(argv[1], "run"))
		rc = nightly_run(&n, argv + (i < argc ? i + 1 : argc));
	else if (!strcmp(argv[1], "status"))
		rc = nightly_status(&n, i < argc ? argv[i] : NULL);
	else {
		fprintf(stderr, "%s", usage);
		rc = 2;
	}
	free(n.dir);
	return rc;
}
