/* histscan: the fast reader of the run records llmb itself writes (one
 * compact line, keys in sorted order, strings without escapes, a valid
 * "ok" run). It reads such a line in one pass, without a tree, and does
 * every check the history reader does on it; anything else (another
 * layout, an annotation, an invalid or failed run, a line the reader
 * would refuse) it leaves to the full, validating reader, whose
 * diagnostics are the only ones. A line it accepts reads exactly as the
 * full reader reads it. */
#ifndef LLMB_HISTSCAN_H
#define LLMB_HISTSCAN_H

#include <stddef.h>

/* A piece of the line; p NULL when absent (or null). */
struct hspan {
	const char *p;
	size_t n;
};

struct hscan {
	double *x;              /* the samples (grown as needed; the caller frees) */
	size_t xcap, n;
	char night[11];         /* as written: the caller checks it is a date */
	double ref, tol;        /* NAN when the record has no reference */
	struct hspan job, image_ref, image_digest, config_hash, llmb_version, nodes, run_dir;
	struct hspan knobs;     /* a non-empty knobs object's text */
	struct hspan key;       /* the key object's text */
};

/* Read the record at text (end: the end of the buffer). Returns the
 * length of the line (its newline at text[len]) when the fast reader
 * took it, with s filled in; 0 when the full reader must read it. */
size_t histscan_run(const char *text, const char *end, const char *fingerprint, struct hscan *s);

#endif
