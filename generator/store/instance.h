/* instance: what one stage instance is called and what it leaves on disk,
 * formatted and parsed here only. Everything else asks this module:
 *
 *   its id           <stage>.<workload>.<gpu>.<size>.<dtype>.<scale>[.<rep>]
 *                    for a run's stage, without the scale for a report,
 *                    <stage>.<workload>.<task> for a data task,
 *                    <stage>.<stem> for an image, <stage>.<hash12> for a venv
 *   the done stamp   state/done/<id>: cfg=<hash>, job=, time=, note= and
 *                    one up=<upstream id> <identity> line per upstream
 *                    stage; written atomically (tmp + rename)
 *   its link         state/stamped/<id>/<hash12> -> ../../done/<id>: the
 *                    stamp under the configuration hash it records, made
 *                    and removed with it; make's target (stale.h)
 *   the identity     state/id/<id>: the hash of what the outputs hold
 *                    (outputs.c computes it), what dependents' stamps
 *                    record; rewritten only when it changes, dated as the
 *                    stamp
 *   the run record   train.done beside a training run's log: the job, its
 *                    log, the configuration's hash, image, executor, note
 *
 * The configuration itself is stagecfg's, the job record and its lock
 * jobrecord's; whether the instance is done is stale.c's to say, from
 * these. */
#ifndef LLMB_INSTANCE_H
#define LLMB_INSTANCE_H

#include <time.h>

struct stagecfg;

/* The parts of an id, each left out when NULL (scale: when 0). */
struct instance_key {
	const char *stage, *workload;
	const char *part;     /* an image's stem, a data task's name */
	const char *hash;     /* a venv's dependency set: its first 12 digits */
	const char *gpu, *size, *dtype;
	long scale;
	const char *rep;      /* a repeat of the run (nights, exemplar suites) */
};
/* The id, in that order, joined with dots (allocated). */
char *instance_id(const struct instance_key *k);

/* ---- the done stamp --------------------------------------------------------- */

struct stamp {
	char *text;            /* the stamp's lines */
	char job[64];          /* its job= ("" when made in llmb's own process) */
	struct timespec mtime; /* when it was written: make compares it */
};

/* The stamp of stage id: 0, or -1 (s zeroed) when there is none. */
int stamp_read(const char *install, const char *id, struct stamp *s);
void stamp_free(struct stamp *s);
/* 1 when s (may be NULL, or zeroed) is of the configuration of that hash. */
int stamp_is_of(const struct stamp *s, const char *hash);
/* The identity upstream stage up had when s was written, or NULL: a stamp
 * from before they were recorded, or an upstream stage that had none. */
char *stamp_upstream(const struct stamp *s, const char *up);
/* Writes the stamp of stage id, of the configuration cfg (hash: its
 * hash): job (NULL: none), note (NULL: none), and the identity each
 * upstream stage of cfg (after= lines) has now, and its link under hash
 * (no other). Then the identity of id,
 * when older, takes the stamp's time: the two are dated alike, so that
 * dependents' rules compare the stamp alone (stale.h). 0, or -1 (errno). */
int stamp_write(const char *install, const char *id, const char *hash, const struct stagecfg *cfg, const char *job,
		const char *note);
/* A job is about to rewrite the outputs: the stamp no longer vouches (its
 * link goes with it). */
void stamp_remove(const char *install, const char *id);
/* The stamp's link under hash made when the stamp is of hash and the link
 * is not there (a stamp written before links, or a link removed): 1 when
 * made, else 0. */
int stamp_link_level(const char *install, const char *id, const char *hash);
/* The stamp's time: 0, or -1 when there is none. */
int stamp_mtime(const char *install, const char *id, struct timespec *t);
/* The stamp's time set to t: 0, or -1 (errno). */
int stamp_set_mtime(const char *install, const char *id, const struct timespec *t);

/* ---- the identity ----------------------------------------------------------- */

/* The identity stage id has now (its line), or NULL when it has none. */
char *identity_read(const char *install, const char *id);
/* Stores identity hash for stage id unless it is there already (its time
 * kept): 1 written, 0 unchanged, -1 (errno). */
int identity_store(const char *install, const char *id, const char *hash);
/* The identity's time: 0, or -1 when there is none. */
int identity_mtime(const char *install, const char *id, struct timespec *t);
/* The identity's time set to t when it is older (unchanged content, newer
 * stamp). */
void identity_level(const char *install, const char *id, const struct timespec *t);

/* ---- the run record (train.done) -------------------------------------------- */

/* Each field NULL when the record has no such line; a loaded record owns
 * them (runrec_free). */
struct runrec {
	const char *job, *log, *cfg, *image, *executor, *note;
};
/* The run record in the experiment directory dir, or NULL when it has none. */
struct runrec *runrec_load(const char *dir);
void runrec_free(struct runrec *r);
/* Whether dir has a run record. */
int runrec_exists(const char *dir);
/* Writes dir's run record atomically (a NULL field: an empty value; a NULL
 * note: no line); 0, or -1 (errno). */
int runrec_write(const char *dir, const struct runrec *r);
/* Its file, for messages (allocated). */
char *runrec_path(const char *dir);

#endif
