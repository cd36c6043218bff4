/* local: the local executor. A job is a detached bash process in its own
 * session (Ctrl-C of make does not reach it), identified by "local-<pid>-<start
 * time>" so a reused pid is never mistaken for the job. Its state comes from
 * /proc while it runs and from its exit record afterwards. A job that asks
 * for GPUs this machine does not have is refused before it starts. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/capture.h"
#include "base/util.h"
#include "exec/executor.h"

/* Field 22 of /proc/PID/stat: start time in clock ticks since boot. */
static unsigned long long
proc_start(long pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	char *s = read_file(path, NULL);
	if (!s)
		return 0;
	unsigned long long v = 0;
	char *p = strrchr(s, ')');
	for (int field = 2; p && *p; p++) {
		if (*p == ' ' && ++field == 22) {
			v = strtoull(p + 1, NULL, 10);
			break;
		}
	}
	free(s);
	return v;
}

/* Seconds since a process started, from its start time in clock ticks. */
static long
elapsed_since(unsigned long long start)
{
	char *up = read_file("/proc/uptime", NULL);
	long ticks = sysconf(_SC_CLK_TCK);
	if (!up)
		return -1;
	double now = strtod(up, NULL);
	free(up);
	if (ticks <= 0)
		return -1;
	double e = now - (double)start / (double)ticks;
	return e < 0 ? 0 : (long)e;
}

/* The GPUs a local job can use: nvidia-smi's "GPU i: ..." lines, no more
 * than CUDA_VISIBLE_DEVICES lists when it is set. No nvidia-smi: none. */
static int
local_gpus(void)
{
	int n = 0;
	char *argv[] = {"nvidia-smi", "-L", NULL};
	struct sb out = {0}, errs = {0};
	capture_run(argv, &out, &errs);
	for (const char *l = out.buf; l && *l; l += strcspn(l, "\n"), l += *l == '\n')
		n += !strncmp(l, "GPU ", 4);
	sb_free(&out);
	sb_free(&errs);
	const char *vis = getenv("CUDA_VISIBLE_DEVICES");
	if (vis) {
		int listed = 0;
		for (const char *p = vis; *p;) {
			p += strspn(p, ",");
			size_t k = strcspn(p, ",");
			listed += k > 0;
			p += k;
		}
		if (listed < n)
			n = listed;
	}
	return n;
}

/* A training job runs one rank per GPU (a setup task asks for one): the
 * local launcher starts ntasks_per_node ranks, so that many GPUs. */
static int
check_gpus(const struct jobspec *js, struct sb *err)
{
	if (js->gpus_per_node <= 0)
		return 0;
	int need = js->ntasks_per_node > 0 ? js->ntasks_per_node : 1, have = local_gpus();
	if (have >= need)
		return 0;
	sb_addf(err, "needs %d GPU%s (one per rank) but this machine has %d (nvidia-smi -L%s); "
		"run it on a GPU node, or with EXECUTOR=slurm", need, need == 1 ? "" : "s", have,
		getenv("CUDA_VISIBLE_DEVICES") ? ", CUDA_VISIBLE_DEVICES" : "");
	return -1;
}

/* What a job's process needs before it becomes bash (see job_setup). */
struct job_start {
	const struct jobspec *js;
	int sync[2];
};

/* In the job's own process, just before bash: wait until llmb has recorded
 * the job's id, then name the job, open its log and enter its directory.
 * llmb gone before it wrote its byte (killed before the record named the
 * job): the job never runs, so the next llmb run submits it once. */
static void
job_setup(void *arg)
{
	struct job_start *st = arg;
	const struct jobspec *js = st->js;
	close(st->sync[1]);
	char c;
	ssize_t r;
	while ((r = read(st->sync[0], &c, 1)) < 0 && errno == EINTR)
		;
	if (r != 1)
		_exit(125);
	close(st->sync[0]);
	char *jid = xasprintf("local-%ld-%llu", (long)getpid(), proc_start(getpid()));
	setenv("LLMB_JOB_ID", jid, 1);
	char *log = xstrdup(js->log);
	char *pct = strstr(log, "%j");
	if (pct) {
		*pct = 0;
		char *l2 = xasprintf("%s%s%s", log, jid, pct + 2);
		free(log);
		log = l2;
	}
	mkdir_p(log, 1);
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		_exit(126);
	dup2(fd, 1);
	dup2(fd, 2);
	if (js->workdir && chdir(js->workdir) < 0)
		_exit(126);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

static int
local_submit(const struct jobspec *js, char *id, size_t idlen, struct sb *err)
{
	struct job_start st = {.js = js};
	if (check_gpus(js, err))
		return -1;
	if (pipe(st.sync) < 0) {
		sb_addf(err, "pipe: %s", strerror(errno));
		return -1;
	}
	char *argv[] = {"bash", (char *)js->script, NULL};
	/* its own session: Ctrl-C of make does not reach it */
	struct proc p = {.argv = argv, .in_fd = PROC_NULL, .new_session = 1, .child_setup = job_setup, .arg = &st};
	pid_t pid = proc_spawn(&p);
	if (pid < 0) {
		sb_addf(err, "fork: %s", strerror(p.error));
		close(st.sync[0]);
		close(st.sync[1]);
		return -1;
	}
	close(st.sync[0]);
	snprintf(id, idlen, "local-%ld-%llu", (long)pid, proc_start(pid));
	/* the caller records id before the job goes on: a byte releases it */
	if (js->on_id)
		js->on_id(js->on_id_arg, id);
	/* a job killed meanwhile must not take llmb down with SIGPIPE */
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	sigaction(SIGPIPE, &ign, &old);
	while (write(st.sync[1], "", 1) < 0 && errno == EINTR)
		;
	sigaction(SIGPIPE, &old, NULL);
	close(st.sync[1]);
	return 0;
}

static int
local_query(const char *cache_dir, struct jobinfo *jobs, int n)
{
	(void)cache_dir;
	for (int i = 0; i < n; i++) {
		long pid = 0;
		unsigned long long start = 0;
		if (sscanf(jobs[i].id, "local-%ld-%llu", &pid, &start) != 2) {
			jobs[i].state = J_VANISHED;
			continue;
		}
		/* Reap our own child if it ended, so it is not a zombie. */
		int st;
		pid_t r = waitpid((pid_t)pid, &st, WNOHANG);
		if (r == 0 || (r < 0 && proc_start(pid) == start && start)) {
			jobs[i].state = J_RUNNING;
			jobs[i].elapsed = elapsed_since(start);
			continue;
		}
		/* Gone: the job's exit record (read by stagerun.c) says how it ended. */
		jobs[i].state = J_VANISHED;
		jobs[i].exit_code = -1;
	}
	return 0;
}

static int
local_cancel(const char *id, struct sb *err)
{
	long pid;
	unsigned long long start;
	if (sscanf(id, "local-%ld-%llu", &pid, &start) != 2 || proc_start(pid) != start) {
		sb_addf(err, "job %s is not running", id);
		return -1;
	}
	/* The job leads its own session: signal the whole process group. */
	if (kill(-(pid_t)pid, SIGTERM) < 0 && kill((pid_t)pid, SIGTERM) < 0) {
		sb_addf(err, "kill %ld: %s", pid, strerror(errno));
		return -1;
	}
	return 0;
}

const struct executor local_executor = {"local", local_submit, local_query, local_cancel, NULL, NULL, NULL};
