#!/usr/bin/env bash
# detect-young.sh: false alarms of `llmb judge` in a history's first two
# months, on histories from two generators. The detection issue measured
# llmb on 400 histories of 60 nights a case (20,000 judged nights), from a
# generator written from the bench's description alone; bench/detect.sh
# and bench/detect-shapes.sh judge 300-night histories of
# tests/verdict/histgen.c, whose later nights dilute the first weeks'
# alarms, and whose histories the rules were tuned on. This judges both:
#   histgen      tests/verdict/histgen.c (the bench's)
#   histgen2     bench/histgen2.py: log-normal night levels, a night's first
#                step from the AR(1)'s stationary law
#   histgen2i    the same, the AR(1)'s innovations at the step noise (its
#                steps 1.25% apart, not 1%)
# Cases: stationary, and 30% of nights 3% slower (independent), as the
# issue's. Every night is judged as if it were the latest; false alarms
# are confirmed episodes per 1,000 judged nights, from night 11 and from
# night 31 (past the first month), with their exact 95% Poisson interval
# (bench/detect-shapes.py). Asserts nothing.
#
#   YOUNG_N=K           histories a case (default 400; --smoke: 4)
#   YOUNG_NIGHTS=N      nights a history (default 60)
#   YOUNG_SEED=S        the first history's seed less 1 (default 20000000:
#                       disjoint from the other benches' draws)
#   YOUNG_NOISE="..."   run-to-run noise levels (default "0.005 0.01 0.02";
#                       --smoke: 0.01)
#   YOUNG_POLICY="--knob=v ..."   judge flags (each a knob of
#                       `llmb judge --help` with a number; --young-sep=3
#                       weighs the first month's alarms against a rise
#                       after one far night)
#   YOUNG_KEEP=1        keep the series and their verdicts
set -u
SMOKE=
[ "${1:-}" = --smoke ] && SMOKE=1 && shift
[ $# = 0 ] || { echo "detect-young.sh: unknown argument $1 (only --smoke)" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
LLMB=${LLMB:-$PWD/build/llmb}
N=${YOUNG_N:-400} NIGHTS=${YOUNG_NIGHTS:-60} SEED=${YOUNG_SEED:-20000000}
NOISES=${YOUNG_NOISE:-0.005 0.01 0.02}
[ -n "$SMOKE" ] && N=${YOUNG_N:-4} NOISES=${YOUNG_NOISE:-0.01}
for v in "$N" "$NIGHTS" "$SEED"; do
	case $v in '' | *[!0-9]*) echo "detect-young.sh: $v: not a number" >&2; exit 2 ;; esac
done
POLICY=${YOUNG_POLICY:-}
for a in $POLICY; do
	[[ $a =~ ^--[a-z-]+=[0-9]+(\.[0-9]+)?$ ]] || { echo "detect-young.sh: YOUNG_POLICY: '$a': not --KNOB=NUMBER" >&2; exit 2; }
done
if [ "$NIGHTS" -lt 31 ]; then echo "detect-young.sh: YOUNG_NIGHTS=$NIGHTS: 31 or more (nights from 31 are counted apart)" >&2; exit 2; fi
W=$(mktemp -d "${TMPDIR:-/tmp}/llmb-young.XXXXXX")
if [ -n "${YOUNG_KEEP:-}" ]; then echo "series and verdicts in $W"; else trap 'rm -rf "$W"' EXIT; fi
cc -O2 -std=c11 -D_DEFAULT_SOURCE -o "$W/histgen.bin" tests/verdict/histgen.c -lm || exit 2

# Each generator, noise and case has seeds of its own: no two draw the
# same numbers (histgen2 seeds S+1..S+N for a case's histories).
for gen in histgen histgen2 histgen2i; do
	for r in $NOISES; do
		for kind in stationary bimodal:0.3:1.03:1:1; do
			d=$W/$gen/$r/$kind
			mkdir -p "$d"
			ev=
			[ "$kind" = stationary ] || ev=bimodal:0.3:1.03
			case $gen in
			histgen)
				for s in $(seq 1 "$N"); do
					"$W/histgen.bin" -w 0.01 -a 0.6 -s 34 -r "$r" -n "$NIGHTS" -S $((SEED + s)) -f "tinygpt_h$s" ${ev:+"$ev"} >"$d/tinygpt_h$s.jsonl" || exit 2
				done ;;
			*)
				inno=
				[ $gen = histgen2i ] && inno=--innovation
				/usr/bin/python3 bench/histgen2.py --noise "$r" --nights "$NIGHTS" --seed "$SEED" --fingerprint tinygpt \
					--count "$N" --out "$d" ${ev:+--bimodal "${ev#bimodal:}"} ${inno:+"$inno"} || exit 2 ;;
			esac
			SEED=$((SEED + N))
		done
	done
done
# llmb judge's exit says the latest night's verdict (0, 1, 3, 4); 2 is bad
# input, and stops this
# shellcheck disable=SC2016
find "$W" -mindepth 2 -name '*.jsonl' -print0 | xargs -0 -r -P 2 -n 1 bash -c '
	f=$2 rc=0
	# shellcheck disable=SC2086 # the flags, one word each
	"$0" judge --format=json $1 "$f" >"${f%.jsonl}.json" || rc=$?
	case $rc in 0 | 1 | 3 | 4) ;; *) echo "$f: llmb judge exit $rc" >&2; exit 255 ;; esac' "$LLMB" "$POLICY" || exit 1
for gen in histgen histgen2 histgen2i; do
	for from in 11 31; do
		echo
		echo "$gen, $N histories of $NIGHTS nights a case, judged from night $from:"
		/usr/bin/python3 bench/detect-shapes.py "$W/$gen" "$NIGHTS" --from=$from | sed -n '1,/^(/p' | sed '$d' |
			cut -d'|' -f1-9 | sed 's/$/|/' || exit 1
	done
done
