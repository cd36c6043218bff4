/* nodelost: a job failed by a node lost between steps (see nodelost.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/capture.h"
#include "base/util.h"
#include "exec/nodelost.h"
#include "exec/slurm.h"

/* What srun prints when a step cannot reach a node (Slurm's own messages):
 * a task launch refused by a dead slurmd, a node the controller gave up on. */
static const char *const launch_errors[] = {"Communication connection failure", "Node failure"};

/* The node of "... failed on node NAME: ..." in line, or "". */
static void
named_node(const char *line, size_t len, char *node, size_t nodelen)
{
	const char *key = "failed on node ";
	char *l = xstrndup(line, len), *p = strstr(l, key);
	size_t n = p ? strcspn(p += strlen(key), ": \t") : 0;
	snprintf(node, nodelen, "%.*s", n < nodelen ? (int)n : 0, p ? p : "");
	free(l);
}

int
nodelost_log(const char *log, char *node, size_t nodelen)
{
	char *s = log ? read_file(log, NULL) : NULL;
	int hit = 0;
	*node = '\0';
	for (char *line = s; line && *line;) {
		size_t len = strcspn(line, "\n");
		char *l = xstrndup(line, len);
		for (size_t i = 0; i < sizeof launch_errors / sizeof *launch_errors; i++)
			if (strstr(l, "srun: error:") && strstr(l, launch_errors[i])) {
				hit = 1;
				if (!*node)
					named_node(l, len, node, nodelen);
			}
		free(l);
		line += len + (line[len] == '\n');
	}
	free(s);
	return hit;
}

/* The job's nodes, or NULL: a hostlist that could pass for an option or
 * hold words is none. */
static char *
job_nodes(const char *job)
{
	char *l = slurm_job_nodes(job);
	if (l && (strchr(l, ' ') || *l == '-')) {
		free(l);
		l = NULL;
	}
	return l;
}

/* The first of nodes that Slurm says is down or not responding ("n4 down*"
 * in sinfo: the star marks a node that does not answer), written to lost
 * with its state; 0 when none is. */
static int
down_node(const char *nodes, char *lost, size_t lostlen)
{
	char *si[] = {"sinfo", "-h", "-N", "-n", (char *)nodes, "-o", "%N %T", NULL};
	struct sb out = {0}, errs = {0};
	int hit = 0;
	if (capture_run(si, &out, &errs) == 0 && out.buf)
		for (char *line = strtok(out.buf, "\n"); line && !hit; line = strtok(NULL, "\n")) {
			char *st = strchr(line, ' ');
			if (!st)
				continue;
			st++;
			hit = st[strlen(st) - 1] == '*' || !strncmp(st, "down", 4) || !strncmp(st, "fail", 4);
			if (hit)
				snprintf(lost, lostlen, "%s", line);
		}
	sb_free(&out);
	sb_free(&errs);
	return hit;
}

int
nodelost_check(const char *job, const char *log, long wait, char *why, size_t whylen)
{
	char named[64], lost[128];
	if (!nodelost_log(log, named, sizeof named))
		return 0;
	char *nodes = job_nodes(job);
	if (!nodes)
		return 0;
	/* The controller marks a silent node only after a ping or SlurmdTimeout. */
	int hit = 0;
	for (time_t until = time(NULL) + wait;;) {
		if ((hit = down_node(nodes, lost, sizeof lost)) || time(NULL) >= until)
			break;
		nanosleep(&(struct timespec){2, 0}, NULL);
	}
	if (hit)
		snprintf(why, whylen, "Slurm says FAILED: a step could not reach %s%s, and Slurm now has %s",
			*named ? "node " : "one of its nodes", named, lost);
	free(nodes);
	return hit;
}
