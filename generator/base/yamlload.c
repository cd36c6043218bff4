#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "base/diag.h"
#include "base/htab.h"
#include "base/util.h"
#include "base/yamlload.h"

/* Node indexes of the document already converted, to find aliases: the
 * document API resolves an alias into a second reference to the anchored
 * node, so a node reached twice (or while still being converted, for
 * "&a [*a]") came through an alias. */
struct conv {
	const char *file;
	yaml_document_t *doc;
	unsigned char *seen;    /* 0 new, 1 converting, 2 done */
	int nodes;
	int bad;
};

static struct ynode *convert(struct conv *c, int id, const yaml_mark_t *ref);
static void ynode_free(struct ynode *y);

static struct ynode *
newnode(enum ykind k, const yaml_node_t *n)
{
	struct ynode *y = xcalloc(1, sizeof *y);
	y->kind = k;
	y->line = (int)n->start_mark.line + 1;
	y->col = (int)n->start_mark.column + 1;
	return y;
}

/* The kids array doubles: its capacity is the power of two at or above
 * nkids (4 at least), so no field is needed and a list of n items costs
 * O(n) copies, not the O(n^2) of growing by one. */
static void
addkid(struct ynode *p, struct ynode *k)
{
	size_t n = p->nkids;
	if (n == 0 || (n >= 4 && !(n & (n - 1))))
		p->kids = xrealloc(p->kids, (n ? 2 * n : 4) * sizeof *p->kids);
	p->kids[p->nkids++] = k;
}

/* Mappings of more keys than this find duplicates through a hash index
 * of their keys; smaller ones (nearly all of a recipe) by a scan. */
#define MAP_SCAN_KEYS 16

/* The first key of y named key, or NULL. */
static const struct ynode *
key_seen(const struct ynode *y, const struct pindex *x, const char *key)
{
	if (x->n) {
		long i = index_get(x, key);
		return i < 0 ? NULL : y->kids[i];
	}
	for (size_t i = 0; i + 1 < y->nkids; i += 2)
		if (!strcmp(y->kids[i]->str, key))
			return y->kids[i];
	return NULL;
}

static struct ynode *
convert_map(struct conv *c, yaml_node_t *n, struct ynode *y)
{
	struct pindex keys = {0};       /* key -> its kids index, past MAP_SCAN_KEYS keys */
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(c->doc, p->key);
		struct ynode *k = convert(c, p->key, &n->start_mark);
		struct ynode *v = convert(c, p->value, kn ? &kn->start_mark : &n->start_mark);
		if (!k || !v) {         /* an alias: already reported */
			ynode_free(k);
			ynode_free(v);
			continue;
		}
		if (k->kind != Y_SCALAR) {
			/* Left out of the tree: every reader takes keys as strings. */
			diag_error(c->file, k->line, k->col, "mapping keys must be plain strings");
			c->bad = 1;
			ynode_free(k);
			ynode_free(v);
			continue;
		}
		const struct ynode *first = key_seen(y, &keys, k->str);
		if (first) {
			diag_error(c->file, k->line, k->col, "duplicate key '%s' (first at %d:%d)", k->str, first->line, first->col);
			c->bad = 1;
		} else if (keys.n) {
			index_add(&keys, k->str, y->nkids);
		} else if (y->nkids / 2 + 1 > MAP_SCAN_KEYS) {
			for (size_t i = 0; i + 1 < y->nkids; i += 2)
				if (index_get(&keys, y->kids[i]->str) < 0)
					index_add(&keys, y->kids[i]->str, i);
			index_add(&keys, k->str, y->nkids);
		}
		addkid(y, k);
		addkid(y, v);
	}
	index_free(&keys);
	return y;
}

static struct ynode *
convert(struct conv *c, int id, const yaml_mark_t *ref)
{
	yaml_node_t *n = yaml_document_get_node(c->doc, id);
	if (!n || id < 1 || id > c->nodes)
		return NULL;
	if (c->seen[id]) {
		diag_error(c->file, (int)ref->line + 1, (int)ref->column + 1,
			   "aliases are not supported (the anchored node is at %d:%d)",
			   (int)n->start_mark.line + 1, (int)n->start_mark.column + 1);
		c->bad = 1;
		return NULL;
	}
	c->seen[id] = 1;
	struct ynode *y = NULL;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		y = newnode(Y_SCALAR, n);
		y->str = xstrndup((const char *)n->data.scalar.value, n->data.scalar.length);
		y->plain = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		if (strlen(y->str) != n->data.scalar.length) {
			diag_error(c->file, y->line, y->col, "NUL character in a string");
			c->bad = 1;
		}
		break;
	case YAML_SEQUENCE_NODE:
		y = newnode(Y_SEQ, n);
		for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
			struct ynode *k = convert(c, *it, &n->start_mark);
			if (k)
				addkid(y, k);
		}
		break;
	case YAML_MAPPING_NODE:
		y = convert_map(c, n, newnode(Y_MAP, n));
		break;
	default:
		break;
	}
	c->seen[id] = 2;
	return y;
}

static void
ynode_free(struct ynode *y)
{
	if (!y)
		return;
	for (size_t i = 0; i < y->nkids; i++)
		ynode_free(y->kids[i]);
	free(y->kids);
	free(y->str);
	free(y);
}

void
ydoc_free(struct ydoc *d)
{
	if (!d)
		return;
	ynode_free(d->root);
	free(d->file);
	free(d);
}

/* A reader error (an invalid byte) has no mark, only its offset in the
 * file: its line and column (in characters, as libyaml counts them). */
static void
offset_mark(const char *file, size_t off, yaml_mark_t *m)
{
	size_t len;
	char *t = read_file(file, &len);
	m->line = 0, m->column = 0;
	for (size_t i = 0; t && i < off && i < len; i++) {
		if (t[i] == '\n')
			m->line++, m->column = 0;
		else if (((unsigned char)t[i] & 0xc0) != 0x80)
			m->column++;
	}
	free(t);
}

static void
parser_error(const char *file, const yaml_parser_t *p)
{
	yaml_mark_t rm;
	const yaml_mark_t *m = p->problem_mark.line || p->problem_mark.column ? &p->problem_mark : &p->context_mark;
	if (p->error == YAML_READER_ERROR) {
		offset_mark(file, p->problem_offset, &rm);
		m = &rm;
	}
	if (p->context)
		diag_error(file, (int)m->line + 1, (int)m->column + 1, "%s %s", p->problem ? p->problem : "syntax error", p->context);
	else
		diag_error(file, (int)m->line + 1, (int)m->column + 1, "%s", p->problem ? p->problem : "syntax error");
}

/* A recipe is a few levels deep. The cap keeps the tree walks' recursion
 * small, and stops libyaml's scanner early: its cost per token grows with
 * the nesting level, so an unbounded nesting costs quadratic time. */
#define YAML_MAX_DEPTH 64

/* A first pass over the events, before any tree is built; a syntax error
 * is left to the loader, which reports it with its context. */
static int
depth_ok(const char *path, FILE *f)
{
	yaml_parser_t p;
	yaml_event_t e;
	int depth = 0, ok = 1;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	while (yaml_parser_parse(&p, &e)) {
		yaml_event_type_t t = e.type;
		if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
			if (++depth > YAML_MAX_DEPTH) {
				diag_error(path, (int)e.start_mark.line + 1, (int)e.start_mark.column + 1,
					   "nested more than %d levels deep: a recipe needs a few", YAML_MAX_DEPTH);
				ok = 0;
			}
		} else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		yaml_event_delete(&e);
		if (!ok || t == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&p);
	rewind(f);
	return ok;
}

/* Opened without blocking (a FIFO would wait for a writer forever) and
 * refused unless it is a regular file. */
static FILE *
open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st = {0};
	if (fd < 0) {
		diag_error(path, 0, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		const char *what = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
			: S_ISSOCK(st.st_mode) ? "a socket" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
			: "not a regular file";
		diag_error(path, 0, 0, "%s, not a regular file: a recipe must be a regular file", what);
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		diag_error(path, 0, 0, "cannot open: %s", strerror(errno));
		close(fd);
	}
	return f;
}

struct ydoc *
yaml_load_file(const char *path)
{
	FILE *f = open_regular(path);
	if (!f)
		return NULL;
	if (!depth_ok(path, f)) {
		fclose(f);
		return NULL;
	}
	yaml_parser_t p;
	yaml_document_t doc;
	struct ydoc *d = NULL;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	if (!yaml_parser_load(&p, &doc)) {
		parser_error(path, &p);
		goto out;
	}
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root) {
		diag_error(path, 1, 1, "empty file: a recipe needs one YAML document");
		yaml_document_delete(&doc);
		goto out;
	}
	struct conv c = {.file = path, .doc = &doc};
	c.nodes = (int)(doc.nodes.top - doc.nodes.start);
	c.seen = xcalloc((size_t)c.nodes + 1, 1);
	d = xcalloc(1, sizeof *d);
	d->file = xstrdup(path);
	d->root = convert(&c, 1, &root->start_mark);
	free(c.seen);
	yaml_document_delete(&doc);
	yaml_document_t next;
	if (!yaml_parser_load(&p, &next)) {
		parser_error(path, &p);
		c.bad = 1;
	} else {
		yaml_node_t *r2 = yaml_document_get_root_node(&next);
		if (r2) {
			diag_error(path, (int)r2->start_mark.line + 1, (int)r2->start_mark.column + 1,
				   "a second YAML document: a recipe file holds exactly one");
			c.bad = 1;
		}
		yaml_document_delete(&next);
	}
	/* Structural errors (duplicate keys, aliases) still leave a tree, so
	 * the schema can report the file's other errors in the same run. */
	d->errors = c.bad;
	if (!d->root) {
		ydoc_free(d);
		d = NULL;
	}
out:
	yaml_parser_delete(&p);
	fclose(f);
	return d;
}

size_t
ymap_len(const struct ynode *m)
{
	return m && m->kind == Y_MAP ? m->nkids / 2 : 0;
}

const struct ynode *
ymap_key(const struct ynode *m, size_t i)
{
	return m->kids[2 * i];
}

const struct ynode *
ymap_val(const struct ynode *m, size_t i)
{
	return m->kids[2 * i + 1];
}

const struct ynode *
ymap_get(const struct ynode *m, const char *key)
{
	for (size_t i = 0; i < ymap_len(m); i++)
		if (m->kids[2 * i] && m->kids[2 * i]->str && !strcmp(m->kids[2 * i]->str, key))
			return m->kids[2 * i + 1];
	return NULL;
}

const char *
ykind_name(enum ykind k)
{
	return k == Y_SCALAR ? "a scalar" : k == Y_SEQ ? "a list" : "a mapping";
}
