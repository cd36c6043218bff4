#!/usr/bin/env bash
# Fake download. SQ_DATA_FAIL=1 makes it fail with exit code 4.
echo "data $LLMB_JOB_ID" >>"$LLMB_INSTALL/count.data"
# SQ_DATA_SLEEP=N: N seconds before it succeeds or fails (a test looks at
# its dependents in the meantime).
sleep "${SQ_DATA_SLEEP:-0}"
if [ -n "${SQ_DATA_FAIL:-}" ]; then
	echo "sq data: download failed (SQ_DATA_FAIL)" >&2
	exit 4
fi
echo tokens >data/tokens.bin
