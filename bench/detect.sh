#!/usr/bin/env bash
# detect.sh: detection quality of `llmb judge` on generated nightly series
# (tests/verdict/histgen.c: 34 steps a night, step noise 1% AR(1) with phi
# 0.6, run-to-run noise 0.5%, 1% and 2%), and its speed on a 100,000-record
# history. Every night is judged as if it were the latest (the per-night
# states of one --format=json run). Prints one table, with the 95%
# intervals its shares are known to; asserts nothing.
#
#   DETECT_N=K          scales the number of series (default 1)
#   DETECT_SEED=S       the first series' seed less 1 (default 0): draws made
#                       with seeds a million apart share no series (without
#                       it, DETECT_N=2 and DETECT_N=4 judge some of the same
#                       noise, under other events)
#   --smoke, DETECT_SMOKE=1   a few series of each kind and a 10,000-record timing: seconds
#   DETECT_NOISE="..."  run-to-run noise levels (default "0.005 0.01 0.02")
#   DETECT_BEFORE=BIN   also judge every series with BIN (an older llmb), side by side
#   DETECT_POLICY="--knob=v ..."   judge flags
#   DETECT_ALSO="--knob=v ..."     a column "also": this llmb with these flags too
#                       (another point on its curve of false alarms and sensitivity)
#   DETECT_OTAVA=0      leave out the column of Apache Otava's default analysis
#                       (bench/edivisive.py, window 50, p 0.001)
#   DETECT_OTAVA_P="P ..."  its p thresholds, a column each (default 0.001)
#   DETECT_SPEED_ONLY=1, DETECT_SKIP_SPEED=1, DETECT_KEEP=1 (keep the series:
#                       bench/detect-rejudge.sh judges them again with another
#                       llmb in seconds, bench/detect-table.py sets it beside)
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
[ -n "${DETECT_ALSO:-}" ] && BINS="$BINS also=$LLMB"
# counts: long stationary series (and lasting rises), then events at night
# 31 after 30 quiet nights
if [ -n "${DETECT_SMOKE:-}" ]; then LONG=2 EV=10 SPEEDCFG=10; else LONG=$((40 * K)) EV=$((150 * K)) SPEEDCFG=100; fi
NOISE_STEP="-w 0.01 -a 0.6 -s 34"

# series NOISE KIND COUNT NIGHTS EVENT...: one history per seed. Every
# kind has its own seeds: no two series share their noise.
SEED=${DETECT_SEED:-0}
case $SEED in '' | *[!0-9]*) echo "detect.sh: DETECT_SEED=$SEED: not a number" >&2; exit 2 ;; esac
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
	# regressions that last, 120 nights after the rise (after the others:
	# their seeds, and so their series, stay those of earlier tables)
	for r in $NOISES; do
		series "$r" lasting5 "$LONG" 150 shift:31:1.05
		series "$r" lasting2 "$LONG" 150 shift:31:1.02
	done
	# run-to-run noise that doubles at night 151 (a shared partition, a
	# noisier fabric) and no change of level; last, for the same reason
	for r in $NOISES; do
		series "$r" noisier "$LONG" 300 noisier:151:2
	done
	# rises in a young history, after 15 quiet nights: a gate that is
	# stricter while it knows few nights pays here
	for r in $NOISES; do
		series "$r" young5 "$EV" 25 shift:16:1.05
		series "$r" young2 "$EV" 25 shift:16:1.02
	done
	# rises after 150 quiet nights: what a gate learns from a long history
	# (its modes, the two-mode chain of up to 180 nights) must not cost it
	# there what the rows above ask after 30
	for r in $NOISES; do
		series "$r" late5 "$EV" 160 shift:151:1.05
		series "$r" late2 "$EV" 165 shift:151:1.02
		series "$r" latedrift "$EV" 165 drift:151:0.003
	done
	# a 5% rise with its second night 50% slow (a node that failed, a
	# stalled file system), and a 5% rise 40 nights after one night at its
	# level, or after two (40 and 20 nights before it): what a gate does
	# with far nights must not hide a rise (last, for the same reason)
	for r in $NOISES; do
		series "$r" broken5 "$EV" 45 shift:31:1.05 spike:32:1.5
		series "$r" seen5 "$EV" 100 spike:31:1.05 shift:71:1.05
		series "$r" twice5 "$EV" 100 spike:31:1.05 spike:51:1.05 shift:71:1.05
	done
	# a 5% improvement, then a 5% rise 15 or 30 nights after it (back to
	# the old level): a gate that waits before it takes an improvement as
	# the new level must still see the next regression (last, as above)
	for r in $NOISES; do
		series "$r" gained15 "$EV" 60 shift:31:0.95 shift:46:1.0526316
		series "$r" gained30 "$EV" 75 shift:31:0.95 shift:61:1.0526316
	done
	# a 5% rise in a young history after one night at its level (night 8
	# of its 15 quiet nights): what a gate learns from a young history's
	# far nights (young_sep) is paid here (last, as above)
	for r in $NOISES; do
		series "$r" youngseen5 "$EV" 25 spike:8:1.05 shift:16:1.05
	done
	for b in $BINS; do
		pol=$POLICY
		[ "${b%%=*}" = also ] && pol="$POLICY $DETECT_ALSO"
		find "$W/series" -name '*.jsonl' | sed 's/\.jsonl$//' |
			xargs -P 2 -I{} sh -c '"$1" judge --format=json $2 "$3.jsonl" >"$3.${4}.json" 2>/dev/null' _ "${b#*=}" "$pol" {} "${b%%=*}"
	done
	COLS=$BINS
	# the same series through Otava's analysis, night by night: a column
	# "otava" at its default p 0.001, "otava@P" at another
	if [ "${DETECT_OTAVA:-1}" != 0 ] && ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
		echo "(no Otava column: /usr/bin/python3 has no numpy, python3-numpy)"
		DETECT_OTAVA=0
	fi
	[ "${DETECT_OTAVA:-1}" = 0 ] || for p in ${DETECT_OTAVA_P:-0.001}; do
		tag=otava; [ "$p" = 0.001 ] || tag=otava@$p
		find "$W/series" -name '*.jsonl' -print0 |
			xargs -0 -P 2 -n 20 /usr/bin/python3 bench/edivisive.py --p "$p" --tag "$tag" || exit 2
		COLS="$COLS $tag=bench/edivisive.py"
	done
	/usr/bin/python3 bench/detect-table.py "$W/series" "$NOISES" "$COLS" || exit 2
fi

if [ -z "${DETECT_SPEED_ONLY:-}" ]; then
	# The curve any gate on the last nights' mean sits on (1% noise).
	echo "An idealised tail test, and tail and ramp tests together, at 1% noise (bench/detect-ceiling.py):"
	/usr/bin/python3 bench/detect-ceiling.py ${DETECT_SMOKE:+--smoke} || exit 2
	# What no gate can beat: an oracle's bound on every sensitivity row.
	echo "The most any gate can do on the sensitivity rows (bench/detect-bound.py):"
	/usr/bin/python3 bench/detect-bound.py ${DETECT_SMOKE:+--smoke} || exit 2
fi
[ -n "${DETECT_SKIP_SPEED:-}" ] && exit 0
# Speed: SPEEDCFG configurations x 1,000 nights (100,000 records at full size).
mkdir -p "$W/speed/history"
for c in $(seq 1 "$SPEEDCFG"); do "$W/histgen" $NOISE_STEP -r 0.01 -n 1000 -S "$c" -f "tinygpt_cfg$c" >"$W/speed/history/tinygpt_cfg$c.jsonl"; done
# CPU time (user + system) of the best of three: on a busy machine the
# figure to compare; every binary timed in the same run.
for b in $BINS; do
	[ "${b%%=*}" = also ] && continue # the same binary as after
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
