#!/usr/bin/env bash
# t-nightly: make nightly end to end with the local executor, on the real
# tinygpt (PyTorch on CPU, a shorter run): four nights, the slowdown knob
# (EXTRA_WORK, real extra work per step) from night 3 on. Night 3 is
# SUSPECT and passes, night 4 CONFIRMED with night 3 as the first bad night
# and a non-zero exit; night 2 is killed (SIGKILL of make's process group)
# while its job runs and resumed; night 3 runs ASYNC; night 4 is asked for
# by two makes at once. Jobs are counted from the executor's own records
# (one submitted script per job), records from the history files. Then the
# trend page in headless Chromium, and import of the run directories.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/nightly/lib.sh
. "$TESTS_DIR/nightly/lib.sh"
/usr/bin/python3 -c 'import torch' 2>/dev/null || t_skip_all "python3-torch is not installed"
EXEC=local
# nsub STAGE: jobs the local executor was given for STAGE (one script each).
nsub() { find "$I/state/jobs/$1" -name 'job.*.sh' 2>/dev/null | wc -l; }
nightly_top
make -C "$TOP" all >/dev/null 2>&1
nightly_scenarios
nightly_trend_page
nightly_import
t_done
