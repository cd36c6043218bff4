#!/bin/bash
# llmb job script for stage train.kimi-k2.gb200.1t.fp8.256 (train kimi-k2 gb200 1t fp8 x256), from templates/train.m4.
# Generated, do not edit. Secrets are passed by name, never written here.
#SBATCH --mem=0
#SBATCH --segment=16
set -euo pipefail
export LLMB_STAGE='train.kimi-k2.gb200.1t.fp8.256'
export LLMB_INSTALL='TRASH/mbinst'
export LLMB_JOB_ID="${SLURM_JOB_ID:-${LLMB_JOB_ID:-unknown}}"
llmb_state='TRASH/mbinst/state/jobs/train.kimi-k2.gb200.1t.fp8.256'
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

export TORCH_NCCL_AVOID_RECORD_STREAMS='1'
export TRANSFORMERS_OFFLINE='1'
export TOKENIZERS_PARALLELISM='False'
export NCCL_NVLS_ENABLE='0'
export TORCH_NCCL_HIGH_PRIORITY='1'
export HF_HUB_OFFLINE='1'
export OPENBLAS_NUM_THREADS='1'
export HF_HOME='TRASH/mbinst/.cache/huggingface'
export CUDA_DEVICE_MAX_CONNECTIONS='32'
export NCCL_NET_GDR_LEVEL='PHB'
export NCCL_NET_GDR_C2C='1'
export NVTE_FWD_LAYERNORM_SM_MARGIN='20'
export NVTE_BWD_LAYERNORM_SM_MARGIN='20'
export NVTE_NORM_FWD_USE_CUDNN='1'
export NVTE_NORM_BWD_USE_CUDNN='1'
export NVLINK_DOMAIN_SIZE='72'
export USE_MNNVL='1'
export NUM_OF_HYBRID_EP_RANKS_PER_NVLINK_DOMAIN='64'
export NUM_OF_TOKENS_PER_CHUNK_COMBINE_API='128'

llmb_ntasks=4
llmb_image='TRASH/mbinst/images/nvidia+nemo+26.04.01.sqsh'
llmb_mounts='TRASH/mbinst:TRASH/mbinst','TOP/workloads:TOP/workloads:ro'
llmb_launch() {
	local w=()
	[ -z "${llmb_dump_env:-}" ] || w=(bash -c "$llmb_envdump" "$llmb_dump_env")
	if [ -n "${SLURM_JOB_ID:-}" ]; then
		local c=()
		if [ -n "$llmb_image" ]; then
			c+=("--container-image=$llmb_image" "--no-container-mount-home" '--container-writable' '--container-env=HF_HUB_OFFLINE,NCCL_NET_GDR_C2C,NCCL_NET_GDR_LEVEL,NCCL_NVLS_ENABLE,NVTE_NORM_BWD_USE_CUDNN,NVTE_NORM_FWD_USE_CUDNN,TOKENIZERS_PARALLELISM,TORCH_NCCL_AVOID_RECORD_STREAMS,TORCH_NCCL_HIGH_PRIORITY,TRANSFORMERS_OFFLINE')
			[ -z "$llmb_mounts" ] || c+=("--container-mounts=$llmb_mounts")
		fi
		# In the background: bash runs a trap only between commands, and
		# the exit record must be written before Slurm's KillWait runs out.
		srun --kill-on-bad-exit=1 '--mpi=pmix' "${c[@]}" "${w[@]}" "${@}" &
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

if [ -n "${SLURM_JOB_ID:-}" ]; then
	timeout -k 5 60 srun --ntasks-per-node=1 --ntasks="${SLURM_JOB_NUM_NODES:-1}" bash 'TOP/templates/probe-node.sh' "$llmb_state" "$LLMB_JOB_ID" &
	wait "$!" || echo "llmb: the node probe step failed; the run goes on" >&2
else
	bash 'TOP/templates/probe-node.sh' "$llmb_state" "$LLMB_JOB_ID" || true
fi
mkdir -p 'TRASH/mbinst/workloads/kimi-k2/experiments/gb200_1t_fp8_256'
cd 'TRASH/mbinst/workloads/kimi-k2/experiments/gb200_1t_fp8_256'
# The rank-0 task's environment, as upstream's --dump-env: llmb_launch
# starts each task of the training through llmb_envdump, whose rank 0
# writes its environment to the state directory (NAME=value entries ended
# by NUL), each secret's value (by name) replaced, then becomes the
# training (exec); provenance.json takes it from there. A dump that fails
# fails nothing.
# shellcheck disable=SC2016 # the task's own program, expanded there
llmb_envdump='if [ "${SLURM_PROCID:-${RANK:-0}}" = 0 ]; then
	for n in $(compgen -e); do
		case $n in
		*[Tt][Oo][Kk][Ee][Nn]*|*[Ss][Ee][Cc][Rr][Ee][Tt]*|*[Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd]*|*[Pp][Aa][Ss][Ss][Ww][Dd]*|*[Cc][Rr][Ee][Dd][Ee][Nn][Tt][Ii][Aa][Ll]*|*[Aa][Pp][Ii][Kk][Ee][Yy]*|*[Aa][Pp][Ii]_[Kk][Ee][Yy]*|*[Pp][Rr][Ii][Vv][Aa][Tt][Ee]_[Kk][Ee][Yy]*|*[Jj][Ww][Tt]*|*_[Kk][Ee][Yy]|*_[Kk][Ee][Yy]_[Ii][Dd]|[Pp][Aa][Ss][Ss]|[Pp][Aa][Ss][Ss]_*|*_[Pp][Aa][Ss][Ss]|*_[Pp][Aa][Ss][Ss]_*|[Pp][Aa][Tt]|[Pp][Aa][Tt]_*|*_[Pp][Aa][Tt]|*_[Pp][Aa][Tt]_*|*_[Pp][Ww][Dd]|*_[Pp][Ww][Dd]_*) printf "%s=%s\0" "$n" "<redacted>" ;;
		*) printf "%s=%s\0" "$n" "${!n}" ;;
		esac
	done >"$0.tmp.$$" 2>/dev/null && mv -f "$0.tmp.$$" "$0" || :
fi
exec "$@"'
llmb_dump_env="$llmb_state/env.$LLMB_JOB_ID"
llmb_launch 'python3' 'TOP/workloads/mbridge-launch.py' '--mbridge-src' 'TRASH/mbinst/venvs/venv_ad119793e286/src/megatron_bridge' '--profile' '0' '--pytorch-profile' '0' '--gpu-metrics' '0' '--profile-start' '45' '--profile-stop' '50' '--profile-ranks' 'all' '--nsys-trace' 'cuda' '--profile-dir' 'TRASH/mbinst/workloads/kimi-k2/experiments/gb200_1t_fp8_256' '--' '--model_family_name' 'kimi' '--gpu' 'gb200' '--container_image' 'TRASH/mbinst/images/nvidia+nemo+26.04.01.sqsh' '--num_gpus' '256' '--gpus_per_node' '4' '--offline' '--max_steps=50' '--custom_mounts=TRASH/mbinst/.cache/huggingface' '--enable_pct_binding' 'false' '--log_dir' 'TRASH/mbinst/workloads/kimi-k2/experiments/gb200_1t_fp8_256' '-gb' '2048' '--model_recipe_name' 'kimi_k2' '--compute_dtype' 'fp8_mx'
echo "llmb: training finished"
if [ "${LLMB_SKIP_AFTER_PROBE:-0}" != 1 ]; then
if [ -n "${SLURM_JOB_ID:-}" ]; then
	timeout -k 5 60 srun --ntasks-per-node=1 --ntasks="${SLURM_JOB_NUM_NODES:-1}" bash 'TOP/templates/probe-node.sh' "$llmb_state" "$LLMB_JOB_ID" after &
	wait "$!" || echo "llmb: the node probe step failed; the run goes on" >&2
else
	bash 'TOP/templates/probe-node.sh' "$llmb_state" "$LLMB_JOB_ID" after || true
fi
fi
