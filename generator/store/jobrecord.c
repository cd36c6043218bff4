/* jobrecord: see jobrecord.h. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "store/jobrecord.h"
#include "store/layout.h"
#include "store/stagecfg.h"

static void
field(char *dst, size_t len, const char *s, const char *key)
{
	char buf[PATH_MAX];
	snprintf(dst, len, "%.*s", (int)len - 1, kv_get(s, key, buf, sizeof buf) ? buf : "");
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
	r->attempt = kv_get(s, "attempt", buf, sizeof buf) ? atoi(buf) : 0;
	r->submitted = kv_get(s, "submitted", buf, sizeof buf) ? atol(buf) : 0;
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

void
jobrec_new_token(char out[40])
{
	unsigned char b[8] = {0};
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, b, sizeof b) != (ssize_t)sizeof b) {
		unsigned long long t = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
		memcpy(b, &t, sizeof b);
	}
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

char *
jobrec_job_name(const char *id, const char *token)
{
	return xasprintf("llmb.%s.%s", id, token);
}

int
jobrec_started(const char *dir, const char *token, char *job, size_t len)
{
	char *marker = layout_job_started(dir, token);
	char *s = read_file(marker, NULL);
	free(marker);
	if (!s)
		return 0;
	snprintf(job, len, "%.*s", (int)strcspn(s, "\n"), s);
	free(s);
	return 1;
}

/* A record the job's trap wrote but could not rename before Slurm's
 * KillWait ran out (the trap is killed between printf and mv). The record
 * ends with "job=<id>": a file that holds it was written whole. */
static char *
exit_record_unrenamed(const char *dir, const char *job)
{
	DIR *d = opendir(dir);
	char *name = layout_job_exit(NULL, job), *prefix = xasprintf("%s.tmp.", name);
	char *tail = xasprintf("\njob=%s\n", job), *res = NULL;
	for (struct dirent *e; d && !res && (e = readdir(d));) {
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		char *p = layout_in(dir, e->d_name);
		size_t len;
		char *s = read_file(p, &len);
		size_t tl = strlen(tail);
		if (s && len >= tl && !memcmp(s + len - tl, tail, tl))
			res = s;
		else
			free(s);
		free(p);
	}
	if (d)
		closedir(d);
	free(name);
	free(prefix);
	free(tail);
	return res;
}

int
jobrec_exit_status(const char *dir, const char *job)
{
	char *path = layout_job_exit(dir, job);
	char *s = read_file(path, NULL), buf[32];
	free(path);
	if (!s)
		s = exit_record_unrenamed(dir, job);
	int st = s && kv_get(s, "status", buf, sizeof buf) ? atoi(buf) : -1;
	free(s);
	return st;
}
