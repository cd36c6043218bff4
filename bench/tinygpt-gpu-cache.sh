#!/usr/bin/env bash
# tinygpt on one GPU, torch.compile's cache cold and warm alternated:
#   bench/tinygpt-gpu-cache.sh [PAIRS]     (default 3)
# Runs workloads/tinygpt/train.py with the arguments the plan gives the
# 355m bf16 train stage, PAIRS times cold (the cache removed first) then
# warm (the cache of the run before), with nvidia-smi sampling the SM
# clock, temperature and power every 0.25 s, and prints each run's mean
# step time over steps 11-44 and its first step, then each state's mean
# and their ratio. The logs and the samples go to $BENCH_OUT when set.
# Needs nvidia-smi and a CUDA build of PyTorch 2.x that python3 imports.
# Not in run.sh: CI has no GPU. Measured results are in
# bench/results/tinygpt-h200.md.
set -u
cd "$(dirname "$0")/.." || exit 2
pairs=${1:-3}
case $pairs in '' | *[!0-9]* | 0) echo "tinygpt-gpu-cache: PAIRS '$pairs': a count of 1 or more" >&2; exit 2 ;; esac
nvidia-smi -L || { echo "tinygpt-gpu-cache: no GPU here (nvidia-smi -L failed)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/llmb-gpu-cache.XXXXXX") || exit 2
smi=
trap '[ -z "$smi" ] || kill "$smi" 2>/dev/null; rm -rf "$W"' EXIT
python3 workloads/tinygpt/prepare_data.py --out "$W/tokens.bin" >"$W/prepare.log" 2>&1 || { cat "$W/prepare.log" >&2; exit 1; }
# `make -n report WORKLOAD=tinygpt GPU_TYPE=h200 SCALES=1`'s train command
args=(--data "$W/tokens.bin" --steps 50 --seq 1024 --layers 24 --hidden 1024 --heads 16 --vocab 50304
	--mbs 16 --gbs 32 --model-flops 2.48115e12 --device cuda --dtype bf16 --lr 3e-4 --compile)
# Inductor's cache (Triton's inside it) in a directory of this bench's own:
# train.py keeps a cache its caller names, and the cold runs remove it.
export TORCHINDUCTOR_CACHE_DIR=$W/cache TRITON_CACHE_DIR=$W/cache/triton
nvidia-smi --query-gpu=timestamp,clocks.sm,temperature.gpu,power.draw --format=csv -lms 250 >"$W/clocks.csv" 2>&1 &
smi=$!
rc=0
for i in $(seq "$pairs"); do
	for state in cold warm; do
		r=$state$i
		[ "$state" = cold ] && rm -rf "$W/cache"
		echo "$r start $(date -u +%FT%T.%N)" >>"$W/runs.log"
		python3 workloads/tinygpt/train.py "${args[@]}" --compile-cache shared >"$W/$r.out" 2>&1 || { rc=1; echo "$r: train.py failed" >&2; }
		echo "$r end $(date -u +%FT%T.%N)" >>"$W/runs.log"
		# Step times read here, not by llmb parse: its means keep three
		# decimals, as upstream's parser does, and the runs of one state
		# differ in the fourth.
		sed -n 's/.*iteration \([0-9]*\)\/.*train_step_timing in s: \([0-9.]*\).*/\1 \2/p' "$W/$r.out" |
			awk -v r="$r" -v s="$state" '$1 == 0 { f = $2 } $1 >= 11 && $1 <= 44 { t += $2; n++ }
				END { if (n) printf "%s %s %.4f %.2f\n", r, s, t / n, f }' >>"$W/steps"
		sleep 5
	done
done
awk '{ printf "%-7s steps 11-44 mean %.4f s, first step %.2f s\n", $1, $3, $4; m[$2] += $3; c[$2]++ }
	END { if (c["cold"] && c["warm"]) printf "cold %.4f s, warm %.4f s (means of %d each): warm/cold %.3f\n",
		m["cold"] / c["cold"], m["warm"] / c["warm"], c["cold"], (m["warm"] / c["warm"]) / (m["cold"] / c["cold"]) }' "$W/steps"
if [ -n "${BENCH_OUT:-}" ]; then
	mkdir -p "$BENCH_OUT" && cp "$W"/*.out "$W/clocks.csv" "$W/runs.log" "$BENCH_OUT"/
fi
exit "$rc"
