/* main: dispatches `llmb <command> ...` through one table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmds.h"
#include "base/util.h"

static const struct command {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{"gen", cmd_gen, "generate make fragments from recipes"},
	{"check", cmd_check, "validate recipes; print every error"},
	{"explain", cmd_explain, "say why each stage would run"},
	{"validate", cmd_validate, "list the JSON outputs that do not validate (for make)"},
	{"script", cmd_script, "print the job script of a stage"},
	{"run", cmd_run, "run a stage: submit or reattach, wait, stamp"},
	{"status", cmd_status, "show the state of stages"},
	{"cancel", cmd_cancel, "cancel the jobs of stages"},
	{"parse", cmd_parse, "parse training logs"},
	{"report", cmd_report, "performance report from parsed results"},
	{"flops", cmd_flops, "model FLOPs per sample of a workload"},
	{"metrics", cmd_metrics, "derived metrics from a step time"},
	{"calc", cmd_calc, "evaluate a recipe expression"},
	{"import", cmd_import, "convert an upstream metadata.yaml"},
	{"record", cmd_record, "append finished runs to the history"},
	{"nightly", cmd_nightly, "run, record and judge one night"},
	{"exemplar", cmd_exemplar, "run an exemplar suite and certify it against its references"},
	{"bisect", cmd_bisect, "from a good and a bad run to the change that made it slower"},
	{"judge", cmd_judge, "verdicts on the nightly history; trend page"},
	{"annotate", cmd_annotate, "record a human decision in the nightly history"},
	{"diff", cmd_diff, "what changed between two runs (provenance)"},
	{"sysdesc", cmd_sysdesc, "an MLPerf-style system description from runs' provenance"},
	{"archive", cmd_archive, "pack an install tree's results into one reproducible archive"},
	{"verify-archive", cmd_verify_archive, "check an archive against its MANIFEST"},
};

static int
usage(FILE *f)
{
	fprintf(f, "usage: llmb <command> [args]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	return f == stderr ? 2 : 0;
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return usage(stdout);
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			progname = xasprintf("llmb %s", commands[i].name);
			int rc = commands[i].fn(argc - 1, argv + 1);
			free((void *)progname);
			return rc;
		}
	}
	fprintf(stderr, "llmb: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}
