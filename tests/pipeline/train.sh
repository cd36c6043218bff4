#!/usr/bin/env bash
# Fake training for the pipeline tests: NeMo-format step lines, counted.
steps=$1 install=$2
# once per run, not per rank
[ "${RANK:-0}" != 0 ] || echo "train $LLMB_STAGE" >>"$install/count.train"
sleep "${QUICK_TRAIN_SLEEP:-0}"
# A note for the run record, left as the node setup step leaves one.
if [ -n "${QUICK_NOTE:-}" ] && [ "${RANK:-0}" = 0 ]; then
	printf '%s\n' "$QUICK_NOTE" >"$install/state/jobs/$LLMB_STAGE/note.$LLMB_JOB_ID"
fi
for ((i = 0; i < steps; i++)); do
	echo "Training epoch 0, iteration $i/$((steps - 1)) | reduced_train_loss: 2.5 | train_step_timing in s: 0.5 | TFLOPS_per_GPU: 1.0 | consumed_samples: $(((i + 1) * 2))"
done
