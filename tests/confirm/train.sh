#!/usr/bin/env bash
# train.sh STEPS [--extra-work N]: a training stand-in whose steps take real
# time that depends on the node. Slow-clock stand-in behaviour: each step
# does a fixed amount of work (a sleep of 0.3 s) stretched by the node's
# max/current SM clock as nvidia-smi reports it (the stand-in in
# tests/provenance/bin gives NVSMI_STANDIN_SLOW nodes 1410 of 1980 MHz:
# 40% longer steps), plus N half-steps of extra work (EXTRA_WORK, a
# stand-in for a software regression). The step time printed is the
# measured one. NeMo-format step lines, rank 0 only.
steps=$1 extra=0
[ "${2:-}" = --extra-work ] && extra=$3
[ "${RANK:-${SLURM_PROCID:-0}}" != 0 ] && exit 0
clocks=$(nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader,nounits | head -n 1)
cur=${clocks%%,*} max=${clocks##*, }
work=$(awk -v c="$cur" -v m="$max" -v e="$extra" 'BEGIN { printf "%.4f", 0.3 * m / c * (1 + 0.5 * e) }')
echo "cf train: node ${SLURMD_NODENAME:-?} SM clock $cur of $max MHz, $work s of work per step"
# The measured interval holds no process start: read -t on a pipe that
# never delivers is bash's own sleep, EPOCHREALTIME its own clock. On a
# loaded 2-core machine, starting sleep and date inside the step made
# normal nights vary by 40%, as much as the slow clock does.
exec {never}<> <(:)
us() { local t=${1//[!0-9]/}; echo $((10#$t)); }
for ((i = 0; i < steps; i++)); do
	t0=$EPOCHREALTIME
	read -r -t "$work" -u "$never" _ || true
	t1=$EPOCHREALTIME
	d=$(($(us "$t1") - $(us "$t0")))
	dt=$(printf '%d.%06d' $((d / 1000000)) $((d % 1000000)))
	echo "Training epoch 0, iteration $i/$((steps - 1)) | reduced_train_loss: 2.5 | train_step_timing in s: $dt | TFLOPS_per_GPU: 1.0 | consumed_samples: $(((i + 1) * 2))"
done
