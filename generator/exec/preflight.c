/* preflight: see preflight.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/preflight.h"
#include "recipe/slurmcmd.h"
#include "store/layout.h"

/* Node names as Slurm's hostlists spell them: nothing else reaches a
 * parameter. */
static const char node_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";

static void
add_node(struct sb *nodes, const char *n)
{
	if (!*n || n[strspn(n, node_chars)])
		return;
	char *pat = xasprintf(",%s,", n), *have = xasprintf(",%s,", nodes->buf ? nodes->buf : "");
	if (!strstr(have, pat))
		sb_addf(nodes, "%s%s", nodes->len ? "," : "", n);
	free(pat);
	free(have);
}

int
preflight_failed(const char *state, const char *job, char *reason, size_t rlen, struct sb *nodes)
{
	char *path = layout_job_file(state, LAYOUT_PREFLIGHT_FAILED, job);
	char *s = read_file(path, NULL);
	free(path);
	if (!s)
		return 0;
	size_t n = 0;
	for (char *l = s, *next; l && *l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = 0;
		char *t1 = strchr(l, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2)
			continue;
		*t1 = *t2 = 0;
		if (!n++)
			snprintf(reason, rlen, "pre-flight failed on %s: %s (%s)", l, t2 + 1, t1 + 1);
		add_node(nodes, l);
	}
	free(s);
	if (n > 1) {
		size_t used = strlen(reason);
		snprintf(reason + used, rlen - used, " and %zu more", n - 1);
	}
	return n > 0;
}

/* The nodes to leave out, as written (no newline); NULL when none. */
static char *
excluded(const char *state)
{
	char *path = layout_in(state, LAYOUT_PREFLIGHT_EXCLUDE), *s = read_file(path, NULL);
	free(path);
	if (s)
		s[strcspn(s, "\n")] = 0;
	if (s && !*s) {
		free(s);
		s = NULL;
	}
	return s;
}

int
preflight_exclude_add(const char *state, const char *nodes)
{
	char *old = excluded(state), *path = layout_in(state, LAYOUT_PREFLIGHT_EXCLUDE);
	char *all = xasprintf("%s%s%s\n", old ? old : "", old ? "," : "", nodes);
	int rc = write_file_atomic(path, all, strlen(all));
	free(all);
	free(old);
	free(path);
	return rc;
}

char *
preflight_exclude(const char *state, const char *extra, struct sb *nodes, struct sb *err)
{
	char *ex = excluded(state);
	if (!ex)
		return NULL;
	sb_add(nodes, ex);
	char *merged = slurm_params_exclude(extra, ex, err);
	free(ex);
	return merged;
}

void
preflight_exclude_forget(const char *state)
{
	char *path = layout_in(state, LAYOUT_PREFLIGHT_EXCLUDE);
	unlink(path);
	free(path);
}
