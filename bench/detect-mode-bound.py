#!/usr/bin/python3
"""detect-mode-bound.py: the false alarms any gate that meets the
detection bench's 5%-rise row must give on a bimodal history of
bench/detect-shapes.sh, over every run of the slow mode, not only the
first, with all that the history before each run shows.

bench/detect-onset-bound.py bounds the first run alone: until it ends, a
history is a step. A later run comes after earlier ones, and a gate may
have learnt the mode from them; how much it can have learnt is what this
measures. An oracle knows the cell (the share P, the gap F, the mean run,
the onset, the noise) and the fast level. At each start of a run of 2 or
more slow nights, after 2 fast ones and at least 30 nights into the
history, it must decide on the run's first two nights whether to alarm.
The sensitivity row it must keep: a 5% rise after L quiet nights is
alarmed by its second night with chance S5 (the issue's floor), for every
L of 30 or more, as bench/detect-onset-bound.py assumes (the bench's
rises come at night 31).

By the Neyman-Pearson lemma, among all tests of the nights so far that
pass the 5% rise with chance S5, the one that alarms on the run least
often is a threshold on the likelihood ratio of the two, which factors:

  log dP/dQ = E + W,
  E = log p(nights before | one mode) - log p(nights before, the last two
      fast | the cell's two modes)   (the forward algorithm of the cell's
      Markov chain of modes: what the history shows of the mode)
  W = log p(the two nights | 5% up) - log p(the two nights | F up)

The threshold is set, for each L, on quiet histories (E computed the
same way on them) with the two nights 5% up, so that S5 of them alarm;
the runs' alarms are then counted on the cell's histories. Each run's
least chance is a bound on any gate's, so their sum per history is a
bound on the false alarms it starts, under one more assumption: an alarm
on an earlier run has ended by two fast nights later (the "fixed
regression recognised within 2 nights" row, asked at 99%). The oracle
knows more than any gate (the cell, the level, the onset), so a gate
that meets the row gives at least this many.

The rise's other rows (2% within 5 nights, drifts) are not asked of the
oracle: fewer constraints, a lower bound still.

Prints, per cell, the first run's part, the later runs' part and their
sum, per 1,000 judged nights (290 of a 300-night history), with the
Monte Carlo's standard error of the sum. Seeded; asserts nothing.

--also "NOISE:K:S ..." asks more of the oracle at that noise: a 5% rise
alarmed by its K-th night with chance S (llmb's own rate, bench/detect.sh's
rows "5% rise confirmed within 3 / 5 nights", which no goal asks). Runs of
K nights or more are then decided by their K-th night against it, as runs
of 5 are against the 2% row; the largest sum is the bound, and a last
column names the row that gives it. Such a row is no goal of the issue:
the bound then says what a gate as quick on a lasting 5% rise as llmb must
give, not what the goals force.

--family asks the same of one gate for every cell of the grid at a noise
level: the oracle above may be a different gate in each cell, which no
gate is. Of all gates that keep the 5% row, the test against the cells'
runs together, each cell weighted alike, gives the least false alarms
summed over the cells (the lemma again, with the cells' mixture as the
alternative). Its mean over the cells bounds any one gate's, and its
worst cell is what that gate gives there; beside each, the cell's own
oracle by the same test. Only the 5% row is asked here (a lower bound
still); 1,000 histories a cell and 2,000 quiet ones.

--broad (with --family) adds a gate that weighs 192 other cells instead
(BROAD: shares, gaps, runs and onsets off the bench's grid but for the
share 0.3 and the onset 1), judged on the grid's: no bound, a gate that
knows less of the family, and so a measure of what knowing it is worth.

--band B (with --family) draws each history's noise log-uniform within a
factor 1 + B of the cell's, and the gates weigh 5 noises spread over that
band (one_gate_band): what a gate that must learn the noise, within the
band, gives. Keeping the row on average over the band is less than
keeping it at every noise in it, so the mean over the band still bounds
any gate that keeps it at every one: at some noise within the band such
a gate gives at least this many.

    detect-mode-bound.py [--smoke] [--family [--broad] [--band B]] [--histories N] [--quiet N]
                         [--runs "1 3"] [--share "0.1 0.3 0.5"] [--gap "1.015 1.03 1.05"]
                         [--onset "101 1"] [--noise "0.005 0.01 0.02"]
                         [--also "NOISE:K:S ..."]
"""
import importlib.util
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


bound = load('bound', 'detect-bound.py')
onset_bound = load('onset_bound', 'detect-onset-bound.py')
NIGHTS, JUDGED_FROM, QUIET = onset_bound.NIGHTS, onset_bound.JUDGED_FROM, onset_bound.QUIET
RISE, SMALL = math.log(1.05), math.log(1.02)


def ndtr(z):
    """Phi(z), vectorised (erfc after Numerical Recipes' erfcc, relative
    error under 1.2e-7: numpy has no erf, and this needs nothing else)."""
    x = -np.asarray(z) / math.sqrt(2)
    a = np.abs(x)
    t = 1 / (1 + 0.5 * a)
    y = t * np.exp(-a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
    erfc = np.where(x >= 0, y, 2 - y)
    return 0.5 * erfc


def evidence(x, p, run, onset, sigma, g):
    """E[:, t-1] for a past of nights 1..t (see above), every t at once."""
    n, nights = x.shape
    enter, stay = onset_bound.enter_stay(p, run)
    fast = -0.5 * (x / sigma) ** 2
    slow = -0.5 * ((x - g) / sigma) ** 2
    one = np.cumsum(fast, axis=1)
    e = np.empty_like(x)
    af, asl = np.zeros(n), np.full(n, -np.inf)
    lp, lq, le, lne, ls, lns = (math.log(v) if v > 0 else -math.inf for v in (p, 1 - p, enter, 1 - enter, stay, 1 - stay))
    for t in range(1, nights + 1):
        f, s = fast[:, t - 1], slow[:, t - 1]
        if t < onset:
            ff = af + f
            naf, nas = ff, np.full(n, -np.inf)
        elif t == onset:
            both = np.logaddexp(af, asl)
            ff = af + lq + f
            naf, nas = both + lq + f, both + lp + s
        else:
            ff = af + lne + f
            naf = np.logaddexp(af + lne, asl + lns) + f
            nas = np.logaddexp(af + le, asl + ls) + s
        e[:, t - 1] = one[:, t - 1] - ff
        af, asl = naf, nas
    return e


def joint_ff(x, p, run, onset, sigma, g):
    """log p(nights 1..t, nights t-1 and t fast | the cell's chain), up to
    the constant every model shares, for every t at once."""
    fast = -0.5 * (x / sigma) ** 2
    return np.cumsum(fast, axis=1) - evidence(x, p, run, onset, sigma, g)


def modes(rng, n, p, run, onset):
    """The cell's modes (1 slow), histgen's chain."""
    enter, stay = onset_bound.enter_stay(p, run)
    s = np.zeros((n, NIGHTS), dtype=bool)
    u = rng.random((n, NIGHTS))
    for t in range(onset, NIGHTS + 1):
        if t == onset:
            s[:, t - 1] = u[:, t - 1] < p
        else:
            s[:, t - 1] = u[:, t - 1] < np.where(s[:, t - 2], stay, enter)
    return s


def alarm(e, c, gamma, h, g, k, sigma, mean):
    """The oracle's chance of alarming on a step of h by its k-th night,
    given E, when the k nights lie `mean` up: E + W > c. When the gap is
    the step's or more, E alone (ties at c alarmed with chance gamma): a
    gate that alarms on a step at least as often as on a smaller one
    alarms on the run at least as often as on the step after the same
    nights, and the least it can then do is a threshold on E."""
    if g >= h - 1e-12:
        return (e > c) + gamma * (e == c)
    # W = ((h - g) y + k (g^2 - h^2) / 2) / sigma^2, y the k nights' sum
    ystar = ((c - e) * sigma ** 2 - k * (g * g - h * h) / 2) / (h - g)
    return 1 - ndtr((ystar - k * mean) / (sigma * math.sqrt(k)))


def thresholds(ep, s, h, g, k, sigma):
    """Per past length (columns of ep, quiet histories), the c and gamma
    that alarm a step of h by its k-th night with chance s."""
    nights = ep.shape[1]
    if g >= h - 1e-12:
        c = np.quantile(ep, 1 - s, axis=0, method='lower')
        above = (ep > c).mean(axis=0)
        at = (ep == c).mean(axis=0)
        gamma = np.where(at > 0, np.clip((s - above) / np.where(at > 0, at, 1), 0, 1), 0)
        return c, gamma
    lo, hi = np.full(nights, -200.0), np.full(nights, 200.0)
    for _ in range(48):
        mid = (lo + hi) / 2
        got = alarm(ep, mid, 0, h, g, k, sigma, h).mean(axis=0)
        lo = np.where(got > s, mid, lo)
        hi = np.where(got > s, hi, mid)
    return (lo + hi) / 2, np.zeros(nights)


def cell(rng, quiet_z, nq, p, f, run, onset, r, s5, s2, also=()):
    """One cell's bound, per 1,000 judged nights: the first run's part,
    the later runs', their sum, its Monte Carlo standard error, and the
    row that gives it (an index into rows_asked(also)). also: more rows,
    (k, S): a 5% rise alarmed by its k-th night with chance S."""
    sigma = bound.night_sigma(r)
    g = math.log(f)
    ep = evidence(quiet_z * sigma, p, run, onset, sigma, g)
    c2, gamma2 = thresholds(ep, s5, RISE, g, 2, sigma)
    # per variant past the first: runs of k nights or more decided by
    # their k-th night against a step of h asked with chance sv
    rows = [(5, SMALL, s2)] + [(k, RISE, sv) for k, sv in also]
    cs = [thresholds(ep, sv, h, g, k, sigma) for k, h, sv in rows]
    s = modes(rng, nq, p, run, onset)
    x = rng.standard_normal((nq, NIGHTS)) * sigma + g * s
    e = evidence(x, p, run, onset, sigma, g)
    # per history, per variant: every run by its second night (0), and
    # runs of k nights or more by their k-th instead (1: the 2% row by
    # the fifth; then `also`); first run, later
    first = np.zeros((1 + len(rows), nq))
    later = np.zeros((1 + len(rows), nq))
    seen = s[:, 0] | s[:, 1]
    for t in range(2, NIGHTS - 1):
        # past nights 1..t; the run's first nights are t+1 on
        starts = ~s[:, t - 2] & ~s[:, t - 1] & s[:, t] & s[:, t + 1]
        if t >= QUIET and t + 1 >= JUDGED_FROM and starts.any():
            idx = np.nonzero(starts)[0]
            a2 = alarm(e[idx, t - 1], c2[t - 1], gamma2[t - 1], RISE, g, 2, sigma, g)
            alarms = [a2]
            for (k, h, _), (ck, gk) in zip(rows, cs):
                ak = a2
                if t + k <= NIGHTS:
                    long = s[idx, t:t + k].all(axis=1)
                    ak = np.where(long, alarm(e[idx, t - 1], ck[t - 1], gk[t - 1], h, g, k, sigma, g), a2)
                alarms.append(ak)
            fst = ~seen[idx]
            for v, a in enumerate(alarms):
                first[v, idx[fst]] += a[fst]
                later[v, idx[~fst]] += a[~fst]
        seen |= s[:, t]
    # A run of k nights is alarmed by its k-th at least as often as by
    # its second, and at least as that row asks; each bound holds in the
    # mean over the runs, not run by run (a gate may alarm on the same
    # runs by both), so the largest of the sums is the bound.
    total = first + later
    v = int(np.argmax(total.mean(axis=1)))
    per = 1000 / (NIGHTS - JUDGED_FROM + 1)
    return first[v].mean() * per, later[v].mean() * per, total[v].mean() * per, total[v].std(ddof=1) / math.sqrt(nq) * per, v


def rows_asked(also):
    """The names of cell()'s variants, by its index."""
    return ['5% by its 2nd night', '2% by its 5th night'] + ['5%% by its %s night' % {3: '3rd'}.get(k, '%dth' % k) for k, _ in also]


# --broad: a gate that knows less of the family than its grid: shares,
# gaps, runs and onsets none of which is the bench's but for the share
# 0.3 and the onset 1, each weighted alike
BROAD = [(p, f, run, onset) for p in (0.05, 0.15, 0.3, 0.5) for f in (1.01, 1.02, 1.04, 1.06)
         for run in (1, 2, 4) for onset in (1, 61, 121, 181)]


def run_weights(models):
    """Each model's log weight at a run's start (its two slow nights after
    a fast one), every model alike a priori."""
    out = []
    for p, f, run, onset in models:
        enter, stay = onset_bound.enter_stay(p, run)
        out.append(math.log(enter * stay) - math.log(len(models)))
    return out


def gate_threshold(ts, s5):
    """Per past length (columns of ts, the statistic on quiet histories
    with the rise's nights), the c, the tie's width and the gamma that
    alarm S5 of them. Before a cell's onset the nights show nothing: T is
    the same for every quiet history, and the test alarms there at random
    (gamma)."""
    c = np.quantile(ts, 1 - s5, axis=0, method='lower')
    tie = 1e-9 * np.maximum(1, np.abs(c))
    above, at = (ts > c + tie).mean(axis=0), (np.abs(ts - c) <= tie).mean(axis=0)
    gamma = np.where(at > 0, np.clip((s5 - above) / np.where(at > 0, at, 1), 0, 1), 0)
    return c, tie, gamma


def run_alarms(s, tq, c, tie, gamma):
    """The false alarms per 1,000 judged nights that the test (statistic
    tq, per history and past length) starts at the runs of the modes s,
    and their standard error."""
    alarmed = (tq > c + tie) + gamma * (np.abs(tq - c) <= tie)
    count = np.zeros(s.shape[0])
    for t in range(max(QUIET, 2), NIGHTS - 1):
        starts = ~s[:, t - 2] & ~s[:, t - 1] & s[:, t] & s[:, t + 1]
        count += starts * alarmed[:, t - 1]
    per = 1000 / (NIGHTS - JUDGED_FROM + 1)
    return count.mean() * per, count.std(ddof=1) / math.sqrt(s.shape[0]) * per


def one_gate(rng, quiet_z, nq, cells, r, s5, k=4, prior=None):
    """One gate for every cell of `cells` (share, gap, run, onset) at noise
    r: the Neyman-Pearson test of the 5% rise against the cells' runs
    together, each cell weighted alike. Of all gates that keep the 5% row,
    it gives the least false alarms summed over the cells, where the
    oracle of cell() may be another gate in each cell. Only the 5% row is
    asked (by the run's second night): fewer constraints, a lower bound
    still. The run's two nights enter by their sum y alone (their squares
    are alike in every term), and for a quiet history the threshold is set
    on k draws of y each. Returns the false alarms per 1,000 judged nights
    of each cell, and their standard errors. With `prior`, the gate
    weighs those cells' runs instead (alike), and is judged on `cells`:
    no bound then, a gate that knows less."""
    sigma = bound.night_sigma(r)
    models = prior or cells
    gs = [math.log(f) for _, f, _, _ in models]
    lw = run_weights(models)

    def stat(x):
        return np.cumsum(-0.5 * (x / sigma) ** 2, axis=1)

    def t_of(st, ff, y):
        # log dP/dQ at past length t (columns), y the run's two nights' sum
        num = st + (RISE * y - RISE * RISE) / sigma ** 2
        den = np.full(y.shape, -np.inf)
        for m, g in enumerate(gs):
            den = np.logaddexp(den, ff[m] + lw[m] + (g * y - g * g) / sigma ** 2)
        return num - den

    x = quiet_z * sigma
    st, ff = stat(x), [joint_ff(x, p, run, onset, sigma, math.log(f)) for p, f, run, onset in models]
    ts = []
    for _ in range(k):
        y = rng.standard_normal(x.shape) * sigma * math.sqrt(2) + 2 * RISE
        ts.append(t_of(st, ff, y))
    c, tie, gamma = gate_threshold(np.concatenate(ts), s5)
    out = []
    for p, f, run, onset in cells:
        s = modes(rng, nq, p, run, onset)
        x = rng.standard_normal((nq, NIGHTS)) * sigma + math.log(f) * s
        st, ff = stat(x), [joint_ff(x, pp, rr, oo, sigma, math.log(gg)) for pp, gg, rr, oo in models]
        y = np.zeros_like(x)
        y[:, :-2] = x[:, 1:-1] + x[:, 2:]
        out.append(run_alarms(s, t_of(st, ff, y), c, tie, gamma))
    return out


def one_gate_band(rng, nq, npq, cells, r, s5, band, ks=5, k=4, prior=None):
    """one_gate for a gate that knows the noise only within a band: each
    history's deviation is drawn log-uniform in [sigma / (1 + band),
    sigma (1 + band)], and the test weighs ks deviations spread over that
    band (log-uniform) in both its terms. Of all gates that keep the 5%
    row on average over the band, it gives the least false alarms on
    average over the band, so any gate that keeps the row at every noise
    in the band gives at least as many at some noise in it. band 0 and
    ks 1: one_gate's test, drawn afresh. With `prior`, as one_gate."""
    sigma0 = bound.night_sigma(r)
    models = prior or cells
    lw = run_weights(models)
    lo, hi = math.log(sigma0 / (1 + band)), math.log(sigma0 * (1 + band))
    grid = [math.exp(lo + (hi - lo) * (i + 0.5) / ks) for i in range(ks)] if band > 0 else [sigma0]
    lwk = -math.log(len(grid))
    tcount = np.arange(1, NIGHTS + 1)

    def draw_sigma(n):
        return np.exp(lo + (hi - lo) * rng.random(n)) if band > 0 else np.full(n, sigma0)

    def stat_t(x, y, q):
        """log dP/dQ at every past length t (columns): x the histories'
        nights (rows), y and q the sum and the sum of squares of the
        run's two nights after night t, of shape (reps, n, NIGHTS)."""
        num = np.full(y.shape, -np.inf)
        den = np.full(y.shape, -np.inf)
        for sg in grid:
            two = -q / (2 * sg * sg) - 2 * math.log(sg)
            st = np.cumsum(-0.5 * (x / sg) ** 2, axis=1) - tcount * math.log(sg)
            num = np.logaddexp(num, lwk + st + two + (RISE * y - RISE * RISE) / sg ** 2)
            for m, (p, f, run, onset) in enumerate(models):
                g = math.log(f)
                ff = joint_ff(x, p, run, onset, sg, g) - tcount * math.log(sg)
                den = np.logaddexp(den, lwk + ff + lw[m] + two + (g * y - g * g) / sg ** 2)
        return num - den

    sq = draw_sigma(npq)[:, None]
    x = rng.standard_normal((npq, NIGHTS)) * sq
    a1 = rng.standard_normal((k, npq, NIGHTS)) * sq + RISE
    a2 = rng.standard_normal((k, npq, NIGHTS)) * sq + RISE
    c, tie, gamma = gate_threshold(stat_t(x, a1 + a2, a1 * a1 + a2 * a2).reshape(k * npq, NIGHTS), s5)
    out = []
    for p, f, run, onset in cells:
        s = modes(rng, nq, p, run, onset)
        x = rng.standard_normal((nq, NIGHTS)) * draw_sigma(nq)[:, None] + math.log(f) * s
        y, q = np.zeros_like(x), np.zeros_like(x)
        y[:, :-2] = x[:, 1:-1] + x[:, 2:]
        q[:, :-2] = x[:, 1:-1] ** 2 + x[:, 2:] ** 2
        out.append(run_alarms(s, stat_t(x, y[None], q[None])[0], c, tie, gamma))
    return out


def arg(a, name, default):
    return (a[a.index(name) + 1] if name in a else default).split()


def shape(p, f, run, onset):
    return '%d%% slow, +%.1f%%, %s, from night %d' % (round(100 * p), 100 * (f - 1), 'independent' if run <= 1 else 'runs of %g' % run, onset)


def main():
    a = sys.argv[1:]
    known = {'--histories', '--quiet', '--runs', '--share', '--gap', '--onset', '--noise', '--also', '--band'}
    flags = {'--smoke', '--family', '--broad'}
    i = 0
    while i < len(a):
        if a[i] in flags:
            i += 1
            continue
        if a[i] not in known or i + 1 >= len(a):
            print('detect-mode-bound.py: %s: not understood (options: %s; %s, each with a value)' % (
                a[i], ', '.join(sorted(flags)), ', '.join(sorted(known))), file=sys.stderr)
            sys.exit(2)
        i += 2
    smoke, family, broad = '--smoke' in a, '--family' in a, '--broad' in a
    if broad and not family:
        print('detect-mode-bound.py: --broad: with --family only', file=sys.stderr)
        sys.exit(2)
    band = None
    if '--band' in a:
        try:
            band = float(arg(a, '--band', '')[0])
        except (ValueError, IndexError):
            band = -1
        if not family or not 0 < band <= 1:
            print('detect-mode-bound.py: --band: with --family only, a factor from 0 to 1 (0.25: within 25%)', file=sys.stderr)
            sys.exit(2)
    nq = int(arg(a, '--histories', '300' if smoke else '1000' if family else '2000')[0])
    npq = int(arg(a, '--quiet', '1000' if smoke else '2000' if family else '5000')[0])
    runs, shares, gaps = ([float(v) for v in arg(a, n, d)] for n, d in (('--runs', '1 3'), ('--share', '0.1 0.3 0.5'), ('--gap', '1.015 1.03 1.05')))
    onsets = [int(v) for v in arg(a, '--onset', '101 1')]
    noises = [float(v) for v in arg(a, '--noise', '0.005 0.01 0.02')]
    fl = {r: (s5, s2) for r, s5, s2 in onset_bound.floors()}
    if any(r not in fl for r in noises):
        print('detect-mode-bound.py: --noise: one of %s' % ' '.join('%g' % r for r in fl), file=sys.stderr)
        sys.exit(2)
    also = {}
    for v in arg(a, '--also', ''):
        # NOISE:K:S, a 5% rise by its K-th night (3 or more) with chance S
        try:
            r, k, sv = v.split(':')
            r, k, sv = float(r), int(k), float(sv)
        except ValueError:
            r = k = sv = None
        if r not in fl or k is None or k < 3 or not 0 < sv < 1:
            print('detect-mode-bound.py: --also %s: not NOISE:K:S (NOISE one of %s, K 3 or more, 0 < S < 1)' % (
                v, ' '.join('%g' % n for n in fl)), file=sys.stderr)
            sys.exit(2)
        also.setdefault(r, []).append((k, sv))
    if also and family:
        print('detect-mode-bound.py: --also: not with --family', file=sys.stderr)
        sys.exit(2)
    rng = np.random.default_rng(7)
    quiet_z = rng.standard_normal((npq, NIGHTS))
    cells = [(p, f, run, onset) for onset in onsets for run in runs for p in shares for f in gaps]
    if family:
        print('The sensitivity asked: a 5%% rise within 2 nights, %s; %d histories a cell, %d quiet ones for the thresholds' % (
            '; '.join('%.1f%% at %.1f%% noise' % (100 * fl[r][0], 100 * r) for r in noises), nq, npq))
        print()
        if band:
            print('Each history\'s noise within a factor %g of the cell\'s, unknown to the gates' % (1 + band))
            print()
        head = '| shape | noise | the oracle of this cell | one gate for the %d cells, per 1,000 nights (se) |' % len(cells)
        if broad:
            head += ' one gate for %d other cells (se) |' % len(BROAD)
        print(head)
        print('|---|---|---|---|' + '---|' * broad)
        for r in noises:
            def gate(cs, prior=None):
                if band:
                    return one_gate_band(rng, nq, npq, cs, r, fl[r][0], band, prior=prior)
                return one_gate(rng, quiet_z, nq, cs, r, fl[r][0], prior=prior)

            one = gate(cells)
            alone = [gate([c])[0] for c in cells]
            wide = gate(cells, BROAD) if broad else []
            for i, c in enumerate(cells):
                row = '| %s | %.1f%% | %.2f (%.2f) | %.2f (%.2f) |' % (shape(*c), 100 * r, alone[i][0], alone[i][1], one[i][0], one[i][1])
                if broad:
                    row += ' %.2f (%.2f) |' % wide[i]
                print(row)
            mean = '| mean over the cells | %.1f%% | %.3f | %.3f |' % (100 * r, sum(w for w, _ in alone) / len(cells), sum(v for v, _ in one) / len(cells))
            if broad:
                mean += ' %.3f |' % (sum(v for v, _ in wide) / len(cells))
            print(mean)
            sys.stdout.flush()
        return
    print('The sensitivity asked (5%% rise within 2 nights, 2%% within 5): %s; %d histories a cell, %d quiet ones for the thresholds' % (
        '; '.join('%.1f%% and %.1f%% at %.1f%% noise' % (100 * fl[r][0], 100 * fl[r][1], 100 * r) for r in noises), nq, npq))
    if also:
        print('and more: %s' % '; '.join('a 5%% rise within %d nights %.1f%% at %.1f%% noise' % (k, 100 * sv, 100 * r)
                                         for r in noises for k, sv in also.get(r, [])))
    print()
    print('| shape | noise | first run | later runs | any gate, per 1,000 nights (se) |' + (' the row that gives it |' if also else ''))
    print('|---|---|---|---|---|' + ('---|' if also else ''))
    for c in cells:
        for r in noises:
            fr, lt, tot, se, v = cell(rng, quiet_z, nq, *c, r, *fl[r], also=also.get(r, []))
            print('| %s | %.1f%% | %.2f | %.2f | %.2f (%.2f) |' % (shape(*c), 100 * r, fr, lt, tot, se) +
                  (' %s |' % rows_asked(also.get(r, []))[v] if also else ''))
            sys.stdout.flush()


if __name__ == '__main__':
    main()
