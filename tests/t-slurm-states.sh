#!/usr/bin/env bash
# t-slurm-states: the job states a single node cannot produce, produced for
# real on an emulated many-node cluster (one slurmd per node, 8 fake GPUs
# each, cgroup memory enforcement) and driven through the make pipeline:
# a 2-node training (h100 at scale 16); NODE_FAIL and the train stage's
# retry policy; a node lost between two steps of a job (its slurmd killed:
# Slurm says FAILED, llmb NODE_FAIL); a job requeued by a node failure, by `scontrol requeue`,
# and past LLMB_MAX_REQUEUES; PREEMPTED (partition_prio, PreemptMode=CANCEL)
# and its retry; a training step killed for memory; and, on a second
# cluster with neither accounting nor a completion log, a job purged from
# Slurm's memory (VANISHED). Each scenario has its own partition, so the
# faults injected into one never touch another, and all of them run at once.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
[ -d /sys/fs/cgroup/memory ] || t_skip_all "no cgroup v1 memory controller (OUT_OF_MEMORY needs it)"
unset SBATCH_ACCOUNT SBATCH_PARTITION SBATCH_GPUS_PER_NODE ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC LLMB_TEST_SLURM_STATE
unset LLMB_MAX_REQUEUES LLMB_PREEMPT_WAIT
# Partitions, 2 nodes each: pm multi-node, pf NODE_FAIL, pq requeued by a
# node failure, pr scontrol requeue, pb requeued past the bound, low/high
# preemption, po out of memory, pl a node lost between steps; data jobs on
# their own nodes. SlurmdTimeout 40: a node whose slurmd was killed is
# declared down within a minute (the default is 5).
# ReturnToService=1 keeps a node set down by hand down until it is resumed;
# cred_expire=5 makes a requeued job eligible 6 s later instead of 121 s.
export SLURM_CI_NODES=18 SLURM_CI_GPUS_PER_NODE=8 SLURM_CI_CGROUP=1 SLURM_CI_CRED_EXPIRE=5
export SLURM_CI_MIN_JOB_AGE=3600 SLURM_CI_ACCOUNTING=0
export SLURM_CI_EXTRA_CONF="ReturnToService=1
SchedulerParameters=batch_sched_delay=0,sched_interval=2,bf_interval=2
SlurmdTimeout=40
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
PartitionName=pm Nodes=n[1-2] MaxTime=INFINITE State=UP
PartitionName=pf Nodes=n[3-4] MaxTime=INFINITE State=UP
PartitionName=pq Nodes=n[5-6] MaxTime=INFINITE State=UP
PartitionName=pr Nodes=n[7-8] MaxTime=INFINITE State=UP
PartitionName=pb Nodes=n[9-10] MaxTime=INFINITE State=UP
PartitionName=low Nodes=n[11-12] PriorityTier=1 PreemptMode=CANCEL MaxTime=INFINITE State=UP
PartitionName=high Nodes=n[11-12] PriorityTier=5 MaxTime=INFINITE State=UP
PartitionName=po Nodes=n[13-14] MaxTime=INFINITE State=UP
PartitionName=data Nodes=n[15-16] MaxTime=INFINITE State=UP
PartitionName=pl Nodes=n[17-18] MaxTime=INFINITE State=UP"
t_ok "an 18-node cluster with 8 GPUs per node is up" slurm_test_up || { t_done; exit 1; }

# The second cluster: MinJobAge 2 s, no accounting, no completion log.
V=$TRASH/slurm-vanish
mkdir -p "$V" && chmod 755 "$V"
setpriv --reuid=munge --regid=munge --clear-groups test -x "$V" 2>/dev/null || V=$(mktemp -d /tmp/llmb-slurm.XXXXXX)
chmod 755 "$V"
vanish_down() {
	"$SLURM_SCRIPTS/down.sh" "$V" >/dev/null 2>&1
	case $V in /tmp/llmb-slurm.*) rm -rf "$V" ;; esac
}
trap 'slurm_test_down; vanish_down' EXIT
# shellcheck disable=SC2016 # expanded by the inner bash
t_ok "a second cluster without any job history is up" env -u SLURM_CI_EXTRA_CONF SLURM_CI_NODES=1 \
	SLURM_CI_GPUS_PER_NODE=0 SLURM_CI_CGROUP=0 SLURM_CI_CPUS=8 SLURM_CI_MIN_JOB_AGE=2 \
	SLURM_CI_EXTRA_CONF="JobCompType=jobcomp/none" \
	bash -c '. "$1/testlib.sh" && slurm_pick_ports 1 && "$1/up.sh" "$2"' - "$SLURM_SCRIPTS" "$V"
VANISH_CONF=$V/slurm.conf

T=$TRASH/top
mkdir -p "$T/workloads/ss" "$T/pipelines"
for f in GNUmakefile generator scripts templates tests; do ln -s "$TOP/$f" "$T/$f"; done
cp "$TOP/pipelines/benchmark.yaml" "$T/pipelines/"
cp "$TOP/workloads/gpus.yaml" "$TESTS_DIR/slurm-states/ss.yaml" "$T/workloads/"
cp "$TESTS_DIR/slurm-states/train.sh" "$TESTS_DIR/slurm-pipeline/data.sh" "$T/workloads/ss/"
export LLMB_POLL_SECONDS=1 LLMB_CPU_PARTITION=data
make -C "$T" B="$TOP/build" all >/dev/null 2>&1
TR=train.ss.h100.tiny.bf16.16
RUN=h100_tiny_bf16_16

# m NAME VAR=VALUE... ARGS...: make in the ss top dir, install tree $TRASH/i.NAME.
m() (
	n=$1
	shift
	while [[ $1 == [A-Z]*=* ]]; do export "${1?}"; shift; done
	exec make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/g.$n" LLMB_INSTALL="$TRASH/i.$n" EXECUTOR=slurm \
		WORKLOAD=ss GPU_TYPE="${GPU_TYPE:-h100}" "$@"
)
# bg NAME ARGS...: m in the background, output in $TRASH/NAME.out, exit status in NAME.rc.
bg() {
	local n=$1
	(m "$@" >"$TRASH/$n.out" 2>&1; echo $? >"$TRASH/$n.rc") &
}
rc() { cat "$TRASH/$1.rc" 2>/dev/null; }
rec() { t_job_field "$TRASH/i.$1" "$2" "$3"; }
# jobs NAME STAGE: the ids of every job Slurm ever had for STAGE of install
# NAME, in submission order (the job's working directory is the install tree).
jobs_of() {
	squeue -h -t all -o '%i %Z %j' | sort -n | awk -v d="$TRASH/i.$1" -v s="llmb.$2." \
		'$2 == d && index($3, s) == 1 {print $1}' | tr '\n' ' ' | sed 's/ $//'
}
# sq JOB: "STATE RESTARTS" as squeue sees them.
sq() { squeue -h -t all -j "$1" -O 'State: ,RestartCnt:' 2>/dev/null | xargs; }
# sq_until JOB WANT [SECONDS]
sq_until() {
	local i
	for ((i = 0; i < ${3:-60} * 5; i++)); do
		[ "$(sq "$1")" = "$2" ] && return 0
		t_nap 0.2
	done
	return 1
}
# running NAME: the training of install NAME runs; prints its job id.
running() {
	t_wait_grep "train ss .*RUNNING" "$TRASH/$1.out" 60 >&2 && rec "$1" $TR job
}

# ---- every scenario at once -----------------------------------------------------------
bg multi SBATCH_PARTITION=pm report
bg oom SBATCH_PARTITION=po GPU_TYPE=cpu SS_MODE=oom ADDITIONAL_SLURM_PARAMS=mem=200M train
bg nf SBATCH_PARTITION=pf SS_SLEEP=60 ADDITIONAL_SLURM_PARAMS=no-requeue train
bg nq SBATCH_PARTITION=pq SS_SLEEP=60 train
bg rq SBATCH_PARTITION=pr SS_SLEEP=60 train
bg rb SBATCH_PARTITION=pb SS_SLEEP=60 SS_SLEEP_RUNS=9 LLMB_MAX_REQUEUES=1 train
bg pre SBATCH_PARTITION=low SS_SLEEP=60 train
: >"$TRASH/gap.nl"
bg nl SBATCH_PARTITION=pl ADDITIONAL_SLURM_PARAMS=no-requeue SS_GAP="$TRASH/gap.nl" \
	PATH="$TESTS_DIR/slurm-states/gap:$PATH" train

# NODE_FAIL: the second node of the job goes down; it stays down until the
# retry has been submitted and waits for it.
(
	job=$(running nf) || exit 1
	node=$(scontrol show hostnames "$(squeue -h -j "$job" -o %N)" | tail -n 1)
	echo "$node" >"$TRASH/nf.node"
	scontrol update nodename="$node" state=down reason=llmb-test
	t_wait_grep "retrying .*NODE_FAIL" "$TRASH/nf.out" 60 || exit 1
	t_wait_grep "submitted job [0-9]+" "$TRASH/nf.out" 60 && sleep 2
	{ sinfo -h -n "$node" -o %t; squeue -h -j "$(rec nf $TR job)" -o %T; } >"$TRASH/nf.before"
	scontrol update nodename="$node" state=resume
) &
# A node lost between two steps: the job's second node loses its slurmd
# after the node probe, before the training step (tests/slurm-states/gap);
# the training's srun cannot reach it. Started again once the retry is in.
slurmd_pid() { awk -v n="$1" '$1 == "slurmd" && $3 == n {print $2}' "$SLURM_TEST_STATE/run/pids" | tail -n 1; }
(
	job=$(running nl) || exit 1
	for ((i = 0; i < 600; i++)); do [ -e "$TRASH/gap.nl.at" ] && break; t_nap 0.2; done
	node=$(scontrol show hostnames "$(squeue -h -j "$job" -o %N)" | tail -n 1)
	echo "$node" >"$TRASH/nl.node"
	kill -KILL "$(slurmd_pid "$node")"
	rm -f "$TRASH/gap.nl"
	t_wait_grep "retrying .*NODE_FAIL" "$TRASH/nl.out" 180
	t_wait_grep "submitted job [0-9]+" "$TRASH/nl.out" 60 && sleep 2
	{ sinfo -h -n "$node" -o %t; squeue -h -j "$(rec nl $TR job)" -o %T; } >"$TRASH/nl.before"
	setsid /usr/sbin/slurmd -D -N "$node" </dev/null >>"$SLURM_TEST_STATE/log/slurmd-$node.out" 2>&1 &
	echo "slurmd $! $node" >>"$SLURM_TEST_STATE/run/pids"
) &
# requeued by a node failure (Slurm's default for batch jobs)
(
	job=$(running nq) || exit 1
	node=$(scontrol show hostnames "$(squeue -h -j "$job" -o %N)" | tail -n 1)
	scontrol update nodename="$node" state=down reason=llmb-test
	t_wait_grep "was requeued by the scheduler" "$TRASH/nq.out" 60 && sleep 7
	{ sinfo -h -n "$node" -o %t; squeue -h -j "$job" -o '%T %r'; } >"$TRASH/nq.before"
	scontrol update nodename="$node" state=resume
) &
# scontrol requeue, once
(
	job=$(running rq) || exit 1
	scontrol requeue "$job"
) &
# scontrol requeue twice, with LLMB_MAX_REQUEUES=1
(
	job=$(running rb) || exit 1
	scontrol requeue "$job"
	sq_until "$job" "RUNNING 1" || exit 1
	sleep 1
	scontrol requeue "$job"
) &
# preempted by a job in a partition of a higher priority tier
(
	job=$(running pre) || exit 1
	sbatch --parsable -p high -N 2 --exclusive -J llmb-test-high -o /dev/null --wrap 'sleep 3' >"$TRASH/pre.high"
) &

# VANISHED, on the second cluster: make is killed while it waits, the
# job's batch shell is killed too (so it writes no exit record), and Slurm
# purges the job.
(
	export SLURM_CONF=$VANISH_CONF LLMB_CPU_PARTITION=cpu
	setsid make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/g.van" LLMB_INSTALL="$TRASH/i.van" EXECUTOR=slurm \
		WORKLOAD=ss GPU_TYPE=cpu SS_SLEEP=60 train >"$TRASH/van1.out" 2>&1 &
	mk=$!
	t_wait_grep "train ss .*RUNNING" "$TRASH/van1.out" 60 || exit 1
	job=$(rec van train.ss.cpu.tiny.fp32.1 job)
	kill -KILL -- -"$mk"
	wait "$mk" 2>/dev/null
	scancel --batch --signal=KILL "$job"
	for ((i = 0; i < 600; i++)); do
		[ -z "$(squeue -h -t all -j "$job,1" -o %i 2>/dev/null)" ] && break
		t_nap 0.2
	done
	echo "$job" >"$TRASH/van.job"
	m van GPU_TYPE=cpu SS_SLEEP=0 train >"$TRASH/van2.out" 2>&1
	echo $? >"$TRASH/van2.rc"
	m van GPU_TYPE=cpu SS_SLEEP=0 train >"$TRASH/van3.out" 2>&1
	echo $? >"$TRASH/van3.rc"
) &
wait

# ---- 1. a 2-node training -----------------------------------------------------------------
t_ok "the 2-node pipeline completes" test "$(rc multi)" = 0
job=$(rec multi $TR job)
scontrol show job "$job" >"$TRASH/multi.job"
t_grep "Slurm ran it on 2 nodes with 16 tasks (sbatch -N 2 --ntasks-per-node 8)" "NumNodes=2 .*NumTasks=16 " "$TRASH/multi.job"
t_grep "with 8 GPUs per node (--gpus-per-node 8)" "TresPerNode=gres:gpu:8" "$TRASH/multi.job"
t_grep "and the nodes to itself (--exclusive)" "OverSubscribe=NO" "$TRASH/multi.job"
log=$TRASH/i.multi/workloads/ss/experiments/$RUN/log-ss_${RUN}_$job.out
t_ok "its 16 tasks ran 8 on each node (SLURMD_NODENAME, SLURM_NODEID)" \
	test "$(grep -Eo '^task [0-9]+ node n[0-9]+ nodeid [01]' "$log" | awk '{print $4, $6}' | sort | uniq -c | awk '{print $1, $2, $3}' | tr '\n' ' ')" = "8 n1 0 8 n2 1 "
t_grep "the report has the run" "^16 +$RUN +success" "$TRASH/multi.out"

# ---- 2. NODE_FAIL and the retry policy -----------------------------------------------------
read -r j1 j2 rest <<<"$(jobs_of nf $TR)"
t_ok "NODE_FAIL: exactly 2 submissions" test -n "$j2" -a -z "$rest"
t_ok "Slurm says the first NODE_FAIL and the second COMPLETED" \
	test "$(squeue -h -t all -j "$j1,$j2" -o '%i %T' | sort -n | awk '{print $2}' | tr '\n' ' ')" = "NODE_FAIL COMPLETED "
t_grep "llmb names the state and the failed node's reason" "job $j1 \(slurm\), state NODE_FAIL, NodeDown" "$TRASH/nf.out"
t_grep "and what to do" "a node of the job failed; run make again \(the stage's retry policy may do so itself\)" "$TRASH/nf.out"
t_grep "the retry policy resubmits once" "retrying \(attempt 2 of 2\): the stage's retry policy covers NODE_FAIL" "$TRASH/nf.out"
t_ok "the retry waited while the node was down" test "$(tr '\n' ' ' <"$TRASH/nf.before")" = "down PENDING "
t_ok "and completed once it was resumed: make succeeds" test "$(rc nf)" = 0
t_grep "with the second job" "train ss .*done \(job $j2\)" "$TRASH/nf.out"

# ---- 2b. a node lost between two steps --------------------------------------------------
read -r j1 j2 rest <<<"$(jobs_of nl $TR)"
node=$(cat "$TRASH/nl.node" 2>/dev/null)
t_ok "node lost between steps: exactly 2 submissions" test -n "$j2" -a -z "$rest"
t_ok "Slurm says the first FAILED (not NODE_FAIL) and the second COMPLETED" \
	test "$(squeue -h -t all -j "$j1,$j2" -o '%i %T' | sort -n | awk '{print $2}' | tr '\n' ' ')" = "FAILED COMPLETED "
t_ok "srun said it could not reach the node (the first job's log)" grep -Eq \
	"srun: error: .*(Communication connection failure|Node failure)" "$TRASH/i.nl/workloads/ss/experiments/$RUN/log-ss_${RUN}_$j1.out"
t_grep "llmb calls it NODE_FAIL and says why" \
	"job $j1 \(slurm\), state NODE_FAIL, Slurm says FAILED: a step could not reach (node $node|one of its nodes), and Slurm now has $node (down|idle|alloc|mix|comp)[a-z]*\*?" "$TRASH/nl.out"
t_grep "the retry policy for NODE_FAIL resubmits once" "retrying \(attempt 2 of 2\): the stage's retry policy covers NODE_FAIL" "$TRASH/nl.out"
t_ok "the retry waited while the node was down" test "$(tr '\n' ' ' <"$TRASH/nl.before")" = "down* PENDING "
t_ok "and completed once its slurmd was back: make succeeds" test "$(rc nl)" = 0
t_grep "with the second job" "train ss .*done \(job $j2\)" "$TRASH/nl.out"

# ---- 3. requeues ------------------------------------------------------------------------------
job=$(rec nq $TR job)
t_ok "a node failure with Slurm's default requeue: one job, requeued once, completed" \
	test "$(jobs_of nq $TR) $(sq "$job")" = "$job COMPLETED 1"
t_grep "llmb says it was requeued and keeps waiting on the same job" \
	"job $job was requeued by the scheduler \(1 time\(s\), at most 3\); waiting for it to run again" "$TRASH/nq.out"
t_ok "the requeued job waited for the node" test "$(head -n 1 "$TRASH/nq.before")" = down
t_ok "and make succeeds" test "$(rc nq)" = 0
t_grep "with that job" "train ss .*done \(job $job\)" "$TRASH/nq.out"
t_ok "the log is the second run's" grep -q "restart 1" \
	"$TRASH/i.nq/workloads/ss/experiments/$RUN/log-ss_${RUN}_$job.out"

job=$(rec rq $TR job)
t_ok "scontrol requeue: one job, requeued once, completed" \
	test "$(jobs_of rq $TR) $(sq "$job")" = "$job COMPLETED 1"
t_grep "llmb kept waiting on it" "job $job was requeued by the scheduler \(1 time" "$TRASH/rq.out"
t_ok "make succeeds" test "$(rc rq)" = 0

read -r j1 j2 rest <<<"$(jobs_of rb $TR)"
t_ok "past LLMB_MAX_REQUEUES=1: exactly 2 submissions" test -n "$j2" -a -z "$rest"
t_grep "llmb cancels the job requeued twice" "job $j1 was requeued 2 time\(s\), more than LLMB_MAX_REQUEUES: cancelled" "$TRASH/rb.out"
t_ok "Slurm has it CANCELLED" test "$(squeue -h -t all -j "$j1" -o '%T')" = CANCELLED
t_grep "the failure says why and what to do" \
	"state REQUEUED, requeued 2 time\(s\), cancelled by llmb.*|check the nodes \(sinfo -R\)" "$TRASH/rb.out"
t_grep "the retry policy (node failure, preemption) resubmits" "retrying \(attempt 2 of 2\): the stage's retry policy covers REQUEUED" "$TRASH/rb.out"
t_ok "and the new job completes: make succeeds" test "$(rc rb) $(squeue -h -t all -j "$j2" -o %T)" = "0 COMPLETED"

# ---- PREEMPTED --------------------------------------------------------------------------------
read -r j1 j2 rest <<<"$(jobs_of pre $TR)"
t_ok "PREEMPTED (PreemptMode=CANCEL): Slurm says so, and exactly 2 submissions" \
	test "$(squeue -h -t all -j "$j1" -o %T) ${j2:+two}${rest:+more}" = "PREEMPTED two"
t_grep "llmb names the state at once" "job $j1 \(slurm\), state PREEMPTED" "$TRASH/pre.out"
t_grep "the retry policy resubmits" "retrying \(attempt 2 of 2\): the stage's retry policy covers PREEMPTED" "$TRASH/pre.out"
t_ok "the new job ran after the preemptor and completed" \
	test "$(rc pre) $(squeue -h -t all -j "$j2" -o %T)" = "0 COMPLETED"

# ---- 4. OUT_OF_MEMORY ---------------------------------------------------------------------------
job=$(rec oom train.ss.cpu.tiny.fp32.1 job)
t_ok "a step over --mem fails make, with no retry" test "$(rc oom) $(jobs_of oom train.ss.cpu.tiny.fp32.1)" = "2 $job"
t_ok "Slurm itself says FAILED (the step, not the batch shell, was killed)" \
	test "$(squeue -h -t all -j "$job" -o %T)" = FAILED
t_grep "llmb names OUT_OF_MEMORY" "job $job \(slurm\), state OUT_OF_MEMORY, a step was killed for memory" "$TRASH/oom.out"
t_grep "and what to do" "ran out of memory: ask for more with ADDITIONAL_SLURM_PARAMS=mem=" "$TRASH/oom.out"
t_grep "the log tail shows the kill" "\| .*(oom-kill event|Out Of Memory)" "$TRASH/oom.out"
t_nogrep "no retry" "retrying" "$TRASH/oom.out"

# ---- 5. VANISHED ----------------------------------------------------------------------------------
job=$(cat "$TRASH/van.job" 2>/dev/null)
t_ok "the killed job was purged by Slurm" test -n "$job" -a -z "$(SLURM_CONF=$VANISH_CONF squeue -h -t all -j "$job,1" -o %i 2>/dev/null)"
t_ok "and left no exit record" test ! -e "$TRASH/i.van/state/jobs/train.ss.cpu.tiny.fp32.1/exit.$job"
t_ok "the next make fails the stage" test "$(cat "$TRASH/van2.rc")" = 2
t_grep "llmb says VANISHED" "job $job \(slurm\), state VANISHED" "$TRASH/van2.out"
t_grep "and what to do" "no longer knows the job .* run make again to submit it again" "$TRASH/van2.out"
t_ok "the make after that resubmits and succeeds" test "$(cat "$TRASH/van3.rc")" = 0
t_grep "saying so" "previous job $job failed; submitting again" "$TRASH/van3.out"
t_done
