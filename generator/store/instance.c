/* instance: see instance.h. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "store/instance.h"
#include "store/layout.h"
#include "store/stagecfg.h"

char *
instance_id(const struct instance_key *k)
{
	struct sb s = {0};
	sb_add(&s, k->stage);
	if (k->workload)
		sb_addf(&s, ".%s", k->workload);
	if (k->part)
		sb_addf(&s, ".%s", k->part);
	if (k->hash)
		sb_addf(&s, ".%.12s", k->hash);
	if (k->gpu)
		sb_addf(&s, ".%s.%s.%s", k->gpu, k->size, k->dtype);
	if (k->scale)
		sb_addf(&s, ".%ld", k->scale);
	if (k->rep)
		sb_addf(&s, ".%s", k->rep);
	return sb_steal(&s);
}

/* ---- file times ------------------------------------------------------------- */

static int
newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* The time of the file layout names for (install, id). */
static int
mtime_of(char *(*where)(const char *, const char *), const char *install, const char *id, struct timespec *t)
{
	char *p = where(install, id);
	struct stat st;
	int rc = stat(p, &st);
	if (rc == 0)
		*t = st.st_mtim;
	free(p);
	return rc < 0 ? -1 : 0;
}

static int
set_mtime(char *(*where)(const char *, const char *), const char *install, const char *id, const struct timespec *t)
{
	char *p = where(install, id);
	int rc = utimensat(AT_FDCWD, p, (struct timespec[2]){{.tv_nsec = UTIME_OMIT}, *t}, 0);
	free(p);
	return rc;
}

/* ---- the done stamp --------------------------------------------------------- */

int
stamp_read(const char *install, const char *id, struct stamp *s)
{
	memset(s, 0, sizeof *s);
	char *path = layout_done(install, id);
	struct stat st;
	s->text = read_file(path, NULL);
	if (s->text && stat(path, &st) == 0) {
		s->mtime = st.st_mtim;
		kv_get(s->text, "job", s->job, sizeof s->job);
	} else {
		free(s->text);
		s->text = NULL;
	}
	free(path);
	return s->text ? 0 : -1;
}

void
stamp_free(struct stamp *s)
{
	free(s->text);
	s->text = NULL;
}

int
stamp_is_of(const struct stamp *s, const char *hash)
{
	char buf[80];
	return s && s->text && kv_get(s->text, "cfg", buf, sizeof buf) && !strcmp(buf, hash);
}

char *
stamp_upstream(const struct stamp *s, const char *up)
{
	size_t n, l = strlen(up);
	char **v = kv_values(s->text, "up", &n), *r = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!r && !strncmp(v[i], up, l) && v[i][l] == ' ')
			r = xstrdup(v[i] + l + 1);
		free(v[i]);
	}
	free(v);
	return r;
}

/* "up=<id> <identity>" for each upstream stage of cfg that has one. */
static void
record_upstream(const char *install, const struct stagecfg *cfg, struct sb *stamp)
{
	for (size_t i = 0; i < cfg->nafter; i++) {
		char *now = identity_read(install, cfg->after[i].id);
		if (now && *now)
			sb_addf(stamp, "up=%s %s\n", cfg->after[i].id, now);
		free(now);
	}
}

/* ---- the stamp's link ---------------------------------------------------------- */

/* Every link of stage id removed but the one of hash (NULL: none kept). */
static void
unlink_others(const char *install, const char *id, const char *keep)
{
	char *dir = layout_stamp_link(install, id, NULL), *kept = keep ? layout_stamp_link(NULL, id, keep) : NULL;
	const char *kname = kept ? strrchr(kept, '/') + 1 : NULL;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !(kname && !strcmp(e->d_name, kname))) {
			char *p = layout_in(dir, e->d_name);
			unlink(p);
			free(p);
		}
	}
	if (d)
		closedir(d);
	free(kept);
	free(dir);
}

/* Whether path is a link to target. */
static int
links_to(const char *path, const char *target)
{
	char buf[PATH_MAX];
	ssize_t n = readlink(path, buf, sizeof buf - 1);
	return n >= 0 && (size_t)n == strlen(target) && !memcmp(buf, target, (size_t)n);
}

/* The link of stage id under hash, and no other: 0, or -1 (errno). Two
 * makes that attached to one job both get here: the one whose symlink
 * finds the other's made is done too. */
static int
stamp_link(const char *install, const char *id, const char *hash)
{
	unlink_others(install, id, hash);
	char *path = layout_stamp_link(install, id, hash), *target = layout_stamp_link_target(id);
	int rc = 0;
	if (!links_to(path, target)) {
		unlink(path);
		if (mkdir_p(path, 1) < 0 || (symlink(target, path) < 0 && !(errno == EEXIST && links_to(path, target))))
			rc = -1;
	}
	int e = errno;
	free(target);
	free(path);
	errno = e;
	return rc;
}

int
stamp_link_level(const char *install, const char *id, const char *hash)
{
	char *path = layout_stamp_link(install, id, hash);
	struct stat st;
	int there = lstat(path, &st) == 0, rc = 0;
	free(path);
	if (!there) {
		struct stamp s;
		if (stamp_read(install, id, &s) == 0 && stamp_is_of(&s, hash))
			rc = stamp_link(install, id, hash) == 0;
		stamp_free(&s);
	}
	return rc;
}

int
stamp_write(const char *install, const char *id, const char *hash, const struct stagecfg *cfg, const char *job,
	    const char *note)
{
	struct sb s = {0};
	sb_addf(&s, "cfg=%s\njob=%s\ntime=%ld\n", hash, job ? job : "", (long)time(NULL));
	if (note)
		sb_addf(&s, "note=%s\n", note);
	record_upstream(install, cfg, &s);
	char *path = layout_done(install, id);
	int rc = write_file_atomic(path, s.buf, s.len);
	if (rc == 0)
		rc = stamp_link(install, id, hash);
	int e = errno;
	struct stat st;
	if (rc == 0 && stat(path, &st) == 0)
		identity_level(install, id, &st.st_mtim);
	free(path);
	sb_free(&s);
	errno = e;
	return rc;
}

void
stamp_remove(const char *install, const char *id)
{
	char *path = layout_done(install, id);
	unlink(path);
	free(path);
	unlink_others(install, id, NULL);
}

int
stamp_mtime(const char *install, const char *id, struct timespec *t)
{
	return mtime_of(layout_done, install, id, t);
}

int
stamp_set_mtime(const char *install, const char *id, const struct timespec *t)
{
	return set_mtime(layout_done, install, id, t);
}

/* ---- the identity ----------------------------------------------------------- */

char *
identity_read(const char *install, const char *id)
{
	char *p = layout_identity(install, id), *s = read_file(p, NULL);
	if (s)
		s[strcspn(s, "\n")] = 0;
	free(p);
	return s;
}

int
identity_store(const char *install, const char *id, const char *hash)
{
	char *path = layout_identity(install, id), *line = xasprintf("%s\n", hash);
	int rc = mkdir_p(path, 1) == 0 ? write_file_if_changed(path, line, strlen(line)) : -1;
	free(line);
	free(path);
	return rc;
}

int
identity_mtime(const char *install, const char *id, struct timespec *t)
{
	return mtime_of(layout_identity, install, id, t);
}

void
identity_level(const char *install, const char *id, const struct timespec *t)
{
	struct timespec cur = {0};
	if (identity_mtime(install, id, &cur) == 0 && newer(t, &cur))
		set_mtime(layout_identity, install, id, t);
}

/* ---- the run record (train.done) -------------------------------------------- */

char *
runrec_path(const char *dir)
{
	return layout_in(dir, LAYOUT_TRAIN_DONE);
}

/* The value of the first key= line, or NULL. */
static char *
value(const char *text, const char *key)
{
	size_t n;
	char **v = kv_values(text, key, &n), *r = n ? v[0] : NULL;
	for (size_t i = 1; i < n; i++)
		free(v[i]);
	free(v);
	return r;
}

struct runrec *
runrec_load(const char *dir)
{
	char *path = runrec_path(dir), *s = read_file(path, NULL);
	free(path);
	if (!s)
		return NULL;
	struct runrec *r = xcalloc(1, sizeof *r);
	*r = (struct runrec){value(s, "job"), value(s, "log"), value(s, "cfg"), value(s, "image"), value(s, "executor"),
			     value(s, "note")};
	free(s);
	return r;
}

void
runrec_free(struct runrec *r)
{
	if (!r)
		return;
	const char *v[] = {r->job, r->log, r->cfg, r->image, r->executor, r->note};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		free((char *)v[i]);
	free(r);
}

int
runrec_exists(const char *dir)
{
	char *path = runrec_path(dir);
	int yes = file_exists(path);
	free(path);
	return yes;
}

static const char *
or_empty(const char *s)
{
	return s ? s : "";
}

int
runrec_write(const char *dir, const struct runrec *r)
{
	struct sb s = {0};
	sb_addf(&s, "job=%s\nlog=%s\ncfg=%s\nimage=%s\nexecutor=%s\n", or_empty(r->job), or_empty(r->log),
		or_empty(r->cfg), or_empty(r->image), or_empty(r->executor));
	if (r->note)
		sb_addf(&s, "note=%s\n", r->note);
	char *path = runrec_path(dir);
	int rc = write_file_atomic(path, s.buf, s.len), e = errno;
	free(path);
	sb_free(&s);
	errno = e;
	return rc;
}
