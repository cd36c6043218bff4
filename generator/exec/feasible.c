#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "exec/feasible.h"
#include "store/stagecfg.h"
#include "store/stagekind.h"

const char *
executor_why(const struct executor *ex)
{
	const char *e = getenv("EXECUTOR");
	if (e && *e)
		return ex == &local_executor ? "EXECUTOR=local" : "EXECUTOR=slurm";
	return ex == &local_executor ? "the default: no Slurm controller answers scontrol ping"
				     : "the default: a Slurm controller answers";
}

int
have_enroot(void)
{
	const char *e = getenv("LLMB_ENROOT");
	if (e && *e)
		return access(e, X_OK) == 0;
	const char *path = getenv("PATH");
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");
		char *f = xasprintf("%.*s/enroot", (int)n, p);
		int ok = n && access(f, X_OK) == 0;
		free(f);
		if (ok)
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

enum problem { P_NODES, P_CONTAINER, P_ENROOT, P_N };

static int
problem_of(const struct stagecfg *cfg, const struct executor *ex, long *nodes)
{
	if (ex != &local_executor)
		return -1;
	int train = cfg->kind == PC_TRAIN && cfg->bound;
	*nodes = train ? cfg->u.train.nodes : 1;
	/* Nodes of a CPU run are emulated by processes here (the demos);
	 * nodes of GPUs are not. */
	if (*nodes > 1 && cfg->gpu && strcmp(cfg->gpu, "cpu"))
		return P_NODES;
	int import = stage_kind_is(pc_kind_names[cfg->kind], SK_IMPORT);
	if (!import && (train ? cfg->u.train.image : cfg->kind == PC_DATA ? cfg->u.data.image : NULL))
		return P_CONTAINER;
	if (import && !have_enroot())
		return P_ENROOT;
	return -1;
}

static const char *const said[P_N] = {
	[P_NODES] = "needs %ld GPU nodes, and the local executor runs jobs on this machine only",
	[P_CONTAINER] = "runs in a container image, which the local executor cannot start (srun with pyxis on a Slurm cluster does)",
	[P_ENROOT] = "imports an image with enroot, which is not installed here (not on PATH, no LLMB_ENROOT)",
};

const char *
stage_infeasible(const struct stagecfg *cfg, const struct executor *ex)
{
	static char buf[256];
	long nodes;
	int k = problem_of(cfg, ex, &nodes);
	if (k < 0)
		return NULL;
	snprintf(buf, sizeof buf, said[k], nodes);
	return buf;
}

int
plan_feasible(const struct plan *p, const struct executor *ex)
{
	size_t count[P_N] = {0}, first[P_N] = {0};
	long nodes[P_N] = {0};
	for (size_t i = 0; i < p->n; i++) {
		long n;
		int k = problem_of(&p->v[i].conf, ex, &n);
		if (k >= 0 && !count[k]++) {
			first[k] = i;
			nodes[k] = n;
		}
	}
	int errs = 0;
	for (int k = 0; k < P_N; k++) {
		if (!count[k])
			continue;
		char what[256], more[64] = "";
		snprintf(what, sizeof what, said[k], nodes[k]);
		if (count[k] > 1)
			snprintf(more, sizeof more, " (and %zu more stage%s)", count[k] - 1, count[k] > 2 ? "s" : "");
		fprintf(stderr, "llmb: error: %s%s %s (executor local, %s); run on a Slurm cluster with EXECUTOR=slurm\n",
			p->v[first[k]].id, more, what, executor_why(ex));
		errs++;
	}
	diag_errors += errs;
	return errs;
}
