#!/usr/bin/env bash
# tinygpt on a GPU node: the whole pipeline (venv, data, train, parse,
# report) through the local executor on this node, as a user runs it:
#   bench/tinygpt-gpu.sh [GPU_TYPE [SCALES]]     (default: h100 1)
# Prints the report (step time, tokens/s, TFLOPS/GPU, MFU) and copies the
# run's log, result.json and report to $BENCH_OUT when set. Needs
# nvidia-smi and a CUDA build of PyTorch 2.x that /usr/bin/python3
# imports. Not in run.sh: CI has no GPU. Measured results are kept in
# bench/results/.
set -eu
cd "$(dirname "$0")/.."
gpu=${1:-h100}
scales=${2:-1}
nvidia-smi -L || { echo "tinygpt-gpu: no GPU here (nvidia-smi -L failed)" >&2; exit 2; }
install=${LLMB_INSTALL:-$(mktemp -d)}
rc=0
make report WORKLOAD=tinygpt GPU_TYPE="$gpu" SCALES="$scales" EXECUTOR=local \
	LLMB_INSTALL="$install" || rc=$?
if [ -n "${BENCH_OUT:-}" ]; then
	mkdir -p "$BENCH_OUT"
	(cd "$install/workloads/tinygpt" &&
		find experiments reports \( -name 'log-*' -o -name result.json -o -name provenance.json \
			-o -name '*.txt' -o -name '*.md' -o -name '*.json' \) -type f -print0 |
		xargs -0 -r tar -cf - ) | tar -xf - -C "$BENCH_OUT"
fi
exit "$rc"
