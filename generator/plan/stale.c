/* stale: see stale.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "plan/stale.h"
#include "store/instance.h"
#include "store/jobrecord.h"
#include "store/layout.h"
#include "store/outputs.h"
#include "store/stagecfg.h"
#include "store/stagekind.h"

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

int
stage_outputs_ok(const char *install, const struct stagecfg *cfg, const char *except, struct sb *why)
{
	int ok = 1;
	for (size_t i = 0; i < cfg->noutputs; i++) {
		const char *o = cfg->outputs[i];
		char *p = xasprintf("%s/%s", install, o);
		if (!(except && ends_with(o, except)) && !output_valid(p, o, ok ? why : NULL))
			ok = 0;
		free(p);
	}
	return ok;
}

static int
newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* Dependents follow what an upstream stage made, not when: the identity
 * the stamp recorded against the one there now (redo's rule), by time
 * only for a stamp that recorded none. An upstream identity lost while its
 * stamp stays (its outputs are its own rule's to check) is no change: make
 * compares the upstream stamp, not the identity. after= lines are "<id>
 * <hash>", in dependency order. */
static int
upstream_changed(const struct stage_query *q, const struct stamp *stamp, const char *up)
{
	char *then = stamp_upstream(stamp, up), *now = then ? identity_read(q->install, up) : NULL;
	struct timespec t;
	int changed;
	if (then && now) {
		changed = strcmp(now, then) != 0;
	} else if (then) {
		changed = stamp_mtime(q->install, up, &t) < 0;
	} else {
		changed = identity_mtime(q->install, up, &t) == 0 && newer(&t, &stamp->mtime);
	}
	free(now);
	free(then);
	return changed;
}

static int
upstream_stale(const struct stage_query *q, const struct stamp *stamp, struct sb *why)
{
	for (size_t i = 0; i < q->cfg->nafter; i++) {
		const char *up = q->cfg->after[i].id;
		if (q->will_run && q->will_run(q->arg, up)) {
			if (why)
				sb_addf(why, "upstream %s will run", up);
			return 1;
		} else if (upstream_changed(q, stamp, up)) {
			if (why)
				sb_addf(why, "upstream %s changed its outputs after it ran", up);
			return 1;
		}
	}
	return 0;
}

int
stage_stamped(const char *install, const char *id, const char *hash)
{
	struct stamp s;
	stamp_read(install, id, &s);
	int yes = stamp_is_of(&s, hash);
	stamp_free(&s);
	return yes;
}

enum staleness
stage_staleness(const struct stage_query *q, struct sb *why)
{
	struct stamp stamp;
	enum staleness s = STAGE_DONE;
	if (stamp_read(q->install, q->id, &stamp) < 0) {
		s = STAGE_NEVER_RUN;
		if (why)
			sb_add(why, "never run (no stamp)");
	} else if (!stamp_is_of(&stamp, q->hash)) {
		s = STAGE_CONFIG;
		if (why)
			sb_add(why, "its configuration changed since it ran");
	} else if (!stage_outputs_ok(q->install, q->cfg, NULL, why)) {
		s = STAGE_OUTPUT;
	} else if (upstream_stale(q, &stamp, why)) {
		s = STAGE_UPSTREAM;
	}
	stamp_free(&stamp);
	return s;
}

int
stage_level(const char *install, const char *id, const char *hash, const struct stagecfg *cfg)
{
	int rc = 0;
	struct stamp stamp;
	if (stamp_read(install, id, &stamp) == 0 && stamp_is_of(&stamp, hash)) {
		/* make compares the stamp with its upstream stamps; dependents
		 * compare theirs with it, so an identity rewritten since (its
		 * outputs changed) brings it forward too */
		struct timespec t = stamp.mtime, up;
		if (identity_mtime(install, id, &up) == 0 && newer(&up, &t))
			t = up;
		for (size_t i = 0; i < cfg->nafter; i++)
			if (stamp_mtime(install, cfg->after[i].id, &up) == 0 && newer(&up, &t))
				t = up;
		if (newer(&t, &stamp.mtime))
			rc |= stamp_set_mtime(install, id, &t) == 0;
		identity_level(install, id, &t);
		rc |= stamp_link_level(install, id, hash);
	}
	stamp_free(&stamp);
	return rc;
}

/* A run is done when its train.done belongs to this configuration, failed
 * when its job failed without one, pending otherwise. */
static const struct inst *
run_training(const struct plan *p, const struct inst *parse)
{
	const struct inst *train = NULL;
	for (size_t i = 0; i < parse->ndeps; i++)
		if (stage_kind_is(p->v[parse->deps[i]].kind, SK_TRAINING))
			train = &p->v[parse->deps[i]];
	return train;
}

int
run_never_started(const struct plan *p, const struct inst *parse, const char *install, struct sb *why)
{
	const struct inst *train = run_training(p, parse);
	struct jobrec jr;
	if (!train || jobrec_read(install, train->id, &jr) < 0 || strcmp(jr.cfg, train->hash) ||
	    strcmp(jr.state, "failed") || !*jr.job)
		return 0;
	char *dir = layout_jobs(install, train->id), *path = layout_job_pending(dir, jr.job);
	char *s = read_file(path, NULL);
	if (s) {
		s[strcspn(s, "\n")] = 0;
		for (char *q = s; *q; q++)
			if ((unsigned char)*q < ' ' || *q == 0x7f)
				*q = ' ';
		sb_addf(why, "%s: job %s (%s): %s", train->id, jr.job, jr.executor, s);
	}
	free(s);
	free(path);
	free(dir);
	return s != NULL;
}

enum runstate
run_state(const struct plan *p, const struct inst *parse, const char *install)
{
	const struct inst *train = run_training(p, parse);
	if (!train)
		return R_PENDING;
	char *dir = layout_experiment(install, parse->workload, parse->conf.run ? parse->conf.run : "");
	struct runrec *td = runrec_load(dir);
	struct jobrec jr;
	enum runstate st = R_PENDING;
	if (td && td->cfg && !strcmp(td->cfg, train->hash))
		st = R_DONE;
	else if (jobrec_read(install, train->id, &jr) == 0 && !strcmp(jr.cfg, train->hash) && !strcmp(jr.state, "failed"))
		st = R_FAILED;
	runrec_free(td);
	free(dir);
	return st;
}
