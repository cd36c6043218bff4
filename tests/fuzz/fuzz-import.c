/* fuzz-import: libFuzzer target for `llmb import`. Each input is an
 * upstream metadata.yaml (files from the internet) converted with the
 * project's own checkout as --top (its recipes and model table, which the
 * importer reads for known models); the output goes to standard output
 * (-o -), sent to /dev/null while the importer runs: a file written with
 * fsync each time would be most of the time. Any input may be refused;
 * none may crash, leak or hang. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cmds.h"
#include "base/diag.h"
#include "base/util.h"
#include "quiet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char in[4096];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!*in) {
		long pid = (long)getpid();
		if ((size_t)snprintf(in, sizeof in, "%s/llmb-fuzz-import.%ld.yaml", scratch_dir(), pid) >= sizeof in)
			abort();
	}
	FILE *f = fopen(in, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	char *argv[] = {"import", "--top", ".", "-o", "-", in, NULL};
	int saved = quiet_begin(), out = dup(1), null = open("/dev/null", O_WRONLY);
	fflush(stdout);
	dup2(null, 1);
	close(null);
	cmd_import(6, argv);
	fflush(stdout);
	dup2(out, 1);
	close(out);
	quiet_end(saved);
	diag_reset();
	unlink(in);
	return 0;
}
