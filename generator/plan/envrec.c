/* envrec: see envrec.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/secrets.h"
#include "plan/envrec.h"
#include "plan/plandata.h"

/* The communication and kernel libraries' settings (NCCL, UCX, libfabric,
 * Open MPI, PMIx), Transformer Engine's, CUDA's and PyTorch's: each can
 * change step time. Slurm's own SLURM_* are the job's, not the caller's. */
const char *const envrec_families[] = {"NCCL_", "NVTE_", "CUDA_", "TORCH_", "UCX_", "FI_", "OMPI_", "PMIX_",
				       NULL};

int
envrec_is_secret(const char *name, char *const *declared, size_t n)
{
	if (secrets_name(name))
		return 1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(declared[i], name))
			return 1;
	return 0;
}

int
envrec_records(const char *name)
{
	size_t l = strlen(name);
	if (!l || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != l)
		return 0;
	int fam = 0;
	for (size_t i = 0; envrec_families[i] && !fam; i++)
		fam = !strncmp(name, envrec_families[i], strlen(envrec_families[i])) && l > strlen(envrec_families[i]);
	if (!fam || envrec_is_secret(name, NULL, 0))
		return 0;
	/* llmb's own knobs (CUDA_GRAPH_SCOPE), which make exports, are the
	 * selection's, not the caller's environment */
	for (int k = 0; k < K_NKNOBS; k++)
		if (!strcmp(name, knob_names[k]))
			return 0;
	return 1;
}

/* NAME=...: a name envrec_records. */
static int
recorded(const char *entry)
{
	size_t l = strcspn(entry, "=");
	if (!entry[l] || !l)
		return 0;
	char *name = xstrndup(entry, l);
	int ok = envrec_records(name);
	free(name);
	return ok;
}

static int
by_name(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strcspn(x, "="), ly = strcspn(y, "=");
	int c = strncmp(x, y, lx < ly ? lx : ly);
	return c ? c : (lx > ly) - (lx < ly);
}

const char *const *
envrec_caller(char *const *env, size_t *n)
{
	/* Each list is kept while the process lives (plans borrow it); a new
	 * one is made only when the recorded variables changed, as they do
	 * between the runs one bisection plans in process. */
	static const char ***lists;
	static size_t *lens, nlists;
	const char **v = NULL;
	size_t nv = 0;
	for (char *const *e = env; e && *e; e++)
		if (recorded(*e)) {
			v = xrealloc(v, (nv + 1) * sizeof *v);
			v[nv++] = *e;
		}
	if (nv)
		qsort(v, nv, sizeof *v, by_name);
	if (nlists) {
		const char **last = lists[nlists - 1];
		size_t i = 0, nl = lens[nlists - 1];
		while (i < nv && i < nl && !strcmp(v[i], last[i]))
			i++;
		if (i == nv && i == nl) {
			free(v);
			*n = nl;
			return last;
		}
	}
	lists = xrealloc(lists, (nlists + 1) * sizeof *lists);
	lens = xrealloc(lens, (nlists + 1) * sizeof *lens);
	lists[nlists] = v;
	lens[nlists++] = nv;
	*n = nv;
	return v;
}

int
envrec_check(char *const *env)
{
	size_t n;
	const char *const *v = envrec_caller(env, &n);
	int errs = 0;
	for (size_t i = 0; i < n; i++)
		if (has_control(v[i])) {
			fprintf(stderr, "llmb: error: environment variable %.*s holds a newline or another control character: "
				"it is part of the training's configuration (one line each); unset it or give it a one-line value\n",
				(int)strcspn(v[i], "="), v[i]);
			errs++;
		}
	return errs;
}

void
envrec_case_pattern(struct sb *out, char *const *declared, size_t n)
{
	secrets_case_pattern(out);
	/* a declared name is a word of the pattern: identifiers only (no
	 * other name can be exported to a job) */
	for (size_t i = 0; i < n; i++)
		if (*declared[i] && strspn(declared[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
		    == strlen(declared[i]))
			sb_addf(out, "|%s", declared[i]);
}
