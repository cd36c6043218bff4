#!/usr/bin/env bash
# slurm-pipeline: the make pipeline against a private Slurm cluster.
#   1. N targets waiting at once under make -jN (default 32): scheduler
#      queries per minute in total (the install tree's queries.log), and the
#      latency from each job's completion (its exit record, written by the
#      job's own trap) to its stamp.
#   2. ASYNC=1 submission of M training jobs (default 200): jobs per second.
# Fails (exit 1) when a make fails, a training is left without its stamp
# or the ASYNC make submits fewer than M jobs.
# Usage: bench/slurm-pipeline.sh [N [M]]   (root, Slurm packages installed)
#        bench/slurm-pipeline.sh --smoke   N=2 jobs of 2 s, M=4: seconds (tests/t-bench.sh)
# BENCH_SLEEP=30 (job length in part 1), LLMB_POLL_SECONDS as in production.
set -u
if [ "${1:-}" = --smoke ]; then set -- 2 4; export BENCH_SLEEP=${BENCH_SLEEP:-2} LLMB_POLL_SECONDS=${LLMB_POLL_SECONDS:-1}; fi
N=${1:-32} M=${2:-200}
TOP=$(cd "$(dirname "$0")/.." && pwd)
TESTS_DIR=$TOP/tests
TRASH=$(mktemp -d /tmp/llmb-bench.XXXXXX)
chmod 755 "$TRASH"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || { echo "slurm-pipeline: skipped: $SLURM_SKIP_REASON"; exit 0; }
export SLURM_CI_CPUS=$((N > 64 ? N : 64)) SLURM_CI_MIN_JOB_AGE=3600
cleanup() { slurm_test_down; rm -rf "$TRASH"; }
fail() { echo "slurm-pipeline: FAILED: $*" >&2; exit 1; }
slurm_test_up || { echo "slurm-pipeline: cluster did not start"; exit 1; }
trap cleanup EXIT
unset SBATCH_ACCOUNT SBATCH_PARTITION ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC

# workload bq: one data task, K sizes with one training each
top() { "$TESTS_DIR/slurm-pipeline/many-sizes.sh" "$1" bq "$2"; }
make -C "$TOP" all >/dev/null || fail "make all"
mk() { local d=$1; shift; make -C "$d" --no-print-directory B="$TOP/build" LLMB_GEN="$d/gen" LLMB_INSTALL="$d/inst" EXECUTOR=slurm WORKLOAD=bq "$@"; }

# ---- 1. N waiting targets ----------------------------------------------------------
A=$TRASH/a
top "$A" "$N"
mk "$A" setup >/dev/null 2>&1 || fail "setup"
: >"$A/inst/state/executor/queries.log"
start=$(date +%s.%N)
SQ_SLEEP=${BENCH_SLEEP:-30} mk "$A" -j"$N" train >"$TRASH/a.out" 2>&1 || { tail "$TRASH/a.out"; fail "make -j$N train"; }
end=$(date +%s.%N)
stamps=$(find "$A/inst/state/done" -name 'train.*' | wc -l)
[ "$stamps" = "$N" ] || fail "$stamps of $N trainings stamped"
q=$A/inst/state/executor/queries.log
lat=$(for s in "$A"/inst/state/done/train.*; do
	id=${s##*/}
	job=$(sed -n 's/^job=//p' "$s")
	e=$A/inst/state/jobs/$id/exit.$job
	echo "$(stat -c %.3Y "$s") $(stat -c %.3Y "$e")"
done | awk '{d = $1 - $2; s += d; if (d > m) m = d; n++} END {printf "mean %.1f s, max %.1f s over %d jobs", s / n, m, n}')
awk -v a="$start" -v b="$end" -v n="$N" -v p="${LLMB_POLL_SECONDS:-10}" '
	$2 == "squeue" {sq++} $2 ~ /^sacct/ {sa++}
	END {m = (b - a) / 60; printf "%d targets waiting (make -j%d, poll %s s), %.0f s: %d squeue + %d sacct = %.1f queries/min in total\n",
		n, n, p, b - a, sq, sa, (sq + sa) / m}' "$q"
echo "completion -> stamp latency: $lat"

# ---- 2. ASYNC submission of M jobs ---------------------------------------------------------
B=$TRASH/b
top "$B" "$M"
mk "$B" setup >/dev/null 2>&1 || fail "setup"
mk "$B" -n train >/dev/null 2>&1 # generate the rules outside the timing
scontrol update partitionname=debug state=down >/dev/null 2>&1 || true # queued, not run
start=$(date +%s.%N)
mk "$B" train ASYNC=1 >"$TRASH/b.out" 2>&1 || { tail "$TRASH/b.out"; fail "make train ASYNC=1"; }
end=$(date +%s.%N)
n=$(grep -c 'submitted job' "$TRASH/b.out")
[ "$n" = "$M" ] || { tail "$TRASH/b.out"; fail "ASYNC=1 submitted $n of $M jobs"; }
awk -v a="$start" -v b="$end" -v n="$n" 'BEGIN {printf "ASYNC=1: %d jobs submitted in %.1f s = %.0f jobs/s (make, llmb run and sbatch per job)\n", n, b - a, n / (b - a)}'
tail -n 1 "$TRASH/b.out"
mk "$B" cancel >/dev/null 2>&1
