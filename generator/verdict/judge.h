/* judge: the model of `llmb judge` (one JSON document: every configuration
 * judged at one night) and its renderers. trend.c draws the HTML page. */
#ifndef LLMB_JUDGE_H
#define LLMB_JUDGE_H

#include <jansson.h>

#include "base/util.h"

/* The renderings of a judge model, as `llmb judge --format=` names them. */
enum judge_format { JUDGE_TEXT, JUDGE_JSON, JUDGE_HTML, JUDGE_NFORMATS };

/* `llmb judge --install INSTALL --night NIGHT --select SELECT [--policy
 * POLICY]` in three formats at once, for `llmb nightly`: the history read
 * and judged once, the model rendered into out[JUDGE_TEXT..JUDGE_HTML]
 * (appended). Returns the judge's exit status; 2 on bad input, out left
 * as it was and every message the judge would have printed in err.
 * POLICY NULL: the default knobs. */
int judge_night(const char *install, const char *night, const char *select, const char *policy,
		struct sb out[JUDGE_NFORMATS], struct sb *err);

/* The self-contained HTML trend page of a judge model. */
void trend_html(struct sb *o, const json_t *model);

#endif
