/* importsrc: what a run needs installed (images, repositories, venv, setup tasks,
 * downloads, tools) as llmb recipe sections. */
#ifndef LLMB_IMPORTSRC_H
#define LLMB_IMPORTSRC_H

#include "import/impkit.h"

void imp_images(struct imp *im, struct sb *o);
void imp_repos(struct imp *im);
void imp_venv(struct imp *im, struct sb *o);
void imp_tasks(struct imp *im, struct sb *o);
void imp_tools(struct imp *im, struct sb *o);

#endif
