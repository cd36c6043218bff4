/* cmd_parse: `llmb parse [OPTION...] [DIR_OR_FILE...]`, the command around
 * parse.c: reads the options and calls parse_logs. */
#include <stdio.h>
#include <string.h>

#include "base/cliopt.h"
#include "base/cmds.h"
#include "results/parse.h"

enum { O_FULL = 256, O_PROFILED, O_PROXY, O_UNLISTED, O_FORMAT, O_WINDOW, O_LOGFMT, O_STEPS, O_INDEXING, O_STD, O_RESULT, O_PROV };

/* Options with a value take it as "--name=value" only. */
static const struct option longopts[] = {
	{"help", no_argument, NULL, 'h'},
	{"full-names", no_argument, NULL, O_FULL},
	{"profiled", no_argument, NULL, O_PROFILED},
	{"proxy", no_argument, NULL, O_PROXY},
	{"unlisted", no_argument, NULL, O_UNLISTED},
	{"format", optional_argument, NULL, O_FORMAT},
	{"window", optional_argument, NULL, O_WINDOW},
	{"log-format", optional_argument, NULL, O_LOGFMT},
	{"steps", optional_argument, NULL, O_STEPS},
	{"indexing", optional_argument, NULL, O_INDEXING},
	{"std", optional_argument, NULL, O_STD},
	{"result", optional_argument, NULL, O_RESULT},
	{"provenance", optional_argument, NULL, O_PROV},
	{NULL, 0, NULL, 0},
};

/* One option with its value v (NULL: none given); 0, or -1 when bad. */
static int
option(int c, const char *v, struct parse_opts *p)
{
	switch (c) {
	case O_FULL: p->full_names = 1; return 0;
	case O_PROFILED: p->lp.profiled = 1; return 0;
	case O_PROXY: p->lp.proxy = 1; return 0;
	case O_UNLISTED: p->lp.unlisted = 1; return 0;
	}
	if (!v)
		return -1;
	switch (c) {
	case O_FORMAT:
		if (strcmp(v, "table") && strcmp(v, "csv") && strcmp(v, "json"))
			return -1;
		p->out = *v == 't' ? PARSE_TABLE : *v == 'c' ? PARSE_CSV : PARSE_JSON;
		return 0;
	case O_WINDOW: return parse_window(v, &p->lp);
	case O_LOGFMT: return lp_format_parse(v, &p->lp.format);
	case O_STEPS: return parse_long(v, &p->lp.steps) || p->lp.steps <= 0 ? -1 : 0;
	case O_INDEXING:
		if (strcmp(v, "zero") && strcmp(v, "one"))
			return -1;
		p->lp.indexing = *v == 'z' ? LP_INDEX_ZERO : LP_INDEX_ONE;
		return 0;
	case O_STD:
		if (strcmp(v, "sample") && strcmp(v, "population"))
			return -1;
		p->sample_std = *v == 's';
		return 0;
	case O_RESULT:
		p->result = v;
		return *v ? 0 : -1;
	case O_PROV:
		p->provenance = v;
		return *v ? 0 : -1;
	}
	return -1;
}

int
cmd_parse(int argc, char **argv)
{
	struct parse_opts p = PARSE_OPTS_INIT;
	const char *text;
	int c;
	cliopt_start();
	while ((c = cliopt_next(argc, argv, "h", longopts, &text)) != -1) {
		if (c == 'h' && (!strcmp(text, "-h") || !strcmp(text, "--help")))
			return parse_usage(stdout);
		if (c == '?' || c == 'h' || option(c, optarg, &p))
			return parse_bad_usage("bad option '%s'", text);
	}
	return parse_logs(&p, argc - optind, argv + optind);
}
