/* htab: a string -> position index with open addressing and linear
 * probing. The planner finds instances by id and checkout files by name
 * through it; gen uses it as a set. Keys are copied. */
#include <stdlib.h>
#include <string.h>

#include "base/htab.h"
#include "base/util.h"

/* FNV-1a. */
static unsigned long
hash_str(const char *s)
{
	unsigned long h = 1469598103934665603UL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211UL;
	return h;
}

void
index_add(struct pindex *x, const char *key, size_t pos)
{
	if (2 * (x->n + 1) > x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 1024;
		struct pslot *n = xcalloc(cap, sizeof *n);
		for (size_t k = 0; k < x->cap; k++) {
			if (!x->slot[k].key)
				continue;
			size_t h = hash_str(x->slot[k].key) & (cap - 1);
			while (n[h].key)
				h = (h + 1) & (cap - 1);
			n[h] = x->slot[k];
		}
		free(x->slot);
		x->slot = n;
		x->cap = cap;
	}
	size_t h = hash_str(key) & (x->cap - 1);
	while (x->slot[h].key)
		h = (h + 1) & (x->cap - 1);
	x->slot[h].key = xstrdup(key);
	x->slot[h].pos = pos;
	x->n++;
}

long
index_get(const struct pindex *x, const char *key)
{
	if (!x->cap)
		return -1;
	for (size_t h = hash_str(key) & (x->cap - 1); x->slot[h].key; h = (h + 1) & (x->cap - 1))
		if (!strcmp(x->slot[h].key, key))
			return (long)x->slot[h].pos;
	return -1;
}

void
index_free(struct pindex *x)
{
	for (size_t k = 0; k < x->cap; k++)
		free(x->slot[k].key);
	free(x->slot);
	memset(x, 0, sizeof *x);
}
