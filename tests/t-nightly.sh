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
EXEC=local
# nsub STAGE: jobs the local executor was given for STAGE (one script each).
nsub() { find "$I/state/jobs/$1" -name 'job.*.sh' 2>/dev/null | wc -l; }

# The gate under bad input, without training (llmb nightly run with a make
# command that does nothing): a night that cannot be judged is an error
# with a summary that says why, and the notify hook is told.
# fnight INSTALL ARGS...: llmb nightly run as make nightly calls it.
fnight() {
	local inst=$1; shift
	env -C "$T" LLMB_INSTALL="$inst" EXECUTOR=local "$@" "$LLMB" nightly run --top "$T" --install "$inst" \
		--policy "$T/pipelines/nightly.yaml" -- true
}
nightly_failures() {
	local F=$TRASH/fail-inst fp=tinygpt_cpu_tiny_fp32_1_000000000000
	mkdir -p "$F/history" "$TRASH/fail-notified"
	printf 'not json\n' >"$F/history/$fp.jsonl"
	t_rc "a history the judge refuses: the night is an error (exit 2)" 2 \
		fnight "$F" NIGHT=2026-02-01 NIGHTLY_NOTIFY="cp -t $TRASH/fail-notified"
	t_grep "the error night has a summary that says why" 'ERROR: the night was not judged' "$F/nightly/2026-02-01/summary.txt"
	t_grep "the summary names the history line" "$fp.jsonl:1:[0-9]+: error: not JSON" "$F/nightly/2026-02-01/summary.txt"
	t_grep "the status is error" '^2 error$' "$F/nightly/2026-02-01/status"
	t_ok "the notify hook got the error summary" cmp "$TRASH/fail-notified/summary.txt" "$F/nightly/2026-02-01/summary.txt"
	# A writer killed before its rename left status.tmp.<pid>: the next
	# write of the status removes it (a fresh one may be a live writer's).
	local nd=$F/nightly/2026-02-01
	: >"$nd/status.tmp.999999999" && touch -d '10 minutes ago' "$nd/status.tmp.999999999"
	: >"$nd/status.tmp.999999998"
	t_rc "the night judged again" 2 fnight "$F" NIGHT=2026-02-01
	t_ok "a killed writer's old status.tmp.<pid> is removed" test ! -e "$nd/status.tmp.999999999"
	t_ok "a fresh status.tmp.<pid> is left alone" test -e "$nd/status.tmp.999999998"
	# One boolean parser: ASYNC=off is off (the night is judged, here an
	# error), a spelling llmb does not know is refused.
	t_rc "ASYNC=off is off: the night is judged, not left running" 2 fnight "$F" NIGHT=2026-02-02 ASYNC=off
	t_ok "ASYNC=off: the night has its status" test -s "$F/nightly/2026-02-02/status"
	t_rc "ASYNC=maybe is refused" 2 fnight "$F" NIGHT=2026-02-03 ASYNC=maybe
	t_grep "ASYNC=maybe: the refusal names the spellings" 'ASYNC=maybe: expected 1/0, true/false, yes/no or on/off' "$TRASH/.out"
	t_ok "ASYNC=maybe: no night was started" test ! -e "$F/nightly/2026-02-03"
	# NIGHT as make would expand it: to nothing (today's night, silently) or by running it.
	# shellcheck disable=SC2016 # make text, unexpanded
	for v in '$(EMPTY)' "\$(shell touch $TRASH/pwned-night)"; do
		t_rc "make nightly NIGHT=[$v] is refused" 2 m nightly NIGHT="$v" LLMB_INSTALL="$F"
		t_grep "NIGHT=[$v]: the refusal says what a night is" 'a night is a date, YYYY-MM-DD' "$TRASH/.out"
	done
	t_ok "NIGHT: nothing ran" test ! -e "$TRASH/pwned-night"
	t_ok "NIGHT: no night of today was started" test ! -e "$F/nightly/current"
}

nightly_top
nightly_failures
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
	make -C "$TOP" all >/dev/null 2>&1
	nightly_scenarios
	nightly_trend_page
	nightly_import
else
	echo "# the trained nights are skipped: python3-torch is not installed"
fi
t_done
