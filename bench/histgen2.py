#!/usr/bin/python3
"""histgen2.py: nightly histories (format v1, one run record a night) from
a second generator, written from the description of the detection bench
(34 steps a night, AR(1) step noise, run-to-run noise, a slow mode on a
share of nights) and not from tests/verdict/histgen.c, whose histories the
rules were tuned on. Where the description leaves a choice open, this one
takes another than histgen's:

  - a night's level is base x exp(R z - R^2 / 2), z normal (log-normal,
    histgen's is base x (1 + R z));
  - a night's first step's noise is drawn from the AR(1)'s stationary
    law (histgen's starts at 0, a quieter first step);
  - --innovation: the AR(1)'s innovations have deviation W, so its steps
    have W / sqrt(1 - phi^2) (1.25% for W 1%, phi 0.6); without it the
    steps have W, as histgen's;
  - slow nights and the noise are drawn from one generator (numpy's PCG64).

    histgen2.py --noise R --nights N --seed S --fingerprint F
                [--bimodal P:F] [--step-noise W] [--ar PHI] [--innovation]
                [--count K --out DIR]

Writes one history to stdout; with --count, K histories with seeds S+1..S+K
into DIR/F_h1.jsonl..DIR/F_hK.jsonl (fingerprints F_h1..F_hK). Seeded: the
same arguments give the same bytes. bench/detect-young.sh judges them
beside histgen's.
"""
import datetime
import json
import sys

import numpy as np


def usage(msg):
    print('histgen2.py: %s' % msg, file=sys.stderr)
    sys.exit(2)


def main():
    opts = {'--noise': None, '--nights': None, '--seed': None, '--fingerprint': None,
            '--bimodal': None, '--step-noise': '0.01', '--ar': '0.6', '--count': None, '--out': None}
    a, innovation = sys.argv[1:], False
    i = 0
    while i < len(a):
        if a[i] == '--innovation':
            innovation = True
            i += 1
        elif a[i] in opts and i + 1 < len(a):
            opts[a[i]] = a[i + 1]
            i += 2
        else:
            usage('%s: not understood (options: %s, --innovation)' % (a[i], ', '.join(opts)))
    for k in ('--noise', '--nights', '--seed', '--fingerprint'):
        if opts[k] is None:
            usage('%s is needed' % k)
    try:
        r, w, phi = float(opts['--noise']), float(opts['--step-noise']), float(opts['--ar'])
        nights, seed = int(opts['--nights']), int(opts['--seed'])
        count = int(opts['--count']) if opts['--count'] else 0
        share, factor = (float(v) for v in opts['--bimodal'].split(':')) if opts['--bimodal'] else (0.0, 1.0)
    except ValueError:
        usage('a value is not a number (--bimodal P:F)')
    fp = opts['--fingerprint']
    if not (r >= 0 and w >= 0 and 0 <= phi < 1 and nights > 0 and 0 <= share <= 1 and factor > 0) or \
            not fp.replace('_', '').replace('-', '').isalnum() or count < 0 or (count > 0) != (opts['--out'] is not None):
        usage('a value is out of range (--count K > 0 and --out DIR together)')
    if not count:
        history(sys.stdout, fp, seed, r, w, phi, innovation, nights, share, factor)
        return
    for h in range(1, count + 1):
        name = '%s_h%d' % (fp, h)
        with open('%s/%s.jsonl' % (opts['--out'], name), 'w') as out:
            history(out, name, seed + h, r, w, phi, innovation, nights, share, factor)


def history(out, fp, seed, r, w, phi, innovation, nights, share, factor):
    rng = np.random.Generator(np.random.PCG64(seed))
    sd = w if innovation else w * np.sqrt(1 - phi * phi)
    steps, base = 34, 0.5
    day = datetime.date(2026, 1, 1)
    for n in range(nights):
        level = base * np.exp(r * rng.standard_normal() - r * r / 2)
        if rng.random() < share:
            level *= factor
        e = rng.standard_normal() * sd / np.sqrt(1 - phi * phi)
        x = np.empty(steps)
        for k in range(steps):
            if k:
                e = phi * e + sd * rng.standard_normal()
            x[k] = level * (1 + e)
        med = float(np.median(x))
        night = (day + datetime.timedelta(days=n)).isoformat()
        rec = {
            'config_hash': 'cfg-1', 'executor': 'local', 'fingerprint': fp,
            'image': {'digest': None, 'ref': 'nvcr.io/nvidia/pytorch:25.01'}, 'invalid': [], 'job': str(1000 + n),
            'key': {'dtype': 'fp32', 'gpu': 'cpu', 'parallel': {'gbs': 8, 'mbs': 4, 'pp': 1, 'seq': 128, 'tp': 1},
                    'scale': 1, 'size': 'tiny', 'workload': 'tinygpt'},
            'llmb_version': '0.9', 'mfu': None, 'night': night, 'nodes': 'localhost',
            'recorded_at': night + 'T03:00:00Z', 'reference': None,
            'samples': [float('%.6g' % v) for v in x], 'status': 'ok',
            'summary': {'mad': float('%.6g' % np.median(np.abs(x - med))), 'mean': float('%.6g' % x.mean()),
                        'median': float('%.6g' % med), 'n': steps, 'std': float('%.6g' % x.std(ddof=1))},
            'tflops_per_gpu': None, 'tokens_per_s': float('%.6g' % (1024 / x.mean())), 'type': 'run', 'v': 1, 'valid': True,
        }
        out.write(json.dumps(rec, sort_keys=True, separators=(',', ':')) + '\n')


if __name__ == '__main__':
    main()
