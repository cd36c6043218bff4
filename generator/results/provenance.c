/* provenance: see provenance.h. Groups: software (llmb, image, venv),
 * configuration (recipe, stage configuration, job script, knobs, env),
 * machine (the scheduler's account of the job), nodes (probe lines). */
#define _DEFAULT_SOURCE /* gethostname */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/capture.h"
#include "base/util.h"
#include "plan/envrec.h"
#include "recipe/recipehash.h"
#include "results/provenance.h"
#include "results/record.h"
#include "store/layout.h"
#include "store/stagecfg.h"

#define MIB (1024L * 1024L)

json_t *
prov_missing(const char *why)
{
	return json_pack("{s:s, s:s}", "status", "missing", "why", why);
}

static json_t *
str_or_missing(const char *v, const char *why)
{
	return v && *v ? json_string(v) : prov_missing(why);
}

/* sha256 of a whole (small) file, or missing. */
static json_t *
file_hash(const char *path)
{
	size_t len;
	char *s = read_file(path, &len), h[65];
	if (!s) {
		char *why = xasprintf("cannot read %s: %s", path, strerror(errno));
		json_t *m = prov_missing(why);
		free(why);
		return m;
	}
	sha256_hex(s, len, h);
	free(s);
	return json_string(h);
}

/* The .sqsh may be tens of GB: its size, and the sha256 of its first and
 * last MiB followed by the size in decimal, which changes when the image
 * does without reading all of it. */
static json_t *
sqsh_fact(const char *path)
{
	struct stat st;
	FILE *f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st) < 0) {
		char *why = xasprintf("cannot read %s: %s", path, strerror(errno));
		json_t *m = prov_missing(why);
		free(why);
		if (f)
			fclose(f);
		return m;
	}
	struct sb b = {0};
	char buf[65536];
	size_t n, got = 0;
	while (got < (size_t)MIB && (n = fread(buf, 1, sizeof buf, f)) > 0) {
		sb_addn(&b, buf, n);
		got += n;
	}
	if (st.st_size > 2 * MIB && fseek(f, -MIB, SEEK_END) == 0)
		while ((n = fread(buf, 1, sizeof buf, f)) > 0)
			sb_addn(&b, buf, n);
	fclose(f);
	sb_addf(&b, "%lld", (long long)st.st_size);
	char h[65];
	sha256_hex(b.buf, b.len, h);
	sb_free(&b);
	return json_pack("{s:I, s:s, s:s}", "size", (json_int_t)st.st_size, "sha256_ends", h,
			 "hash_of", "first MiB + last MiB + size");
}

/* The upstream stage of a kind ("venv."), or NULL. */
static const char *
upstream(const struct stagecfg *cfg, const char *prefix)
{
	for (size_t i = 0; i < cfg->nafter; i++)
		if (!strncmp(cfg->after[i].id, prefix, strlen(prefix)))
			return cfg->after[i].id;
	return NULL;
}

static json_t *
image_fact(const struct prov_src *s)
{
	char stem[256], buf[512];
	/* the image the stage runs in, else the one it waits for */
	const char *up = upstream(s->cfg, "image.");
	const char *img = s->cfg->kind == PC_TRAIN && s->cfg->bound ? s->cfg->u.train.image
			: s->cfg->kind == PC_DATA ? s->cfg->u.data.image : NULL;
	if (!(img && snprintf(stem, sizeof stem, "%s", img)) && !(up && snprintf(stem, sizeof stem, "%s", up + 6)))
		return prov_missing("the stage uses no container image");
	char *idp = layout_image_identity(s->install, stem);
	char *sq = layout_image(s->install, stem);
	char *id = read_file(idp, NULL);
	json_t *o = json_object();
	json_object_set_new(o, "ref", json_string(id && kv_get(id, "ref", buf, sizeof buf) ? buf : stem));
	json_object_set_new(o, "digest", id && kv_get(id, "digest", buf, sizeof buf) && *buf
			    ? json_string(buf) : prov_missing("the import did not report a digest"));
	json_object_set_new(o, "id_sha256", file_hash(idp));
	json_object_set_new(o, "sqsh", sqsh_fact(sq));
	free(id);
	free(idp);
	free(sq);
	return o;
}

/* The venv's llmb-venv.txt: python, repo pins, and the hash of the pip
 * freeze lines. */
static json_t *
venv_fact(const struct prov_src *s)
{
	const char *id = upstream(s->cfg, "venv.");
	if (!id)
		return prov_missing("the stage uses no venv");
	char *cp = layout_cfg(s->gen, id), dir[512];
	char *vc = read_file(cp, NULL);
	struct stagecfg v;
	int ok = vc && stagecfg_parse(&v, vc, cp) == 0;
	if (ok) {
		ok = v.kind == PC_VENV && v.u.venv.dir;
		if (ok)
			snprintf(dir, sizeof dir, "%s", v.u.venv.dir);
		stagecfg_free(&v);
	}
	free(cp);
	free(vc);
	if (!ok)
		return prov_missing("no venv configuration");
	char *vdir = layout_in(s->install, dir), *path = layout_in(vdir, LAYOUT_VENV_DONE);
	free(vdir);
	char *txt = read_file(path, NULL);
	free(path);
	if (!txt)
		return prov_missing("llmb-venv.txt is missing");
	size_t n;
	char **pins = kv_values(txt, "repo", &n), **pip, py[64], h[65];
	json_t *o = json_object(), *pa = json_array();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(pa, json_string(pins[i]));
		free(pins[i]);
	}
	free(pins);
	pip = kv_values(txt, "pip", &n);
	struct sb f = {0};
	for (size_t i = 0; i < n; i++) {
		sb_addf(&f, "%s\n", pip[i]);
		free(pip[i]);
	}
	free(pip);
	sha256_hex(f.buf ? f.buf : "", f.len, h);
	sb_free(&f);
	json_object_set_new(o, "python", str_or_missing(kv_get(txt, "python", py, sizeof py), "not recorded"));
	json_object_set_new(o, "pins", pa);
	json_object_set_new(o, "pip_freeze_sha256", json_string(h));
	json_object_set_new(o, "packages", json_integer((json_int_t)n));
	free(txt);
	return o;
}

/* NAME=value words (an environment), as an object; keep: which to take
 * (NULL: all). */
static json_t *
pairs(const char *const *v, size_t n, const struct pc_train *keep)
{
	json_t *o = json_object();
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(v[i], '=');
		if (eq && (!keep || pc_callerenv_kept(keep, i))) {
			char *name = xstrndup(v[i], (size_t)(eq - v[i]));
			json_object_set_new(o, name, json_string(eq + 1));
			free(name);
		}
	}
	return o;
}

/* The job script's sha256 with its submission token (which names the
 * started marker and differs at every submission) replaced by @TOKEN@. */
static json_t *
script_hash(const struct prov_src *s)
{
	char *sp = layout_job_script(s->state_dir, s->token);
	char *txt = read_file(sp, NULL), h[65];
	free(sp);
	if (!txt)
		return prov_missing("the job script is gone");
	struct sb b = {0};
	size_t tl = strlen(s->token);
	for (const char *p = txt, *q; *p; p = q + tl) {
		q = tl ? strstr(p, s->token) : NULL;
		if (!q) {
			sb_add(&b, p);
			break;
		}
		sb_addn(&b, p, (size_t)(q - p));
		sb_add(&b, "@TOKEN@");
	}
	sha256_hex(b.buf ? b.buf : "", b.len, h);
	sb_free(&b);
	free(txt);
	return json_string(h);
}

static json_t *
configuration(const struct prov_src *s)
{
	static const struct pc_train none;
	const struct stagecfg *cfg = s->cfg;
	const struct pc_train *t = cfg->kind == PC_TRAIN && cfg->bound ? &cfg->u.train : &none;
	const char *w = cfg->workload;
	json_t *o = json_object();
	char *rf = layout_recipe(s->top, w);
	json_t *rec = json_pack("{s:s, s:o}", "file", strrchr(rf, '/') + 1, "sha256", file_hash(rf));
	/* beside its pins: a bisection tells a recipe that moved only its pins */
	char ph[65];
	if (!recipe_pins_aside_sha256(rf, ph))
		json_object_set_new(rec, "pins_aside_sha256", json_string(ph));
	json_object_set_new(o, "recipe", rec);
	free(rf);
	json_object_set_new(o, "workload", json_string(w));
	json_object_set_new(o, "run", json_string(cfg->run ? cfg->run : ""));
	json_object_set_new(o, "config_hash", json_string(s->cfg_hash));
	json_object_set_new(o, "script_sha256", script_hash(s));
	json_t *kn = json_object(), *rk = json_object();
	for (size_t i = 0; i < t->nparams; i++) {
		char num[64];
		fmt_num(num, sizeof num, t->params[i].value);
		json_object_set_new(kn, t->params[i].name, json_string(num));
	}
	json_object_set_new(o, "knobs", kn);
	/* the run knobs as set (MAX_STEPS, ENABLE_*, EXTRA_WORK, TIME_LIMIT, ...): what "what changed" names */
	for (size_t i = 0; i < t->nknobs; i++)
		json_object_set_new(rk, t->knobs[i].name, json_string(t->knobs[i].value));
	json_object_set_new(o, "run_knobs", rk);
	json_object_set_new(o, "env", pairs((const char *const *)t->cmd.env, t->cmd.nenv, NULL));
	/* the caller's variables of the recorded families (envrec.h), only
	 * when there are some: a provenance without them reads as before */
	json_t *ce = pairs(t->callerenv, t->ncallerenv, t);
	if (json_object_size(ce))
		json_object_set_new(o, "environment", ce);
	else
		json_decref(ce);
	/* the training command as configured: the recipe's and the row's
	 * arguments, the overrides a reviewer reads */
	json_t *av = json_array();
	for (size_t i = 0; i < t->cmd.nargs; i++)
		json_array_append_new(av, json_string(t->cmd.args[i].word));
	json_object_set_new(o, "arguments", av);
	json_t *names = json_array();
	for (size_t i = 0; i < t->cmd.nsecrets; i++)
		json_array_append_new(names, json_string(t->cmd.secrets[i]));
	json_object_set_new(o, "secrets_by_name", names);
	return o;
}

static const char *const sacct_fields[] = {"partition", "qos", "reservation", "nodes", "submit", "start",
					   "end", "exit_code"};

/* Field k (0-based) of a sacct -P line: is it empty or "Unknown"? */
static int
sacct_unset(const char *line, int k)
{
	const char *p = line;
	for (; k > 0 && p; k--)
		p = strchr(p, '|'), p = p ? p + 1 : NULL;
	if (!p)
		return 1;
	size_t l = strcspn(p, "|");
	return !l || (l == 7 && !strncmp(p, "Unknown", 7));
}

/* One sacct call: partition, QOS, reservation, nodes, times, exit code. */
static void
slurm_facts(const struct prov_src *s, json_t *o)
{
	char *line = NULL;
	/* Accounting learns of the job's end after the job's own exit record:
	 * while its line has no partition yet (seen under load: partial
	 * fields), or no end (End "Unknown": a job accounting still holds
	 * running, for 3 to 4 s after the exit record on the test cluster),
	 * it is not the finished job's, so ask again, for 10 s at most. */
	for (int tries = 0; tries < 11 && strspn(s->job, "0123456789_+.") == strlen(s->job); tries++) {
		char *argv[] = {"sacct", "-n", "-X", "-P", "-j", (char *)s->job, "-o",
				"Partition,QOS,Reservation,NodeList,Submit,Start,End,ExitCode", NULL};
		if (tries)
			nanosleep(&(struct timespec){1, 0}, NULL);
		free(line);
		line = capture_first_line(argv);
		if (!line || (!sacct_unset(line, 0) && !sacct_unset(line, 6)))
			break; /* no answer at all, or the finished job's */
	}
	char *p = line;
	for (size_t i = 0; i < sizeof sacct_fields / sizeof *sacct_fields; i++) {
		size_t l = p ? strcspn(p, "|") : 0;
		json_object_set_new(o, sacct_fields[i], p && l && strncmp(p, "Unknown", l) && strncmp(p, "None", 4)
				    ? json_stringn(p, l) : prov_missing(line ? "sacct leaves it empty" : "sacct did not answer"));
		p = p && p[l] ? p + l + 1 : NULL;
	}
	free(line);
}

static void
iso_time(long t, char *buf, size_t len)
{
	time_t tt = t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The local executor: this host, submit time, and the exit record's end. */
static void
local_facts(const struct prov_src *s, json_t *o)
{
	char host[256] = "", t[32], buf[64];
	gethostname(host, sizeof host - 1);
	json_object_set_new(o, "nodes", str_or_missing(host, "gethostname failed"));
	if (s->submitted > 0) {
		iso_time(s->submitted, t, sizeof t);
		json_object_set_new(o, "submit", json_string(t));
	} else {
		json_object_set_new(o, "submit", prov_missing("not recorded"));
	}
	char *ep = layout_job_exit(s->state_dir, s->job);
	char *ex = read_file(ep, NULL);
	free(ep);
	json_object_set_new(o, "exit_code", ex && kv_get(ex, "status", buf, sizeof buf)
			    ? json_string(buf) : prov_missing("no exit record"));
	if (ex && kv_get(ex, "end", buf, sizeof buf)) {
		iso_time(atol(buf), t, sizeof t);
		json_object_set_new(o, "end", json_string(t));
	} else {
		json_object_set_new(o, "end", prov_missing("no exit record"));
	}
	free(ex);
}

static json_t *
machine(const struct prov_src *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "executor", json_string(s->executor));
	json_object_set_new(o, "job", json_string(s->job));
	json_object_set_new(o, "requeues", json_integer(s->restarts));
	if (!strcmp(s->executor, "slurm")) {
		slurm_facts(s, o);
	} else {
		local_facts(s, o);
	}
	return o;
}

/* A probe file that is not a JSON object naming its node (a probe of an
 * older llmb, a node whose bytes broke it, a truncated disk): the node is
 * kept, under the name in the file's, as unreadable with the parser's
 * reason, so that the run's validity sees a node it could not judge. */
static void
node_unreadable(json_t *o, const char *path, size_t skip, const json_error_t *e, int parsed)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t len = strlen(base);
	char *name = len > skip + 5 ? xstrndup(base + skip, len - skip - 5) : xstrdup("?");
	if (utf8_invalid_at(name) >= 0 || !*name) {
		free(name);
		name = xstrdup("?");
	}
	char *why = parsed ? xasprintf("its probe %s is not a JSON object naming the node its file is of", base)
			   : xasprintf("its probe %s is unreadable: line %d, column %d: %s", base, e->line, e->column, e->text);
	json_t *u = json_pack("{s:s, s:s}", "status", "unreadable", "why", utf8_invalid_at(why) < 0 ? why : "(not text)");
	json_object_set_new(o, name, u);
	free(why);
	free(name);
}

/* <name>.<job>.<node>.json: one JSON line per node, written by the job's
 * per-node probe (templates/probe-node.sh); keyed by node name. name is
 * probe (before training) or probe-after (when it has finished). */
static json_t *
nodes(const struct prov_src *s, const char *file)
{
	char *pat = xasprintf("%s/%s.%s.*.json", s->state_dir, file, s->job);
	glob_t g;
	int rc = glob(pat, 0, NULL, &g);
	free(pat);
	if (rc)
		return prov_missing(strcmp(file, LAYOUT_PROBE) ? "the job wrote no node probe after training"
					: "the job wrote no node probe");
	json_t *o = json_object();
	size_t skip = strlen(file) + strlen(s->job) + 2; /* "<file>.<job>." */
	for (size_t i = 0; i < g.gl_pathc; i++) {
		json_error_t e;
		json_t *j = json_load_file(g.gl_pathv[i], 0, &e);
		const char *name = json_string_value(json_object_get(j, "node"));
		/* the node the file is of (<file>.<job>.<node>.json) and no other:
		 * a probe naming another node would take that node's place */
		const char *base = strrchr(g.gl_pathv[i], '/') ? strrchr(g.gl_pathv[i], '/') + 1 : g.gl_pathv[i];
		size_t bl = strlen(base);
		if (name && (bl != skip + strlen(name) + 5 || strncmp(base + skip, name, strlen(name))))
			name = NULL;
		if (name && json_is_object(j)) {
			char *n = xstrdup(name);
			json_object_del(j, "node");
			json_object_set(o, n, j);
			free(n);
		} else {
			node_unreadable(o, g.gl_pathv[i], skip, &e, j != NULL);
		}
		json_decref(j);
	}
	globfree(&g);
	return o;
}

/* The environment the rank-0 task of the training ran with, as it dumped
 * it (env.JOB: NAME=value entries ended by NUL). Secrets are redacted
 * again here, by name, whatever the job wrote. Outside provenance's
 * groups: it holds the job's own identity (SLURM_JOB_ID, ports), which
 * llmb diff would name for every pair of runs. */
static json_t *
job_environment(const struct prov_src *s)
{
	char *path = layout_job_env(s->state_dir, s->job);
	size_t len;
	const char *why;
	char *txt = read_regular_file(path, &len, &why);
	free(path);
	if (!txt)
		return prov_missing("the training's rank-0 task left no environment dump");
	const struct pc_cmd *cmd = stagecfg_cmd(s->cfg);
	size_t nsec = cmd ? cmd->nsecrets : 0;
	char *const *sec = cmd ? (char *const *)cmd->secrets : NULL;
	json_t *vars = json_object();
	for (size_t at = 0; at < len;) {
		const char *e = txt + at, *eq = memchr(e, '=', len - at), *end = memchr(e, 0, len - at);
		size_t l = end ? (size_t)(end - e) : len - at;
		at += l + 1;
		if (!eq || eq >= e + l || eq == e)
			continue;
		char *name = xstrndup(e, (size_t)(eq - e));
		json_t *v = envrec_is_secret(name, sec, nsec) ? json_string(ENVREC_REDACTED)
			: json_stringn(eq + 1, (size_t)(e + l - eq - 1));
		if (!v) /* not UTF-8: JSON cannot hold it as it is */
			v = json_string("<not UTF-8>");
		json_object_set_new(vars, name, v);
		free(name);
	}
	free(txt);
	return json_pack("{s:s, s:o}", "task", "rank 0", "variables", vars);
}

json_t *
provenance_build(const struct prov_src *s)
{
	char *ver = llmb_version(s->top);
	json_t *sw = json_pack("{s:o, s:o, s:o}", "llmb_version",
			       strcmp(ver, "unknown") ? json_string(ver) : prov_missing("the checkout is not a git repository"),
			       "image", image_fact(s), "venv", venv_fact(s));
	free(ver);
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "v", 1, "software", sw, "configuration", configuration(s),
			 "machine", machine(s), "nodes", nodes(s, LAYOUT_PROBE), "nodes_after", nodes(s, LAYOUT_PROBE_AFTER),
			 "job_environment", job_environment(s));
}

void
provenance_write(const struct prov_src *s)
{
	json_t *p = provenance_build(s);
	char *txt = p ? json_dumps(p, JSON_SORT_KEYS | JSON_INDENT(2)) : NULL;
	if (txt) {
		char *t = xasprintf("%s\n", txt);
		free(txt);
		txt = t;
	}
	char *path = layout_in(s->run_dir, LAYOUT_PROVENANCE);
	if (!txt || write_file_atomic(path, txt, strlen(txt)) < 0)
		warn("cannot write %s: %s (the run itself is fine)", path, txt ? strerror(errno) : "no provenance");
	free(path);
	free(txt);
	json_decref(p);
}
