/* capture: run a command (an argv, never a shell) and collect what it
 * prints. The Slurm clients are run through it. */
#define _GNU_SOURCE /* dprintf */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"

static void
drain(int *fd, struct sb *into)
{
	char buf[4096];
	ssize_t r = read(*fd, buf, sizeof buf);
	if (r > 0) {
		sb_addn(into, buf, (size_t)r);
	} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
		close(*fd);
		*fd = -1;
	}
}

/* Run argv (PATH lookup, no shell) with stdin from /dev/null, collecting
 * stdout and stderr. Returns the exit status, 128+signal, or -1 when it
 * could not be started (message in errs). */
int
capture_run(char *const argv[], struct sb *out, struct sb *errs)
{
	int po[2], pe[2], status;
	pid_t pid;
	if (pipe(po) < 0)
		goto fail;
	if (pipe(pe) < 0) {
		close(po[0]);
		close(po[1]);
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
		goto fail;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]); close(po[1]); close(pe[0]); close(pe[1]);
		execvp(argv[0], argv);
		dprintf(2, "cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++)
			if (fds[i].fd >= 0 && fds[i].revents)
				drain(&fds[i].fd, i ? errs : out);
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			goto fail;
	if (WIFEXITED(status))
		return WEXITSTATUS(status) == 127 && strstr(errs->buf ? errs->buf : "", "cannot run") ? -1
		    : WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
fail:
	sb_addf(errs, "cannot run '%s': %s", argv[0], strerror(errno));
	return -1;
}

