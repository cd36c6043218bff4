/* sysdesc: the MLPerf-style system description of runs (see sysdesc.c). */
#ifndef LLMB_SYSDESC_H
#define LLMB_SYSDESC_H

#include <jansson.h>

/* The system_desc object (every field a string) of the machine the
 * provenance objects in provs ran on; opt: system name, submitter,
 * division, status, each NULL when not given. A new reference. */
json_t *sysdesc_describe(json_t *provs, const char *const opt[4]);
/* The description as llmb sysdesc prints it: sorted keys, indented by 4,
 * a newline at the end. To free. */
char *sysdesc_text(json_t *provs, const char *const opt[4]);

#endif
