/* archive: `llmb archive` packs the results of an install tree into one
 * compressed tar, `llmb verify-archive` checks one.
 *
 * What is packed (paths below the install tree): every experiment folder's
 * run files (log-*.out, train.done, result.json, provenance.json), repeats
 * and nights included; every report in every format; the nightly folders
 * (summary, verdict.json, status, trend.html, ...); the history files; the
 * exemplar certification (exemplar/); and a system description of the
 * runs (llmb sysdesc of their provenance). Profiles (layout_profile_file)
 * only with --profiles, as upstream leaves them out.
 * Nothing else: no image, venv, dataset, job script or job record (a job
 * script may hold what a secret reached), no compressed file (an archive
 * written inside the tree), and nothing outside the tree: every folder is
 * opened from the install tree's descriptor without following a link; a
 * link in place of a folder of the layout is refused, one among the
 * results left out, each named. A secret's value in a result (secrets.h)
 * is replaced, and the MANIFEST says where.
 *
 * The archive is reproducible: members in byte order of their paths under
 * one folder named after the file, the MANIFEST first; tar headers with
 * mode, owner and time normalised (every member carries the newest
 * modification time of the results, or SOURCE_DATE_EPOCH); compressed by
 * zstd (single-threaded) or gzip -n, which write no time or name. The
 * MANIFEST names llmb's version, the install tree and that time, then one
 * line per member: "sha256  path  size". */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/capture.h"
#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/htab.h"
#include "base/secrets.h"
#include "base/tar.h"
#include "base/util.h"
#include "plan/envrec.h"
#include "results/archive.h"
#include "results/record.h"
#include "results/sysdesc.h"
#include "store/layout.h"

extern char **environ;

#define MANIFEST_TAG "# llmb archive 1"
#define TIME_MAX 253402300799LL /* 9999-12-31T23:59:59Z: the MANIFEST's time has four digits of year */
#define MAX_DEPTH 8 /* folders below an experiment folder: repeats, nights */

static const char usage_archive[] =
	"usage: llmb archive [--install DIR] [--out FILE] [--format=zstd|gzip] [--top DIR] [--profiles]\n"
	"Packs the results of the install tree (LLMB_INSTALL, else install/): training logs, train.done,\n"
	"result.json and provenance.json of every run, reports, nightly verdicts, history and a system\n"
	"description, with a MANIFEST of their sha256, into FILE (default llmb-archive.tar.zst, or .tar.gz\n"
	"when zstd is not installed). The same results give the same bytes. --top: the checkout whose\n"
	"git describe names llmb's version (default .). --profiles: the runs' profiles too (nsys reports,\n"
	"PyTorch profiler traces), which are left out otherwise.\n";
static const char usage_verify[] =
	"usage: llmb verify-archive FILE\n"
	"Checks an archive llmb archive wrote: every member against the sha256 and size its MANIFEST\n"
	"lists, every listed member present. Exit 0 ok, 1 a mismatch (each named), 2 not readable\n"
	"or not an archive.\n";

struct member {
	char *path; /* below the install tree */
	char *data;
	size_t len;
};

/* A secret's value found in the results: replaced by <redacted:NAME>. */
struct redaction {
	char *path, *name;
	size_t times;
};

struct collection {
	const char *install; /* its real path, for messages */
	int root;            /* the install tree, open: every path is walked from it */
	struct member *v;
	size_t n, cap;
	time_t newest;
	json_t *provs; /* the runs' provenance objects, for the system description */
	struct redaction *red;
	size_t nred;
	struct stat out; /* the --out file as it is, when it is (st_ino != 0) */
	int bad;
};

static void
add_member(struct collection *c, char *path, char *data, size_t len)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->v = xrealloc(c->v, c->cap * sizeof *c->v);
	}
	c->v[c->n++] = (struct member){path, data, len};
}

/* Hidden files (locks) and what an atomic write left behind. */
static int
skipped(const char *name)
{
	return name[0] == '.' || strstr(name, ".tmp.") != NULL;
}

/* zstd's or gzip's magic: compressed data is no result of llmb's, and an
 * archive written inside the tree must not go into the next one. */
static int
compressed(const char *data, size_t len)
{
	return (len >= 4 && !memcmp(data, "\x28\xb5\x2f\xfd", 4)) || (len >= 2 && !memcmp(data, "\x1f\x8b", 2));
}

/* Adds the regular file name of the folder dfd as the member rel; opened
 * without following a link, without blocking. */
static void
add_file(struct collection *c, int dfd, const char *name, const char *rel)
{
	if (has_control(rel)) { /* a MANIFEST line holds one path */
		fprintf(stderr, "llmb archive: %s/%s: a control character in the name; left out\n", c->install, rel);
		return;
	}
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	size_t len = 0;
	char *data = NULL;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		data = read_fd(fd, &len);
	else if (fd >= 0 || errno == ELOOP) /* replaced since it was listed */
		errno = EINVAL;
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (!data) {
		fprintf(stderr, "llmb archive: cannot read %s/%s: %s\n", c->install, rel,
			e == EINVAL ? "no longer a regular file" : strerror(e));
		c->bad = 1;
		return;
	}
	if (c->out.st_ino && st.st_dev == c->out.st_dev && st.st_ino == c->out.st_ino) {
		fprintf(stderr, "llmb archive: %s/%s: the --out file is one of the results; not replaced\n", c->install, rel);
		c->bad = 1;
		free(data);
		return;
	}
	if (compressed(data, len)) {
		fprintf(stderr, "llmb archive: %s/%s: compressed data (an archive?), no result; left out\n", c->install,
			rel);
		free(data);
		return;
	}
	if (st.st_mtime > c->newest)
		c->newest = st.st_mtime;
	add_member(c, xstrdup(rel), data, len);
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of the open folder dfd in byte order (NULL when it cannot be
 * read). */
static char **
entries(int dfd, size_t *n)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	*n = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	char **v = NULL;
	size_t cap = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (*n == cap)
			v = xrealloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
		v[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (v)
		qsort(v, *n, sizeof *v, by_name);
	return v;
}

static void
free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The folder rel of the tree's layout (layout.h, "workloads/W/reports")
 * opened from the install tree one part at a time, never through a
 * symbolic link: a link there would bring what lies outside the tree into
 * the archive, so it is refused (c->bad), named. The descriptor, or -1:
 * not there (nothing to take), or refused. */
static int
open_folder(struct collection *c, const char *rel)
{
	int fd = dup(c->root);
	for (const char *p = rel; fd >= 0 && *p;) {
		size_t k = strcspn(p, "/");
		char *part = xstrndup(p, k);
		int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), e = errno;
		struct stat st;
		if (next < 0 && fstatat(fd, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			fprintf(stderr,
				"llmb archive: %s/%.*s: a symbolic link where the install tree has a folder; refused "
				"(nothing outside the tree is packed: put the folder itself there)\n",
				c->install, (int)(p - rel + k), rel);
			c->bad = 1;
		} else if (next < 0 && e != ENOENT && e != ENOTDIR) {
			fprintf(stderr, "llmb archive: cannot read %s/%.*s: %s\n", c->install, (int)(p - rel + k), rel,
				strerror(e));
			c->bad = 1;
		}
		free(part);
		close(fd);
		fd = next;
		p += k + (p[k] == '/');
	}
	return fd;
}

/* What walk() takes from a folder: FILES its regular files that keep()
 * accepts; DEEP also its folders, down to depth levels. */
struct walk {
	int (*keep)(const char *name);
	int depth;
	int profiles; /* also what layout_profile_file says is a profile */
};

/* The results below the open folder dfd, rel below the install tree. A
 * symbolic link among them is left out, named. */
static void
walk(struct collection *c, int dfd, const char *rel, const struct walk *w, int depth)
{
	size_t n = 0;
	char **v = entries(dfd, &n);
	for (size_t i = 0; v && i < n; i++) {
		if (skipped(v[i]))
			continue;
		char *r = xasprintf("%s/%s", rel, v[i]);
		struct stat st;
		int ok = fstatat(dfd, v[i], &st, AT_SYMLINK_NOFOLLOW) == 0, fd;
		if (ok && S_ISLNK(st.st_mode) && (depth < w->depth || !w->keep || w->keep(v[i])))
			fprintf(stderr, "llmb archive: %s/%s: a symbolic link; left out\n", c->install, r);
		else if (ok && S_ISDIR(st.st_mode) && depth < w->depth &&
			 (fd = openat(dfd, v[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			walk(c, fd, r, w, depth + 1);
			close(fd);
		} else if (ok && S_ISREG(st.st_mode) &&
			   (!w->keep || w->keep(v[i]) || (w->profiles && layout_profile_file(r))))
			add_file(c, dfd, v[i], r);
		free(r);
	}
	free_list(v, n);
}

/* walk() of the layout's folder rel, when it is there. */
static void
walk_folder(struct collection *c, const char *rel, const struct walk *w, int depth)
{
	int fd = open_folder(c, rel);
	if (fd >= 0) {
		walk(c, fd, rel, w, depth);
		close(fd);
	}
}

static int
history_file(const char *name)
{
	size_t n = strlen(name);
	return n > 6 && !strcmp(name + n - 6, ".jsonl");
}

/* The names of the entries of the layout's folder rel that are folders
 * themselves (a link among them refused, named), in byte order. */
static char **
subfolders(struct collection *c, const char *rel, size_t *n)
{
	int fd = open_folder(c, rel);
	size_t m = 0;
	char **v = fd >= 0 ? entries(fd, &m) : NULL;
	*n = 0;
	for (size_t i = 0; i < m; i++) {
		struct stat st;
		if (skipped(v[i]) || fstatat(fd, v[i], &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !(S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode))) {
			free(v[i]);
			continue;
		}
		v[(*n)++] = v[i]; /* a link: open_folder refuses it by name */
	}
	if (fd >= 0)
		close(fd);
	return v;
}

/* Every result below the install tree, in c. */
static void
collect(struct collection *c, int profiles)
{
	static const struct walk flat = {NULL, 0, 0}, nights = {NULL, 1, 0}, hist = {history_file, 0, 0};
	const struct walk runs = {layout_run_file, MAX_DEPTH, profiles};
	char *wdir = layout_workloads(NULL);
	size_t n = 0;
	char **wl = subfolders(c, wdir, &n);
	for (size_t i = 0; i < n; i++) {
		char *rel = layout_workload(NULL, wl[i]);
		int fd = open_folder(c, rel);
		free(rel);
		if (fd < 0)
			continue;
		close(fd);
		rel = layout_experiments(NULL, wl[i]);
		walk_folder(c, rel, &runs, 1);
		free(rel);
		rel = layout_reports(NULL, wl[i]);
		walk_folder(c, rel, &flat, 0);
		free(rel);
	}
	free_list(wl, n);
	free(wdir);
	/* nightly/<night>/<file>: the folder's own files (current, the lock) are state */
	char *rel = layout_nightly(NULL, NULL, NULL);
	char **nv = subfolders(c, rel, &n);
	for (size_t i = 0; i < n; i++) {
		char *r = layout_nightly(NULL, nv[i], NULL);
		walk_folder(c, r, &nights, 1);
		free(r);
	}
	free_list(nv, n);
	free(rel);
	rel = layout_history(NULL, NULL);
	walk_folder(c, rel, &hist, 0);
	free(rel);
	/* exemplar/: the certification (table, JSON, status) */
	rel = layout_exemplar(NULL, NULL);
	walk_folder(c, rel, &flat, 0);
	free(rel);
}

/* A secret's value: this environment's, else one a run's provenance
 * recorded in clear (known is NAME -> value). */
static const char *
secret_value(const char *name, void *known)
{
	const char *v = getenv(name);
	return v && *v ? v : json_string_value(json_object_get(known, name));
}

/* Replaces every secret's value in the members (secrets.h; said on stderr,
 * listed in c->red for the MANIFEST); a member whose name holds one is
 * left out. The secrets' names: the recipes' of top, those the runs'
 * provenance says their jobs were given, and every name of this
 * environment or of a job's recorded one that secrets_name calls a
 * secret's (a provenance written before it redacted them all holds their
 * values). */
static void
redact(struct collection *c, const char *top)
{
	json_t *names = json_array(), *known = json_object(), *v;
	const char *k;
	for (char **e = environ; *e; e++) {
		char *name = xstrndup(*e, strcspn(*e, "="));
		if (secrets_name(name))
			json_array_append_new(names, json_string(name));
		free(name);
	}
	for (size_t i = 0; i < c->n; i++) {
		const char *slash = strrchr(c->v[i].path, '/');
		if (strcmp(slash ? slash + 1 : c->v[i].path, LAYOUT_PROVENANCE))
			continue;
		json_t *p = json_loadb(c->v[i].data, c->v[i].len, 0, NULL);
		size_t j;
		json_array_foreach(json_object_get(json_object_get(p, "configuration"), "secrets_by_name"), j, v)
			json_array_append(names, v);
		json_object_foreach(json_object_get(json_object_get(p, "job_environment"), "variables"), k, v) {
			if (!secrets_name(k) || !json_is_string(v) || !strcmp(json_string_value(v), ENVREC_REDACTED))
				continue;
			json_array_append_new(names, json_string(k));
			json_object_set(known, k, v);
		}
		json_decref(p);
	}
	struct secrets sec;
	char *recipes = layout_workloads(top);
	secrets_load(&sec, recipes, names, secret_value, known, "llmb archive");
	free(recipes);
	json_decref(names);
	size_t *times = xcalloc(sec.n + 1, sizeof *times), keep = 0, len;
	for (size_t i = 0; sec.n && i < c->n; i++) {
		struct member *m = &c->v[i];
		char *shown = secrets_redact(&sec, m->path, strlen(m->path), &len, times);
		if (shown) {
			fprintf(stderr, "llmb archive: %s/%s: a secret's value in the name; left out\n", c->install, shown);
			free(shown);
			free(m->path);
			free(m->data);
			continue;
		}
		char *r = secrets_redact(&sec, m->data, m->len, &len, times);
		if (r) {
			free(m->data);
			m->data = r;
			m->len = len;
		}
		for (size_t j = 0; r && j < sec.n; j++) {
			if (!times[j])
				continue;
			fprintf(stderr, "llmb archive: %s/%s: %s's value replaced by %s (%zu time%s)\n", c->install,
				m->path, sec.v[j].name, sec.v[j].repl, times[j], times[j] == 1 ? "" : "s");
			c->red = xrealloc(c->red, (c->nred + 1) * sizeof *c->red);
			c->red[c->nred++] = (struct redaction){xstrdup(m->path), xstrdup(sec.v[j].name), times[j]};
		}
		c->v[keep++] = *m;
	}
	if (sec.n)
		c->n = keep;
	free(times);
	secrets_free(&sec);
	json_decref(known);
}

/* The runs' provenance, as packed, for the system description. */
static void
provenances(struct collection *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const char *slash = strrchr(c->v[i].path, '/');
		if (strcmp(slash ? slash + 1 : c->v[i].path, LAYOUT_PROVENANCE))
			continue;
		json_t *p = json_loadb(c->v[i].data, c->v[i].len, 0, NULL);
		if (json_is_object(p))
			json_array_append(c->provs, p);
		json_decref(p);
	}
}

/* What upstream's archive shows a reviewer of each job (NeMo-Run's job
 * folder: its configuration, image, environment and the arguments that
 * override the recipe), taken from each run's provenance.json into
 * <run>/configuration.json beside it. */
static void
add_run_configurations(struct collection *c)
{
	size_t n = c->n;
	for (size_t i = 0; i < n; i++) {
		const char *p = c->v[i].path, *slash = strrchr(p, '/');
		if (!slash || strcmp(slash + 1, LAYOUT_PROVENANCE))
			continue;
		json_t *pv = json_loadb(c->v[i].data, c->v[i].len, 0, NULL);
		json_t *cf = json_object_get(pv, "configuration"), *sw = json_object_get(pv, "software"),
		       *mc = json_object_get(pv, "machine");
		if (json_is_object(cf)) {
			json_t *o = json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}",
					      "workload", json_object_get(cf, "workload"), "run", json_object_get(cf, "run"),
					      "job", json_object_get(mc, "job"), "executor", json_object_get(mc, "executor"),
					      "image", json_object_get(sw, "image"), "environment", json_object_get(cf, "env"),
					      "arguments", json_object_get(cf, "arguments"), "parallel", json_object_get(cf, "knobs"),
					      "run_knobs", json_object_get(cf, "run_knobs"), "secrets_by_name",
					      json_object_get(cf, "secrets_by_name"), "config_hash", json_object_get(cf, "config_hash"));
			char *d = o ? json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
			if (d)
				add_member(c, xasprintf("%.*s/%s", (int)(slash - p), p, LAYOUT_ARCHIVE_RUNCONFIG), d, strlen(d));
			json_decref(o);
		}
		json_decref(pv);
	}
}

static int
by_path(const void *a, const void *b)
{
	return strcmp(((const struct member *)a)->path, ((const struct member *)b)->path);
}

/* The MANIFEST: what made the archive, then one line per member. */
static char *
manifest(const struct collection *c, const char *version, const char *install, time_t t)
{
	struct sb s = {0};
	char *when = utc_time_as(t, "%Y-%m-%dT%H:%M:%SZ");
	sb_addf(&s, "%s\n# llmb: %s\n# install: %s\n# time: %s\n", MANIFEST_TAG, version, install, when);
	for (size_t i = 0; i < c->nred; i++)
		sb_addf(&s, "# redacted: %s's value, %zu time%s, in %s\n", c->red[i].name, c->red[i].times,
			c->red[i].times == 1 ? "" : "s", c->red[i].path);
	sb_addf(&s, "# members: %zu, then one line each: sha256  path  size\n", c->n);
	for (size_t i = 0; i < c->n; i++) {
		char h[65];
		sha256_hex(c->v[i].data, c->v[i].len, h);
		sb_addf(&s, "%s  %s  %zu\n", h, c->v[i].path, c->v[i].len);
	}
	free(when);
	return sb_steal(&s);
}

/* Whether prog is a program in PATH. */
static int
in_path(const char *prog)
{
	const char *path = getenv("PATH");
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");
		char *f = xasprintf("%.*s/%s", (int)n, n ? p : ".", prog);
		int ok = access(f, X_OK) == 0;
		free(f);
		if (ok)
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

/* in through the compressor, into out. 0, or -1 (said on stderr). */
static int
compress(const char *format, const struct sb *in, struct sb *out)
{
	char *zstd[] = {"zstd", "-q", "-c", "--single-thread", "-", NULL};
	char *gzip[] = {"gzip", "-n", "-c", NULL};
	struct sb err = {0};
	struct proc p = {.argv = strcmp(format, "zstd") ? gzip : zstd, .in = in->buf, .inlen = in->len,
			 .out = out, .err = &err};
	int rc = proc_run(&p);
	if (rc != 0)
		fprintf(stderr, "llmb archive: %s failed (%s): %s\n", format,
			rc < 0 ? strerror(p.error) : "exit status", err.buf ? err.buf : "");
	sb_free(&err);
	return rc == 0 ? 0 : -1;
}

/* The folder the members lie in: out's file name without its suffixes. */
static char *
folder_of(const char *out)
{
	const char *slash = strrchr(out, '/'), *base = slash ? slash + 1 : out;
	static const char *const sfx[] = {".tar.zst", ".tar.gz", ".tzst", ".tgz", ".zst", ".gz", ".tar"};
	size_t n = strlen(base);
	for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++) {
		size_t k = strlen(sfx[i]);
		if (n > k && !strcmp(base + n - k, sfx[i])) {
			n -= k;
			break;
		}
	}
	/* "..tar.zst" would give members named ./x, "...tar.zst" ../x */
	char *f = xstrndup(base, n);
	if (!n || !strcmp(f, ".") || !strcmp(f, "..") || has_control(f)) {
		free(f);
		f = xstrdup(LAYOUT_ARCHIVE_DEFAULT);
	}
	return f;
}

/* The archive's time: SOURCE_DATE_EPOCH, else the newest member's. */
static time_t
archive_time(const struct collection *c)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	char *end;
	if (e && *e) {
		errno = 0;
		long long v = strtoll(e, &end, 10);
		if (!*end && !errno && v >= 0 && v <= TIME_MAX)
			return (time_t)v;
		fprintf(stderr, "llmb archive: SOURCE_DATE_EPOCH=%s is not a time in seconds (up to the year 9999); ignored\n",
			e);
	}
	return c->newest;
}

static void
free_collection(struct collection *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].data);
	}
	free(c->v);
	json_decref(c->provs);
	for (size_t i = 0; i < c->nred; i++) {
		free(c->red[i].path);
		free(c->red[i].name);
	}
	free(c->red);
	if (c->root >= 0)
		close(c->root);
}

/* The tar stream: folder/MANIFEST, then every member, whose bytes are
 * released as they go in (the results are held once, not twice). */
static int
pack(struct collection *c, const char *folder, const char *man, time_t t, struct sb *tar)
{
	size_t total = 4 * 512 + strlen(man);
	for (size_t i = 0; i < c->n; i++)
		total += 3 * 512 + c->v[i].len; /* a pax header, a header, padding */
	sb_grow(tar, total);
	char *p = xasprintf("%s/%s", folder, LAYOUT_ARCHIVE_MANIFEST);
	int rc = tar_add(tar, p, man, strlen(man), t);
	free(p);
	for (size_t i = 0; rc == 0 && i < c->n; i++) {
		p = xasprintf("%s/%s", folder, c->v[i].path);
		if ((rc = tar_add(tar, p, c->v[i].data, c->v[i].len, t)) < 0)
			fprintf(stderr, "llmb archive: %s: too large for a tar member\n", c->v[i].path);
		free(p);
		free(c->v[i].data);
		c->v[i].data = NULL;
	}
	tar_end(tar);
	return rc;
}

/* Collects, lists, packs and compresses install's results into out. */
static int
archive(const char *install, const char *out, const char *format, const char *top, int profiles)
{
	char real[PATH_MAX];
	struct stat st;
	if (!realpath(install, real) || stat(real, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "llmb archive: %s: not an install tree\n", install);
		return 2;
	}
	if (has_control(real)) { /* the MANIFEST names it on one line */
		fprintf(stderr, "llmb archive: %s: a control character in the install tree's path\n", install);
		return 2;
	}
	struct collection c = {.install = real, .provs = json_array(),
			       .root = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
	if (stat(out, &c.out) < 0)
		c.out.st_ino = 0;
	if (c.root < 0) {
		fprintf(stderr, "llmb archive: cannot read %s: %s\n", real, strerror(errno));
		c.bad = 1;
	} else {
		collect(&c, profiles);
		add_run_configurations(&c);
	}
	if (!c.bad)
		redact(&c, top);
	if (!c.bad && !c.n)
		fprintf(stderr, "llmb archive: no results under %s (no run, report, night or history)\n", real);
	if (c.bad || !c.n) {
		free_collection(&c);
		return 2;
	}
	provenances(&c);
	if (json_array_size(c.provs)) {
		static const char *const none[4];
		char *d = sysdesc_text(c.provs, none);
		add_member(&c, xstrdup(LAYOUT_ARCHIVE_SYSDESC), d, strlen(d));
	}
	qsort(c.v, c.n, sizeof *c.v, by_path);
	time_t t = archive_time(&c);
	char *version = llmb_version(top), *man = manifest(&c, version, real, t), *folder = folder_of(out);
	struct sb tar = {0}, z = {0};
	int rc = 2;
	if (pack(&c, folder, man, t, &tar) == 0 && compress(format, &tar, &z) == 0) {
		if (write_file_atomic(out, z.buf, z.len) < 0)
			fprintf(stderr, "llmb archive: cannot write %s: %s\n", out, strerror(errno));
		else
			rc = 0;
	}
	if (rc == 0)
		printf("%s: %zu members and the MANIFEST, %zu bytes (%s)\n", out, c.n, z.len, format);
	sb_free(&tar);
	sb_free(&z);
	free(version);
	free(man);
	free(folder);
	free_collection(&c);
	return rc;
}

int
cmd_archive(int argc, char **argv)
{
	const char *install = layout_install_root(getenv(LAYOUT_INSTALL_VAR)), *out = NULL, *format = NULL, *top = ".";
	static const struct option longopts[] = {
		{"install", required_argument, NULL, 'i'}, {"out", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'}, {"top", required_argument, NULL, 't'},
		{"profiles", no_argument, NULL, 'p'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *text;
	int c, profiles = 0;
	cliopt_start();
	while ((c = cliopt_next(argc, argv, "h", longopts, &text)) != -1) {
		if (c == 'p')
			profiles = 1;
		else if (c == 'i')
			install = optarg;
		else if (c == 'o')
			out = optarg;
		else if (c == 'f')
			format = optarg;
		else if (c == 't')
			top = optarg;
		else if (c == 'h')
			return fputs(usage_archive, stdout), 0;
		else
			return fputs(usage_archive, stderr), 2;
	}
	if (optind < argc || cliopt_dashes() || !*install || (out && !*out))
		return fputs(usage_archive, stderr), 2;
	if (format && strcmp(format, "zstd") && strcmp(format, "gzip")) {
		fprintf(stderr, "llmb archive: --format=%s: zstd or gzip\n", format);
		return 2;
	}
	if (!format)
		format = in_path("zstd") ? "zstd" : "gzip";
	else if (!in_path(format)) {
		fprintf(stderr, "llmb archive: --format=%s: %s is not installed\n", format, format);
		return 2;
	}
	char *dflt = xasprintf("%s.tar.%s", LAYOUT_ARCHIVE_DEFAULT, strcmp(format, "zstd") ? "gz" : "zst");
	if (!out)
		out = dflt;
	struct stat st;
	int rc;
	if (lstat(out, &st) == 0 && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "llmb archive: %s exists and is not a regular file; not replaced\n", out);
		rc = 2;
	} else {
		rc = archive(install, out, format, top, profiles);
	}
	free(dflt);
	return rc;
}

/* ---- verify-archive ------------------------------------------------------------ */

/* A MANIFEST line: sha256, path, size. */
struct listed {
	char sha[65];
	char *path;
	unsigned long long size;
	int seen;
};

struct check {
	const char *file;
	struct listed *v;
	size_t n;
	struct pindex index;
	int bad;
};

static void
mismatch(struct check *k, const char *path, const char *what)
{
	printf("%s: %s: %s\n", k->file, path, what);
	k->bad++;
}

/* Whether path is a plain relative name: no leading '/', no empty, "." or
 * ".." part. tar would write another one elsewhere (res/../../x), or two
 * names would be one file (res/x, res/./x). */
static int
plain_path(const char *path)
{
	for (const char *p = path;; p++) {
		size_t n = strcspn(p, "/");
		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += n;
		if (!*p)
			return 1;
	}
}

static const char not_plain[] = "not a plain name below the archive's folder (absolute, or an empty, . or .. part)";

/* Reads the MANIFEST's lines into k. -1: not an llmb MANIFEST. */
static int
read_manifest(struct check *k, const char *text, size_t len)
{
	if (len < strlen(MANIFEST_TAG) + 1 || memcmp(text, MANIFEST_TAG "\n", strlen(MANIFEST_TAG) + 1))
		return -1;
	size_t cap = 0, lineno = 0;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = xstrndup(p, n);
		p += n + 1;
		lineno++;
		if (line[0] == '#') {
			free(line);
			continue;
		}
		char *sz = strrchr(line, ' ');
		char *endp = NULL;
		unsigned long long size = sz && sz[1] ? strtoull(sz + 1, &endp, 10) : 0;
		int ok = n >= 70 && strspn(line, "0123456789abcdef") == 64 && !memcmp(line + 64, "  ", 2) && endp &&
			 !*endp && sz > line + 67 && sz[-1] == ' ';
		if (!ok) {
			char *where = xasprintf("line %zu", lineno);
			mismatch(k, LAYOUT_ARCHIVE_MANIFEST, where);
			free(where);
			free(line);
			continue;
		}
		if (k->n == cap)
			k->v = xrealloc(k->v, (cap = cap ? 2 * cap : 64) * sizeof *k->v);
		struct listed *l = &k->v[k->n];
		memcpy(l->sha, line, 64);
		l->sha[64] = 0;
		l->path = xstrndup(line + 66, (size_t)(sz - 1 - (line + 66)));
		l->size = size;
		l->seen = 0;
		if (!plain_path(l->path)) {
			char *where = xasprintf("line %zu: %s", lineno, not_plain);
			mismatch(k, LAYOUT_ARCHIVE_MANIFEST, where);
			free(where);
		}
		if (index_get(&k->index, l->path) >= 0) {
			mismatch(k, l->path, "listed twice in the MANIFEST");
			free(l->path);
		} else {
			index_add(&k->index, l->path, k->n++);
		}
		free(line);
	}
	return 0;
}

/* One member against the MANIFEST. */
static void
check_member(struct check *k, const struct tar_member *m, const char *path)
{
	long i = index_get(&k->index, path);
	if (i < 0) {
		mismatch(k, path, "not in the MANIFEST");
		return;
	}
	struct listed *l = &k->v[i];
	char h[65];
	if (l->seen++) {
		mismatch(k, path, "a second member of this name");
	} else if (m->type != '0') {
		mismatch(k, path, "not a regular file");
	} else if (m->len != l->size) {
		char *w = xasprintf("size %zu, the MANIFEST says %llu", m->len, l->size);
		mismatch(k, path, w);
		free(w);
	} else if (sha256_hex(m->data, m->len, h), strcmp(h, l->sha)) {
		mismatch(k, path, "sha256 differs from the MANIFEST's");
	}
}

/* The decompressed bytes of file into out; 0 or -1 (said on stderr). The
 * file is opened once, without blocking (a FIFO is refused, not read). */
static int
decompress(const char *file, struct sb *out)
{
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "llmb verify-archive: cannot read %s: %s\n", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	unsigned char mg[4] = {0};
	ssize_t got = S_ISREG(st.st_mode) ? read(fd, mg, 4) : -1;
	const char *prog = got == 4 && !memcmp(mg, "\x28\xb5\x2f\xfd", 4) ? "zstd"
			   : got >= 2 && mg[0] == 0x1f && mg[1] == 0x8b ? "gzip" : NULL;
	if (!prog || lseek(fd, 0, SEEK_SET) != 0) {
		fprintf(stderr, "llmb verify-archive: %s: %s: not an archive\n", file,
			S_ISREG(st.st_mode) ? "neither zstd nor gzip data" : "not a regular file");
		close(fd);
		return -1;
	}
	char *argv[] = {(char *)prog, "-d", "-c", "-q", NULL};
	struct sb err = {0};
	struct proc p = {.argv = argv, .in_fd = fd, .out = out, .err = &err};
	int rc = proc_run(&p);
	if (rc != 0)
		fprintf(stderr, "llmb verify-archive: %s: %s %s%s\n", file, prog,
			rc < 0 ? "cannot be run: " : "cannot decompress it: ",
			rc < 0 ? strerror(p.error) : err.buf ? err.buf : "");
	close(fd);
	sb_free(&err);
	return rc == 0 ? 0 : -1;
}

/* Reads the tar stream: folder/MANIFEST first, then the members. 0, or 2
 * when it is no archive of llmb's (said on stderr). */
static int
check_stream(struct check *k, const char *tar, size_t len)
{
	struct tar_reader r = {.buf = tar, .len = len};
	struct tar_member m;
	int got = tar_next(&r, &m);
	const char *slash = got == 1 ? strchr(m.path, '/') : NULL;
	if (got != 1 || !slash || slash == m.path || strcmp(slash + 1, LAYOUT_ARCHIVE_MANIFEST) ||
	    read_manifest(k, m.data, m.len) < 0) {
		fprintf(stderr, "llmb verify-archive: %s: %s\n", k->file,
			got < 0 ? r.err : "no MANIFEST first: not an archive of llmb archive");
		if (got == 1)
			free(m.path);
		return 2;
	}
	char *folder = xstrndup(m.path, (size_t)(slash - m.path + 1)); /* with its '/' */
	if (!plain_path(m.path))
		mismatch(k, m.path, not_plain);
	free(m.path);
	size_t fl = strlen(folder);
	while ((got = tar_next(&r, &m)) == 1) {
		if (strncmp(m.path, folder, fl) || !m.path[fl]) {
			mismatch(k, m.path, "outside the archive's folder");
		} else {
			if (!plain_path(m.path + fl))
				mismatch(k, m.path, not_plain);
			check_member(k, &m, m.path + fl);
		}
		free(m.path);
	}
	free(folder);
	if (got < 0) {
		fprintf(stderr, "llmb verify-archive: %s: %s\n", k->file, r.err);
		return 2;
	}
	for (size_t i = 0; i < k->n; i++)
		if (!k->v[i].seen)
			mismatch(k, k->v[i].path, "listed in the MANIFEST, not in the archive");
	return 0;
}

int
archive_verify_tar(const char *file, const char *tar, size_t len)
{
	struct check k = {.file = file};
	int rc = check_stream(&k, tar, len);
	if (rc == 0 && k.bad) {
		printf("%s: %d mismatch%s\n", file, k.bad, k.bad == 1 ? "" : "es");
		rc = 1;
	} else if (rc == 0) {
		printf("%s: ok, %zu members match the MANIFEST\n", file, k.n);
	}
	for (size_t i = 0; i < k.n; i++)
		free(k.v[i].path);
	free(k.v);
	index_free(&k.index);
	return rc;
}

int
cmd_verify_archive(int argc, char **argv)
{
	static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *text, *file = NULL;
	int c;
	cliopt_start();
	while ((c = cliopt_next(argc, argv, "-h", longopts, &text)) != -1) {
		if (c == 'h')
			return fputs(usage_verify, stdout), 0;
		if (c != 1 || file)
			return fputs(usage_verify, stderr), 2;
		file = optarg;
	}
	if (!file || cliopt_dashes())
		return fputs(usage_verify, stderr), 2;
	struct sb tar = {0};
	int rc = decompress(file, &tar) < 0 ? 2 : archive_verify_tar(file, tar.buf ? tar.buf : "", tar.len);
	sb_free(&tar);
	return rc;
}
