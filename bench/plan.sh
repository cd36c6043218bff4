#!/usr/bin/env bash
# bench/plan.sh: `make -n report` over every Megatron-Bridge recipe of
# workloads/ (framework: megatron_bridge) at every GPU type, dtype and
# scale it lists, proxy runs included (PROXY=1): the plan a user reads
# before submitting today's training set. Each workload is planned with
# the GPU types its rows name (GPU_TYPE is required for these recipes).
# Prints, per planning and in all: trainings planned, wall and CPU seconds
# (user + system of make and the llmb gen it runs), peak RSS. Target: the
# whole set under 2 s on 2 cores. Fails (exit 1) when a plan fails or
# plans no training.
#   bench/plan.sh            the whole set, best of 3
#   bench/plan.sh --smoke    one planning of llama3.1 (tests/t-bench.sh)
set -eu
export LC_ALL=C
TOP=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/llmb-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
fail() { echo "plan.sh: FAILED: $*" >&2; exit 1; }
runs=3
wls=$(grep -l '^framework: megatron_bridge' "$TOP"/workloads/*.yaml | sed 's|.*/||; s|\.yaml$||')
if [ "${1:-}" = --smoke ]; then runs=1 wls=llama3.1; fi
[ -n "$wls" ] || fail "no Megatron-Bridge recipe in workloads/"
# HF_TOKEN by name only: the plan needs it set, never its value.
export HF_TOKEN=${HF_TOKEN:-plan-bench-not-a-token}
unset SCALES DTYPE SIZE ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC
total_wall=0 total_cpu=0 total_n=0 peak=0
for wl in $wls; do
	gpus=$(grep -o 'gpu: [a-z0-9]*' "$TOP/workloads/$wl.yaml" | cut -d' ' -f2 | sort -u | tr '\n' ' ')
	best_w=999999 best_c=0 rss=0
	for ((i = 0; i < runs; i++)); do
		rm -rf "$W/gen"
		/usr/bin/time -f '%e %U %S %M' -o "$W/time" make -C "$TOP" -n report LLMB_GEN="$W/gen" LLMB_INSTALL="$W/inst" \
			EXECUTOR=slurm PROXY=1 WORKLOAD="$wl" GPU_TYPE="$gpus" >"$W/plan" 2>"$W/err" ||
			fail "$wl: make -n report failed: $(tail -n 3 "$W/err")"
		read -r w u s m <"$W/time"
		if awk -v a="$w" -v b="$best_w" 'BEGIN {exit !(a < b)}'; then
			best_w=$w best_c=$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')
		fi
		[ "$m" -gt "$rss" ] && rss=$m
	done
	n=$(grep -c "^: '\[[0-9]*/[0-9]*\] train " "$W/plan" || true)
	[ "$n" -gt 0 ] || fail "$wl: no training planned"
	printf '%-12s %4d trainings (%s): %5.2f s wall, %5.2f s CPU, %6d KiB peak\n' "$wl" "$n" "${gpus% }" "$best_w" "$best_c" "$rss"
	total_wall=$(awk -v a="$total_wall" -v b="$best_w" 'BEGIN {print a + b}')
	total_cpu=$(awk -v a="$total_cpu" -v b="$best_c" 'BEGIN {print a + b}')
	total_n=$((total_n + n))
	[ "$rss" -gt "$peak" ] && peak=$rss
done
printf 'all          %4d trainings: %5.2f s wall, %5.2f s CPU, %6d KiB peak (target: under 2 s)\n' "$total_n" "$total_wall" "$total_cpu" "$peak"
