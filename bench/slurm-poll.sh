#!/usr/bin/env bash
# slurm-poll.sh: scheduler queries per minute for N processes each waiting on
# one Slurm job, with the shared status cache (one cache dir) versus per-job
# polling (every process its own cache dir, so its own squeue). Starts its
# own private cluster (tests/slurm/up.sh) and stops it again.
#
# Fails (exit 1) when a job cannot be submitted, a waiter fails or does not
# see its job complete, or no squeue call is counted.
#
#   BENCH_JOBS=32 BENCH_SECONDS=30 LLMB_POLL_SECONDS=2 bench/slurm-poll.sh
#   bench/slurm-poll.sh --smoke     4 jobs of 3 s, poll 1 s: seconds (tests/t-bench.sh)
set -u
if [ "${1:-}" = --smoke ]; then export BENCH_JOBS=4 BENCH_SECONDS=3 LLMB_POLL_SECONDS=1 LLMB_DRIVER_SLEEP=0.2; fi
top=$(cd "$(dirname "$0")/.." && pwd)
N=${BENCH_JOBS:-32}
DUR=${BENCH_SECONDS:-30}
export LLMB_POLL_SECONDS=${LLMB_POLL_SECONDS:-2}
export LLMB_DRIVER_SLEEP=${LLMB_DRIVER_SLEEP:-0.5}
TRASH=$(mktemp -d /tmp/llmb-bench.XXXXXX) && chmod 755 "$TRASH" || exit 1
# shellcheck source=tests/slurm/testlib.sh
. "$top/tests/slurm/testlib.sh"
slurm_need_packages || { echo "slurm-poll: skipped: $SLURM_SKIP_REASON"; exit 0; }
cleanup() { slurm_test_down; rm -rf "$TRASH"; }
fail() { echo "slurm-poll: FAILED: $*" >&2; exit 1; }
export SLURM_CI_CPUS=$((N * 2))
slurm_test_up || { echo "slurm-poll: cluster did not start" >&2; exit 1; }
trap cleanup EXIT
"$top/tests/slurm/build-driver.sh" "$TRASH/drv" || exit 1
printf '#!/bin/bash\nsleep %s\n' "$DUR" >"$TRASH/job.sh"

# run MODE: N waiters; MODE shared (one cache dir) or perjob (one each).
run() {
	local mode=$1 ids=() pids=() i id start end q
	for ((i = 0; i < N; i++)); do
		id=$("$TRASH/drv" submit bench "$TRASH/job.sh" "$TRASH/job.log" "$TRASH") || fail "submission $i"
		case $id in '' | *[!0-9]*) fail "submission $i gave job id '$id'" ;; esac
		ids+=("$id")
	done
	start=$(date +%s.%N)
	for i in "${!ids[@]}"; do
		if [ "$mode" = shared ]; then c=$TRASH/$mode/cache; else c=$TRASH/$mode/cache$i; fi
		"$TRASH/drv" wait "$c" "${ids[i]}" >>"$TRASH/$mode.states" 2>>"$TRASH/$mode.calls" &
		pids+=($!)
	done
	for id in "${pids[@]}"; do wait "$id" || fail "$mode: a waiter failed"; done
	end=$(date +%s.%N)
	[ "$(grep -c ' COMPLETED exit=0 ' "$TRASH/$mode.states")" = "$N" ] ||
		{ cat "$TRASH/$mode.states" >&2; fail "$mode: not every waiter saw its job complete"; }
	q=$(cat "$TRASH/$mode"/cache*/queries.log | grep -c ' squeue ')
	[ "$q" -gt 0 ] || fail "$mode: no squeue call in the query logs"
	calls=$(sed -n 's/.* \([0-9]*\) query() calls$/\1/p' "$TRASH/$mode.calls" | awk '{s+=$1} END {print s}')
	awk -v m="$mode" -v n="$N" -v q="$q" -v c="$calls" -v a="$start" -v b="$end" -v p="$LLMB_POLL_SECONDS" 'BEGIN {
		printf "%-7s %d waiters, poll %ss, %.1f s: %d query() calls, %d squeue = %.1f squeue/min\n",
			m, n, p, b - a, c, q, q * 60 / (b - a) }'
}
mkdir -p "$TRASH/shared" "$TRASH/perjob"
run shared
run perjob
