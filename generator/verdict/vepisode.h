/* vepisode: a confirmed episode from its first bad night on: where the
 * step began (step_at, name_first_bad), named again as its nights come in
 * (renamed_first, moved_on, unsettle), the nights that may hold it
 * (first_bad_range), its nights kept out of baselines
 * (settle), and when it is over (fell_back, brief_episode). */
#ifndef LLMB_VEPISODE_H
#define LLMB_VEPISODE_H

#include <stddef.h>

#include "verdict/vbase.h"

long last_good_before(const struct vengine *j, size_t first);
void settle(struct vengine *j, size_t first, size_t i, int dir);
size_t step_at(const struct vengine *j, size_t from, size_t i, const struct vnight *w, int dir);
size_t name_first_bad(const struct vengine *j, size_t first, size_t i, int dir, const size_t *cps, size_t ncp, const char **how);
void first_bad_range(const struct vengine *j, size_t first, size_t i, int dir, struct vnight *out);
extern const char tail_how[];
size_t renamed_first(const struct vengine *j, size_t conf, size_t i);
extern const char moved_how[];
size_t moved_on(const struct vengine *j, size_t first, size_t i);
void unsettle(struct vengine *j, size_t first, size_t to);
int fell_back(struct vengine *j, size_t i, size_t first);
void brief_episode(struct vengine *j, size_t first, size_t i, int whole);

#endif
