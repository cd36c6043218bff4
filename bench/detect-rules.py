#!/usr/bin/python3
"""detect-rules.py [--detect=SERIES[:SERIES...]=NAME] [--shapes=SERIES[=NAME]]:
which rule confirmed what, beside what it cost. Each confirmed episode's
first night names the rule that confirmed it (its confirmed_by); this
counts them by rule:

- on kept bench/detect.sh series (DETECT_KEEP=1; several draws joined by
  ':', pooled), read from NAME.json verdicts (after: the run's own; any
  bench/detect-rejudge.sh name): the share of 5% rises confirmed within 2
  nights, of 2% rises within 5 and of drifts within 10 (as
  bench/detect-table.py counts them), and the false alarms per 1,000
  stationary nights;
- on kept bench/detect-shapes.sh series (SHAPES_KEEP=1), the bimodal
  cells' false alarms: their count, and the sum over the cells of each
  cell's rate per 1,000 judged nights, read from NAME.json verdicts (the
  run's own without =NAME).

A row per noise level and rule, and one for every rule together.
"""
import collections, json, os, re, sys

RULES = ['pair', 'tail', 'ramp', 'change-point', 'resumed', 'streak']
ROWS = (('shift5', 2), ('shift2', 5), ('drift', 10))


def usage():
    sys.stderr.write('usage: detect-rules.py [--detect=SERIES[:SERIES...]=NAME] [--shapes=SERIES[=NAME]]\n')
    sys.exit(2)


detect = shapes = None
for a in sys.argv[1:]:
    m = re.fullmatch(r'--(detect|shapes)=([^=]+?)(?:=([a-z][a-z0-9_]*))?', a)
    if not m or (m.group(1) == 'detect' and not m.group(3)):
        usage()
    val = (m.group(2).split(':'), '.' + m.group(3) if m.group(3) else '')
    if m.group(1) == 'detect':
        detect = val
    else:
        shapes = (m.group(2), val[1])
if not detect and not shapes:
    usage()


def load(path):
    return json.load(open(path))['configurations'][0]['nights']


def confirmed(n):
    return n['state'] == 'CONFIRMED'


def rule_at(ns, i):
    # the rule on the first night of the episode night i is in
    while i > 0 and confirmed(ns[i - 1]):
        i -= 1
    return (ns[i].get('confirmed_by') or {}).get('rule', '?')


def alarms(ns):
    # each confirmed episode after night 10 (bench/detect-table.py's
    # false alarms): its rule; and the nights judged
    out = [rule_at(ns, i) for i in range(10, len(ns)) if confirmed(ns[i]) and not confirmed(ns[i - 1])]
    return out, max(len(ns) - 10, 0)


def event_named(ns, at=30):
    # as bench/detect-table.py: the first CONFIRMED night from the event's
    # with a first bad night at most two nights before it
    for i in range(at, len(ns)):
        fb = ns[i].get('first_bad_index')
        if confirmed(ns[i]) and fb is not None and fb >= at - 2:
            return i
    return None


def files(d, tag):
    if not os.path.isdir(d):
        return []
    return [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith('.jsonl')
            and os.path.exists(os.path.join(d, f[:-6] + tag + '.json'))]


def verdicts(f, tag):
    return load(f[:-6] + tag + '.json')


noises = set()
for root in (detect[0] if detect else []) + ([shapes[0]] if shapes else []):
    if not os.path.isdir(root):
        sys.stderr.write('detect-rules.py: %s: no such directory\n' % root)
        sys.exit(2)
    noises |= {n for n in os.listdir(root) if re.fullmatch(r'[0-9.]+', n)}

head = ['noise', 'rule']
if detect:
    head += ['5% rises within 2', '2% rises within 5', 'drifts within 10', 'stationary false alarms / 1,000 nights']
if shapes:
    head += ['bimodal false alarms', 'their rates summed over the cells']
print('| ' + ' | '.join(head) + ' |')
print('|' + '---|' * len(head))
for noise in sorted(noises, key=float):
    cols = {}
    if detect:
        roots, tag = detect
        for kind, k in ROWS:
            got, tot = collections.Counter(), 0
            for root in roots:
                for f in files(os.path.join(root, noise, kind), tag):
                    ns = verdicts(f, tag)
                    tot += 1
                    i = event_named(ns)
                    if i is not None and i <= 30 + k - 1:
                        got[rule_at(ns, i)] += 1
            cols[kind] = (got, tot)
        st, judged = collections.Counter(), 0
        for root in roots:
            for f in files(os.path.join(root, noise, 'stationary'), tag):
                r, j = alarms(verdicts(f, tag))
                st.update(r)
                judged += j
        cols['stationary'] = (st, judged)
    if shapes:
        root, tag = shapes
        cnt, rate = collections.Counter(), collections.Counter()
        d = os.path.join(root, noise)
        for cell in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not cell.startswith('bimodal:'):
                continue
            c, judged = collections.Counter(), 0
            for f in files(os.path.join(d, cell), tag):
                r, j = alarms(verdicts(f, tag))
                c.update(r)
                judged += j
            cnt.update(c)
            for k, v in c.items():
                rate[k] += 1000 * v / max(judged, 1)
        cols['bimodal'] = (cnt, rate)
    seen = set()
    for c in cols.values():
        seen |= set(c[0])
    for rule in [r for r in RULES if r in seen] + sorted(seen - set(RULES)) + ['all']:
        def n(c):
            return sum(c.values()) if rule == 'all' else c.get(rule, 0)
        row = ['%.1f%%' % (100 * float(noise)), rule]
        if detect:
            for kind, _ in ROWS:
                got, tot = cols[kind]
                row.append('%.1f%%' % (100 * n(got) / tot) if tot else '')
            st, judged = cols['stationary']
            row.append('%.2f' % (1000 * n(st) / judged) if judged else '')
        if shapes:
            cnt, rate = cols['bimodal']
            row += ['%d' % n(cnt), '%.1f' % n(rate)]
        print('| ' + ' | '.join(row) + ' |')
