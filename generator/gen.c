/* gen.c: placeholder until the module lands. */
#include <stdio.h>
#include "cmds.h"
int
cmd_gen(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "llmb: cmd_gen: not built yet\n");
	return 2;
}
int
cmd_check(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "llmb: cmd_check: not built yet\n");
	return 2;
}
