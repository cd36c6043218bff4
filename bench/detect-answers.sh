#!/usr/bin/env bash
# detect-answers.sh [--smoke]: what a user's answers to the false alarms of
# two-mode clusters cost. The series are those of bench/detect-shapes.sh
# (tests/verdict/histgen.c, 300 nights, the same shapes); each history is
# judged night after night, a user answers every CONFIRMED night with
# `llmb annotate --ack` or `--accept-mode`, and the answers each way are
# counted beside the alarms nobody answered (bench/detect-answers.py). Then
# regressions after the answers: a lasting rise from night 201 on a
# two-mode history whose earlier alarms were answered as modes, the nights
# until it is confirmed, unanswered and answered.
#   ANSWERS_HISTORIES=N  histories per cell (default 20; --smoke: 1)
#   ANSWERS_SEED=S       the first history's seed less 1 (default 20000000:
#                        disjoint from the draws of docs/history.md)
#   ANSWERS_NOISE="..."  run-to-run noise levels (default "0.005 0.01 0.02")
#   ANSWERS_SHARE, ANSWERS_GAP, ANSWERS_RUN, ANSWERS_ONSET: the shapes
#                        (defaults those of bench/detect-shapes.sh)
#   ANSWERS_RISE="..."   the regressions' factors (default "1.02 1.03 1.06")
#   --smoke              one history per cell, 1% noise, two shapes a factor
set -u
SMOKE=
[ "${1:-}" = --smoke ] && SMOKE=1 && shift
[ $# = 0 ] || { echo "detect-answers.sh: unknown argument $1 (only --smoke)" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
LLMB=${LLMB:-$PWD/build/llmb}
PER=${ANSWERS_HISTORIES:-20}
SEED=${ANSWERS_SEED:-20000000}
for v in "$PER" "$SEED"; do
	case $v in '' | *[!0-9]*) echo "detect-answers.sh: $v: not a number" >&2; exit 2 ;; esac
done
NOISES=${ANSWERS_NOISE:-0.005 0.01 0.02}
SHARES=${ANSWERS_SHARE:-0.1 0.3 0.5}
GAPS=${ANSWERS_GAP:-1.015 1.03 1.05}
RUNS=${ANSWERS_RUN:-1 3}
ONSETS=${ANSWERS_ONSET:-1 101}
RISES=${ANSWERS_RISE:-1.02 1.03 1.06}
REGSHAPES="bimodal:0.1:1.03:3:1 bimodal:0.3:1.05:3:1"
if [ -n "$SMOKE" ]; then
	PER=1 NOISES=${ANSWERS_NOISE:-0.01} SHARES=${ANSWERS_SHARE:-0.1 0.5} GAPS=${ANSWERS_GAP:-1.03 1.05}
	RUNS=${ANSWERS_RUN:-3} ONSETS=${ANSWERS_ONSET:-101} RISES=${ANSWERS_RISE:-1.06} REGSHAPES="bimodal:0.1:1.03:3:1"
fi
[ -x "$LLMB" ] || { echo "detect-answers.sh: $LLMB: not built (make)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/llmb-answers.XXXXXX")
trap 'rm -rf "$W"' EXIT
cc -O2 -std=c11 -D_DEFAULT_SOURCE -o "$W/histgen" tests/verdict/histgen.c -lm || exit 2

# cell DIR NOISE NAME [EVENT...]: PER histories, each with a seed of its own
cell() {
	local d=$W/$1/$2/$3 r=$2 s; shift 3
	mkdir -p "$d"
	for s in $(seq 1 "$PER"); do
		SEED=$((SEED + 1))
		"$W/histgen" -w 0.01 -a 0.6 -s 34 -r "$r" -n 300 -S "$SEED" -f "tinygpt_h$s" "$@" >"$d/h$s.jsonl" || exit 2
		echo "h$s $SEED" >>"$d/seeds"
	done
}
for r in $NOISES; do
	[ -n "$SMOKE" ] || cell series "$r" stationary
	for p in $SHARES; do for f in $GAPS; do for k in $RUNS; do for o in $ONSETS; do
		cell series "$r" "bimodal:$p:$f:$k:$o" "bimodal:$p:$f:$k:$o"
	done; done; done; done
done
for s in $REGSHAPES; do for f in $RISES; do
	cell regress 0.01 "$s:$f:201" "$s" "shift:201:$f"
done; done
/usr/bin/python3 bench/detect-answers.py "$LLMB" "$W" || exit 2
