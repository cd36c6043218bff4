#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#include "base/jscan.h"

static int value(struct jscan *s);
static int members(struct jscan *s, int me, int obj);

static void
ws(struct jscan *s)
{
	while (s->pos < s->len && (s->text[s->pos] == ' ' || s->text[s->pos] == '\t' || s->text[s->pos] == '\n' ||
				   s->text[s->pos] == '\r'))
		s->pos++;
}

static int
node(struct jscan *s, enum jtype t)
{
	if (s->nn == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->n = xrealloc(s->n, s->cap * sizeof *s->n);
	}
	struct jnode *n = &s->n[s->nn];
	memset(n, 0, sizeof *n);
	n->type = t, n->first = n->next = -1, n->raw = s->pos;
	return (int)s->nn++;
}

static int
hex4(const char *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
		if (d > 15)
			return -1;
		*v = *v * 16 + d;
	}
	return 0;
}

static void
put_utf8(struct jscan *s, unsigned c)
{
	char *o = s->sbuf + s->slen;
	if (c < 0x80)
		o[0] = (char)c, s->slen += 1;
	else if (c < 0x800)
		o[0] = (char)(0xc0 | c >> 6), o[1] = (char)(0x80 | (c & 0x3f)), s->slen += 2;
	else if (c < 0x10000)
		o[0] = (char)(0xe0 | c >> 12), o[1] = (char)(0x80 | ((c >> 6) & 0x3f)), o[2] = (char)(0x80 | (c & 0x3f)), s->slen += 3;
	else
		o[0] = (char)(0xf0 | c >> 18), o[1] = (char)(0x80 | ((c >> 12) & 0x3f)), o[2] = (char)(0x80 | ((c >> 6) & 0x3f)),
		o[3] = (char)(0x80 | (c & 0x3f)), s->slen += 4;
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t
utf8_len(const char *p, size_t avail)
{
	const unsigned char *u = (const unsigned char *)p;
	size_t n = u[0] >= 0xc2 && u[0] <= 0xdf ? 2 : u[0] >= 0xe0 && u[0] <= 0xef ? 3 : u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : 0;
	if (!n || n > avail)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((u[i] & 0xc0) != 0x80)
			return 0;
	if ((u[0] == 0xe0 && u[1] < 0xa0) || (u[0] == 0xed && u[1] >= 0xa0) || (u[0] == 0xf0 && u[1] < 0x90) ||
	    (u[0] == 0xf4 && u[1] >= 0x90))
		return 0;
	return n;
}

/* A string at s->pos (the opening quote); its unescaped text goes to sbuf. */
static const char *
string(struct jscan *s)
{
	const char *t = s->text;
	char *out = s->sbuf + s->slen;
	s->pos++;
	/* Most strings have no escapes: find the closing quote, copy once. */
	/* one table lookup per character: the quote, the backslash and control characters stop */
	static unsigned char stop[256];
	if (!stop['"'])
		for (int c = 0; c < 256; c++)
			stop[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80;
	size_t end = s->pos;
	while (end < s->len && !stop[(unsigned char)t[end]])
		end++;
	if (end < s->len && t[end] == '"') {
		memcpy(out, t + s->pos, end - s->pos);
		s->slen += end - s->pos;
		s->sbuf[s->slen++] = 0;
		s->pos = end + 1;
		return out;
	}
	while (s->pos < s->len) {
		unsigned char c = (unsigned char)t[s->pos];
		if (c == '"') {
			s->pos++;
			s->sbuf[s->slen++] = 0;
			return out;
		}
		if (c < 0x20)
			return NULL;
		if (c >= 0x80) {
			size_t n = utf8_len(t + s->pos, s->len - s->pos);
			if (!n)
				return NULL;
			memcpy(s->sbuf + s->slen, t + s->pos, n);
			s->slen += n, s->pos += n;
			continue;
		}
		if (c != '\\') {
			s->sbuf[s->slen++] = (char)c, s->pos++;
			continue;
		}
		if (++s->pos >= s->len)
			return NULL;
		char e = t[s->pos++];
		const char *map = strchr("\"\"\\\\//b\bf\fn\nr\rt\t", e);
		if (e && map && (map - "\"\"\\\\//b\bf\fn\nr\rt\t") % 2 == 0) {
			s->sbuf[s->slen++] = map[1];
			continue;
		}
		unsigned u, lo;
		if (e != 'u' || s->pos + 4 > s->len || hex4(t + s->pos, &u))
			return NULL;
		s->pos += 4;
		if (u >= 0xd800 && u < 0xdc00) {
			if (s->pos + 6 > s->len || t[s->pos] != '\\' || t[s->pos + 1] != 'u' || hex4(t + s->pos + 2, &lo) ||
			    lo < 0xdc00 || lo > 0xdfff)
				return NULL;
			s->pos += 6;
			u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
		} else if (u >= 0xdc00 && u < 0xe000)
			return NULL;
		if (!u)
			return NULL; /* as Jansson: no NUL inside strings */
		put_utf8(s, u);
	}
	return NULL;
}

/* Clinger's fast path: a decimal with at most 15 significant digits and a
 * small power of ten is exactly m * 10^e or m / 10^e, rounded once. Other
 * numbers go to strtod. */
int
jscan_number(const char *t, size_t len, size_t *pos, double *num, int *isint)
{
	static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
				     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	size_t p = *pos, start = p;
	int neg = 0, digits = 0, exp = 0, frac = 0;
	uint64_t m = 0;
	if (p < len && t[p] == '-')
		neg = 1, p++;
	if (p >= len || t[p] < '0' || t[p] > '9')
		return -1;
	if (t[p] == '0')
		p++;
	else
		for (; p < len && t[p] >= '0' && t[p] <= '9'; p++)
			digits++, m = m * 10 + (uint64_t)(t[p] - '0');
	if (p < len && t[p] == '.') {
		frac = 1;
		if (++p >= len || t[p] < '0' || t[p] > '9')
			return -1;
		/* zeros before the first significant digit count no digit */
		size_t f0 = p, s0;
		if (!m)
			while (p < len && t[p] == '0')
				p++;
		for (s0 = p; p < len && t[p] >= '0' && t[p] <= '9'; p++)
			m = m * 10 + (uint64_t)(t[p] - '0');
		digits += (int)(p - s0), exp -= (int)(p - f0);
	}
	if (p < len && (t[p] == 'e' || t[p] == 'E')) {
		int es = 1, ev = 0;
		frac = 1;
		p++;
		if (p < len && (t[p] == '+' || t[p] == '-'))
			es = t[p++] == '-' ? -1 : 1;
		if (p >= len || t[p] < '0' || t[p] > '9')
			return -1;
		for (; p < len && t[p] >= '0' && t[p] <= '9'; p++)
			ev = ev < 10000 ? ev * 10 + (t[p] - '0') : ev;
		exp += es * ev;
	}
	*isint = !frac;
	if (digits <= 15 && exp >= -22 && exp <= 22) {
		double v = (double)m;
		v = exp >= 0 ? v * p10[exp] : v / p10[-exp];
		*num = neg ? -v : v;
	} else {
		/* the whole number, however long: a truncated copy reads another value */
		char small[128], *buf = p - start < sizeof small ? small : xmalloc(p - start + 1);
		memcpy(buf, t + start, p - start);
		buf[p - start] = 0;
		*num = strtod(buf, NULL);
		if (buf != small)
			free(buf);
	}
	if (*isint && (digits > 18))
		*isint = 0; /* beyond int64: Jansson would refuse it as an integer too */
	if (!isfinite(*num))
		return -1;
	*pos = p;
	return 0;
}

static int
number(struct jscan *s, struct jnode *n)
{
	return jscan_number(s->text, s->len, &s->pos, &n->num, &n->isint);
}

static int
literal(struct jscan *s, const char *word)
{
	size_t l = strlen(word);
	if (s->pos + l > s->len || memcmp(s->text + s->pos, word, l))
		return -1;
	s->pos += l;
	return 0;
}

static int
cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of object me are all different. */
static int
unique_keys(const struct jscan *s, int me)
{
	size_t n = s->n[me].nkids, i = 0;
	const char **k = xmalloc(n * sizeof *k);
	for (int c = s->n[me].first; c >= 0; c = s->n[c].next)
		k[i++] = s->n[c].key;
	qsort(k, n, sizeof *k, cmp_key);
	int rc = 0;
	for (i = 1; i < n && !rc; i++)
		rc = strcmp(k[i - 1], k[i]) ? 0 : -1;
	free(k);
	return rc;
}

static int
container(struct jscan *s, int me, int obj)
{
	if (++s->depth > JSCAN_MAX_DEPTH)
		return -1;
	int rc = members(s, me, obj);
	s->depth--;
	return rc;
}

static int
members(struct jscan *s, int me, int obj)
{
	int last = -1, sorted = 1;
	s->pos++;
	ws(s);
	if (s->pos < s->len && s->text[s->pos] == (obj ? '}' : ']')) {
		s->pos++;
		s->n[me].sorted = obj;
		return 0;
	}
	for (;;) {
		const char *key = NULL;
		if (obj) {
			if (s->pos >= s->len || s->text[s->pos] != '"' || !(key = string(s)))
				return -1;
			/* Records are written with sorted keys: while they come in
			 * order, a key cannot repeat an earlier one; the others are
			 * checked once the object is whole (sorted: n log n). */
			if (last >= 0 && sorted && strcmp(s->n[last].key, key) >= 0)
				sorted = 0;
			ws(s);
			if (s->pos >= s->len || s->text[s->pos++] != ':')
				return -1;
			ws(s);
		}
		int kid = value(s);
		if (kid < 0)
			return -1;
		s->n[kid].key = key;
		s->n[kid].klen = key ? strlen(key) : 0;
		if (last < 0)
			s->n[me].first = kid;
		else
			s->n[last].next = kid;
		last = kid;
		s->n[me].nkids++;
		ws(s);
		if (s->pos >= s->len)
			return -1;
		char c = s->text[s->pos++];
		if (c == (obj ? '}' : ']')) {
			s->n[me].sorted = obj && sorted;
			return obj && !sorted ? unique_keys(s, me) : 0;
		}
		if (c != ',')
			return -1;
		ws(s);
	}
}

static int
value(struct jscan *s)
{
	if (s->pos >= s->len)
		return -1;
	char c = s->text[s->pos];
	int me, rc;
	switch (c) {
	case '{': me = node(s, JT_OBJ); rc = container(s, me, 1); break;
	case '[': me = node(s, JT_ARR); rc = container(s, me, 0); break;
	case '"': me = node(s, JT_STR); rc = (s->n[me].str = string(s)) ? 0 : -1; break;
	case 't': me = node(s, JT_TRUE); rc = literal(s, "true"); break;
	case 'f': me = node(s, JT_FALSE); rc = literal(s, "false"); break;
	case 'n': me = node(s, JT_NULL); rc = literal(s, "null"); break;
	default: me = node(s, JT_NUM); rc = number(s, &s->n[me]); break;
	}
	if (rc)
		return -1;
	s->n[me].rawlen = s->pos - s->n[me].raw;
	return me;
}

int
jscan_parse(struct jscan *s, const char *text, size_t len)
{
	s->text = text, s->len = len, s->pos = 0, s->nn = 0, s->slen = 0, s->depth = 0;
	if (s->scap < len + 1) {
		free(s->sbuf);
		s->scap = 2 * len + 64;
		s->sbuf = xmalloc(s->scap);
	}
	ws(s);
	if (value(s) < 0)
		return -1;
	ws(s);
	return s->pos == len ? 0 : -1;
}

const struct jnode *
jscan_get(const struct jscan *s, const struct jnode *o, const char *key)
{
	if (!o || o->type != JT_OBJ)
		return NULL;
	size_t l = strlen(key);
	for (int k = o->first; k >= 0; k = s->n[k].next)
		if (s->n[k].klen == l && !memcmp(s->n[k].key, key, l))
			return &s->n[k];
	return NULL;
}

void
jscan_free(struct jscan *s)
{
	free(s->n);
	free(s->sbuf);
	memset(s, 0, sizeof *s);
}
