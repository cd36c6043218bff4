#!/usr/bin/env bash
# detect-rejudge.sh DIR NAME BIN|otava@P [--KNOB=VALUE...]: judge the series that a
# bench/detect.sh run kept (DETECT_KEEP=1: DIR/series/NOISE/KIND/*.jsonl)
# again with BIN and those policy knobs (the knobs `BIN judge --help`
# lists, each a number), each night as if it were the latest, into
# NAME.json files beside them;
#   bench/detect-table.py DIR/series "0.005 0.01 0.02" "after=x NAME=x"
# then sets its table beside the run's own. The series a
# bench/detect-shapes.sh run kept (SHAPES_KEEP=1) are judged the same way;
#   bench/detect-shapes.py DIR/series --verdicts=NAME
#   bench/detect-shapes-why.py --verdicts=NAME DIR --all
# read those verdicts in place of the run's own. It takes seconds where the
# bench takes minutes (Otava is not run again): the way to measure a
# change of the verdict, or of a policy, on a whole draw.
# BIN otava@P judges them with Otava's analysis at p P instead
# (bench/edivisive.py, no knobs): the issue's floors are Otava's figures at
# the goal's false-alarm budget (p 0.0001), on the same series as llmb's.
set -euo pipefail
if [ $# -lt 3 ]; then echo "usage: $0 DIR NAME BIN|otava@P [--KNOB=VALUE...]" >&2; exit 2; fi
dir=$1 name=$2 bin=$3
shift 3
if ! [[ $name =~ ^[a-z][a-z0-9_]*$ ]]; then echo "$0: NAME '$name': a lower-case letter, then letters, digits or _" >&2; exit 2; fi
if ! [ -d "$dir/series" ]; then echo "$0: $dir/series: no kept series (run bench/detect.sh with DETECT_KEEP=1)" >&2; exit 2; fi
if [[ $bin == otava@* ]]; then
	p=${bin#otava@}
	if ! [[ $p =~ ^0?\.[0-9]*[1-9][0-9]*$ ]]; then echo "$0: '$bin': otava@P with P a decimal fraction under 1 (otava@0.0001)" >&2; exit 2; fi
	if [ $# -gt 0 ]; then echo "$0: '$1': Otava takes no knobs" >&2; exit 2; fi
	find "$dir/series" -name '*.jsonl' -print0 |
		xargs -0 -r -P 2 -n 20 /usr/bin/python3 "$(dirname "$0")/edivisive.py" --p "$p" --tag "$name"
	exit
fi
if ! [ -x "$bin" ]; then echo "$0: $bin: not an executable" >&2; exit 2; fi
# Only knobs go to judge: another flag (--format, --out, --night) would
# change what is written, not how nights are judged.
knobs=$("$bin" judge --help 2>&1 | sed -n 's/^  --\([a-z-]*\)=.*/\1/p')
for a in "$@"; do
	k=${a%%=*} v=${a#*=}
	if [ "$k" = "$a" ] || ! [[ $k =~ ^--[a-z-]+$ ]] || ! grep -qxF -- "${k#--}" <<<"$knobs" ||
		! [[ $v =~ ^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; then
		echo "$0: '$a': not --KNOB=NUMBER with a knob of '$bin judge --help'" >&2
		exit 2
	fi
done
# llmb judge's exit says the latest night's verdict (1 CONFIRMED, 3 an
# invalid or failed night, 4 INCONCLUSIVE); 2 is bad input, and stops this.
# The inner script's $0 is BIN, $1 NAME, then the knobs, and last the
# series (xargs appends it).
# shellcheck disable=SC2016
find "$dir/series" -name '*.jsonl' -print0 | xargs -0 -r -P 2 -n 1 bash -c '
	f=${!#} out=${f%.jsonl}.$1.json rc=0
	"$0" judge --format=json "${@:2:$#-2}" "$f" >"$out.tmp" || rc=$?
	case $rc in 0 | 1 | 3 | 4) mv "$out.tmp" "$out" ;; *) echo "$f: llmb judge exit $rc" >&2; exit 255 ;; esac' "$bin" "$name" "$@"
