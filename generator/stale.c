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

/* Dependents follow what an upstream stage made, not when: its identity
 * file is rewritten only when its outputs changed. after= lines are
 * "<id> <hash>", in dependency order. */
static int
upstream_stale(const struct stage_query *q, const struct timespec *stamp, struct sb *why)
{
	size_t n;
	char **after = cfg_values(q->cfg, "after", &n);
	int stale = 0;
	for (size_t i = 0; i < n; i++) {
		after[i][strcspn(after[i], " ")] = 0;
		struct stat up;
		char *p = layout_identity(q->install, after[i]);
		if (stale) {
			/* first reason only */
		} else if (q->will_run && q->will_run(q->arg, after[i])) {
			stale = 1;
			if (why)
				sb_addf(why, "upstream %s will run", after[i]);
		} else if (stat(p, &up) == 0 && newer(&up.st_mtim, stamp)) {
			stale = 1;
			if (why)
				sb_addf(why, "upstream %s changed its outputs after it ran", after[i]);
		}
		free(p);
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
	} else if (upstream_stale(q, &st.st_mtim, why)) {
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
