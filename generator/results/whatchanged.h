/* whatchanged: the nightly "what changed" from provenance. For the last
 * good and the first bad night of a confirmed regression, the field-by-field
 * difference of the two runs' provenance.json (diff.h), found through the
 * history records' run_dir in the install tree. */
#ifndef LLMB_WHATCHANGED_H
#define LLMB_WHATCHANGED_H

#include <jansson.h>

#include "base/util.h"
#include "store/history.h"

/* {"a": run_dir, "b": run_dir, "count": N, "differences": {...}} of the two
 * runs, or {"status":"missing","why":...} when a provenance.json cannot be
 * had (no run_dir in the record, no file, or the directory holds another
 * job's provenance since). */
json_t *whatchanged(const char *install, const struct hrun *good, const struct hrun *bad);
/* The path of a recorded run's provenance.json, or NULL where its record
 * names no run directory inside the install tree. */
char *whatchanged_provenance(const char *install, const struct hrun *r);
/* The text lines of a whatchanged() object, two spaces in. */
void whatchanged_text(struct sb *o, const json_t *w);

#endif
