/* cliopt: getopt_long as the llmb commands use it (see cliopt.c). */
#ifndef LLMB_CLIOPT_H
#define LLMB_CLIOPT_H

#include <getopt.h>

/* Starts reading a command's argv (argv[0] is the command's name). */
void cliopt_start(void);

/* The next option, as getopt_long with shortopts prefixed by '+' (options
 * end at the first operand) and no message of its own; a long option must
 * be spelled in full. Returns its value, '?' for a bad one, -1 at the end;
 * *text is the argv element it came from, for the command's messages. */
int cliopt_next(int argc, char **argv, const char *shortopts, const struct option *longopts, const char **text);

#endif
