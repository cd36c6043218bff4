/* secrets: their values kept out of what llmb hands on. A secret is passed
 * to the jobs by name (a recipe's "secrets:"), never written by llmb; yet
 * a job may print it into its log. What leaves the install tree (the
 * archive) is searched for the values this environment holds and each is
 * replaced by <redacted:NAME>. */
#ifndef LLMB_SECRETS_H
#define LLMB_SECRETS_H

#include <stddef.h>

#include <jansson.h>

#include "base/util.h"

/* Values shorter than this are not looked for: they would replace
 * ordinary text. */
#define SECRETS_MIN 8

struct secret {
	char *name;
	const char *value; /* the environment's */
	char *repl;        /* <redacted:NAME> */
};

struct secrets {
	struct secret *v; /* the longest value first: one inside another goes after it */
	size_t n;
};

/* The secrets set, of the names HF_TOKEN, every "secrets:" of the recipes
 * in the folder recipes (the checkout's workloads/) and the strings of
 * more (a JSON array, or NULL), their values asked of value_of(name, arg)
 * (kept while s is: the environment's, or the caller's). A value too
 * short to look for is said on stderr as prog's. */
void secrets_load(struct secrets *s, const char *recipes, const json_t *more,
		  const char *(*value_of)(const char *name, void *arg), void *arg, const char *prog);
/* data (len bytes) with every value replaced, or NULL when it holds none;
 * *outlen its length, times[i] (s->n of them) how often secret i was. */
char *secrets_redact(const struct secrets *s, const char *data, size_t len, size_t *outlen, size_t *times);
void secrets_free(struct secrets *s);

/* Whether name is a secret's by its spelling, in any case: it holds TOKEN,
 * SECRET, PASSWORD, PASSWD, CREDENTIAL, APIKEY, API_KEY, PRIVATE_KEY or
 * JWT, ends in _KEY or _KEY_ID, or has PASS, PAT or (after a prefix) PWD
 * as a word between underscores. The one predicate of llmb: what a job's
 * recorded environment leaves out, what ENV refuses, what an archive
 * looks for. */
int secrets_name(const char *name);
/* Appends the same as one bash case pattern (*[Tt][Oo][Kk][Ee][Nn]*|...). */
void secrets_case_pattern(struct sb *out);

#endif
