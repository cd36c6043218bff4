#!/usr/bin/env bash
# t-slurm-cluster: tests/slurm/up.sh brings up a working private Slurm
# cluster (sbatch, squeue, sacct), refuses to start twice, and down.sh leaves
# none of its daemons behind. Then the same for 2 emulated nodes with 8 fake
# GPUs each (and slurmdbd + MariaDB when installed).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
unset LLMB_TEST_SLURM_STATE

# wait_state ID STATE: squeue must show STATE within 60 s.
wait_state() {
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$(squeue -h -t all -j "$1" -o '%T' 2>/dev/null)" = "$2" ] && return 0
		sleep 0.2
	done
	squeue -h -t all -j "$1" -o '%i %T %r'
	return 1
}

# daemons_gone PIDS_COPY: no process recorded there still runs as itself.
daemons_gone() {
	local name pid _
	while read -r name pid _; do
		if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] &&
			! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status"; then
			echo "still running: $name $pid"
			return 1
		fi
	done <"$1"
}

# ---- single node, defaults ---------------------------------------------------
t_ok "up.sh starts a single-node cluster" slurm_test_up
S=$SLURM_TEST_STATE
t_grep "env file exports SLURM_CONF" "^export SLURM_CONF=" "$S/env"
t_nogrep "kill_invalid_depend is not on by default" "kill_invalid_depend" "$S/slurm.conf"
cp "$S/run/pids" "$TRASH/pids1"
sinfo -h -o '%a %t' >"$TRASH/sinfo" 2>&1
t_grep "sinfo shows the node idle" "^up idle" "$TRASH/sinfo"
t_rc "a second up.sh on the same state dir is refused" 1 "$SLURM_SCRIPTS/up.sh" "$S"
t_grep "with a clear message" "already runs" "$TRASH/.out"

# shellcheck disable=SC2016 # expanded by the job
ok=$(sbatch --parsable -J ok -o "$TRASH/ok.out" --wrap 'echo hello from $SLURM_JOB_ID')
bad=$(sbatch --parsable -J bad -o /dev/null --wrap 'exit 3')
dep=$(sbatch --parsable -J dep -o /dev/null --dependency "afterok:$bad" --wrap true)
t_ok "a job completes" wait_state "$ok" COMPLETED
t_grep "its output is written" "^hello from $ok$" "$TRASH/ok.out"
t_ok "a job exiting 3 is FAILED" wait_state "$bad" FAILED
scontrol show job "$bad" >"$TRASH/bad.show"
t_grep "with ExitCode 3:0" "ExitCode=3:0" "$TRASH/bad.show"
sleep 1
squeue -h -t all -j "$dep" -o '%T %r' >"$TRASH/dep"
t_grep "a dependent of a failed job stays pending" "^PENDING DependencyNeverSatisfied" "$TRASH/dep"
scancel "$dep"
t_ok "scancel cancels it" wait_state "$dep" CANCELLED
sacct -c -n -P -j "$bad" -o JobID,State,ExitCode >"$TRASH/sacct-c" 2>&1
t_grep "sacct -c reads the job completion log" "^$bad\|FAILED\|3:0" "$TRASH/sacct-c"
sleep 300 & sl=$!
long=$(sbatch --parsable -o /dev/null --wrap 'sleep 600')
t_ok "a long job runs" wait_state "$long" RUNNING
slurm_test_down
kill "$sl"
t_ok "down.sh leaves no daemon running" daemons_gone "$TRASH/pids1"
t_rc "and no job step of this cluster" 1 pgrep -f "slurmstepd: \[$long\."
t_rc "the pids file is gone" 1 test -e "$S/run/pids"

# ---- two emulated nodes with 8 GPUs each (+ accounting when installed) ------------
export SLURM_CI_NODES=2 SLURM_CI_GPUS_PER_NODE=8
acct=0
if command -v mariadbd >/dev/null && PATH=$PATH:/usr/sbin command -v slurmdbd >/dev/null; then
	acct=1
fi
export SLURM_CI_ACCOUNTING=$acct
rm -rf "$TRASH/slurm"
t_ok "up.sh starts 2 nodes x 8 GPUs (accounting=$acct)" slurm_test_up
S=$SLURM_TEST_STATE
cp "$S/run/pids" "$TRASH/pids2"
sinfo -h -N -o '%N %t %G' >"$TRASH/sinfo2"
t_grep "node n2 is idle with gpu:8" "^n2 idle gpu:8" "$TRASH/sinfo2"
# shellcheck disable=SC2016 # expanded by the job
j=$(sbatch --parsable -N 2 --ntasks-per-node 1 --gpus-per-node 8 --exclusive -o "$TRASH/mn.out" \
	--wrap 'srun bash -c "echo \$SLURMD_NODENAME \$SLURM_GPUS_ON_NODE \$CUDA_VISIBLE_DEVICES"')
t_ok "a --nodes=2 --gpus-per-node=8 job completes" wait_state "$j" COMPLETED
sort "$TRASH/mn.out" >"$TRASH/mn.sorted"
printf 'n1 8 0,1,2,3,4,5,6,7\nn2 8 0,1,2,3,4,5,6,7\n' >"$TRASH/mn.want"
t_cmp "srun ran once per node with 8 GPUs each" "$TRASH/mn.want" "$TRASH/mn.sorted"
if [ "$acct" = 1 ]; then
	f=$(sbatch --parsable -o /dev/null --wrap 'exit 3')
	wait_state "$f" FAILED >/dev/null
	# slurmctld sends a job's end to slurmdbd on its own time: until it
	# lands, sacct still says PENDING, and for a while it may say FAILED
	# with the exit code not yet recorded (0:0). Wait for both (60 s at
	# most).
	for ((i = 0; i < 300; i++)); do
		sacct -n -X -P -j "$j,$f" -o JobID,State,ExitCode >"$TRASH/sacct" 2>&1
		grep -q "^$f|FAILED|3:0" "$TRASH/sacct" && break
		sleep 0.2
	done
	t_grep "sacct through slurmdbd knows the GPU job" "^$j\|COMPLETED\|0:0" "$TRASH/sacct"
	t_grep "and the failed one" "^$f\|FAILED\|3:0" "$TRASH/sacct"
fi
slurm_test_down
t_ok "down.sh stops every daemon again" daemons_gone "$TRASH/pids2"
t_done
