/* diag: compiler-style diagnostics, "file:line:col: error: message", counted
 * so a command can report every error of a file and then exit 2. */
#ifndef LLMB_DIAG_H
#define LLMB_DIAG_H

extern int diag_errors;
struct sb;
/* When set, messages are appended there instead of printed (a command that
 * decides after reading a file whether its diagnostics are said at all). */
extern struct sb *diag_hold;

void diag_error(const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Said, not counted: what was done about a problem that stops nothing. */
void diag_warning(const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_note(const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Forgets the count (for a process that checks many inputs, like a
 * fuzzer). */
void diag_reset(void);
/* The closest of cands (NULL-terminated) to word, or NULL when none is close. */
const char *diag_suggest(const char *word, const char *const *cands);

#endif
