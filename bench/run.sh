#!/usr/bin/env bash
# Runs every benchmark; each prints its own numbers. Not part of make check:
# wall-clock numbers on a shared machine are reported, never asserted.
set -u
cd "$(dirname "$0")" || exit 2
rc=0
for b in gen.sh parse.sh detect.sh slurm-poll.sh slurm-pipeline.sh slurm-scale.sh; do
	[ -x "$b" ] || [ -f "$b" ] || continue
	echo "=== bench/$b"
	bash "$b" || rc=1
done
exit "$rc"
