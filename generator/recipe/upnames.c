/* upnames: upstream's workload names, loaded and looked up. */
#include <stdlib.h>
#include <string.h>

#include "base/schema.h"
#include "base/util.h"
#include "recipe/recipe.h"
#include "recipe/upnames.h"

static const struct ytype t_name = {T_NAME, 0, 0, 0}, t_str = {T_STR, 0, 0, 0};
static const struct ytype t_names = {T_LIST, &t_name, 0, 0};
static const struct field name_fields[] = {
	{"type", &t_name, 1, "metadata.yaml general.workload_type"},
	{"workload", &t_name, 1, "metadata.yaml general.workload"},
	{"display_name", &t_name, 0, "metadata.yaml general.display_name"},
	{"aliases", &t_names, 0, "metadata.yaml general.workload_aliases"},
	{"llmb", &t_name, 1, "llmb's workload"},
	{"source", &t_str, 1, "the upstream file"},
	{NULL},
};
static const struct ytype t_entry = {T_OBJ, 0, name_fields, 0};
static const struct ytype t_entries = {T_LIST, &t_entry, 0, 0};
static const struct field top_fields[] = {
	{"names", &t_entries, 1, "upstream's names, one entry per upstream recipe"},
	{NULL},
};
static const struct ytype t_top = {T_OBJ, 0, top_fields, 0};

struct ydoc *
upnames_load(const char *top, int *bad)
{
	char *path = strcmp(top, ".") ? xasprintf("%s/%s", top, UPNAMES_FILE) : xstrdup(UPNAMES_FILE);
	struct ydoc *d = NULL;
	*bad = 0;
	if (file_exists(path)) {
		d = yaml_load_file(path);
		if (!d || d->errors || schema_check(d->file, d->root, &t_top)) {
			ydoc_free(d);
			d = NULL;
			*bad = 1;
		}
	}
	free(path);
	return d;
}

/* Whether entry e is called name (without its type prefix). */
static int
called(const struct ynode *e, const char *name)
{
	if (!strcmp(ystr(e, "workload", ""), name) || !strcmp(ystr(e, "display_name", ""), name))
		return 1;
	return ynames_have(ymap_get(e, "aliases"), name);
}

const char *
upnames_workload(const struct ydoc *t, const char *name)
{
	const struct ynode *v = ymap_get(t->root, "names");
	for (size_t i = 0; v && i < v->nkids; i++) {
		const struct ynode *e = v->kids[i];
		const char *type = ystr(e, "type", "");
		size_t tl = strlen(type);
		if (called(e, name) || (!strncmp(name, type, tl) && name[tl] == '_' && called(e, name + tl + 1)))
			return ystr(e, "llmb", NULL);
	}
	return NULL;
}
