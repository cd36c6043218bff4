#!/usr/bin/python3
"""regime-split.py [TRIALS]: where verdict.c's split_sep comes from.

The verdict calls a baseline two modes (a recurring slow or fast regime)
when its best 2-means split, with one group at most 45% of the nights,
lies some pooled within-group deviations apart. For one normal's nights
that split still lies apart by chance, the more the fewer nights there
are. This prints, for baselines of n nights of one normal, the 90th, 95th
and 99th percentiles of the split's separation, the rule 2.36 + 6.2 /
sqrt(n) (at least 3) beside them, and how often the rule and 3 alone find
a mode in one normal and in the bench's bimodal nights (30% of them 2.85
deviations slower: 3% at 1% run-to-run noise and 0.35% within-night
error). Needs numpy (python3-numpy); seeded.
"""
import sys

import numpy as np


def separation(x):
    """The verdict's split: the largest between-group sum of squares,
    groups of at least two nights; 0 when neither group is at most 45%."""
    x = np.sort(x)
    n = len(x)
    pre = np.concatenate([[0.0], np.cumsum(x)])
    k = np.arange(2, n - 1)
    ml, mh = pre[k] / k, (pre[n] - pre[k]) / (n - k)
    k = int(k[np.argmax(k * (n - k) / n * (mh - ml) ** 2)])
    if 20 * k > 9 * n and 20 * (n - k) > 9 * n:
        return 0.0
    lo, hi = x[:k], x[k:]
    sp = np.sqrt((((lo - lo.mean()) ** 2).sum() + ((hi - hi.mean()) ** 2).sum()) / (n - 2))
    return (hi.mean() - lo.mean()) / sp


def rule(n):
    return max(3.0, 2.36 + 6.2 / np.sqrt(n))


def main():
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    rng = np.random.default_rng(1)
    print('| nights | q90 | q95 | q99 | rule | one normal: rule / 3 | bimodal: rule / 3 |')
    print('|---|---|---|---|---|---|---|')
    for n in (10, 15, 20, 30, 45, 60, 90, 150):
        one = np.array([separation(rng.normal(0, 1, n)) for _ in range(trials)])
        two = np.array([separation(rng.normal(0, 1, n) + 2.85 * (rng.random(n) < 0.3)) for _ in range(trials)])
        q = np.quantile(one, [0.9, 0.95, 0.99])
        r = rule(n)
        print('| %d | %.2f | %.2f | %.2f | %.2f | %.1f%% / %.1f%% | %.1f%% / %.1f%% |' % (
            n, q[0], q[1], q[2], r, 100 * (one >= r).mean(), 100 * (one >= 3).mean(),
            100 * (two >= r).mean(), 100 * (two >= 3).mean()))


if __name__ == '__main__':
    main()
