/* bisect: `llmb bisect`, what `make bisect` runs: from a good and a bad
 * run of one configuration (two nights, two run directories or their
 * provenance.json) to the change that made it slower. It lists what
 * differs (provenance), split into what it can swap (each pinned
 * repository's commit, the training's image, run knobs, the recorded caller
 * environment) and what it cannot; then runs rounds of A/B runs on the
 * same nodes, the good configuration against it with one component swapped
 * to the bad side's value, and, for a repository whose commit moved over k
 * commits, bisects the commits between the pins (git rev-list, about log2 k
 * rounds). Each run is a sub-make of its own selection (LLMB_BISECT,
 * LLMB_BISECT_PIN, LLMB_BISECT_IMAGE: runs under experiments/bisect/<id>/,
 * never a night nor a baseline);
 * each round's decision takes the judge's statistics (stats.h, policy.h:
 * min_effect at the level alpha) and is written atomically, so a killed
 * bisection resumes without running a finished round again. Output:
 * INSTALL/bisect/<id>/bisect.json and bisect.txt. */
#ifndef LLMB_BISECT_H
#define LLMB_BISECT_H

#include <jansson.h>

#include "base/util.h"

int cmd_bisect(int argc, char **argv);
/* A GPU-hour limit (--max-gpu-hours, BISECT_MAX_GPU_HOURS) as a decimal
 * number above 0 into *out: 0, or -1 for anything else. */
int bisect_gpu_hours(const char *s, double *out);
/* The nightly's policy bisect_on_regression: each CONFIRMED configuration
 * of the night's verdict (verdict.json) is bisected between its last good
 * and its first bad night, its runs made by make_argv; what each found
 * (the culprit, or why none) is added to summary. The environment is
 * given back as it was after each: one bisection's runs set their knobs
 * and variables, which the next and the rest of the night must not see. */
void bisect_regressions(const char *top, const char *install, const char *policy, const json_t *verdict,
			char **make_argv, struct sb *summary);

#endif
