#!/usr/bin/env bash
# t-nightly-slurm: the scenarios of t-nightly (four nights of tinygpt with
# the slowdown from night 3, a night killed with SIGKILL and resumed, an
# ASYNC night, two makes at once, the trend page, import) through a real
# single-node Slurm cluster started by the test. Jobs are counted from
# Slurm's own records (squeue -t all, MinJobAge above the test's length).
# Starts a cluster on fixed ports: run it under flock /tmp/llmb-slurm.lock.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
# shellcheck source=tests/nightly/lib.sh
. "$TESTS_DIR/nightly/lib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
/usr/bin/python3 -c 'import torch' 2>/dev/null || t_skip_all "python3-torch is not installed"
unset SBATCH_ACCOUNT SBATCH_PARTITION SBATCH_GPUS_PER_NODE ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC NIGHT
export SLURM_CI_CPUS=${SLURM_CI_CPUS:-32} SLURM_CI_MIN_JOB_AGE=${SLURM_CI_MIN_JOB_AGE:-3600}
if [ -z "${SLURM_CI_ACCOUNTING+x}" ] && command -v mariadbd >/dev/null 2>&1; then
	export SLURM_CI_ACCOUNTING=1
fi
t_ok "cluster is up" slurm_test_up || { t_done; exit 1; }
export LLMB_POLL_SECONDS=1 LLMB_CPU_PARTITION=cpu
# Every night's job gets 40 minutes, not the recipe's 10: the limit is there
# to catch a hang, and beside the 256-node scale test one tinygpt job took
# longer than 10 minutes (TIMEOUT) on a loaded 2-core machine.
export TIME_LIMIT=00:40:00
EXEC=slurm
# nsub STAGE: jobs Slurm ever had for STAGE of this install tree (the job's
# working directory is the install tree, its name llmb.<stage>.<token>).
nsub() {
	squeue -h -t all -o '%Z %j' | awk -v d="$I" -v s="llmb.$1." \
		'$1 == d && index($2, s) == 1 {n++} END {print n + 0}'
}
nightly_top
make -C "$TOP" all >/dev/null 2>&1
nightly_scenarios
t_ok "records name the nodes Slurm ran the job on" \
	test "$(grep -c '"executor":"slurm"' "$H"/*.jsonl) $(grep -c '"nodes":"unknown"' "$H"/*.jsonl)" = "4 0"
nightly_trend_page
nightly_import
t_done
