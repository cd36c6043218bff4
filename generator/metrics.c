/* metrics.c: placeholder until the module lands. */
#include <stdio.h>
#include "cmds.h"
int
cmd_metrics(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "llmb: cmd_metrics: not built yet\n");
	return 2;
}
