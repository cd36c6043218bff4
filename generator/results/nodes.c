/* nodes: see nodes.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/htab.h"
#include "base/util.h"
#include "results/nodes.h"

#define MAX_EXPAND 65536

/* A run's nodes: indices into names, each once. Nights that ran where
 * the night before ran share its list. */
struct nlist {
	size_t *idx;
	size_t n;
};

struct event {
	int day, slow;
	size_t list;            /* into lists */
};

struct nodes {
	char **names;
	size_t nnames;
	struct pindex byname;   /* name -> its index: a run may name 65,536 nodes */
	size_t *mark;           /* per name: the last list that took it (a repeat is skipped) */
	struct nlist *lists;
	size_t nlists;
	struct event *ev;
	size_t nev, cap;
	char *last;             /* the list of the last event: most nights run where the one before ran */
};

/* ---- hostlists ------------------------------------------------------------ */

/* Grown by doubling (at powers of two): one realloc per name made
 * 65,536 of them. */
static void
push(char ***v, size_t *n, char *s)
{
	if (!(*n & (*n - 1)))
		*v = xrealloc(*v, (*n ? 2 * *n : 8) * sizeof **v);
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
	for (size_t i = 0; i < s->nlists; i++)
		free(s->lists[i].idx);
	index_free(&s->byname);
	free(s->names);
	free(s->mark);
	free(s->lists);
	free(s->ev);
	free(s->last);
	free(s);
}

/* Night events, one per run night of every configuration: the list of
 * the night before is expanded and looked up again only when it differs
 * (a hostlist's expansion and the name lookups were 4% of judging). Names
 * are found through a hash index and repeats skipped by a mark per name:
 * both were linear searches, and a run on 65,000 nodes took minutes. */
void
nodes_add(struct nodes *s, int day, const char *list, int slow)
{
	if (!list)
		return;
	if (!s->last || strcmp(list, s->last)) {
		size_t n;
		char **v = nodes_expand(list, &n);
		if (!v)
			return;
		struct nlist l = {xcalloc(n ? n : 1, sizeof(size_t)), 0};
		size_t stamp = s->nlists + 1;
		for (size_t i = 0; i < n; i++) {
			long k = index_get(&s->byname, v[i]);
			if (k < 0) {
				if (!(s->nnames & (s->nnames - 1))) {
					size_t cap = s->nnames ? 2 * s->nnames : 64;
					s->names = xrealloc(s->names, cap * sizeof *s->names);
					s->mark = xrealloc(s->mark, cap * sizeof *s->mark);
				}
				k = (long)s->nnames++;
				s->names[k] = v[i];
				s->mark[k] = 0;
				index_add(&s->byname, v[i], (size_t)k);
			} else {
				free(v[i]);
			}
			if (s->mark[k] != stamp)
				s->mark[k] = stamp, l.idx[l.n++] = (size_t)k;
		}
		free(v);
		s->lists = xrealloc(s->lists, (s->nlists + 1) * sizeof *s->lists);
		s->lists[s->nlists++] = l;
		free(s->last);
		s->last = xstrdup(list);
	}
	if (s->nev == s->cap)
		s->ev = xrealloc(s->ev, (s->cap = s->cap ? 2 * s->cap : 64) * sizeof *s->ev);
	s->ev[s->nev++] = (struct event){day, slow, s->nlists - 1};
}

struct count {
	size_t runs, slow, earlier_slow, runs_else, slow_else;
	double score;           /* meaningful only when runs and runs_else are not 0 */
};

/* Every node's counts at night day, in one pass over the events: a
 * node's runs elsewhere are the runs less its own. */
static struct count *
counts_at(const struct nodes *s, int day)
{
	struct count *c = xcalloc(s->nnames ? s->nnames : 1, sizeof *c);
	size_t runs = 0, slow = 0;
	for (size_t i = 0; i < s->nev; i++) {
		const struct event *e = &s->ev[i];
		if (e->day > day)
			continue;
		runs++;
		slow += (size_t)e->slow;
		const struct nlist *l = &s->lists[e->list];
		for (size_t k = 0; k < l->n; k++) {
			struct count *n = &c[l->idx[k]];
			n->runs++;
			n->slow += (size_t)e->slow;
			n->earlier_slow += (size_t)(e->slow && e->day < day);
		}
	}
	for (size_t i = 0; i < s->nnames; i++) {
		struct count *n = &c[i];
		n->runs_else = runs - n->runs;
		n->slow_else = slow - n->slow;
		if (n->runs && n->runs_else)
			n->score = (double)n->slow / (double)n->runs - (double)n->slow_else / (double)n->runs_else;
	}
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
	struct count *all = v && n ? counts_at(s, day) : NULL;
	json_t **named = NULL;
	size_t nn = 0;
	for (size_t i = 0; v && i < n; i++) {
		long k = index_get(&s->byname, v[i]);
		const struct count *c = k >= 0 ? &all[k] : NULL;
		if (c && c->earlier_slow && c->runs_else && c->score > 0) {
			if (!(nn & (nn - 1)))
				named = xrealloc(named, (nn ? 2 * nn : 8) * sizeof *named);
			named[nn++] = count_json(v[i], c);
		}
		free(v[i]);
	}
	free(v);
	free(all);
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
	struct count *all = counts_at(s, day);
	json_t *o = json_object();
	for (size_t i = 0; i < s->nnames; i++)
		if (all[i].runs)
			json_object_set_new(o, s->names[i], count_json(NULL, &all[i]));
	free(all);
	return o;
}
