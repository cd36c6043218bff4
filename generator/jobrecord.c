/* jobrecord: see jobrecord.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobrecord.h"
#include "layout.h"
#include "stagecfg.h"
#include "util.h"

static void
field(char *dst, size_t len, const char *s, const char *key)
{
	char buf[PATH_MAX];
	snprintf(dst, len, "%.*s", (int)len - 1, cfg_get(s, key, buf, sizeof buf) ? buf : "");
}

int
jobrec_read_dir(const char *dir, struct jobrec *r)
{
	memset(r, 0, sizeof *r);
	char *path = layout_in(dir, LAYOUT_JOB_RECORD);
	char *s = read_file(path, NULL);
	free(path);
	if (!s)
		return -1;
	char buf[32];
	field(r->cfg, sizeof r->cfg, s, "cfg");
	field(r->token, sizeof r->token, s, "token");
	field(r->job, sizeof r->job, s, "job");
	field(r->log, sizeof r->log, s, "log");
	field(r->executor, sizeof r->executor, s, "executor");
	field(r->state, sizeof r->state, s, "state");
	field(r->after, sizeof r->after, s, "after");
	r->attempt = cfg_get(s, "attempt", buf, sizeof buf) ? atoi(buf) : 0;
	r->submitted = cfg_get(s, "submitted", buf, sizeof buf) ? atol(buf) : 0;
	free(s);
	return 0;
}

void
jobrec_write_dir(const char *dir, const struct jobrec *r)
{
	struct sb s = {0};
	sb_addf(&s, "cfg=%s\ntoken=%s\njob=%s\nlog=%s\nexecutor=%s\nstate=%s\nattempt=%d\nsubmitted=%ld\n",
		r->cfg, r->token, r->job, r->log, r->executor, r->state, r->attempt, r->submitted);
	if (*r->after)
		sb_addf(&s, "after=%s\n", r->after);
	char *path = layout_in(dir, LAYOUT_JOB_RECORD);
	if (write_file_atomic(path, s.buf, s.len) < 0)
		die("cannot write job record %s: %s", path, strerror(errno));
	free(path);
	sb_free(&s);
}

int
jobrec_read(const char *install, const char *id, struct jobrec *r)
{
	char *dir = layout_jobs(install, id);
	int rc = jobrec_read_dir(dir, r);
	free(dir);
	return rc;
}

int
jobrec_lock_dir(const char *dir)
{
	char *path = layout_in(dir, LAYOUT_JOB_LOCK);
	int fd = lock_file(path, 0);
	if (fd < 0)
		die("%s %s: %s", fd == -1 ? "cannot open lock" : "flock", path, strerror(errno));
	free(path);
	return fd;
}

char *
jobrec_log_path(const char *pattern, const char *job)
{
	const char *p = strstr(pattern, "%j");
	if (!p)
		return xstrdup(pattern);
	return xasprintf("%.*s%s%s", (int)(p - pattern), pattern, job, p + 2);
}
