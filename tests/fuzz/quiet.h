/* quiet: a fuzz target's stderr silenced while the code under test runs
 * (its diagnostics are the expected outcome, kept off the fuzzer's
 * output) and given back after. LLMB_FUZZ_STDERR=1 keeps it:
 * tests/fuzz/run.sh replays a crash that way, where the sanitizer's
 * report, written while stderr is silenced, shows. Also where a target's
 * scratch files go: $TMPDIR, which tests/fuzz/run.sh points at a folder it
 * removes afterwards, so fuzzing leaves nothing behind in /tmp.
 * Header-only: each target is one file. */
#ifndef LLMB_FUZZ_QUIET_H
#define LLMB_FUZZ_QUIET_H

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* Silences stderr; returns what quiet_end gives back. */
static int
quiet_begin(void)
{
	int saved = dup(2);
	if (!getenv("LLMB_FUZZ_STDERR")) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 2);
		close(null);
	}
	return saved;
}

static void
quiet_end(int saved)
{
	dup2(saved, 2);
	close(saved);
}

/* The folder for scratch files: $TMPDIR, else /tmp. */
static const char *
scratch_dir(void)
{
	const char *d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

#endif
