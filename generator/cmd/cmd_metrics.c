/* cmd_metrics: `llmb metrics`, derived metrics from a step time (metrics.c)
 * or a workload's published rows checked (reference.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cliopt.h"
#include "base/cmds.h"
#include "base/util.h"
#include "plan/reference.h"
#include "recipe/metrics.h"

static const char usage_text[] =
	"usage: llmb metrics --seq S --gbs G --step-time T --gpus N [--model-flops F]\n"
	"                    [--peak-tflops P] [--tokens N] [--format=text|json]\n"
	"       llmb metrics --reference WORKLOAD [--top DIR]\n";

struct opt {
	const char *name;
	double *v;
};

/* A number as written in decimal (an exponent allowed): no hex, no inf. */
static int
parse_num(const char *name, const char *s, double *v)
{
	char *end;
	*v = strtod(s, &end);
	if (!*s || *end || s[strspn(s, "0123456789.eE+-")] || !isfinite(*v) || *v < 0) {
		fprintf(stderr, "%s: %s: '%s' is not a number >= 0\n", progname, name, s);
		return -1;
	}
	return 0;
}

/* --name V or --name=V for every opt; any other word is an error. */
static int
parse_opts(int argc, char **argv, const struct opt *opts, const char **format,
	   const char **ref, const char **top)
{
	struct option lo[16] = {
		{"format", required_argument, NULL, 'f'}, {"reference", required_argument, NULL, 'r'},
		{"top", required_argument, NULL, 't'},
	};
	size_t n = 3;
	for (const struct opt *o = opts; o->name && n + 1 < sizeof lo / sizeof *lo; o++)
		lo[n] = (struct option){o->name + 2, required_argument, NULL, 256 + (int)n - 3}, n++;
	const char *text;
	int c;
	unsigned seen = 0;
	cliopt_start();
	while ((c = cliopt_next(argc, argv, "-:", lo, &text)) != -1) {
		if (c == 'f' || c == 'r' || c == 't') {
			*(c == 'f' ? format : c == 'r' ? ref : top) = optarg;
			continue;
		}
		if (c >= 256) {
			/* each once: a second value was never a sum or an override */
			if (seen & (1u << (c - 256))) {
				fprintf(stderr, "%s: %s given twice\n", progname, opts[c - 256].name);
				return -1;
			}
			seen |= 1u << (c - 256);
			if (parse_num(opts[c - 256].name, optarg, opts[c - 256].v))
				return -1;
			continue;
		}
		fprintf(stderr, "%s: %s '%s'\n%s", progname, c == ':' ? "missing value for" : "unknown argument",
			text, usage_text);
		return -1;
	}
	if (cliopt_dashes()) {
		fprintf(stderr, "%s: unknown argument '--'\n%s", progname, usage_text);
		return -1;
	}
	return 0;
}

static void
print_json_num(const char *key, double v, int last)
{
	if (!isfinite(v))
		printf("  \"%s\": null%s\n", key, last ? "" : ",");
	else
		printf("  \"%s\": %.17g%s\n", key, v, last ? "" : ",");
}

static void
print_text_num(const char *key, double v, const char *unit)
{
	if (!isfinite(v))
		printf("%-16s -\n", key);
	else
		printf("%-16s %.2f%s\n", key, v, unit);
}

static void
print_metrics(const struct metrics *m, double tokens, int json)
{
	if (json) {
		printf("{\n");
		print_json_num("tokens_per_s", m->tokens_per_s, 0);
		print_json_num("tokens_per_s_per_gpu", m->tokens_per_s_per_gpu, 0);
		print_json_num("tflops_per_gpu", m->tflops_per_gpu, 0);
		print_json_num("mfu_pct", m->mfu_pct, 0);
		print_json_num("tokens", tokens, 0);
		print_json_num("days", m->days, 1);
		printf("}\n");
		return;
	}
	print_text_num("tokens/s", m->tokens_per_s, "");
	print_text_num("tokens/s/GPU", m->tokens_per_s_per_gpu, "");
	print_text_num("TFLOPS/GPU", m->tflops_per_gpu, "");
	print_text_num("MFU", m->mfu_pct, "%");
	printf("%-16s %.2f (%g tokens)\n", "days", m->days, tokens);
}

int
cmd_metrics(int argc, char **argv)
{
	double seq = NAN, gbs = NAN, st = NAN, gpus = NAN, flops = 0, peak = 0;
	double tokens = METRICS_TOKENS_DEFAULT;
	const struct opt opts[] = {
		{"--seq", &seq}, {"--gbs", &gbs}, {"--step-time", &st}, {"--gpus", &gpus},
		{"--model-flops", &flops}, {"--peak-tflops", &peak}, {"--tokens", &tokens}, {NULL, NULL},
	};
	const char *format = "text", *ref = NULL, *top = ".";
	if (argc < 2) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return fputs(usage_text, stdout), 0;
	if (parse_opts(argc, argv, opts, &format, &ref, &top))
		return 2;
	if (ref)
		return reference_check(top, ref, stdout);
	if (strcmp(format, "text") && strcmp(format, "json")) {
		fprintf(stderr, "%s: --format must be text or json, not '%s'\n", progname, format);
		return 2;
	}
	if (isnan(seq) || isnan(gbs) || isnan(st) || isnan(gpus)) {
		fprintf(stderr, "%s: --seq, --gbs, --step-time and --gpus are required\n%s", progname, usage_text);
		return 2;
	}
	if (st <= 0 || gpus <= 0 || tokens <= 0 || seq <= 0 || gbs <= 0) {
		fprintf(stderr, "%s: --seq, --gbs, --step-time, --gpus and --tokens must be > 0\n", progname);
		return 2;
	}
	if (seq != floor(seq) || gbs != floor(gbs) || gpus != floor(gpus)) {
		fprintf(stderr, "%s: --seq, --gbs and --gpus are whole numbers\n", progname);
		return 2;
	}
	struct metrics m;
	metrics_compute(&m, seq, gbs, st, gpus, flops, peak, tokens);
	print_metrics(&m, tokens, !strcmp(format, "json"));
	return 0;
}
