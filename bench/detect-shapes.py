#!/usr/bin/python3
"""detect-shapes.py SERIES [NIGHTS] [--verdicts=V] [--from=N]: the table of
bench/detect-shapes.sh from the series it wrote (SERIES/NOISE/SHAPE/NAME.jsonl)
and their per-night verdicts (NAME.json; with --verdicts=V, NAME.V.json,
which `bench/detect-rejudge.sh DIR V BIN --KNOB=VALUE...` writes). False alarms are counted as bench/detect-table.py counts them:
confirmed episodes (a CONFIRMED night after one that was not) per 1,000
nights judged after night 10 (with --from=N, from night N on: the nights
of a history past its first weeks). Their 95% interval is the exact (Garwood)
Poisson interval of the episode count: episodes of one history are not
quite independent, so it is a little narrow. Rows worst first. Beside
each bimodal cell, the false alarms any gate that keeps the sensitivity
rows must give there (bench/detect-onset-bound.py: its first run of slow
nights after 30 quiet ones), where that floor is known.
"""
import collections, importlib.util, json, math, os, re, sys

_spec = importlib.util.spec_from_file_location('onset', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'detect-onset-bound.py'))
onset_bound = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(onset_bound)
FLOORS = {r: (s5, s2) for r, s5, s2 in onset_bound.floors()}

def episodes(ns, onset):
    # (episodes, judged nights, CONFIRMED nights, longest, alarmed in the
    # 30 nights from the onset, episodes and judged nights after those 30)
    ep = judged = conf = longest = run = late = late_n = 0
    at_onset = False
    for i, n in enumerate(ns):
        if i < FROM - 1: continue
        judged += 1
        after = onset > 1 and i >= onset + 29
        late_n += after
        if n['state'] == 'CONFIRMED':
            if not run:
                ep += 1
                late += after
                at_onset |= onset > 1 and onset - 1 <= i < onset + 29
            run += 1; conf += 1; longest = max(longest, run)
        else:
            run = 0
    return ep, judged, conf, longest, at_onset, late, late_n

def poisson_cdf(k, lam):
    if lam <= 0: return 1.0
    t = s = math.exp(-lam)
    for j in range(1, k + 1):
        t *= lam / j; s += t
    return s

def interval(k):
    # exact 95% interval of a Poisson mean, k observed: bisection
    def solve(f):
        lo, hi = 0.0, 10.0 * k + 10
        for _ in range(200):
            mid = (lo + hi) / 2
            if f(mid): lo = mid
            else: hi = mid
        return lo
    low = 0.0 if k == 0 else solve(lambda m: 1 - poisson_cdf(k - 1, m) < 0.025)
    return low, solve(lambda m: poisson_cdf(k, m) > 0.025)

# --verdicts=V once, V as bench/detect-rejudge.sh names them (it becomes
# part of a file name); any other flag is refused
args, tag, FROM = [], '', None
for a in sys.argv[1:]:
    if a.startswith('--verdicts=') and not tag and re.fullmatch(r'[a-z][a-z0-9_]*', a[len('--verdicts='):]):
        tag = '.' + a[len('--verdicts='):]
    elif a.startswith('--from=') and FROM is None and re.fullmatch(r'[1-9][0-9]*', a[len('--from='):]):
        FROM = int(a[len('--from='):])
    elif a.startswith('-'):
        sys.stderr.write('detect-shapes.py: %s: not --verdicts=NAME (once; a lower-case letter, then letters, digits or _) nor --from=N (once; N from 1)\n' % a)
        sys.exit(2)
    else:
        args.append(a)
FROM = FROM or 11
if not 1 <= len(args) <= 2:
    sys.stderr.write('usage: detect-shapes.py SERIES [NIGHTS] [--verdicts=NAME] [--from=N]\n')
    sys.exit(2)
root = args[0]
LEN = int(args[1]) if len(args) > 1 else onset_bound.NIGHTS  # nights a history
rows = []
for r in sorted(os.listdir(root), key=float):
    for shape in sorted(os.listdir(os.path.join(root, r))):
        d = os.path.join(root, r, shape)
        onset = int(shape.split(':')[4]) if shape.startswith('bimodal:') else 1
        tot = [0, 0, 0, 0, 0, 0, 0]; hist = 0
        for f in sorted(os.listdir(d)):
            if not f.endswith('.jsonl'): continue
            f = f[:-len('.jsonl')] + tag + '.json'
            try:
                ns = json.load(open(os.path.join(d, f)))['configurations'][0]['nights']
            except (OSError, ValueError, KeyError, IndexError):
                sys.exit('detect-shapes.py: %s: no verdicts (llmb judge failed on it)' % os.path.join(d, f))
            e = episodes(ns, onset)
            hist += 1
            tot = [tot[0] + e[0], tot[1] + e[1], tot[2] + e[2], max(tot[3], e[3]), tot[4] + e[4], tot[5] + e[5], tot[6] + e[6]]
        if not hist: continue
        rows.append((float(r), shape, hist) + tuple(tot))

def describe(shape):
    if not shape.startswith('bimodal:'): return shape
    _, p, f, k, o = shape.split(':')
    return '%d%% slow, +%.1f%%, %s, %s' % (round(float(p) * 100), (float(f) - 1) * 100,
        'independent' if float(k) <= 1 else 'runs of %s' % k, 'from night 1' if o == '1' else 'from night %s' % o)

def floor(r, shape):
    # per 1,000 judged nights, or None: no floor known for the noise level
    # or the history's length, or no slow mode
    if not shape.startswith('bimodal:') or r not in FLOORS or LEN != onset_bound.NIGHTS or FROM != onset_bound.JUDGED_FROM: return None
    _, p, f, k, o = shape.split(':')
    s5, s2 = FLOORS[r]
    b = onset_bound.cell_bound(float(p), float(f), float(k), int(o), r, s5, s2, onset_bound.NIGHTS)
    return 1000.0 * b / (onset_bound.NIGHTS - onset_bound.JUDGED_FROM + 1)

def rate(x): return 1000.0 * x[3] / max(x[4], 1)
FLOOR = {(x[0], x[1]): floor(x[0], x[1]) for x in rows}  # each cell's, computed once
print('| noise | shape | histories | nights judged | false alarms | per 1,000 nights | 95% interval | CONFIRMED nights / 1,000 | longest | alarmed in 30 nights from the onset | per 1,000 nights after those 30 | any gate at the floor, per 1,000 nights |')
print('|---|---|---|---|---|---|---|---|---|---|---|---|')
for x in sorted(rows, key=lambda x: (-rate(x), x[0], x[1])):
    lo, hi = interval(x[3])
    onset = x[1].startswith('bimodal:') and x[1].split(':')[4] != '1'
    fl = FLOOR[x[0], x[1]]
    print('| %.1f%% | %s | %d | %d | %d | %.2f | %.2f-%.2f | %.1f | %d | %s | %s | %s |' % (
        x[0] * 100, describe(x[1]), x[2], x[4], x[3], rate(x), 1000 * lo / max(x[4], 1), 1000 * hi / max(x[4], 1),
        1000.0 * x[5] / max(x[4], 1), x[6], '%d of %d' % (x[7], x[2]) if onset else '',
        '%.2f' % (1000.0 * x[8] / max(x[9], 1)) if onset else '', '' if fl is None else '%.2f' % fl))
over = [x for x in sorted(rows, key=lambda x: -rate(x)) if 1000 * interval(x[3])[0] / max(x[4], 1) > 1]
print('(%d cells, %d to %d judged nights each; %d whose whole interval lies above 1 false alarm per 1,000 nights%s)' % (
    len(rows), min(x[4] for x in rows), max(x[4] for x in rows), len(over),
    ': ' + '; '.join('%.1f%% %s' % (x[0] * 100, describe(x[1])) for x in over[:5]) + ('...' if len(over) > 5 else '') if over else ''))
known = [x for x in rows if FLOOR[x[0], x[1]] is not None]
if known:
    beyond = [x for x in over if (FLOOR[x[0], x[1]] or 0) >= 1]
    print('(of those above, %d where any gate at the floor gives 1 or more; over the %d cells with a floor: llmb %.1f false alarms per 1,000 nights in all, the floor %.1f)' % (
        len(beyond), len(known), sum(rate(x) for x in known), sum(FLOOR[x[0], x[1]] for x in known)))
# The sums by noise level: what a change of the verdict moves, level by
# level (the CONFIRMED nights of the bimodal cells alone; a stationary
# row's are its own)
by = sorted({x[0] for x in rows if x[1].startswith('bimodal:')})
if by:
    print('(by noise, over its bimodal cells: ' + '; '.join('%.1f%%: %.1f false alarms per 1,000 nights, %d cells above one, %.1f CONFIRMED nights per 1,000' % (
        r * 100, sum(rate(x) for x in rows if x[0] == r and x[1].startswith('bimodal:')),
        sum(1 for x in over if x[0] == r and x[1].startswith('bimodal:')),
        sum(1000.0 * x[5] / max(x[4], 1) for x in rows if x[0] == r and x[1].startswith('bimodal:'))) for r in by) + ')')
# The sums by run length: the issue asks every run of 1 to 5 nights, and
# a rule tuned on some lengths is read on the others here
runs = collections.defaultdict(list)
for x in rows:
    if x[1].startswith('bimodal:'):
        runs[float(x[1].split(':')[3])].append(x)
if runs:
    print('(by run length, over its bimodal cells: ' + '; '.join('%s: %.1f false alarms per 1,000 nights, %d cells above one, the worst %.2f' % (
        'independent' if k <= 1 else 'runs of %g' % k, sum(rate(x) for x in runs[k]),
        sum(1 for x in runs[k] if x in over), max(rate(x) for x in runs[k])) for k in sorted(runs)) + ')')
