/* selenv: the selection read from the environment (selenv.h). */
#include <stdlib.h>
#include <string.h>

#include "run/selenv.h"

extern char **environ;

static const char *
env_nonempty(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

void
sel_from_env(struct sel *s)
{
	for (int i = 0; i < K_NKNOBS; i++)
		/* ENV is also sh's start-up file: the make variable arrives
		 * under a name of llmb's (GNUmakefile) */
		s->v[i] = env_nonempty(i == K_ENV ? "LLMB_KNOB_ENV" : knob_names[i]);
	s->night = env_nonempty("LLMB_NIGHT");
	s->nightly = env_nonempty("LLMB_NIGHTLY");
	const char *tag = env_nonempty("LLMB_NIGHT_TAG");
	s->night_tag = tag && strlen(tag) <= 16 && !tag[strspn(tag, "abcdefghijklmnopqrstuvwxyz")] ? tag : NULL;
	s->exemplar = env_nonempty("LLMB_EXEMPLAR");
	s->sweep = env_nonempty("SWEEP");
	s->env = environ;
}

void
sel_all(struct sel *s)
{
	memset(s, 0, sizeof *s);
	s->env = environ;
}
