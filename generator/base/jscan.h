/* jscan: a small, fast JSON reader for one history line. The history
 * reader parses every record of every night; Jansson's general-purpose
 * tree costs most of that time, so records are scanned into a flat array
 * of nodes that points into the line (strings unescaped into one buffer
 * sized from the line). Duplicate object keys are an error, as with
 * Jansson's JSON_REJECT_DUPLICATES. On any error the caller asks Jansson
 * for the message, so diagnostics read the same either way. */
#ifndef LLMB_JSCAN_H
#define LLMB_JSCAN_H

#include <stddef.h>

enum jtype { JT_NULL, JT_FALSE, JT_TRUE, JT_NUM, JT_STR, JT_ARR, JT_OBJ };

struct jnode {
	enum jtype type;
	int isint;              /* a number written without fraction or exponent */
	int sorted;             /* an object whose keys come in strcmp order */
	double num;
	const char *str;        /* JT_STR: unescaped, NUL-terminated */
	const char *key;        /* object members: the key, NUL-terminated */
	size_t klen;
	size_t raw, rawlen;     /* the value's text: offset in the line and length */
	int first, next;        /* first child, next sibling: node indices or -1 */
	size_t nkids;
};

struct jscan {
	struct jnode *n;
	size_t nn, cap;
	char *sbuf;             /* unescaped strings */
	size_t slen, scap;
	const char *text;
	size_t len, pos;
	int depth;              /* of the container being read */
};

/* Arrays and objects nest at most this deep (a record needs 3). */
#define JSCAN_MAX_DEPTH 64

/* Parse text[0..len) as one JSON value; 0 or -1. Node 0 is the root. */
int jscan_parse(struct jscan *s, const char *text, size_t len);
/* The JSON number at text[*pos] (len: the end of the text): its value
 * (finite), whether it is written as an integer; 0 with *pos past it, or -1. */
int jscan_number(const char *text, size_t len, size_t *pos, double *num, int *isint);
/* Member key of object node o, or NULL. */
const struct jnode *jscan_get(const struct jscan *s, const struct jnode *o, const char *key);
void jscan_free(struct jscan *s);

#endif
