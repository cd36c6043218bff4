/* whatchanged: see whatchanged.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "results/diff.h"
#include "results/provenance.h"
#include "results/whatchanged.h"
#include "store/layout.h"

/* A run_dir from a history record stays inside the install tree. */
static int
run_dir_ok(const char *d)
{
	if (!d || !*d || *d == '/')
		return 0;
	for (const char *p = d; *p; p += strcspn(p, "/"), p += *p == '/')
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			return 0;
	return 1;
}

char *
whatchanged_provenance(const char *install, const struct hrun *r)
{
	return run_dir_ok(r->run_dir) ? xasprintf("%s/%s/" LAYOUT_PROVENANCE, install, r->run_dir) : NULL;
}

/* The provenance of a recorded run, or NULL with why. */
static json_t *
load(const char *install, const struct hrun *r, char **why)
{
	if (!run_dir_ok(r->run_dir)) {
		*why = xasprintf("the record of job %s names no run directory", r->job);
		return NULL;
	}
	char *path = xasprintf("%s/%s/" LAYOUT_PROVENANCE, install, r->run_dir);
	/* read as llmb diff reads it: a FIFO in its place must not hang the
	 * judge, and a duplicate key is no provenance */
	json_error_t e;
	size_t len;
	const char *rwhy;
	char *text = read_regular_file(path, &len, &rwhy);
	json_t *p = text ? json_loadb(text, len, JSON_REJECT_DUPLICATES, &e) : NULL;
	int read = text != NULL;
	free(text);
	const char *job = json_string_value(json_object_get(json_object_get(p, "machine"), "job"));
	if (!read)
		*why = xasprintf("%s/" LAYOUT_PROVENANCE ": %s", r->run_dir, rwhy);
	else if (!p)
		*why = xasprintf("%s/" LAYOUT_PROVENANCE ": %s", r->run_dir, e.text);
	else if (!job || strcmp(job, r->job))
		*why = xasprintf("%s/" LAYOUT_PROVENANCE " is of job %s, not of job %s", r->run_dir, job ? job : "(none)", r->job);
	if (p && (!job || strcmp(job, r->job))) {
		json_decref(p);
		p = NULL;
	}
	free(path);
	return p;
}

json_t *
whatchanged(const char *install, const struct hrun *good, const struct hrun *bad)
{
	char *why = NULL;
	json_t *a = load(install, good, &why), *b = a ? load(install, bad, &why) : NULL;
	if (!a || !b) {
		json_t *m = prov_missing(why);
		free(why);
		json_decref(a);
		return m;
	}
	size_t n;
	json_t *d = prov_differences(a, b, &n);
	json_decref(a);
	json_decref(b);
	return json_pack("{s:s, s:s, s:I, s:o}", "a", good->run_dir, "b", bad->run_dir, "count", (json_int_t)n,
			 "differences", d);
}

/* s as it is, or as a JSON string when it holds a control character (a
 * node's value: a newline would add a line of its own to the judge's text,
 * which the nightly summary mails; an ESC would reach a terminal), as
 * llmb diff shows it. */
static void
plain_text(struct sb *o, const char *s)
{
	if (!s || !has_control(s)) {
		sb_add(o, s ? s : "?");
		return;
	}
	json_t *j = json_string(s);
	char *q = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	sb_add(o, q ? q : "?");
	free(q);
	json_decref(j);
}

static void
value_text(struct sb *o, const json_t *v, const char *absent)
{
	if (!v || json_is_null(v)) {
		sb_add(o, absent);
	} else if (json_is_string(v)) {
		plain_text(o, json_string_value(v));
	} else {
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
		sb_add(o, s ? s : "?");
		free(s);
	}
}

void
whatchanged_text(struct sb *o, const json_t *w)
{
	if (!w)
		return;
	const char *why = json_string_value(json_object_get(w, "why"));
	if (why) {
		sb_addf(o, "  provenance: not compared: %s\n", why);
		return;
	}
	json_int_t n = json_integer_value(json_object_get(w, "count"));
	sb_addf(o, "  provenance: %lld field%s differ between ", (long long)n, n == 1 ? "" : "s");
	plain_text(o, json_string_value(json_object_get(w, "a")));
	sb_add(o, " and ");
	plain_text(o, json_string_value(json_object_get(w, "b")));
	sb_addc(o, '\n');
	const json_t *d = json_object_get(w, "differences");
	for (size_t g = 0; prov_groups[g]; g++) {
		size_t i;
		json_t *x;
		json_array_foreach(json_object_get(d, prov_groups[g]), i, x) {
			const char *f = json_string_value(json_object_get(x, "field"));
			sb_addf(o, "    %s.", prov_groups[g]);
			plain_text(o, f);
			sb_add(o, ": ");
			value_text(o, json_object_get(x, "a"), prov_absent(prov_groups[g], f));
			sb_add(o, " -> ");
			value_text(o, json_object_get(x, "b"), prov_absent(prov_groups[g], f));
			sb_addc(o, '\n');
		}
	}
}
