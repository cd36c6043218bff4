#!/usr/bin/env bash
# detect-shapes.sh: false alarms of `llmb judge` on bimodal nightly series of
# every shape a cluster's two modes can take, worst shape first. The series
# are those of bench/detect.sh (tests/verdict/histgen.c: 34 steps a night,
# step noise 1% AR(1) with phi 0.6, 300 nights), with no change of level;
# every night is judged as if it were the latest (the per-night states of
# one --format=json run, as detect.sh judges them), and false alarms are
# confirmed episodes per 1,000 nights judged after night 10, with the exact
# 95% Poisson interval of their count (bench/detect-shapes.py).
# A shape (bimodal:P:F:RUN:ONSET of histgen):
#   share P      of nights in the slow mode (SHAPES_SHARE, "0.1 0.3 0.5")
#   gap F        the slow mode's factor (SHAPES_GAP, "1.015 1.03 1.05")
#   runs RUN     1: each night drawn on its own; more: slow nights in runs
#                of RUN on average (SHAPES_RUN, "1 3"; then SHAPES_MORE_RUN,
#                "2 5": the issue's runs of 2 to 5 nights, drawn after every
#                other cell so that those keep the seeds of earlier draws)
#   onset        1: the slow mode from the first night; N: from night N on, a
#                second mode that appears and lasts (SHAPES_ONSET, "1 101")
# plus a stationary row per noise level (no slow mode), with seeds of its own.
#
#   SHAPES_NIGHTS=N     judged nights per cell at least (default 20000: 69
#                       histories of 290 judged nights; --smoke: one history)
#   SHAPES_SEED=S       the first history's seed less 1 (default 10000000:
#                       disjoint from the draws of docs/history.md)
#   SHAPES_NOISE="..."  run-to-run noise levels (default "0.005 0.01 0.02")
#   SHAPES_POLICY="--knob=v ..."   judge flags
#   SHAPES_KEEP=1       keep the series, their verdicts and seeds (then
#                       bench/detect-shapes-why.py DIR NOISE/SHAPE... says
#                       where each false alarm's slow nights were, and
#                       DIR --all when each came, over every cell;
#                       bench/detect-rejudge.sh judges them again)
#   --smoke             one history per cell, 1% noise, two shapes a factor
set -u
SMOKE=
[ "${1:-}" = --smoke ] && SMOKE=1 && shift
[ $# = 0 ] || { echo "detect-shapes.sh: unknown argument $1 (only --smoke)" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
LLMB=${LLMB:-$PWD/build/llmb}
NIGHTS=${SHAPES_NIGHTS:-20000}
SEED=${SHAPES_SEED:-10000000}
for v in "$NIGHTS" "$SEED"; do
	case $v in '' | *[!0-9]*) echo "detect-shapes.sh: $v: not a number" >&2; exit 2 ;; esac
done
NOISES=${SHAPES_NOISE:-0.005 0.01 0.02}
SHARES=${SHAPES_SHARE:-0.1 0.3 0.5}
GAPS=${SHAPES_GAP:-1.015 1.03 1.05}
RUNS=${SHAPES_RUN:-1 3}
MORE=${SHAPES_MORE_RUN-2 5}
ONSETS=${SHAPES_ONSET:-1 101}
if [ -n "$SMOKE" ]; then
	NIGHTS=1 NOISES=${SHAPES_NOISE:-0.01} SHARES=${SHAPES_SHARE:-0.1 0.5} GAPS=${SHAPES_GAP:-1.015 1.05}
	RUNS=${SHAPES_RUN:-1 3} MORE=${SHAPES_MORE_RUN:-} ONSETS=${SHAPES_ONSET:-1 101}
fi
LEN=300 # nights a history; 290 judged (after night 10)
PER=$(((NIGHTS + LEN - 11) / (LEN - 10)))
W=$(mktemp -d "${TMPDIR:-/tmp}/llmb-shapes.XXXXXX")
if [ -n "${SHAPES_KEEP:-}" ]; then echo "series and verdicts in $W"; else trap 'rm -rf "$W"' EXIT; fi
cc -O2 -std=c11 -D_DEFAULT_SOURCE -o "$W/histgen" tests/verdict/histgen.c -lm || exit 2

# cell NOISE NAME [EVENT]: PER histories, each with a seed of its own
cell() {
	local r=$1 d=$W/series/$1/$2 s; shift 2
	mkdir -p "$d"
	for s in $(seq 1 "$PER"); do
		SEED=$((SEED + 1))
		"$W/histgen" -w 0.01 -a 0.6 -s 34 -r "$r" -n "$LEN" -S "$SEED" -f "tinygpt_h$s" "$@" >"$d/tinygpt_h$s.jsonl" || exit 2
		echo "tinygpt_h$s $SEED" >>"$d/seeds"
	done
}
# bimodal NOISE RUNS: the grid's cells of those runs at that noise (a cell
# drawn already keeps its histories)
bimodal() {
	local p f k o r=$1 runs=$2
	for p in $SHARES; do for f in $GAPS; do for k in $runs; do for o in $ONSETS; do
		[ -d "$W/series/$r/bimodal:$p:$f:$k:$o" ] || cell "$r" "bimodal:$p:$f:$k:$o" "bimodal:$p:$f:$k:$o"
	done; done; done; done
}
for r in $NOISES; do
	cell "$r" stationary
	bimodal "$r" "$RUNS"
done
for r in $NOISES; do bimodal "$r" "$MORE"; done
# shellcheck disable=SC2016
find "$W/series" -name '*.jsonl' | sed 's/\.jsonl$//' |
	xargs -P 2 -I{} sh -c '"$1" judge --format=json $2 "$3.jsonl" >"$3.json" 2>/dev/null' _ "$LLMB" "${SHAPES_POLICY:-}" {}
/usr/bin/python3 bench/detect-shapes.py "$W/series" "$LEN" || exit 2
