#!/usr/bin/python3
"""detect-answers.py LLMB DIR: what a user's answers to the false alarms of
two-mode clusters cost, on the series bench/detect-answers.sh wrote
(DIR/series/NOISE/SHAPE/hN.jsonl, each with its seed in DIR/.../seeds).

Each history is judged as cron judges it, night after night; a user
answers every CONFIRMED night as it comes, with `llmb annotate --ack` or
with `llmb annotate --accept-mode` (the real commands, on an install tree
of its own), and the history is judged again after each answer. Counted
per cell: the alarms (confirmed episodes after night 10) nobody answered,
and the answers each way. A second table: regressions that come after the
first answer (DIR/regress/...), the nights until the first CONFIRMED night
from their onset, unanswered and answered with --accept-mode.
"""
import json, multiprocessing, os, shutil, statistics, subprocess, sys

LLMB, ROOT = sys.argv[1], sys.argv[2]
FIRST = 10  # nights judged from (detect-shapes.py's convention)


def judge(inst):
    r = subprocess.run([LLMB, 'judge', '--install', inst, '--format=json'], capture_output=True, text=True)
    if r.returncode not in (0, 1, 3, 4):
        sys.exit('detect-answers.py: llmb judge failed on %s: %s' % (inst, r.stderr.strip()))
    return json.loads(r.stdout)['configurations'][0]


def episodes(states, upto=None):
    """Indices of the first CONFIRMED night of each episode from FIRST on."""
    out, prev = [], False
    for i, s in enumerate(states[:upto]):
        c = s == 'CONFIRMED'
        if i >= FIRST and c and not prev:
            out.append(i)
        prev = c
    return out


def install(src, tag):
    d = src[:-len('.jsonl')] + '.' + tag
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d + '/history')
    fp = json.loads(open(src).readline())['fingerprint']
    shutil.copy(src, '%s/history/%s.jsonl' % (d, fp))
    return d, fp


def answer(inst, fp, how, night):
    subprocess.run([LLMB, 'annotate', '--install', inst, fp, how, night, '--reason', 'answered by the bench'],
                   check=True, capture_output=True)


def answered(src, how, upto=None):
    """A user who answers every CONFIRMED night (up to night index upto)
    with how: (answers, the nights' states after the last)."""
    inst, fp = install(src, how.strip('-'))
    ns = judge(inst)['nights']
    states = [n['state'] for n in ns]
    n_ans, at = 0, FIRST
    while True:
        i = next((k for k in range(at, len(states) if upto is None else min(upto, len(states)))
                  if states[k] == 'CONFIRMED'), None)
        if i is None:
            break
        answer(inst, fp, how, ns[i]['night'])
        n_ans += 1
        states = [n['state'] for n in judge(inst)['nights']]
        at = i + 1
    shutil.rmtree(inst)
    return n_ans, states


def cell_task(args):
    src, = args
    inst, _ = install(src, 'none')
    states = [n['state'] for n in judge(inst)['nights']]
    shutil.rmtree(inst)
    ack, _ = answered(src, '--ack')
    mode, _ = answered(src, '--accept-mode')
    return len(episodes(states)), ack, mode, sum(1 for s in states[FIRST:] if s == 'CONFIRMED')


def regress_task(args):
    """A bimodal history with a regression from night onset (1-based): the
    user answers the alarms before it as modes; nights to the first
    CONFIRMED night from the onset, unanswered and answered (None: never)."""
    src, onset = args
    inst, fp = install(src, 'none')
    states = [n['state'] for n in judge(inst)['nights']]
    shutil.rmtree(inst)

    def delay(st):
        # an episode that starts on or after the onset (one going on from
        # before is a false alarm the regression hides in)
        return next((k - (onset - 1) for k in episodes(st) if k >= onset - 1), None)
    # the answers are made on the nights before the onset only
    n_ans, st = answered(src, '--accept-mode', upto=onset - 1)
    return delay(states), delay(st), n_ans


def files(sub):
    base = os.path.join(ROOT, sub)
    out = []
    if not os.path.isdir(base):
        return out
    for noise in sorted(os.listdir(base), key=float):
        for shape in sorted(os.listdir(os.path.join(base, noise))):
            d = os.path.join(base, noise, shape)
            out.append((noise, shape, sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith('.jsonl'))))
    return out


def describe(shape):
    if shape == 'stationary':
        return shape
    _, p, f, run, onset = shape.split(':')[:5]
    s = '%d%% slow, +%.1f%%, %s, %s' % (round(float(p) * 100), (float(f) - 1) * 100,
                                     'independent' if run == '1' else 'runs of ' + run,
                                     'from the first night' if onset == '1' else 'from night ' + onset)
    return s


def main():
    cells = files('series')
    regs = files('regress')
    with multiprocessing.Pool(int(os.environ.get('ANSWERS_JOBS', '2'))) as pool:
        res = pool.map(cell_task, [(f,) for _, _, fs in cells for f in fs], chunksize=1)
        rres = pool.map(regress_task, [(f, int(shape.rsplit(':', 1)[1])) for _, shape, fs in regs for f in fs],
                        chunksize=1)
    # an answered alarm is one CONFIRMED night (the next judges it OK);
    # one nobody answers stays CONFIRMED while its episode goes on, and
    # the gate sees no other regression there
    print('| noise | shape | histories | alarms, nobody answering | their CONFIRMED nights | answers, --ack | answers, --accept-mode | --ack / --accept-mode |')
    print('|---|---|---|---|---|---|---|---|')
    k = 0
    tot = [0, 0, 0, 0]
    for noise, shape, fs in cells:
        r = res[k:k + len(fs)]
        k += len(fs)
        a, b, c, d = (sum(x[i] for x in r) for i in range(4))
        if shape != 'stationary':
            tot = [tot[0] + a, tot[1] + b, tot[2] + c, tot[3] + d]
        print('| %.1f%% | %s | %d | %d | %d | %d | %d | %s |' % (float(noise) * 100, describe(shape), len(fs), a, d, b, c,
                                                              '%.2f' % (b / c) if c else '-'))
    print('(bimodal cells: %d alarms nobody answered, CONFIRMED on %d nights; %d answers with --ack, %d with --accept-mode, %s times as many)'
          % (tot[0], tot[3], tot[1], tot[2], '%.2f' % (tot[1] / tot[2]) if tot[2] else '-'))
    if not regs:
        return
    print()
    print('| noise | shape, then a regression | histories | answers before it | confirmed within 10 nights: unanswered / answered as modes | median nights to it: unanswered / answered |')
    print('|---|---|---|---|---|---|')
    k = 0
    for noise, shape, fs in regs:
        r = rres[k:k + len(fs)]
        k += len(fs)
        base, f_reg, onset = shape.rsplit(':', 2)
        inf = 10 ** 6

        def med(v):
            # the lower median: one never confirmed is no number to average
            m = statistics.median_low([x if x is not None else inf for x in v])
            return 'never' if m >= inf else '%.0f' % m
        print('| %.1f%% | %s; +%.0f%% from night %s | %d | %d | %d / %d | %s / %s |' % (
            float(noise) * 100, describe(base), (float(f_reg) - 1) * 100, onset, len(fs), sum(x[2] for x in r),
            sum(1 for x in r if x[0] is not None and x[0] < 10), sum(1 for x in r if x[1] is not None and x[1] < 10),
            med([x[0] for x in r]), med([x[1] for x in r])))


main()
