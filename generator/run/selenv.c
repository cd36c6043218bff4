#define _POSIX_C_SOURCE 200809L
/* selenv: the selection read from the environment (selenv.h). */
#include <stdlib.h>
#include <string.h>

#include "base/makesafe.h"
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
	const char *b = env_nonempty("LLMB_BISECT");
	s->bisect = b && strlen(b) <= 64 && strchr(b, '-') && b[0] != '-' &&
			    !b[strspn(b, "abcdefghijklmnopqrstuvwxyz0123456789-")]
			? b
			: NULL;
	/* the pins' words, split once into static storage (the environment
	 * outlives every plan); a word that is no KEY=COMMIT of hex digits is
	 * left out: llmb bisect checks what it sets */
	static char pins[1024];
	const char *pv = env_nonempty("LLMB_BISECT_PIN");
	s->npins = 0;
	if (pv && strlen(pv) < sizeof pins) {
		strcpy(pins, pv);
		for (char *save = NULL, *w = strtok_r(pins, " ", &save); w && s->npins < 8; w = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(w, '=');
			if (!eq || eq == w || strlen(eq + 1) < 7 || eq[1 + strspn(eq + 1, "0123456789abcdef")] ||
			    w[strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")] != '=')
				continue;
			*eq = 0;
			s->pin_key[s->npins] = w;
			s->pin_commit[s->npins++] = eq + 1;
		}
	}
	/* the images' words likewise: KEY=REF, a ref of the characters an
	 * image reference is written with (recipecheck's) */
	static char imgs[1024];
	const char *iv = env_nonempty("LLMB_BISECT_IMAGE");
	s->nimages = 0;
	if (iv && strlen(iv) < sizeof imgs) {
		strcpy(imgs, iv);
		for (char *save = NULL, *w = strtok_r(imgs, " ", &save); w && s->nimages < 4; w = strtok_r(NULL, " ", &save)) {
			char *eq = strchr(w, '=');
			if (!eq || eq == w || !eq[1] || eq[1] == '-' ||
			    eq[1 + strspn(eq + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/:#@+-")] ||
			    w[strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")] != '=')
				continue;
			/* its file a make word, as recipecheck asks of a recipe's ref */
			char *stem = image_stem(eq + 1), *f = layout_image(NULL, stem);
			int ok = mk_word_ok(f) && !strchr(stem, '/');
			free(stem);
			free(f);
			if (!ok)
				continue;
			*eq = 0;
			s->image_key[s->nimages] = w;
			s->image_ref[s->nimages++] = eq + 1;
		}
	}
	s->env = environ;
}

void
sel_all(struct sel *s)
{
	memset(s, 0, sizeof *s);
	s->env = environ;
}
