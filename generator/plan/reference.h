/* reference: checks a workload's published performance (its reference:
 * rows) against llmb's own arithmetic: tokens/s, days, TFLOPS/GPU and MFU
 * recomputed from each row's step time, the config row's seq and gbs, the
 * recipe's FLOPs formula and the GPU table's peak. */
#ifndef LLMB_REFERENCE_H
#define LLMB_REFERENCE_H

#include <stdio.h>

#define REF_MFU_TOL_PP 0.1          /* MFU: within 0.1 percentage point */
#define REF_TFLOPS_TOL_REL 0.005    /* TFLOPS/GPU: within 0.5% (frameworks count their own) */
/* tokens/s and days must equal the published figure rounded as printed. */

/* Prints one line per row to out. Rows that differ and carry a note: are
 * "known"; rows that differ without one are "DIFF". Returns 0 when no row
 * is DIFF, 1 when some are, 2 when the recipes do not load. */
int reference_check(const char *top, const char *workload, FILE *out);

#endif
