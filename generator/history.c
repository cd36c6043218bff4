#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "diag.h"
#include "util.h"

#include "history.h"

/* ---- dates -------------------------------------------------------------- */

/* Howard Hinnant's days_from_civil. */
static int
days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	int era = (y >= 0 ? y : y - 399) / 400;
	int yoe = y - era * 400;
	int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int
history_day(const char *s)
{
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return -1;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
			return -1;
	int y = atoi(s), m = atoi(s + 5), d = atoi(s + 8);
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (y < 1970 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && leap))
		return -1;
	return days_from_civil(y, m, d);
}

void
history_night(int day, char out[11])
{
	int z = day + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	int doe = z - era * 146097;
	int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1;
	int m = mp + (mp < 10 ? 3 : -9);
	char buf[40];
	snprintf(buf, sizeof buf, "%04d-%02d-%02d", (y + (m <= 2)) % 10000, m, d);
	memcpy(out, buf, 10);
	out[10] = 0;
}

int
history_fingerprint_ok(const char *s)
{
	if (!*s || *s == '.' || strlen(s) > 200)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-' || *s == '.'))
			return 0;
	return 1;
}

/* ---- one line ----------------------------------------------------------- */

struct line {
	const char *file, *text;
	int no;
	size_t len;
};

/* Column of "key": in the line, so a type error points at its field. */
static int
keycol(const struct line *l, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	size_t pl = strlen(pat);
	for (size_t i = 0; i + pl <= l->len; i++)
		if (!memcmp(l->text + i, pat, pl))
			return (int)i + 1;
	return 1;
}

enum ftype { F_STR, F_INT, F_BOOL, F_NUM, F_ARR, F_OBJ, F_OBJNULL, F_NUMNULL, F_STRNULL };
static const char *const tnames[] = {
	"a string", "an integer", "true or false", "a number", "an array", "an object",
	"an object or null", "a number or null", "a string or null",
};

static int
type_ok(const json_t *v, enum ftype t)
{
	switch (t) {
	case F_STR: return json_is_string(v);
	case F_INT: return json_is_integer(v);
	case F_BOOL: return json_is_boolean(v);
	case F_NUM: return json_is_number(v);
	case F_ARR: return json_is_array(v);
	case F_OBJ: return json_is_object(v);
	case F_OBJNULL: return json_is_object(v) || json_is_null(v);
	case F_NUMNULL: return json_is_number(v) || json_is_null(v);
	case F_STRNULL: return json_is_string(v) || json_is_null(v);
	}
	return 0;
}

/* The fields of each record type: name, type, required. */
struct field {
	const char *name;
	enum ftype type;
	int required;
};
static const struct field run_fields[] = {
	{"fingerprint", F_STR, 1}, {"key", F_OBJ, 1}, {"night", F_STR, 1}, {"job", F_STR, 1},
	{"executor", F_STR, 1}, {"status", F_STR, 1}, {"valid", F_BOOL, 1}, {"invalid", F_ARR, 1},
	{"samples", F_ARR, 1}, {"summary", F_OBJ, 1}, {"tokens_per_s", F_NUMNULL, 0},
	{"tflops_per_gpu", F_NUMNULL, 0}, {"mfu", F_NUMNULL, 0}, {"reference", F_OBJNULL, 0},
	{"image", F_OBJNULL, 0}, {"config_hash", F_STRNULL, 0}, {"llmb_version", F_STRNULL, 0},
	{"nodes", F_STRNULL, 0}, {"recorded_at", F_STR, 0}, {"knobs", F_OBJNULL, 0},
	{NULL, 0, 0},
};
static const struct field ann_fields[] = {
	{"fingerprint", F_STR, 1}, {"action", F_STR, 1}, {"night", F_STR, 1}, {"reason", F_STR, 1},
	{"by", F_STR, 0}, {"recorded_at", F_STR, 0}, {NULL, 0, 0},
};

static int
check_fields(const struct line *l, const json_t *o, const struct field *f)
{
	int bad = 0;
	for (; f->name; f++) {
		const json_t *v = json_object_get(o, f->name);
		if (!v && f->required) {
			diag_error(l->file, l->no, 1, "missing field '%s'", f->name);
			bad++;
		} else if (v && !type_ok(v, f->type)) {
			diag_error(l->file, l->no, keycol(l, f->name), "field '%s' must be %s", f->name,
				   tnames[f->type]);
			bad++;
		}
	}
	return bad;
}

static char *
ostr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? xstrdup(s) : NULL;
}

static void
add_why(struct hrun *r, const char *why)
{
	r->valid = 0;
	char *w = r->why ? xasprintf("%s; %s", r->why, why) : xstrdup(why);
	free(r->why);
	r->why = w;
}

/* Samples: numbers. Our own validity checks beside the record's: an
 * incomplete window, non-finite or non-positive step times. */
static int
load_samples(const struct line *l, const json_t *o, struct hrun *r)
{
	const json_t *a = json_object_get(o, "samples"), *v;
	size_t i;
	r->x = xmalloc((json_array_size(a) + 1) * sizeof *r->x);
	json_array_foreach(a, i, v) {
		if (json_is_null(v)) { /* JSON has no NaN: a non-finite step is written as null */
			r->x[r->n++] = NAN;
			continue;
		}
		if (!json_is_number(v)) {
			diag_error(l->file, l->no, keycol(l, "samples"), "samples[%zu] is neither a number nor null", i);
			return 1;
		}
		r->x[r->n++] = json_number_value(v);
	}
	const json_t *sn = json_object_get(json_object_get(o, "summary"), "n");
	int bad = 0;
	for (i = 0; i < r->n; i++)
		bad |= !isfinite(r->x[i]) ? 1 : r->x[i] <= 0 ? 2 : 0;
	if (r->ok && r->valid) {
		if (!r->n)
			add_why(r, "no samples");
		else if (json_is_integer(sn) && json_integer_value(sn) != (json_int_t)r->n)
			add_why(r, "incomplete window (summary.n differs from the samples)");
		if (bad & 1)
			add_why(r, "non-finite step time");
		if (bad & 2)
			add_why(r, "zero or negative step time");
	}
	return 0;
}

static void
load_reference(const json_t *o, struct hrun *r)
{
	const json_t *ref = json_object_get(o, "reference");
	r->ref = r->tol = NAN;
	if (!json_is_object(ref))
		return;
	const json_t *st = json_object_get(ref, "step_time"), *tol = json_object_get(ref, "tolerance");
	if (json_is_number(st) && json_number_value(st) > 0)
		r->ref = json_number_value(st);
	r->tol = json_is_number(tol) ? json_number_value(tol) : 0.05;
	/* The report's --tolerance is in percent: read values above 1 so. */
	if (r->tol > 1)
		r->tol /= 100;
}

static int
load_run(const struct line *l, const json_t *o, struct hrun *r)
{
	if (check_fields(l, o, run_fields))
		return 1;
	const char *st = json_string_value(json_object_get(o, "status"));
	if (strcmp(st, "ok") && strcmp(st, "failed")) {
		diag_error(l->file, l->no, keycol(l, "status"), "status '%s' is neither 'ok' nor 'failed'", st);
		return 1;
	}
	r->ok = !strcmp(st, "ok");
	r->valid = json_is_true(json_object_get(o, "valid"));
	r->job = ostr(o, "job");
	const json_t *inv = json_object_get(o, "invalid"), *v;
	size_t i;
	json_array_foreach(inv, i, v) if (json_is_string(v)) add_why(r, json_string_value(v));
	r->valid = json_is_true(json_object_get(o, "valid")) && r->ok;
	if (!r->ok)
		add_why(r, "failed");
	if (load_samples(l, o, r))
		return 1;
	load_reference(o, r);
	const json_t *img = json_object_get(o, "image");
	r->image_ref = ostr(img, "ref");
	r->image_digest = ostr(img, "digest");
	r->config_hash = ostr(o, "config_hash");
	r->llmb_version = ostr(o, "llmb_version");
	r->nodes = ostr(o, "nodes");
	const json_t *k = json_object_get(o, "knobs");
	if (json_is_object(k) && json_object_size(k))
		r->knobs = json_dumps(k, JSON_SORT_KEYS | JSON_COMPACT);
	return 0;
}

static int
load_ann(const struct line *l, const json_t *o, struct hann *a)
{
	if (check_fields(l, o, ann_fields))
		return 1;
	const char *act = json_string_value(json_object_get(o, "action"));
	if (!strcmp(act, "accept-baseline"))
		a->action = ANN_ACCEPT;
	else if (!strcmp(act, "ack-false-alarm"))
		a->action = ANN_ACK;
	else {
		diag_error(l->file, l->no, keycol(l, "action"), "unknown annotation action '%s'", act);
		return 1;
	}
	a->reason = ostr(o, "reason");
	return 0;
}

/* ---- duplicate jobs: an open-addressing table of job -> run index ------- */

struct jobset {
	size_t *slot; /* run index + 1; 0 is empty */
	size_t cap;
};

static uint64_t
strhash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Returns the index of an earlier run with the same job, or -1 after adding. */
static long
jobset_add(struct jobset *js, const struct history *h, size_t idx)
{
	if (2 * (h->nruns + 1) > js->cap) {
		struct jobset n = {xcalloc(js->cap ? 2 * js->cap : 64, sizeof *n.slot), js->cap ? 2 * js->cap : 64};
		for (size_t i = 0; i < js->cap; i++) {
			if (!js->slot[i])
				continue;
			size_t p = strhash(h->runs[js->slot[i] - 1].job) & (n.cap - 1);
			while (n.slot[p])
				p = (p + 1) & (n.cap - 1);
			n.slot[p] = js->slot[i];
		}
		free(js->slot);
		*js = n;
	}
	const char *job = h->runs[idx].job;
	size_t p = strhash(job) & (js->cap - 1);
	for (; js->slot[p]; p = (p + 1) & (js->cap - 1))
		if (!strcmp(h->runs[js->slot[p] - 1].job, job))
			return (long)js->slot[p] - 1;
	js->slot[p] = idx + 1;
	return -1;
}

/* ---- the file ----------------------------------------------------------- */

static void
free_run(struct hrun *r)
{
	free(r->job), free(r->why), free(r->x), free(r->image_ref), free(r->image_digest);
	free(r->config_hash), free(r->llmb_version), free(r->nodes), free(r->knobs);
}

/* The common header of both record types: v, type, fingerprint, night. */
static int
check_header(const struct line *l, const json_t *o, const struct history *h, const char **type, int *day)
{
	const json_t *v = json_object_get(o, "v"), *t = json_object_get(o, "type");
	if (!json_is_object(o)) {
		diag_error(l->file, l->no, 1, "a record must be a JSON object");
		return 1;
	}
	if (!json_is_integer(v)) {
		diag_error(l->file, l->no, v ? keycol(l, "v") : 1, v ? "field 'v' must be an integer" : "missing field 'v'");
		return 1;
	}
	if (json_integer_value(v) > HISTORY_VERSION || json_integer_value(v) < 1) {
		diag_error(l->file, l->no, keycol(l, "v"), "record version %lld %s (this llmb reads version %d)",
			   (long long)json_integer_value(v),
			   json_integer_value(v) > HISTORY_VERSION ? "was written by a newer llmb" : "is not valid",
			   HISTORY_VERSION);
		return 1;
	}
	if (!json_is_string(t)) {
		diag_error(l->file, l->no, t ? keycol(l, "type") : 1, t ? "field 'type' must be a string" : "missing field 'type'");
		return 1;
	}
	*type = json_string_value(t);
	if (strcmp(*type, "run") && strcmp(*type, "annotation")) {
		diag_error(l->file, l->no, keycol(l, "type"), "unknown record type '%s'", *type);
		return 1;
	}
	const char *fp = json_string_value(json_object_get(o, "fingerprint"));
	if (fp && strcmp(fp, h->fingerprint)) {
		diag_error(l->file, l->no, keycol(l, "fingerprint"),
			   "fingerprint '%s' does not match the file's '%s'", fp, h->fingerprint);
		return 1;
	}
	const char *night = json_string_value(json_object_get(o, "night"));
	*day = night ? history_day(night) : -2;
	if (night && *day < 0) {
		diag_error(l->file, l->no, keycol(l, "night"), "night '%s' is not a date (YYYY-MM-DD)", night);
		return 1;
	}
	return 0;
}

static void
load_line(const struct line *l, struct history *h, struct jobset *js)
{
	json_error_t err;
	json_t *o = json_loadb(l->text, l->len, JSON_REJECT_DUPLICATES, &err);
	if (!o) {
		diag_error(l->file, l->no, err.column > 0 ? err.column : 1, "not JSON: %s", err.text);
		return;
	}
	const char *type;
	int day;
	if (check_header(l, o, h, &type, &day))
		goto out;
	if (!strcmp(type, "annotation")) {
		struct hann a = {.line = l->no, .day = day};
		if (!load_ann(l, o, &a)) {
			history_night(day, a.night);
			h->anns = xrealloc(h->anns, (h->nanns + 1) * sizeof *h->anns);
			h->anns[h->nanns++] = a;
		}
		goto out;
	}
	struct hrun r = {.line = l->no, .day = day};
	if (load_run(l, o, &r)) {
		free_run(&r);
		goto out;
	}
	history_night(day, r.night);
	if (h->nruns >= 16 ? !(h->nruns & (h->nruns - 1)) : !h->nruns)
		h->runs = xrealloc(h->runs, (h->nruns ? 2 * h->nruns : 16) * sizeof *h->runs);
	h->runs[h->nruns] = r;
	long dup = jobset_add(js, h, h->nruns);
	if (dup >= 0) {
		diag_error(l->file, l->no, keycol(l, "job"), "job '%s' is recorded twice (first at line %d)", r.job,
			   h->runs[dup].line);
		free_run(&r);
		goto out;
	}
	h->nruns++;
	json_decref(h->key);
	h->key = json_incref(json_object_get(o, "key"));
out:
	json_decref(o);
}

static char *
fingerprint_of(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	if (n > 6 && !strcmp(b + n - 6, ".jsonl"))
		n -= 6;
	return xstrndup(b, n);
}

int
history_load(const char *path, struct history *h)
{
	int before = diag_errors;
	memset(h, 0, sizeof *h);
	h->file = xstrdup(path);
	h->fingerprint = fingerprint_of(path);
	size_t len;
	char *buf = read_file(path, &len);
	if (!buf) {
		diag_error(path, 0, 0, "cannot read: %s", strerror(errno));
		return diag_errors - before;
	}
	struct jobset js = {0};
	struct line l = {.file = path};
	for (size_t at = 0; at < len;) {
		char *nl = memchr(buf + at, '\n', len - at);
		l.no++;
		l.text = buf + at;
		l.len = (nl ? (size_t)(nl - buf) : len) - at;
		at += l.len + 1;
		if (!nl) {
			diag_error(path, l.no, (int)l.len + 1, "torn last line (no newline at the end): an append was cut short");
			break;
		}
		if (l.len)
			load_line(&l, h, &js);
		else
			diag_error(path, l.no, 1, "empty line");
	}
	free(js.slot);
	free(buf);
	return diag_errors - before;
}

void
history_free(struct history *h)
{
	for (size_t i = 0; i < h->nruns; i++)
		free_run(&h->runs[i]);
	for (size_t i = 0; i < h->nanns; i++)
		free(h->anns[i].reason);
	free(h->runs), free(h->anns), free(h->file), free(h->fingerprint);
	json_decref(h->key);
	memset(h, 0, sizeof *h);
}

/* ---- llmb annotate ------------------------------------------------------ */

static const char annotate_usage[] =
	"usage: llmb annotate --install DIR FINGERPRINT (--accept-baseline NIGHT | --ack NIGHT) --reason TEXT\n"
	"  --accept-baseline NIGHT  a new baseline segment starts at NIGHT (an intended change)\n"
	"  --ack NIGHT              NIGHT was a false alarm: excluded from baselines, counted\n"
	"Appended to DIR/history/FINGERPRINT.jsonl under DIR/history/.lock.\n";

/* Append one whole line: flock on the history lock, O_APPEND, a single
 * write, fsync. A line is written whole or not at all as far as readers
 * go: a cut-short write is reported as a torn line, never half-read. */
static int
append_line(const char *dir, const char *path, const char *line)
{
	char *lock = xasprintf("%s/.lock", dir);
	int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644), rc = -1;
	free(lock);
	if (lfd < 0)
		return -1;
	if (flock(lfd, LOCK_EX) == 0) {
		int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd >= 0) {
			size_t n = strlen(line);
			ssize_t w = write(fd, line, n);
			rc = w == (ssize_t)n && fsync(fd) == 0 ? 0 : -1;
			close(fd);
		}
	}
	close(lfd);
	return rc;
}

static char *
annotation_line(const char *fp, const char *action, const char *night, const char *reason)
{
	char at[32];
	time_t now = time(NULL);
	strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "v", HISTORY_VERSION, "type",
			      "annotation", "fingerprint", fp, "action", action, "night", night, "reason", reason,
			      "by", "user", "recorded_at", at);
	char *j = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(o);
	char *line = xasprintf("%s\n", j);
	free(j);
	return line;
}

static int
has_night(const struct history *h, int day)
{
	for (size_t i = 0; i < h->nruns; i++)
		if (h->runs[i].day == day)
			return 1;
	return 0;
}

int
cmd_annotate(int argc, char **argv)
{
	const char *install = NULL, *fp = NULL, *night = NULL, *action = NULL, *reason = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--install") && i + 1 < argc)
			install = argv[++i];
		else if (!strcmp(a, "--accept-baseline") && i + 1 < argc)
			action = "accept-baseline", night = argv[++i];
		else if (!strcmp(a, "--ack") && i + 1 < argc)
			action = "ack-false-alarm", night = argv[++i];
		else if (!strcmp(a, "--reason") && i + 1 < argc)
			reason = argv[++i];
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(annotate_usage, stdout);
			return 0;
		} else if (a[0] != '-' && !fp)
			fp = a;
		else {
			fputs(annotate_usage, stderr);
			return 2;
		}
	}
	if (!install || !fp || !action || !reason) {
		fputs(annotate_usage, stderr);
		return 2;
	}
	if (!*reason || strchr(reason, '\n')) {
		fprintf(stderr, "%s: the reason must be one non-empty line\n", progname);
		return 2;
	}
	if (!history_fingerprint_ok(fp)) {
		fprintf(stderr, "%s: '%s' is not a configuration fingerprint\n", progname, fp);
		return 2;
	}
	int day = history_day(night);
	if (day < 0) {
		fprintf(stderr, "%s: night '%s' is not a date (YYYY-MM-DD)\n", progname, night);
		return 2;
	}
	char *dir = xasprintf("%s/history", install), *path = xasprintf("%s/%s.jsonl", dir, fp);
	struct history h;
	int rc = 2;
	if (!file_exists(path))
		fprintf(stderr, "%s: unknown fingerprint '%s': no %s\n", progname, fp, path);
	else if (history_load(path, &h) == 0) {
		if (!strcmp(action, "ack-false-alarm") && !has_night(&h, day))
			fprintf(stderr, "%s: %s has no run on night %s to acknowledge\n", progname, fp, night);
		else {
			char *line = annotation_line(fp, action, night, reason);
			if (append_line(dir, path, line) == 0)
				rc = 0;
			else
				fprintf(stderr, "%s: cannot append to %s: %s\n", progname, path, strerror(errno));
			free(line);
		}
		history_free(&h);
	} else
		history_free(&h);
	free(dir), free(path);
	return rc;
}
