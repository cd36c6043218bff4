/* dependents: the jobs submitted to wait on a job that failed, cancelled
 * with their own dependents in turn (the executor's cancel, under each
 * job record's lock). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "exec/executor.h"
#include "run/dependents.h"
#include "store/jobrecord.h"
#include "store/layout.h"

/* Whether the colon-separated list has id. */
static int
has_id(const char *list, const char *id)
{
	size_t n = strlen(id);
	for (const char *p = list; *p; p += strcspn(p, ":"), p += *p == ':')
		if (!strncmp(p, id, n) && (p[n] == ':' || !p[n]))
			return 1;
	return 0;
}

static void
cancel_dependents(const char *install, const char *job, int depth)
{
	char *dir = layout_jobs(install, NULL);
	DIR *d = depth < 64 ? opendir(dir) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char *sdir = layout_jobs(install, e->d_name);
		struct jobrec r;
		if (jobrec_read_dir(sdir, &r) == 0 && !strcmp(r.state, "submitted") && has_id(r.after, job)) {
			int fd = jobrec_lock_dir(sdir);
			struct jobrec cur;
			const struct executor *ex = executor_find(r.executor);
			if (jobrec_read_dir(sdir, &cur) == 0 && !strcmp(cur.job, r.job) && !strcmp(cur.state, "submitted") && ex) {
				struct sb err = {0};
				if (ex->cancel(cur.job, &err) == 0) {
					snprintf(cur.state, sizeof cur.state, "failed");
					jobrec_write_dir(sdir, &cur);
					fprintf(stderr, "llmb: cancelled job %s (%s): it waited for job %s, which failed\n",
						cur.job, e->d_name, job);
				} else {
					fprintf(stderr, "llmb: could not cancel dependent job %s (%s): %s\n", cur.job,
						e->d_name, err.buf ? err.buf : "");
				}
				sb_free(&err);
			}
			close(fd);
			cancel_dependents(install, r.job, depth + 1);
		}
		free(sdir);
	}
	if (d)
		closedir(d);
	free(dir);
}

void
cancel_dependents_of(const char *install, const char *job)
{
	cancel_dependents(install, job, 0);
}
