#!/usr/bin/python3
"""detect-onset-bound.py: the false alarms any gate that meets the
detection bench's sensitivity rows must give on a bimodal history of
bench/detect-shapes.sh (histgen's bimodal:P:F:RUN:ONSET), the way
bench/detect-bound.py bounds the rows themselves.

Until the slow mode's first run ends, a history is a step: its nights
before are those of a quiet history (the fast mode is the old level), the
run's nights lie F above it, each with the noise of any night. A gate sees
nothing that tells them apart. So a gate that confirms a 5% rise within
2 nights with chance S5, and a 2% rise within 5 nights with chance S2,
must alarm on a first run of gap F by its second night, or by its fifth,
at least as often as the best test of that kind does:

  - by the run's second night: among all tests of the two nights (and of
    the quiet nights before, alike under both) that pass a 5% step with
    chance S5, the one that passes a step of F least often is, by the
    Neyman-Pearson lemma (the 5% step the null, F the alternative), a
    threshold on the two nights' mean with the old level and the noise
    known:  A2(F) = Phi((ln F - ln 1.05) sqrt(2) / sigma + z(S5));
  - by its fifth, from the 2% row the same way while F is under 2%:
    A5(F) = Phi((ln F - ln 1.02) sqrt(5) / sigma + z(S2)).

A gap at or above the row's step is bounded by the row's own chance (S5,
S2), for a gate that alarms on a larger step at least as often as on a
smaller one, and by nothing more. The lemma's least test of the nights'
mean would alarm on low nights, not high ones; and a gate may take the
quiet nights before as its coin, alarming on every step after some of
them (S of them) and on none after the rest. An earlier form gave such
gaps Phi((ln F - ln 1.02) sqrt(5) / sigma + z(S2)), which holds only for
a gate that is a threshold on the window's mean, fixed whatever came
before: it put three cells at 2% noise (gaps of 5%) and three at 1%
(gaps of 3%) at or above one false alarm per 1,000 nights that no rule
is held to.

A first run of 2 to 4 nights is alarmed at least A2(F) of the time, one
of 5 or more at least max(A2, A5). At a gap of 5% A2 is S5 itself; under
a 2% gap both fall fast but are not 0. sigma is detect-bound.py's, the
level a night is known to. This assumes a gate's sensitivity on a rise
after more than 30 quiet nights is no lower than after 30 (the bench's
rises come at night 31; its late rows, after 150 nights, measure it).

Only the first run counts, and only one that comes after 30 quiet
nights: from night 101 on when the mode appears then (ONSET 101), and
from night 31 on, with every night before it fast, when the mode is there
from the first night (at a share of 10% in runs of 3, 30% of histories
start so). Later runs are bench/detect-mode-bound.py's: what a gate may
have learnt of the mode by then is what it measures.

The sensitivity is the issue's floor: each row at least max(Otava's
figure at the same false-alarm budget, 0.4 x the oracle bound of
detect-bound.py). Otava's figures at that budget (p 0.0001) are those of
docs/history.md, three draws pooled at each noise level. `--sens` puts a
gate's own figures in their place.

Prints, per cell: the share of histories alarmed by the first run at
least (for a later onset, in the 30 nights from it and over the whole
history) and the false alarms per 1,000 judged nights that share alone
gives on the bench's histories (300 nights, 290 judged). Exact; asserts
nothing.

    detect-onset-bound.py [--runs "1 3"] [--share "0.1 0.3 0.5"] [--gap "1.015 1.03 1.05"]
                          [--onset "101 1"] [--sens "S5,S2 S5,S2 S5,S2"]
"""
import importlib.util
import math
import os
import sys
from statistics import NormalDist

spec = importlib.util.spec_from_file_location('bound', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'detect-bound.py'))
bound = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bound)

NIGHTS, JUDGED_FROM, QUIET, WINDOW = 300, 11, 30, 30
# Otava (bench/edivisive.py) at p 0.0001, at most one false alarm per
# 1,000 nights as the goal asks; 5% rise within 2 nights, 2% rise within 5;
# three draws pooled each (docs/history.md)
OTAVA = {0.005: (0.991, 0.982), 0.01: (0.961, 0.470), 0.02: (0.278, 0.084)}
N = NormalDist()


def enter_stay(p, run):
    """A fast night turns slow; a slow night stays slow (histgen)."""
    if run <= 1:
        return p, p
    return p / (run * (1 - p)), 1 - 1 / run


def first_start(p, run, onset, s):
    """The chance the first slow night is night s (1-based): the onset's
    night draws p, each later fast night turns slow with `enter`."""
    enter, _ = enter_stay(p, run)
    if s < onset:
        return 0.0
    if s == onset:
        return p
    return (1 - p) * (1 - enter) ** (s - onset - 1) * enter


def floors():
    """The issue's sensitivity floor per noise level: (r, S5, S2)."""
    out = []
    for r in bound.NOISES:
        s = bound.night_sigma(r)
        o5, o2 = OTAVA[r]
        out.append((r, max(o5, 0.4 * bound.power([math.log(1.05) / s] * 2, 2)),
                    max(o2, 0.4 * bound.power([math.log(1.02) / s] * 5, 5))))
    return out


def least(f, sigma, s, step, k):
    """The least chance of alarming on a step of f by its k-th night, for a
    test that passes a step of `step` so with chance s. A step of f or more
    is passed at least as often, and no more can be said: a test of the
    nights' mean against `step` as its null would pass it least when low,
    and a gate may use the quiet nights before as its coin."""
    if s >= 1:
        return 1.0
    if s <= 0:
        return 0.0
    if f >= step:
        return s
    return N.cdf((math.log(f) - math.log(step)) * math.sqrt(k) / sigma + N.inv_cdf(s))


def cell_bound(p, f, run, onset, r, s5, s2, until):
    """The chance a history is alarmed by its first run at least, by night
    `until`."""
    sigma = bound.night_sigma(r)
    a2 = least(f, sigma, s5, 1.05, 2)
    a5 = max(0.0, least(f, sigma, s2, 1.02, 5) - a2)
    _, stay = enter_stay(p, run)
    b = 0.0
    for s in range(max(onset, QUIET + 1), until + 1):
        c = first_start(p, run, onset, s)
        if s + 1 <= until:
            b += c * stay * a2
        if s + 4 <= until:
            b += c * stay ** 4 * a5
    return b


def arg(name, default):
    a = sys.argv[1:]
    return (a[a.index(name) + 1] if name in a else default).split()


def main():
    known = {'--runs', '--share', '--gap', '--onset', '--sens'}
    a = sys.argv[1:]
    for i in range(0, len(a), 2):
        if a[i] not in known or i + 1 >= len(a):
            print('detect-onset-bound.py: %s: not understood (options: %s, each with a value)' % (a[i], ', '.join(sorted(known))), file=sys.stderr)
            sys.exit(2)
    runs, shares, gaps = ([float(x) for x in arg(n, d)] for n, d in (('--runs', '1 3'), ('--share', '0.1 0.3 0.5'), ('--gap', '1.015 1.03 1.05')))
    onsets = [int(x) for x in arg('--onset', '101 1')]
    judged = NIGHTS - JUDGED_FROM + 1
    fl = floors()
    if '--sens' in a:
        given = [tuple(float(x) for x in v.split(',')) for v in arg('--sens', '')]
        if len(given) != len(fl) or any(len(g) != 2 for g in given):
            print('detect-onset-bound.py: --sens: one S5,S2 per noise level (%d)' % len(fl), file=sys.stderr)
            sys.exit(2)
        fl = [(r, g[0], g[1]) for (r, _, _), g in zip(fl, given)]
    print('The sensitivity asked: ' + '; '.join(
        '%.1f%% noise: 5%% rise within 2 nights %.1f%%, 2%% rise within 5 nights %.1f%%' % (100 * r, 100 * a5, 100 * a2) for r, a5, a2 in fl))
    for onset in onsets:
        print()
        late = onset > QUIET
        head = '%.1f%%: alarmed by the first run, in 30 nights / at all; per 1,000 nights' if late else '%.1f%%: alarmed by the first run; per 1,000 nights'
        print('| slow mode from night %d | %s |' % (onset, ' | '.join(head % (100 * r) for r, _, _ in fl)))
        print('|---|' + '---|' * len(fl))
        for run in runs:
            for p in shares:
                for f in gaps:
                    cells = []
                    for r, s5, s2 in fl:
                        ball = cell_bound(p, f, run, onset, r, s5, s2, NIGHTS)
                        per = 1000 * ball / judged
                        if late:
                            b30 = cell_bound(p, f, run, onset, r, s5, s2, onset + WINDOW - 1)
                            cells.append('%.1f%% / %.1f%%; %.2f' % (100 * b30, 100 * ball, per))
                        else:
                            cells.append('%.1f%%; %.2f' % (100 * ball, per))
                    print('| %d%% slow, +%.1f%%, %s | %s |' % (round(100 * p), 100 * (f - 1),
                          'independent' if run <= 1 else 'runs of %g' % run, ' | '.join(cells)))


if __name__ == '__main__':
    main()
