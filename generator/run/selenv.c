#define _POSIX_C_SOURCE 200809L
/* selenv: the selection read from the environment (selenv.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/makesafe.h"
#include "base/schema.h"
#include "recipe/recipecheck.h"
#include "run/selenv.h"
#include "store/layout.h"

extern char **environ;

static const char *
env_nonempty(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* A commit: 7 or more lowercase hex digits. */
static int
commit_ok(const char *v)
{
	return strlen(v) >= 7 && !v[strspn(v, "0123456789abcdef")];
}

/* An image ref of the characters a reference is written with, whose file
 * is a make word (as recipecheck asks of a recipe's ref). */
static int
image_ok(const char *v)
{
	if (!*v || *v == '-' || v[strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/:#@+-")])
		return 0;
	char *stem = image_stem(v), *f = layout_image(NULL, stem);
	int ok = mk_word_ok(f) && !strchr(stem, '/');
	free(stem);
	free(f);
	return ok;
}

/* The KEY=VALUE words of v (blank-separated) split in buf (cap bytes), at
 * most max of them: KEY a recipe name (a repository's or an image's key),
 * VALUE as ok says. Returns how many, or -1 after saying which word of
 * name is not one or that there are too many. */
static int
key_values(const char *name, const char *v, char *buf, size_t cap, const char **keys, const char **vals, int max,
	   int (*ok)(const char *), const char *what)
{
	int n = 0;
	if (!v)
		return 0;
	if (strlen(v) >= cap) {
		fprintf(stderr, "llmb: error: %s is longer than %zu bytes\n", name, cap - 1);
		return -1;
	}
	strcpy(buf, v);
	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '=');
		if (eq)
			*eq = 0;
		if (!eq || !valid_name(w) || !ok(eq + 1)) {
			if (eq)
				*eq = '=';
			fprintf(stderr, "llmb: error: %s: '%.80s' is not KEY=%s (KEY a recipe's name for it)\n", name, w, what);
			return -1;
		}
		if (n == max) {
			fprintf(stderr, "llmb: error: %s: more than %d words\n", name, max);
			return -1;
		}
		keys[n] = w;
		vals[n++] = eq + 1;
	}
	return n;
}

int
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
	const char *b = env_nonempty("LLMB_BISECT");
	s->bisect = b && strlen(b) <= 64 && strchr(b, '-') && b[0] != '-' &&
			    !b[strspn(b, "abcdefghijklmnopqrstuvwxyz0123456789-")]
			? b
			: NULL;
	/* the pins' and images' words, split once into static storage (the
	 * environment outlives every plan); one not understood is refused,
	 * never left out (the bisection would run the recipe's pin as both) */
	static char pins[1024], imgs[1024];
	s->npins = key_values("LLMB_BISECT_PIN", env_nonempty("LLMB_BISECT_PIN"), pins, sizeof pins, s->pin_key,
			      s->pin_commit, 8, commit_ok, "COMMIT");
	s->nimages = key_values("LLMB_BISECT_IMAGE", env_nonempty("LLMB_BISECT_IMAGE"), imgs, sizeof imgs, s->image_key,
				s->image_ref, 4, image_ok, "IMAGE");
	s->env = environ;
	if (s->npins < 0 || s->nimages < 0) {
		s->npins = s->nimages = 0;
		return -1;
	}
	return 0;
}

void
sel_all(struct sel *s)
{
	memset(s, 0, sizeof *s);
	s->env = environ;
}
