#!/usr/bin/env bash
# A slow download for the setup tests: NAME FILE...; each file is written
# in chunks straight into its final name, as a naive downloader does, so a
# job killed midway leaves a partial file behind. It runs in the workload's
# venv and needs HF_TOKEN, which it never prints.
set -euo pipefail
name=$1
shift
echo "$name $LLMB_JOB_ID" >>"$LLMB_INSTALL/count.data-$name"
: "${HF_TOKEN:?HF_TOKEN is passed by name}"
python -c 'import plainpkg, sys; assert sys.prefix != sys.base_prefix'
touch "$LLMB_INSTALL/marker.data-$name"
for f in "$@"; do
	: >"$f"
	for i in 1 2 3 4; do
		printf 'chunk %s of %s\n' "$i" "$f" >>"$f"
		sleep "${SETUPT_DATA_SLEEP:-0}"
	done
done
