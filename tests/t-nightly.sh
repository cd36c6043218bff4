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
	# A log whose name is not UTF-8 (its job id would be no JSON text): an
	# error naming it, never a silent drop; the log beside it is recorded.
	fake_log 20 '' >"$K/log-a_x"$'\xff'".out"
	fake_log 20 '' >"$K/log-b_7201.out"
	t_rc "import: a log name that is not UTF-8 is an error (exit 1)" 1 timeout 20 "${imp[@]}" "$U"
	t_grep "import: ...said" 'cpu_tiny_fp32_1: a log whose name is not UTF-8 text; not recorded' "$TRASH/.out"
	t_nogrep "import: ...never a (null)" '\(null\)' "$TRASH/.out"
	t_grep "import: the other log is recorded" '"job":"7201"' "$J"/history/*.jsonl
	rm -rf "$K"/log-* "$J/history"
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

# Adoption: an install tree upstream's llmb-run wrote (v26.06.01: its
# run_config.py create_llmb_config and job_logs.py). Per job,
# llmb-config_<jobid>.yaml in the job's folder under
# workloads/<workload_type>_<workload>/experiments (NeMo-Run's job folder
# for nemo, <key>_<size>_<dtype>_gpus<scale>/<time> for configured_sbatch),
# its log beside it (log-*_<jobid>_<retry>.out, else slurm-<jobid>.out).
# upcfg DIR JOB MODEL: the job record llmb-run writes, for tinygpt's cpu
# tiny fp32 run of 1 GPU.
upcfg() {
	mkdir -p "$1"
	cat >"$1/llmb-config_$2.yaml" <<EOF
job_info:
  job_id: '$2'
  launcher_type: nemo
  launch_time: '2026-01-05T21:05:18.298517'
  experiment_id: null
workload_info:
  framework: nemo2
  gsw_version: 26.06.01
  fw_version: 25.09.00
  workload_type: pretrain
  synthetic_dataset: true
model_info:
  model_name: $3
  model_size: tiny
  dtype: fp32
  scale: 1
  gpu_type: cpu
cluster_info:
  cluster_name: cluster-1
  gpus_per_node: 8
  llmb_install: /lustre/llmb
  llmb_repo: /lustre/llmb/llmb_repo
  slurm_account: account_name
  slurm_gpu_partition: batch
  slurm_cpu_partition: cpu
container_info:
  images:
  - nvcr.io#nvidia/nemo:25.09.00
job_config:
  profile_enabled: false
  proxy: false
  strong_scaling: false
  env_overrides: {}
  model_overrides: {}
EOF
}
nightly_import_upstream() {
	local U=$TRASH/upinst J=$TRASH/upimp-inst
	local X=$U/workloads/pretrain_tinygpt/experiments
	local E=pretrain_tinygpt_tiny_fp32_gpus1_tp1_pp1_cp1_vp1_mbs1_gbs8
	local A=$X/$E/${E}_1767647118 B=$X/pretrain_tinygpt_tiny_fp32_gpus1/1767650718
	upcfg "$A" 6301 tinygpt
	# a retry: the job's last log is its run
	fake_log 11 '' >"$A/log-account.$E-account_6301_0.out"
	fake_log 20 '' >"$A/log-account.$E-account_6301_1.out"
	upcfg "$B" 6302 tinygpt
	fake_log 20 '' >"$B/slurm-6302.out"
	upcfg "$X/$E/${E}_1767654318" 6303 tinygpt
	upcfg "$U/workloads/pretrain_nosuch/experiments/x/x_1767657918" 6304 nosuch
	fake_log 20 '' >"$U/workloads/pretrain_nosuch/experiments/x/x_1767657918/log-a.x_6304_0.out"
	upcfg "$U/workloads/pretrain_tinygpt" 6305 tinygpt
	mkfifo "$X/llmb-config_6306.yaml"
	t_rc "upstream tree: its jobs imported, those that cannot be say so (exit 1)" 1 \
		timeout 60 "$LLMB" record --import --top "$T" --install "$J" "$U"
	cp "$TRASH/.out" "$TRASH/upimp.out"
	t_grep "upstream tree: two runs imported" 'imported 2 run\(s\)' "$TRASH/upimp.out"
	t_grep "upstream tree: the jobs read are counted" '2 of 6 upstream job record\(s\)' "$TRASH/upimp.out"
	t_grep "upstream tree: a FIFO is no job record (the walk goes on)" 'llmb-config_6306.yaml: not a regular file' "$TRASH/upimp.out"
	t_ok "upstream tree: keyed by their job ids, the last retry's log" python3 - "$J"/history/*.jsonl <<'EOF'
import json, sys
r = {x["job"]: x for x in map(json.loads, open(sys.argv[1]))}
assert sorted(r) == ["6301", "6302"], sorted(r)
assert r["6301"]["valid"] is True and r["6301"]["summary"]["n"] == 16, r["6301"]
assert r["6302"]["executor"] == "slurm", r["6302"]
EOF
	t_grep "upstream tree: a job without its log, named, saying what was expected" \
		'llmb-config_6303.yaml: no log of job 6303 beside it \(expected log-\*_6303_<retry>.out or slurm-6303.out' "$TRASH/upimp.out"
	t_grep "upstream tree: a model llmb has no workload for" 'llmb-config_6304.yaml: model nosuch is no llmb workload' "$TRASH/upimp.out"
	t_grep "upstream tree: a legacy sbatch job (its log in the recipe folder)" 'llmb-config_6305.yaml: no log of job 6305' "$TRASH/upimp.out"
	t_rc "upstream tree again: nothing appended" 1 "$LLMB" record --import --top "$T" --install "$J" "$U/workloads"
	t_grep "upstream tree again: already there" 'imported 0 run\(s\), 2 already in the history' "$TRASH/.out"
	mkdir -p "$TRASH/norun/a/b"
	t_rc "a folder without any run: an error (exit 1)" 1 "$LLMB" record --import --top "$T" --install "$J" "$TRASH/norun"
	t_grep "  saying what it expected" 'norun: no run found \(expected llmb run folders, <gpu>_<size>_<dtype>_<scale>, or upstream llmb-run job folders holding llmb-config_<jobid>.yaml\)' "$TRASH/.out"
}

nightly_top
nightly_failures
nightly_import_bad
nightly_import_upstream
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
	make -C "$TOP" all >/dev/null 2>&1
	nightly_scenarios
	nightly_trend_page
	nightly_import
else
	echo "# the trained nights are skipped: python3-torch is not installed"
fi
t_done
