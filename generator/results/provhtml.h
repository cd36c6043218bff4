/* provhtml: each run's provenance.json in the HTML report, one <details>
 * per run (collapsed by default): a table of its fields, grouped as the
 * file groups them; a probe that could not answer shows why. */
#ifndef LLMB_PROVHTML_H
#define LLMB_PROVHTML_H

#include <jansson.h>

#include "base/util.h"

/* The section for the runs and excluded runs of a report model (each
 * run's "provenance" member); nothing when no run has one. */
void prov_html(struct sb *o, const json_t *runs, const json_t *excluded);

#endif
