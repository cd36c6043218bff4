/* impkit: the import's diagnostics (bad input, gaps, notes), checked
 * access to the upstream tree, and the YAML quoting its parts share. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/schema.h"
#include "base/util.h"
#include "base/yamlload.h"
#include "import/impkit.h"

const struct ytype imp_t_name = {T_NAME, 0, 0, 0}, imp_t_url = {T_URL, 0, 0, 0},
	imp_t_sha = {T_SHA, 0, 0, 0}, imp_t_image = {T_IMAGE, 0, 0, 0}, imp_t_str = {T_STR, 0, 0, 0};

/* ---- diagnostics and checked access -------------------------------------- */

/* A message of the input's words: control characters (a key with a
 * newline or an escape) are shown as \xNN, never sent to the terminal. */
static char *
message(const char *fmt, va_list ap)
{
	struct sb m = {0}, e = {0};
	sb_vaddf(&m, fmt, ap);
	for (const char *p = m.buf ? m.buf : ""; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			sb_addf(&e, "\\x%02x", (unsigned char)*p);
		else
			sb_addc(&e, *p);
	sb_free(&m);
	return e.buf ? sb_steal(&e) : xstrdup("");
}

void
imp_bad(struct imp *im, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = message(fmt, ap);
	va_end(ap);
	diag_error(im->file, n ? n->line : 0, n ? n->col : 0, "%s", msg);
	free(msg);
	im->bad++;
}

void
imp_gap(struct imp *im, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = message(fmt, ap);
	va_end(ap);
	diag_error(im->file, n ? n->line : 0, n ? n->col : 0, "not converted: %s", msg);
	free(msg);
	im->gaps++;
}

void
imp_note(struct imp *im, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = message(fmt, ap);
	va_end(ap);
	diag_note(im->file, n ? n->line : 0, n ? n->col : 0, "%s", msg);
	free(msg);
}

const struct ynode *
imp_get(struct imp *im, const struct ynode *m, const char *key, int kind, int required)
{
	const struct ynode *v = m && m->kind == Y_MAP ? ymap_get(m, key) : NULL;
	if (!v) {
		if (required)
			imp_bad(im, m, "missing key '%s'", key);
		return NULL;
	}
	if (kind >= 0 && (int)v->kind != kind) {
		imp_bad(im, v, "'%s' must be %s, not %s", key, ykind_name((enum ykind)kind), ykind_name(v->kind));
		return NULL;
	}
	return v;
}

int
imp_check(struct imp *im, const struct ynode *n, const struct ytype *t)
{
	int e = schema_check(im->file, n, t);
	im->bad += e;
	return e;
}

void
imp_ignore_unknown(struct imp *im, const struct ynode *m, const char *const *known, const char *where)
{
	for (size_t i = 0; m && m->kind == Y_MAP && i < ymap_len(m); i++) {
		const struct ynode *k = ymap_key(m, i);
		const char *const *p = known;
		while (*p && strcmp(*p, k->str))
			p++;
		if (!*p)
			imp_note(im, k, "%s'%s' is not part of the upstream schema llmb converts (releases 25.07-26.06); ignored",
				 where, k->str);
	}
}

int
imp_bool(struct imp *im, const struct ynode *n, const char *what)
{
	static const char *const words[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF",
		"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
	if (!n)
		return -1;
	for (size_t i = 0; n->kind == Y_SCALAR && n->plain && i < sizeof words / sizeof *words; i++)
		if (!strcmp(n->str, words[i]))
			return i >= 9;
	imp_bad(im, n, "%s must be true or false (unquoted: upstream's reader takes a quoted string as true, whatever it says)",
		what);
	return -1;
}

void
imp_q(struct sb *s, const char *v)
{
	sb_addc(s, '"');
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			sb_addf(s, "\\%c", *v);
		else if ((unsigned char)*v < 0x20)
			sb_addf(s, "\\x%02x", (unsigned char)*v);
		else
			sb_addc(s, *v);
	}
	sb_addc(s, '"');
}
