#!/usr/bin/python3
"""detect-onset-bound.py: the false alarms any gate that meets the
detection bench's sensitivity rows must give on a bimodal history whose
slow mode appears later and lasts (histgen's bimodal:P:F:RUN:ONSET, the
"from night 101" rows of bench/detect-shapes.sh), the way
bench/detect-bound.py bounds the rows themselves.

Until the slow mode's first run ends, such a history is a step: its nights
before are those of a quiet history (the fast mode is the old level), the
run's nights lie F above it, each with the noise of any night. A gate sees
nothing that tells them apart. On a first run of two or more nights at
F = 5% it alarms by the run's second night exactly as often as on a 5%
rise within 2 nights; on a first run of five or more at F = 2%, by its
fifth night as often as on a 2% rise within 5 nights. A gate whose chance
to alarm does not fall as a step grows (every one-sided test of a level)
alarms at least as often at a larger gap. So a gate of sensitivity S5 and
S2 on those rows alarms at the onset of a mode of gap F in at least
    max(S5 P(run >= 2) [F >= 5%], S2 P(run >= 5) [F >= 2%])
of histories, P the chance that the first run after the onset starts in
time and lasts that long: a slow night stays slow with 1 - 1/RUN (P for
independent nights), a fast one turns slow with P / (RUN (1 - P)) (P),
the onset's night draws P (histgen). This assumes the gate's sensitivity
on a rise after 100 quiet nights is no lower than after 30 (the bench's
rises come at night 31). Below 2% no row binds: a gate may stay silent.

The sensitivity a gate must keep is the issue's: each row at least
max(Otava's figure at the same false-alarm budget, 0.4 x the oracle bound
of bench/detect-bound.py). Otava's figures at that budget are known at 1%
noise only (docs/history.md, "Beside Otava at the same false alarms":
p 0.0001, three draws pooled, 96.1% and 47.0%); at 0.5% and 2% the oracle
alone. A second table takes S = 1 (a gate that confirms every such rise):
the chance itself.

Prints, per onset cell: the share of histories alarmed by the onset's first
run at least (in the 30 nights from it, the bench's column, and over the
whole history), and the false alarms per 1,000 judged nights that share
alone gives on the bench's histories (300 nights, 290 judged, onset at
night 101). Exact; asserts nothing.

    detect-onset-bound.py [--runs "1 3"] [--share "0.1 0.3 0.5"] [--gap "1.015 1.03 1.05"]
"""
import importlib.util
import math
import os
import sys

spec = importlib.util.spec_from_file_location('bound', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'detect-bound.py'))
bound = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bound)

NIGHTS, ONSET, JUDGED_FROM, WINDOW = 300, 101, 11, 30
OTAVA_1PCT = {'5': 0.961, '2': 0.470}  # docs/history.md, p 0.0001 at 1% noise


def first_run(p, run, k, within):
    """The chance the first slow run after the onset starts by night
    ONSET + within - k (so that its k-th night lies within `within` nights
    of the onset) and lasts k nights or more."""
    enter = p if run <= 1 else p / (run * (1 - p))
    stay = p if run <= 1 else 1 - 1 / run
    starts = within - k + 1
    if starts < 1:
        return 0.0
    # the onset's night draws p; each later fast night turns slow with `enter`
    started = 1 - (1 - p) * (1 - enter) ** (starts - 1)
    return started * stay ** (k - 1)


def floors():
    """The issue's sensitivity floor per noise level: (S5, S2)."""
    out = []
    for r in bound.NOISES:
        s = bound.night_sigma(r)
        s5 = 0.4 * bound.power([math.log(1.05) / s] * 2, 2)
        s2 = 0.4 * bound.power([math.log(1.02) / s] * 5, 5)
        if r == 0.01:
            s5, s2 = max(s5, OTAVA_1PCT['5']), max(s2, OTAVA_1PCT['2'])
        out.append((r, s5, s2))
    return out


def cell_bound(p, f, run, s5, s2, within):
    b = 0.0
    if f >= 1.05 - 1e-9:
        b = max(b, s5 * first_run(p, run, 2, within))
    if f >= 1.02 - 1e-9:
        b = max(b, s2 * first_run(p, run, 5, within))
    return b


def arg(name, default):
    a = sys.argv[1:]
    return [float(x) for x in (a[a.index(name) + 1] if name in a else default).split()]


def main():
    runs, shares, gaps = arg('--runs', '1 3'), arg('--share', '0.1 0.3 0.5'), arg('--gap', '1.015 1.03 1.05')
    judged = NIGHTS - JUDGED_FROM + 1
    fl = floors()
    print('The sensitivity floor (the issue\'s): ' + '; '.join(
        '%.1f%% noise: 5%% rise within 2 nights %.1f%%, 2%% rise within 5 nights %.1f%%' % (100 * r, 100 * a, 100 * b) for r, a, b in fl))
    for title, sens in (('at the floor', fl), ('at S = 1', [(r, 1.0, 1.0) for r, _, _ in fl])):
        print()
        print('| slow mode from night %d, %s | %s |' % (ONSET, title, ' | '.join(
            '%.1f%%: alarmed at the onset, in 30 nights / at all; per 1,000 nights' % (100 * r) for r, _, _ in sens)))
        print('|---|' + '---|' * len(sens))
        for run in runs:
            for p in shares:
                for f in gaps:
                    cells = []
                    for r, s5, s2 in sens:
                        b30 = cell_bound(p, f, run, s5, s2, WINDOW)
                        ball = cell_bound(p, f, run, s5, s2, NIGHTS - ONSET + 1)
                        cells.append('%.1f%% / %.1f%%; %.2f' % (100 * b30, 100 * ball, 1000 * ball / judged) if ball > 0 else 'none')
                    print('| %d%% slow, +%.1f%%, %s | %s |' % (round(100 * p), 100 * (f - 1),
                          'independent' if run <= 1 else 'runs of %g' % run, ' | '.join(cells)))


if __name__ == '__main__':
    main()
