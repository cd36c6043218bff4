#!/usr/bin/env bash
# Fake training with NeMo-format step lines; SQ_MODE picks what happens:
#   ok           all steps, exit 0 (after SQ_SLEEP seconds)
#   fail         two steps, then exit 7
#   hang         two steps, then sleep past any time limit
#   finish-hang  every step, then sleep past the time limit
steps=$1 install=$2
[ "${RANK:-${SLURM_PROCID:-0}}" != 0 ] && exit 0
echo "train $LLMB_STAGE $LLMB_JOB_ID" >>"$install/count.train"
# a sleep cut short by a signal is a training that was stopped, not one
# that finished early
sleep "${SQ_SLEEP:-0}" || exit
# SQ_SLEEP_SPREAD=S: up to S s more, a different time for each job
[ -z "${SQ_SLEEP_SPREAD:-}" ] || sleep $((RANDOM % SQ_SLEEP_SPREAD)) || exit
n=$steps
case ${SQ_MODE:-ok} in fail|hang) n=2 ;; esac
for ((i = 0; i < n; i++)); do
	echo "Training epoch 0, iteration $i/$((steps - 1)) | reduced_train_loss: 2.5 | train_step_timing in s: 0.5 | TFLOPS_per_GPU: 1.0 | consumed_samples: $(((i + 1) * 2))"
done
case ${SQ_MODE:-ok} in
fail) echo "sq train: CUDA error: an illegal memory access was encountered" >&2; exit 7 ;;
hang|finish-hang) echo "sq train: stuck"; sleep 600 ;;
esac
exit 0
