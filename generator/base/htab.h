/* htab: a string -> position index (open addressing), for instance ids,
 * checkout files, mapping keys and sets of words. A zeroed struct pindex
 * is empty. */
#ifndef LLMB_HTAB_H
#define LLMB_HTAB_H

#include <stddef.h>

struct pslot {
	char *key;
	size_t pos;
};
struct pindex {
	struct pslot *slot;
	size_t n, cap;
};
void index_add(struct pindex *x, const char *key, size_t pos);
long index_get(const struct pindex *x, const char *key);  /* -1: absent */
void index_free(struct pindex *x);

#endif
