#define _DEFAULT_SOURCE /* MAP_POPULATE */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/jscan.h"
#include "base/stats.h"
#include "base/util.h"
#include "store/histscan.h"

#include "store/history.h"

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
	int v[3] = {(y + (m <= 2)) % 10000, m, d}, w[3] = {4, 2, 2};
	char *o = out;
	for (int f = 0; f < 3; f++) {
		for (int k = w[f]; k-- > 0;)
			o[k] = (char)('0' + v[f] % 10), v[f] /= 10;
		o += w[f];
		if (f < 2)
			*o++ = '-';
	}
	*o = 0;
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

/* ---- the arena ------------------------------------------------------------ */

struct hchunk {
	struct hchunk *next;
	size_t used, cap;
	double data[]; /* doubles: every allocation stays aligned */
};

/* Chunks are mapped with their pages populated in one call: a long
 * history's runs fill megabytes, and a page fault for each 4 KiB page
 * cost more than reading them. The first chunk is sized from the line
 * count (the runs and their strings); more come 256 KiB at a time. */
#define ARENA_WORDS (((size_t)256 << 10) / sizeof(double) - 4)

static void
arena_chunk(struct history *h, size_t cap)
{
	size_t bytes = sizeof(struct hchunk) + cap * sizeof(double);
#ifdef MAP_POPULATE
	struct hchunk *c = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (c == MAP_FAILED)
		die("out of memory (%zu bytes)", bytes);
#else
	struct hchunk *c = xmalloc(bytes);
#endif
	c->next = h->mem, c->used = 0, c->cap = cap;
	h->mem = c;
}

static void *
arena_alloc(struct history *h, size_t n)
{
	size_t words = (n + sizeof(double) - 1) / sizeof(double);
	if (!h->mem || h->mem->used + words > h->mem->cap)
		arena_chunk(h, words > ARENA_WORDS ? words : ARENA_WORDS);
	void *p = h->mem->data + h->mem->used;
	h->mem->used += words;
	return p;
}

static char *
arena_strndup(struct history *h, const char *s, size_t n)
{
	char *p = arena_alloc(h, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* ---- one line ----------------------------------------------------------- */

struct line {
	const char *file, *text;
	int no;
	size_t len;
	struct jscan *js;
	struct history *h;
	const struct jnode *f[32]; /* the record's fields, by table index */
	size_t cap;                /* of h->runs */
};

/* Column of a member's key in the line (1-based), so an error points at its field. */
static int
keycol(const struct line *l, const struct jnode *v)
{
	if (!v || !v->key)
		return 1;
	/* the key's opening quote: back from the value over ':', spaces and the key */
	size_t p = v->raw, kl = strlen(v->key);
	while (p > 0 && l->text[p - 1] != ':')
		p--;
	while (p > 0 && l->text[p - 1] != '"')
		p--;
	p = p > kl + 2 ? p - kl - 2 : 0;
	while (p > 0 && l->text[p] != '"')
		p--;
	return (int)p + 1;
}

enum ftype { F_STR, F_INT, F_BOOL, F_NUM, F_ARR, F_OBJ, F_OBJNULL, F_NUMNULL, F_STRNULL };
static const char *const tnames[] = {
	"a string", "an integer", "true or false", "a number", "an array", "an object",
	"an object or null", "a number or null", "a string or null",
};

static int
type_ok(const struct jnode *v, enum ftype t)
{
	switch (t) {
	case F_STR: return v->type == JT_STR;
	case F_INT: return v->type == JT_NUM && v->isint;
	case F_BOOL: return v->type == JT_TRUE || v->type == JT_FALSE;
	case F_NUM: return v->type == JT_NUM;
	case F_ARR: return v->type == JT_ARR;
	case F_OBJ: return v->type == JT_OBJ;
	case F_OBJNULL: return v->type == JT_OBJ || v->type == JT_NULL;
	case F_NUMNULL: return v->type == JT_NUM || v->type == JT_NULL;
	case F_STRNULL: return v->type == JT_STR || v->type == JT_NULL;
	}
	return 0;
}

/* The fields of each record type, in strcmp order (records are written
 * with sorted keys, so one merge pass finds them all): name, type,
 * required. The enums index a line's f[]. */
struct field {
	const char *name;
	enum ftype type;
	int required;
};
enum {
	R_CONFIG_HASH, R_EXECUTOR, R_FINGERPRINT, R_FLAGGED, R_IMAGE, R_INVALID, R_JOB, R_KEY, R_KNOBS, R_LLMB_VERSION,
	R_MFU, R_NIGHT, R_NODES, R_PROXY, R_RECORDED_AT, R_REFERENCE, R_RUN_DIR, R_SAMPLES, R_STATUS, R_SUMMARY, R_TFLOPS,
	R_TOKENS, R_VALID, R_N
};
static const struct field run_fields[] = {
	{"config_hash", F_STRNULL, 0}, {"executor", F_STR, 1}, {"fingerprint", F_STR, 1},
	{"flagged", F_ARR, 0}, {"image", F_OBJNULL, 0}, {"invalid", F_ARR, 1}, {"job", F_STR, 1}, {"key", F_OBJ, 1},
	{"knobs", F_OBJNULL, 0}, {"llmb_version", F_STRNULL, 0}, {"mfu", F_NUMNULL, 0},
	{"night", F_STR, 1}, {"nodes", F_STRNULL, 0}, {"proxy", F_BOOL, 0}, {"recorded_at", F_STR, 0},
	{"reference", F_OBJNULL, 0}, {"run_dir", F_STRNULL, 0}, {"samples", F_ARR, 1}, {"status", F_STR, 1},
	{"summary", F_OBJ, 1},
	{"tflops_per_gpu", F_NUMNULL, 0}, {"tokens_per_s", F_NUMNULL, 0}, {"valid", F_BOOL, 1},
	{NULL, 0, 0},
};
enum { A_ACTION, A_BY, A_FINGERPRINT, A_NIGHT, A_REASON, A_RECORDED_AT, A_N };
static const struct field ann_fields[] = {
	{"action", F_STR, 1}, {"by", F_STR, 0}, {"fingerprint", F_STR, 1}, {"night", F_STR, 1},
	{"reason", F_STR, 1}, {"recorded_at", F_STR, 0}, {NULL, 0, 0},
};

static const struct jnode *
get(const struct line *l, const struct jnode *o, const char *k)
{
	return jscan_get(l->js, o, k);
}

/* Fill l->f[] with the record's fields, by a merge of its sorted keys with
 * the table (or one lookup per field when a hand edit unsorted them). */
static void
find_fields(struct line *l, const struct jnode *o, const struct field *t)
{
	size_t n = 0;
	while (t[n].name)
		n++;
	memset(l->f, 0, sizeof l->f);
	if (!o->sorted) {
		for (size_t i = 0; i < n; i++)
			l->f[i] = get(l, o, t[i].name);
		return;
	}
	size_t i = 0;
	for (int k = o->first; k >= 0 && i < n; k = l->js->n[k].next) {
		int c;
		while (i < n && (c = strcmp(t[i].name, l->js->n[k].key)) < 0)
			i++;
		if (i < n && c == 0)
			l->f[i++] = &l->js->n[k];
	}
}

static int
check_fields(struct line *l, const struct jnode *o, const struct field *f)
{
	int bad = 0;
	find_fields(l, o, f);
	for (size_t i = 0; f[i].name; i++) {
		const struct jnode *v = l->f[i];
		if (!v && f[i].required) {
			diag_error(l->file, l->no, 1, "missing field '%s'", f[i].name);
			bad++;
		} else if (v && !type_ok(v, f[i].type)) {
			diag_error(l->file, l->no, keycol(l, v), "field '%s' must be %s", f[i].name, tnames[f[i].type]);
			bad++;
		}
	}
	return bad;
}

static char *
vstr(const struct line *l, const struct jnode *v)
{
	return v && v->type == JT_STR ? arena_strndup(l->h, v->str, strlen(v->str)) : NULL;
}

static char *
ostr(const struct line *l, const struct jnode *o, const char *k)
{
	return vstr(l, get(l, o, k));
}

static void
add_why(const struct line *l, struct hrun *r, const char *why)
{
	r->valid = 0;
	char *w = r->why ? xasprintf("%s; %s", r->why, why) : xstrdup(why);
	r->why = arena_strndup(l->h, w, strlen(w));
	free(w);
}

/* A valid run's robust mean and its standard error, from its samples. */
static void
run_stats(struct hrun *r, const double *x)
{
	r->mean = r->se = NAN;
	if (!r->valid)
		return;
	double small[64], *kept = r->n < 64 ? small : xmalloc(r->n * sizeof *kept);
	size_t nk;
	r->mean = stats_robust_mean(x, r->n, kept, &nk);
	r->se = stats_batch_se(kept, nk);
	if (kept != small)
		free(kept);
}

/* Samples: numbers (null for a non-finite step: JSON has no NaN). Our own
 * validity checks beside the record's: an incomplete window, non-finite
 * or non-positive step times. */
static int
load_samples(const struct line *l, struct hrun *r)
{
	const struct jnode *a = l->f[R_SAMPLES];
	size_t i = 0;
	double *x = xmalloc((a->nkids + 1) * sizeof *x);
	for (int k = a->first; k >= 0; k = l->js->n[k].next, i++) {
		const struct jnode *v = &l->js->n[k];
		if (v->type != JT_NUM && v->type != JT_NULL) {
			diag_error(l->file, l->no, keycol(l, a), "samples[%zu] is neither a number nor null", i);
			free(x);
			return 1;
		}
		x[r->n++] = v->type == JT_NUM ? v->num : NAN;
	}
	const struct jnode *sn = get(l, l->f[R_SUMMARY], "n");
	int bad = 0;
	for (i = 0; i < r->n; i++)
		bad |= !isfinite(x[i]) ? 1 : x[i] <= 0 ? 2 : 0;
	if (r->ok && r->valid) {
		if (!r->n)
			add_why(l, r, "no samples");
		else if (sn && sn->type == JT_NUM && sn->isint && sn->num != (double)r->n)
			add_why(l, r, "incomplete window (summary.n differs from the samples)");
		if (bad & 1)
			add_why(l, r, "non-finite step time");
		if (bad & 2)
			add_why(l, r, "zero or negative step time");
	}
	run_stats(r, x);
	free(x);
	return 0;
}

/* The published step time and the tolerance: numbers as the writer
 * writes them ("0.05" or "5%" is refused, never read as the default). */
static int
load_reference(const struct line *l, struct hrun *r)
{
	const struct jnode *ref = l->f[R_REFERENCE];
	r->ref = r->tol = NAN;
	if (!ref || ref->type != JT_OBJ)
		return 0;
	const struct jnode *st = get(l, ref, "step_time"), *tol = get(l, ref, "tolerance");
	if (st && st->type != JT_NUM && st->type != JT_NULL) {
		diag_error(l->file, l->no, keycol(l, st), "reference.step_time must be a number (seconds) or null");
		return 1;
	}
	if (tol && (tol->type != JT_NUM || tol->num < 0)) {
		diag_error(l->file, l->no, keycol(l, tol),
			   "reference.tolerance must be a number, 0 or more (a fraction, or percent above 1)");
		return 1;
	}
	if (st && st->type == JT_NUM && st->num > 0)
		r->ref = st->num;
	r->tol = tol && tol->type == JT_NUM ? tol->num : 0.05;
	/* The report's --tolerance is in percent: read values above 1 so. */
	if (r->tol > 1)
		r->tol /= 100;
	return 0;
}

static int
load_run(struct line *l, const struct jnode *o, struct hrun *r)
{
	if (check_fields(l, o, run_fields))
		return 1;
	const struct jnode *stn = l->f[R_STATUS];
	const char *st = stn->str;
	if (strcmp(st, "ok") && strcmp(st, "failed")) {
		diag_error(l->file, l->no, keycol(l, stn), "status '%s' is neither 'ok' nor 'failed'", st);
		return 1;
	}
	r->ok = !strcmp(st, "ok");
	r->job = vstr(l, l->f[R_JOB]);
	const struct jnode *inv = l->f[R_INVALID], *vd = l->f[R_VALID];
	/* valid agrees with its reasons: true with none, false (when ok) with some */
	if ((vd->type == JT_TRUE) != !inv->nkids && (vd->type == JT_TRUE || r->ok)) {
		diag_error(l->file, l->no, keycol(l, vd), "'valid' is %s but 'invalid' %s", vd->type == JT_TRUE ? "true" : "false",
			   inv->nkids ? "gives reasons" : "gives no reason");
		return 1;
	}
	for (int k = inv->first; k >= 0; k = l->js->n[k].next)
		if (l->js->n[k].type != JT_STR) {
			diag_error(l->file, l->no, keycol(l, inv), "'invalid' must hold strings only");
			return 1;
		}
	const struct jnode *sn = get(l, l->f[R_SUMMARY], "n");
	if (!sn || sn->type != JT_NUM || !sn->isint || sn->num < 0) {
		diag_error(l->file, l->no, keycol(l, sn ? sn : l->f[R_SUMMARY]), "summary.n must be a count (an integer, 0 or more)");
		return 1;
	}
	if (sn->num < (double)l->f[R_SAMPLES]->nkids) {
		diag_error(l->file, l->no, keycol(l, sn), "summary.n (%.0f) is less than the %zu samples", sn->num,
			   l->f[R_SAMPLES]->nkids);
		return 1;
	}
	const struct jnode *kw = get(l, l->f[R_KEY], "workload");
	size_t kwl = kw && kw->type == JT_STR ? strlen(kw->str) : 0;
	if (!kwl || strncmp(kw->str, l->h->fingerprint, kwl) || l->h->fingerprint[kwl] != '_') {
		diag_error(l->file, l->no, keycol(l, kw ? kw : l->f[R_KEY]), "key.workload '%s' does not match the fingerprint '%s'",
			   kw && kw->type == JT_STR ? kw->str : "", l->h->fingerprint);
		return 1;
	}
	for (int k = inv->first; k >= 0; k = l->js->n[k].next)
		if (l->js->n[k].type == JT_STR)
			add_why(l, r, l->js->n[k].str);
	r->valid = l->f[R_VALID]->type == JT_TRUE && r->ok;
	if (!r->ok)
		add_why(l, r, "failed");
	if (load_samples(l, r) || load_reference(l, r))
		return 1;
	const struct jnode *img = l->f[R_IMAGE];
	r->image_ref = ostr(l, img, "ref");
	r->image_digest = ostr(l, img, "digest");
	r->config_hash = vstr(l, l->f[R_CONFIG_HASH]);
	r->llmb_version = vstr(l, l->f[R_LLMB_VERSION]);
	r->nodes = vstr(l, l->f[R_NODES]);
	r->run_dir = vstr(l, l->f[R_RUN_DIR]);
	/* Records are written with sorted keys: the text is the canonical form. */
	const struct jnode *k = l->f[R_KNOBS];
	if (k && k->type == JT_OBJ && k->nkids)
		r->knobs = arena_strndup(l->h, l->text + k->raw, k->rawlen);
	return 0;
}

static const char *const action_names[ANN_NACTIONS] = {
	[ANN_ACCEPT] = "accept-baseline", [ANN_ACK] = "ack-false-alarm", [ANN_MODE] = "accept-mode",
};

const char *
history_action_name(int action)
{
	return action >= 0 && action < ANN_NACTIONS ? action_names[action] : NULL;
}

static int
load_ann(struct line *l, const struct jnode *o, struct hann *a)
{
	if (check_fields(l, o, ann_fields))
		return 1;
	const struct jnode *an = l->f[A_ACTION];
	for (a->action = 0; a->action < ANN_NACTIONS && strcmp(an->str, action_names[a->action]); a->action++)
		;
	if (a->action == ANN_NACTIONS) {
		diag_error(l->file, l->no, keycol(l, an), "unknown annotation action '%s'", an->str);
		return 1;
	}
	a->reason = vstr(l, l->f[A_REASON]);
	return 0;
}

/* Room for one more run. The runs live in the arena too: a long history's
 * fill megabytes, populated at once rather than a page fault at a time. */
static void
runs_room(struct line *l, struct history *h)
{
	if (h->nruns < l->cap)
		return;
	struct hrun *r = arena_alloc(h, (l->cap = l->cap ? 2 * l->cap : 16) * sizeof *r);
	if (h->nruns)
		memcpy(r, h->runs, h->nruns * sizeof *r);
	h->runs = r;
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


/* The common header of both record types: v, type, fingerprint, night. */
static int
check_header(const struct line *l, const struct jnode *o, const struct history *h, const char **type, int *day)
{
	if (o->type != JT_OBJ) {
		diag_error(l->file, l->no, 1, "a record must be a JSON object");
		return 1;
	}
	const struct jnode *v = get(l, o, "v"), *t = get(l, o, "type");
	if (!v || v->type != JT_NUM || !v->isint) {
		diag_error(l->file, l->no, keycol(l, v), v ? "field 'v' must be an integer" : "missing field 'v'");
		return 1;
	}
	if (v->num > HISTORY_VERSION || v->num < 1) {
		diag_error(l->file, l->no, keycol(l, v), "record version %.0f %s (this llmb reads version %d)", v->num,
			   v->num > HISTORY_VERSION ? "was written by a newer llmb" : "is not valid", HISTORY_VERSION);
		return 1;
	}
	if (!t || t->type != JT_STR) {
		diag_error(l->file, l->no, keycol(l, t), t ? "field 'type' must be a string" : "missing field 'type'");
		return 1;
	}
	*type = t->str;
	if (strcmp(*type, "run") && strcmp(*type, "annotation")) {
		diag_error(l->file, l->no, keycol(l, t), "unknown record type '%s'", *type);
		return 1;
	}
	const struct jnode *fp = get(l, o, "fingerprint");
	if (fp && fp->type == JT_STR && strcmp(fp->str, h->fingerprint)) {
		diag_error(l->file, l->no, keycol(l, fp), "fingerprint '%s' does not match the file's '%s'", fp->str,
			   h->fingerprint);
		return 1;
	}
	const struct jnode *night = get(l, o, "night");
	*day = night && night->type == JT_STR ? history_day(night->str) : -2;
	if (night && night->type == JT_STR && *day < 0) {
		diag_error(l->file, l->no, keycol(l, night), "night '%s' is not a date (YYYY-MM-DD)", night->str);
		return 1;
	}
	return 0;
}

/* Not JSON: Jansson says where and why, in its words. */
static void
not_json(const struct line *l)
{
	json_error_t err;
	json_t *o = json_loadb(l->text, l->len, JSON_REJECT_DUPLICATES, &err);
	if (o) {
		json_decref(o);
		diag_error(l->file, l->no, 1, "not JSON this reader accepts (numbers must be finite, arrays and objects nest at most %d deep)",
			   JSCAN_MAX_DEPTH);
	} else if (err.position >= 0 && (size_t)err.position >= l->len)
		/* a record cut short, ended by a later append (append_whole) */
		diag_error(l->file, l->no, (int)l->len + 1, "not JSON, the line ends early (%s): a torn record, an append "
			   "that was cut short; remove the line", err.text);
	else
		diag_error(l->file, l->no, err.column > 0 ? err.column : 1, "not JSON: %s", err.text);
}

static void
load_line(struct line *l, struct history *h, struct jobset *js, const char **key, size_t *keylen)
{
	if (jscan_parse(l->js, l->text, l->len)) {
		not_json(l);
		return;
	}
	const struct jnode *o = &l->js->n[0];
	const char *type;
	int day;
	if (check_header(l, o, h, &type, &day))
		return;
	if (!strcmp(type, "annotation")) {
		struct hann a = {.line = l->no, .day = day};
		if (!load_ann(l, o, &a)) {
			history_night(day, a.night);
			h->anns = xrealloc(h->anns, (h->nanns + 1) * sizeof *h->anns);
			h->anns[h->nanns++] = a;
		}
		return;
	}
	struct hrun r = {.line = l->no, .day = day};
	if (load_run(l, o, &r))
		return;
	history_night(day, r.night);
	runs_room(l, h);
	h->runs[h->nruns] = r;
	long dup = jobset_add(js, h, h->nruns);
	if (dup >= 0) {
		diag_error(l->file, l->no, keycol(l, get(l, o, "job")), "job '%s' is recorded twice (first at line %d)",
			   r.job, h->runs[dup].line);
		return;
	}
	h->nruns++;
	const struct jnode *k = l->f[R_KEY];
	*key = l->text + k->raw, *keylen = k->rawlen;
}

/* A record the fast reader took (histscan.c): the run, as load_line()
 * makes it. 0, or -1 when the full reader must read the line after all
 * (a night that is no date, a job recorded twice: it says so). */
/* The text of s; the previous run's copy when it reads the same (an
 * image, a version, nodes: the same on most nights). */
static char *
span_dup(struct history *h, struct hspan s, char *prev)
{
	if (!s.p)
		return NULL;
	if (prev && !strncmp(prev, s.p, s.n) && !prev[s.n])
		return prev;
	return arena_strndup(h, s.p, s.n);
}

static int
fast_line(struct line *l, struct history *h, struct jobset *js, const struct hscan *s, const char **key, size_t *keylen)
{
	struct hrun r = {.line = l->no, .day = history_day(s->night), .ok = 1, .valid = 1, .n = s->n};
	if (r.day < 0)
		return -1;
	memcpy(r.night, s->night, sizeof r.night);
	const struct hrun *p = h->nruns ? &h->runs[h->nruns - 1] : NULL;
	r.job = span_dup(h, s->job, NULL);
	run_stats(&r, s->x);
	r.ref = s->ref, r.tol = s->tol;
	r.image_ref = span_dup(h, s->image_ref, p ? p->image_ref : NULL);
	r.image_digest = span_dup(h, s->image_digest, p ? p->image_digest : NULL);
	r.config_hash = span_dup(h, s->config_hash, p ? p->config_hash : NULL);
	r.llmb_version = span_dup(h, s->llmb_version, p ? p->llmb_version : NULL);
	r.nodes = span_dup(h, s->nodes, p ? p->nodes : NULL);
	r.run_dir = span_dup(h, s->run_dir, NULL);
	r.knobs = span_dup(h, s->knobs, p ? p->knobs : NULL);
	runs_room(l, h);
	h->runs[h->nruns] = r;
	if (jobset_add(js, h, h->nruns) >= 0)
		return -1;
	h->nruns++;
	*key = s->key.p, *keylen = s->key.n;
	return 0;
}

/* The whole file, read into one buffer that every load reuses: histories
 * are large, and fresh pages (a mapping of each file, set up and torn
 * down) cost more than the copy into pages already touched. The text
 * lives until the next load. */
int history_fast = 1;

static char *rbuf;
static size_t rcap;

static char *
read_whole(const char *path, size_t *len)
{
	/* O_NONBLOCK: a FIFO without a writer must not block the reader */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size < 0 || !S_ISREG(st.st_mode)) {
		int e = fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) ? EINVAL : errno;
		close(fd);
		errno = e;
		return NULL;
	}
	/* what was there when it was opened: an append under way is read next time */
	size_t want = (size_t)st.st_size, got = 0;
	if (want + 1 > rcap)
		free(rbuf), rbuf = xmalloc(rcap = want + 1 + want / 4);
	while (got < want) {
		ssize_t r = read(fd, rbuf + got, want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	int e = errno;
	close(fd);
	errno = e;
	*len = got;
	return rbuf;
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
	/* The name is the fingerprint every record must carry: a name no
	 * writer can give (a space, a quote) is said as that, once, rather
	 * than as each record's workload not matching it. */
	if (!history_fingerprint_ok(h->fingerprint)) {
		const char *f = h->fingerprint;
		size_t at = strspn(f, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.");
		diag_error(path, 0, 0,
			   "the file's name is no configuration fingerprint (%s at character %zu of its name): a history is "
			   "<fingerprint>.jsonl, the fingerprint of letters, digits, '_', '-' and '.' that its records carry",
			   !*f ? "nothing" : f[0] == '.' ? "a leading '.'" : !f[at] ? "over 200 characters"
			   : f[at] == ' ' ? "a space" : f[at] == '\'' ? "a quote" : "a character not allowed",
			   !*f ? (size_t)0 : f[0] == '.' ? (size_t)1 : at + 1);
		return diag_errors - before;
	}
	size_t len;
	char *buf = read_whole(path, &len);
	if (!buf) {
		diag_error(path, 0, 0, "cannot read: %s", errno == EINVAL ? "not a regular file" : strerror(errno));
		return diag_errors - before;
	}
	struct jobset js = {0};
	struct jscan scan = {0};
	struct line l = {.file = path, .js = &scan, .h = h};
	const char *key = NULL;
	size_t keylen = 0;
	/* One run per line at most: sized once, never copied while growing. */
	for (const char *p = buf, *e = buf + len; p < e && (p = memchr(p, '\n', (size_t)(e - p))); p++)
		l.cap++;
	if (l.cap) {
		arena_chunk(h, l.cap * (sizeof *h->runs + 64) / sizeof(double));
		h->runs = arena_alloc(h, l.cap * sizeof *h->runs);
	}
	/* The records' samples and strings take less room than their text. */
	struct hscan hs = {0};
	for (size_t at = 0; at < len;) {
		l.no++;
		l.text = buf + at;
		size_t fl = history_fast ? histscan_run(l.text, buf + len, h->fingerprint, &hs) : 0;
		if (fl && !fast_line(&l, h, &js, &hs, &key, &keylen)) {
			at += fl + 1;
			continue;
		}
		char *nl = memchr(buf + at, '\n', len - at);
		l.len = (nl ? (size_t)(nl - buf) : len) - at;
		at += l.len + 1;
		if (!nl) {
			diag_error(path, l.no, (int)l.len + 1, "torn last line (no newline at the end): an append was cut short");
			break;
		}
		if (l.len)
			load_line(&l, h, &js, &key, &keylen);
		else
			diag_error(path, l.no, 1, "empty line");
	}
	/* The latest run record's key, as Jansson's tree for the output. */
	if (key)
		h->key = json_loadb(key, keylen, 0, NULL);
	jscan_free(&scan);
	free(js.slot);
	free(hs.x);
	return diag_errors - before;
}

void
history_free(struct history *h)
{
	while (h->mem) {
		struct hchunk *next = h->mem->next;
#ifdef MAP_POPULATE
		munmap(h->mem, sizeof(struct hchunk) + h->mem->cap * sizeof(double));
#else
		free(h->mem);
#endif
		h->mem = next;
	}
	free(h->anns), free(h->file), free(h->fingerprint);
	json_decref(h->key);
	memset(h, 0, sizeof *h);
}

/* ---- appending, under the history lock ---------------------------------- */

double history_lock_wait = -1;

/* The holder writes "pid <pid> <program>" into the lock file; a waiter
 * prints it, says it waits, and gives up after history_lock_wait seconds
 * (errno ETIMEDOUT; negative: no limit). */
/* Why the lock could not be taken, which file, and what to do: a lock
 * that is a directory, a link or a FIFO is none llmb made, and nothing
 * is appended until it is removed. errno is kept. */
static int
lock_failed(const char *lockpath, int fd, const char *what)
{
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (e == ETIMEDOUT)
		fprintf(stderr, "%s: error: the history lock %s is still held after %g s (--wait): nothing appended; "
			"run again when its holder is done\n", progname, lockpath, history_lock_wait);
	else if (what)
		fprintf(stderr, "%s: error: the history lock %s is %s, not the regular file llmb makes: nothing appended; "
			"remove it (%s %s) and run again\n", progname, lockpath, what, strcmp(what, "a directory") ? "rm" : "rmdir",
			lockpath);
	else
		fprintf(stderr, "%s: error: cannot take the history lock %s: %s: nothing appended\n", progname, lockpath,
			strerror(e));
	errno = e;
	return -1;
}

int
history_lock(const char *lockpath)
{
	if (mkdir_p(lockpath, 1) < 0)
		return lock_failed(lockpath, -1, NULL);
	/* O_NONBLOCK: a FIFO in its place is opened without waiting, then refused */
	int fd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	struct stat st;
	if (fd < 0 && (errno == EISDIR || errno == ELOOP))
		return lock_failed(lockpath, fd, errno == EISDIR ? "a directory" : "a symbolic link");
	if (fd < 0)
		return lock_failed(lockpath, fd, NULL);
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
		return lock_failed(lockpath, fd, "a FIFO, socket or device");
	double start = now_seconds();
	int told = 0;
	while (lock_fd(fd, LK_TRY) < 0) {
		if (errno != EWOULDBLOCK)
			return lock_failed(lockpath, fd, NULL);
		if (!told++) {
			char who[128] = "";
			ssize_t r = pread(fd, who, sizeof who - 1, 0);
			who[r > 0 ? r : 0] = 0;
			who[strcspn(who, "\n")] = 0;
			fprintf(stderr, "llmb: the history lock %s is held%s%s; waiting for it%s\n", lockpath, *who ? " by " : "",
				who, history_lock_wait >= 0 ? " (--wait limits how long)" : "");
		}
		if (history_lock_wait >= 0 && now_seconds() - start >= history_lock_wait) {
			errno = ETIMEDOUT;
			return lock_failed(lockpath, fd, NULL);
		}
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	char me[64];
	int n = snprintf(me, sizeof me, "pid %ld %s\n", (long)getpid(), progname);
	/* who holds it is a courtesy to waiters: a failed write changes nothing */
	if (ftruncate(fd, 0) == 0 && pwrite(fd, me, (size_t)n, 0) < 0)
		errno = 0;
	return fd;
}

int
history_line_check(const char *path, const char *line)
{
	int before = diag_errors;
	struct history h = {0};
	h.file = xstrdup(path);
	h.fingerprint = fingerprint_of(path);
	size_t len = strlen(line);
	const char *nl = memchr(line, '\n', len);
	if (!len || !nl || nl != line + len - 1)
		diag_error(path, 0, 0, "refusing to append: a record must be one newline-terminated line");
	else {
		struct jobset js = {0};
		struct jscan scan = {0};
		struct line l = {.file = path, .js = &scan, .h = &h, .no = 0, .text = line, .len = len - 1};
		const char *key = NULL;
		size_t keylen = 0;
		load_line(&l, &h, &js, &key, &keylen);
		jscan_free(&scan);
		free(js.slot);
	}
	history_free(&h);
	int bad = diag_errors - before;
	if (bad)
		diag_note(path, 0, 0, "nothing appended: the history reader would refuse this record");
	return bad ? -1 : 0;
}

/* The line and column where fd's torn last line ends (the file does not
 * end in a newline): said once, as the reader would place it. */
static void
say_torn(const char *path, int fd, off_t size)
{
	char buf[65536];
	size_t line = 1, col = 1;
	for (off_t at = 0; at < size;) {
		ssize_t r = pread(fd, buf, sizeof buf, at);
		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r; i++)
			col = buf[i] == '\n' ? (line++, 1) : col + 1;
		at += r;
	}
	diag_warning(path, (int)line, (int)col,
		     "torn last line (no newline at the end): ended with a newline before appending, never glued to; "
		     "a record cut short stays an error of the history reader until the line is removed");
}

/* One write of the whole of data: O_APPEND makes it land at the end even
 * beside other writers, and the reader counts a line without its newline
 * as torn, never as a record. A torn last line (an append cut short: the
 * caller holds the lock, so no writer is under way) is ended with a
 * newline in the same write, so the new records stay whole lines and the
 * reader says where the torn one is. */
static int
append_whole(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	struct stat st;
	char last = '\n';
	if (fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1)
		last = '\n';
	char *whole = NULL;
	if (last != '\n') {
		say_torn(path, fd, st.st_size);
		whole = xmalloc(len + 1);
		whole[0] = '\n';
		memcpy(whole + 1, data, len);
		data = whole, len++;
	}
	ssize_t w = write(fd, data, len);
	int rc = w == (ssize_t)len && fsync(fd) == 0 ? 0 : -1;
	int e = errno;
	free(whole);
	close(fd);
	errno = e;
	return rc;
}

/* The line goes through the reader's own checks first: a writer never
 * appends what the reader refuses. */
int
history_append_locked(const char *path, const char *line)
{
	if (history_line_check(path, line) < 0) {
		errno = EINVAL;
		return -2;
	}
	return append_whole(path, line, strlen(line));
}

int
history_append_batch_locked(const char *path, const char *lines, size_t len)
{
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(lines + at, '\n', len - at);
		size_t l = (nl ? (size_t)(nl - lines) + 1 : len) - at;
		char *one = xstrndup(lines + at, l);
		int bad = history_line_check(path, one) < 0;
		free(one);
		if (bad) {
			errno = EINVAL;
			return -2;
		}
		at += l;
	}
	return append_whole(path, lines, len);
}

int
history_append_line(const char *lockpath, const char *path, const char *line)
{
	int fd = history_lock(lockpath);
	if (fd < 0)
		return -3;
	int rc = history_append_locked(path, line);
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

char *
history_annotation_line(const char *fp, const char *action, const char *night, const char *reason, const char *by)
{
	char *at = utc_timestamp();
	json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "v", HISTORY_VERSION, "type",
			      "annotation", "fingerprint", fp, "action", action, "night", night, "reason", reason,
			      "by", by, "recorded_at", at);
	char *j = o ? json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT) : NULL; /* NULL: a string is not UTF-8 */
	json_decref(o);
	char *line = j ? xasprintf("%s\n", j) : NULL;
	free(j);
	free(at);
	return line;
}

int
lock_wait_option(const char *v)
{
	char *end;
	double w = strtod(v, &end);
	if (end == v || *end || !(w >= 0 && w <= 86400)) {
		fprintf(stderr, "%s: error: --wait=%s: seconds, a number from 0 to 86400\n", progname, v);
		return -1;
	}
	history_lock_wait = w;
	return 0;
}
