#!/usr/bin/python3
"""edivisive.py: the change-point analysis of Apache Otava's default
(Hunter: Fleming et al., ICPE 2023, doi:10.1145/3578244.3583719), written
for llmb's detection bench so that llmb is measured beside the tool the
field uses, on the same series. Not Otava's code: the algorithm as its
paper and documentation give it.

- E-divisive means (Matteson & James, 2014) with power 1: in a segment,
  the split (tau, kappa) with the largest energy statistic Q; tau is the
  candidate.
- A candidate is kept when Student's two-sample t-test (pooled variance)
  between the two sides of its interval has p <= the threshold.
- Split: windows of 50 points, moved on by 25 (or to the last change point
  found), each split recursively at 10x the p threshold ("weak" change
  points); the union, sorted.
- Merge: while the weakest change point (largest p) has p >= the
  threshold, drop it, and test again the change points now at its place and
  the next one (as Otava 0.8 does: the one before it keeps its statistics).

Nightly use, as cron runs it: every night the analysis runs on the per-night
means so far. The night's state is CONFIRMED when the latest change point
is a regression (the mean after it is higher); its index is the first bad
night. An improvement is a first bad night on a night that is not
CONFIRMED, the night it first appears.

    edivisive.py [--p P] [--window W] [--tag TAG] FILE.jsonl...
        writes FILE.TAG.json (TAG otava by default) beside each history: the
        per-night states in the shape of `llmb judge --format=json`, which
        detect.sh reads.
    edivisive.py --self-test
        the energy statistic against its definition summed out by brute
        force, the t-test's p against the t density integrated numerically,
        Otava's own results where its merge matters, one step found
"""
import json
import math
import os
import re
import sys

import numpy as np


def betacf(a, b, x):
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
                    -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-12:
            break
    return h


def ibeta(a, b, x):
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lnfront = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
               + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lnfront) * betacf(a, b, x) / a
    return 1.0 - math.exp(lnfront) * betacf(b, a, 1.0 - x) / b


def ttest(left, right):
    """Two-sided p of Student's t-test between two sides, and their means.
    The standard deviations are the population ones (divisor n), each side
    of one point has 0, as in Otava's tester."""
    n1, n2 = len(left), len(right)
    m1, m2 = float(np.mean(left)), float(np.mean(right))
    if n1 + n2 <= 2:
        return 1.0, m1, m2
    s1 = float(np.std(left)) if n1 >= 2 else 0.0
    s2 = float(np.std(right)) if n2 >= 2 else 0.0
    df = n1 + n2 - 2
    pooled = ((n1 - 1) * s1 * s1 + (n2 - 1) * s2 * s2) / df
    se = math.sqrt(pooled * (1.0 / n1 + 1.0 / n2))
    if se == 0.0:
        return (1.0 if m1 == m2 else 0.0), m1, m2
    t = (m1 - m2) / se
    return ibeta(df / 2.0, 0.5, df / (df + t * t)), m1, m2


def candidate(x):
    """The e-divisive candidate of segment x: (tau, Q), tau in 1..len-1."""
    n = len(x)
    d = np.abs(x[:, None] - x[None, :])
    # P[a, b]: the sum of d over rows < a and columns < b
    P = np.zeros((n + 1, n + 1))
    P[1:, 1:] = d.cumsum(0).cumsum(1)
    tau = np.arange(1, n)[:, None].astype(float)
    kap = np.arange(2, n + 1)[None, :].astype(float)
    ti = np.arange(1, n)
    ki = np.arange(2, n + 1)
    ptt = P[ti, ti][:, None]
    ptk = P[ti[:, None], ki[None, :]]
    pkk = P[ki, ki][None, :]
    cross = ptk - ptt
    within_x = ptt / 2.0
    within_y = (pkk - 2.0 * ptk + ptt) / 2.0
    nx, ny = tau, kap - tau
    with np.errstate(divide='ignore', invalid='ignore'):
        bx = np.where(nx > 1, 2.0 * ny / ((nx + ny) * (nx - 1)), 0.0)
        by = np.where(ny > 1, 2.0 * nx / ((nx + ny) * (ny - 1)), 0.0)
    q = 2.0 / (nx + ny) * cross - bx * within_x - by * within_y
    q = np.where(kap > tau, q, -np.inf)
    i, _ = np.unravel_index(np.argmax(q), q.shape)
    return int(i) + 1, float(q.flat[np.argmax(q)])


def intervals(cps, n):
    """The segments between sorted change points, empty ones left out."""
    edges = [0] + cps + [n]
    return [(a, b) for a, b in zip(edges, edges[1:]) if a < b]


def divide(x, pmax):
    """E-divisive on x: change points (indices into x) significant at pmax."""
    cps = []
    while True:
        best = None
        for a, b in intervals(cps, len(x)):
            if b - a > 1:
                tau, q = candidate(x[a:b])
                if best is None or q > best[1]:
                    best = (a + tau, q, a, b)
        if best is None:
            return cps
        idx, _, a, b = best
        p, _, _ = ttest(x[a:idx], x[idx:b])
        if p > pmax:
            return cps
        cps = sorted(cps + [idx])


def cp_stats(x, cps, k):
    """(p, mean before, mean after) of change point k against its neighbours."""
    a = cps[k - 1] if k else 0
    b = cps[k + 1] if k + 1 < len(cps) else len(x)
    return ttest(x[a:cps[k]], x[cps[k]:b])


def stats(x, cps):
    """cp_stats of every change point."""
    return [cp_stats(x, cps, k) for k in range(len(cps))]


def analyse(x, pmax=0.001, window=50):
    """The change points of series x: [(index, p, mean before, mean after)]."""
    weak_p = pmax * 10 if pmax < 0.05 else (pmax * 2 if pmax < 0.5 else pmax)
    n, step, start, found = len(x), window // 2, 0, set()
    while start < n:
        end = min(start + window, n)
        new = [start + c for c in divide(x[start:end], weak_p)]
        found.update(new)
        start = max(new[-1] if new else 0, start + step)
    cps = sorted(found)
    st = stats(x, cps)
    while cps:
        k = max(range(len(cps)), key=lambda j: st[j][0])
        if st[k][0] < pmax:
            # every p accepted; with no minimum magnitude, the least change
            # is kept too unless it is none at all
            j = min(range(len(cps)), key=lambda j: magnitude(st[j]))
            if magnitude(st[j]) > 0.0:
                break
            k = j
        del cps[k], st[k]
        # As Otava 0.8 does it: the change points now at k and k + 1 get
        # their statistics again; the one at k - 1, whose right side grew,
        # keeps its old ones (its p and its mean after).
        for r in (k, k + 1):
            if r < len(cps):
                st[r] = cp_stats(x, cps, r)
    return [(c,) + s for c, s in zip(cps, st)]


def magnitude(s):
    """Otava's change magnitude: the larger relative change either way."""
    _, before, after = s
    return max(abs(after / before - 1.0) if before else 0.0, abs(before / after - 1.0) if after else 0.0)


def nightly(means, pmax, window):
    """Each night judged as the latest: states in the shape of llmb's JSON."""
    out, seen_gain = [], set()
    for t in range(len(means)):
        cps = analyse(np.array(means[:t + 1]), pmax, window)
        night = {'state': 'OK'}
        if cps:
            idx, _, before, after = cps[-1]
            if after > before:
                night = {'state': 'CONFIRMED', 'first_bad_index': idx}
            elif idx not in seen_gain:
                seen_gain.add(idx)
                night = {'state': 'OK', 'first_bad_index': idx}
        out.append(night)
    return out


def self_test():
    """Exit status 0 when the pieces agree with their definitions."""
    import random
    rnd = random.Random(3)

    def brute(x):
        best = None
        for t in range(1, len(x)):
            for k in range(t + 1, len(x) + 1):
                a, b = x[:t], x[t:k]
                cross = sum(abs(u - v) for u in a for v in b)
                wa = sum(abs(a[i] - a[j]) for i in range(len(a)) for j in range(i + 1, len(a)))
                wb = sum(abs(b[i] - b[j]) for i in range(len(b)) for j in range(i + 1, len(b)))
                n, m = len(a), len(b)
                q = (2.0 / (n + m) * cross - (2.0 * m / ((n + m) * (n - 1)) * wa if n > 1 else 0.0)
                     - (2.0 * n / ((n + m) * (m - 1)) * wb if m > 1 else 0.0))
                if best is None or q > best[1] + 1e-12:
                    best = (t, q)
        return best

    bad = 0
    for _ in range(30):
        n = rnd.randint(2, 14)
        x = [rnd.gauss(0.0, 1.0) + (1.5 if i > n // 2 else 0.0) for i in range(n)]
        want, got = brute(x), candidate(np.array(x))
        if want[0] != got[0] or abs(want[1] - got[1]) > 1e-9:
            print('energy statistic: %r: brute force %r, candidate %r' % (x, want, got))
            bad += 1
    # two-sided p of Student's t (t = 2 on 10 degrees of freedom, 3 on 40),
    # as the t density integrated numerically gives them
    for t, df, p in ((2.0, 10, 0.073388), (3.0, 40, 0.004630)):
        got = ibeta(df / 2.0, 0.5, df / (df + t * t))
        if abs(got - p) > 1e-6:
            print('t-test: t=%g df=%d: p %.6f, want %.6f' % (t, df, got, p))
            bad += 1
    # Otava 0.8's own results on inputs where its merge (the change point
    # before a dropped one keeps its statistics) and a mean of 0 matter
    for x, want in (([13.5, 14.0, 12.5, 9.7, 8.3, 5.9, 6.1, 5.2], []),
                    ([6, 6, 6, 11, 17, 18], [(3, 6.0, 11.0)]),
                    ([-1, 1] * 10 + [5, 6] * 10, [(20, 0.0, 5.5)])):
        got = [(c, round(b, 6), round(a, 6)) for c, _, b, a in analyse(np.array(x, dtype=float))]
        if got != want:
            print('merge: %r: change points %r, Otava %r' % (x, got, want))
            bad += 1
    x = np.array([rnd.gauss(1.0, 0.01) for _ in range(60)] + [rnd.gauss(1.05, 0.01) for _ in range(20)])
    cps = [c[0] for c in analyse(x)]
    if cps != [60]:
        print('a 5%% step at 60 at 1%% noise: change points %r' % cps)
        bad += 1
    print('edivisive self-test: %s' % ('FAILED' if bad else 'ok'))
    return 1 if bad else 0


def usage(why):
    """A flag or value it does not understand: nothing is read or written."""
    print('edivisive.py: %s\nusage: edivisive.py [--p P] [--window W] [--tag TAG] FILE.jsonl... | --self-test' % why,
          file=sys.stderr)
    return 2


def main(argv):
    if argv == ['--self-test']:
        return self_test()
    pmax, window, tag, files = 0.001, 50, 'otava', []
    it = iter(argv)
    for a in it:
        v = next(it, None) if a in ('--p', '--window', '--tag') else a
        if v is None:
            return usage('%s: a value must follow' % a)
        try:
            if a == '--p':
                pmax = float(v)
                if not 0 < pmax < 1:
                    raise ValueError
            elif a == '--window':
                window = int(v)
                if window < 4:
                    raise ValueError
        except ValueError:
            return usage('%s %s: not a %s' % (a, v, 'p in (0, 1)' if a == '--p' else 'window of 4 points or more'))
        if a == '--tag':
            # part of each output's name: no other folder, no odd characters
            if not re.fullmatch(r'[A-Za-z0-9][A-Za-z0-9_.@-]*', v):
                return usage('--tag %s: letters, digits, _ . @ - only' % v)
            tag = v
        elif a not in ('--p', '--window'):
            if a.startswith('-') or not a.endswith('.jsonl'):
                return usage('%s: neither a flag it knows nor a FILE.jsonl' % a)
            files.append(a)
    for f in files:
        means = []
        with open(f) as fh:
            for line in fh:
                r = json.loads(line)
                if r.get('type') == 'run' and r.get('valid'):
                    means.append(r['summary']['mean'])
        doc = {'configurations': [{'nights': nightly(means, pmax, window)}]}
        out = '%s.%s.json' % (f[:-len('.jsonl')], tag)
        with open(out + '.tmp', 'w') as fh:
            json.dump(doc, fh)
        os.replace(out + '.tmp', out)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
