/* provhtml: see provhtml.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/diff.h"
#include "results/provhtml.h"

static void
row(struct sb *o, const char *path, const json_t *v)
{
	const char *why = json_string_value(json_object_get(v, "why"));
	sb_add(o, "<tr><td class=\"l\">");
	sb_add_html(o, path);
	sb_add(o, "</td><td class=\"l\">");
	if (why) {
		sb_add(o, "<span class=\"ref\">");
		sb_add_html(o, json_string_value(json_object_get(v, "status")));
		sb_add(o, ": ");
		sb_add_html(o, why);
		sb_add(o, "</span>");
	} else if (json_is_string(v)) {
		sb_add_html(o, json_string_value(v));
	} else {
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
		sb_add_html(o, s);
		free(s);
	}
	sb_add(o, "</td></tr>\n");
}

void
prov_html(struct sb *o, const json_t *runs, const json_t *excluded)
{
	const json_t *lists[] = {runs, excluded};
	size_t i;
	json_t *r;
	int any = 0;
	for (size_t l = 0; l < 2; l++)
		json_array_foreach(lists[l], i, r) {
			const json_t *p = json_object_get(r, "provenance");
			if (!p)
				continue;
			if (!any++)
				sb_add(o, "<h2>Provenance</h2>\n");
			sb_add(o, "<details class=\"provenance\"><summary>");
			sb_add_html(o, json_string_value(json_object_get(r, "name")));
			const char *job = json_string_value(json_object_get(json_object_get(p, "machine"), "job"));
			if (job) {
				sb_add(o, " (job ");
				sb_add_html(o, job);
				sb_add(o, ")");
			}
			sb_add(o, "</summary>\n<table>\n");
			/* one row per leaf, by path (as llmb diff names fields) */
			json_t *flat = json_object(), *v;
			const char *path;
			prov_flatten((json_t *)p, "", flat);
			json_t *names = prov_names(flat, NULL);
			json_object_foreach(flat, path, v) row(o, json_string_value(json_object_get(names, path)), v);
			json_decref(names);
			json_decref(flat);
			sb_add(o, "</table></details>\n");
		}
}
