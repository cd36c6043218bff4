/* judge: the model of `llmb judge` (one JSON document: every configuration
 * judged at one night) and its renderers. trend.c draws the HTML page. */
#ifndef LLMB_JUDGE_H
#define LLMB_JUDGE_H

#include <jansson.h>

#include "util.h"

/* The self-contained HTML trend page of a judge model. */
void trend_html(struct sb *o, const json_t *model);

#endif
