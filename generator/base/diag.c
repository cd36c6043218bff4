#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#include "base/diag.h"

int diag_errors;
struct sb *diag_hold;

void
diag_reset(void)
{
	diag_errors = 0;
}

/* Each message is said as it comes: the checks say each problem once, at
 * its place (the recipe pass of runcheck.c walks a recipe once). */
static void
vreport(const char *kind, const char *file, int line, int col, const char *fmt, va_list ap)
{
	struct sb s = {0};
	if (line > 0)
		sb_addf(&s, "%s:%d:%d: %s: ", file, line, col > 0 ? col : 1, kind);
	else
		sb_addf(&s, "%s: %s: ", file, kind);
	sb_vaddf(&s, fmt, ap);
	if (diag_hold)
		sb_addf(diag_hold, "%s\n", s.buf);
	else
		fprintf(stderr, "%s\n", s.buf);
	sb_free(&s);
}

void
diag_error(const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error", file, line, col, fmt, ap);
	diag_errors++;
	va_end(ap);
}

void
diag_warning(const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning", file, line, col, fmt, ap);
	va_end(ap);
}

void
diag_note(const char *file, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("note", file, line, col, fmt, ap);
	va_end(ap);
}

static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];
	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof *prev);
	}
	return prev[lb];
}

const char *
diag_suggest(const char *word, const char *const *cands)
{
	const char *best = NULL;
	size_t bestd = (strlen(word) + 2) / 3 + 1; /* a third of the word, at least 1 */
	for (; *cands; cands++) {
		size_t d = edit_distance(word, *cands);
		if (d < bestd) {
			bestd = d;
			best = *cands;
		}
	}
	return best;
}
