/* jobscript.c: placeholder until the module lands. */
#include <stdio.h>
#include "cmds.h"
int
cmd_script(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "llmb: cmd_script: not built yet\n");
	return 2;
}
