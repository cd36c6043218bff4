/* bisectfind: see bisectfind.h. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/jget.h"
#include "base/util.h"
#include "results/bisectfind.h"
#include "store/layout.h"

/* Two paths name the same file. */
static int
same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return a && b && *a && *b && !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

json_t *
bisect_find(const char *install, const char *bad_prov, const char *good_prov)
{
	char *dir = layout_bisect(install, "");
	DIR *d = opendir(dir);
	json_t *best = NULL;
	int best_score = -1;
	double best_time = 0;
	char best_id[NAME_MAX + 1] = "";
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char *id = layout_bisect(install, e->d_name), *path = layout_in(id, LAYOUT_BISECT_JSON);
		size_t len;
		const char *why;
		struct stat st;
		/* read as llmb diff reads a provenance: a FIFO must not hang */
		char *text = read_regular_file(path, &len, &why);
		json_t *r = text ? json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL) : NULL;
		int score = json_is_object(r) && same_file(jget_str(r, "bad"), bad_prov) ? 1 + same_file(jget_str(r, "good"), good_prov) : -1;
		double t = !stat(path, &st) ? (double)st.st_mtime : 0;
		if (score > best_score || (score >= 0 && score == best_score && t > best_time)) {
			json_decref(best);
			best = json_incref(r);
			best_score = score;
			best_time = t;
			snprintf(best_id, sizeof best_id, "%s", e->d_name);
		}
		json_decref(r);
		free(text);
		free(path);
		free(id);
	}
	if (d)
		closedir(d);
	free(dir);
	if (!best)
		return NULL;
	size_t runs = 0, i;
	json_t *rd;
	json_array_foreach(json_object_get(best, "rounds"), i, rd)
		runs += json_array_size(json_object_get(rd, "runs"));
	char *where = layout_bisect(NULL, best_id);
	json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:f}", "bisection", where, "outcome", jget_str(best, "outcome"), "rounds",
			      (json_int_t)json_array_size(json_object_get(best, "rounds")), "runs", (json_int_t)runs,
			      "gpu_hours", json_number_value(json_object_get(best, "gpu_hours")));
	free(where);
	if (json_is_object(json_object_get(best, "culprit")))
		json_object_set(o, "culprit", json_object_get(best, "culprit"));
	if (json_is_string(json_object_get(best, "why")))
		json_object_set(o, "why", json_object_get(best, "why"));
	json_decref(best);
	return o;
}

void
bisect_culprit_text(struct sb *o, const json_t *c, const char *lead)
{
	const json_t *a = json_object_get(c, "a"), *b = json_object_get(c, "b");
	if (json_is_string(json_object_get(c, "commit")))
		sb_addf(o, "%sCULPRIT: %s %s commit %.12s \"%s\"\n", lead, jget_str(c, "component"), jget_str(c, "name"), jget_str(c, "commit"),
			jget_str(c, "subject"));
	else
		sb_addf(o, "%sCULPRIT: %s %s: %s -> %s\n", lead, jget_str(c, "component"), jget_str(c, "name"), jget_str(c, "good"), jget_str(c, "bad"));
	sb_addf(o, "%s  step time %.4g s (sd %.2g, n %lld) -> %.4g s (sd %.2g, n %lld): %+.1f%%\n", lead,
		json_number_value(json_object_get(a, "mean")), json_number_value(json_object_get(a, "std")),
		(long long)json_integer_value(json_object_get(a, "n")), json_number_value(json_object_get(b, "mean")),
		json_number_value(json_object_get(b, "std")), (long long)json_integer_value(json_object_get(b, "n")),
		100 * json_number_value(json_object_get(c, "effect")));
}

void
bisect_found_text(struct sb *o, const json_t *f, const char *lead)
{
	long long rounds = (long long)json_integer_value(json_object_get(f, "rounds"));
	sb_addf(o, "%sbisected (%s): %lld round%s, %lld runs, %.4g GPU-hours\n", lead, jget_str(f, "bisection"), rounds,
		rounds == 1 ? "" : "s", (long long)json_integer_value(json_object_get(f, "runs")),
		json_number_value(json_object_get(f, "gpu_hours")));
	const json_t *c = json_object_get(f, "culprit");
	if (c)
		bisect_culprit_text(o, c, lead);
	else
		sb_addf(o, "%sno culprit (%s): %s\n", lead, jget_str(f, "outcome"), jget_str(f, "why"));
}
