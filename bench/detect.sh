#!/usr/bin/env bash
# detect.sh: detection quality of `llmb judge` on generated nightly series
# (tests/verdict/histgen.c: 34 steps a night, step noise 1% AR(1) with phi
# 0.6, run-to-run noise 0.5%, 1% and 2%), and its speed on a 100,000-record
# history. Every night is judged as if it were the latest (the per-night
# states of one --format=json run). Prints one table; asserts nothing.
#
#   DETECT_N=K          scales the number of series (default 1)
#   --smoke, DETECT_SMOKE=1   a few series of each kind and a 10,000-record timing: seconds
#   DETECT_NOISE="..."  run-to-run noise levels (default "0.005 0.01 0.02")
#   DETECT_BEFORE=BIN   also judge every series with BIN (an older llmb), side by side
#   DETECT_POLICY="--knob=v ..."   judge flags
#   DETECT_SPEED_ONLY=1, DETECT_SKIP_SPEED=1, DETECT_KEEP=1 (keep the series)
set -u
[ "${1:-}" = --smoke ] && DETECT_SMOKE=1
cd "$(dirname "$0")/.." || exit 2
LLMB=${LLMB:-$PWD/build/llmb}
W=$(mktemp -d "${TMPDIR:-/tmp}/llmb-detect.XXXXXX")
[ -n "${DETECT_KEEP:-}" ] && echo "series and verdicts in $W" || trap 'rm -rf "$W"' EXIT
cc -O2 -std=c11 -D_DEFAULT_SOURCE -o "$W/histgen" tests/verdict/histgen.c -lm || exit 2
K=${DETECT_N:-1}
NOISES=${DETECT_NOISE:-0.005 0.01 0.02}
POLICY=${DETECT_POLICY:-}
BINS="after=$LLMB"
[ -n "${DETECT_BEFORE:-}" ] && BINS="before=$DETECT_BEFORE $BINS"
# counts: long stationary series, then events at night 31 after 30 quiet nights
if [ -n "${DETECT_SMOKE:-}" ]; then LONG=2 EV=10 SPEEDCFG=10; else LONG=$((40 * K)) EV=$((150 * K)) SPEEDCFG=100; fi
NOISE_STEP="-w 0.01 -a 0.6 -s 34"

# series NOISE KIND COUNT NIGHTS EVENT...: one history per seed. Every
# kind has its own seeds: no two series share their noise.
SEED=0
series() {
	local r=$1 kind=$2 count=$3 nights=$4 s d; shift 4
	d=$W/series/$r/$kind
	mkdir -p "$d"
	for s in $(seq 1 "$count"); do
		SEED=$((SEED + 1))
		"$W/histgen" $NOISE_STEP -r "$r" -n "$nights" -S "$SEED" -f "tinygpt_h$s" "$@" >"$d/tinygpt_h$s.jsonl"
	done
}
if [ -z "${DETECT_SPEED_ONLY:-}" ]; then
	for r in $NOISES; do
		series "$r" stationary "$LONG" 300
		series "$r" bimodal "$LONG" 300 bimodal:0.3:1.03
		series "$r" shift5 "$EV" 40 shift:31:1.05
		series "$r" shift2 "$EV" 45 shift:31:1.02
		series "$r" drift "$EV" 45 drift:31:0.003
		series "$r" spike "$EV" 40 spike:31:1.2
		series "$r" stall "$EV" 40 stall:31:5:3
		series "$r" faster "$EV" 40 shift:31:0.95
		series "$r" fixed "$EV" 45 shift:31:1.05 shift:36:0.952381
	done
	for b in $BINS; do
		find "$W/series" -name '*.jsonl' | sed 's/\.jsonl$//' |
			xargs -P 2 -I{} sh -c '"$1" judge --format=json $2 "$3.jsonl" >"$3.${4}.json" 2>/dev/null' _ "${b#*=}" "$POLICY" {} "${b%%=*}"
	done
	/usr/bin/python3 - "$W/series" "$NOISES" "$BINS" <<'PY'
import json, os, sys
root, noises, bins = sys.argv[1], sys.argv[2].split(), [b.split('=')[0] for b in sys.argv[3].split()]
def nights(r, kind, b):
    d = os.path.join(root, r, kind)
    for f in sorted(os.listdir(d)):
        if f.endswith('.%s.json' % b):
            yield json.load(open(os.path.join(d, f)))['configurations'][0]['nights']
def confirmed(n): return n['state'] == 'CONFIRMED'
def first_conf(ns, after=30):
    for i, n in enumerate(ns):
        if i >= after and confirmed(n):
            return i, n.get('first_bad_index')
    return None, None
def false_alarms(r, kind, b):
    # confirmed episodes (a CONFIRMED night after one that was not) per 1,000 nights judged after night 10
    ep = judged = 0
    for ns in nights(r, kind, b):
        prev = False
        for i, n in enumerate(ns):
            if i < 10: continue
            judged += 1
            ep += confirmed(n) and not prev
            prev = confirmed(n)
    return 1000 * ep / max(judged, 1)
def false_gains(r, kind, b):
    # confirmed improvements (a night with a first bad night that is not
    # CONFIRMED: a new segment starts there) per 1,000 nights after night 10
    ep = judged = 0
    for ns in nights(r, kind, b):
        for i, n in enumerate(ns):
            if i < 10: continue
            judged += 1
            ep += n.get('first_bad_index') is not None and not confirmed(n)
    return 1000 * ep / max(judged, 1)
def share(r, kind, b, test):
    v = [test(ns) for ns in nights(r, kind, b)]
    return 100 * sum(v) / max(len(v), 1)
def within(k): return lambda ns: (lambda i: i is not None and i <= 30 + k - 1)(first_conf(ns)[0])
def exact(ns):
    i, fb = first_conf(ns)
    return i is not None and i <= 39 and fb == 30
def exact_later(ns):
    # as the tenth night after the rise names it (a confirmed regression
    # keeps being judged: its first bad night is named again)
    return ns[39]['state'] == 'CONFIRMED' and ns[39].get('first_bad_index') == 30
def again(ns):
    # alarmed twice: a confirmed episode that ended and a new one, in the
    # ten nights from the rise
    ep, prev = 0, False
    for n in ns[30:40]:
        ep += confirmed(n) and not prev
        prev = confirmed(n)
    return ep > 1
def any_conf(ns): return first_conf(ns)[0] is not None
def event_conf(ns):
    # the event itself confirmed: an episode that starts in the ten nights
    # after it (confirmed, the night before not) with the event's night or
    # an earlier one as its first bad night (a later first bad night is a
    # false alarm on ordinary nights, and so is an episode already going
    # on when the event came: both are counted above)
    for i, n in enumerate(ns):
        if 30 <= i <= 39 and confirmed(n) and not confirmed(ns[i - 1]):
            fb = n.get('first_bad_index')
            if fb is not None and fb <= 30:
                return True
    return False
def fixed(ns):
    # confirmed before the fix (night 36) and no longer CONFIRMED on the
    # fix's first or second night, nor after it
    i, _ = first_conf(ns)
    if i is None or i >= 35: return None
    j = next((k for k in range(35, len(ns)) if not confirmed(ns[k])), None)
    return j is not None and j <= 36 and not any(confirmed(n) for n in ns[j:])
def share_fixed(r, kind, b):
    v = [x for x in (fixed(ns) for ns in nights(r, kind, b)) if x is not None]
    return 100 * sum(v) / max(len(v), 1)
rows = [
    ('false alarms / 1,000 stationary nights', '<= 1', lambda r, b: false_alarms(r, 'stationary', b), '%.2f'),
    ('false alarms / 1,000 bimodal nights (30% at +3%)', '<= 1', lambda r, b: false_alarms(r, 'bimodal', b), '%.2f'),
    ('improvements confirmed / 1,000 stationary nights', '', lambda r, b: false_gains(r, 'stationary', b), '%.2f'),
    ('5% rise confirmed within 2 nights', '>= 97%', lambda r, b: share(r, 'shift5', b, within(2)), '%.1f%%'),
    ('5% rise: first bad night exact', '>= 97%', lambda r, b: share(r, 'shift5', b, exact), '%.1f%%'),
    ('  as the tenth night names it', '', lambda r, b: share(r, 'shift5', b, exact_later), '%.1f%%'),
    ('  alarmed again after it ended', '', lambda r, b: share(r, 'shift5', b, again), '%.1f%%'),
    ('2% rise confirmed within 5 nights', '>= 65%', lambda r, b: share(r, 'shift2', b, within(5)), '%.1f%%'),
    ('2% rise confirmed within 10 nights', '', lambda r, b: share(r, 'shift2', b, within(10)), '%.1f%%'),
    ('drift 0.3%/night confirmed within 10 nights', '>= 91%', lambda r, b: share(r, 'drift', b, within(10)), '%.1f%%'),
    ('one-night 20% spike confirmed', '<= 1%', lambda r, b: share(r, 'spike', b, event_conf), '%.1f%%'),
    ('  a confirmation in the next 10 nights', '', lambda r, b: share(r, 'spike', b, any_conf), '%.1f%%'),
    ('stall night (3 steps 5x) confirmed', '<= 1%', lambda r, b: share(r, 'stall', b, event_conf), '%.1f%%'),
    ('  a confirmation in the next 10 nights', '', lambda r, b: share(r, 'stall', b, any_conf), '%.1f%%'),
    ('5% faster confirmed as a regression', '<= 1%', lambda r, b: share(r, 'faster', b, event_conf), '%.1f%%'),
    ('  a confirmation in the next 10 nights', '', lambda r, b: share(r, 'faster', b, any_conf), '%.1f%%'),
    ('fixed 5% regression recognised within 2 nights', '100%', lambda r, b: share_fixed(r, 'fixed', b), '%.1f%%'),
]
head = ['case', 'goal'] + ['%s%% %s' % (float(r) * 100, b) for r in noises for b in bins]
print('| ' + ' | '.join(head) + ' |')
print('|' + '---|' * len(head))
for name, goal, f, fmt in rows:
    print('| ' + ' | '.join([name, goal] + [fmt % f(r, b) for r in noises for b in bins]) + ' |')
counts = {k: len(os.listdir(os.path.join(root, noises[0], k))) // (1 + len(bins)) for k in ('stationary', 'shift5')}
print('(%d series of 300 nights per noise level for the false alarms, %d per event)' % (counts['stationary'], counts['shift5']))
PY
fi

if [ -z "${DETECT_SPEED_ONLY:-}" ]; then
	# The curve any gate on the last nights' mean sits on (1% noise).
	echo "An idealised tail test at 1% noise (bench/detect-ceiling.py):"
	/usr/bin/python3 bench/detect-ceiling.py ${DETECT_SMOKE:+--smoke} || exit 2
fi
[ -n "${DETECT_SKIP_SPEED:-}" ] && exit 0
# Speed: SPEEDCFG configurations x 1,000 nights (100,000 records at full size).
mkdir -p "$W/speed/history"
for c in $(seq 1 "$SPEEDCFG"); do "$W/histgen" $NOISE_STEP -r 0.01 -n 1000 -S "$c" -f "tinygpt_cfg$c" >"$W/speed/history/tinygpt_cfg$c.jsonl"; done
# CPU time (user + system) of the best of three: on a busy machine the
# figure to compare; every binary timed in the same run.
for b in $BINS; do
	for k in 1 2 3; do
		/usr/bin/time -f "%e %U %S" -o "$W/time.$k" "${b#*=}" judge --install "$W/speed" >/dev/null
	done
	# (time writes "Command exited with non-zero status N" first when judge
	# reports a verdict through its exit status: the figures are the last line)
	for k in 1 2 3; do tail -n 1 "$W/time.$k"; done | sort -n | head -1 | {
		read -r wall user sys
		echo "${b%%=*}: judging $((SPEEDCFG * 1000)) records ($(du -sh "$W/speed/history" | cut -f1)): $wall s wall, $(echo "$user + $sys" | bc) s CPU (target 0.5 s for 100,000)"
	}
done
