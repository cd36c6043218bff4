#!/usr/bin/env python3
"""detect-ceiling.py: how well can any gate built on the last nights' mean
do on the detection bench's 2% rise? An idealised tail test, without the
rules llmb adds for spikes, modes and drifts: each night, for L = 2..8, the
mean of the last L nights against the 30 nights before them (their mean and
standard deviation, a t statistic), alarmed when the largest exceeds a
threshold. Night noise 1.06% (1% run to run, and the mean of 34 AR(1) steps
of 1%), as in tests/verdict/histgen.c. For each threshold: false-alarm
episodes per 1,000 stationary nights, and the share of 2% rises (after 30
quiet nights) alarmed within 5 nights. A second table adds the drift
test: the last L = 4..8 nights against a ramp from the baseline of the
first of them (weights 1..L, each night winsorized to 3 deviations), the
larger of the two statistics alarming, and the share of drifts of 0.3%
a night alarmed within 10 nights. Seeded; prints two tables, asserts
nothing.

    detect-ceiling.py [--smoke | SERIES]   (default 300 stationary series
        of 300 nights, and 2,000 rises; --smoke: 10 and 66)
bench/detect.sh prints its table after its own.
"""
import math
import random
import sys

SIG, BASE, LMAX = 1.06, 30, 8


def windows(x, lmin):
    """For each night i: (i, L, f, mu, sd) for the windows of the last L =
    lmin..LMAX nights (f the first), against the BASE nights before f."""
    cs, cs2 = [0.0], [0.0]
    for v in x:
        cs.append(cs[-1] + v)
        cs2.append(cs2[-1] + v * v)
    for i in range(BASE + lmin - 1, len(x)):
        for L in range(lmin, min(LMAX, i - BASE + 1) + 1):
            f = i - L + 1
            mu = (cs[f] - cs[f - BASE]) / BASE
            sd = math.sqrt(max((cs2[f] - cs2[f - BASE]) - BASE * mu * mu, 0) / (BASE - 1))
            yield i, L, f, mu, sd, cs


def tail_stat(x):
    """The largest tail t statistic of each night (0 before BASE + 1)."""
    out = [0.0] * len(x)
    for i, L, f, mu, sd, cs in windows(x, 2):
        m = (cs[i + 1] - cs[f]) / L
        out[i] = max(out[i], (m - mu) / (sd * math.sqrt(1 / L + 1 / BASE)))
    return out


def ramp_stat(x):
    """The largest ramp t statistic of each night (0 before BASE + 3):
    weights 1..L, each night winsorized to 3 deviations."""
    out = [0.0] * len(x)
    for i, L, f, mu, sd, _ in windows(x, 4):
        sxw = sum((a + 1) * min(max(x[f + a] - mu, -3 * sd), 3 * sd) for a in range(L))
        sw, sw2 = L * (L + 1) / 2, L * (L + 1) * (2 * L + 1) / 6
        out[i] = max(out[i], sxw / (sd * math.sqrt(sw2 + sw * sw / BASE)))
    return out


def episodes(stats, th):
    """Alarm episodes per 1,000 nights judged (after BASE)."""
    ep = nights = 0
    for o in stats:
        prev = False
        for v in o[BASE + 1:]:
            on = v > th
            ep += on and not prev
            prev = on
            nights += 1
    return 1000 * ep / nights


def main():
    arg = sys.argv[1] if len(sys.argv) > 1 else '300'
    n = 10 if arg == '--smoke' else int(arg)
    rng = random.Random(5)
    quiet = [[rng.gauss(0, SIG) for _ in range(300)] for _ in range(n)]
    stat = [tail_stat(x) for x in quiet]
    rise_x = [[rng.gauss(0, SIG) for _ in range(BASE)] + [rng.gauss(2, SIG) for _ in range(10)]
              for _ in range(n * 20 // 3)]
    rises = [tail_stat(x) for x in rise_x]
    print('| threshold | false alarms / 1,000 stationary nights | 2% rise alarmed within 5 nights |')
    print('|---|---|---|')
    for th in (3.5, 3.6, 3.7, 3.8, 3.9, 4.0):
        w5 = sum(any(v > th for v in o[BASE:BASE + 5]) for o in rises)
        print('| %.1f | %.2f | %.1f%% |' % (th, episodes(stat, th), 100 * w5 / len(rises)))
    drift_x = [[rng.gauss(0, SIG) for _ in range(BASE)] + [rng.gauss(0.3 * (k + 1), SIG) for k in range(10)]
               for _ in range(n * 20 // 3)]
    both = lambda x, t: [max(a, b) for a, b in zip(t, ramp_stat(x))]
    stat2 = [both(x, t) for x, t in zip(quiet, stat)]
    rises2 = [both(x, t) for x, t in zip(rise_x, rises)]
    drifts = [both(x, tail_stat(x)) for x in drift_x]
    print()
    print('| threshold | tail and ramp: false alarms / 1,000 stationary nights | 2% rise within 5 nights | drift 0.3%/night within 10 nights |')
    print('|---|---|---|---|')
    for th in (3.5, 3.6, 3.7, 3.8, 3.9, 4.0):
        w5 = sum(any(v > th for v in o[BASE:BASE + 5]) for o in rises2)
        w10 = sum(any(v > th for v in o[BASE:BASE + 10]) for o in drifts)
        print('| %.1f | %.2f | %.1f%% | %.1f%% |' % (th, episodes(stat2, th), 100 * w5 / len(rises2), 100 * w10 / len(drifts)))


main()
