#!/usr/bin/env bash
# slurm-scale: N tiny training jobs (default 10000) through `make -jJ
# ASYNC=1` (default J=64) on a private Slurm cluster whose MaxJobCount is
# below N (default N/4, MinJobAge 10 s), so the submission must be spread:
#   - submissions per second (mean, peak in any one second) against the
#     throttle setting (LLMB_SUBMIT_RATE, default 10; BENCH_RATES="10 50"
#     runs the submission once per rate on fresh install trees, the last
#     one goes on to the wait);
#   - submissions the controller refused (sbatch failures, and the
#     temporary ones llmb retried), target 0;
#   - then `make -jJ train` collects: controller RPCs per minute during the
#     wait (sdiag, all message types; llmb's own squeue/sacct calls from its
#     query log);
#   - llmb's latency, on J fresh jobs of 5 to 45 s in a second install tree
#     (`make -jJ train`, as a user waits): from each job's end (its exit
#     record, written as the batch script ends) to its stamp, and the
#     controller's RPCs per minute meanwhile. At scale the collector's
#     waiters go in plan order through jobs that ended long before, so the
#     latency is taken here, in the yardstick's own shape;
#   - the yardstick: J per-job pollers (squeue -j ID every LLMB_POLL_SECONDS)
#     on J fresh jobs of 5 to 45 s: their RPCs per minute from sdiag, and the
#     latency from each job's end to the poll that saw it finished.
# Also: the time and peak memory (largest process) of the plan (`make -n
# train`: generation of N configurations) and of the submitting make.
# BENCH_OUT=DIR keeps the logs and the latency samples there.
# BENCH_UP_AT=P holds the partition down until P jobs are pending (default
# MaxJobCount/2): near MaxJobCount, every job after the first P must wait
# for room.
# BENCH_WAIT_SECONDS=S ends the collection after S seconds (the make is
# interrupted as a user would, the jobs left are cancelled): 10,000 jobs
# take over an hour to run on 2 cores, and the figures of the wait need
# only the first minutes of it.
# BENCH_LAT_SLEEP=5 BENCH_LAT_SPREAD=40: the fresh jobs' length, 5 to 45 s.
# Fails (exit 1) when a make fails (the wait's, unless BENCH_WAIT_SECONDS
# cut it), a training is not submitted, the controller refuses one, or a
# latency sample is missing.
# Usage: bench/slurm-scale.sh [N [J]]   (root, Slurm packages installed)
#        bench/slurm-scale.sh --smoke   N=12, J=4 on 2 nodes, jobs of 1 to 3 s, poll 1 s,
#                                       MaxJobCount 40 (no wait for room): seconds (tests/t-bench.sh)
set -u
if [ "${1:-}" = --smoke ]; then
	set -- 12 4
	export BENCH_NODES=${BENCH_NODES:-2} BENCH_MAX_JOB_COUNT=${BENCH_MAX_JOB_COUNT:-40} \
		LLMB_POLL_SECONDS=${LLMB_POLL_SECONDS:-1} BENCH_LAT_SLEEP=${BENCH_LAT_SLEEP:-1} BENCH_LAT_SPREAD=${BENCH_LAT_SPREAD:-2}
fi
N=${1:-10000} J=${2:-64}
LAT_SLEEP=${BENCH_LAT_SLEEP:-5} LAT_SPREAD=${BENCH_LAT_SPREAD:-40}
POLL=${LLMB_POLL_SECONDS:-10}
TOP=$(cd "$(dirname "$0")/.." && pwd)
TESTS_DIR=$TOP/tests
TRASH=$(mktemp -d /tmp/llmb-bench.XXXXXX)
chmod 755 "$TRASH"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || { echo "slurm-scale: skipped: $SLURM_SKIP_REASON"; exit 0; }
MAXJ=${BENCH_MAX_JOB_COUNT:-$((N / 4))}
export SLURM_CI_NODES=${BENCH_NODES:-32} SLURM_CI_CPUS=8 SLURM_CI_MIN_JOB_AGE=10 SLURM_CI_ACCOUNTING=0
export SLURM_CI_EXTRA_CONF="MaxJobCount=$MAXJ
MessageTimeout=60
TCPTimeout=30
SchedulerParameters=batch_sched_delay=0,sched_interval=2,bf_interval=5,defer"
cleanup() {
	# background pollers and makes first: they would sbatch into a cluster
	# that is gone, holding whatever the caller's lock was, forever
	local p
	for p in $(jobs -p); do pkill -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
	slurm_test_down
	[ -n "${BENCH_OUT:-}" ] && mkdir -p "$BENCH_OUT" && cp "$TRASH"/*.out "$TRASH"/*.txt "$BENCH_OUT"/ 2>/dev/null
	rm -rf "$TRASH"
}
fail() { echo "slurm-scale: FAILED: $*" >&2; exit 1; }
slurm_test_up || { echo "slurm-scale: cluster did not start"; exit 1; }
trap cleanup EXIT
trap 'exit 130' INT TERM
unset SBATCH_ACCOUNT SBATCH_PARTITION ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC
export LLMB_POLL_SECONDS=$POLL LLMB_CPU_PARTITION=cpu

# workload bz: one data task, N sizes with one training each
top() { "$TESTS_DIR/slurm-pipeline/many-sizes.sh" "$1" bz "$N"; }
make -C "$TOP" all >/dev/null || fail "make all"
mk() { local d=$1; shift; make -C "$d" B="$TOP/build" LLMB_GEN="$d/gen" LLMB_INSTALL="$d/inst" EXECUTOR=slurm WORKLOAD=bz "$@"; }
# sdiag_rpcs: all RPCs the controller counted since the last reset
sdiag_rpcs() { sdiag 2>/dev/null | awk '/^Remote Procedure Call statistics by message type/ {on = 1; next} /^Remote Procedure Call statistics by user/ {on = 0} on && /count:/ {sub(/.*count:/, ""); s += $1} END {print s + 0}'; }

D=$TRASH/d
top "$D"
# the plan: N configurations generated, and what it says about the limits
/usr/bin/time -o "$TRASH/plan.time" -f '%e %M' make -C "$D" B="$TOP/build" LLMB_GEN="$D/gen" LLMB_INSTALL="$D/inst" \
	EXECUTOR=slurm WORKLOAD=bz -n train >"$TRASH/plan.out" 2>&1
grep '^llmb:' "$TRASH/plan.out"
read -r t m <"$TRASH/plan.time"
echo "plan (make -n train, $N configurations): $t s, largest process $((m / 1024)) MiB"
mk "$D" setup >/dev/null 2>&1 || fail "setup"
echo "cluster: $(scontrol show config | awk '/^MaxJobCount|^MinJobAge|^SLURM_VERSION/ {printf "%s=%s ", $1, $3}')"
# stats: median, p95, max of the numbers on stdin
stats() { sort -g | awk '{v[NR] = $1} END {if (!NR) {print "no samples"; exit} i = int(NR * 0.95 + 0.5); if (i < 1) i = 1; printf "median %.2f s, p95 %.2f s, max %.2f s over %d jobs", v[int((NR + 1) / 2)], v[i], v[NR], NR}'; }
for rate in ${BENCH_RATES:-${LLMB_SUBMIT_RATE:-10}}; do
	rm -rf "$D/inst/state/jobs"/train.* "$D/inst/state/executor/submit.bucket"
	scontrol update partitionname=debug state=down >/dev/null 2>&1 # queued, not run: the queue fills
	(
		sleep 1
		# let the queue drain slowly once it is full, as a busy cluster would
		until [ "$(squeue -h -t pd | wc -l)" -ge "${BENCH_UP_AT:-$((MAXJ / 2))}" ] || [ -e "$TRASH/sub.done" ]; do sleep 1; done
		scontrol update partitionname=debug state=up >/dev/null 2>&1
	) &
	sdiag -r >/dev/null 2>&1
	start=$(date +%s.%N)
	LLMB_SUBMIT_RATE=$rate /usr/bin/time -o "$TRASH/sub.time" -f '%e %M' \
		make -C "$D" B="$TOP/build" LLMB_GEN="$D/gen" LLMB_INSTALL="$D/inst" EXECUTOR=slurm WORKLOAD=bz \
		-k -j"$J" train ASYNC=1 >"$TRASH/sub.out" 2>&1
	rc=$?
	read -r _ m <"$TRASH/sub.time"
	end=$(date +%s.%N)
	touch "$TRASH/sub.done"
	wait
	rm -f "$TRASH/sub.done"
	n=$(grep -c 'submitted job' "$TRASH/sub.out")
	refused=$(grep -c 'submission failed' "$TRASH/sub.out")
	retried=$(grep -c 'failed for now\|was killed by signal' "$TRASH/sub.out")
	waited=$(grep -c 'waiting for room' "$TRASH/sub.out")
	# the controller's own submit times (the completion log keeps purged jobs)
	peak=$(grep -o 'Name=llmb\.train[^ ]* .*SubmitTime=[^ ]*' "$SLURM_TEST_STATE/log/jobcomp.txt" 2>/dev/null |
		sed 's/.*SubmitTime=//' | sort | uniq -c | sort -rn | head -n 1 | awk '{print $1}')
	awk -v a="$start" -v b="$end" -v n="$n" -v r="$rate" -v p="$peak" -v f="$refused" -v t="$retried" -v w="$waited" -v rc="$rc" -v s="$(sdiag_rpcs)" \
		'BEGIN {printf "rate %s/s: %d jobs submitted in %.1f s = %.1f jobs/s, peak %d in one second; refused %d, retried %d, waits for room %d, make rc %d; %.0f RPCs/min\n", r, n, b - a, n / (b - a), p, f, t, w, rc, s / ((b - a) / 60)}'
	echo "submitting make: largest process $((m / 1024)) MiB"
	[ "$rc" = 0 ] || { tail "$TRASH/sub.out"; fail "make -j$J train ASYNC=1 (rate $rate) exited $rc"; }
	[ "$n" = "$N" ] || fail "$n of $N trainings submitted (rate $rate)"
	[ "$refused" = 0 ] || fail "the controller refused $refused submissions (rate $rate)"
done

# ---- the wait: make -jJ train collects every job -------------------------------------------
left=$(squeue -h -t pd,r,cg | wc -l)
sdiag -r >/dev/null 2>&1
QLOG=$D/inst/state/executor/queries.log
q0=$(wc -l <"$QLOG" 2>/dev/null || echo 0)
start=$(date +%s.%N)
# Job control on: the collector gets its own process group and takes
# SIGINT as from a terminal. Without it, a script's background job starts
# with SIGINT ignored, make keeps ignoring it, and with -k it would go on
# starting waiters after each one the signal stopped.
set -m
/usr/bin/time -o "$TRASH/wait.time" -f '%e %M' \
	make -C "$D" B="$TOP/build" LLMB_GEN="$D/gen" LLMB_INSTALL="$D/inst" EXECUTOR=slurm WORKLOAD=bz \
	-k -j"$J" train >"$TRASH/wait.out" 2>&1 &
wpid=$!
set +m
cut=
if [ -n "${BENCH_WAIT_SECONDS:-}" ]; then
	# by the clock: a loaded machine stretches each `sleep 1`
	until_s=$((SECONDS + BENCH_WAIT_SECONDS))
	while [ "$SECONDS" -lt "$until_s" ] && kill -0 "$wpid" 2>/dev/null; do sleep 1; done
	if kill -0 "$wpid" 2>/dev/null; then
		cut=" (interrupted after ${BENCH_WAIT_SECONDS} s)"
		kill -INT -- "-$wpid" 2>/dev/null
	fi
fi
wait "$wpid"
rc=$?
end=$(date +%s.%N)
rpcs=$(sdiag_rpcs)
if [ -n "$cut" ]; then
	# nothing more starts while thousands are cancelled one RPC each
	scontrol update partitionname=debug state=down >/dev/null 2>&1
	scancel -u "$(id -un)" >/dev/null 2>&1
	scontrol update partitionname=debug state=up >/dev/null 2>&1
fi
read -r _ m <"$TRASH/wait.time"
llmbq=$(tail -n +"$((q0 + 1))" "$QLOG" | wc -l)
awk -v a="$start" -v b="$end" -v s="$rpcs" -v rc="$rc" -v p="$POLL" -v j="$J" -v q="$llmbq" -v l="$left" -v c="$cut" \
	'BEGIN {printf "wait (make -j%d train, LLMB_POLL_SECONDS=%s, %d jobs left): %.0f s%s, make rc %d, %d RPCs = %.0f RPCs/min (llmb queries %d = %.1f/min)\n", j, p, l, b - a, c, rc, s, s / ((b - a) / 60), q, q / ((b - a) / 60)}'
echo "collecting make: largest process $((m / 1024)) MiB"
[ -n "$cut" ] || [ "$rc" = 0 ] || { tail "$TRASH/wait.out"; fail "the collecting make exited $rc"; }

# ---- llmb on J fresh jobs: make -jJ train waits on them ------------------------------------------
# The same jobs as the yardstick's (5 to 45 s each, SQ_SLEEP_SPREAD), in a
# second install tree of J sizes; each latency from the job's exit record
# to its stamp.
L=$TRASH/l
"$TESTS_DIR/slurm-pipeline/many-sizes.sh" "$L" bz "$J"
mk "$L" setup >/dev/null 2>&1 || fail "setup of the latency tree"
sdiag -r >/dev/null 2>&1
lstart=$(date +%s.%N)
SQ_SLEEP=$LAT_SLEEP SQ_SLEEP_SPREAD=$LAT_SPREAD mk "$L" -j"$J" train >"$TRASH/fresh.out" 2>&1
rc=$?
lend=$(date +%s.%N)
for s in "$L"/inst/state/done/train.*; do
	id=${s##*/}
	job=$(sed -n 's/^job=//p' "$s")
	e=$L/inst/state/jobs/$id/exit.$job
	[ -e "$e" ] && echo "$(stat -c %.3Y "$s") $(stat -c %.3Y "$e")"
done | awk '{print $1 - $2}' >"$TRASH/latency.txt"
awk -v a="$lstart" -v b="$lend" -v s="$(sdiag_rpcs)" -v j="$J" -v p="$POLL" -v rc="$rc" \
	-v q="$(wc -l <"$L/inst/state/executor/queries.log")" \
	'BEGIN {printf "llmb: make -j%d train on %d fresh jobs (LLMB_POLL_SECONDS=%s) over %.0f s, make rc %d: %d RPCs = %.0f RPCs/min (llmb queries %d)\n", j, j, p, b - a, rc, s, s / ((b - a) / 60), q}'
echo "llmb job end -> stamp latency: $(stats <"$TRASH/latency.txt")"
[ "$rc" = 0 ] || { tail "$TRASH/fresh.out"; fail "make -j$J train on the fresh jobs exited $rc"; }
[ "$(wc -l <"$TRASH/latency.txt")" = "$J" ] || fail "$(wc -l <"$TRASH/latency.txt") of $J llmb latency samples"

# ---- yardstick: J per-job pollers on J fresh jobs ---------------------------------------------------
# Each job records its end; its poller asks squeue -j every POLL s and
# records when it saw the job finished.
Y=$TRASH/y
mkdir -p "$Y" && chmod 777 "$Y"
sdiag -r >/dev/null 2>&1
ystart=$(date +%s.%N)
for ((i = 0; i < J; i++)); do
	(
		id=$(sbatch --parsable -p debug -o /dev/null --wrap "sleep $((LAT_SLEEP + RANDOM % LAT_SPREAD)); date +%s.%N >$Y/$i.end") || exit
		while :; do
			st=$(squeue -h -j "$id" -o %T 2>/dev/null)
			case $st in PENDING | RUNNING | COMPLETING | CONFIGURING) ;; *) date +%s.%N >"$Y/$i.seen"; exit ;; esac
			sleep "$POLL"
		done
	) &
done
wait
yend=$(date +%s.%N)
for ((i = 0; i < J; i++)); do
	[ -s "$Y/$i.end" ] && [ -s "$Y/$i.seen" ] && echo "$(cat "$Y/$i.seen") $(cat "$Y/$i.end")"
done | awk '{print $1 - $2}' >"$TRASH/latency-pollers.txt"
awk -v a="$ystart" -v b="$yend" -v s="$(sdiag_rpcs)" -v j="$J" -v p="$POLL" \
	'BEGIN {printf "yardstick: %d per-job pollers (squeue -j every %s s) over %.0f s: %d RPCs = %.0f RPCs/min\n", j, p, b - a, s, s / ((b - a) / 60)}'
echo "yardstick job end -> seen latency: $(stats <"$TRASH/latency-pollers.txt")"
[ "$(wc -l <"$TRASH/latency-pollers.txt")" = "$J" ] || fail "$(wc -l <"$TRASH/latency-pollers.txt") of $J yardstick latency samples"
