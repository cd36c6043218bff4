/* logtrig: which lines of a training log are worth parsing. The trigger
 * strings (step, checkpoint, cancel and error lines of every log format)
 * and the multi-pattern scan that finds them without looking at most of a
 * file: a Wu-Manber scan over hashed 3-byte blocks, big regions cut in
 * slices scanned in lockstep. Apart from logparse.c, which parses the
 * lines it is handed, so that each can be read in one sitting. */
#ifndef LLMB_LPTRIG_H
#define LLMB_LPTRIG_H

#include <stddef.h>

enum lptrig_kind { LPT_STEP, LPT_CKPT, LPT_CANCEL, LPT_ERROR };

/* Offset of the first trigger string in t[from, n), or n. */
size_t lptrig_find(const unsigned char *t, size_t n, size_t from);

/* Offset of the first generic error word ("Error", "error:", "ERROR") in
 * t[from, n), or n: too short for the scan, looked for only in logs that
 * did not succeed. */
size_t lptrig_generic_find(const unsigned char *t, size_t n, size_t from);

/* Whether line l (n bytes) holds a trigger of that kind. */
int lptrig_has(const char *l, size_t n, enum lptrig_kind kind);

#endif
