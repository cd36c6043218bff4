/* reporttext: the report's text, Markdown, CSV and JSON formats (see
 * reporttext.c); each appends the whole rendering of model m to o. */
#ifndef LLMB_REPORTTEXT_H
#define LLMB_REPORTTEXT_H

#include <jansson.h>

#include "base/util.h"

void report_text(struct sb *o, const json_t *m);
void report_md(struct sb *o, const json_t *m);
/* The runs' checkpoint times and profiles, as the text report lists them
 * (nothing when no run has any). */
void report_run_extras(struct sb *o, const json_t *m);
void report_csv(struct sb *o, const json_t *m);
void report_json(struct sb *o, const json_t *m);

#endif
