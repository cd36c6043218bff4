/* importmb: the megatron_bridge launcher's training job. */
#ifndef LLMB_IMPORTMB_H
#define LLMB_IMPORTMB_H

#include "import/impkit.h"

/* importmb.c: the train section of a megatron_bridge recipe (after the
 * configs); what a config row of size must add (its TODO args). */
void imp_mb_train(struct imp *im, struct sb *o, const struct ynode *ls);
void imp_mb_row(struct imp *im, struct sb *o, const char *size);

#endif
