#!/usr/bin/env bash
# bench/judge-nodes.sh: `llmb judge` on a history whose runs name many
# nodes (the slow-node scores count every node of every judged night).
# NIGHTS nights, each run on NODES nodes (n[1-NODES] and n[2-NODES+1] on
# alternate nights, so each night's list is expanded and looked up), the
# last three nights 30% slower (suspect nodes are named). Prints the wall
# and CPU seconds of the text and the JSON verdicts, and with CALLGRIND=1
# (valgrind installed) the instructions of the text verdict. Fails (exit 1)
# when the judge fails or names no node score.
# Usage:
#   bench/judge-nodes.sh [NODES (65000)] [NIGHTS (30)]
#   bench/judge-nodes.sh --smoke     2,000 nodes, 10 nights
#   LLMB=OTHER/llmb bench/judge-nodes.sh ...   another build (before/after)
set -eu
export LC_ALL=C
if [ "${1:-}" = --smoke ]; then set -- 2000 10; fi
TOP=$(cd "$(dirname "$0")/.." && pwd)
LLMB=${LLMB:-$TOP/build/llmb}
NODES=${1:-65000}
NIGHTS=${2:-30}
W=$(mktemp -d "${TMPDIR:-/tmp}/llmb-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
fail() { echo "judge-nodes.sh: FAILED: $*" >&2; exit 1; }
case $NODES$NIGHTS in *[!0-9]*) echo "usage: $0 [NODES] [NIGHTS] | --smoke" >&2; exit 2 ;; esac
if [ "$NODES" -lt 2 ] || [ "$NODES" -gt 65535 ] || [ "$NIGHTS" -lt 4 ]; then fail "NODES 2 to 65535, NIGHTS 4 or more"; fi

FP=tinygpt_cpu_tiny_fp32_1_0123456789ab
cc -O2 -std=c11 -D_DEFAULT_SOURCE -o "$W/histgen" "$TOP/tests/verdict/histgen.c" -lm || fail "histgen builds"
mkdir -p "$W/inst/history"
"$W/histgen" -f "$FP" -n "$NIGHTS" -S 5 "shift:$((NIGHTS - 2)):1.3" |
	awk -v n="$NODES" '{ a = 1 + NR % 2; sub(/"nodes":"localhost"/, "\"nodes\":\"n[" a "-" a + n - 1 "]\""); print }' \
		>"$W/inst/history/$FP.jsonl"

# run FORMAT: wall and CPU seconds of one judge (its exit: 0 to 4, 2 a failure)
run() {
	local rc=0
	/usr/bin/time -f '%e %U %S' -o "$W/time" "$LLMB" judge --install "$W/inst" --format="$1" --out "$W/out.$1" || rc=$?
	[ "$rc" != 2 ] || fail "llmb judge --format=$1 (exit 2)"
	# the last line: time says a non-zero exit on a line before it
	awk 'END { printf "%.2f s wall, %.2f s CPU", $1, $2 + $3 }' "$W/time"
}
echo "llmb judge, $NIGHTS nights of $NODES nodes: text $(run text); json $(run json)"
grep -q '"node_scores"' "$W/out.json" || fail "no node scores in the JSON"
echo "nodes counted: $(grep -c '"slow_runs_elsewhere"' "$W/out.json") (node scores and suspect nodes)"
if [ "${CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
	valgrind --tool=callgrind --callgrind-out-file="$W/cg" "$LLMB" judge --install "$W/inst" --out "$W/out.cg" >/dev/null 2>&1 || true
	echo "callgrind: $(callgrind_annotate "$W/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { print $1; exit }') instructions (text verdict)"
fi
