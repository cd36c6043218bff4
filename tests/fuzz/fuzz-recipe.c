/* fuzz-recipe: libFuzzer target for the recipe checker. Each input is a
 * workload recipe (workloads/w.yaml beside a fixed GPU table and pipeline)
 * that goes through everything `llmb check` does: the YAML loader, the
 * schema, the value checks and the plan of every configuration. Any input
 * may be refused; none may crash, leak or hang. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "plan/plan.h"
#include "base/util.h"
#include "quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char top[4096];

static void
put(const char *rel, const void *data, size_t len)
{
	char *path = xasprintf("%s/%s", top, rel);
	/* Not write_file_atomic: its fsync would be most of the time. */
	FILE *f = mkdir_p(path, 1) < 0 ? NULL : fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		abort();
	free(path);
}

static void
setup(void)
{
	static const char gpus[] = "gpus:\n  cpu: {gpus_per_node: 2, peak_tflops: {fp32: 1}}\n"
				   "  h100: {gpus_per_node: 8, peak_tflops: {bf16: 989, fp8: 1979}}\n";
	static const char pipeline[] = "pipeline: benchmark\nstages:\n"
				       "  - {name: image, kind: image}\n  - {name: venv, kind: venv}\n"
				       "  - {name: data, kind: data, after: [venv, image]}\n"
				       "  - {name: train, kind: train, after: [image, venv, data]}\n"
				       "  - {name: parse, kind: parse, after: [train]}\n"
				       "  - {name: report, kind: report, after: [parse]}\n";
	if ((size_t)snprintf(top, sizeof top, "%s/llmb-fuzz-recipe.%ld", scratch_dir(), (long)getpid()) >= sizeof top)
		abort();
	put("workloads/gpus.yaml", gpus, sizeof gpus - 1);
	put("pipelines/benchmark.yaml", pipeline, sizeof pipeline - 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!*top)
		setup();
	put("workloads/w.yaml", data, size);
	/* Diagnostics are the expected outcome: kept off the fuzzer's output. */
	int saved = quiet_begin();
	struct sel s;
	memset(&s, 0, sizeof s);
	struct plan p;
	plan_build(&p, top, &s, 1);
	plan_free(&p);
	quiet_end(saved);
	diag_reset();
	return 0;
}
