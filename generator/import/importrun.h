/* importrun: what a run is (configs, models, FLOPs, measurement, the training job)
 * as llmb recipe sections. */
#ifndef LLMB_IMPORTRUN_H
#define LLMB_IMPORTRUN_H

#include "import/impkit.h"

void imp_configs(struct imp *im, struct sb *o);
void imp_models(struct imp *im, struct sb *o);
void imp_measure(struct imp *im, struct sb *o);
void imp_train(struct imp *im, struct sb *o);

#endif
