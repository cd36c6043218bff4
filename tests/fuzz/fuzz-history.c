/* fuzz-history: libFuzzer target for the history reader. Each input is a
 * history file (its name gives the fingerprint the records must carry),
 * read as llmb judge reads it; then its first line goes through the check
 * every appender runs. None may crash, leak, hang or read out of bounds;
 * a file read without errors must hold together. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "history.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], path[128];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!*dir) {
		snprintf(dir, sizeof dir, "/tmp/llmb-fuzz-history.%ld", (long)getpid());
		snprintf(path, sizeof path, "%s/tinygpt_cpu_tiny_fp32_1_0123456789ab.jsonl", dir);
		mkdir_p(path, 1);
	}
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	dup2(null, 2);
	struct history h;
	int errs = history_load(path, &h);
	/* What a clean read claims must hold together. */
	for (size_t i = 0; !errs && i < h.nruns; i++) {
		const struct hrun *r = &h.runs[i];
		if (!r->job || history_day(r->night) != r->day || (r->valid && !r->ok))
			abort();
		for (size_t k = 0; r->valid && k < r->n; k++)
			if (!(r->x[k] > 0) && !isnan(r->x[k]) && !(r->why))
				abort();
	}
	for (size_t i = 0; !errs && i < h.nanns; i++)
		if (!h.anns[i].reason || history_day(h.anns[i].night) != h.anns[i].day)
			abort();
	history_free(&h);
	/* The appenders' check on the first line, as a line to append. */
	const char *nl = memchr(data, '\n', size);
	if (nl) {
		char *line = xstrndup((const char *)data, (size_t)(nl - (const char *)data) + 1);
		if (strlen(line) == (size_t)(nl - (const char *)data) + 1)
			history_line_check(path, line);
		free(line);
	}
	diag_reset();
	dup2(saved, 2);
	close(saved);
	close(null);
	return 0;
}
