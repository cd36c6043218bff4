/* jobscript: renders a stage's job script from its configuration and the
 * m4 templates, resolving the install-tree placeholders. */
#ifndef LLMB_JOBSCRIPT_H
#define LLMB_JOBSCRIPT_H

#include "base/util.h"

struct stagecfg;

struct jobctx {
	const char *top;        /* checkout: templates/ and workloads/ */
	const char *gen;        /* generated configurations */
	const char *install;    /* LLMB_INSTALL, absolute */
	const struct stagecfg *cfg; /* the stage configuration, as read back */
	const char *token;      /* submission token: names the started marker */
	const char *state_dir;  /* install/state/jobs/<id> */
	int no_segment;         /* this cluster's sbatch has no --segment */
};

int jobscript_render(const struct jobctx *c, struct sb *out, struct sb *err);
/* Value of a path placeholder ("venv_dir", ...) for the stage, or NULL. */
char *jobscript_path_value(const struct jobctx *c, const char *name);

#endif
