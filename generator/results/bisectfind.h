/* bisectfind: a regression's bisection as llmb diff and the judge show
 * it. The bisect.json under INSTALL/bisect/ whose bad run is the run given
 * (the nightly bisects the last good night against the first bad one); of
 * several, one whose good run is the other run given too comes first, then
 * the newest. Its outcome (the culprit: component, commit and subject,
 * step times both sides with their spread, GPU-hours) in a few lines of
 * text, the same lines `llmb bisect` prints. */
#ifndef LLMB_BISECTFIND_H
#define LLMB_BISECTFIND_H

#include <jansson.h>

#include "base/util.h"

/* {"bisection": "bisect/<id>", "outcome", "culprit"?, "why"?, "rounds",
 * "runs", "gpu_hours"} of the bisection whose bad provenance.json is
 * bad_prov, or NULL where there is none (good_prov may be NULL). */
json_t *bisect_find(const char *install, const char *bad_prov, const char *good_prov);
/* A bisection's culprit (bisect.json's, or bisect_find's): "CULPRIT: ..."
 * and its step times, each line after lead. */
void bisect_culprit_text(struct sb *o, const json_t *culprit, const char *lead);
/* bisect_find's object: where the bisection lies, its culprit or why there
 * is none, what it spent; each line after lead. */
void bisect_found_text(struct sb *o, const json_t *found, const char *lead);

#endif
