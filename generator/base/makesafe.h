/* makesafe: the only ways text reaches make syntax in build/gen/rules.mk.
 * A word (target, prerequisite, an entry of a file list) must be made of
 * characters make takes literally, or it is refused; a variable value is
 * escaped; a recipe line is shell-quoted with make's "$" doubled. Every
 * caller that cannot prove its text safe asks here first. */
#ifndef LLMB_MAKESAFE_H
#define LLMB_MAKESAFE_H

#include "base/util.h"

/* What a make word may hold, for messages. */
extern const char mk_word_what[];

/* 1 when s is a non-empty word of [A-Za-z0-9._/+-] that make reads as
 * itself: no "$ # % ; \ : * ? [ ] ~ = |", quotes, spaces or control
 * characters. */
int mk_word_ok(const char *s);

/* Appends s as the value of a ":=" assignment: "$" doubled, "#" escaped
 * (with the backslashes before it), a trailing backslash kept from
 * joining the next line. -1 (nothing appended) when s holds a newline or
 * another control character, which no escape carries through make. */
int sb_add_make_value(struct sb *s, const char *v);

/* Appends s as one single-quoted shell word inside a recipe line: "$"
 * doubled for make; control characters shown as "?" so a newline never
 * ends the recipe line. */
void sb_add_recipe_word(struct sb *s, const char *v);

#endif
