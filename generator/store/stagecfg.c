/* stagecfg: the stage configuration record, "key=value" lines, one key
 * possibly repeated (arg=, after=, output=). gen writes one per stage
 * instance; run, the job script, records and reports read them back, and
 * the state files under the install tree (done stamps, job records) use
 * the same form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/stagecfg.h"

void
cfg_add(struct sb *cfg, const char *key, const char *val)
{
	sb_addf(cfg, "%s=%s\n", key, val);
}

const char *
cfg_get(const char *cfg, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	for (const char *l = cfg; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, key, kl) && l[kl] == '=') {
			size_t n = strcspn(l + kl + 1, "\n");
			snprintf(buf, len, "%.*s", (int)n, l + kl + 1);
			return buf;
		}
	}
	return NULL;
}

char **
cfg_values(const char *cfg, const char *key, size_t *n)
{
	char **v = NULL;
	size_t kl = strlen(key);
	*n = 0;
	for (const char *l = cfg; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, key, kl) && l[kl] == '=') {
			v = xrealloc(v, (*n + 1) * sizeof *v);
			v[(*n)++] = xstrndup(l + kl + 1, strcspn(l + kl + 1, "\n"));
		}
	}
	return v;
}

char *
cfg_knob(const char *cfg, const char *name)
{
	size_t n, nl = strlen(name);
	char **ks = cfg_values(cfg, "knob", &n), *v = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!v && !strncmp(ks[i], name, nl) && ks[i][nl] == '=')
			v = xstrdup(ks[i] + nl + 1);
		free(ks[i]);
	}
	free(ks);
	return v;
}

const char *const preflight_names[] = {[PF_OFF] = "off", [PF_WARN] = "warn", [PF_FAIL] = "fail",
				       [PF_EXCLUDE] = "exclude", NULL};

int
preflight_policy(const char *word)
{
	for (int i = 0; preflight_names[i]; i++)
		if (!strcmp(word, preflight_names[i]))
			return i;
	return -1;
}

enum preflight
cfg_preflight(const char *cfg)
{
	char buf[16];
	int p = cfg_get(cfg, "preflight", buf, sizeof buf) ? preflight_policy(buf) : -1;
	return p < 0 ? PF_WARN : (enum preflight)p;
}
