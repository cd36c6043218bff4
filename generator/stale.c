#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "layout.h"
#include "outputs.h"
#include "stagekind.h"
#include "stagecfg.h"
#include "stale.h"

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

int
stage_outputs_ok(const char *install, const char *cfg, const char *except, struct sb *why)
{
	size_t n;
	char **outs = cfg_values(cfg, "output", &n);
	int ok = 1;
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", install, outs[i]);
		if (!(except && ends_with(outs[i], except)) && !output_valid(p, outs[i], ok ? why : NULL))
			ok = 0;
		free(p);
		free(outs[i]);
	}
	free(outs);
	return ok;
}

static int
newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* The identity upstream stage id has now (its state/id file's line), or
 * NULL when it has none. */
static char *
identity_now(const char *install, const char *id)
{
	char *p = layout_identity(install, id), *s = read_file(p, NULL);
	if (s)
		s[strcspn(s, "\n")] = 0;
	free(p);
	return s;
}

/* The identity of upstream stage id that the stamp recorded when it was
 * written ("up=<id> <identity>"), or NULL: a stamp from before they were
 * recorded, or an upstream stage that had none. */
static char *
identity_then(const char *stamp, const char *id)
{
	size_t n, l = strlen(id);
	char **v = cfg_values(stamp, "up", &n), *r = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!r && !strncmp(v[i], id, l) && v[i][l] == ' ')
			r = xstrdup(v[i] + l + 1);
		free(v[i]);
	}
	free(v);
	return r;
}

void
stage_record_upstream(const char *install, const char *cfg, struct sb *stamp)
{
	size_t n;
	char **after = cfg_values(cfg, "after", &n);
	for (size_t i = 0; i < n; i++) {
		after[i][strcspn(after[i], " ")] = 0;
		char *now = identity_now(install, after[i]);
		if (now && *now)
			sb_addf(stamp, "up=%s %s\n", after[i], now);
		free(now);
		free(after[i]);
	}
	free(after);
}

/* Dependents follow what an upstream stage made, not when: the identity
 * the stamp recorded against the one there now (redo's rule), by time
 * only for a stamp that recorded none. after= lines are "<id> <hash>", in
 * dependency order. */
static int
upstream_changed(const struct stage_query *q, const char *stamp, const struct timespec *t, const char *up)
{
	char *then = identity_then(stamp, up);
	int changed;
	if (then) {
		char *now = identity_now(q->install, up);
		changed = !now || strcmp(now, then);
		free(now);
	} else {
		struct stat st;
		char *p = layout_identity(q->install, up);
		changed = stat(p, &st) == 0 && newer(&st.st_mtim, t);
		free(p);
	}
	free(then);
	return changed;
}

static int
upstream_stale(const struct stage_query *q, const char *stamp, const struct timespec *t, struct sb *why)
{
	size_t n;
	char **after = cfg_values(q->cfg, "after", &n);
	int stale = 0;
	for (size_t i = 0; i < n; i++) {
		after[i][strcspn(after[i], " ")] = 0;
		if (stale) {
			/* first reason only */
		} else if (q->will_run && q->will_run(q->arg, after[i])) {
			stale = 1;
			if (why)
				sb_addf(why, "upstream %s will run", after[i]);
		} else if (upstream_changed(q, stamp, t, after[i])) {
			stale = 1;
			if (why)
				sb_addf(why, "upstream %s changed its outputs after it ran", after[i]);
		}
		free(after[i]);
	}
	free(after);
	return stale;
}

/* The stamp's text records the configuration of that hash. */
static int
stamp_is_of(const char *stamp, const char *hash)
{
	char buf[80];
	return stamp && cfg_get(stamp, "cfg", buf, sizeof buf) && !strcmp(buf, hash);
}

int
stage_stamped(const char *install, const char *id, const char *hash)
{
	char *path = layout_done(install, id), *stamp = read_file(path, NULL);
	int yes = stamp_is_of(stamp, hash);
	free(stamp);
	free(path);
	return yes;
}

enum staleness
stage_staleness(const struct stage_query *q, struct sb *why)
{
	char *path = layout_done(q->install, q->id);
	char *stamp = read_file(path, NULL);
	struct stat st;
	enum staleness s = STAGE_DONE;
	if (!stamp || stat(path, &st) < 0) {
		s = STAGE_NEVER_RUN;
		if (why)
			sb_add(why, "never run (no stamp)");
	} else if (!stamp_is_of(stamp, q->hash)) {
		s = STAGE_CONFIG;
		if (why)
			sb_add(why, "its configuration changed since it ran");
	} else if (!stage_outputs_ok(q->install, q->cfg, NULL, why)) {
		s = STAGE_OUTPUT;
	} else if (upstream_stale(q, stamp, &st.st_mtim, why)) {
		s = STAGE_UPSTREAM;
	}
	free(stamp);
	free(path);
	return s;
}

int
stage_level_config(const char *install, const char *gen, const char *id, const char *hash)
{
	char *sp = layout_done(install, id), *cp = layout_cfg(gen, id);
	char *stamp = read_file(sp, NULL);
	struct stat ss, cs;
	int rc = 0;
	if (stamp_is_of(stamp, hash) && stat(sp, &ss) == 0 &&
	    stat(cp, &cs) == 0 && newer(&cs.st_mtim, &ss.st_mtim)) {
		struct timespec t[2] = {{.tv_nsec = UTIME_OMIT}, ss.st_mtim};
		rc = utimensat(AT_FDCWD, cp, t, 0) == 0;
	}
	free(stamp);
	free(cp);
	free(sp);
	return rc;
}

void
stage_level_identity(const char *install, const char *id, const struct timespec *stamp)
{
	char *p = layout_identity(install, id);
	struct stat st;
	if (stat(p, &st) == 0 && newer(stamp, &st.st_mtim))
		utimensat(AT_FDCWD, p, (struct timespec[2]){{.tv_nsec = UTIME_OMIT}, *stamp}, 0);
	free(p);
}

int
stage_level(const char *install, const char *gen, const char *id, const char *hash, const char *cfg)
{
	int rc = stage_level_config(install, gen, id, hash);
	char *sp = layout_done(install, id), *stamp = read_file(sp, NULL);
	struct stat ss;
	if (stamp_is_of(stamp, hash) && stat(sp, &ss) == 0) {
		struct timespec t = ss.st_mtim;
		size_t n;
		char **after = cfg_values(cfg, "after", &n);
		for (size_t i = 0; i < n; i++) {
			after[i][strcspn(after[i], " ")] = 0;
			struct stat up;
			char *p = layout_identity(install, after[i]);
			if (stat(p, &up) == 0 && newer(&up.st_mtim, &t))
				t = up.st_mtim;
			free(p);
			free(after[i]);
		}
		free(after);
		if (newer(&t, &ss.st_mtim))
			rc |= utimensat(AT_FDCWD, sp, (struct timespec[2]){{.tv_nsec = UTIME_OMIT}, t}, 0) == 0;
		stage_level_identity(install, id, &t);
	}
	free(stamp);
	free(sp);
	return rc;
}

/* A run is done when its train.done belongs to this configuration, failed
 * when its job failed without one, pending otherwise. */
enum runstate
run_state(const struct plan *p, const struct inst *parse, const char *install)
{
	const struct inst *train = NULL;
	for (size_t i = 0; i < parse->ndeps; i++)
		if (stage_kind_is(p->v[parse->deps[i]].kind, SK_TRAINING))
			train = &p->v[parse->deps[i]];
	if (!train)
		return R_PENDING;
	char run[512], buf[80];
	cfg_get(parse->cfg.buf, "run", run, sizeof run);
	char *done = layout_experiment_file(install, parse->workload, run, LAYOUT_TRAIN_DONE);
	char *rp = layout_job_record(install, train->id);
	char *td = read_file(done, NULL), *rs = read_file(rp, NULL);
	enum runstate st = R_PENDING;
	if (td && cfg_get(td, "cfg", buf, sizeof buf) && !strcmp(buf, train->hash))
		st = R_DONE;
	else if (rs && cfg_get(rs, "cfg", buf, sizeof buf) && !strcmp(buf, train->hash) &&
		 cfg_get(rs, "state", buf, sizeof buf) && !strcmp(buf, "failed"))
		st = R_FAILED;
	free(done); free(rp); free(td); free(rs);
	return st;
}
