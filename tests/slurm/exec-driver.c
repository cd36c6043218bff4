/* exec-driver: drives the Slurm executor for tests and benchmarks, linked
 * against build/obj/{slurm,slurmcmd,slurmqueue,executor,util}.o.
 *
 *   exec-driver params STRING             print the parsed args, one a line
 *   exec-driver argv NAME SCRIPT LOG DIR [OPT...]  print the sbatch command
 *   exec-driver submit NAME SCRIPT LOG DIR [OPT...]  print the job id
 *   exec-driver wait CACHE_DIR ID...       poll until every job is terminal
 *   exec-driver cancel ID
 *
 * OPT: nodes=N tasks=N gpus=N cpu exclusive time=T dep=D extra=S.
 * wait polls query() every LLMB_DRIVER_SLEEP seconds (default 0.2) and prints
 * "ID STATE exit=N signal=N elapsed=N reason=R" per job. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/slurm.h"
#include "recipe/slurmcmd.h"

/* executor.o refers to it; this driver only uses Slurm. */
const struct executor local_executor = {"local", NULL, NULL, NULL, NULL, NULL, NULL};

static int
jobspec_from_args(struct jobspec *js, int argc, char **argv)
{
	if (argc < 4)
		return -1;
	js->job_name = argv[0];
	js->stage = argv[0];
	js->script = argv[1];
	js->log = argv[2];
	js->workdir = argv[3];
	js->nodes = js->ntasks_per_node = 1;
	for (int i = 4; i < argc; i++) {
		char *v = strchr(argv[i], '=');
		v = v ? v + 1 : "";
		if (!strncmp(argv[i], "nodes=", 6))
			js->nodes = atoi(v);
		else if (!strncmp(argv[i], "tasks=", 6))
			js->ntasks_per_node = atoi(v);
		else if (!strncmp(argv[i], "gpus=", 5))
			js->gpus_per_node = atoi(v);
		else if (!strcmp(argv[i], "cpu"))
			js->cpu_only = 1;
		else if (!strcmp(argv[i], "exclusive"))
			js->exclusive = 1;
		else if (!strncmp(argv[i], "time=", 5))
			js->time_limit = v;
		else if (!strncmp(argv[i], "dep=", 4))
			js->dependency = v;
		else if (!strncmp(argv[i], "extra=", 6))
			js->extra = v;
		else
			return -1;
	}
	return 0;
}

static void
nap(double secs)
{
	struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
	nanosleep(&ts, NULL);
}

static int
wait_jobs(const char *cache_dir, int n, char **ids)
{
	struct jobinfo *jobs = calloc((size_t)n, sizeof *jobs);
	const char *s = getenv("LLMB_DRIVER_SLEEP");
	double pause = s ? atof(s) : 0.2;
	int left = n, queries = 0;
	if (!jobs)
		return 2;
	for (int i = 0; i < n; i++)
		snprintf(jobs[i].id, sizeof jobs[i].id, "%s", ids[i]);
	while (left) {
		queries++;
		if (slurm_executor.query(cache_dir, jobs, n) < 0)
			fprintf(stderr, "exec-driver: scheduler not reachable\n");
		left = 0;
		for (int i = 0; i < n; i++)
			if (!jstate_terminal(jobs[i].state))
				left++;
		if (left)
			nap(pause);
	}
	for (int i = 0; i < n; i++)
		printf("%s %s exit=%d signal=%d elapsed=%ld reason=%s\n", jobs[i].id,
		    jstate_name(jobs[i].state), jobs[i].exit_code, jobs[i].signal,
		    jobs[i].elapsed, jobs[i].reason);
	fprintf(stderr, "exec-driver: %d query() calls\n", queries);
	free(jobs);
	return 0;
}

int
main(int argc, char **argv)
{
	struct sb err = {0};
	struct jobspec js = {0};
	int rc = 2;
	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "params") && argc == 3) {
		char **a;
		if (slurm_params_parse(argv[2], &a, &err) < 0) {
			fprintf(stderr, "%s\n", err.buf);
			rc = 1;
		} else {
			for (char **p = a; *p; p++)
				printf("%s\n", *p);
			slurm_argv_free(a);
			rc = 0;
		}
	} else if ((!strcmp(argv[1], "argv") || !strcmp(argv[1], "submit")) &&
	    jobspec_from_args(&js, argc - 2, argv + 2) == 0) {
		char id[64];
		char **a = slurm_submit_argv(&js, &err);
		if (!a) {
			fprintf(stderr, "%s\n", err.buf);
			rc = 1;
		} else if (argv[1][0] == 'a') {
			struct sb line = {0};
			slurm_argv_shell(&line, a);
			printf("%s\n", line.buf);
			sb_free(&line);
			rc = 0;
		} else if (slurm_executor.submit(&js, id, sizeof id, &err) < 0) {
			fprintf(stderr, "%s\n", err.buf);
			rc = 1;
		} else {
			printf("%s\n", id);
			rc = 0;
		}
		slurm_argv_free(a);
	} else if (!strcmp(argv[1], "wait") && argc >= 4) {
		rc = wait_jobs(argv[2], argc - 3, argv + 3);
	} else if (!strcmp(argv[1], "cancel") && argc == 3) {
		rc = slurm_executor.cancel(argv[2], &err) < 0;
		if (rc)
			fprintf(stderr, "%s\n", err.buf);
	} else {
		goto usage;
	}
	sb_free(&err);
	return rc;
usage:
	fprintf(stderr, "usage: exec-driver params|argv|submit|wait|cancel ...\n");
	return 2;
}
