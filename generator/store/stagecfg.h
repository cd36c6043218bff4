/* stagecfg: the stage configuration record ("key=value" lines) that gen
 * writes and run, the job script, records and reports read back. */
#ifndef LLMB_STAGECFG_H
#define LLMB_STAGECFG_H

#include <stddef.h>

#include "base/util.h"

/* Appends the line "key=value". */
void cfg_add(struct sb *cfg, const char *key, const char *val);

/* Reads a configuration file written by gen: value of the first "key="
 * line, or NULL. cfg_values collects all values of a repeated key. */
const char *cfg_get(const char *cfg, const char *key, char *buf, size_t len);
char **cfg_values(const char *cfg, const char *key, size_t *n);

/* The value of the knob NAME as gen recorded it on a "knob=NAME=value"
 * line (allocated), or NULL when the stage was generated without it. */
char *cfg_knob(const char *cfg, const char *name);

/* The pre-flight policy of a training stage (templates/probe-node.sh
 * checks each node before training): off, warn (the default: findings are
 * recorded and flag the run), fail (a failing node stops the job before
 * training), exclude (fail, and the stage's retry runs without the node). */
enum preflight { PF_OFF, PF_WARN, PF_FAIL, PF_EXCLUDE };
extern const char *const preflight_names[];
/* The policy a word names; -1 when it names none. */
int preflight_policy(const char *word);
/* The stage's policy: its "preflight=" line (written only when it is not
 * the default), else PF_WARN. */
enum preflight cfg_preflight(const char *cfg);

#endif
