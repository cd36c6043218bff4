#!/usr/bin/env bash
# Fake download. SQ_DATA_FAIL=1 makes it fail with exit code 4.
echo "data $LLMB_JOB_ID" >>"$LLMB_INSTALL/count.data"
if [ -n "${SQ_DATA_FAIL:-}" ]; then
	echo "sq data: download failed (SQ_DATA_FAIL)" >&2
	exit 4
fi
sleep "${SQ_DATA_SLEEP:-0}"
echo tokens >data/tokens.bin
