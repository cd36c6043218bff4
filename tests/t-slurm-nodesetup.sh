#!/usr/bin/env bash
# t-slurm-nodesetup: the NeMo launch pieces that need a real Slurm cluster,
# on 2 emulated nodes. workloads/node-setup.sh in a batch job of 2 tasks per
# node runs the vboost host command once per node (not once per task), with
# the stand-ins for sudo and nvidia-smi of tests/nemo-driver/host/ refusing
# on one node, and sums it up in the run's note without failing the job. The
# llmb_launch of a NeMo job script (train.srun: --mpi=pmix) starts every
# task under PMIx, on one node: the emulated nodes share one /tmp, where
# Slurm's PMIx plugin makes a directory named after the step, so a step
# over both fails to start. What only a GPU cluster shows: pyxis accepting
# --container-writable, PMIx across real nodes, sudo and vboost for real.
# Start it under the machine-wide lock (fixed ports):
#   flock /tmp/llmb-slurm.lock env LLMB=$PWD/build/llmb tests/run.sh slurm-nodesetup
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
unset LLMB_TEST_SLURM_STATE SBATCH_ACCOUNT SBATCH_PARTITION
export SLURM_CI_NODES=2 SLURM_CI_GPUS=0
FX=$TESTS_DIR/nemo-driver

# wait_done ID: the job leaves the queue within 60 s; prints its state.
wait_done() {
	local i st
	for ((i = 0; i < 300; i++)); do
		st=$(squeue -h -t all -j "$1" -o '%T' 2>/dev/null)
		case $st in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL) echo "$st"; return 0 ;; esac
		sleep 0.2
	done
	echo "${st:-unknown}"
	return 1
}

if ! slurm_test_up; then
	t_fail "start a 2-node cluster"
	t_done
	exit 1
fi

# ---- the node setup step -------------------------------------------------------
mkdir -p "$TRASH/state"
printf 'vboost\tsudo nvidia-smi boost-slider --vboost 1\n' >"$TRASH/state/node-setup.1"
cat >"$TRASH/setup-job.sh" <<EOS
#!/bin/bash
set -euo pipefail
export PATH='$FX/host':\$PATH NVSMI_RECORD='$TRASH/nvsmi.txt' SUDO_STANDIN_REFUSE_ON=n2
bash '$TOP/workloads/node-setup.sh' '$TRASH/state/node-setup.1' '$TRASH/state/note.1'
echo "batch step went on"
EOS
job=$(sbatch --parsable -N 2 --ntasks-per-node=2 -o "$TRASH/setup-job.out" "$TRASH/setup-job.sh")
t_ok "a job of 2 nodes x 2 tasks runs node-setup.sh: completed" test "$(wait_done "$job")" = COMPLETED
t_grep "...and went on after it" '^batch step went on$' "$TRASH/setup-job.out"
sort "$TRASH/nvsmi.txt" >"$TRASH/nvsmi.sorted" 2>/dev/null
echo 'n1 boost-slider --vboost 1' >"$TRASH/nvsmi.want"
t_ok "nvidia-smi ran once, on n1 (n2's sudo refused)" diff -u "$TRASH/nvsmi.want" "$TRASH/nvsmi.sorted"
t_ok "one result per node" test "$(find "$TRASH/state/node-setup.1.d" -type f | wc -l)" = 2
echo 'vboost applied on 1 of 2 nodes, refused on 1 (n2: exit 1: sudo: a password is required)' >"$TRASH/note.want"
t_ok "the note: applied on n1, refused on n2, why" diff -u "$TRASH/note.want" "$TRASH/state/note.1"
t_grep "the job's log says it per node" 'node setup on n2: vboost .*exit 1: sudo: a password is required' "$TRASH/setup-job.out"

# ---- the NeMo srun line: --mpi=pmix ------------------------------------------------
if srun --mpi=list 2>&1 | grep -q pmix; then
	# The launcher of the golden grok1 job script, without its image.
	sed -n '/^llmb_ntasks=/,/^}/p' "$TESTS_DIR/plans/train.grok1.h100.314b.bf16.512.sh" |
		sed "s|^llmb_image=.*|llmb_image=''|" >"$TRASH/launcher.sh"
	t_grep "the golden NeMo launcher passes --mpi=pmix" "srun --kill-on-bad-exit=1 '--mpi=pmix' " "$TRASH/launcher.sh"
	cat >"$TRASH/pmix-job.sh" <<EOS
#!/bin/bash
set -euo pipefail
. '$TRASH/launcher.sh'
# shellcheck disable=SC2016
llmb_launch bash -c 'echo "task \$SLURM_PROCID pmix \${PMIX_RANK:-none}"'
EOS
	job=$(sbatch --parsable -N 1 --ntasks-per-node=4 -o "$TRASH/pmix-job.out" "$TRASH/pmix-job.sh")
	t_ok "llmb_launch with --mpi=pmix: completed" test "$(wait_done "$job")" = COMPLETED
	grep '^task ' "$TRASH/pmix-job.out" | sort >"$TRASH/pmix.got"
	printf 'task %s pmix %s\n' 0 0 1 1 2 2 3 3 >"$TRASH/pmix.want"
	t_ok "...every task started under PMIx, its rank its PMIx rank" diff -u "$TRASH/pmix.want" "$TRASH/pmix.got"
else
	echo "# skipped: this Slurm has no mpi/pmix plugin"
fi
t_done
