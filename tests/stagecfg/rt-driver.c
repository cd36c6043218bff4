/* rt-driver: the stage configuration codec (store/stagecfg.c) held to
 * what it claims, for t-stagecfg.
 *
 *   rt-driver plans TOP   plans what `llmb check --top TOP` plans (every
 *                         recipe, and the exemplar suite for each of its
 *                         GPU types); for every instance: the text is the
 *                         record rendered, parse(render(x)) == x and
 *                         render(parse(text)) == text byte for byte
 *   rt-driver files F...  parses each configuration file and renders it
 *                         back: byte for byte the file, or its diagnostic
 *
 * Prints one line per failure and a count; exits 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "base/yamlload.h"
#include "plan/plan.h"
#include "store/stagecfg.h"

static int
same_text(const char *a, const struct sb *b)
{
	return b->len == strlen(a) && !memcmp(a, b->buf, b->len);
}

static int
round_trip(const struct plan *p, size_t *n)
{
	int bad = 0;
	for (size_t i = 0; i < p->n; i++, (*n)++) {
		const struct inst *in = &p->v[i];
		struct sb again = {0}, back = {0};
		stagecfg_render(&in->conf, &again);
		struct stagecfg x;
		if (!same_text(in->cfg.buf, &again)) {
			printf("%s: its text is not its record rendered\n", in->id);
			bad++;
		} else if (stagecfg_parse(&x, in->cfg.buf, in->id)) {
			printf("%s: its text does not parse\n", in->id);
			bad++;
		} else {
			stagecfg_render(&x, &back);
			if (!stagecfg_equal(&x, &in->conf)) {
				printf("%s: parse(render(x)) != x\n", in->id);
				bad++;
			} else if (!same_text(in->cfg.buf, &back)) {
				printf("%s: render(parse(text)) != text\n", in->id);
				bad++;
			}
			stagecfg_free(&x);
		}
		sb_free(&again);
		sb_free(&back);
	}
	return bad;
}

static int
plans(const char *top)
{
	size_t n = 0;
	int bad = 0;
	struct sel s;
	memset(&s, 0, sizeof s);
	struct plan p;
	if (plan_build(&p, top, &s, 1)) {
		printf("the recipes do not plan\n");
		return 1;
	}
	bad += round_trip(&p, &n);
	plan_free(&p);
	/* the exemplar suite, for each GPU type it lists (as llmb check) */
	char *ex = xasprintf("%s/pipelines/exemplar.yaml", top);
	struct ydoc *d = file_exists(ex) ? yaml_load_file(ex) : NULL;
	const struct ynode *wls = d && !d->errors ? ymap_get(d->root, "workloads") : NULL;
	for (size_t i = 0; wls && wls->kind == Y_MAP && i < ymap_len(wls); i++) {
		memset(&s, 0, sizeof s);
		s.exemplar = ex;
		s.v[K_GPU_TYPE] = ymap_key(wls, i)->str;
		if (plan_build(&p, top, &s, 0)) {
			printf("the exemplar suite does not plan for %s\n", s.v[K_GPU_TYPE]);
			bad++;
		} else {
			bad += round_trip(&p, &n);
		}
		plan_free(&p);
	}
	if (d)
		ydoc_free(d);
	free(ex);
	printf("%zu instances, %d not round trips\n", n, bad);
	return bad != 0;
}

static int
files(char **paths, int n)
{
	int bad = 0;
	for (int i = 0; i < n; i++) {
		char *text = read_file(paths[i], NULL);
		struct stagecfg c;
		if (!text || stagecfg_parse(&c, text, paths[i])) {
			bad++;
		} else {
			struct sb back = {0};
			stagecfg_render(&c, &back);
			if (!same_text(text, &back)) {
				printf("%s: render(parse(text)) != text\n", paths[i]);
				bad++;
			}
			sb_free(&back);
			stagecfg_free(&c);
		}
		free(text);
	}
	printf("%d files, %d not round trips\n", n, bad);
	return bad != 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "plans"))
		return plans(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "files"))
		return files(argv + 2, argc - 2);
	fprintf(stderr, "usage: rt-driver plans TOP | files FILE...\n");
	return 2;
}
