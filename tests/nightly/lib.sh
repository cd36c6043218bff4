# tests/nightly/lib.sh: the nightly scenarios shared by t-nightly (local
# executor) and t-nightly-slurm (a real Slurm cluster). The caller sets
# EXEC (local or slurm) and defines nsub STAGE-ID (how many jobs the
# executor was ever given for that stage, counted from its own records).
# shellcheck shell=bash

# The top: the project's files, the real tinygpt recipe with a shorter run
# (20 steps, a window of 16, sequences of 64: half the CPU of the recipe's
# 128, over the six trainings of a run of this file) that measures its steps
# in CPU seconds of one thread (a test machine's load swings wall-clock step
# times by multiples), and a matrix of tinygpt scale 1.
nightly_top() {
	T=$TRASH/top
	mkdir -p "$T/workloads" "$T/pipelines"
	for f in GNUmakefile generator scripts templates tests; do ln -s "$TOP/$f" "$T/$f"; done
	ln -s "$TOP/workloads/tinygpt" "$T/workloads/tinygpt"
	cp "$TOP/pipelines/benchmark.yaml" "$TOP/workloads/gpus.yaml" "$T/pipelines/"
	mv "$T/pipelines/gpus.yaml" "$T/workloads/"
	sed -e 's/^  steps: 50$/  steps: 20/' -e 's/^  window: \[11, 44\]$/  window: [3, 18]/' -e 's/{seq: 128, mbs: 4,/{seq: 64, mbs: 4,/' \
		-e 's/"{model_flops}"\]$/"{model_flops}", "--clock", "cpu", "--threads", "1"]/' \
		"$TOP/workloads/tinygpt.yaml" >"$T/workloads/tinygpt.yaml"
	sed -e 's/scales: \[1, 2\]/scales: [1]/' "$TOP/pipelines/nightly.yaml" >"$T/pipelines/nightly.yaml"
	I=$TRASH/inst
	H=$I/history
}

# m ARGS...: make in the top with this test's install tree and rules.
m() { make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR="$EXEC" "$@"; }
# em VAR=VALUE... ARGS...: m with extra environment (for t_ok and t_rc).
em() (
	while [[ $1 == *=* ]]; do export "${1?}"; shift; done
	m "$@"
)
train_id() { echo "train.tinygpt.cpu.tiny.fp32.1.night-$1"; }
run_dir() { echo "$I/workloads/tinygpt/experiments/cpu_tiny_fp32_1/night-$1"; }
# nrec NIGHT: history records of that night; njobs: distinct jobs recorded.
nrec() { cat "$H"/*.jsonl 2>/dev/null | grep -c "\"night\":\"$1\"" || true; }
nlines() { cat "$H"/*.jsonl 2>/dev/null | wc -l; }
njobs() { cat "$H"/*.jsonl 2>/dev/null | grep -o '"job":"[^"]*"' | sort -u | wc -l; }
# jq-free JSON queries through python3.
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# wait_train NIGHT: the night's training job runs and has logged steps.
wait_train() {
	local i
	for ((i = 0; i < 1200; i++)); do
		grep -q 'iteration [1-9]' "$(run_dir "$1")"/log-*.out 2>/dev/null && return 0
		t_nap 0.2
	done
	return 1
}

# The slowdown from night 3 on: extra forward passes per micro-batch, about
# 4x the step. With two baseline nights the judge calls only an effect four
# times their spread; on a shared machine two normal nights once differed
# by 60%, and 4 extra passes (+88%) then came out INCONCLUSIVE.
SLOW=EXTRA_WORK=10

nightly_scenarios() {
	local N1=2026-01-01 N2=2026-01-02 N3=2026-01-03 N4=2026-01-04 pg mk a b
	t_rc "NIGHT=not-a-date is refused (make's status 2)" 2 m nightly NIGHT=not-a-date
	t_grep "the refusal says what a night is" 'NIGHT=not-a-date: a night is a date, YYYY-MM-DD' "$TRASH/.out"
	t_ok "a refused night submits nothing" test ! -e "$I/state/jobs"

	# Night 1: setup and the first run; nothing to compare with yet.
	t_rc "night 1 passes" 0 m nightly NIGHT=$N1
	t_grep "night 1: a one-line summary" '^llmb judge 2026-01-01: ' "$TRASH/.out"
	t_ok "night 1: one record" test "$(nrec $N1)" = 1
	t_ok "night 1: status file" grep -qx '0 pass' "$I/nightly/$N1/status"
	t_ok "night 1: the run lives in night-$N1" test -s "$(run_dir $N1)/train.done"

	# Night 2: make killed with SIGKILL (its whole process group) while the
	# training runs; the next make nightly, with no NIGHT, resumes night 2.
	setsid make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR="$EXEC" \
		nightly NIGHT=$N2 >"$TRASH/killed.out" 2>&1 &
	mk=$!
	t_ok "night 2: the training job runs" wait_train $N2
	pg=$(ps -o pgid= -p "$mk" | tr -d ' ')
	[ -n "$pg" ] && kill -KILL -- "-$pg"
	wait "$mk" 2>/dev/null
	t_ok "night 2: killed before anything was recorded" test "$(nrec $N2)" = 0
	t_ok "night 2: the unfinished night is current" grep -qx $N2 "$I/nightly/current"
	m nightly >"$TRASH/resumed.out" 2>&1
	t_grep "the next make nightly resumes night 2" 'resuming night 2026-01-02' "$TRASH/resumed.out"
	t_ok "night 2: judged (a pass, or inconclusive on a noisy machine)" \
		grep -Eqx '(0 pass|4 inconclusive)' "$I/nightly/$N2/status"
	t_ok "night 2: one job, never resubmitted" test "$(nsub "$(train_id $N2)")" = 1
	t_ok "night 2: one record" test "$(nrec $N2)" = 1
	t_ok "night 2: over, no current night" test ! -e "$I/nightly/current"

	# Night 3, slow, ASYNC: the first make submits and returns, the second
	# collects, records and judges: SUSPECT only warns.
	t_rc "night 3 (ASYNC=1) submits and returns" 0 em $SLOW nightly NIGHT=$N3 ASYNC=1
	t_grep "night 3: the run is left running" 'still running; the next make nightly collects' "$TRASH/.out"
	t_ok "night 3: nothing judged yet" test ! -e "$I/nightly/$N3/status"
	t_rc "night 3 collected by a second make: SUSPECT passes" 0 em $SLOW nightly
	cp "$TRASH/.out" "$TRASH/night3.out"
	t_grep "night 3 is SUSPECT" 'SUSPECT' "$I/nightly/$N3/summary.txt"
	t_ok "night 3: status 0" grep -qx '0 pass' "$I/nightly/$N3/status"
	t_ok "night 3: one job" test "$(nsub "$(train_id $N3)")" = 1
	t_ok "night 3: one record, with the knob" test "$(grep "\"night\":\"$N3\"" "$H"/*.jsonl | grep -c "\"EXTRA_WORK\":\"${SLOW#EXTRA_WORK=}\"")" = 1

	# Night 4, slow, two make nightly at once: one runs, the other waits for
	# it; the regression is confirmed and named from night 3.
	mkdir -p "$TRASH/notified"
	em $SLOW NIGHTLY_NOTIFY="cp -t $TRASH/notified" nightly NIGHT=$N4 >"$TRASH/a.out" 2>&1 &
	a=$!
	t_ok "night 4: the training job runs" wait_train $N4
	em $SLOW nightly NIGHT=$N4 >"$TRASH/b.out" 2>&1 &
	b=$!
	local rca=0 rcb=0
	wait "$a" || rca=$?
	wait "$b" || rcb=$?
	t_ok "night 4: both makes fail (make's status 2)" test "$rca $rcb" = "2 2"
	t_grep "night 4: the second make waited for the first" 'another make nightly is running' "$TRASH/b.out"
	t_ok "night 4: one job for two makes" test "$(nsub "$(train_id $N4)")" = 1
	t_ok "night 4: one record for two makes" test "$(nrec $N4)" = 1
	t_ok "every record once: lines = distinct jobs = 4" test "$(nlines) $(njobs)" = "4 4"
	t_ok "night 4: status 1 (confirmed regression)" grep -qx '1 regression' "$I/nightly/$N4/status"
	t_grep "night 4: the regression is printed" 'CONFIRMED' "$TRASH/a.out"
	t_grep "night 4: first bad night is night 3" 'first bad night 2026-01-03' "$I/nightly/$N4/summary.txt"
	t_ok "night 4: verdict.json names night 3 as first bad night" \
		test "$(jq_py "$I/nightly/$N4/verdict.json" "[c['first_bad_night'] for c in d['configurations']][0]")" = $N3
	t_ok "the notify hook got the summary" cmp "$TRASH/notified/summary.txt" "$I/nightly/$N4/summary.txt"
	# What changed, from the two runs' provenance.json (nights 2 and 3).
	t_grep "night 4: the provenance diff of the last good and the first bad night" \
		"^  provenance: [1-9][0-9]* fields? differ between workloads/tinygpt/experiments/cpu_tiny_fp32_1/night-$N2 and workloads/tinygpt/experiments/cpu_tiny_fp32_1/night-$N3\$" \
		"$I/nightly/$N4/summary.txt"
	t_grep "night 4: the job script changed (the slowdown knob is in its command)" '^    configuration\.script_sha256: ' "$I/nightly/$N4/summary.txt"
	t_ok "night 4: verdict.json: the same diff, the runs' own identity left out" python3 - "$I/nightly/$N4/verdict.json" <<'EOF2'
import json, sys
c = json.load(open(sys.argv[1]))["configurations"][0]["provenance_changed"]
fields = [g + "." + x["field"] for g in ("software", "configuration", "machine", "nodes") for x in c["differences"][g]]
assert c["count"] == len(fields) > 0 and "configuration.script_sha256" in fields, c
assert not any(f in ("machine.job", "machine.submit", "machine.end") for f in fields), fields
assert c["a"].endswith("night-2026-01-02") and c["b"].endswith("night-2026-01-03"), c
EOF2
	t_rc "llmb judge says 1 on night 4" 1 "$LLMB" judge --install "$I" --night $N4
	t_rc "make nightly-status exits non-zero" 2 m nightly-status
	t_rc "llmb nightly status says 1" 1 "$LLMB" nightly status --install "$I"
}

# The trend page in headless Chromium, with the change point drawn: the
# rendered DOM has the marker, and the screenshot shows it as a vertical
# line of its red (#cf222e) across the chart; the red text and dots of
# confirmed nights are far shorter than 60 pixels in any column.
nightly_trend_page() {
	local page=$I/nightly/2026-01-04/trend.html
	t_ok "trend page written" test -s "$page"
	t_grep "trend page: inline SVG" '<svg' "$page"
	t_grep "trend page: the first bad night is marked" 'class="cp first-bad"[^>]*>first bad night 01-03' "$page"
	t_nogrep "trend page: nothing from the network" '(src|href)="https?:' "$page"
	if ! command -v chromium >/dev/null; then
		echo "# SKIP chromium is not installed: the trend page was not rendered"
		return
	fi
	t_chrome --dump-dom "file://$page" >"$TRASH/trend.dom"
	t_grep "Chromium: the rendered page has the change-point line" '<line class="cp first-bad"' "$TRASH/trend.dom"
	(cd "$TRASH" && t_chrome --screenshot="$TRASH/trend.png" --window-size=1280,1400 "file://$page" >/dev/null)
	t_ok "Chromium: the screenshot shows the change-point line" \
		test "$(python3 "$TESTS_DIR/nightly/pixels.py" "$TRASH/trend.png" 207 34 46 90)" -ge 60
}

# Import: earlier run directories seed a new history, once.
nightly_import() {
	local J=$TRASH/imported up=$TRASH/upstream/cpu_tiny_fp32_1
	mkdir -p "$up"
	cp "$(ls "$(run_dir 2026-01-01)"/log-*.out)" "$up/log-tinygpt_cpu_tiny_fp32_1_4242.out"
	t_ok "import of the night directories and an upstream folder" \
		"$LLMB" record --import --top "$T" --install "$J" "$I/workloads/tinygpt/experiments"
	t_ok "the upstream folder imports with --workload" \
		"$LLMB" record --import --top "$T" --install "$J" --workload tinygpt "$TRASH/upstream"
	t_ok "imported: the four nights and the upstream job" test "$(cat "$J"/history/*.jsonl | wc -l)" = 5
	t_ok "imported upstream job keyed by its log name" grep -q '"job":"4242"' "$J"/history/*.jsonl
	"$LLMB" record --import --top "$T" --install "$J" "$I/workloads/tinygpt/experiments" >"$TRASH/again.out" 2>&1
	t_grep "a second import appends nothing" 'imported 0 run' "$TRASH/again.out"
	t_ok "still five records" test "$(cat "$J"/history/*.jsonl | wc -l)" = 5
	t_ok "same fingerprint as the nightly records" test "$(basename "$J"/history/*.jsonl)" = "$(basename "$H"/*.jsonl)"
	t_nogrep "no secret in any record" 'HF_TOKEN|hf_' "$H/$(basename "$H"/*.jsonl)"

	# Validity, from logs written here in the NeMo format tinygpt prints:
	# a complete run, one cut short, one with a NaN loss.
	local K=$TRASH/validity/cpu_tiny_fp32_1 V=$TRASH/valid-inst
	mkdir -p "$K"
	fake_log 20 '' >"$K/log-ok_5001.out"
	fake_log 11 '' >"$K/log-short_5002.out"
	fake_log 20 8 >"$K/log-nan_5003.out"
	t_ok "import of three upstream logs" "$LLMB" record --import --top "$T" --install "$V" --workload tinygpt "$TRASH/validity"
	t_ok "a complete run is valid" grep -q '"invalid":\[\],"job":"5001".*"valid":true' "$V"/history/*.jsonl
	t_ok "a run cut short: incomplete window, missed final step" \
		grep -q '"invalid":\["incomplete window (8 of 16 steps)","missed final step"\],"job":"5002"' "$V"/history/*.jsonl
	t_ok "a NaN loss makes the run invalid" grep -q '"job":"5003".*"valid":false' "$V"/history/*.jsonl
	t_ok "the samples are the window's step times, in order" python3 -c "
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
a = [x for x in r if x['job'] == '5001'][0]
sys.exit([round(x, 6) for x in a['samples']] != [round(0.5 + i / 1000, 6) for i in range(3, 19)] or a['summary']['n'] != 16)
" "$(ls "$V"/history/*.jsonl)"
	t_ok "llmb judge reads the imported history" "$LLMB" judge --format=json --install "$V" --out "$TRASH/valid.json"
}

# fake_log STEPS NAN_STEP: a NeMo-format log of a run of 20 steps that
# stops after STEPS, with a NaN loss at NAN_STEP (empty: none).
fake_log() {
	local i loss
	for ((i = 0; i < $1; i++)); do
		loss=2.5
		[ "$i" = "${2:-x}" ] && loss=nan
		printf 'Training epoch 0, iteration %d/19 | lr: 0.003 | global_batch_size: 8 | global_step: %d | reduced_train_loss: %s | train_step_timing in s: 0.5%02d | TFLOPS_per_GPU: 0.001 | consumed_samples: %d\n' \
			"$i" "$i" "$loss" "$i" $(((i + 1) * 8))
	done
}
