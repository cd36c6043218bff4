/* history: reading and validating the nightly history files (JSONL, format
 * v1: one run or annotation record per line, one file per configuration
 * fingerprint under $LLMB_INSTALL/history/), and appending annotations.
 * Every problem is a "file:line:col: error:" diagnostic; nothing is
 * de-duplicated or repaired silently. A struct history owns all its
 * strings and samples (in one arena: a history holds many thousands of
 * them); history_free() releases them. */
#ifndef LLMB_HISTORY_H
#define LLMB_HISTORY_H

#include <jansson.h>
#include <stddef.h>

#define HISTORY_VERSION 1

/* One run record. Provenance strings are NULL when absent. */
struct hrun {
	int line;
	int day;                /* night as days since 1970-01-01 */
	char night[11];
	char *job;
	int ok;                 /* status "ok" */
	int valid;              /* the record's "valid" and our own checks */
	char *why;              /* invalid reasons, "; "-joined, or NULL */
	size_t n;               /* per-step samples */
	double mean, se;        /* their robust mean (stalled steps left out) and its
				 * standard error (stats.h); NAN unless valid. The
				 * samples themselves are not kept: a long history's
				 * fill tens of megabytes, and nothing else reads them */
	double ref, tol;        /* reference step time and tolerance (fraction); NAN when none */
	char *image_ref, *image_digest, *config_hash, *llmb_version, *nodes, *knobs;
	char *run_dir;          /* the run directory, relative to the install tree */
};

/* What a human (or llmb nightly) said of a night: a new baseline from it,
 * a false alarm to leave out, or a normal mode of the configuration. */
enum { ANN_ACCEPT, ANN_ACK, ANN_MODE, ANN_NACTIONS };

struct hann {
	int line;
	int action;             /* ANN_ACCEPT, ANN_ACK or ANN_MODE */
	int day;
	char night[11];
	char *reason;
};

struct history {
	char *file;
	char *fingerprint;      /* from the file name */
	json_t *key;            /* the latest run record's "key" (owned) */
	struct hrun *runs;
	size_t nruns;
	struct hann *anns;
	size_t nanns;
	struct hchunk *mem;     /* the arena of the records' strings and samples */
};

/* Load and validate one history file. Returns the number of errors
 * reported (0: h is complete); h is usable and must be freed either way. */
int history_load(const char *path, struct history *h);
void history_free(struct history *h);
/* 1 (the default): the records llmb writes are read by the fast reader
 * (histscan.h); 0: every line by the full one (tests compare the two). */
extern int history_fast;
/* Days since 1970-01-01 of a "YYYY-MM-DD" that is a real date, or -1. */
int history_day(const char *s);
/* The "YYYY-MM-DD" of a day number. */
void history_night(int day, char out[11]);
/* Is s usable as a fingerprint (and so as a file name)? */
int history_fingerprint_ok(const char *s);

/* Appending whole lines: history_lock() takes the history lock (flock,
 * created with its directory; the fd holds it until closed; -1 when it
 * cannot, said with the lock's path and what to do);
 * history_append_locked() appends one line with a single O_APPEND write and
 * fsync (the caller holds the lock); history_append_line() does both. */
int history_lock(const char *lockpath);
/* How long history_lock() waits for a held lock, in seconds (negative: no
 * limit); --wait=SECONDS of annotate and record. */
extern double history_lock_wait;
/* --wait=SECONDS: sets history_lock_wait, or says what it takes (-1). */
int lock_wait_option(const char *v);
/* Does one newline-terminated line pass the reader's checks for the history
 * file path (its fingerprint from the name)? 0, or -1 with the reader's
 * diagnostics printed. Every appender calls it. */
int history_line_check(const char *path, const char *line);
/* Both return 0, -1 (errno set) or -2: the line fails history_line_check;
 * history_append_line() -3 when the lock was not taken (already said). */
int history_append_locked(const char *path, const char *line);
int history_append_line(const char *lockpath, const char *path, const char *line);
/* Many whole lines (len bytes) in one write, each checked first (a batch
 * of imports: one lock, one append). */
int history_append_batch_locked(const char *path, const char *lines, size_t len);
/* The record's name of an annotation action ("accept-baseline", ...). */
const char *history_action_name(int action);
/* An annotation record (action, night, reason) made now by `by` ("user"
 * for llmb annotate, "llmb nightly"): one newline-terminated line, or NULL
 * when a text is not UTF-8. */
char *history_annotation_line(const char *fp, const char *action, const char *night, const char *reason,
			      const char *by);

#endif
