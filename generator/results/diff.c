/* diff: `llmb diff A B`, what changed between two runs. A and B are run
 * directories (their provenance.json), provenance files, or history
 * records (FILE.jsonl@JOB, or a history file of one record). Both are
 * flattened to field paths (software.image.ref, nodes.n1.gpus[0].clocks.sm)
 * and only the fields that differ are printed, grouped as provenance.json
 * groups them: software, configuration, machine, nodes. Fields that differ
 * between any two runs (job id, times, a night's run directory) are left out.
 * A fifth group, validity, compares whether each run was valid and why
 * (validity.h): the result.json beside a run's provenance, or the history
 * record's own valid, invalid and flagged.
 * Exit status as diff(1): 0 same, 1 different, 2 bad input or usage.
 *
 * Field names. A path is compared by its canonical name, where a key that
 * is empty or holds . [ ] " \ or a control character is written as a JSON
 * string ("a.b"), so {"a.b":1} and {"a":{"b":1}} are two fields. It is
 * shown by its short name, which writes such a key as it is (nvidia-smi's
 * clocks.sm, as every existing row reads) unless it is empty or holds a
 * quote, a backslash or a control character; where two fields of the
 * documents compared share a short name they are shown by their canonical
 * ones. A quoted key of a
 * short name is empty or holds an escape, and a canonical name that is not
 * also its short name holds a quoted key that is neither, so no shown name
 * stands for two fields. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/util.h"
#include "results/bisectfind.h"
#include "results/diff.h"
#include "store/layout.h"

const char *const prov_groups[] = {"software", "configuration", "machine", "nodes", NULL};
/* prov_groups and the run's validity, which a provenance.json lacks */
static const char *const groups[] = {"software", "configuration", "machine", "nodes", "validity"};
#define NGROUPS (sizeof groups / sizeof *groups)

/* A run's own identity, different for every run by construction (a
 * night's run directory is named after its night). */
static const char *const identity[] = {"machine.job", "machine.submit", "machine.start", "machine.end",
				       "configuration.run"};

static const char usage_text[] =
	"usage: llmb diff [--format=text|json] [--install DIR] A B\n"
	"A and B: run directories (provenance.json), provenance files, or history records\n"
	"(HISTORY.jsonl@JOB). Prints the fields that differ, grouped: software, configuration,\n"
	"machine, nodes, validity; and the culprit of a bisection whose bad run is B (make bisect), found\n"
	"in DIR/bisect/ (default: the install tree B lies in, else $LLMB_INSTALL).\n"
	"Exit status: 0 same, 1 different, 2 bad input or usage.\n";

/* A history record (docs/history.md) in provenance's groups. */
static json_t *
from_record(json_t *r)
{
	json_t *img = json_object_get(r, "image");
	return json_pack("{s:{s:O?, s:O?}, s:{s:O?, s:O?, s:O?}, s:{s:O?, s:O?, s:O?}, s:{s:O?, s:O?, s:O?}}",
			 "software", "llmb_version", json_object_get(r, "llmb_version"), "image", img,
			 "configuration", "config_hash", json_object_get(r, "config_hash"),
			 "knobs", json_object_get(r, "knobs"), "key", json_object_get(r, "key"),
			 "machine", "nodes", json_object_get(r, "nodes"), "executor", json_object_get(r, "executor"),
			 "job", json_object_get(r, "job"), "validity", "valid", json_object_get(r, "valid"),
			 "invalid", json_object_get(r, "invalid"), "flagged", json_object_get(r, "flagged"));
}

/* The validity the parse stage wrote into the result.json beside a run's
 * provenance (dir: the run directory, else the provenance file's). */
static void
add_validity(json_t *p, const char *path, int dir)
{
	const char *slash = strrchr(path, '/');
	char *up = slash ? xstrndup(path, (size_t)(slash - path)) : NULL;
	char *res = dir ? layout_in(path, LAYOUT_RESULT) : up ? layout_in(up, LAYOUT_RESULT) : xstrdup(LAYOUT_RESULT);
	free(up);
	json_t *r = json_load_file(res, 0, NULL), *v = json_object_get(r, "validity");
	free(res);
	if (json_is_object(v))
		json_object_set_new(p, "validity", json_pack("{s:O?, s:O?, s:O?}", "valid", json_object_get(v, "valid"),
							     "invalid", json_object_get(v, "invalid"),
							     "flagged", json_object_get(v, "flagged")));
	json_decref(r);
}

/* The record of job in a history file (or its only record). */
static json_t *
history_record(const char *path, const char *job)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "llmb diff: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	json_t *found = NULL;
	char *line = NULL;
	size_t cap = 0, n = 0;
	for (long ln = 1; getline(&line, &cap, f) > 0; ln++) {
		json_error_t e;
		json_t *r = json_loads(line, JSON_REJECT_DUPLICATES, &e);
		if (!r) {
			fprintf(stderr, "%s:%ld:%d: error: %s\n", path, ln, e.column > 0 ? e.column : 1, e.text);
			json_decref(found);
			found = NULL;
			n = 2;
			break;
		}
		const char *type = json_string_value(json_object_get(r, "type"));
		const char *j = json_string_value(json_object_get(r, "job"));
		if (type && !strcmp(type, "run") && (!job || (j && !strcmp(j, job)))) {
			json_decref(found);
			found = r;
			n++;
		} else {
			json_decref(r);
		}
	}
	free(line);
	fclose(f);
	if (found && n > 1 && !job) {
		fprintf(stderr, "llmb diff: %s holds %zu runs: name one as %s@JOB\n", path, n, path);
		json_decref(found);
		return NULL;
	}
	if (!found && n < 2)
		fprintf(stderr, "llmb diff: %s: no run record%s%s\n", path, job ? " of job " : "", job ? job : "");
	json_t *p = found ? from_record(found) : NULL;
	json_decref(found);
	return p;
}

/* The provenance of a run directory, provenance file or history record. */
static json_t *
load(const char *arg)
{
	struct stat st = {0};
	char *at = strrchr(arg, '@');
	if (stat(arg, &st) < 0 && at) {
		char *path = xstrndup(arg, (size_t)(at - arg));
		json_t *p = history_record(path, at + 1);
		free(path);
		return p;
	}
	char *path = S_ISDIR(st.st_mode) ? layout_in(arg, LAYOUT_PROVENANCE) : xstrdup(arg);
	json_error_t e, e1;
	size_t len;
	const char *why;
	char *text = read_regular_file(path, &len, &why);
	/* one object and nothing after it, keys unique; else a history file,
	 * whose first line is a record */
	json_t *p = text ? json_loadb(text, len, JSON_REJECT_DUPLICATES, &e) : NULL;
	json_t *first = text && !p ? json_loadb(text, len, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &e1) : NULL;
	if (!text) {
		fprintf(stderr, "llmb diff: error: %s: %s\n", path, why);
	} else if ((p && json_object_get(p, "type")) || (first && json_object_get(first, "type"))) {
		json_decref(p);
		p = history_record(path, NULL);
	} else if (!p) {
		fprintf(stderr, "%s:%d:%d: error: %s\n", path, e.line > 0 ? e.line : 1, e.column > 0 ? e.column : 1, e.text);
	} else if (!json_is_object(p)) {
		fprintf(stderr, "%s:1:1: error: not a JSON object (a provenance.json is one)\n", path);
		json_decref(p);
		p = NULL;
	} else {
		add_validity(p, S_ISDIR(st.st_mode) ? arg : path, S_ISDIR(st.st_mode));
	}
	json_decref(first);
	free(text);
	free(path);
	return p;
}

/* Keys are walked sorted at every level, so the paths come out in the
 * order of a provenance.json written with sorted keys whatever the order
 * in memory. */
static int
by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A key's flattened name can be read back as written: not empty, none of
 * the path's own characters, no quote, backslash or control character. */
static int
key_plain(const char *k)
{
	return *k && !k[strcspn(k, ".[]\"\\")] && !has_control(k);
}

/* k as a JSON string: "a.b", escapes for " \ and control characters. */
static char *
key_quoted(const char *k)
{
	json_t *s = json_string(k);
	char *q = json_dumps(s, JSON_ENCODE_ANY);
	json_decref(s);
	return q;
}

void
prov_flatten(json_t *v, const char *path, json_t *out)
{
	if (json_is_object(v) && !json_object_get(v, "why")) {
		const char **keys = xcalloc(json_object_size(v) + 1, sizeof *keys);
		size_t n = 0;
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x) keys[n++] = k;
		qsort(keys, n, sizeof *keys, by_name);
		for (size_t i = 0; i < n; i++) {
			char *q = key_plain(keys[i]) ? NULL : key_quoted(keys[i]);
			const char *name = q ? q : keys[i];
			char *p = *path ? xasprintf("%s.%s", path, name) : xstrdup(name);
			prov_flatten(json_object_get(v, keys[i]), p, out);
			free(p);
			free(q);
		}
		free(keys);
	} else if (json_is_array(v) && json_array_size(v) && (json_is_object(json_array_get(v, 0)))) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x) {
			char *p = xasprintf("%s[%zu]", path, i);
			prov_flatten(x, p, out);
			free(p);
		}
	} else {
		json_object_set(out, path, v);
	}
}

/* The short name of a canonical one: each quoted key unquoted unless it
 * is empty or holds a quote, a backslash or a control character. */
static char *
short_name(const char *canon)
{
	struct sb o = {0};
	for (const char *p = canon; *p;) {
		if (*p != '"') {
			sb_addc(&o, *p++);
			continue;
		}
		size_t l = 1; /* the quoted key's length, quotes included */
		while (p[l] && p[l] != '"')
			l += p[l] == '\\' && p[l + 1] ? 2 : 1;
		l += p[l] == '"';
		json_t *k = json_loadb(p, l, JSON_DECODE_ANY, NULL);
		const char *s = json_string_value(k);
		if (s && *s && !strpbrk(s, "\"\\") && !has_control(s))
			sb_add(&o, s);
		else
			sb_addf(&o, "%.*s", (int)l, p);
		json_decref(k);
		p += l;
	}
	return o.buf ? sb_steal(&o) : xstrdup("");
}

json_t *
prov_names(json_t *fa, json_t *fb)
{
	json_t *names = json_object(), *uses = json_object(), *flats[] = {fa, fb}, *v;
	const char *k;
	for (size_t f = 0; f < 2; f++)
		json_object_foreach(flats[f], k, v) {
			if (json_object_get(names, k))
				continue;
			char *s = short_name(k);
			json_object_set_new(names, k, json_string(s));
			json_object_set_new(uses, s, json_integer(json_integer_value(json_object_get(uses, s)) + 1));
			free(s);
		}
	/* a short name two fields share: both by their canonical names */
	json_object_foreach(names, k, v)
		if (json_integer_value(json_object_get(uses, json_string_value(v))) > 1)
			json_object_set_new(names, k, json_string(k));
	json_decref(uses);
	return names;
}

static int
is_identity(const char *path)
{
	for (size_t i = 0; i < sizeof identity / sizeof *identity; i++)
		if (!strcmp(path, identity[i]))
			return 1;
	return 0;
}

static int
in_group(const char *path, const char *g)
{
	size_t n = strlen(g);
	return !strncmp(path, g, n) && path[n] == '.';
}

struct field {
	const char *canon, *shown;
};

static int
by_shown(const void *a, const void *b)
{
	return strcmp(((const struct field *)a)->shown, ((const struct field *)b)->shown);
}

/* {"software":[{"field","a","b"}...], ...} of the fields that differ, by
 * their shown names; a field one side lacks is null there. */
static json_t *
differences(json_t *fa, json_t *fb, const char *const *gs, size_t ng, size_t *count)
{
	json_t *names = prov_names(fa, fb), *out = json_object(), *v;
	const char *k;
	for (size_t g = 0; g < ng; g++) {
		json_t *list = json_array();
		struct field *fs = xcalloc(json_object_size(names) + 1, sizeof *fs);
		size_t n = 0;
		json_object_foreach(names, k, v) if (in_group(k, gs[g])) fs[n++] =
			(struct field){k, json_string_value(v)};
		qsort(fs, n, sizeof *fs, by_shown);
		for (size_t i = 0; i < n; i++) {
			json_t *a = json_object_get(fa, fs[i].canon), *b = json_object_get(fb, fs[i].canon);
			if (is_identity(fs[i].canon) || (a && b && json_equal(a, b)))
				continue;
			json_array_append_new(list, json_pack("{s:s, s:O?, s:O?}", "field", fs[i].shown + strlen(gs[g]) + 1,
							      "a", a, "b", b));
			(*count)++;
		}
		free(fs);
		json_object_set_new(out, gs[g], list);
	}
	json_decref(names);
	return out;
}

static json_t *
grouped_differences(json_t *a, json_t *b, const char *const *gs, size_t ng, size_t *count)
{
	json_t *fa = json_object(), *fb = json_object();
	prov_flatten(a, "", fa);
	prov_flatten(b, "", fb);
	*count = 0;
	json_t *d = differences(fa, fb, gs, ng, count);
	json_decref(fa);
	json_decref(fb);
	return d;
}

json_t *
prov_differences(json_t *a, json_t *b, size_t *count)
{
	return grouped_differences(a, b, prov_groups, NGROUPS - 1, count);
}

/* Text as it is, or (holding a control character: a node's ESC byte
 * would drive the terminal) as a JSON string, escaped. */
static void
put_text(const char *s)
{
	if (!has_control(s)) {
		fputs(s, stdout);
		return;
	}
	json_t *j = json_string(s);
	char *q = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	fputs(q ? q : "?", stdout);
	free(q);
	json_decref(j);
}

const char *
prov_absent(const char *group, const char *field)
{
	return !strcmp(group, "configuration") && !strncmp(field, "environment.", 12) ? "unset" : "(absent)";
}

static void
print_value(json_t *v, const char *absent)
{
	if (!v || (json_is_null(v) && !strcmp(absent, "unset"))) {
		fputs(absent, stdout);
	} else if (json_is_string(v)) {
		put_text(json_string_value(v));
	} else {
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
		fputs(s ? s : "?", stdout);
		free(s);
	}
}

static void
print_text(json_t *d, const char *a, const char *b, size_t count)
{
	if (!count) {
		printf("no differences between %s and %s\n", a, b);
		return;
	}
	printf("%zu field%s differ between A=%s and B=%s\n", count, count == 1 ? "" : "s", a, b);
	for (size_t g = 0; g < NGROUPS; g++) {
		json_t *list = json_object_get(d, groups[g]), *x;
		size_t i;
		if (!json_array_size(list))
			continue;
		printf("%s:\n", groups[g]);
		json_array_foreach(list, i, x) {
			const char *f = json_string_value(json_object_get(x, "field"));
			fputs("  ", stdout);
			put_text(f);
			fputs(": ", stdout);
			print_value(json_object_get(x, "a"), prov_absent(groups[g], f));
			fputs(" -> ", stdout);
			print_value(json_object_get(x, "b"), prov_absent(groups[g], f));
			putchar('\n');
		}
	}
}

/* The provenance file an argument names, NULL for a history record. */
static char *
prov_path(const char *arg)
{
	struct stat st;
	if (stat(arg, &st) < 0)
		return NULL;
	return S_ISDIR(st.st_mode) ? layout_in(arg, LAYOUT_PROVENANCE) : xstrdup(arg);
}

/* The install tree of a run's provenance: the run directory is the
 * experiment its configuration names, below the tree (layout.h). */
static char *
install_of(const char *path, const json_t *p)
{
	const json_t *c = json_object_get(p, "configuration");
	const char *wl = json_string_value(json_object_get(c, "workload")), *run = json_string_value(json_object_get(c, "run"));
	char *real = path && wl && run ? realpath(path, NULL) : NULL, *slash = real ? strrchr(real, '/') : NULL;
	char *rel = slash ? layout_experiment(NULL, wl, run) : NULL, *install = NULL;
	if (slash) {
		*slash = 0;
		size_t n = strlen(real), r = strlen(rel);
		if (n > r && real[n - r - 1] == '/' && !strcmp(real + n - r, rel))
			install = xstrndup(real, n - r - 1);
	}
	free(rel);
	free(real);
	return install;
}

/* The bisection whose bad run is B (and good run A where one is), in the
 * install tree given, else the one B lies in, else $LLMB_INSTALL's. */
static json_t *
bisection(const char *install, const char *a, const char *b, const json_t *pb)
{
	char *ap = prov_path(a), *bp = prov_path(b), *own = install ? NULL : install_of(bp, pb);
	const char *env = getenv("LLMB_INSTALL"), *in = install ? install : own ? own : env && *env ? env : NULL;
	json_t *f = bp && in ? bisect_find(in, bp, ap) : NULL;
	free(ap);
	free(bp);
	free(own);
	return f;
}

int
cmd_diff(int argc, char **argv)
{
	const char *format = "text", *args[2], *install = NULL;
	int n = 0;
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'}, {"install", required_argument, NULL, 'i'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *text;
	int c;
	cliopt_start();
	while ((c = cliopt_next(argc, argv, "-h", longopts, &text)) != -1) {
		if (c == 'f')
			format = optarg;
		else if (c == 'i')
			install = optarg;
		else if (c == 'h' && (!strcmp(text, "-h") || !strcmp(text, "--help")))
			return fputs(usage_text, stdout), 0;
		else if (c == 1 && n < 2 && optarg[0] != '-')
			args[n++] = optarg;
		else if (c == '?' || c == 'h')
			return cliopt_refuse(text, "h", longopts, usage_text);
		else
			return fputs(usage_text, stderr), 2;
	}
	if (cliopt_dashes()) /* never allowed */
		return fputs(usage_text, stderr), 2;
	if (strcmp(format, "text") && strcmp(format, "json"))
		return fprintf(stderr, "llmb diff: error: --format=%s: expected text or json\n", format), 2;
	if (n != 2)
		return fputs(usage_text, stderr), 2;
	json_t *pa = load(args[0]), *pb = pa ? load(args[1]) : NULL;
	if (!pa || !pb) {
		json_decref(pa);
		return 2;
	}
	size_t count;
	json_t *d = grouped_differences(pa, pb, groups, NGROUPS, &count);
	json_t *bis = bisection(install, args[0], args[1], pb);
	if (!strcmp(format, "json")) {
		json_t *o = json_pack("{s:s, s:s, s:b, s:O}", "a", args[0], "b", args[1], "same", count == 0, "differences", d);
		if (bis)
			json_object_set(o, "bisection", bis);
		json_dumpf(o, stdout, JSON_SORT_KEYS | JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
	} else {
		print_text(d, args[0], args[1], count);
		if (bis) {
			struct sb t = {0};
			bisect_found_text(&t, bis, "  ");
			printf("bisection:\n%s", t.buf);
			sb_free(&t);
		}
	}
	json_decref(bis);
	json_decref(d);
	json_decref(pa);
	json_decref(pb);
	return count ? 1 : 0;
}
