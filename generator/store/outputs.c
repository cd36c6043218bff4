#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "store/instance.h"
#include "store/layout.h"
#include "store/outputs.h"
#include "store/stagecfg.h"

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* A JSON file: one whole JSON value; result.json also an object with the
 * parser's schema and a status. */
static int
json_valid(const char *path, const char *rel, struct sb *why)
{
	json_error_t e;
	json_t *j = json_load_file(path, JSON_DECODE_ANY, &e);
	int ok = j != NULL, result = ends_with(rel, "/" LAYOUT_RESULT);
	if (!j && why)
		sb_addf(why, "output %s is not whole JSON (line %d: %s)", rel, e.line, e.text);
	if (ok && result && (!json_is_object(j) || json_integer_value(json_object_get(j, "schema")) != 1 ||
			     !json_is_string(json_object_get(j, "status")))) {
		ok = 0;
		if (why)
			sb_addf(why, "output %s is not a parse result (no schema 1 and status)", rel);
	}
	json_decref(j);
	return ok;
}

int
output_valid(const char *path, const char *rel, struct sb *why)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		if (why)
			sb_addf(why, "output %s is missing", rel);
		return 0;
	}
	if (S_ISREG(st.st_mode) && st.st_size == 0) {
		if (why)
			sb_addf(why, "output %s is empty", rel);
		return 0;
	}
	if (S_ISREG(st.st_mode) && ends_with(rel, ".json"))
		return json_valid(path, rel, why);
	return 1;
}

/* What one output holds, for the identity: an identity file beside it
 * (images: .sqsh.id) or its own text when small, without job= lines;
 * else its size and time. */
static void
add_one(struct sb *s, const char *install, const char *rel)
{
	char *path = xasprintf("%s/%s", install, rel), *idp = xasprintf("%s" LAYOUT_IDENTITY_SUFFIX, path);
	struct stat st;
	const char *src = stat(idp, &st) == 0 && S_ISREG(st.st_mode) ? idp : path;
	sb_addf(s, "%s\n", rel);
	if (stat(src, &st) < 0) {
		sb_add(s, "missing\n");
	} else if (S_ISREG(st.st_mode) && st.st_size <= 1 << 20) {
		char *data = read_file(src, NULL);
		for (char *l = data; l && *l;) {
			size_t n = strcspn(l, "\n");
			if (strncmp(l, "job=", 4))
				sb_addf(s, "%.*s\n", (int)n, l);
			l += n + (l[n] == '\n');
		}
		free(data);
	} else {
		sb_addf(s, "size=%lld mtime=%lld.%09ld\n", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			st.st_mtim.tv_nsec);
	}
	free(idp);
	free(path);
}

void
outputs_identity(const char *install, const struct stagecfg *cfg, char out[65])
{
	struct sb s = {0};
	for (size_t i = 0; i < cfg->noutputs; i++)
		add_one(&s, install, cfg->outputs[i]);
	sha256_hex(s.buf ? s.buf : "", s.len, out);
	sb_free(&s);
}

int
identity_write(const char *install, const char *id, const struct stagecfg *cfg)
{
	char h[65];
	outputs_identity(install, cfg, h);
	return identity_store(install, id, h);
}
