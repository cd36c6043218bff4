#!/usr/bin/env bash
# t-slurm-pending: jobs that can never start, on a real cluster. A training
# whose partition has every node drained or down, whose partition is set
# DOWN, or whose time limit is over its partition's is said to be stuck
# (with Slurm's reason and expected start), cancelled after the grace
# period, and its stage failed with the reason; a reason that clears
# within the grace period, or PENDING_LIMIT=infinite, lets the job run;
# PENDING_LIMIT=N gives up on any wait; a night whose training cannot
# start ends as an error and alerts. Each scenario has its own partition
# and all run at once; every make runs under a timeout, as the old llmb
# waited for ever.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
unset SBATCH_ACCOUNT SBATCH_PARTITION SBATCH_GPUS_PER_NODE ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC LLMB_TEST_SLURM_STATE
unset PENDING_LIMIT LLMB_PENDING_GRACE NIGHT NIGHTLY_NOTIFY
# pa: one node drained, one down; pb: drained, PENDING_LIMIT=infinite;
# pg: drained, resumed within the grace period; pc: set DOWN; pe: busy
# (Resources) under PENDING_LIMIT=5; pf: MaxTime 1 minute; pn: the night's,
# drained; data: the data tasks. QOS limits on a second cluster.
export SLURM_CI_NODES=13 SLURM_CI_CPUS=4 SLURM_CI_MIN_JOB_AGE=3600 SLURM_CI_ACCOUNTING=0
export SLURM_CI_EXTRA_CONF="ReturnToService=1
SchedulerParameters=batch_sched_delay=0,sched_interval=2,bf_interval=2
PartitionName=pa Nodes=n[1-2] MaxTime=INFINITE State=UP
PartitionName=pb Nodes=n[3-4] MaxTime=INFINITE State=UP
PartitionName=pg Nodes=n[5-6] MaxTime=INFINITE State=UP
PartitionName=pc Nodes=n7 MaxTime=INFINITE State=UP
PartitionName=pe Nodes=n8 MaxTime=INFINITE State=UP
PartitionName=pf Nodes=n9 MaxTime=1 State=UP
PartitionName=pn Nodes=n[10-11] MaxTime=INFINITE State=UP
PartitionName=data Nodes=n[12-13] MaxTime=INFINITE State=UP"
t_ok "a 13-node cluster is up" slurm_test_up || { t_done; exit 1; }

# The second cluster, with accounting and its limits enforced: QOS q0 may
# use no CPU at all (GrpTRES), qj no CPU per job (MaxTRESPerJob), qb 4
# CPUs, all held by a job that runs.
A=$TRASH/slurm-acct
# Its ports: never the slot the first cluster holds, even before that
# cluster's daemons bind it (two tests starting side by side).
# shellcheck disable=SC2016 # expanded by the inner bash
t_ok "a port slot another shell holds is not claimed" \
	bash -c '. "$1/testlib.sh" && ! slurm_claim_slot "$2"' - "$SLURM_SCRIPTS" "$SLURM_CI_CTLD_PORT"
# shellcheck disable=SC2016 # expanded by the inner bash
t_ok "a free slot is, and only once while held" \
	bash -c '. "$1/testlib.sh" && slurm_claim_slot 25900 && ! bash -c ". \"\$0/testlib.sh\" && slurm_claim_slot 25900" "$1"' - "$SLURM_SCRIPTS"
mkdir -p "$A" && chmod 755 "$A"
setpriv --reuid=munge --regid=munge --clear-groups test -x "$A" 2>/dev/null || A=$(mktemp -d /tmp/llmb-slurm.XXXXXX)
chmod 755 "$A"
acct_down() {
	"$SLURM_SCRIPTS/down.sh" "$A" >/dev/null 2>&1
	case $A in /tmp/llmb-slurm.*) rm -rf "$A" ;; esac
}
trap 'slurm_test_down; acct_down' EXIT
# shellcheck disable=SC2016 # expanded by the inner bash
t_ok "a second cluster, with accounting limits, is up" env SLURM_CI_NODES=2 SLURM_CI_ACCOUNTING=1 \
	SLURM_CI_EXTRA_CONF="AccountingStorageEnforce=associations,limits,qos
SchedulerParameters=batch_sched_delay=0,sched_interval=2,bf_interval=2" \
	bash -c '. "$1/testlib.sh" && slurm_pick_ports 2 && "$1/up.sh" "$2"' - "$SLURM_SCRIPTS" "$A"
ACONF=$A/slurm.conf
qos() { SLURM_CONF=$ACONF sacctmgr -i add qos "$1" "$2" >/dev/null; }
# shellcheck disable=SC2016 # expanded by eval
t_ok "QOS with limits" eval 'qos q0 GrpTRES=cpu=0 && qos qj MaxTRESPerJob=cpu=0 && qos qb GrpTRES=cpu=4 &&
	SLURM_CONF=$ACONF sacctmgr -i modify user root set qos+=q0,qj,qb >/dev/null'
SLURM_CONF=$ACONF sbatch --parsable -q qb -c 4 -J llmb-test-busy -o /dev/null --wrap 'sleep 600' >"$TRASH/abusy.job"

T=$TRASH/top
mkdir -p "$T/workloads/ss" "$T/pipelines"
for f in GNUmakefile generator scripts templates tests; do ln -s "$TOP/$f" "$T/$f"; done
cp "$TOP/pipelines/benchmark.yaml" "$T/pipelines/"
cp "$TOP/workloads/gpus.yaml" "$TESTS_DIR/slurm-states/ss.yaml" "$T/workloads/"
cp "$TESTS_DIR/slurm-states/train.sh" "$TESTS_DIR/slurm-pipeline/data.sh" "$T/workloads/ss/"
# the night's matrix: the one training of ss on the CPU (the policy as shipped)
sed -e '/^matrix:/,/^[a-z]/{/^  /d}' -e 's/^matrix:.*/matrix:\n  - {workload: ss, gpu: cpu, scales: [1]}/' \
	"$TOP/pipelines/nightly.yaml" >"$T/pipelines/nightly.yaml"
export LLMB_POLL_SECONDS=1 LLMB_CPU_PARTITION=data
make -C "$T" B="$TOP/build" all >/dev/null 2>&1
TR=train.ss.cpu.tiny.fp32.1
RUN=cpu_tiny_fp32_1
# No make may wait for ever (the old llmb did): 240 s at most.
LIMIT=240

# m NAME VAR=VALUE... ARGS...: make in the top dir, install tree $TRASH/i.NAME.
m() (
	n=$1
	shift
	while [[ $1 == [A-Z]*=* ]]; do export "${1?}"; shift; done
	exec timeout -k 5 "$LIMIT" make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/g.$n" LLMB_INSTALL="$TRASH/i.$n" \
		EXECUTOR=slurm WORKLOAD=ss GPU_TYPE=cpu "$@"
)
# bg NAME ARGS...: m in the background, output in $TRASH/NAME.out, exit status in NAME.rc.
bg() {
	local n=$1
	(m "$@" >"$TRASH/$n.out" 2>&1; echo $? >"$TRASH/$n.rc") &
}
rc() { cat "$TRASH/$1.rc" 2>/dev/null; }
rec() { t_job_field "$TRASH/i.$1" "$2" "$3"; }
state() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }

scontrol update nodename=n1 state=drain reason=llmb-test
scontrol update nodename=n2 state=down reason=llmb-test
scontrol update nodename='n[3-6]' state=drain reason=llmb-test
scontrol update nodename='n[10-11]' state=drain reason=llmb-test
scontrol update partitionname=pc state=down
sbatch --parsable -p pe -N 1 --exclusive -J llmb-test-busy -o /dev/null --wrap 'sleep 600' >"$TRASH/busy.job"

bg pa SBATCH_PARTITION=pa LLMB_PENDING_GRACE=3 train
bg pb SBATCH_PARTITION=pb LLMB_PENDING_GRACE=3 PENDING_LIMIT=infinite train
bg pg SBATCH_PARTITION=pg LLMB_PENDING_GRACE=120 train
bg pc SBATCH_PARTITION=pc LLMB_PENDING_GRACE=3 train
bg pe SBATCH_PARTITION=pe PENDING_LIMIT=5 train
bg pf SBATCH_PARTITION=pf LLMB_PENDING_GRACE=3 train
for q in q0 qj qb; do
	bg "$q" SLURM_CONF="$ACONF" LLMB_CPU_PARTITION=cpu ADDITIONAL_SLURM_PARAMS=qos=$q LLMB_PENDING_GRACE=3 train
done
(
	m night SBATCH_PARTITION=pn LLMB_PENDING_GRACE=3 NIGHT=2026-01-05 \
		NIGHTLY_NOTIFY="cat >$TRASH/alert.txt <" nightly >"$TRASH/night.out" 2>&1
	echo $? >"$TRASH/night.rc"
) &
# PENDING_LIMIT=infinite: still waiting well past the grace period; then a
# node comes back and the job runs.
(
	t_wait_grep "waiting for an operator \(PENDING_LIMIT=infinite\)" "$TRASH/pb.out" 120 || exit 1
	sleep 8
	cp "$TRASH/pb.out" "$TRASH/pb.before"
	scontrol update nodename=n4 state=resume
) &
# within the grace period: the node is resumed once llmb says it is stuck
(
	t_wait_grep "cannot start without an operator" "$TRASH/pg.out" 120 || exit 1
	scontrol update nodename=n6 state=resume
) &
# a group limit held by a running job of the group: it waits past the
# grace period, and runs once that job ends
(
	t_wait_grep "PENDING .*QOSGrpCpuLimit" "$TRASH/qb.out" 120 || exit 1
	sleep 8
	cp "$TRASH/qb.out" "$TRASH/qb.before"
	SLURM_CONF=$ACONF scancel "$(cat "$TRASH/abusy.job")"
) &
wait

# ---- every node of the partition drained or down ------------------------------------------
job=$(rec pa $TR job)
log=$TRASH/i.pa/workloads/ss/experiments/$RUN/log-ss_${RUN}_$job.out
t_ok "drained and down: make ends, failing (it waited for ever before)" test "$(rc pa)" = 2
t_grep "the progress line says PENDING with Slurm's reason and expected start" \
	"PENDING [0-9:]+, (ReqNodeNotAvail|Nodes required for job are DOWN, DRAINED)[^,]*.*, expected start (unknown|[0-9T:-]+), job $job" "$TRASH/pa.out"
t_grep "and says it cannot start, naming the nodes and their states" \
	"job $job cannot start without an operator: .*every node it could use is drained or down \(partition pa: 0 of its 2 node\(s\) usable, 1 needed \(n1 drain, n2 down\*?\)\); expected start .*; cancelling it in 3 s" "$TRASH/pa.out"
t_grep "the stage fails with the job, its state and reason" \
	"job $job \(slurm\), state PENDING, .*every node it could use is drained or down.*; cancelled by llmb after [0-9]+ s pending" "$TRASH/pa.out"
t_grep "what to do" "the job could not start and llmb cancelled it: ask the cluster's operator \(sinfo -R" "$TRASH/pa.out"
t_grep "and the log path" "^    log $log" "$TRASH/pa.out"
t_ok "Slurm has the job CANCELLED" test "$(state "$job")" = CANCELLED
t_ok "the job record says failed" test "$(rec pa $TR state)" = failed
t_ok "pending.<job> keeps why" grep -q "every node it could use" "$TRASH/i.pa/state/jobs/$TR/pending.$job"

# ---- PENDING_LIMIT=infinite -------------------------------------------------------------
job=$(rec pb $TR job)
# shellcheck disable=SC2016 # expanded by eval
t_ok "PENDING_LIMIT=infinite: said stuck, not cancelled past the grace period" \
	eval 'grep -q "waiting for an operator" "$TRASH/pb.before" && ! grep -q "could not start" "$TRASH/pb.before"'
t_ok "the job ran once a node came back: make succeeds" test "$(rc pb) $(state "$job")" = "0 COMPLETED"

# ---- cleared within the grace period ----------------------------------------------------
job=$(rec pg $TR job)
t_ok "a node resumed within the grace period: the job runs, make succeeds" test "$(rc pg) $(state "$job")" = "0 COMPLETED"
t_nogrep "nothing was cancelled" "could not start" "$TRASH/pg.out"

# ---- partition DOWN -----------------------------------------------------------------------
job=$(rec pc $TR job)
t_ok "partition DOWN: make fails" test "$(rc pc)" = 2
t_grep "it says PartitionDown" "job $job cannot start without an operator: PartitionDown: its partition is DOWN" "$TRASH/pc.out"
t_grep "the stage fails with the reason" "job $job \(slurm\), state PENDING, PartitionDown: its partition is DOWN; cancelled by llmb" "$TRASH/pc.out"
t_ok "Slurm has it CANCELLED" test "$(state "$job")" = CANCELLED

# ---- over the partition's time limit ------------------------------------------------------
job=$(rec pf $TR job)
t_ok "a time limit over the partition's: make fails" test "$(rc pf) $(state "$job")" = "2 CANCELLED"
t_grep "it says PartitionTimeLimit" "state PENDING, PartitionTimeLimit: its time limit is over its partition's \(TIME_LIMIT\)" "$TRASH/pf.out"

# ---- PENDING_LIMIT=5 on a wait that may clear ---------------------------------------------
job=$(rec pe $TR job)
t_ok "PENDING_LIMIT=5 behind a busy node: make fails" test "$(rc pe) $(state "$job")" = "2 CANCELLED"
t_grep "it says the limit" "job $job \(slurm\), state PENDING, (Resources|Priority); pending over PENDING_LIMIT=5 s, cancelled by llmb" "$TRASH/pe.out"
t_nogrep "the wait was not called stuck" "cannot start without an operator" "$TRASH/pe.out"
scancel "$(cat "$TRASH/busy.job")"

# ---- a night that cannot start ------------------------------------------------------------
NT=$TR.night-2026-01-05
job=$(rec night "$NT" job)
t_ok "the night ends as an error (exit and status 2)" \
	test "$(rc night) $(cat "$TRASH/i.night/nightly/2026-01-05/status" 2>/dev/null)" = "2 2 error"
t_grep "the summary says which run could not start and why" \
	"night 2026-01-05: ERROR: 1 run\(s\) could not start" "$TRASH/i.night/nightly/2026-01-05/summary.txt"
t_grep "naming its job and reason" "$NT: job $job \(slurm\): .*every node it could use is drained or down" \
	"$TRASH/i.night/nightly/2026-01-05/summary.txt"
t_nogrep "the night itself was judged" "was not judged" "$TRASH/i.night/nightly/2026-01-05/summary.txt"
t_ok "the notify hook ran with the summary" grep -q "could not start" "$TRASH/alert.txt"

# ---- QOS limits ---------------------------------------------------------------------------------
ast() { SLURM_CONF=$ACONF squeue -h -t all -j "$1" -o %T 2>/dev/null; }
job=$(rec q0 $TR job)
t_ok "a group limit below the job's own request, none of the group's jobs running: make fails" \
	test "$(rc q0) $(ast "$job")" = "2 CANCELLED"
t_grep "it says why" "state PENDING, QOSGrpCpuLimit: the QOS q0 has reached a limit with none of its jobs running" \
	"$TRASH/q0.out"
job=$(rec qj $TR job)
t_ok "a per-job limit below the job's request: make fails" test "$(rc qj) $(ast "$job")" = "2 CANCELLED"
t_grep "it says QOSMaxCpuPerJobLimit" "state PENDING, QOSMaxCpuPerJobLimit: a limit the job's own request exceeds" \
	"$TRASH/qj.out"
job=$(rec qb $TR job)
# shellcheck disable=SC2016 # expanded by eval
t_ok "a group limit a running job holds: not called stuck past the grace period" \
	eval 'grep -q "QOSGrpCpuLimit" "$TRASH/qb.before" && ! grep -Eq "cannot start|could not start" "$TRASH/qb.before"'
t_ok "and the job ran once that job ended: make succeeds" test "$(rc qb) $(ast "$job")" = "0 COMPLETED"

# ---- a PENDING_LIMIT llmb does not understand -------------------------------------------
t_rc "PENDING_LIMIT=soon is refused" 2 m bad SBATCH_PARTITION=pe PENDING_LIMIT=soon train
t_grep "naming the variable and what it takes" "PENDING_LIMIT=soon: expected a number of seconds" "$TRASH/.out"
t_ok "and nothing was submitted" test -z "$(rec bad $TR job)"
# on make's command line, where make would expand it for the recipes
t_rc "PENDING_LIMIT holding \$(shell ...) is refused" 2 m bad2 train "PENDING_LIMIT=\$(shell touch $TRASH/ran)"
t_grep "naming the variable" 'PENDING_LIMIT=\$\(shell touch .*expected a number of seconds' "$TRASH/.out"
t_ok "before make ran it" test ! -e "$TRASH/ran"
t_done
