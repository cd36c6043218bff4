#include <stddef.h>
#include <string.h>

#include "store/stagekind.h"

/* One row per kind: name, make group, builder, runner, flags. The two
 * tables below are made from this one list. */
#define STAGE_KINDS(X) \
	X("image", "setup", SK_BUILD_IMAGES, SK_RUN_JOB, SK_SHARED | SK_IMPORT) \
	X("venv", "setup", SK_BUILD_VENV, SK_RUN_JOB, SK_SHARED) \
	X("data", "setup", SK_BUILD_DATA, SK_RUN_JOB, SK_TASK_VENV) \
	X("train", "train", SK_BUILD_RUNS, SK_RUN_JOB, SK_TRAINING) \
	X("parse", "parse", SK_BUILD_RUNS, SK_RUN_PARSE, 0) \
	X("report", "report", SK_BUILD_RUNS, SK_RUN_REPORT, SK_PER_CONFIG)

#define ROW(n, g, b, r, f) {.name = n, .group = g, .build = b, .run = r, .flags = f},
#define NAME(n, g, b, r, f) n,
const struct stagekind stage_kinds[] = {STAGE_KINDS(ROW){NULL}};
const char *const stage_kind_names[] = {STAGE_KINDS(NAME) NULL};

const struct stagekind *
stage_kind(const char *name)
{
	for (const struct stagekind *k = stage_kinds; name && k->name; k++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

int
stage_kind_is(const char *name, unsigned flags)
{
	const struct stagekind *k = stage_kind(name);
	return k && (k->flags & flags) == flags;
}

enum sk_run
stage_kind_run(const char *name)
{
	const struct stagekind *k = stage_kind(name);
	return k ? k->run : SK_RUN_JOB;
}
