/* jget: reading a member of a JSON object that may be absent or of another
 * type, as the readers of results, provenance and history files do. */
#ifndef LLMB_JGET_H
#define LLMB_JGET_H

#include <jansson.h>

/* The string member key of o, or "" when o has none (absent, null, not a
 * string, or o not an object). */
const char *jget_str(const json_t *o, const char *key);

#endif
