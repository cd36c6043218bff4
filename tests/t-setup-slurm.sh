#!/usr/bin/env bash
# The resume scenarios of tests/setup/lib.sh (those of t-setup) with
# EXECUTOR=slurm on a real Slurm cluster the test starts: every job count
# comes from Slurm's own records (squeue -t all, MinJobAge raised above the
# test's length), so a make killed with SIGKILL during an import, a pip
# install, a clone or a download is proven to reattach to the job still
# running instead of submitting a second one, and a job cancelled halfway
# (scancel) is proven redone while what was complete is not. Then, from
# the same records: each submission llmb made is one Slurm job and no other,
# no stage ever had two jobs running at once, each stage's jobs ended as
# the scenarios intended, setup jobs ran on the CPU partition.
# LLMB_TEST_SLURM_STATE=DIR reuses a running cluster from tests/slurm/up.sh.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
unset SBATCH_ACCOUNT SBATCH_PARTITION SBATCH_GPUS_PER_NODE ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC
# several jobs at once (two makes, a job left by a killed make), and every
# job kept in squeue -t all for the whole test
export SLURM_CI_CPUS=${SLURM_CI_CPUS:-8} SLURM_CI_MIN_JOB_AGE=${SLURM_CI_MIN_JOB_AGE:-3600}
export SLURM_CI_CPU_PARTITION=cpu LLMB_CPU_PARTITION=cpu
t_ok "cluster is up" slurm_test_up || { t_done; exit 1; }

EXECUTOR=slurm
# shellcheck source=tests/setup/lib.sh
. "$TESTS_DIR/setup/lib.sh"

# ---- what Slurm's records say about the whole test ----------------------------------

# states STAGE: the states of the stage's jobs, oldest first
states() { slurm_jobs "$I" "$1" | sort -n | awk '{print $2}' | tr '\n' ' ' | sed 's/ $//'; }
# others STATES STATE: how many of STATES are not STATE
others() { tr ' ' '\n' <<<"$1" | grep -cvx "$2"; }
t_ok "the import: the job that died failed, the one two makes shared completed" \
	test "$(states "$IMG")" = "FAILED COMPLETED"
t_ok "beta's venv: built, cancelled during a clone, built again" \
	test "$(states "$VENV")" = "COMPLETED CANCELLED COMPLETED"
# (the downloads also ran again after the venv was rebuilt, and alpha's for
# its new venv: later jobs, all completed)
a=$(states data.alpha.slow)
t_ok "alpha's download: done, cancelled midway once its proof was deleted, redone ($a)" \
	test "${a%"${a#COMPLETED CANCELLED COMPLETED}"}" = "COMPLETED CANCELLED COMPLETED"
t_ok "alpha's download: every other job completed" test "$(others "$a" COMPLETED)" = 1
b=$(states data.beta.fetch)
t_ok "beta's download: every job completed ($b)" test -n "$b" -a "$(others "$b" COMPLETED)" = 0
t_ok "alpha's new venv: once" test "$(states "$NEWVENV")" = COMPLETED

# Every job script llmb wrote (one per submission) is one Slurm job, and
# Slurm has no job of this install tree that llmb did not count.
bad=
for d in "$I"/state/jobs/*/; do
	s=$(basename "$d")
	[ "$(scripts "$s")" = "$(jobs "$s")" ] || bad="$bad $s: $(scripts "$s") scripts, $(jobs "$s") jobs;"
done
t_ok "each submission llmb made is exactly one Slurm job${bad:+ ($bad)}" test -z "$bad"
total=0
for d in "$I"/state/jobs/*/; do total=$((total + $(scripts "$(basename "$d")"))); done
t_ok "Slurm has no other job of the install tree" \
	test "$(squeue -h -t all -o '%Z' | grep -cxF "$I")" = "$total"

# No stage ever had two jobs running at once: sorted by start, each job
# started after the one before it ended.
overlap=
for d in "$I"/state/jobs/*/; do
	s=$(basename "$d")
	o=$(slurm_jobs "$I" "$s" | sort -k3 | awk -v s="$s" 'NR > 1 && $3 < end {print s ": job " $1 " started at " $3 " before job " id " ended at " end} {id = $1; end = $4}')
	overlap=$overlap$o
done
t_ok "no stage ever had two jobs running at once${overlap:+ ($overlap)}" test -z "$overlap"

# partitions: "kind partition" of each job of the install tree, once each
partitions() {
	squeue -h -t all -o '%Z %P %j' | awk -v d="$I" '$1 == d {sub(/^llmb\./, "", $3); sub(/\..*/, "", $3); print $3, $2}' |
		sort -u | tr '\n' ' '
}
p=$(partitions)
t_ok "the setup jobs ran on the CPU partition, the trainings on the default one ($p)" \
	test "$p" = "data cpu image cpu train debug venv cpu "
t_done
