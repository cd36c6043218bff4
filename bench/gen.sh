#!/usr/bin/env bash
# Generator and make at scale: a synthetic recipe that expands to 10,000
# train targets (and as many parse targets). Prints wall times of the
# generation, `make -n`, and a no-op `make` when everything is up to date,
# with GNU make deciding 20,000 plain up-to-date targets (-rR) as the yard
# stick, measured in the same run. Targets (2 cores): generation < 0.5 s,
# no-op make < 0.25 s.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
llmb=${LLMB:-$top/build/llmb}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/top/workloads" "$w/top/pipelines"
for f in GNUmakefile generator scripts templates tests; do ln -s "$top/$f" "$w/top/$f"; done
cp "$top/pipelines/benchmark.yaml" "$w/top/pipelines/"
cp "$top/workloads/gpus.yaml" "$w/top/workloads/"
scales=$(seq -s, 1 500)
{
	echo "workload: synth"
	echo "type: pretrain"
	echo "pipeline: benchmark"
	echo "log_format: nemo2"
	echo "images: {base: {ref: 'nvcr.io#nvidia/nemo:25.07.01'}}"
	echo "models:"
	for s in $(seq 1 10); do echo "  s$s: {layers: $s, hidden: 4096}"; done
	echo "flops: {mlp: '24 * seq * layers * hidden^2'}"
	echo "measure: {window: [35, 44]}"
	echo "train: {image: base, cmd: [python3, train.py, --gbs, '{gbs}', --seq, '{seq}']}"
	echo "configs:"
	for s in $(seq 1 10); do
		echo "  - {gpu: h100, size: s$s, dtype: [bf16, fp8], scales: [$scales], params: {seq: 4096, gbs: 'scale * 2', tp: 2}}"
	done
} >"$w/top/workloads/synth.yaml"
TIMEFORMAT=%R
m() { make -C "$w/top" --no-print-directory B="$top/build" LLMB_GEN="$w/gen" LLMB_INSTALL="$w/inst" EXECUTOR=slurm WORKLOAD=synth "$@"; }
t() { local s; s=$( { time "$@" >/dev/null 2>&1; } 2>&1 ); echo "$s"; }

gen1=$(t env -C "$w/top" WORKLOAD=synth "$llmb" gen --top . --gen "$w/gen")
gen2=$(t env -C "$w/top" WORKLOAD=synth "$llmb" gen --top . --gen "$w/gen")
n=$(grep -c '^\$(LLMB_STATE)/done/train\.' "$w/gen/rules.mk")
plan=$(t m -n llmb-report)
# Everything done: outputs first, stamps after them.
mkdir -p "$w/inst/state/done"
(cd "$w/gen/cfg" && ls) | (cd "$w/inst/state/done" && xargs touch)
sed -n 's/^output=//p' "$w"/gen/cfg/* | sort -u | (cd "$w/inst" && xargs -n 500 sh -c 'for f; do mkdir -p "$(dirname "$f")"; : >"$f"; done' sh) 
find "$w/inst/workloads" -type f -exec touch -d '1 minute ago' {} +
find "$w/gen/cfg" -type f -exec touch -d '2 minutes ago' {} +
touch -d '2 minutes ago' "$w/gen/rules.mk"
# One timestamp for every stamp: make only rebuilds what is strictly older.
now=@$(date +%s)
find "$w/inst/state/done" -type f -exec touch -d "$now" {} +
touch -d "$now" "$w/gen/rules.mk"
noop=$(t m llmb-report)
left=$(m -n llmb-report 2>/dev/null | grep -c 'llmb run' || true)

# The yard stick: GNU make alone on 20,000 up-to-date explicit targets.
mkdir -p "$w/plain"
( cd "$w/plain" && for i in $(seq 1 20000); do echo "t$i: s$i"; done >Makefile && echo "all: $(for i in $(seq 1 20000); do printf 't%s ' "$i"; done)" >>Makefile && seq 1 20000 | sed 's/^/s/' | xargs touch && seq 1 20000 | sed 's/^/t/' | xargs touch )
plain=$(t make -rR -C "$w/plain" all)

echo "train targets:                  $n"
echo "llmb gen (first, writes all):   $gen1 s"
echo "llmb gen (nothing changed):     $gen2 s"
echo "make -n (everything to do):     $plan s"
echo "no-op make (all up to date):    $noop s   ($left stages left to run: must be 0)"
echo "GNU make, 20,000 plain targets: $plain s"
awk -v a="$noop" -v b="$plain" 'BEGIN { if (b > 0) printf "no-op make / plain make:        %.1fx\n", a / b }'
