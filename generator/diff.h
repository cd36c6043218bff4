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
/* The groups of prov_differences, in order, NULL-terminated. */
extern const char *const prov_groups[];

#endif
