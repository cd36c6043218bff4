#!/usr/bin/env bash
# detect.sh: detection quality of `llmb judge` on generated nightly series
# (tests/verdict/histgen.c: run-to-run noise 1%, step noise 1%, AR(1)
# correlated steps), and its speed on a 100,000-record history. Every
# night is judged as if it were the latest. Prints the figures;
# asserts nothing. DETECT_N scales the number of series (default 1).
set -u
cd "$(dirname "$0")/.." || exit 2
LLMB=${LLMB:-$PWD/build/llmb}
W=$(mktemp -d "${TMPDIR:-/tmp}/llmb-detect.XXXXXX")
# DETECT_KEEP=1 keeps the generated series and verdicts for a closer look.
[ -n "${DETECT_KEEP:-}" ] && echo "series and verdicts in $W" || trap 'rm -rf "$W"' EXIT
cc -O2 -std=c11 -D_DEFAULT_SOURCE -o "$W/histgen" tests/verdict/histgen.c -lm || exit 2
K=${DETECT_N:-1}
NOISE="-r 0.01 -w 0.01 -a 0.6 -s 20"

# series KIND COUNT NIGHTS EVENT...: one history per seed, judged night by
# night. Every kind has its own seeds: no two series share their noise.
SEED=0
series() {
	local kind=$1 count=$2 nights=$3 s; shift 3
	mkdir -p "$W/$kind"
	for s in $(seq 1 "$count"); do
		SEED=$((SEED + 1))
		"$W/histgen" $NOISE -n "$nights" -S "$SEED" -f "h$s" "$@" >"$W/$kind/h$s.jsonl"
		"$LLMB" judge --format=json $POLICY "$W/$kind/h$s.jsonl" >"$W/$kind/h$s.json"
	done
}
POLICY=${DETECT_POLICY:-}
# DETECT_SPEED_ONLY=1 skips the detection figures.
if [ -z "${DETECT_SPEED_ONLY:-}" ]; then
series stationary $((20 * K)) 300
series shift5 $((100 * K)) 40 shift:31:1.05
series shift2 $((100 * K)) 40 shift:31:1.02
series spike $((100 * K)) 40 spike:31:1.2
series drift $((50 * K)) 60 drift:31:0.004

/usr/bin/python3 - "$W" <<'PY'
import json, os, sys
w = sys.argv[1]
def nights(kind):
    for f in sorted(os.listdir(os.path.join(w, kind))):
        if f.endswith('.json'):
            m = json.load(open(os.path.join(w, kind, f)))
            yield m['configurations'][0]['nights']
def first_confirmed(ns, after=0):
    for i, n in enumerate(ns):
        if i >= after and n['state'] == 'CONFIRMED':
            return i, n.get('first_bad_index')
    return None, None
# stationary: confirmed episodes (a CONFIRMED night after a non-confirmed one) per 1,000 nights judged after night 10
ep = judged = 0
for ns in nights('stationary'):
    prev = False
    for i, n in enumerate(ns):
        if i < 10: continue
        judged += 1
        c = n['state'] == 'CONFIRMED'
        ep += c and not prev
        prev = c
print(f"false confirmed regressions per 1,000 stationary nights: {1000 * ep / judged:.2f} ({ep} in {judged} nights; target <= 1)")
def share(kind, within, exact=False):
    ok = tot = 0
    for ns in nights(kind):
        tot += 1
        i, fb = first_confirmed(ns, 30)
        if exact:
            ok += i is not None and fb == 30
        else:
            ok += i is not None and i <= 30 + within - 1
    return 100 * ok / tot, tot
p, t = share('shift5', 2); print(f"5% regressions confirmed within 2 nights: {p:.1f}% of {t} (target 99%)")
p, t = share('shift2', 5); print(f"2% regressions confirmed within 5 nights: {p:.1f}% of {t} (target 90%)")
p, t = share('shift5', 10, exact=True); print(f"5% shifts whose first bad night is named exactly: {p:.1f}% of {t} (target 95%)")
sp = sum(first_confirmed(ns, 30)[0] is not None for ns in nights('spike'))
print(f"single-night 20% spikes confirmed: {sp} of {len(list(nights('spike')))} (target 0)")
p, t = share('drift', 30); print(f"0.4%/night drifts confirmed within 30 nights: {p:.1f}% of {t}")
PY
fi

[ -n "${DETECT_SKIP_SPEED:-}" ] && exit 0
# Speed: 100 configurations x 1,000 nights = 100,000 records.
mkdir -p "$W/speed/history"
for c in $(seq 1 100); do "$W/histgen" $NOISE -n 1000 -S "$c" -f "cfg$c" >"$W/speed/history/cfg$c.jsonl"; done
# Wall time and CPU time (user + system) of the best of three: on a busy
# machine the CPU time is the figure to compare.
for k in 1 2 3; do
	/usr/bin/time -f "%e %U %S" -o "$W/time.$k" "$LLMB" judge --install "$W/speed" >/dev/null
done
# (time writes "Command exited with non-zero status N" first when judge
# reports a verdict through its exit status: the figures are the last line)
for k in 1 2 3; do tail -n 1 "$W/time.$k"; done | sort -n | head -1 | {
	read -r wall user sys
	echo "judging 100,000 records ($(du -sh "$W/speed/history" | cut -f1)): $wall s wall, $(echo "$user + $sys" | bc) s CPU (target 0.5 s)"
}
