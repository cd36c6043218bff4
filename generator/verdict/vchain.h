/* vchain: the nights before an episode as a two-state Markov chain of
 * normals (a fast and a slow mode whose nights come in runs, one
 * deviation), fitted by Baum-Welch over a long window that keeps the
 * nights of earlier episodes, and whether that chain explains the
 * episode's nights nearly as well as one new level does; and the same
 * against a grid of chains of every shape, each weighed by how well it
 * explains the nights before. The last word before a new slowdown is
 * confirmed: a run of a slow mode the history has shown, as long as such
 * runs come, is no change. And an episode's own nights against the grid's
 * chains that start from the level before it, beside a step: a slow mode
 * that appeared comes and goes, where a regression stays. */
#ifndef LLMB_VCHAIN_H
#define LLMB_VCHAIN_H

#include <stddef.h>

#include "verdict/vbase.h"

/* Nonzero when the chain of the nights before night first explains the
 * nights first..i: the log-likelihood ratio of one new level over the
 * chain, or over the grid (chain_odds), is under the policy's chain_llr.
 * The chain learns from the nights the modes are learned from and those
 * left out that they vouch for (chain_seen), or (every, and then no
 * grid) from all of them, a confirmed episode's too, when its slow mode
 * came and went twice. */
int chain_explains(struct vengine *j, size_t first, size_t i, int every);

/* Nonzero when the nights first..i of an episode come and go between the
 * level before it (night first's baseline) and one higher level: the best
 * two-mode chain of the grid, its fast level that one and its deviation
 * the tests' (test_sd), explains them better than the best step (that
 * level until some night, one new level from it on) by more than the
 * policy's alt_llr. A slow mode that appeared, after its first runs: the
 * nights since hold its runs and fast nights between them, where a
 * regression's are all at its level. */
int episode_alternates(struct vengine *j, size_t first, size_t i);

#endif
