/* dryrun: make -n seen from inside (dryrun.h). */
#include <stdlib.h>
#include <string.h>

#include "exec/dryrun.h"

int
make_dry_run(void)
{
	const char *d = getenv("LLMB_DRYRUN"), *f = getenv("MAKEFLAGS");
	if (d && *d)
		return 1;
	if (!f || *f == '-' || *f == ' ')
		return 0;
	size_t n = strcspn(f, " ");
	return memchr(f, 'n', n) != NULL;
}
