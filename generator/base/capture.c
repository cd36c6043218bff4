/* capture: the one process runner. Every program llmb starts (m4, the Slurm
 * clients, git, nvidia-smi, the local executor's jobs, make for the nightly
 * run) is started here from an argv, never through a shell. stdin is fed and
 * stdout and stderr are collected in one poll loop, so a child that writes
 * while it is still reading cannot block on a full pipe; a time limit kills
 * the child's whole process group. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/capture.h"

/* In the child: make fd `target` the pipe end, the descriptor or /dev/null
 * that the options name. */
static void
child_stream(int target, int pipe_end, int opt)
{
	if (pipe_end >= 0) {
		dup2(pipe_end, target);
	} else if (opt == PROC_NULL) {
		int nul = open("/dev/null", target ? O_WRONLY : O_RDONLY);
		if (nul >= 0 && nul != target) {
			dup2(nul, target);
			close(nul);
		}
	} else if (opt > 0 && opt != target) {
		dup2(opt, target);
	}
}

static void
close_pair(int fd[2])
{
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0) {
			close(fd[i]);
			fd[i] = -1;
		}
}

/* Forks and execs p with the pipes the options ask for; io[0..2] get the
 * parent's ends (stdin's write end, stdout's and stderr's read ends), or -1.
 * With check_exec, waits until the exec happened and reports its failure. */
static pid_t
start(struct proc *p, int io[3], int check_exec)
{
	int pp[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}}, ex[2] = {-1, -1};
	const int want[3] = {p->in != NULL, p->out != NULL, p->err != NULL};
	const int opt[3] = {p->in_fd, p->out_fd, p->err_fd};
	for (int i = 0; i < 3; i++)
		if (want[i] && pipe(pp[i]) < 0)
			goto fail;
	if (check_exec && pipe2(ex, O_CLOEXEC) < 0)
		goto fail;
	pid_t pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0) {
		if (p->new_session)
			setsid();
		else if (p->timeout > 0)
			setpgid(0, 0);
		for (int i = 0; i < 3; i++)
			child_stream(i, want[i] ? pp[i][i == 0 ? 0 : 1] : -1, opt[i]);
		for (int i = 0; i < 3; i++)
			close_pair(pp[i]);
		if (ex[0] >= 0)
			close(ex[0]);
		if (p->child_setup)
			p->child_setup(p->arg);
		execvp(p->argv[0], p->argv);
		int e = errno;
		if (ex[1] >= 0 && write(ex[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	if (!p->new_session && p->timeout > 0)
		setpgid(pid, pid); /* also here, so a kill cannot come before the child's own */
	for (int i = 0; i < 3; i++) {
		io[i] = want[i] ? pp[i][i == 0 ? 1 : 0] : -1;
		if (want[i])
			close(pp[i][i == 0 ? 0 : 1]);
	}
	if (check_exec) {
		close(ex[1]);
		int e = 0;
		ssize_t r;
		while ((r = read(ex[0], &e, sizeof e)) < 0 && errno == EINTR)
			;
		close(ex[0]);
		if (r == (ssize_t)sizeof e) {
			for (int i = 0; i < 3; i++)
				if (io[i] >= 0)
					close(io[i]);
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			p->exec_failed = 1;
			p->error = e;
			return -1;
		}
	}
	return pid;
fail:
	p->error = errno;
	for (int i = 0; i < 3; i++)
		close_pair(pp[i]);
	close_pair(ex);
	return -1;
}

static void
drain(int *fd, struct sb *into)
{
	char buf[8192];
	ssize_t r = read(*fd, buf, sizeof buf);
	if (r > 0) {
		sb_addn(into, buf, (size_t)r);
	} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
		close(*fd);
		*fd = -1;
	}
}

/* Writes the next piece of stdin; closes the pipe when all is written or the
 * child stopped reading. */
static void
feed(int *fd, const char **in, size_t *left)
{
	ssize_t w = *left ? write(*fd, *in, *left < 65536 ? *left : 65536) : 0;
	if (w > 0) {
		*in += w;
		*left -= (size_t)w;
	}
	if (!*left || (w < 0 && errno != EINTR && errno != EAGAIN)) {
		close(*fd);
		*fd = -1;
	}
}

/* Milliseconds to the deadline for poll: -1 without one, 0 once past. */
static int
ms_left(double deadline)
{
	if (deadline <= 0)
		return -1;
	double left = deadline - now_seconds();
	return left <= 0 ? 0 : left > 3600 ? 3600000 : (int)(left * 1000) + 1;
}

static void
kill_group(struct proc *p, pid_t pid)
{
	p->timed_out = 1;
	if (kill(-pid, SIGKILL) < 0)
		kill(pid, SIGKILL);
}

/* The poll loop: feeds stdin and drains stdout and stderr until all three
 * are closed or the deadline passes. */
static void
pump(struct proc *p, pid_t pid, int io[3], double deadline)
{
	const char *in = p->in;
	size_t left = p->inlen;
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	int feeding = io[0] >= 0;
	/* a child that stops reading must not take llmb down with SIGPIPE */
	if (feeding) {
		sigaction(SIGPIPE, &ign, &old);
		fcntl(io[0], F_SETFL, fcntl(io[0], F_GETFL) | O_NONBLOCK);
	}
	while (io[0] >= 0 || io[1] >= 0 || io[2] >= 0) {
		struct pollfd fds[3] = {{io[0], POLLOUT, 0}, {io[1], POLLIN, 0}, {io[2], POLLIN, 0}};
		int ms = ms_left(deadline);
		if (ms == 0) {
			kill_group(p, pid);
			break;
		}
		if (poll(fds, 3, ms) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (io[0] >= 0 && fds[0].revents)
			feed(&io[0], &in, &left);
		for (int i = 1; i < 3; i++)
			if (io[i] >= 0 && fds[i].revents)
				drain(&io[i], i == 1 ? p->out : p->err);
	}
	for (int i = 0; i < 3; i++)
		if (io[i] >= 0)
			close(io[i]);
	if (feeding)
		sigaction(SIGPIPE, &old, NULL);
}

/* Waits for pid; past the deadline, kills its group first. */
static int
reap(struct proc *p, pid_t pid, double deadline)
{
	int st;
	for (;;) {
		pid_t r = waitpid(pid, &st, deadline > 0 && !p->timed_out ? WNOHANG : 0);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			p->error = errno;
			return -1;
		}
		if (r == 0) {
			int ms = ms_left(deadline);
			if (ms == 0)
				kill_group(p, pid);
			else
				poll(NULL, 0, ms < 20 ? ms : 20);
		}
	}
	p->signaled = !WIFEXITED(st);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int
proc_run_child(char **argv, const char *who)
{
	fflush(stdout);
	fflush(stderr);
	struct proc p = {.argv = argv};
	int rc = proc_run(&p);
	if (rc < 0)
		fprintf(stderr, "llmb %s: cannot run %s: %s\n", who, argv[0], strerror(p.error));
	return rc < 0 ? 127 : rc;
}

int
proc_run(struct proc *p)
{
	int io[3];
	double deadline = p->timeout > 0 ? now_seconds() + p->timeout : 0;
	p->exec_failed = p->error = p->timed_out = p->signaled = 0;
	pid_t pid = start(p, io, 1);
	if (pid < 0)
		return -1;
	pump(p, pid, io, deadline);
	return reap(p, pid, deadline);
}

pid_t
proc_spawn(struct proc *p)
{
	int io[3];
	p->exec_failed = p->error = p->timed_out = p->signaled = 0;
	if (p->in || p->out || p->err) {
		p->error = EINVAL;
		return -1;
	}
	return start(p, io, 0);
}

int
capture_run(char *const argv[], struct sb *out, struct sb *errs)
{
	struct proc p = {.argv = argv, .in_fd = PROC_NULL, .out = out, .err = errs};
	int rc = proc_run(&p);
	if (rc < 0)
		sb_addf(errs, p.exec_failed ? "cannot run '%s': %s\n" : "cannot run '%s': %s", argv[0],
			strerror(p.error));
	return rc;
}

char *
capture_first_line(char *const argv[])
{
	struct sb out = {0}, errs = {0};
	capture_run(argv, &out, &errs);
	char *r = out.len ? xstrndup(out.buf, strcspn(out.buf, "\n")) : NULL;
	sb_free(&out);
	sb_free(&errs);
	return r;
}
