#!/usr/bin/env bash
# Runs every benchmark at its full size; each prints its own numbers and
# exits 1 when its own checks fail. Not part of make check: wall-clock
# numbers on a shared machine are reported, never asserted. Each bench also
# takes --smoke, a size that runs in seconds, which tests/t-bench.sh runs.
set -u
cd "$(dirname "$0")" || exit 2
rc=0
for b in gen.sh plan.sh parse.sh judge-nodes.sh detect.sh detect-shapes.sh slurm-poll.sh slurm-pipeline.sh slurm-scale.sh; do
	[ -x "$b" ] || [ -f "$b" ] || continue
	echo "=== bench/$b"
	bash "$b" || rc=1
done
exit "$rc"
