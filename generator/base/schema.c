#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/schema.h"
#include "base/util.h"

static int
all_chars(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

int
valid_name(const char *s)
{
	return *s && isalnum((unsigned char)*s) && strlen(s) <= 64 && all_chars(s, "._+-");
}

/* A name a shell exports: a job script writes `export NAME=...`. */
int
valid_var(const char *s)
{
	return *s && !isdigit((unsigned char)*s) && strlen(s) <= 128 &&
	       !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")];
}

/* Printable text. "[[" and "]]" are refused because job scripts are made
 * with m4 and these are its quotes there. */
int
valid_str(const char *s)
{
	return !has_control(s) && !strstr(s, "[[") && !strstr(s, "]]");
}

/* {name} placeholders must name something; their names are checked where
 * they are expanded, here only their form. */
static int
valid_word(const char *s)
{
	if (!valid_str(s))
		return 0;
	for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{')) {
		const char *e = strchr(p, '}');
		if (!e || e == p + 1)
			return 0;
		for (const char *q = p + 1; q < e; q++)
			if (!isalnum((unsigned char)*q) && *q != '_')
				return 0;
	}
	return 1;
}

int
valid_path(const char *s)
{
	if (!*s || *s == '/' || !all_chars(s, "._/+-"))
		return 0;
	for (const char *p = s; p; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			return 0;
	}
	return 1;
}

static int
valid_time(const char *s)
{
	const char *p = s;
	char *end;
	const char *dash = strchr(s, '-');
	if (dash) {
		strtol(s, &end, 10);
		if (end != dash || dash == s)
			return 0;
		p = dash + 1;
	}
	/* HH:MM:SS */
	if (strlen(p) != 8 || p[2] != ':' || p[5] != ':')
		return 0;
	for (int i = 0; i < 8; i++)
		if (i != 2 && i != 5 && !isdigit((unsigned char)p[i]))
			return 0;
	return (p[3] - '0') * 10 + (p[4] - '0') < 60 && (p[6] - '0') * 10 + (p[7] - '0') < 60;
}

/* Bounded so that every count fits a long with room for products
 * (nodes, GPUs): 2^63 must not wrap into a negative node count. */
#define INT_MAX_VALUE 1000000000L
static int
valid_int(const char *s)
{
	if (!*s || strlen(s) > 10)
		return 0;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	return strtol(s, NULL, 10) <= INT_MAX_VALUE;
}

static int
valid_num(const char *s)
{
	char *end;
	if (!*s)
		return 0;
	strtod(s, &end);
	return *end == 0 && all_chars(s, ".+-");
}

static const struct {
	enum tkind k;
	int (*ok)(const char *);
	const char *what;
} scalar_classes[] = {
	{T_NAME, valid_name, "a name ([A-Za-z0-9] then [A-Za-z0-9._+-], at most 64)"},
	{T_VAR, valid_var, "a variable name ([A-Za-z_] then [A-Za-z0-9_])"},
	{T_STR, valid_str, "printable text without control characters, '[[' or ']]'"},
	{T_WORD, valid_word, "printable text whose {placeholders} are {name}"},
	{T_PATH, valid_path, "a relative path of [A-Za-z0-9._/+-] without '..'"},
	{T_INT, valid_int, "a whole number >= 0"},
	{T_NUM, valid_num, "a number"},
	{T_TIME, valid_time, "a time limit [D-]HH:MM:SS"},
};

static int
valid_image(const char *s)
{
	return *s && isalnum((unsigned char)*s) && all_chars(s, "._/#:@+-");
}

static int
valid_url(const char *s)
{
	return *s && isalnum((unsigned char)*s) && all_chars(s, "._/:@+~%=-");
}

int
valid_sha(const char *s)
{
	if (strlen(s) != 40)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !(*s >= 'a' && *s <= 'f'))
			return 0;
	return 1;
}

static int
valid_expr(const char *s)
{
	return *s && all_chars(s, " ._+-*/^(),");
}

static int check(const char *file, const struct ynode *n, const struct ytype *t);

/* The key whose value is being checked, for messages that would not say
 * otherwise which value is meant. */
static const char *schema_key;

static int
check_obj(const char *file, const struct ynode *n, const struct field *fields)
{
	int errs = 0;
	for (size_t i = 0; i < ymap_len(n); i++) {
		const struct ynode *k = ymap_key(n, i);
		const struct field *f = fields;
		while (f->key && strcmp(f->key, k->str))
			f++;
		if (!f->key) {
			const char *cands[64];
			size_t nc = 0;
			for (f = fields; f->key && nc < 63; f++)
				cands[nc++] = f->key;
			cands[nc] = NULL;
			const char *s = diag_suggest(k->str, cands);
			if (s)
				diag_error(file, k->line, k->col, "unknown key '%s'; did you mean '%s'?", k->str, s);
			else
				diag_error(file, k->line, k->col, "unknown key '%s'", k->str);
			errs++;
			continue;
		}
		const char *outer = schema_key;
		schema_key = f->key;
		errs += check(file, ymap_val(n, i), f->type);
		schema_key = outer;
	}
	for (const struct field *f = fields; f->key; f++) {
		if (f->required && !ymap_get(n, f->key)) {
			diag_error(file, n->line, n->col, "missing required key '%s' (%s)", f->key, f->help);
			errs++;
		}
	}
	return errs;
}

static int
want(const char *file, const struct ynode *n, enum ykind k, const char *what)
{
	if (n->kind == k)
		return 0;
	diag_error(file, n->line, n->col, "expected %s, found %s", what, ykind_name(n->kind));
	return 1;
}

static int
check_scalar(const char *file, const struct ynode *n, const struct ytype *t)
{
	const char *what = NULL;
	int ok = 1;
	for (size_t i = 0; i < sizeof scalar_classes / sizeof *scalar_classes; i++) {
		if (scalar_classes[i].k == t->kind) {
			ok = scalar_classes[i].ok(n->str);
			what = scalar_classes[i].what;
		}
	}
	/* 1e400 and nan are numbers strtod reads, but no count or size is
	 * infinite: out of range, named by its key */
	if (t->kind == T_NUM && ok)
		ok = isfinite(strtod(n->str, NULL));
	switch (t->kind) {
	case T_IMAGE: ok = valid_image(n->str); what = "an image reference like registry#path:tag"; break;
	case T_URL: ok = valid_url(n->str); what = "a URL of [A-Za-z0-9._/:@+~%=-]"; break;
	case T_SHA: ok = valid_sha(n->str); what = "a full 40-digit lowercase hex commit"; break;
	case T_EXPR: ok = valid_expr(n->str); what = "a number or an arithmetic expression"; break;
	case T_BOOL:
		ok = n->plain && (!strcmp(n->str, "true") || !strcmp(n->str, "false"));
		what = "true or false";
		break;
	case T_ENUM: {
		struct sb s = {0};
		ok = 0;
		for (const char *const *e = t->enums; *e; e++) {
			ok |= !strcmp(*e, n->str);
			sb_addf(&s, "%s%s", s.len ? ", " : "", *e);
		}
		if (!ok) {
			const char *sug = diag_suggest(n->str, t->enums);
			if (sug)
				diag_error(file, n->line, n->col, "'%s' is not one of %s; did you mean '%s'?", n->str, s.buf, sug);
			else
				diag_error(file, n->line, n->col, "'%s' is not one of %s", n->str, s.buf);
		}
		sb_free(&s);
		return !ok;
	}
	default:
		break;
	}
	if (!ok) {
		const unsigned char *cc = (const unsigned char *)n->str;
		while (*cc && *cc >= 0x20 && *cc != 0x7f)
			cc++;
		if (*cc)
			diag_error(file, n->line, n->col, "control character 0x%02x in a value: expected %s", *cc, what);
		else if (t->kind == T_INT && *n->str && strspn(n->str, "0123456789") == strlen(n->str))
			diag_error(file, n->line, n->col, "%s%s%.40s%s is too large: at most %ld", schema_key ? schema_key : "",
				   schema_key ? ": " : "", n->str, strlen(n->str) > 40 ? "..." : "", INT_MAX_VALUE);
		else if (t->kind == T_INT && valid_num(n->str) && isfinite(strtod(n->str, NULL)))
			diag_error(file, n->line, n->col, "%s%s%.40s%s is not a whole number from 0 to %ld", schema_key ? schema_key : "",
				   schema_key ? ": " : "", n->str, strlen(n->str) > 40 ? "..." : "", INT_MAX_VALUE);
		else if ((t->kind == T_NUM || t->kind == T_INT) && valid_num(n->str))
			diag_error(file, n->line, n->col, "%s%s%.40s%s is out of range: expected %s", schema_key ? schema_key : "",
				   schema_key ? ": " : "", n->str, strlen(n->str) > 40 ? "..." : "",
				   t->kind == T_INT ? "a whole number >= 0" : "a finite number");
		else if (strlen(n->str) > 40)
			diag_error(file, n->line, n->col, "expected %s", what);
		else if (t->kind == T_INT || t->kind == T_NUM || t->kind == T_BOOL)
			diag_error(file, n->line, n->col, "expected %s, found '%s'", what, n->str);
		else
			diag_error(file, n->line, n->col, "'%s' is not %s", n->str, what);
	}
	return !ok;
}

static int
check(const char *file, const struct ynode *n, const struct ytype *t)
{
	int errs = 0;
	switch (t->kind) {
	case T_LIST:
		if (want(file, n, Y_SEQ, "a list"))
			return 1;
		for (size_t i = 0; i < n->nkids; i++)
			errs += check(file, n->kids[i], t->elem);
		return errs;
	case T_NAMES:
	case T_VARS: {
		static const struct ytype name = {T_NAME, 0, 0, 0}, var = {T_VAR, 0, 0, 0};
		const struct ytype *e = t->kind == T_VARS ? &var : &name;
		if (n->kind == Y_SCALAR)
			return check_scalar(file, n, e);
		if (want(file, n, Y_SEQ, "a name or a list of names"))
			return 1;
		for (size_t i = 0; i < n->nkids; i++)
			errs += check(file, n->kids[i], e);
		return errs;
	}
	case T_OBJ:
		if (want(file, n, Y_MAP, "a mapping"))
			return 1;
		return check_obj(file, n, t->fields);
	case T_DICT:
	case T_VARDICT:
		if (want(file, n, Y_MAP, "a mapping"))
			return 1;
		for (size_t i = 0; i < ymap_len(n); i++) {
			const struct ynode *k = ymap_key(n, i);
			if (t->kind == T_VARDICT && !valid_var(k->str)) {
				diag_error(file, k->line, k->col, "'%s' is not a variable name ([A-Za-z_] then [A-Za-z0-9_])", k->str);
				errs++;
			} else if (t->kind == T_DICT && !valid_name(k->str)) {
				diag_error(file, k->line, k->col, "'%s' is not a name ([A-Za-z0-9] then [A-Za-z0-9._+-])", k->str);
				errs++;
			}
			const char *outer = schema_key;
			schema_key = k->str;
			errs += check(file, ymap_val(n, i), t->elem);
			schema_key = outer;
		}
		return errs;
	case T_STR_OR_OBJ: {
		static const struct ytype str = {T_STR, 0, 0, 0};
		if (n->kind == Y_SCALAR)
			return check_scalar(file, n, &str);
		if (want(file, n, Y_MAP, "a string or a mapping"))
			return 1;
		return check_obj(file, n, t->fields);
	}
	default:
		if (want(file, n, Y_SCALAR, "a scalar"))
			return 1;
		return check_scalar(file, n, t);
	}
}

int
schema_check(const char *file, const struct ynode *node, const struct ytype *t)
{
	return check(file, node, t);
}
