#include <string.h>

#include "base/makesafe.h"
#include "base/util.h"

const char mk_word_what[] = "[A-Za-z0-9._/+-] (make reads other characters as syntax)";

int
mk_word_ok(const char *s)
{
	static const char extra[] = "._/+-";
	if (!*s)
		return 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		if (!alnum && !strchr(extra, c))
			return 0;
	}
	return 1;
}

/* GNU make halves a run of backslashes before "#" and the "#" is literal
 * when the run was odd: n backslashes then "#" become 2n+1 backslashes
 * then "#". */
int
sb_add_make_value(struct sb *s, const char *v)
{
	if (has_control(v))
		return -1;
	size_t bs = 0;
	for (; *v; v++) {
		if (*v == '$') {
			sb_add(s, "$$");
		} else if (*v == '#') {
			for (size_t i = 0; i < bs + 1; i++)
				sb_addc(s, '\\');
			sb_addc(s, '#');
		} else {
			sb_addc(s, *v);
		}
		bs = *v == '\\' ? bs + 1 : 0;
	}
	/* "a\" at the end of the line would continue it: an empty
	 * expansion after the backslash ends the value instead. */
	if (bs)
		sb_add(s, "$(if ,,)");
	return 0;
}

void
sb_add_recipe_word(struct sb *s, const char *v)
{
	struct sb q = {0};
	sb_add_shquote(&q, v);
	for (const unsigned char *c = (const unsigned char *)q.buf; *c; c++) {
		if (*c == '$')
			sb_add(s, "$$");
		else if (*c < 0x20 || *c == 0x7f)
			sb_addc(s, '?');
		else
			sb_addc(s, (char)*c);
	}
	sb_free(&q);
}
