#!/bin/bash
# llmb job script for stage data.tinygpt.tokens (data tinygpt tokens), from templates/data.m4.
# Generated, do not edit. Secrets are passed by name, never written here.
set -euo pipefail
export LLMB_STAGE='data.tinygpt.tokens'
export LLMB_INSTALL='/llmb-install'
export LLMB_JOB_ID="${SLURM_JOB_ID:-${LLMB_JOB_ID:-unknown}}"
llmb_state='/llmb-install/state/jobs/data.tinygpt.tokens'
llmb_exit_record() {
	local rc=$? tmp now
	trap 'rc=143; echo "llmb: job $LLMB_JOB_ID got SIGTERM" >&2' TERM
	trap 'rc=130; echo "llmb: job $LLMB_JOB_ID got SIGINT" >&2' INT
	tmp="$llmb_state/exit.$LLMB_JOB_ID.tmp.$$"
	printf -v now '%(%s)T' -1
	printf 'status=%s\nend=%s\njob=%s\n' "$rc" "$now" "$LLMB_JOB_ID" >"$tmp" &&
		mv -f "$tmp" "$llmb_state/exit.$LLMB_JOB_ID"
	exit "$rc"
}
trap llmb_exit_record EXIT
trap 'echo "llmb: job $LLMB_JOB_ID got SIGTERM" >&2; exit 143' TERM
trap 'echo "llmb: job $LLMB_JOB_ID got SIGINT" >&2; exit 130' INT
printf '%s\n' "$LLMB_JOB_ID" >"$llmb_state/started.TOKEN.tmp.$$"
mv -f "$llmb_state/started.TOKEN.tmp.$$" "$llmb_state/started.TOKEN"
TZ=UTC0 printf -v llmb_start '%(%Y-%m-%dT%H:%M:%SZ)T' -1
echo "llmb: job $LLMB_JOB_ID stage $LLMB_STAGE on $HOSTNAME at $llmb_start"



llmb_ntasks=1
llmb_image=''
llmb_mounts=''
llmb_launch() {
	local w=()
	[ -z "${llmb_dump_env:-}" ] || w=(bash -c "$llmb_envdump" "$llmb_dump_env")
	if [ -n "${SLURM_JOB_ID:-}" ]; then
		local c=()
		if [ -n "$llmb_image" ]; then
			c+=("--container-image=$llmb_image" "--no-container-mount-home")
			[ -z "$llmb_mounts" ] || c+=("--container-mounts=$llmb_mounts")
		fi
		# In the background: bash runs a trap only between commands, and
		# the exit record must be written before Slurm's KillWait runs out.
		srun --kill-on-bad-exit=1 "${c[@]}" "${w[@]}" "${@}" &
		wait "$!" || return
		# srun exits 0 when its step was aborted with the job (a time
		# limit, a cancel: "Job step aborted"), and this script's own
		# SIGTERM may come only after it went on and exited 0 (seen in
		# the test suite: a training at its time limit, recorded as
		# status 0). A job Slurm no longer has RUNNING was cut short.
		squeue -h -j "$SLURM_JOB_ID" -o %T 2>/dev/null | grep -qvx RUNNING &
		if wait "$!"; then
			echo "llmb: job $LLMB_JOB_ID is ending: its step was aborted, whatever srun's exit status said" >&2
			return 143
		fi
		return 0
	fi
	if [ -n "$llmb_image" ]; then
		echo "llmb: stage needs container image $llmb_image: run it with EXECUTOR=slurm on a cluster with pyxis" >&2
		return 2
	fi
	local pids=() i rc=0 port=$((20000 + $$ % 20000))
	# The first port from there that nothing listens on: another job or
	# service of this machine may hold the one the pid gives.
	while (: <>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
	export MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=$llmb_ntasks
	for ((i = 0; i < llmb_ntasks; i++)); do
		RANK=$i LOCAL_RANK=$i "${w[@]}" "${@}" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=$?; done
	return "$rc"
}

llmb_ntasks=1
# Upstream's task environment: the workload directory, and the venv when
# the workload has one.
export LLMB_WORKLOAD='/llmb-install/workloads/tinygpt' MANUAL_INSTALL=false
llmb_venv='/llmb-install/venvs/venv_597beddc2aa1'
if [ -n "$llmb_venv" ]; then
	export VIRTUAL_ENV="$llmb_venv" PATH="$llmb_venv/bin:$PATH"
	unset PYTHONHOME
fi
mkdir -p '/llmb-install/workloads/tinygpt'
cd '/llmb-install/workloads/tinygpt'
llmb_need_gb='0.01'
llmb_need_kb=$(awk -v g="$llmb_need_gb" 'BEGIN { printf "%.0f", g * 1024 * 1024 }')
llmb_free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ "$llmb_free_kb" -lt "$llmb_need_kb" ]; then
	echo "llmb: error: not enough disk space for task tokens: it needs $llmb_need_gb GB (size_gb in the recipe), $PWD has $((llmb_free_kb / 1048576)) GB free" >&2
	exit 4
fi
echo "llmb: disk space ok: the task needs $llmb_need_gb GB, $((llmb_free_kb / 1048576)) GB free"
for f in 'data/tokens.bin' 'data/tokens.bin.json'; do mkdir -p "$(dirname "$f")"; done
llmb_launch '/llmb-install/venvs/venv_597beddc2aa1/bin/python' '@TOP@/workloads/tinygpt/prepare_data.py' '--out' '/llmb-install/workloads/tinygpt/data/tokens.bin'
# Done means every file that proves the task exists and is not empty; llmb
# checks them again before it writes the stamp.
for f in 'data/tokens.bin' 'data/tokens.bin.json'; do
	if [ ! -s "$f" ]; then
		echo "llmb: task finished but $f is missing or empty" >&2
		exit 3
	fi
done
echo "llmb: task complete"
