/* capture: the one process runner (see capture.c). */
#ifndef LLMB_CAPTURE_H
#define LLMB_CAPTURE_H

#include <sys/types.h>

#include "base/util.h"

/* Where a stream of the child goes when it is not collected. */
#define PROC_INHERIT 0  /* the same as llmb's own */
#define PROC_NULL (-1)  /* /dev/null */

/* One child process: what it runs and where its three streams go. Fields
 * left zero mean: stdin, stdout and stderr inherited, no time limit. */
struct proc {
	char *const *argv;      /* argv[0] is looked up in PATH; never a shell */
	const char *in;         /* bytes fed to its stdin (inlen of them), or NULL */
	size_t inlen;
	int in_fd;              /* without in: PROC_INHERIT, PROC_NULL or a descriptor */
	struct sb *out, *err;   /* collected stdout / stderr, or NULL */
	int out_fd, err_fd;     /* where an uncollected stream goes, as in_fd */
	double timeout;         /* seconds; > 0: past it, its process group is killed */
	int new_session;        /* setsid(): the child leads its own session and group */
	void (*child_setup)(void *arg); /* runs in the child just before exec */
	void *arg;
	/* results */
	int exec_failed;        /* argv[0] could not be executed (errno in error) */
	int error;              /* errno of a failed start: pipe, fork or exec */
	int timed_out;          /* killed for running past timeout */
	int signaled;           /* it ended by a signal (the status is 128+signal) */
};

/* Runs p to its end, feeding stdin and collecting stdout and stderr at once
 * (no pipe can fill and block it). Returns the exit status, 128+signal, or
 * -1 when it could not be started (p->error, p->exec_failed say why). */
int proc_run(struct proc *p);

/* Runs argv with llmb's own streams (flushed first), as a command's child
 * make: its exit status or 128+signal; 127 when it could not be started,
 * said on stderr as "llmb <who>: cannot run ...". */
int proc_run_child(char **argv, const char *who);

/* Starts p and returns its pid without waiting (or -1, as proc_run); no
 * stream may be fed or collected. */
pid_t proc_spawn(struct proc *p);

/* Run argv with stdin from /dev/null, collecting stdout and stderr. Returns
 * the exit status, 128+signal, or -1 when it could not be started (message
 * in errs). */
int capture_run(char *const argv[], struct sb *out, struct sb *errs);

/* The first line of what argv prints on stdout (its stderr discarded), or
 * NULL when it prints nothing or cannot be run. */
char *capture_first_line(char *const argv[]);

#endif
