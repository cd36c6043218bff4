#!/usr/bin/env bash
# t-slurm-pipeline: the make pipeline through a real Slurm cluster, on the
# fast fake workload in tests/slurm-pipeline (and tinygpt, real PyTorch on
# CPU, 2 ranks through srun). Every terminal state is produced for real:
# FAILED with an exit code, TIMEOUT (grouped: one run that never finishes
# and one that printed its last step before the limit killed it),
# CANCELLED by hand; an async pipeline whose upstream fails has its
# dependents cancelled; make killed with SIGKILL while waiting and right
# after sbatch, interrupted with SIGINT, and two makes at once on one
# install tree never submit a stage twice, counted from Slurm's own records
# (squeue -t all, MinJobAge raised above the test's length).
# LLMB_TEST_SLURM_STATE=DIR reuses a running cluster from tests/slurm/up.sh.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
unset SBATCH_ACCOUNT SBATCH_PARTITION SBATCH_GPUS_PER_NODE ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC
export SLURM_CI_CPUS=${SLURM_CI_CPUS:-32} SLURM_CI_MIN_JOB_AGE=${SLURM_CI_MIN_JOB_AGE:-3600}
if [ -z "${SLURM_CI_ACCOUNTING+x}" ] && command -v mariadbd >/dev/null 2>&1; then
	export SLURM_CI_ACCOUNTING=1 # sacct says who cancelled a job
fi
t_ok "cluster is up" slurm_test_up || { t_done; exit 1; }

T=$TRASH/top
t_sq_checkout "$T"
export LLMB_POLL_SECONDS=1 LLMB_CPU_PARTITION=cpu
make -C "$T" B="$TOP/build" all >/dev/null 2>&1
# m NAME ARGS...: make in the sq top dir with install tree $TRASH/i.NAME.
m() {
	local n=$1
	shift
	make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/g.$n" LLMB_INSTALL="$TRASH/i.$n" EXECUTOR=slurm WORKLOAD=sq "$@"
}
# nsub NAME STAGE: how many jobs Slurm ever had for STAGE of install NAME
# (the job's working directory is the install tree).
nsub() {
	squeue -h -t all -o '%Z %j' | awk -v d="$TRASH/i.$1" -v s="llmb.$2." \
		'$1 == d && index($2, s) == 1 {n++} END {print n + 0}'
}
# em VAR=VALUE... NAME ARGS...: m with extra environment (for t_ok and t_rc).
em() (
	while [[ $1 == *=* ]]; do export "${1?}"; shift; done
	m "$@"
)
# squeue_until JOB FORMAT WANT [SECONDS]: squeue -o FORMAT shows WANT. Slurm
# settles states and dependency reasons in its scheduling passes, which may
# lag on a busy test cluster.
squeue_until() {
	local i
	for ((i = 0; i < ${4:-90} * 5; i++)); do
		[ "$(squeue -h -t all -j "$1" -o "$2")" = "$3" ] && return 0
		t_nap 0.2
	done
	return 1
}
rec() { t_job_field "$TRASH/i.$1" "$2" "$3"; }
TR=train.sq.cpu.tiny.fp32

# ---- slow ones in the background: the time limit (60-84 s) and tinygpt ------------
TIME_LIMIT=00:01:00 SQ_MODE=finish-hang m tl report SCALES=1 >"$TRASH/tl.out" 2>&1 &
tl_pid=$!
TIME_LIMIT=00:01:00 SQ_MODE=hang m to report SCALES=1 >"$TRASH/to.out" 2>&1 &
to_pid=$!
make -C "$TOP" LLMB_GEN="$TRASH/g.tiny" LLMB_INSTALL="$TRASH/i.tiny" EXECUTOR=slurm \
	report WORKLOAD=tinygpt >"$TRASH/tiny.out" 2>&1 &
tiny_pid=$!

# ---- FAILED with an exit code ------------------------------------------------------
t_rc "a failing training fails make" 2 em SQ_MODE=fail fail report SCALES=1
cp "$TRASH/.out" "$TRASH/fail.out"
job=$(rec fail $TR.1 job)
t_grep "the failure names job, state, exit code and elapsed time" \
	"job $job \(slurm\), state FAILED, NonZeroExitCode, exit code 7, elapsed 00:00:" "$TRASH/fail.out"
t_grep "and the log path" "log $TRASH/i.fail/workloads/sq/experiments/cpu_tiny_fp32_1/log-sq_cpu_tiny_fp32_1_$job.out" "$TRASH/fail.out"
t_grep "and the log's last lines" "\| sq train: CUDA error" "$TRASH/fail.out"
t_grep "the job's own trap wrote its exit record" "^status=7$" "$TRASH/i.fail/state/jobs/$TR.1/exit.$job"
t_ok "a failed stage writes no stamp" test ! -e "$TRASH/i.fail/state/done/$TR.1"
m fail status SCALES=1 >"$TRASH/fail.status" 2>&1
t_grep "status lists it as failed with its log" "^$TR.1 +failed, job $job, log " "$TRASH/fail.status"
SQ_MODE=ok m fail report SCALES=1 >"$TRASH/fail2.out" 2>&1
t_grep "the next make submits it again" "previous job $job failed; submitting again" "$TRASH/fail2.out"
t_ok "and succeeds: data once, training twice" test "$(nsub fail data.sq.tokens) $(nsub fail $TR.1)" = "1 2"

# ---- CANCELLED by hand -----------------------------------------------------------------
SQ_SLEEP=120 m canc train SCALES=1 >"$TRASH/canc.out" 2>&1 &
mk=$!
t_wait_grep "train sq .*RUNNING" "$TRASH/canc.out" 60
job=$(rec canc $TR.1 job)
# RUNNING comes before the training step has launched: a cancel then can
# miss the step's tasks. Cancel once the training itself has started.
t_wait_grep "^train $TR.1 $job\$" "$TRASH/i.canc/count.train" 60
scancel "$job"
wait "$mk"
t_ok "a training cancelled by hand fails make" test $? != 0
t_grep "the failure says CANCELLED" "job $job \(slurm\), state CANCELLED" "$TRASH/canc.out"
if [ "${SLURM_CI_ACCOUNTING:-0}" = 1 ]; then
	t_grep "and by whom (from accounting)" "state CANCELLED, cancelled by root \(uid 0\)" "$TRASH/canc.out"
fi
t_grep "and what to do" "run make again to submit it again" "$TRASH/canc.out"
# Slurm signals the training step and the batch shell one after the other:
# the shell either gets its SIGTERM or has already exited with the step's
# status. Either way the log shows the cancel.
t_grep "the job's log shows the cancel" \
	"\| (llmb: job $job got SIGTERM|.*STEP $job\.[0-9]+ ON .* CANCELLED AT )" "$TRASH/canc.out"

# ---- SIGINT: jobs keep running; reattach or cancel ------------------------------------------
# Job control on: make gets a process group of its own and SIGINT as from a
# terminal's Ctrl-C (a script's background job would start with SIGINT
# ignored, make included).
set -m
SQ_SLEEP=120 make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/g.int" LLMB_INSTALL="$TRASH/i.int" \
	EXECUTOR=slurm WORKLOAD=sq train SCALES=1 >"$TRASH/int.out" 2>&1 &
mk=$!
set +m
t_wait_grep "train sq .*(PENDING|RUNNING)" "$TRASH/int.out" 60
kill -INT -- -"$mk"
wait "$mk"
rc=$?
# Killed by the signal (130), or GNU make 4.3's own race when the signal
# lands while it waits for the child its handler also reaps ("wait: No
# child processes.  Stop.", exit 2). A make that ignored SIGINT says only
# "Error 130" for its child and exits 2.
t_ok "make itself stopped on the SIGINT (exit $rc, 130 wanted)" \
	sh -c '[ "$1" = 130 ] || { [ "$1" = 2 ] && grep -q "wait: No child processes" "$2"; }' _ "$rc" "$TRASH/int.out"
job=$(rec int $TR.1 job)
t_grep "an interrupted make says the job keeps running and how to reattach or cancel" \
	"interrupted: job $job .* keeps running; run the same make command again to reattach, or .make cancel." "$TRASH/int.out"
t_ok "the job still runs" test "$(squeue -h -j "$job" -o %T)" = RUNNING
m int cancel SCALES=1 >"$TRASH/int.cancel" 2>&1
t_grep "make cancel cancels it" "^cancelled job $job \($TR.1\)" "$TRASH/int.cancel"
t_ok "Slurm says CANCELLED" squeue_until "$job" %T CANCELLED 10

# ---- SIGKILL while waiting, then a new make -----------------------------------------------------
SQ_SLEEP=6 setsid make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/g.kw" LLMB_INSTALL="$TRASH/i.kw" \
	EXECUTOR=slurm WORKLOAD=sq report SCALES=1 >"$TRASH/kw.out" 2>&1 &
mk=$!
t_wait_grep "train sq .*submitted job" "$TRASH/kw.out" 60
kill -KILL -- -"$mk"
wait "$mk" 2>/dev/null
m kw report SCALES=1 >"$TRASH/kw2.out" 2>&1
t_ok "after SIGKILL while waiting, a new make finishes the pipeline" test $? = 0
t_grep "by attaching to the running job" "train sq .*attached to job $(rec kw $TR.1 job)" "$TRASH/kw2.out"
t_ok "every stage was submitted exactly once (squeue -t all)" \
	test "$(nsub kw data.sq.tokens) $(nsub kw $TR.1)" = "1 1"

# ---- SIGKILL right after sbatch returned (test hook), then a new make ------------------------------
t_rc "llmb run dies right after sbatch (LLMB_TEST_DIE_AFTER_SUBMIT)" 2 \
	em LLMB_TEST_DIE_AFTER_SUBMIT=1 ks train SCALES=1
t_ok "the record has a token but no job id" test "$(rec ks data.sq.tokens state) $(rec ks data.sq.tokens job)" = "submitting "
# as if the job had not started yet: only its name can find it
rm -f "$TRASH/i.ks/state/jobs/data.sq.tokens"/started.*
m ks train SCALES=1 >"$TRASH/ks2.out" 2>&1
t_ok "a new make finishes" test $? = 0
t_grep "it found the job by its unique name instead of submitting again" \
	"data sq tokens: found job [0-9]+ of an interrupted submission" "$TRASH/ks2.out"
t_ok "every stage was submitted exactly once (squeue -t all)" \
	test "$(nsub ks data.sq.tokens) $(nsub ks $TR.1)" = "1 1"

# ---- two makes at once on one install tree -------------------------------------------------------
SQ_SLEEP=2 m two -j4 report >"$TRASH/two.a" 2>&1 &
a=$!
SQ_SLEEP=2 m two -j4 report >"$TRASH/two.b" 2>&1 &
b=$!
wait "$a"; ra=$?
wait "$b"; rb=$?
t_ok "two concurrent makes both succeed" test "$ra $rb" = "0 0"
t_ok "each stage was submitted once between them" \
	test "$(nsub two data.sq.tokens) $(nsub two $TR.1) $(nsub two $TR.2)" = "1 1 1"
cat "$TRASH/two.a" "$TRASH/two.b" >"$TRASH/two.ab"
t_grep "one of them attached to the other's jobs" "attached to job|done by another make" "$TRASH/two.ab"

# ---- ASYNC: an upstream failure cancels its pending dependents ----------------------------------------
# (the data job fails 10 s after it starts: it used to fail at once, the
# sleep came after the failure, and on a loaded machine the dependency was
# then seen failed before it was seen held)
SQ_DATA_FAIL=1 SQ_DATA_SLEEP=10 m as report ASYNC=1 >"$TRASH/as1.out" 2>&1
t_ok "make ASYNC=1 returns at once" test $? = 0
data=$(rec as data.sq.tokens job)
t_grep "trainings are chained with afterok on the data job" "train sq .*submitted job [0-9]+ .*after $data" "$TRASH/as1.out"
t_grep "and a summary closes it" "^0 done, 3 stale, [0-9] submitted now, [0-9] pending, [0-9] running, 0 failed$" "$TRASH/as1.out"
t1=$(rec as $TR.1 job)
t2=$(rec as $TR.2 job)
t_ok "Slurm holds them with the dependency" test "$(squeue -h -j "$t1" -o %E)" = "afterok:$data(unfulfilled)"
t_ok "the data job fails" squeue_until "$data" %T FAILED
t_ok "then they are PENDING with DependencyNeverSatisfied" squeue_until "$t1" '%T %r' "PENDING DependencyNeverSatisfied"
sleep 1.5 # the shared status cache answers for one poll interval (LLMB_POLL_SECONDS=1)
t_rc "the next make ASYNC=1 collects the failure" 2 m as report ASYNC=1
cp "$TRASH/.out" "$TRASH/as2.out"
t_grep "it reports the failed upstream job" "job $data \(slurm\), state FAILED, NonZeroExitCode, exit code 4" "$TRASH/as2.out"
t_grep "and cancels its dependents" "cancelled job $t1 \($TR.1\): it waited for job $data, which failed" "$TRASH/as2.out"
t_ok "Slurm has them CANCELLED, not pending forever" squeue_until "$t1,$t2" %T "CANCELLED
CANCELLED" 10
m as status >"$TRASH/as.status" 2>&1
t_grep "status counts them as failed" "^0 done, 3 stale, (0 submitted now, )?0 pending, 0 running, 3 failed$" "$TRASH/as.status"
SQ_DATA_SLEEP=3 m as report ASYNC=1 >"$TRASH/as3.out" 2>&1
t_grep "with the cause fixed, ASYNC=1 submits the chain again" "^0 done, 3 stale, [0-9] submitted now" "$TRASH/as3.out"
m as report >"$TRASH/as4.out" 2>&1
t_ok "and a blocking make collects what finished and goes on to the report" test $? = 0
t_grep "the report lists both scales" "^2 +cpu_tiny_fp32_2 +success" "$TRASH/as4.out"
t_ok "each stage was submitted twice in all (once per round)" \
	test "$(nsub as data.sq.tokens) $(nsub as $TR.1) $(nsub as $TR.2)" = "2 2 2"

# ---- the grouped time-limit cases ----------------------------------------------------------------
wait "$tl_pid"
t_ok "a training that printed its last step before the time limit counts as completed" test $? = 0
job=$(rec tl $TR.1 job)
t_ok "Slurm says TIMEOUT" test "$(squeue -h -t all -j "$job" -o %T)" = TIMEOUT
t_grep "make says so" "done \(job $job, completed, then killed at the time limit\)" "$TRASH/tl.out"
t_grep "train.done says so" "^note=completed, then killed at the time limit$" \
	"$TRASH/i.tl/workloads/sq/experiments/cpu_tiny_fp32_1/train.done"
t_grep "the report says so" "success .* completed, then killed at the time limit " \
	"$TRASH/i.tl/workloads/sq/reports/cpu_tiny_fp32.json.txt"
wait "$to_pid"
t_ok "a training cut short by the time limit fails make" test $? != 0
job=$(rec to $TR.1 job)
t_grep "with state TIMEOUT" "job $job \(slurm\), state TIMEOUT" "$TRASH/to.out"
t_grep "and what to do" "time limit before training finished: raise TIME_LIMIT" "$TRASH/to.out"
# The trap's record, renamed into place, or whole but not yet renamed when
# KillWait ran out (llmb reads both; the record ends with its job line).
cat "$TRASH/i.to/state/jobs/$TR.1/exit.$job" "$TRASH/i.to/state/jobs/$TR.1/exit.$job".tmp.* 2>/dev/null >"$TRASH/to.exit"
t_grep "the exit record is the job's own (SIGTERM)" "^status=143$" "$TRASH/to.exit"
t_grep "and it was written whole" "^job=$job$" "$TRASH/to.exit"

# ---- tinygpt: real PyTorch, 2 ranks through srun ---------------------------------------------------
wait "$tiny_pid"
t_ok "make report WORKLOAD=tinygpt EXECUTOR=slurm" test $? = 0
t_grep "the report has both scales from Slurm jobs" "^2 +cpu_tiny_fp32_2 +success +[0-9]+ " "$TRASH/tiny.out"
t_grep "scale 2 ran two ranks" "world_size=2" \
	"$(ls "$TRASH"/i.tiny/workloads/tinygpt/experiments/cpu_tiny_fp32_2/log-*.out | head -n 1)"
t_ok "the venv and data stages ran on the CPU partition" \
	test "$(squeue -h -t all -o '%Z %P %j' | awk -v d="$TRASH/i.tiny" '$1 == d && $3 ~ /^llmb\.(venv|data)\./ {print $2}' | sort -u)" = cpu
q=$TRASH/i.tiny/state/executor/queries.log
echo "# tinygpt: $(grep -c ' squeue ' "$q") squeue calls over the pipeline"
t_done
