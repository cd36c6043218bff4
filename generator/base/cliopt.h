/* cliopt: getopt_long as the llmb commands use it (see cliopt.c). */
#ifndef LLMB_CLIOPT_H
#define LLMB_CLIOPT_H

#include <getopt.h>

/* Starts reading a command's argv (argv[0] is the command's name). */
void cliopt_start(void);

/* The next option, as getopt_long with shortopts prefixed by '+' (options
 * end at the first operand; with shortopts "-...", operands come back in
 * order as 1, optarg the word) and no message of its own; a long option
 * must be spelled in full. Returns its value, '?' for a bad one, -1 at the end;
 * *text is the argv element it came from, for the command's messages. */
int cliopt_next(int argc, char **argv, const char *shortopts, const struct option *longopts, const char **text);

/* For a '?' of cliopt_next: says on stderr which option text is wrong
 * (unknown, or missing its value), then usage; returns 2, the exit status
 * of a command given an argument it does not understand. */
int cliopt_refuse(const char *text, const char *shortopts, const struct option *longopts, const char *usage);

/* The options ended at a "--" (which commands that never took one refuse). */
int cliopt_dashes(void);

/* For commands whose operands start at the first word that is not one of
 * their options as written: a bad option, "--", or "--name=value" for an
 * option that takes the next word ends the options there, unread. Returns
 * the next option or -1; *next is the index of the first word not read
 * (start it at 1, after cliopt_start). */
int cliopt_next_word(int argc, char **argv, const struct option *longopts, int *next);

/* After cliopt_next_word, for commands whose operands never start with
 * '-' (stage ids): a "--" is skipped, "-h" prints usage on stdout (0) and
 * any other word starting with '-' is refused (2), before the command acts
 * on anything. Returns -1 when the operands from *next on are to be read. */
int cliopt_operands(int argc, char **argv, const struct option *longopts, const char *usage, int *next);

#endif
