/* schema: the shapes of recipe files as tables, and one validator that walks
 * a YAML tree against them. Every value class that can end up in a shell
 * word, a file name or a make target is checked here, before anything is
 * generated. The tables themselves live in recipe.c, next to the code that
 * reads the validated tree. */
#ifndef LLMB_SCHEMA_H
#define LLMB_SCHEMA_H

#include "base/yamlload.h"

enum tkind {
	T_NAME,     /* [A-Za-z0-9][A-Za-z0-9._+-]*: names, sizes, dtypes, keys */
	T_STR,      /* printable text, no control characters (always shell-quoted) */
	T_WORD,     /* an argv word or env value: T_STR, {var} placeholders allowed */
	T_PATH,     /* relative path below a directory: no "..", no leading "/" */
	T_IMAGE,    /* container image reference, enroot form registry#path:tag */
	T_URL,      /* git URL */
	T_SHA,      /* full 40-hex commit */
	T_TIME,     /* [D-]HH:MM:SS */
	T_INT,      /* integer >= 0 */
	T_NUM,      /* decimal number */
	T_BOOL,     /* true | false */
	T_EXPR,     /* number or arithmetic expression over named values */
	T_ENUM,     /* one of enums[] */
	T_LIST,     /* sequence of elem */
	T_NAMES,    /* one T_NAME, or a list of them */
	T_OBJ,      /* mapping with the fields[] keys */
	T_DICT,     /* mapping from T_NAME keys to elem */
	T_STR_OR_OBJ, /* a T_STR, or a T_OBJ with fields[] (pip entries) */
	T_VAR,      /* [A-Za-z_][A-Za-z0-9_]*: an environment variable's name */
	T_VARS,     /* one T_VAR, or a list of them (secrets) */
	T_VARDICT,  /* mapping from T_VAR keys to elem (a job's env) */
};

struct field;

struct ytype {
	enum tkind kind;
	const struct ytype *elem;
	const struct field *fields;     /* ends with {NULL} */
	const char *const *enums;       /* ends with NULL */
};

struct field {
	const char *key;
	const struct ytype *type;
	int required;
	const char *help;
};

/* Validates node against t; reports every problem through diag.h.
 * Returns the number of errors found. */
int schema_check(const char *file, const struct ynode *node, const struct ytype *t);

/* The value classes, for values that do not come from a YAML tree. */
int valid_name(const char *s);
int valid_var(const char *s);     /* T_VAR */
int valid_str(const char *s);
int valid_path(const char *s);    /* T_PATH */
int valid_sha(const char *s);     /* T_SHA: a full 40-digit lowercase hex commit */

#endif
