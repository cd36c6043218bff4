/* fuzz-log: libFuzzer target for the training-log parser. Each input is a
 * log, parsed in every format the parser knows, with and without a fixed
 * step count, and turned into its result JSON. None may crash, leak or
 * read out of bounds; the result must hold together. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/logparse.h"
#include "base/util.h"
#include "quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[4096];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!*path &&
	    (size_t)snprintf(path, sizeof path, "%s/llmb-fuzz-log.%ld.out", scratch_dir(), (long)getpid()) >= sizeof path)
		abort();
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	static const struct lp_opts opts[] = {
		{LP_AUTO, 35, 44, LP_INDEX_DEFAULT, 0, 0},
		{LP_NEMO2, 0, 3, LP_INDEX_ZERO, 5, 0},
		{LP_MAXTEXT, 1, 2, LP_INDEX_ONE, 0, 1},
		{LP_MBRIDGE, 2, 2, LP_INDEX_DEFAULT, 3, 0},
	};
	int saved = quiet_begin();
	for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
		struct lp_result r;
		lp_parse_file(path, &opts[i], &r);
		/* What a success claims must be a measurement. */
		if (r.status == LP_SUCCESS && !(r.time.n && r.time.mean > 0 && isfinite(r.time.mean)))
			abort();
		for (size_t k = 1; k < r.nsamples; k++)
			if (r.samples[k - 1].iter >= r.samples[k].iter)
				abort();
		json_t *j = lp_result_json(&r, 1);
		char *text = json_dumps(j, JSON_SORT_KEYS);
		if (!text)
			abort();
		free(text);
		json_decref(j);
		lp_result_free(&r);
	}
	quiet_end(saved);
	return 0;
}
