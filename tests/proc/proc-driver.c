/* proc-driver: drives the process runner (generator/base/capture.c) for
 * t-proc.sh, linked against build/obj/{capture,util}.o.
 *
 *   proc-driver echo BYTES CMD...  feed BYTES bytes of a pattern to CMD's stdin;
 *                                  print the exit status, the byte counts of
 *                                  stdout and stderr and whether each equals
 *                                  what was fed
 *   proc-driver limit SECS CMD...  run CMD under a time limit; print the exit
 *                                  status and whether it was killed for it
 *   proc-driver run CMD...         run CMD; print the exit status, whether the
 *                                  exec failed, and its stderr */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/capture.h"

static int
echo(long n, char **argv)
{
	char *in = malloc((size_t)n + 1);
	for (long i = 0; i < n; i++)
		in[i] = (char)('a' + i % 26 + (i % 97 == 96 ? '\n' - 'a' - i % 26 : 0));
	struct sb out = {0}, err = {0};
	struct proc p = {.argv = argv, .in = in, .inlen = (size_t)n, .out = &out, .err = &err};
	int rc = proc_run(&p);
	printf("rc=%d out=%zu err=%zu out_same=%d err_same=%d\n", rc, out.len, err.len,
	    out.len == (size_t)n && !memcmp(out.buf ? out.buf : "", in, (size_t)n),
	    err.len == (size_t)n && !memcmp(err.buf ? err.buf : "", in, (size_t)n));
	free(in);
	sb_free(&out);
	sb_free(&err);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "echo"))
		return echo(atol(argv[2]), argv + 3);
	if (argc >= 4 && !strcmp(argv[1], "limit")) {
		struct sb out = {0};
		struct proc p = {.argv = argv + 3, .in_fd = PROC_NULL, .out = &out, .timeout = atof(argv[2])};
		int rc = proc_run(&p);
		printf("rc=%d timed_out=%d out=%s", rc, p.timed_out, out.buf ? out.buf : "\n");
		sb_free(&out);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "run")) {
		struct sb out = {0}, err = {0};
		int rc = capture_run(argv + 2, &out, &err);
		printf("rc=%d err=%s", rc, err.buf ? err.buf : "\n");
		sb_free(&out);
		sb_free(&err);
		return 0;
	}
	fprintf(stderr, "usage: proc-driver echo BYTES CMD... | limit SECS CMD... | run CMD...\n");
	return 2;
}
