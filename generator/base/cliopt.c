/* cliopt: every llmb command reads its options with getopt_long through
 * here, so all of them stop at the first operand, print their own messages
 * and take long options in full only (an abbreviation is a bad option, as
 * when each command matched its options by hand). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "base/cliopt.h"
#include "base/util.h"

void
cliopt_start(void)
{
	optind = 0; /* glibc: start over, at argv[1] */
	opterr = 0;
}

static int last_index; /* of the long option cliopt_next returned */
static int dashes;     /* the options ended at a "--" */

int
cliopt_next(int argc, char **argv, const char *shortopts, const struct option *longopts, const char **text)
{
	char so[64];
	int at = optind ? optind : 1, li = -1;
	/* "-..." keeps getopt's in-order mode: an operand comes back as 1 */
	snprintf(so, sizeof so, "%s%s", *shortopts == '-' ? "" : "+", shortopts);
	int c = getopt_long(argc, argv, so, longopts, &li);
	*text = at < argc ? argv[at] : "";
	last_index = li;
	dashes = c == -1 && at < argc && !strcmp(argv[at], "--") && optind == at + 1;
	if (c != -1 && c != '?' && li >= 0 && !strncmp(*text, "--", 2) &&
	    strcspn(*text + 2, "=") != strlen(longopts[li].name))
		return '?';
	return c;
}

int
cliopt_refuse(const char *text, const char *shortopts, const struct option *longopts, const char *usage)
{
	/* missing a value: the text names an option that takes one, in full */
	int missing = 0;
	if (!strncmp(text, "--", 2)) {
		size_t n = strcspn(text + 2, "=");
		for (const struct option *o = longopts; o && o->name; o++)
			missing |= !text[2 + n] && o->has_arg == required_argument && strlen(o->name) == n &&
				    !strncmp(o->name, text + 2, n);
	} else if (text[0] == '-' && text[1] && !text[2]) {
		const char *at = strchr(shortopts, text[1]);
		missing = at && text[1] != '-' && at[1] == ':';
	}
	fprintf(stderr, missing ? "%s: option '%s' needs a value\n" : "%s: unknown option '%s'\n", progname, text);
	fputs(usage, stderr);
	return 2;
}

int
cliopt_dashes(void)
{
	return dashes;
}

int
cliopt_next_word(int argc, char **argv, const struct option *longopts, int *next)
{
	const char *text;
	if (*next < argc && !strcmp(argv[*next], "--"))
		return -1;
	int c = cliopt_next(argc, argv, "", longopts, &text);
	if (c == -1 || c == '?' || (last_index >= 0 && longopts[last_index].has_arg == required_argument &&
				    strchr(text, '=')))
		return -1;
	*next = optind;
	return c;
}

int
cliopt_operands(int argc, char **argv, const struct option *longopts, const char *usage, int *next)
{
	int i = *next;
	if (i < argc && !strcmp(argv[i], "--"))
		*next = i + 1;
	else if (i < argc && !strcmp(argv[i], "-h"))
		return fputs(usage, stdout), 0;
	else if (i < argc && argv[i][0] == '-')
		return cliopt_refuse(argv[i], "", longopts, usage);
	return -1;
}
