/* sweepfile: a sweep held in a file (SWEEP=file.yaml), like upstream's
 * bulk YAML: an `overrides:` mapping of override knobs (tp, mbs, ...) to a
 * value or a list of values, planned exactly as the same knobs given on
 * the command line (override.h: the cartesian product); or upstream's
 * bulk shape itself, one header <type>_<workload>_<size> with one task,
 * into the selection's knobs as well (WORKLOAD SIZE DTYPE SCALES
 * ENABLE_PROFILE PROXY ENV and the overrides). */
#ifndef LLMB_SWEEPFILE_H
#define LLMB_SWEEPFILE_H

#include "plan/plandata.h"

/* Reads path into the override knobs of s (a knob also given on the
 * command line is an error); *owned keeps the values s then points into
 * (free it after s). Returns the number of errors said (file:line:col). */
int sweep_file_apply(struct sel *s, const char *path, char **owned);

#endif
