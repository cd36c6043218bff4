#!/usr/bin/env bash
# t-slurm-limits: a plan larger than the cluster holds, through a real
# Slurm controller with MaxJobCount 30: `make -n` says so, `make -j16
# train ASYNC=1` spreads the 40 trainings (each sbatch waits for room
# under MaxJobCount less llmb's margin of 10) instead of failing halfway,
# the controller refuses none, every submission stays within the shared
# token bucket (LLMB_SUBMIT_RATE=4, LLMB_SUBMIT_BURST=2: at most 6 in any
# second of the controller's own log), and every job runs exactly once. The
# room count comes from an squeue that tests/slurm-limits/bin makes slow
# (3 s), as a controller listing thousands of jobs is: the count is then
# trusted for twice that long after the query ends, so the queries never
# follow each other back to back.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
unset SBATCH_ACCOUNT SBATCH_PARTITION ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC
N=40
export SLURM_CI_NODES=4 SLURM_CI_CPUS=8 SLURM_CI_MIN_JOB_AGE=10 SLURM_CI_ACCOUNTING=0
export SLURM_CI_EXTRA_CONF="MaxJobCount=30"
t_ok "cluster is up (MaxJobCount 30)" slurm_test_up || { t_done; exit 1; }

# workload lz: one data task and N sizes of one training each
T=$TRASH/top
"$TESTS_DIR/slurm-pipeline/many-sizes.sh" "$T" lz $N
export LLMB_POLL_SECONDS=1 LLMB_CPU_PARTITION=cpu LLMB_SUBMIT_RATE=4 LLMB_SUBMIT_BURST=2
export SLOW_SQUEUE_LOG=$TRASH/squeue.log SLOW_SQUEUE_SECONDS=3
make -C "$T" B="$TOP/build" all >/dev/null 2>&1
m() { make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$TRASH/inst" EXECUTOR=slurm WORKLOAD=lz "$@"; }

m -n train >"$TRASH/plan.out" 2>&1
t_ok "make -n says the plan is larger than the cluster holds" \
	grep -q "the plan submits up to 41 jobs, more than this cluster holds at once (MaxJobCount 30," "$TRASH/plan.out"
t_ok "make -n wrote nothing under LLMB_INSTALL (the limits it read are not cached)" test ! -e "$TRASH/inst"
m setup >"$TRASH/setup.out" 2>&1
t_ok "the data job ran" test -e "$TRASH/inst/state/done/data.lz.tokens"

PATH=$TESTS_DIR/slurm-limits/bin:$PATH m -k -j16 train ASYNC=1 >"$TRASH/sub.out" 2>&1
t_ok "make -j16 train ASYNC=1 exits 0" test $? = 0
t_ok "it submitted all $N trainings" test "$(grep -c 'submitted job' "$TRASH/sub.out")" = $N
t_ok "some waited for room (MaxJobCount 30 less a margin of 10)" grep -q 'at the limit .*: waiting for room' "$TRASH/sub.out"
t_ok "the controller refused none" test -z "$(grep -E 'submission failed|failed for now|killed by signal' "$TRASH/sub.out")"
# the controller's own submit times: at most burst + rate in any second
t_ok "never more than 6 submissions in one second (rate 4, burst 2)" test "$(sed -n \
	's/^\[\([0-9T:-]*\)\.[0-9]*\] _slurm_rpc_submit_batch_job: .*/\1/p' "$SLURM_TEST_STATE/log/slurmctld.log" |
	sort | uniq -c | sort -rn | awk 'NR == 1 {print $1}')" -le 6
# room queries (squeue -t all -o "%U %T"): each starts at least twice the
# last one's 3 s after it ended (5 s: llmb counts whole seconds)
awk '$1 == "room" {if (n++ && $2 - end < 5) bad++; end = $3} END {print n + 0, bad + 0}' "$SLOW_SQUEUE_LOG" >"$TRASH/gaps"
read -r nq badq <"$TRASH/gaps"
t_ok "the slow room count was asked for again only after twice its time ($nq queries, $badq too soon)" \
	test "$nq" -ge 2 -a "$badq" = 0

m -k -j16 train >"$TRASH/wait.out" 2>&1
t_ok "make -j16 train collects every training" test $? = 0 -a "$(find "$TRASH/inst/state/done" -name 'train.*' | wc -l)" = $N
# the completion log keeps the jobs the controller purged (MinJobAge 10 s)
t_ok "Slurm ran each training exactly once" test "$(grep -o 'Name=llmb\.train[^ ]*' "$SLURM_TEST_STATE/log/jobcomp.txt" |
	sed 's/\.[0-9a-f]*$//' | sort | uniq -c | awk '$1 == 1' | wc -l)" = $N
t_done
