/* nightrecord: `llmb record`, the command. Records the parse stages of a
 * night (the plan of the selection in the environment, LLMB_NIGHT set), or
 * with --import seeds the history from run directories that exist already:
 * earlier `make report` runs (train.done, result.json), upstream
 * experiment folders (logs only, read by the log parser) and the job
 * folders of an install tree upstream's llmb-run wrote (its
 * llmb-config_<jobid>.yaml beside the job's log). An imported run's
 * night is the UTC date its log was last written; its job keys it, so a
 * second import appends nothing. A night's confirmation run
 * (night-<NIGHT>-confirm, confirm.h) is not imported: it is no night. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/cmds.h"
#include "base/util.h"
#include "base/yamlload.h"
#include "plan/nightmatrix.h"
#include "plan/plan.h"
#include "recipe/recipe.h"
#include "results/record.h"
#include "run/selenv.h"
#include "store/history.h"
#include "store/instance.h"
#include "store/layout.h"
#include "store/stagecfg.h"
#include "store/stagekind.h"

struct counts {
	int appended, present, failed;
};

static void
append_one(const char *install, json_t *rec, struct counts *c, const char *what)
{
	int rc = record_append(install, rec);
	if (rc > 0)
		printf("recorded %s: %s night %s job %s\n", what, json_string_value(json_object_get(rec, "fingerprint")),
		       json_string_value(json_object_get(rec, "night")), json_string_value(json_object_get(rec, "job")));
	if (rc == 0)
		printf("%s %s night %s job %s: already in the history\n", what, json_string_value(json_object_get(rec, "fingerprint")),
		       json_string_value(json_object_get(rec, "night")), json_string_value(json_object_get(rec, "job")));
	c->appended += rc > 0;
	c->present += rc == 0;
	c->failed += rc < 0;
}

/* ---- import ----------------------------------------------------------------- */

/* "cpu_tiny_fp32_2" -> its coordinates; 0 when the name is no run. */
static int
run_name(const char *name, char *gpu, char *size, char *dtype, long *scale)
{
	char g[64], s[64], d[64];
	int n = 0;
	if (sscanf(name, "%63[^_]_%63[^_]_%63[^_]_%ld%n", g, s, d, scale, &n) != 4 || name[n])
		return 0;
	strcpy(gpu, g);
	strcpy(size, s);
	strcpy(dtype, d);
	return *scale > 0;
}

/* The job id in an upstream log name: "log-..._<digits>.out", else the name. */
static char *
job_of_log(const char *name)
{
	size_t l = strlen(name);
	const char *end = name + l - 4, *p = end;
	while (p > name && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p < end && p > name && p[-1] == '_')
		return xstrndup(p, (size_t)(end - p));
	return xstrndup(name, l - 4);
}

struct imp {
	struct plan *p;
	const char *install, *workload;
	struct counts c;
	json_t *batch;              /* the records found, appended at the end in one locked write */
	char *version;
	struct { dev_t dev; ino_t ino; } *seen; /* directories walked: a symlink loop is walked once */
	size_t nseen;
	int undated;                /* logs whose time gives no night: bad input, nothing is imported */
	int runs;                   /* run folders (llmb's) and upstream job records found */
	int upstream, upstream_ok;
};

/* 2000-01-01 UTC: a log written before it has a clock that was never set. */
#define IMPORT_EPOCH 946684800L

/* A log's night from its modification time, or NULL (an error printed)
 * when it cannot be read or its time is before 2000 or in the future
 * (counted in *undated). */
static char *
log_night(const char *log, char sha[65], int *undated)
{
	struct stat st;
	size_t len = 0;
	const char *why = NULL;
	char *text = NULL;
	if (stat(log, &st) < 0)
		why = strerror(errno);
	else
		text = read_regular_file(log, &len, &why);
	if (!text) {
		fprintf(stderr, "llmb record: error: %s: cannot read the log: %s; not imported\n", log, why);
		return NULL;
	}
	sha256_hex(text, len, sha);
	free(text);
	time_t now = time(NULL);
	if (st.st_mtime < IMPORT_EPOCH || st.st_mtime > now + 86400) {
		/* said as the file's time, never as a night: no night is recorded */
		char *when = utc_time_as(st.st_mtime, "%Y-%m-%d");
		fprintf(stderr,
			"llmb record: error: %s: its modification time, %s, is %s: it gives the log no night "
			"(set one with touch -d YYYY-MM-DD, or move the log out)\n",
			log, when, st.st_mtime < IMPORT_EPOCH ? "before 2000 (a clock that was never set)" : "in the future");
		free(when);
		++*undated;
		return NULL;
	}
	return utc_time_as(st.st_mtime, "%Y-%m-%d");
}

/* The record source of run (w, gpu, size, dtype, scale) of the plan; 0
 * when the plan has no such run (a warning printed). */
static int
run_src(struct imp *im, const char *dir, const char *w, const char *gpu, const char *size, const char *dtype, long scale,
	struct rec_src *s)
{
	char *tid = instance_id(&(struct instance_key){"train", w, .gpu = gpu, .size = size, .dtype = dtype, .scale = scale});
	char *pid = instance_id(&(struct instance_key){"parse", w, .gpu = gpu, .size = size, .dtype = dtype, .scale = scale});
	struct inst *t = plan_find(im->p, tid), *pa = plan_find(im->p, pid);
	free(tid);
	free(pid);
	if (!t || !pa) {
		fprintf(stderr, "llmb record: warning: %s: %s has no run %s %s %s x%ld; skipped\n", dir, w, gpu, size, dtype, scale);
		return 0;
	}
	*s = (struct rec_src){im->install, im->p->rec.top, NULL, dir, &t->conf, &pa->conf, t->wl,
		gpu_find(&im->p->rec, gpu), NULL, NULL, NULL, NULL, NULL, "unknown"};
	s->version = im->version;
	return 1;
}

/* The record of one log into the batch. job NULL: the run's train.done
 * names it; else an upstream log, keyed by job and its content's hash. */
static void
import_log(struct imp *im, struct rec_src *s, const char *log, const char *job)
{
	char sha[65];
	char *night = log_night(log, sha, &im->undated);
	if (!night) {
		im->c.failed++;
		return;
	}
	s->night = night;
	s->log = log;
	s->job = job;
	s->executor = job ? "slurm" : NULL;
	struct sb err = {0};
	json_t *rec = record_build(s, &err);
	if (rec) {
		/* upstream logs are keyed by name: the content tells two runs of one name apart */
		if (job)
			json_object_set_new(rec, "log_sha256", json_string(sha));
		json_array_append_new(im->batch, rec);
	} else {
		fprintf(stderr, "llmb record: warning: %s\n", err.len ? err.buf : "the run's record could not be built");
		im->c.failed++;
	}
	sb_free(&err);
	free(night);
	s->night = s->log = s->job = NULL;
}

/* One run directory: its train.done, or each of its logs. */
static void
import_run(struct imp *im, const char *dir, const char *w, const char *gpu, const char *size, const char *dtype,
	   long scale)
{
	struct rec_src s;
	if (!run_src(im, dir, w, gpu, size, dtype, scale, &s))
		return;
	struct runrec *td = runrec_load(dir);
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l < 5 || strcmp(e->d_name + l - 4, ".out"))
			continue;
		if (utf8_invalid_at(e->d_name) >= 0 || has_control(e->d_name)) {
			/* its job id would be no text a record can hold */
			fprintf(stderr, "llmb record: warning: %s: a log whose name is not UTF-8 text; not recorded\n", dir);
			im->c.failed++;
			continue;
		}
		char *log = xasprintf("%s/%s", dir, e->d_name);
		/* with a train.done, only the log it names */
		if (td && (!td->log || strcmp(td->log, log))) {
			free(log);
			continue;
		}
		char *job = td ? NULL : job_of_log(e->d_name);
		s.nodes = td && td->executor && !strcmp(td->executor, "local") ? NULL /* this host */ : "unknown";
		import_log(im, &s, log, job);
		free(job);
		free(log);
	}
	if (d)
		closedir(d);
	runrec_free(td);
}

/* ---- upstream experiment folders --------------------------------------------
 * What upstream's llmb-run leaves (its run_config.py create_llmb_config
 * and job_logs.py, v26.06.01): per job, llmb-config_<jobid>.yaml in the
 * job's folder, $LLMB_INSTALL/workloads/<workload_type>_<workload>/
 * experiments/<name>/<name>_<time>/ (nemo, megatron_bridge: NeMo-Run's
 * job folder) or experiments/<key>_<size>_<dtype>_gpus<scale>/<time>/
 * (configured_sbatch), with model_info {model_name, model_size, dtype,
 * scale, gpu_type} and job_info.job_id; beside it the job's log,
 * log-*_<jobid>_<retry>.out (the last retry is the run), else the Slurm
 * output slurm-<jobid>.out. Legacy sbatch jobs put the file in
 * workloads/<key>/ and their log in the recipe's folder: not importable. */

/* "/workloads/", the folder of workloads as a path's part. */
#define WL_PART "/" LAYOUT_WORKLOADS "/"

/* The name after the last "/workloads/" of dir's real path, or NULL. */
static char *
key_of_path(const char *dir)
{
	char *abs = realpath(dir, NULL), *k = NULL;
	const char *p = abs ? abs : dir;
	const size_t wl = strlen(WL_PART);
	for (const char *q = strstr(p, WL_PART); q; q = strstr(q + 1, WL_PART)) {
		size_t n = strcspn(q + wl, "/");
		if (n) {
			free(k);
			k = xstrndup(q + wl, n);
		}
	}
	free(abs);
	return k;
}

static const char *
yscalar(const struct ynode *m, const char *a, const char *b)
{
	const struct ynode *v = ymap_get(ymap_get(m, a), b);
	return v && v->kind == Y_SCALAR && *v->str ? v->str : NULL;
}

static int
plan_has_workload(const struct plan *p, const char *w)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].workload, w))
			return 1;
	return 0;
}

/* The llmb workload of an upstream job: --workload, else the workload key's
 * folder less its "<workload_type>_", else the model name; NULL when the
 * plan has none of them. */
static char *
upstream_workload(struct imp *im, const char *dir, const struct ynode *root)
{
	if (im->workload)
		return xstrdup(im->workload);
	const char *type = yscalar(root, "workload_info", "workload_type");
	const char *model = yscalar(root, "model_info", "model_name");
	char *key = key_of_path(dir), *w = NULL;
	size_t tl = type ? strlen(type) : 0;
	if (key && type && !strncmp(key, type, tl) && key[tl] == '_' && plan_has_workload(im->p, key + tl + 1))
		w = xstrdup(key + tl + 1);
	else if (model && plan_has_workload(im->p, model))
		w = xstrdup(model);
	free(key);
	return w;
}

/* The job's log beside its llmb-config: the last retry's, else Slurm's. */
static char *
upstream_log(const char *dir, const char *job)
{
	char *pre = xasprintf("_%s_", job), *best = NULL;
	long best_retry = -1;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		const char *n = e->d_name;
		size_t l = strlen(n);
		if (!layout_log_file(n))
			continue;
		/* log-.*_<job>_<digits>.out: the last "_<job>_" before the retry */
		const char *end = n + l - strlen(LAYOUT_LOG_SUFFIX), *r = end;
		while (r > n && r[-1] >= '0' && r[-1] <= '9')
			r--;
		size_t pl = strlen(pre);
		if (r == end || (size_t)(r - n) < strlen(LAYOUT_LOG_PREFIX) + pl || strncmp(r - pl, pre, pl))
			continue;
		long retry = strtol(r, NULL, 10);
		if (retry > best_retry) {
			best_retry = retry;
			free(best);
			best = xasprintf("%s/%s", dir, n);
		}
	}
	if (d)
		closedir(d);
	free(pre);
	if (!best) {
		char *slurm = xasprintf("%s/" LAYOUT_SLURM_LOG_PREFIX "%s" LAYOUT_LOG_SUFFIX, dir, job);
		struct stat st;
		if (stat(slurm, &st) == 0)
			best = slurm;
		else
			free(slurm);
	}
	return best;
}

/* One llmb-config_<jobid>.yaml: its run, from its log; a job that cannot
 * be imported says what was expected, once. */
static void
import_upstream(struct imp *im, const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *w = NULL, *log = NULL;
	char *fjob = xstrndup(name + 12, strlen(name) - 12 - 5); /* llmb-config_<job>.yaml */
	struct stat st;
	/* a FIFO would block the walk */
	int regular = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	struct ydoc *doc = regular ? yaml_load_file(path) : NULL;
	const struct ynode *root = doc && !doc->errors ? doc->root : NULL;
	const char *job = yscalar(root, "job_info", "job_id"), *gpu = yscalar(root, "model_info", "gpu_type");
	const char *size = yscalar(root, "model_info", "model_size"), *dtype = yscalar(root, "model_info", "dtype");
	const char *sc = yscalar(root, "model_info", "scale");
	char *end = NULL;
	long scale = sc ? strtol(sc, &end, 10) : 0;
	im->upstream++;
	if (!job)
		job = fjob;
	if (!regular) {
		fprintf(stderr, "llmb record: error: %s: not a regular file; not imported\n", path);
	} else if (!root || root->kind != Y_MAP) {
		fprintf(stderr, "llmb record: error: %s: not an upstream job record (expected the YAML mapping llmb-run "
			"writes: job_info, model_info, ...); not imported\n", path);
	} else if (!*job || job[strspn(job, "0123456789")] || !gpu || !size || !dtype || !sc || *end || scale <= 0) {
		fprintf(stderr, "llmb record: error: %s: expected job_info.job_id (digits) and model_info's gpu_type, "
			"model_size, dtype and scale (a count); not imported\n", path);
	} else if (!(w = upstream_workload(im, dir, root))) {
		fprintf(stderr, "llmb record: error: %s: model %s is no llmb workload (expected workloads/<workload>.yaml, "
			"as llmb import writes it, or --workload); not imported\n", path,
			yscalar(root, "model_info", "model_name") ? yscalar(root, "model_info", "model_name") : "(none)");
	} else if (!(log = upstream_log(dir, job))) {
		fprintf(stderr, "llmb record: error: %s: no log of job %s beside it (expected " LAYOUT_LOG_PREFIX
			"*_%s_<retry>" LAYOUT_LOG_SUFFIX " or " LAYOUT_SLURM_LOG_PREFIX "%s" LAYOUT_LOG_SUFFIX ": a legacy sbatch job's log stays in its recipe folder); not imported\n",
			path, job, job, job);
	} else {
		struct rec_src s;
		int n = (int)json_array_size(im->batch);
		if (run_src(im, dir, w, gpu, size, dtype, scale, &s)) {
			s.nodes = "unknown";
			import_log(im, &s, log, job);
		}
		if ((int)json_array_size(im->batch) > n) {
			im->upstream_ok++;
			goto done;
		}
	}
	im->c.failed++;
done:
	ydoc_free(doc);
	free(fjob);
	free(log);
	free(w);
	free(path);
}

/* The workload a path below workloads/<w>/experiments belongs to, or NULL. */
static char *
workload_of_path(const char *dir)
{
	char *abs = realpath(dir, NULL), *w = NULL;
	const char *p = abs ? abs : dir, *q;
	const size_t wl = strlen(WL_PART), xl = strlen("/" LAYOUT_EXPERIMENTS);
	for (q = strstr(p, WL_PART); q; q = strstr(q + 1, WL_PART)) {
		const char *name = q + wl, *e = strchr(name, '/');
		if (e && !strncmp(e, "/" LAYOUT_EXPERIMENTS, xl) && (e[xl] == '/' || !e[xl])) {
			free(w);
			w = xstrndup(name, (size_t)(e - name));
		}
	}
	free(abs);
	return w;
}

/* night-<NIGHT>-<tag> (a lowercase tag; LLMB_NIGHT_TAG): a run made for a
 * night but no night of the history, as llmb nightly's confirmation runs
 * (night-<NIGHT>-confirm). A repeat of a night, night-<NIGHT>-<N>, is one. */
static int
tagged_night(const char *name)
{
	const char *tag = strrchr(name, '-');
	return !strncmp(name, "night-", 6) && tag && tag > name + 6 && tag[1] &&
	       !tag[1 + strspn(tag + 1, "abcdefghijklmnopqrstuvwxyz")];
}

/* Walks dir for run directories (and their repeat-* / night-* children). */
static void
import_walk(struct imp *im, const char *dir, const char *w, int depth)
{
	struct stat ds;
	if (stat(dir, &ds) == 0) {
		for (size_t i = 0; i < im->nseen; i++)
			if (im->seen[i].dev == ds.st_dev && im->seen[i].ino == ds.st_ino) {
				fprintf(stderr, "llmb record: warning: %s: already walked (a symbolic link loop or a second path); skipped\n", dir);
				return;
			}
		im->seen = xrealloc(im->seen, (im->nseen + 1) * sizeof *im->seen);
		im->seen[im->nseen].dev = ds.st_dev, im->seen[im->nseen++].ino = ds.st_ino;
	}
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "llmb record: error: cannot read %s: %s\n", dir, strerror(errno));
		im->c.failed++;
		return;
	}
	const char *base = strrchr(dir, '/');
	base = base ? base + 1 : dir;
	char gpu[64], size[64], dtype[64];
	long scale;
	int is_run = run_name(base, gpu, size, dtype, &scale);
	im->runs += is_run;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		size_t l = strlen(e->d_name);
		if (l > 17 && !strncmp(e->d_name, "llmb-config_", 12) && !strcmp(e->d_name + l - 5, ".yaml")) {
			im->runs++;
			import_upstream(im, dir, e->d_name);
			continue;
		}
		char *sub = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode) && depth < 6) {
			/* workloads/<w>/experiments names the workload */
			const char *nw = w;
			if (!strcmp(e->d_name, LAYOUT_EXPERIMENTS) && strstr(dir, WL_PART))
				nw = strrchr(dir, '/') + 1;
			if (!strcmp(e->d_name, LAYOUT_BISECT_RUNS) && !strcmp(base, "experiments")) {
				printf("llmb record: %s: skipped, a bisection's runs are no nights of the history\n", sub);
			} else if (is_run && tagged_night(e->d_name)) {
				printf("llmb record: %s: skipped, a confirmation run is no night of the history\n", sub);
			} else if (is_run && (!strncmp(e->d_name, "repeat-", 7) || !strncmp(e->d_name, "night-", 6))) {
				if (nw)
					import_run(im, sub, nw, gpu, size, dtype, scale);
			} else {
				import_walk(im, sub, nw, depth + 1);
			}
		}
		free(sub);
	}
	closedir(d);
	if (is_run) {
		if (w)
			import_run(im, dir, w, gpu, size, dtype, scale);
		else
			fprintf(stderr, "llmb record: warning: %s: which workload? (give --workload)\n", dir);
	}
}

/* The history's jobs of one file: job -> log_sha256 (or "" without one). */
static json_t *
jobs_of(const char *path)
{
	json_t *jobs = json_object();
	char *old = read_file(path, NULL);
	for (const char *l = old; l && *l;) {
		size_t n = strcspn(l, "\n");
		json_t *o = json_loadb(l, n, 0, NULL);
		const char *t = json_string_value(json_object_get(o, "type")), *j = json_string_value(json_object_get(o, "job"));
		const char *h = json_string_value(json_object_get(o, "log_sha256"));
		if (t && j && !strcmp(t, "run"))
			json_object_set_new(jobs, j, json_string(h ? h : ""));
		json_decref(o);
		l += n + (l[n] == '\n');
	}
	free(old);
	return jobs;
}

/* The batch, under one lock: one read and one append per history file. A
 * job already there with the same log (or no log hash) is present; with
 * another log it is another run of the same name, keyed JOB-<sha8>. */
static void
import_flush(struct imp *im)
{
	if (!json_array_size(im->batch))
		return;
	char *lockpath = layout_history_lock(im->install);
	int fd = history_lock(lockpath);
	if (fd < 0) { /* said, with what to do */
		im->c.failed += (int)json_array_size(im->batch);
		free(lockpath);
		return;
	}
	json_t *files = json_object(); /* fingerprint -> [records] */
	size_t i;
	json_t *rec;
	json_array_foreach(im->batch, i, rec) {
		const char *fp = json_string_value(json_object_get(rec, "fingerprint"));
		if (!json_object_get(files, fp))
			json_object_set_new(files, fp, json_array());
		json_array_append(json_object_get(files, fp), rec);
	}
	const char *fp;
	json_t *list;
	json_object_foreach(files, fp, list) {
		char *path = layout_history(im->install, fp);
		json_t *jobs = jobs_of(path);
		struct sb out = {0};
		int added = 0;
		json_array_foreach(list, i, rec) {
			const char *job = json_string_value(json_object_get(rec, "job"));
			const char *sha = json_string_value(json_object_get(rec, "log_sha256"));
			const char *have = json_string_value(json_object_get(jobs, job));
			if (have && sha && *have && strcmp(have, sha)) {
				char *j2 = xasprintf("%s-%.8s", job, sha);
				json_object_set_new(rec, "job", json_string(j2));
				free(j2);
				job = json_string_value(json_object_get(rec, "job"));
				have = json_string_value(json_object_get(jobs, job));
			}
			const char *night = json_string_value(json_object_get(rec, "night"));
			if (have) {
				printf("import %s night %s job %s: already in the history\n", fp, night, job);
				im->c.present++;
				continue;
			}
			json_object_set_new(jobs, job, json_string(sha ? sha : ""));
			char *s = json_dumps(rec, JSON_SORT_KEYS | JSON_COMPACT | JSON_REAL_PRECISION(10));
			sb_addf(&out, "%s\n", s ? s : "");
			free(s);
			printf("recorded import: %s night %s job %s\n", fp, night, job);
			added++;
		}
		int rc = out.len ? history_append_batch_locked(path, out.buf, out.len) : 0;
		if (rc == -1)
			fprintf(stderr, "llmb record: error: cannot append to %s: %s\n", path, strerror(errno));
		if (rc)
			im->c.failed += added;
		else
			im->c.appended += added;
		sb_free(&out);
		json_decref(jobs);
		free(path);
	}
	json_decref(files);
	close(fd);
	free(lockpath);
}

static int
import_dirs(const char *top, const char *install, const char *workload, char **dirs, int n)
{
	struct sel s;
	sel_all(&s);
	struct plan p;
	if (plan_build(&p, top, &s, 1)) {
		plan_free(&p);
		return 2;
	}
	int bad = 0;
	if (workload) {
		int known = 0;
		for (size_t i = 0; i < p.n && !known; i++)
			known = !strcmp(p.v[i].workload, workload);
		if (!known) {
			fprintf(stderr, "llmb record: error: --workload %s: no such workload in %s/" LAYOUT_WORKLOADS "\n", workload, top);
			bad = 1;
		}
	}
	for (int i = 0; i < n; i++) {
		struct stat st;
		int rc = stat(dirs[i], &st);
		if (rc < 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "llmb record: error: %s: %s\n", dirs[i], rc < 0 ? strerror(errno) : "not a folder");
			bad = 1;
		}
	}
	if (bad) {
		plan_free(&p);
		return 2;
	}
	struct imp im = {&p, install, workload, {0, 0, 0}, json_array(), llmb_version(top), NULL, 0, 0, 0, 0, 0};
	for (int i = 0; i < n; i++) {
		char *d = xstrdup(dirs[i]);
		size_t l = strlen(d);
		while (l > 1 && d[l - 1] == '/')
			d[--l] = 0;
		char *w = workload ? NULL : workload_of_path(d);
		int before = im.runs;
		import_walk(&im, d, workload ? workload : w, 0);
		/* nothing to import is said, never an empty success */
		if (im.runs == before) {
			fprintf(stderr, "llmb record: error: %s: no run found (expected llmb run folders, "
				"<gpu>_<size>_<dtype>_<scale>, or upstream llmb-run job folders holding "
				"llmb-config_<jobid>.yaml)\n", d);
			im.c.failed++;
		}
		free(w);
		free(d);
	}
	/* A log without a night is bad input: nothing is appended (exit 2). */
	if (im.undated)
		fprintf(stderr, "llmb record: error: %d log(s) without a night: nothing imported, no history written\n",
			im.undated);
	else {
		import_flush(&im);
		printf("llmb record: imported %d run(s), %d already in the history\n", im.c.appended, im.c.present);
		if (im.upstream)
			printf("llmb record: %d of %d upstream job record(s) (llmb-config_<jobid>.yaml) read\n",
				im.upstream_ok, im.upstream);
	}
	json_decref(im.batch);
	free(im.version);
	free(im.seen);
	plan_free(&p);
	return im.undated ? 2 : im.c.failed ? 1 : 0;
}

/* ---- the night's stages -------------------------------------------------------- */

static int
record_stages(const char *top, const char *install, const char *version, char **ids, int n)
{
	struct sel s;
	if (sel_from_env(&s) < 0)
		return 2;
	if (!s.night) {
		fprintf(stderr, "llmb record: error: no night: set LLMB_NIGHT (make nightly does)\n");
		return 2;
	}
	struct plan p;
	if (plan_build(&p, top, &s, 0)) {
		plan_free(&p);
		return 2;
	}
	struct counts c = {0, 0, 0};
	for (int i = 0; i < n; i++) {
		struct inst *in = plan_find(&p, ids[i]);
		struct sb err = {0};
		int parse = in && stage_kind_run(in->kind) == SK_RUN_PARSE;
		json_t *rec = parse ? record_of_stage(&p, in, install, s.night, version, &err) : NULL;
		if (!parse)
			sb_addf(&err, "%s is not a parse stage of the selection", ids[i]);
		if (rec)
			append_one(install, rec, &c, "run");
		else
			fprintf(stderr, "llmb record: error: %s\n", err.len ? err.buf : "the run's record could not be built");
		c.failed += !rec;
		json_decref(rec);
		sb_free(&err);
	}
	plan_free(&p);
	return c.failed ? 1 : 0;
}

int
cmd_record(int argc, char **argv)
{
	static const char usage[] =
		"usage: llmb record [--top DIR] [--install DIR] [--version V] PARSE-STAGE-ID...\n"
		"       llmb record --import [--top DIR] [--install DIR] [--workload W] DIR...\n"
		"Appends the history record of each run (once per job) to INSTALL/history/<fingerprint>.jsonl.\n"
		"The first form records a night's parse stages (LLMB_NIGHT and the selection in the environment);\n"
		"--import seeds the history from run directories (train.done or upstream logs), each run's night\n"
		"being the UTC date its log was last written.\n";
	static const struct option lo[] = {
		{"top", required_argument, 0, 't'}, {"install", required_argument, 0, 'i'},
		{"version", required_argument, 0, 'v'}, {"workload", required_argument, 0, 'w'},
		{"import", no_argument, 0, 'I'}, {"wait", required_argument, 0, 'W'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	const char *top = ".", *install = layout_install_root(getenv(LAYOUT_INSTALL_VAR));
	const char *version = NULL, *workload = NULL;
	int imp = 0;
	optind = 1;
	for (int c; (c = getopt_long(argc, argv, "h", lo, NULL)) != -1;) {
		switch (c) {
		case 't': top = optarg; break;
		case 'i': install = optarg; break;
		case 'v': version = optarg; break;
		case 'w': workload = optarg; break;
		case 'I': imp = 1; break;
		case 'W': if (lock_wait_option(optarg) < 0) return 2; break;
		case 'h': printf("%s", usage); return 0;
		default: fprintf(stderr, "%s", usage); return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s", usage);
		return 2;
	}
	if (imp)
		return import_dirs(top, install, workload, argv + optind, argc - optind);
	return record_stages(top, install, version, argv + optind, argc - optind);
}
