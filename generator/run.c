/* run.c: placeholder until the module lands. */
#include <stdio.h>
#include "cmds.h"
int
cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "llmb: cmd_run: not built yet\n");
	return 2;
}
int
cmd_status(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "llmb: cmd_status: not built yet\n");
	return 2;
}
int
cmd_cancel(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "llmb: cmd_cancel: not built yet\n");
	return 2;
}
