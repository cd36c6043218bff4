#!/usr/bin/env bash
# Fake training for t-slurm-states. Every task says where it runs; rank 0
# prints NeMo-format steps. SS_MODE picks what rank 0 does:
#   ok    all steps; the stage's first job sleeps SS_SLEEP seconds first
#         on its first SS_SLEEP_RUNS runs (a requeue is another run), so
#         a fault can hit it while later jobs and runs finish at once
#   oom   allocates SS_OOM_MB megabytes (more than the job's --mem)
steps=$1 install=$2
rank=${SLURM_PROCID:-${RANK:-0}}
echo "task $rank node ${SLURMD_NODENAME:-?} nodeid ${SLURM_NODEID:-?} restart ${SLURM_RESTART_COUNT:-0}"
[ "$rank" = 0 ] || exit 0
echo "train $LLMB_STAGE $LLMB_JOB_ID" >>"$install/count.train"
first=$(awk -v s="$LLMB_STAGE" '$2 == s {print $3; exit}' "$install/count.train")
if [ "$first" = "$LLMB_JOB_ID" ] && [ "${SLURM_RESTART_COUNT:-0}" -lt "${SS_SLEEP_RUNS:-1}" ]; then
	sleep "${SS_SLEEP:-0}"
fi
if [ "${SS_MODE:-ok}" = oom ]; then
	exec python3 -c "import time; b = b'x' * (${SS_OOM_MB:-600} << 20); time.sleep(5)"
fi
for ((i = 0; i < steps; i++)); do
	echo "Training epoch 0, iteration $i/$((steps - 1)) | reduced_train_loss: 2.5 | train_step_timing in s: 0.5 | TFLOPS_per_GPU: 1.0 | consumed_samples: $(((i + 1) * 16))"
done
