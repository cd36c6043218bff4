/* jobnote: the note a job leaves for its run record (see jobnote.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/jobnote.h"
#include "store/layout.h"

/* At most this much of the note is kept: it is one field of a record. */
#define NOTE_MAX 400

static char *
note_file(char *path)
{
	char *s = read_file(path, NULL);
	free(path);
	if (!s)
		return NULL;
	size_t n = strcspn(s, "\n");
	if (n > NOTE_MAX)
		n = NOTE_MAX;
	s[n] = '\0';
	/* The note is a value of key=value records: no control characters. */
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = ' ';
	if (!*s) {
		free(s);
		return NULL;
	}
	return s;
}

char *
jobnote_read(const char *state_dir, const char *job)
{
	char *sub = note_file(layout_submit_note(state_dir, job)), *own = note_file(layout_job_note(state_dir, job));
	char *all = jobnote_join(sub, own);
	free(sub);
	free(own);
	return all;
}

int
jobnote_submit(const char *state_dir, const char *job, const char *text)
{
	char *path = layout_submit_note(state_dir, job), *line = xasprintf("%s\n", text);
	int rc = write_file_atomic(path, line, strlen(line));
	free(path);
	free(line);
	return rc;
}

char *
jobnote_join(const char *a, const char *b)
{
	if (a && b)
		return xasprintf("%s; %s", a, b);
	return a ? xstrdup(a) : b ? xstrdup(b) : NULL;
}
