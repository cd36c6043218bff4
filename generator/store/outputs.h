/* outputs: what a stage's output files are worth, after its job said done.
 * A file is valid when it is there, not empty, and, for JSON, a whole JSON
 * object (result.json also of the parser's schema): a damaged result makes
 * its stage stale instead of done. The identity of a stage's outputs is a
 * hash of what they hold, without the job that made them (job= lines), so
 * a redo that made the same venv, image or data leaves its dependents done:
 * dependents follow state/id/<stage>, rewritten only when the identity
 * changes. */
#ifndef LLMB_OUTPUTS_H
#define LLMB_OUTPUTS_H

#include "base/util.h"

struct stagecfg;

/* 1 when the output at path (rel: its install-relative name) is valid;
 * else 0 with the reason appended to why (may be NULL). */
int output_valid(const char *path, const char *rel, struct sb *why);

/* Identity of the outputs listed by cfg's output= lines below install. */
void outputs_identity(const char *install, const struct stagecfg *cfg, char out[65]);

/* Writes state/id/<id> when its identity changed: 1 written, 0 unchanged,
 * -1 (errno). */
int identity_write(const char *install, const char *id, const struct stagecfg *cfg);

#endif
