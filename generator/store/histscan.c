#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/jscan.h"
#include "base/util.h"

#include "store/histscan.h"

/* A value of the line: its text and kind ('s' string, 'n' number, 'o'
 * object, 'a' array, 't' true, 'f' false, 'z' null; 0 absent). A string's
 * text is its contents, without the quotes. */
struct val {
	const char *p;
	size_t n;
	char t;
};

/* Nesting the fast reader follows; deeper lines go to the full reader. */
#define HS_DEPTH 16

/* Bytes a string may hold here: printable ASCII without '"' and '\'
 * (escapes, control characters and UTF-8 are the full reader's). */
static unsigned char plain[256];

static void
init_plain(void)
{
	for (int c = 0x20; c < 0x80; c++)
		plain[c] = c != '"' && c != '\\';
}

static const char *
str(const char *p, const char *e, struct val *v)
{
	const char *s = ++p;
	while (p < e && plain[(unsigned char)*p])
		p++;
	if (p >= e || *p != '"')
		return NULL;
	v->p = s, v->n = (size_t)(p - s), v->t = 's';
	return p + 1;
}

/* v's text is the len bytes at name. */
static int
is_n(const struct val *v, const char *name, size_t len)
{
	return v->n == len && !memcmp(v->p, name, len);
}

static int
is(const struct val *v, const char *name)
{
	return is_n(v, name, strlen(name));
}

/* a < b in strcmp order (both plain ASCII) */
static int
before(const struct val *a, const struct val *b)
{
	int c = memcmp(a->p, b->p, a->n < b->n ? a->n : b->n);
	return c < 0 || (c == 0 && a->n < b->n);
}

static const char *value(const char *p, const char *e, int depth, struct val *v, const char *const *want,
			 struct val *got);

/* An object or array at p; an object's keys strictly in sorted order
 * (so none repeats). The members named in want (NULL-terminated) go to
 * got[]. */
static const char *
container(const char *p, const char *e, int depth, int obj, const char *const *want, struct val *got)
{
	char close = obj ? '}' : ']';
	struct val prev = {0}, key, kid;
	int first = 1;
	if (depth > HS_DEPTH)
		return NULL;
	p++;
	if (p < e && *p == close)
		return p + 1;
	for (;;) {
		if (obj) {
			if (p >= e || *p != '"' || !(p = str(p, e, &key)) || (!first && !before(&prev, &key)) || p >= e ||
			    *p++ != ':')
				return NULL;
			prev = key, first = 0;
		}
		if (!(p = value(p, e, depth + 1, &kid, NULL, NULL)) || p >= e)
			return NULL;
		for (size_t i = 0; obj && want && want[i]; i++)
			if (is(&key, want[i]))
				got[i] = kid;
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *
literal(const char *p, const char *e, const char *word)
{
	size_t l = strlen(word);
	return (size_t)(e - p) >= l && !memcmp(p, word, l) ? p + l : NULL;
}

static const char *
value(const char *p, const char *e, int depth, struct val *v, const char *const *want, struct val *got)
{
	const char *s = p;
	double num;
	int isint;
	size_t pos = 0;
	if (p >= e)
		return NULL;
	switch (*p) {
	case '"': return str(p, e, v);
	case '{': p = container(p, e, depth, 1, want, got), v->t = 'o'; break;
	case '[': p = container(p, e, depth, 0, NULL, NULL), v->t = 'a'; break;
	case 't': p = literal(p, e, "true"), v->t = 't'; break;
	case 'f': p = literal(p, e, "false"), v->t = 'f'; break;
	case 'n': p = literal(p, e, "null"), v->t = 'z'; break;
	default:
		if (jscan_number(p, (size_t)(e - p), &pos, &num, &isint))
			return NULL;
		p += pos, v->t = 'n';
	}
	if (p)
		v->p = s, v->n = (size_t)(p - s);
	return p;
}

/* The number v (a whole number token); -1 when it is none. */
static int
num(const struct val *v, double *x, int *isint)
{
	size_t pos = 0;
	return v->t == 'n' && !jscan_number(v->p, v->n, &pos, x, isint) && pos == v->n ? 0 : -1;
}

/* The samples: positive numbers only (null, zero or less: the full reader
 * says why the run is invalid). */
static const char *
samples(const char *p, const char *e, struct hscan *s)
{
	s->n = 0;
	if (p >= e || *p++ != '[')
		return NULL;
	if (p < e && *p == ']')
		return NULL; /* no samples: invalid */
	for (;;) {
		size_t pos = 0;
		double x;
		int isint;
		if (jscan_number(p, (size_t)(e - p), &pos, &x, &isint) || !(x > 0))
			return NULL;
		if (s->n == s->xcap)
			s->x = xrealloc(s->x, (s->xcap = s->xcap ? 2 * s->xcap : 64) * sizeof *s->x);
		s->x[s->n++] = x;
		p += pos;
		if (p >= e)
			return NULL;
		if (*p == ']')
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

/* The top-level fields, in sorted order, with the kinds each may take
 * (the full reader's table, plus type and v) and whether it is required. */
enum {
	F_CONFIG_HASH, F_EXECUTOR, F_FINGERPRINT, F_FLAGGED, F_IMAGE, F_INVALID, F_JOB, F_KEY, F_KNOBS, F_LLMB_VERSION,
	F_MFU, F_NIGHT, F_NODES, F_PROXY, F_RECORDED_AT, F_REFERENCE, F_RUN_DIR, F_SAMPLES, F_STATUS, F_SUMMARY,
	F_TFLOPS, F_TOKENS, F_TYPE, F_V, F_VALID, F_N
};
#define FIELD(name, kinds, required) {name, sizeof name - 1, kinds, required}
static const struct {
	const char *name;
	size_t len;
	const char *kinds;
	int required;
} fields[F_N] = {
	FIELD("config_hash", "sz", 0), FIELD("executor", "s", 1), FIELD("fingerprint", "s", 1),
	FIELD("flagged", "a", 0), FIELD("image", "oz", 0), FIELD("invalid", "a", 1), FIELD("job", "s", 1),
	FIELD("key", "o", 1), FIELD("knobs", "oz", 0), FIELD("llmb_version", "sz", 0), FIELD("mfu", "nz", 0),
	FIELD("night", "s", 1), FIELD("nodes", "sz", 0), FIELD("proxy", "tf", 0), FIELD("recorded_at", "s", 0),
	FIELD("reference", "oz", 0), FIELD("run_dir", "sz", 0), FIELD("samples", "a", 1), FIELD("status", "s", 1),
	FIELD("summary", "o", 1), FIELD("tflops_per_gpu", "nz", 0), FIELD("tokens_per_s", "nz", 0),
	FIELD("type", "s", 1), FIELD("v", "n", 1), FIELD("valid", "tf", 1),
};
#undef FIELD

static const char *const want_image[] = {"digest", "ref", NULL};
static const char *const want_key[] = {"workload", NULL};
static const char *const want_reference[] = {"step_time", "tolerance", NULL};
static const char *const want_summary[] = {"n", NULL};

static const char *const *
wanted(int f)
{
	return f == F_IMAGE ? want_image : f == F_KEY ? want_key : f == F_REFERENCE ? want_reference
	       : f == F_SUMMARY ? want_summary : NULL;
}

static struct hspan
span(const struct val *v)
{
	struct hspan h = {v->t == 's' || v->t == 'o' ? v->p : NULL, v->n};
	return h;
}

size_t
histscan_run(const char *text, const char *end, const char *fingerprint, struct hscan *s)
{
	struct val f[F_N] = {{0}}, sub[F_N][2] = {{{0}}}, key;
	const char *p = text;
	int i = 0;
	if (!plain['a'])
		init_plain();
	if (p >= end || *p++ != '{')
		return 0;
	for (;;) {
		if (p >= end || *p != '"' || !(p = str(p, end, &key)) || p >= end || *p++ != ':')
			return 0;
		while (i < F_N && before(&(struct val){fields[i].name, fields[i].len, 's'}, &key))
			i++;
		if (i == F_N || !is_n(&key, fields[i].name, fields[i].len))
			return 0; /* a field this reader does not know, or keys out of order */
		p = i == F_SAMPLES ? samples(p, end, s) : value(p, end, 2, &f[i], wanted(i), sub[i]);
		if (!p || p >= end)
			return 0;
		if (i == F_SAMPLES)
			f[i].t = 'a';
		i++;
		if (*p == '}')
			break;
		if (*p++ != ',')
			return 0;
	}
	if (++p >= end || *p != '\n')
		return 0;
	for (i = 0; i < F_N; i++)
		if (f[i].t ? !strchr(fields[i].kinds, f[i].t) : fields[i].required)
			return 0;
	/* A version-1 run record of this configuration, ok and valid. */
	if (!is(&f[F_V], "1") || !is(&f[F_TYPE], "run") || !is(&f[F_FINGERPRINT], fingerprint) ||
	    !is(&f[F_STATUS], "ok") || f[F_VALID].t != 't' || !is(&f[F_INVALID], "[]") || f[F_NIGHT].n != 10)
		return 0;
	memcpy(s->night, f[F_NIGHT].p, 10);
	s->night[10] = 0;
	/* summary.n: the count of the samples (else incomplete, or refused) */
	double x;
	int isint;
	const struct val *sn = &sub[F_SUMMARY][0];
	if (num(sn, &x, &isint) || !isint || x != (double)s->n)
		return 0;
	/* key.workload: the fingerprint's first word */
	const struct val *kw = &sub[F_KEY][0];
	size_t fl = strlen(fingerprint);
	if (kw->t != 's' || !kw->n || kw->n >= fl || memcmp(kw->p, fingerprint, kw->n) || fingerprint[kw->n] != '_')
		return 0;
	s->ref = s->tol = NAN;
	if (f[F_REFERENCE].t == 'o') {
		const struct val *st = &sub[F_REFERENCE][0], *tol = &sub[F_REFERENCE][1];
		/* a step time that is no number or null, a tolerance that is no
		 * number of 0 or more: the full reader's error */
		if ((st->t && st->t != 'z' && num(st, &x, &isint)) || (tol->t && (num(tol, &x, &isint) || x < 0)))
			return 0;
		if (!num(st, &x, &isint) && x > 0)
			s->ref = x;
		s->tol = !num(tol, &x, &isint) ? x : 0.05;
		if (s->tol > 1)
			s->tol /= 100;
	}
	s->job = span(&f[F_JOB]);
	s->image_digest = span(&sub[F_IMAGE][0]);
	s->image_ref = span(&sub[F_IMAGE][1]);
	s->config_hash = span(&f[F_CONFIG_HASH]);
	s->llmb_version = span(&f[F_LLMB_VERSION]);
	s->nodes = span(&f[F_NODES]);
	s->run_dir = span(&f[F_RUN_DIR]);
	s->knobs = f[F_KNOBS].t == 'o' && f[F_KNOBS].n > 2 ? span(&f[F_KNOBS]) : (struct hspan){0};
	s->key = span(&f[F_KEY]);
	return (size_t)(p - text);
}
