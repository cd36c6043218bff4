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
	# An install path make cannot hand on as one word: refused, naming
	# LLMB_INSTALL and what it may hold (it printed llmb nightly's usage).
	local goal
	for goal in nightly nightly-status; do
		t_rc "make $goal with a space in LLMB_INSTALL is refused" 2 m "$goal" NIGHT=2026-02-04 LLMB_INSTALL="$TRASH/a b"
		t_grep "make $goal: the refusal names LLMB_INSTALL and its characters" \
			"LLMB_INSTALL=$TRASH/a b must be a plain path of letters, digits and \._/\+-@ only" "$TRASH/.out"
		t_nogrep "make $goal: no usage text" 'usage: llmb' "$TRASH/.out"
	done
	t_ok "LLMB_INSTALL with a space: nothing made" test ! -e "$TRASH/a b" -a ! -e "$TRASH/a"
}

# Import that cannot poison the history: logs with impossible dates, logs
# that cannot be read, folders and workloads that do not exist are errors;
# two runs of one log name are told apart by content; a symbolic link loop
# is walked once; 10,000 logs import in one locked append.
nightly_import_bad() {
	local U=$TRASH/up J=$TRASH/imp-inst K=$TRASH/up/cpu_tiny_fp32_1
	local -a imp=("$LLMB" record --import --top "$T" --install "$J" --workload tinygpt)
	mkdir -p "$K"
	# A log dated before 2000 (1960: before the epoch) or in the future has
	# no night: bad input (exit 2), nothing imported, not even the good log
	# beside them, and no message says a night was written.
	fake_log 20 '' >"$K/log-old_6001.out" && touch -d 1990-01-01 "$K/log-old_6001.out"
	fake_log 20 '' >"$K/log-future_6002.out" && touch -d '+3 days' "$K/log-future_6002.out"
	fake_log 20 '' >"$K/log-sixties_6004.out" && touch -d 1960-06-01 "$K/log-sixties_6004.out"
	fake_log 20 '' >"$K/log-good_6005.out"
	t_rc "import: logs with impossible dates are bad input (exit 2)" 2 timeout 20 "${imp[@]}" "$U"
	t_grep "import: a log dated before 2000" 'log-old_6001.out: its modification time, 1990-01-01, is before 2000 \(a clock that was never set\): it gives the log no night' "$TRASH/.out"
	t_grep "import: a log dated 1960" 'log-sixties_6004.out: its modification time, 1960-06-01, is before 2000' "$TRASH/.out"
	t_grep "import: a log dated in the future" 'log-future_6002.out: its modification time, .*, is in the future: it gives the log no night' "$TRASH/.out"
	t_grep "import: says nothing was imported" '3 log\(s\) without a night: nothing imported, no history written' "$TRASH/.out"
	t_nogrep "import: no message of a night written or imported" 'written [0-9]|imported [0-9]|recorded' "$TRASH/.out"
	t_ok "import: none of them is a record, nor the good log" test ! -e "$J/history"
	rm -f "$K"/log-*
	mkfifo "$K/log-fifo_6003.out"
	t_rc "import: a FIFO is an error (exit 1)" 1 timeout 20 "${imp[@]}" "$U"
	t_grep "import: a FIFO is no log" 'log-fifo_6003.out: cannot read the log: not a regular file' "$TRASH/.out"
	t_ok "import: the FIFO is no record" test ! -e "$J/history"
	rm -f "$K"/log-*
	t_rc "import: a missing folder is an error (exit 2)" 2 "${imp[@]}" "$U" "$TRASH/nosuch"
	t_grep "import: the missing folder named" "nosuch: No such file or directory" "$TRASH/.out"
	t_rc "import: an unknown --workload is an error (exit 2)" 2 "$LLMB" record --import --top "$T" --install "$J" --workload nosuch "$U"
	t_grep "import: the unknown workload named" '--workload nosuch: no such workload' "$TRASH/.out"
	# the same log name in two folders: two runs when the logs differ, one when they are the same
	mkdir -p "$TRASH/up2/cpu_tiny_fp32_1" "$TRASH/up3/cpu_tiny_fp32_1"
	fake_log 20 '' >"$K/log-a_7001.out"
	fake_log 20 '' | sed 's/0\.5/0.6/' >"$TRASH/up2/cpu_tiny_fp32_1/log-a_7001.out"
	cp "$K/log-a_7001.out" "$TRASH/up3/cpu_tiny_fp32_1/"
	ln -s .. "$K/loop"
	t_rc "import: one log name in three folders, and a symbolic link loop" 0 timeout 60 "${imp[@]}" "$U" "$TRASH/up2" "$TRASH/up3"
	t_grep "import: the loop walked once" 'already walked' "$TRASH/.out"
	t_ok "import: two runs of one log name, told apart by content" test "$(cat "$J"/history/*.jsonl | wc -l)" = 2
	t_grep "import: the second run keyed by its content" '"job":"7001-[0-9a-f]{8}"' "$J"/history/*.jsonl
	rm -f "$K/loop"
	# An append after a torn last line (an append cut short: here the last
	# 100 bytes gone) ends that line first, never glues onto it: the new
	# record is a line of its own, and the reader names the torn one.
	local hf
	hf=$(ls "$J"/history/*.jsonl)
	truncate -s -100 "$hf"
	fake_log 20 '' | sed 's/0\.5/0.7/' >"$K/log-torn_7101.out"
	t_rc "import after a torn last line: appended (exit 0)" 0 "${imp[@]}" "$U"
	t_grep "import after a torn line: said with its place" "$(basename "$hf"):2:[0-9]+: warning: torn last line \(no newline at the end\): ended with a newline before appending" "$TRASH/.out"
	t_ok "import after a torn line: the new record is a whole line of its own" python3 -c '
import json, sys
lines = open(sys.argv[1]).read().split("\n")
after = [json.loads(l) for l in lines[2:-1]]
assert lines[-1] == "" and "7101" in [r["job"] for r in after]' "$hf"
	t_rc "judge: the torn line is an error (exit 2)" 2 "$LLMB" judge --install "$J"
	t_grep "judge: the torn line named with its place" "$(basename "$hf"):2:[0-9]+: error: not JSON, the line ends early .*: a torn record" "$TRASH/.out"
	t_ok "judge: the torn line alone is refused" test "$(grep -c error "$TRASH/.out")" = 1
	rm -f "$K/log-torn_7101.out"
	# 10,000 logs: one history read, one append
	# (written by bash alone: a pipe into cat was 20,000 processes, half
	# of this file's CPU time)
	local M=$TRASH/many/cpu_tiny_fp32_1 i body
	mkdir -p "$M"
	body=$(fake_log 20 '')
	for ((i = 0; i < 10000; i++)); do printf '# run %d\n%s\n' "$i" "$body" >"$M/log-m_$((10000 + i)).out"; done
	# its time is printed, never asserted: a loaded machine is not a slow import
	local t0=$SECONDS
	t_rc "import: 10,000 logs" 0 "$LLMB" record --import --top "$T" --install "$TRASH/many-inst" --workload tinygpt "$TRASH/many"
	echo "# import: 10,000 logs took $((SECONDS - t0)) s"
	t_ok "import: 10,000 records" test "$(cat "$TRASH"/many-inst/history/*.jsonl | wc -l)" = 10000
	t_ok "import: judge reads them" "$LLMB" judge --install "$TRASH/many-inst" --out "$TRASH/many.txt"
}

nightly_top
nightly_failures
nightly_import_bad
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
	make -C "$TOP" all >/dev/null 2>&1
	nightly_scenarios
	nightly_trend_page
	nightly_import
else
	echo "# the trained nights are skipped: python3-torch is not installed"
fi
t_done
