/* reporthtml: the report as one self-contained HTML page (see
 * reporthtml.c). */
#ifndef LLMB_REPORTHTML_H
#define LLMB_REPORTHTML_H

#include <jansson.h>

#include "base/util.h"

/* Appends the whole page for model m to o. */
void report_html(struct sb *o, const json_t *m);

#endif
