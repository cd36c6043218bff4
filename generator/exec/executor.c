/* executor: an executor by name, and the default one. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "base/capture.h"
#include "exec/executor.h"

const struct executor *
executor_find(const char *name)
{
	if (!strcmp(name, "local"))
		return &local_executor;
	if (!strcmp(name, "slurm"))
		return &slurm_executor;
	return NULL;
}

/* EXECUTOR, or slurm when a controller answers scontrol ping, else local. */
const struct executor *
executor_default(void)
{
	const char *e = getenv("EXECUTOR");
	if (e && *e) {
		const struct executor *ex = executor_find(e);
		if (!ex)
			die("EXECUTOR=%s: expected local or slurm", e);
		return ex;
	}
	/* slurm when a controller answers */
	char *argv[] = {"scontrol", "ping", NULL};
	struct proc p = {.argv = argv, .out_fd = PROC_NULL, .err_fd = PROC_NULL};
	return proc_run(&p) == 0 ? &slurm_executor : &local_executor;
}

