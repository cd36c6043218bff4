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
"""
import collections, json, os, subprocess, sys

root = sys.argv[1]
for cell in sys.argv[2:]:
    shape = cell.split('/', 1)[1]
    onset = int(shape.split(':')[4])
    d = os.path.join(root, 'series', cell)
    cls, rules, tot, second = collections.Counter(), collections.Counter(), 0, 0
    for line in open(os.path.join(d, 'seeds')):
        name, seed = line.split()
        ns = json.load(open(os.path.join(d, name + '.json')))['configurations'][0]['nights']
        out = subprocess.run([os.path.join(root, 'histgen'), '-r', '0', '-w', '0', '-s', '2', '-n', str(len(ns)), '-S', seed, shape],
                             capture_output=True, text=True, check=True).stdout
        slow = [json.loads(l)['summary']['mean'] > 0.5005 for l in out.splitlines()]
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
