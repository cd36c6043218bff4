/* envrec: the job's environment as llmb records it. Jobs inherit the
 * caller's whole environment (sbatch --export=ALL, and the local executor
 * likewise); two records say what reached them:
 * - the caller's variables of the families that change performance
 *   (envrec_families: NCCL_, NVTE_, CUDA_, ...) are part of each training
 *   stage's configuration ("callerenv=NAME=value" lines), so changing one
 *   re-runs exactly the trainings, and llmb diff names it;
 * - the rank-0 task of every training dumps its own environment into the
 *   job's state directory, each secret's value replaced, for provenance.
 * Secrets are recognized by name (secrets_name, and the names a recipe
 * declares): their values are never recorded. */
#ifndef LLMB_ENVREC_H
#define LLMB_ENVREC_H

#include <stddef.h>

#include "base/util.h"

/* The prefixes of the recorded families; NULL-terminated. */
extern const char *const envrec_families[];

/* What replaces a secret's value wherever an environment is recorded. */
#define ENVREC_REDACTED "<redacted>"

/* Whether name is a secret's: secrets_name says so, or it is one of the n
 * names the recipe declares. */
int envrec_is_secret(const char *name, char *const *declared, size_t n);

/* Whether a variable of that name is recorded: a shell identifier of a
 * family, neither a secret's name nor one of llmb's knobs. */
int envrec_records(const char *name);

/* The caller's variables of the families, "NAME=value" borrowed from env
 * (the caller's environment, struct sel's; NULL: none), sorted by name,
 * secrets and malformed names left out (*n of them). The list lives as
 * long as the process; the same one comes back while those variables are
 * the same (a bisection plans its runs in process, each with its own). */
const char *const *envrec_caller(char *const *env, size_t *n);

/* Says (llmb: error: ...) of each recorded variable of env whose value
 * holds a newline or another control character, which no key=value line
 * carries; returns their number. */
int envrec_check(char *const *env);

/* Appends the secret names as one bash case pattern
 * (secrets_case_pattern's|DECLARED...), for the job's environment dump. */
void envrec_case_pattern(struct sb *out, char *const *declared, size_t n);

#endif
