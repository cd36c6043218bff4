/* secrets: see secrets.h. The names come from where llmb learns them (the
 * recipes, a run's provenance); the values only from the environment. */
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/secrets.h"
#include "base/util.h"
#include "base/yamlload.h"

/* secrets_name's patterns (fnmatch) of the name in upper case. Upstream's
 * --dump-env redacts the same kinds; the GNUmakefile's llmb_secret_name
 * says the same of the names it records. */
static const char *const name_patterns[] = {
	"*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*", "*APIKEY*", "*API_KEY*", "*PRIVATE_KEY*",
	"*JWT*", "*_KEY", "*_KEY_ID", "PASS", "PASS_*", "*_PASS", "*_PASS_*", "PAT", "PAT_*", "*_PAT", "*_PAT_*",
	"*_PWD", "*_PWD_*", NULL};

int
secrets_name(const char *name)
{
	char *up = xstrdup(name);
	for (char *c = up; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	int hit = 0;
	for (size_t i = 0; name_patterns[i] && !hit; i++)
		hit = !fnmatch(name_patterns[i], up, 0);
	free(up);
	return hit;
}

void
secrets_case_pattern(struct sb *out)
{
	for (size_t i = 0; name_patterns[i]; i++) {
		if (i)
			sb_addc(out, '|');
		for (const char *c = name_patterns[i]; *c; c++)
			if (isalpha((unsigned char)*c))
				sb_addf(out, "[%c%c]", *c, tolower((unsigned char)*c));
			else
				sb_addc(out, *c);
	}
}

/* What a recipe's schema takes as a secret's name: an environment name. */
static int
env_name(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

static void
add_name(json_t *names, const char *s)
{
	size_t i;
	json_t *x;
	if (!env_name(s))
		return;
	json_array_foreach(names, i, x)
		if (!strcmp(json_string_value(x), s))
			return;
	json_array_append_new(names, json_string(s));
}

/* Every "secrets: [NAME...]" of the YAML tree y. */
static void
yaml_secrets(const struct ynode *y, json_t *names)
{
	for (size_t i = 0; y && y->kind != Y_SCALAR && i < y->nkids; i++) {
		const struct ynode *k = y->kids[i];
		if (y->kind == Y_MAP && i % 2 == 0) {
			const struct ynode *v = y->kids[i + 1];
			for (size_t j = 0; !strcmp(k->str, "secrets") && v->kind == Y_SEQ && j < v->nkids; j++)
				if (v->kids[j]->kind == Y_SCALAR)
					add_name(names, v->kids[j]->str);
			continue;
		}
		yaml_secrets(k, names);
	}
}

static void
recipe_secrets(const char *dir, json_t *names)
{
	DIR *d = opendir(dir);
	struct sb held = {0};
	diag_hold = &held; /* a recipe's faults are said where it is planned */
	for (struct dirent *e; d && (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") || e->d_name[0] == '.')
			continue;
		char *f = xasprintf("%s/%s", dir, e->d_name);
		struct ydoc *y = yaml_load_file(f);
		if (y)
			yaml_secrets(y->root, names);
		ydoc_free(y);
		free(f);
	}
	diag_hold = NULL;
	sb_free(&held);
	if (d)
		closedir(d);
}

static int
longest_first(const void *a, const void *b)
{
	size_t x = strlen(((const struct secret *)a)->value), y = strlen(((const struct secret *)b)->value);
	return x < y ? 1 : x > y ? -1 : 0;
}

void
secrets_load(struct secrets *s, const char *recipes, const json_t *more,
	     const char *(*value_of)(const char *name, void *arg), void *arg, const char *prog)
{
	json_t *names = json_array(), *x;
	size_t i;
	add_name(names, "HF_TOKEN");
	recipe_secrets(recipes, names);
	json_array_foreach(more, i, x)
		add_name(names, json_string_value(x));
	s->v = xcalloc(json_array_size(names) + 1, sizeof *s->v);
	s->n = 0;
	json_array_foreach(names, i, x) {
		const char *name = json_string_value(x), *value = value_of(name, arg);
		if (!value || !*value)
			continue;
		if (strlen(value) < SECRETS_MIN) {
			fprintf(stderr, "%s: %s's value is shorter than %d bytes: not looked for\n", prog, name,
				SECRETS_MIN);
			continue;
		}
		s->v[s->n++] = (struct secret){xstrdup(name), value, xasprintf("<redacted:%s>", name)};
	}
	qsort(s->v, s->n, sizeof *s->v, longest_first);
	json_decref(names);
}

char *
secrets_redact(const struct secrets *s, const char *data, size_t len, size_t *outlen, size_t *times)
{
	char *cur = NULL;
	for (size_t i = 0; i < s->n; i++) {
		const char *in = cur ? cur : data, *p = in, *end = in + len;
		size_t vl = strlen(s->v[i].value);
		struct sb out = {0};
		times[i] = 0;
		for (const char *q; (q = memmem(p, (size_t)(end - p), s->v[i].value, vl)); p = q + vl, times[i]++) {
			sb_addn(&out, p, (size_t)(q - p));
			sb_add(&out, s->v[i].repl);
		}
		if (!times[i])
			continue;
		sb_addn(&out, p, (size_t)(end - p));
		free(cur);
		len = out.len;
		cur = sb_steal(&out);
	}
	*outlen = len;
	return cur;
}

void
secrets_free(struct secrets *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].repl);
	}
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
