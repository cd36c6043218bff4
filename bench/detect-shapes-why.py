#!/usr/bin/python3
"""detect-shapes-why.py DIR NOISE/SHAPE...: where the false alarms of
kept bimodal series (SHAPES_KEEP=1 bench/detect-shapes.sh: DIR holds
series/ and histgen) came from. A history's mode of each night is
histgen's mode stream, which the noise leaves alone: the same seed with
no noise gives it. Each false alarm (an episode's first CONFIRMED night
after night 10) is put in one class by the slow nights of the 90 before
its run of slow nights, the regime window's length: absent (under two),
present but under two outside confirmed episodes (their CONFIRMED nights
and the SUSPECT nights just before), or two or more outside them; and
by the rule that confirmed it (the night's confirmed_by).

detect-shapes-why.py DIR --all: the same false alarms over every bimodal
cell, a line per noise level, each in one class by when it came: in the
30 nights from a later onset, on the slow mode's first run since, on a
later run or on a fast night; with a mode from the first night, in the
history's first 60 nights; later, on a slow night with a run of the mode
seen in the 90 nights before (2 nights or more, their mean measured 60%
of the way to the mode's level or beyond, confirmed or not), on one
without, or on a fast night.

With --verdicts=V (before DIR), each series' NAME.V.json verdicts are read
(bench/detect-rejudge.sh DIR V BIN --KNOB=VALUE...) instead of NAME.json.
"""
import collections, json, os, re, subprocess, sys

# --verdicts=V, V as bench/detect-rejudge.sh names them (it becomes part
# of a file name); any other flag but a lone --all after DIR is refused
TAG = ''
if sys.argv[1:2] and sys.argv[1].startswith('--verdicts=') and re.fullmatch(r'[a-z][a-z0-9_]*', sys.argv[1][len('--verdicts='):]):
    TAG = '.' + sys.argv.pop(1)[len('--verdicts='):]
if len(sys.argv) < 3 or sys.argv[1].startswith('-') or (sys.argv[2:] != ['--all'] and any(a.startswith('-') for a in sys.argv[2:])):
    sys.stderr.write('usage: detect-shapes-why.py [--verdicts=NAME] DIR (NOISE/SHAPE... | --all)\n')
    sys.exit(2)
root = sys.argv[1]


def modes(shape, seed, n):
    """histgen's mode stream: each night's level with no noise"""
    out = subprocess.run([os.path.join(root, 'histgen'), '-r', '0', '-w', '0', '-s', '2', '-n', str(n), '-S', seed, shape],
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(l)['summary']['mean'] for l in out.splitlines()]


WHEN = ['onset, first run', 'onset, later run', 'onset, fast night', 'first 60 nights',
        'run seen before', 'no run seen before', 'fast night']


def when_all():
    print('| noise | false alarms | ' + ' | '.join(WHEN) + ' |')
    print('|---|---|' + '---|' * len(WHEN))
    for noise in sorted(os.listdir(os.path.join(root, 'series')), key=float):
        cnt = collections.Counter()
        for shape in sorted(os.listdir(os.path.join(root, 'series', noise))):
            if not shape.startswith('bimodal:'):
                continue
            onset = int(shape.split(':')[4])
            d = os.path.join(root, 'series', noise, shape)
            for line in open(os.path.join(d, 'seeds')):
                name, seed = line.split()
                ns = json.load(open(os.path.join(d, name + TAG + '.json')))['configurations'][0]['nights']
                lv = modes(shape, seed, len(ns))
                fast, top = min(lv), max(lv)
                slow = [x > fast for x in lv]
                runs, i = [], 0
                while i < len(ns):
                    if not slow[i]:
                        i += 1
                        continue
                    s = i
                    while i < len(ns) and slow[i]:
                        i += 1
                    runs.append((s, i))
                seen = [e for s, e in runs if e - s >= 2 and
                        sum(n['mean'] for n in ns[s:e]) / (e - s) >= fast + 0.6 * (top - fast)]
                for i in range(10, len(ns)):
                    if ns[i]['state'] != 'CONFIRMED' or ns[i - 1]['state'] == 'CONFIRMED':
                        continue
                    cnt['all'] += 1
                    if onset > 1 and onset - 1 <= i < onset + 29:
                        first = not any(s >= onset - 1 and e <= i for s, e in runs)
                        cnt[WHEN[2] if not slow[i] else WHEN[0] if first else WHEN[1]] += 1
                    elif onset == 1 and i < 60:
                        cnt[WHEN[3]] += 1
                    elif not slow[i]:
                        cnt[WHEN[6]] += 1
                    else:
                        k = i
                        while k > 0 and slow[k - 1]:
                            k -= 1
                        cnt[WHEN[4] if any(k - 90 <= e <= k for e in seen) else WHEN[5]] += 1
        print('| %s%% | %d | %s |' % (float(noise) * 100, cnt['all'], ' | '.join(str(cnt[w]) for w in WHEN)))


if sys.argv[2:] == ['--all']:
    when_all()
    sys.exit(0)
for cell in sys.argv[2:]:
    shape = cell.split('/', 1)[1]
    onset = int(shape.split(':')[4])
    d = os.path.join(root, 'series', cell)
    cls, rules, tot, second = collections.Counter(), collections.Counter(), 0, 0
    for line in open(os.path.join(d, 'seeds')):
        name, seed = line.split()
        ns = json.load(open(os.path.join(d, name + TAG + '.json')))['configurations'][0]['nights']
        slow = [x > 0.5005 for x in modes(shape, seed, len(ns))]
        conf = [n['state'] == 'CONFIRMED' for n in ns]
        inep = conf[:]
        for x in range(len(ns) - 2, -1, -1):
            inep[x] |= inep[x + 1] and ns[x]['state'] == 'SUSPECT'
        for i in range(10, len(ns)):
            if not conf[i] or conf[i - 1]:
                continue
            tot += 1
            rules[ns[i].get('confirmed_by', {}).get('rule', 'not said')] += 1
            if not slow[i]:
                cls['on a fast night'] += 1
                continue
            k = 0
            while k <= i and slow[i - k]:
                k += 1
            second += k == 2
            win = range(max(0, i - k - 90), i - k)
            seen = sum(slow[x] for x in win)
            free = sum(slow[x] and not inep[x] for x in win)
            if onset > 1 and onset - 1 <= i < onset + 29:
                cls['a slow night, in the 30 nights from the onset'] += 1
            elif seen < 2:
                cls['a slow night, under 2 slow nights in the 90 before its run'] += 1
            elif free < 2:
                cls['a slow night, the slow nights before all but one in confirmed episodes'] += 1
            else:
                cls['a slow night, 2 or more slow nights outside confirmed episodes in the 90 before'] += 1
    print('%s: %d false alarms, %d on the second night of a run of slow nights' % (cell, tot, second))
    order = ['streak', 'pair', 'tail', 'ramp', 'change-point', 'resumed']
    if tot:
        print('  by rule: ' + ', '.join('%s %d' % (r, rules[r]) for r in sorted(rules, key=lambda r: (order + [r]).index(r))))
    for k, v in cls.most_common():
        print('  %4d %3.0f%% %s' % (v, 100.0 * v / max(tot, 1), k))
