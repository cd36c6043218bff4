/* fuzz-history: libFuzzer target for the history reader. Each input is a
 * history file (its name gives the fingerprint the records must carry),
 * read as llmb judge reads it; then its first line goes through the check
 * every appender runs. None may crash, leak, hang or read out of bounds;
 * a file read without errors must hold together, read the same with the
 * fast reader of llmb's own records as with the full reader alone, and be
 * judged night by night (the verdict engine on whatever a valid history
 * may hold: a gate must not go silent on odd numbers). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "store/history.h"
#include "recipe/policy.h"
#include "verdict/verdict.h"
#include "base/util.h"
#include "quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[4096], path[4200];

static int
same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int
same_num(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static int
same_run(const struct hrun *a, const struct hrun *b)
{
	return a->line == b->line && a->day == b->day && !strcmp(a->night, b->night) && same_str(a->job, b->job) &&
	       a->ok == b->ok && a->valid == b->valid && same_str(a->why, b->why) && a->n == b->n &&
	       same_num(a->mean, b->mean) && same_num(a->se, b->se) && same_num(a->ref, b->ref) &&
	       same_num(a->tol, b->tol) && same_str(a->image_ref, b->image_ref) &&
	       same_str(a->image_digest, b->image_digest) && same_str(a->config_hash, b->config_hash) &&
	       same_str(a->llmb_version, b->llmb_version) && same_str(a->nodes, b->nodes) &&
	       same_str(a->knobs, b->knobs) && same_str(a->run_dir, b->run_dir);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!*dir) {
		if ((size_t)snprintf(dir, sizeof dir, "%s/llmb-fuzz-history.%ld", scratch_dir(), (long)getpid()) >=
		    sizeof dir)
			abort();
		snprintf(path, sizeof path, "%s/tinygpt_cpu_tiny_fp32_1_0123456789ab.jsonl", dir);
		mkdir_p(path, 1);
	}
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	int saved = quiet_begin();
	struct history h, full;
	int errs = history_load(path, &h);
	/* What a clean read claims must hold together. */
	for (size_t i = 0; !errs && i < h.nruns; i++) {
		const struct hrun *r = &h.runs[i];
		if (!r->job || history_day(r->night) != r->day || (r->valid && !r->ok))
			abort();
		if (r->valid && !r->why && !(r->n > 0 && r->mean > 0))
			abort();
	}
	/* The fast reader reads what the full reader reads, errors included. */
	history_fast = 0;
	int full_errs = history_load(path, &full);
	history_fast = 1;
	if (full_errs != errs || full.nruns != h.nruns || full.nanns != h.nanns)
		abort();
	for (size_t i = 0; i < h.nruns; i++)
		if (!same_run(&h.runs[i], &full.runs[i]))
			abort();
	history_free(&full);
	for (size_t i = 0; !errs && i < h.nanns; i++)
		if (!h.anns[i].reason || history_day(h.anns[i].night) != h.anns[i].day)
			abort();
	if (!errs && h.nruns) {
		struct policy p;
		struct vconfig c;
		policy_defaults(&p);
		verdict_judge(&h, -1, &p, &c);
		/* the judged night has a state, and a first bad night lies in the history */
		if (c.judged < 0 || c.first_bad >= (long)c.n || (c.state == ST_CONFIRMED && c.first_bad < 0))
			abort();
		verdict_free(&c);
	}
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
	quiet_end(saved);
	return 0;
}
