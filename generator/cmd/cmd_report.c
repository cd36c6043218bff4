/* cmd_report: `llmb report`, the command around report.c: reads the
 * options and calls report_build, or report_show with --show. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cliopt.h"
#include "base/cmds.h"
#include "results/report.h"

static const char usage_text[] =
	"usage: llmb report [--top=DIR] [--out=FILE.json] [--format=text|md|csv|json|html] [--tolerance=PCT]\n"
	"                   --workload W --gpu G --size S --dtype D EXPERIMENTS-DIR...\n"
	"       llmb report --show [--format=F] --install DIR REPORT-STAGE-ID\n"
	"Runs are EXPERIMENTS-DIR/<gpu>_<size>_<dtype>_<scale>[/repeat-*]/{result.json,train.done};\n"
	"runs of one scale are aggregated (mean of means). --out writes FILE.json and FILE.json.{txt,md,csv,html}.\n";

enum { O_WORKLOAD = 256, O_GPU, O_SIZE, O_DTYPE, O_INSTALL, O_TOP, O_OUT, O_FORMAT, O_TOLERANCE, O_SHOW };

/* --workload and its kind take the next argument; --top= and its kind
 * take "=value" only. */
static const struct option longopts[] = {
	{"workload", required_argument, NULL, O_WORKLOAD},
	{"gpu", required_argument, NULL, O_GPU},
	{"size", required_argument, NULL, O_SIZE},
	{"dtype", required_argument, NULL, O_DTYPE},
	{"install", required_argument, NULL, O_INSTALL},
	{"top", optional_argument, NULL, O_TOP},
	{"out", optional_argument, NULL, O_OUT},
	{"format", optional_argument, NULL, O_FORMAT},
	{"tolerance", optional_argument, NULL, O_TOLERANCE},
	{"show", no_argument, NULL, O_SHOW},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct opts {
	struct report_req q;
	const char *install;
	int show;
};

/* One option; 0, or -1 when it is not one of ours as written. */
static int
option(int c, const char *v, const char *text, struct opts *o)
{
	const char **by_next[] = {&o->q.workload, &o->q.gpu, &o->q.size, &o->q.dtype, &o->install};
	const char **by_eq[] = {&o->q.top, &o->q.out, &o->q.format};
	if (c >= O_WORKLOAD && c <= O_INSTALL) {
		/* "--workload=W" was never an option */
		if (text[2 + strcspn(text + 2, "=")])
			return -1;
		*by_next[c - O_WORKLOAD] = v;
	} else if (c == O_SHOW) {
		o->show = 1;
	} else if (!v) {
		return -1;
	} else if (c == O_TOLERANCE) {
		/* a percentage as written: digits and one point, nothing after */
		char *end;
		o->q.tolerance = strtod(v, &end);
		if (!*v || *end || v[strspn(v, "0123456789.")] || !isfinite(o->q.tolerance)) {
			fprintf(stderr, "llmb report: --tolerance: '%s' is not a percentage (a number >= 0)\n", v);
			return -1;
		}
	} else if (c >= O_TOP && c <= O_FORMAT) {
		*by_eq[c - O_TOP] = v;
	} else {
		return -1;
	}
	return 0;
}

int
cmd_report(int argc, char **argv)
{
	struct opts o = {.q = {.top = ".", .tolerance = 5, .format = "text"}, .install = "install"};
	const char *text;
	int c, bad = 0;
	cliopt_start();
	while (!bad && (c = cliopt_next(argc, argv, "", longopts, &text)) != -1) {
		if (c == '?')
			return cliopt_refuse(text, "", longopts, usage_text);
		if (c == 'h')
			return fputs(usage_text, stdout), 0;
		bad = option(c, optarg, text, &o);
	}
	int i = optind;
	/* a lone "-" was never an operand here */
	bad |= i < argc && !strcmp(argv[i], "-") && strcmp(argv[i - 1], "--");
	if (bad || !report_format_known(o.q.format) || !(o.q.tolerance >= 0)) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (o.show && i == argc - 1)
		return report_show(o.install, argv[i], o.q.format);
	if (o.show || !o.q.workload || !o.q.gpu || !o.q.size || !o.q.dtype || i >= argc) {
		fputs(usage_text, stderr);
		return 2;
	}
	return report_build(&o.q, argv + i, argc - i);
}
