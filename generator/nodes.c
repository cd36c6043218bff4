/* nodes: see nodes.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodes.h"
#include "util.h"

#define MAX_EXPAND 65536

struct event {
	int day, slow;
	size_t *idx;            /* node indices, unique */
	size_t n;
};

struct nodes {
	char **names;
	size_t nnames;
	struct event *ev;
	size_t nev, cap;
	char *last;             /* the list of the last event: most nights run where the one before ran */
};

/* ---- hostlists ------------------------------------------------------------ */

static void
push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = s;
}

/* prefix[ranges]suffix of one name, appended to v; without v only
 * counted in *n, with no bound but size_t's (nothing is stored). */
static int
expand_one(const char *s, size_t len, char ***v, size_t *n)
{
	const char *lb = memchr(s, '[', len);
	if (!lb) {
		if (memchr(s, ']', len))
			return -1;
		if (v)
			push(v, n, xstrndup(s, len));
		else
			++*n;
		return 0;
	}
	const char *rb = memchr(lb, ']', len - (size_t)(lb - s));
	if (!rb || memchr(rb + 1, '[', len - (size_t)(rb + 1 - s)) || memchr(rb + 1, ']', len - (size_t)(rb + 1 - s)))
		return -1;
	int pl = (int)(lb - s), sl = (int)(len - (size_t)(rb + 1 - s));
	for (const char *p = lb + 1; p < rb;) {
		char *end;
		errno = 0;
		long a = strtol(p, &end, 10), b = a;
		if (end == p || *p == '-' || *p == '+' || errno)
			return -1;
		int width = (int)(end - p);
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || p[1] == '-' || p[1] == '+' || errno || b < a)
				return -1;
			p = end;
		}
		if (p < rb && *p++ != ',')
			return -1;
		if (!v) {
			if ((unsigned long)(b - a) >= SIZE_MAX - *n)
				return -1;
			*n += (size_t)(b - a) + 1;
			continue;
		}
		if (b - a >= MAX_EXPAND || *n + (size_t)(b - a) >= MAX_EXPAND)
			return -1;
		for (long i = a; i <= b; i++)
			push(v, n, xasprintf("%.*s%0*ld%.*s", pl, s, width, i, sl, rb + 1));
	}
	return 0;
}

/* The names of list into *v, or only their count without v. */
static int
expand(const char *list, char ***v, size_t *n)
{
	*n = 0;
	for (const char *p = list; p && *p;) {
		/* a name ends at a comma outside brackets */
		size_t l = 0;
		int depth = 0;
		for (; p[l] && (depth || p[l] != ','); l++)
			depth += p[l] == '[' ? 1 : p[l] == ']' ? -1 : 0;
		if (!l || depth || expand_one(p, l, v, n) < 0)
			return -1;
		p += l + (p[l] == ',');
	}
	return 0;
}

char **
nodes_expand(const char *list, size_t *n)
{
	char **v = NULL;
	if (expand(list, &v, n) < 0) {
		for (size_t i = 0; i < *n; i++)
			free(v[i]);
		free(v);
		*n = 0;
		return NULL;
	}
	return v;
}

int
nodes_count(const char *list, size_t *n)
{
	if (expand(list, NULL, n) < 0) {
		*n = 0;
		return -1;
	}
	return 0;
}

/* ---- events --------------------------------------------------------------- */

struct nodes *
nodes_new(void)
{
	return xcalloc(1, sizeof(struct nodes));
}

void
nodes_free(struct nodes *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	for (size_t i = 0; i < s->nev; i++)
		free(s->ev[i].idx);
	free(s->names);
	free(s->ev);
	free(s->last);
	free(s);
}

static long
find(const struct nodes *s, const char *name)
{
	for (size_t i = 0; i < s->nnames; i++)
		if (!strcmp(s->names[i], name))
			return (long)i;
	return -1;
}

static int
has(const struct event *e, size_t idx)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->idx[i] == idx)
			return 1;
	return 0;
}

/* Night events, one per run night of every configuration: the list of
 * the night before is expanded and looked up again only when it differs
 * (a hostlist's expansion and the name lookups were 4% of judging). */
void
nodes_add(struct nodes *s, int day, const char *list, int slow)
{
	if (!list)
		return;
	struct event e = {day, slow, NULL, 0};
	if (s->last && !strcmp(list, s->last)) {
		const struct event *p = &s->ev[s->nev - 1];
		e.idx = xmalloc((p->n ? p->n : 1) * sizeof(size_t));
		memcpy(e.idx, p->idx, p->n * sizeof(size_t));
		e.n = p->n;
	} else {
		size_t n;
		char **v = nodes_expand(list, &n);
		if (!v)
			return;
		e.idx = xcalloc(n ? n : 1, sizeof(size_t));
		for (size_t i = 0; i < n; i++) {
			long k = find(s, v[i]);
			if (k < 0) {
				s->names = xrealloc(s->names, (s->nnames + 1) * sizeof *s->names);
				s->names[s->nnames] = v[i];
				k = (long)s->nnames++;
			} else {
				free(v[i]);
			}
			if (!has(&e, (size_t)k))
				e.idx[e.n++] = (size_t)k;
		}
		free(v);
		free(s->last);
		s->last = xstrdup(list);
	}
	if (s->nev == s->cap)
		s->ev = xrealloc(s->ev, (s->cap = s->cap ? 2 * s->cap : 64) * sizeof *s->ev);
	s->ev[s->nev++] = e;
}

struct count {
	size_t runs, slow, earlier_slow, runs_else, slow_else;
	double score;           /* meaningful only when runs and runs_else are not 0 */
};

static struct count
count_of(const struct nodes *s, size_t idx, int day)
{
	struct count c = {0};
	for (size_t i = 0; i < s->nev; i++) {
		const struct event *e = &s->ev[i];
		if (e->day > day)
			continue;
		if (has(e, idx)) {
			c.runs++;
			c.slow += (size_t)e->slow;
			c.earlier_slow += (size_t)(e->slow && e->day < day);
		} else {
			c.runs_else++;
			c.slow_else += (size_t)e->slow;
		}
	}
	if (c.runs && c.runs_else)
		c.score = (double)c.slow / (double)c.runs - (double)c.slow_else / (double)c.runs_else;
	return c;
}

static json_t *
count_json(const char *name, const struct count *c)
{
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I}", "runs", (json_int_t)c->runs, "slow_runs",
			      (json_int_t)c->slow, "earlier_slow_runs", (json_int_t)c->earlier_slow, "runs_elsewhere",
			      (json_int_t)c->runs_else, "slow_runs_elsewhere", (json_int_t)c->slow_else);
	json_object_set_new(o, "score", c->runs && c->runs_else ? json_real(c->score) : json_null());
	if (name)
		json_object_set_new(o, "node", json_string(name));
	return o;
}

static int
by_score(const void *a, const void *b)
{
	double x = json_real_value(json_object_get(*(json_t *const *)a, "score"));
	double y = json_real_value(json_object_get(*(json_t *const *)b, "score"));
	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "node")),
		      json_string_value(json_object_get(*(json_t *const *)b, "node")));
}

json_t *
nodes_suspects(const struct nodes *s, int day, const char *list)
{
	size_t n;
	char **v = list ? nodes_expand(list, &n) : NULL;
	json_t **named = NULL;
	size_t nn = 0;
	for (size_t i = 0; v && i < n; i++) {
		long k = find(s, v[i]);
		struct count c = k >= 0 ? count_of(s, (size_t)k, day) : (struct count){0};
		if (k >= 0 && c.earlier_slow && c.runs_else && c.score > 0) {
			named = xrealloc(named, (nn + 1) * sizeof *named);
			named[nn++] = count_json(v[i], &c);
		}
		free(v[i]);
	}
	free(v);
	if (!nn)
		return NULL;
	qsort(named, nn, sizeof *named, by_score);
	json_t *a = json_array();
	for (size_t i = 0; i < nn; i++)
		json_array_append_new(a, named[i]);
	free(named);
	return a;
}

json_t *
nodes_scores(const struct nodes *s, int day)
{
	if (s->nnames < 2)
		return NULL;
	json_t *o = json_object();
	for (size_t i = 0; i < s->nnames; i++) {
		struct count c = count_of(s, i, day);
		if (c.runs)
			json_object_set_new(o, s->names[i], count_json(NULL, &c));
	}
	return o;
}
