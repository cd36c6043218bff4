/* capture: run a command and collect its output (see capture.c). */
#ifndef LLMB_CAPTURE_H
#define LLMB_CAPTURE_H

#include "util.h"

/* Run argv (PATH lookup, no shell) with stdin from /dev/null, collecting
 * stdout and stderr. Returns the exit status, 128+signal, or -1 when it
 * could not be started (message in errs). */
int capture_run(char *const argv[], struct sb *out, struct sb *errs);

#endif
