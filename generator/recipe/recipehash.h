/* recipehash: a recipe's hash beside its pins. The sha256 of the recipe's
 * tree (yamlload.h: keys, values and their order; comments and layout
 * aside) with every image's ref and every repository's commit left out:
 * two recipes whose files differ only in those pins hash alike, so a
 * bisection that swaps the pins knows the recipe's change is explained. */
#ifndef LLMB_RECIPEHASH_H
#define LLMB_RECIPEHASH_H

/* The hash into hex[65]; -1 when the file does not load. */
int recipe_pins_aside_sha256(const char *path, char hex[65]);

#endif
