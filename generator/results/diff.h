/* diff: the field-by-field comparison behind `llmb diff`, also used for
 * the nightly "what changed" (whatchanged.c). */
#ifndef LLMB_DIFF_H
#define LLMB_DIFF_H

#include <stddef.h>

#include <jansson.h>

/* The fields of two provenance objects that differ, grouped:
 * {"software":[{"field","a","b"}...], "configuration":..., "machine":...,
 * "nodes":...}; a field one side lacks is null there. Fields that differ
 * between any two runs (job id, times) are left out. *count: how many. */
json_t *prov_differences(json_t *a, json_t *b, size_t *count);
/* Adds to out one member per leaf of v, named by its canonical path below
 * path (software.image.ref, nodes.n1.gpus[0]."clocks.sm"; a key that is
 * empty or holds . [ ] " \ or a control character quoted as a JSON
 * string), keys sorted at each level: an array of objects is walked by
 * index, a missing or failed probe ({"status", "why"}) is one leaf, an
 * empty object none. */
void prov_flatten(json_t *v, const char *path, json_t *out);
/* {canonical: shown} of the fields of flattened fa and fb (fb may be
 * NULL): the short name (keys unquoted where not empty and without a
 * quote, a backslash or a control character: nodes.n1.gpus[0].clocks.sm),
 * or the canonical one where two fields share a short name ({"a.b":1}
 * beside {"a":{"b":1}}: "a.b" and a.b). */
json_t *prov_names(json_t *fa, json_t *fb);
/* How a field one side lacks is shown: "unset" for a variable of the
 * caller's environment (configuration.environment.NAME), else "(absent)". */
const char *prov_absent(const char *group, const char *field);
/* The groups of prov_differences, in order, NULL-terminated. */
extern const char *const prov_groups[];

#endif
