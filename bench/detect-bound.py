#!/usr/bin/python3
"""detect-bound.py: the most any gate can do on the detection bench's
alarm rows, at each noise level, given the goal of at most one false alarm
per 1,000 nights. An oracle knows the old level, the noise and the event's
shape; only its night is unknown. What the oracle cannot reach, no gate
reaches, so a goal above it cannot be met.

The bench's nights (tests/verdict/histgen.c): a night's level is
base x (1 + r g), g standard normal, and its 34 steps add AR(1) noise of 1%
(phi 0.6, started at 0). The steps tell the level to within the inverse of
their Fisher information, (1 + (s-1)(1-phi)^2) / (w^2 (1-phi^2)); with the
night's own noise r the level of a night is known to
    sigma = sqrt(r^2 + w^2 (1-phi^2) / (1 + (s-1)(1-phi)^2))
(relative, to first order in the noise). Nights are independent.

Alarms within k nights of a rise: a gate whose chance of starting a false
alarm on a quiet night is at most alpha = 1/1,000 starts one on any of k
given nights with a chance of at most k alpha. So alarming on one of the
rise's first k nights is a test of size k alpha, and by the Neyman-Pearson
lemma none has more power than the likelihood ratio test of the known rise
against no rise, whose power is Phi(|delta| - z(1 - k alpha)) with |delta|
the rise's length in sigma over those nights (sqrt of the sum of squared
steps, per night ln(factor) / sigma). This assumes the chance is at most
alpha on the rise's own nights, not only on average over a history (a gate
that alarmed less in a history's first weeks could spend more there).

A fix is the same test the other way, under a condition of its own that
is no goal of the bench: a gate that declares a regression that goes on
over at most once per 1,000 of its nights recognises a fix within 2 nights
no more often than a 5% rise within 2 nights. A gate that declares lasting
regressions over more often can do better (printed apart).

The first bad night is no bound, a reference: how often the likeliest
night of a step of known size is right (maximum likelihood, the step's
night equally likely anywhere in the window), by Monte Carlo, once from
the nights up to the rise's second night (22 candidate nights) and once
from ten nights after it (30 candidates, so it can read lower). A rule
that knew where the rise falls would do better; one that names the same
way wherever the step falls, and does not know its size, does not.

Prints one table; asserts nothing. Seeded: the same numbers every run.

    detect-bound.py [--smoke]   (--smoke: 20,000 draws instead of 200,000)
"""
import math
import random
import sys
from statistics import NormalDist

STEPS, PHI, STEP_NOISE, ALPHA = 34, 0.6, 0.01, 0.001
NOISES = (0.005, 0.01, 0.02)
PHI_N = NormalDist()


def night_sigma(r):
    info = (1 + (STEPS - 1) * (1 - PHI) ** 2) / (STEP_NOISE ** 2 * (1 - PHI * PHI))
    return math.sqrt(r * r + 1 / info)


def power(deltas, k):
    """The Neyman-Pearson bound: a rise of these per-night steps (in sigma)
    alarmed within k nights at size k alpha."""
    return PHI_N.cdf(math.sqrt(sum(d * d for d in deltas)) - PHI_N.inv_cdf(1 - k * ALPHA))


def exact(delta, after, draws, rng):
    """The share of steps of delta sigma whose likeliest night is theirs,
    from 20 nights before the step and `after` nights from it on."""
    hit = 0
    before = 20
    for _ in range(draws):
        # log likelihood of the step at night s, up to a constant: the sum
        # from s on of delta (z - delta / 2); the step is at index `before`
        z = [rng.gauss(0, 1) for _ in range(before)] + [rng.gauss(delta, 1) for _ in range(after)]
        # a step lies in the window: the best night, even at odds below 1
        best, at, acc = -math.inf, len(z), 0.0
        for s in range(len(z) - 1, -1, -1):
            acc += delta * (z[s] - delta / 2)
            if acc > best:
                best, at = acc, s
        hit += at == before
    return hit / draws


def main():
    draws = 20000 if '--smoke' in sys.argv[1:] else 200000
    rng = random.Random(7)
    sig = [night_sigma(r) for r in NOISES]
    step5 = [math.log(1.05) / s for s in sig]
    # a 5% rise within 2 nights, and by the same test a fix the other way
    within2 = [power([d] * 2, 2) for d in step5]
    # (name, goal, values, a bound on every gate: its goal counts below)
    rows = [
        ('a night\'s level known to (sigma)', '', ['%.2f%%' % (100 * s) for s in sig], False),
        ('5% rise confirmed within 2 nights', '>= 97%', within2, True),
        ('2% rise confirmed within 5 nights', '>= 65%', [power([math.log(1.02) / s] * 5, 5) for s in sig], True),
        ('drift 0.3%/night confirmed within 10 nights', '>= 91%',
         [power([math.log(1 + 0.003 * k) / s for k in range(1, 11)], 10) for s in sig], True),
        ('fixed 5% regression within 2 nights, at <= 1 false end / 1,000 nights of one', '100%', within2, False),
        ('reference: 5% rise\'s first bad night, likeliest on its 2nd night', '>= 97%',
         [exact(d, 2, draws, rng) for d in step5], False),
        ('  with 10 nights after it', '', [exact(d, 10, draws, rng) for d in step5], False),
    ]
    print('| the most any gate can do, at <= 1 false alarm / 1,000 nights | goal | %s |' %
          ' | '.join('%.1f%% noise' % (100 * r) for r in NOISES))
    print('|---|---|' + '---|' * len(NOISES))
    beyond = []
    for name, goal, vals, bound in rows:
        cells = [v if isinstance(v, str) else '%.1f%%' % (100 * v) for v in vals]
        print('| %s | %s | %s |' % (name, goal, ' | '.join(cells)))
        if bound:
            want = float(goal.split()[-1].rstrip('%')) / 100
            beyond += ['%s at %.1f%% noise (%.1f%%)' % (name.strip(), 100 * r, 100 * v)
                       for r, v in zip(NOISES, vals) if round(100 * v, 1) < 100 * want]
    print('(%d draws per Monte Carlo cell; the fix row holds under its own condition, the reference rows bound no gate)' % draws)
    print('goals no gate can meet: %s' % ('; '.join(beyond) if beyond else 'none'))


if __name__ == "__main__":
    main()
