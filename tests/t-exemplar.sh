#!/usr/bin/env bash
# t-exemplar: make exemplar, a suite in upstream's exemplar.yaml shape run
# as one make graph with the local executor, then certified. Two tinygpt
# workloads of the test's own checkout (exa, and exb whose training does
# extra forward passes, the work EXTRA_WORK adds): without references both
# are "no reference" and the suite is not certified (exit 1); with exa's
# measured step time as both references exb is below the 95% line, named,
# exit 1; with each its own, certified, exit 0; a pass line above 100%
# fails again. The references are edited after the runs, which run once:
# a recipe's reference is not part of a run's configuration. Then repeats
# and a profiled run (the shell-only quick workload, with a profiling knob
# of its own here), which is listed and never counted; and bad suites,
# refused with file:line:col before anything runs.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# the enroot stand-in: quick's image import
export PATH=$TESTS_DIR/bin:$PATH
T=$TRASH/top
I=$TRASH/inst
t_quick_checkout "$T"
# exa and exb: tinygpt with a shorter run of smaller batches, measured in
# CPU seconds of one thread (a shared machine's load swings wall-clock step
# times).
for w in exa exb; do
	ln -s "$TOP/workloads/tinygpt" "$T/workloads/$w"
	sed -e "s/^workload: tinygpt$/workload: $w/" -e 's/^  steps: 50$/  steps: 12/' \
		-e 's/^  window: \[11, 44\]$/  window: [3, 10]/' -e 's/seq: 128, mbs: 4, gbs: 8,/seq: 32, mbs: 1, gbs: 1,/' \
		-e 's/"{model_flops}"\]$/"{model_flops}", "--clock", "cpu", "--threads", "1"]/' \
		"$TOP/workloads/tinygpt.yaml" >"$T/workloads/$w.yaml"
done
sed -i 's/"--threads", "1"\]$/"--threads", "1", "--extra-work", "3"]/' "$T/workloads/exb.yaml"
t_grep "exb's training does extra work" '"--extra-work", "3"\]$' "$T/workloads/exb.yaml"
S=$T/pipelines/exemplar.yaml
cat >"$S" <<'YAML'
config:
  scale: 1
  repeats: 1
  profile: false
workloads:
  cpu:
    - exa_tiny:
        dtypes: [fp32]
    - exb_tiny:
        dtypes: [fp32]
YAML

m() { make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR=local "$@"; }
# lx [VAR=VALUE...]: llmb exemplar on the runs there (no make command): make
# can only exit 2 on failure, llmb exemplar exits with the verdict.
lx() { env -C "$T" LLMB_INSTALL="$I" "$@" "$LLMB" exemplar --top "$T" --install "$I" --suite "${LXS:-$S}"; }
st() { cat "$I/exemplar/status"; }
cert=$I/exemplar/certification
# jq-free JSON queries through python3.
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
conf() { jq_py "$cert.json" "[c for c in d['configurations'] if c['workload']=='$1'][0]['$2']"; }
# ref W STEP: the reference row of workload W at scale 1, step time STEP.
ref() {
	sed -i '/^reference:/,$d' "$T/workloads/$1.yaml"
	printf 'reference:\n  - {gpu: cpu, size: tiny, dtype: fp32, scale: 1, step_time: %s}\n' "$2" >>"$T/workloads/$1.yaml"
}
ntrain() { find "$I/state/jobs" -path '*train.ex*' -name 'job.*.sh' 2>/dev/null | wc -l; }

# ---- bad suites: refused before anything runs (exit 2) ----------------------
bad() {
	printf '%s\n' "$2" >"$TRASH/bad.yaml"
	LXS=$TRASH/bad.yaml t_rc "bad suite ($1): exit 2" 2 lx
	t_grep "bad suite ($1): file:line:col: error: $3" "bad.yaml:[0-9]+:[0-9]+: error: $3" "$TRASH/.out"
}
bad "not YAML" 'config: [scale' '.'
bad "unknown key" $'config: {scale: 1, repeat: 2}\nworkloads: {cpu: [{exa_tiny: {dtypes: [fp32]}}]}' ".*repeat"
bad "no size in the name" $'config: {scale: 1}\nworkloads: {cpu: [{exa: {dtypes: [fp32]}}]}' "'exa' is not <workload>_<size>"
bad "two keys in an entry" $'config: {scale: 1}\nworkloads: {cpu: [{exa_tiny: {dtypes: [fp32]}, exb_tiny: {dtypes: [fp32]}}]}' "an entry has one key"
bad "listed twice" $'config: {scale: 1}\nworkloads:\n  cpu:\n    - exa_tiny: {dtypes: [fp32]}\n    - exa_tiny: {dtypes: [fp32]}' "'exa_tiny' is listed twice for cpu \\(first at 4:7\\)"
bad "unknown workload" $'config: {scale: 1}\nworkloads: {cpu: [{nosuch_tiny: {dtypes: [fp32]}}]}' "no workload 'nosuch'"
bad "unknown size" $'config: {scale: 1}\nworkloads: {cpu: [{exa_huge: {dtypes: [fp32]}}]}' "workload exa has no size 'huge'"
bad "a GPU type the workload lacks" $'config: {scale: 1}\nworkloads: {h100: [{exa_tiny: {dtypes: [fp32]}}]}' "workload exa does not run size tiny on h100"
bad "a dtype it lacks" $'config: {scale: 1}\nworkloads: {cpu: [{exa_tiny: {dtypes: [fp32, bf16]}}]}' "workload exa has no dtype bf16 for size tiny on cpu"
bad "a scale it lacks" $'config: {scale: 4}\nworkloads: {cpu: [{exa_tiny: {dtypes: [fp32]}}]}' "workload exa does not run tiny fp32 on cpu at scale 4"
bad "several GPU types" $'config: {scale: 1}\nworkloads: {cpu: [{exa_tiny: {dtypes: [fp32]}}], h100: [{exa_tiny: {dtypes: [fp32]}}]}' "the suite has several GPU types \\(cpu, h100\\): set GPU_TYPE to one"
bad "pass line" $'config: {scale: 1, pass_pct: 0}\nworkloads: {cpu: [{exa_tiny: {dtypes: [fp32]}}]}' "pass_pct must be a percentage above 0"
bad "profiling a workload that cannot" $'config: {scale: 1, profile: true}\nworkloads: {cpu: [{exa_tiny: {dtypes: [fp32]}}]}' "profile: true, but workload exa cannot profile"
t_rc "GPU_TYPE=h100 for a suite of cpu only: exit 2" 2 m exemplar GPU_TYPE=h100
t_grep "GPU_TYPE=h100: the suite's types are named" "exemplar.yaml:[0-9]+:[0-9]+: error: no workloads for GPU type 'h100'; the suite has: cpu" "$TRASH/.out"
t_rc "EXEMPLAR_PASS_PCT=abc is refused (exit 2)" 2 lx EXEMPLAR_PASS_PCT=abc
t_grep "EXEMPLAR_PASS_PCT=abc: the refusal says what it takes" 'EXEMPLAR_PASS_PCT=abc: a percentage above 0' "$TRASH/.out"
# shellcheck disable=SC2016 # make text, unexpanded
t_rc "EXEMPLAR_PASS_PCT with a make expansion is refused" 2 m exemplar EXEMPLAR_PASS_PCT="\$(shell touch $TRASH/pwned)"
t_ok "...and nothing ran it" test ! -e "$TRASH/pwned"
t_rc "EXEMPLAR=a path make cannot hold is refused" 2 m exemplar EXEMPLAR="$TRASH/a suite.yaml"
t_grep "...naming the rule" 'EXEMPLAR=.* must be a plain path' "$TRASH/.out"
t_ok "nothing ran for the refused suites" test "$(ntrain)" = 0
t_ok "make -n exemplar: the plan" m -n exemplar
t_grep "make -n: exa's training is in the plan" 'train exa cpu tiny fp32 x1 exemplar-1' "$TRASH/.out"
t_grep "make -n: exb's too" 'train exb cpu tiny fp32 x1 exemplar-1' "$TRASH/.out"
t_ok "make -n: no install tree was made" test ! -e "$I"

# ---- the suite: two workloads, no references yet ----------------------------
t_rc "make exemplar without references: not certified (make's exit 2)" 2 m exemplar
cp "$TRASH/.out" "$TRASH/noref.out"
t_ok "the status file: 1 not-certified" test "$(st)" = "1 not-certified"
t_rc "llmb exemplar: no reference is not a pass (exit 1)" 1 lx
t_grep "the table says no reference for exa" '^exa +tiny +fp32 +1 +1/1 .* no reference$' "$TRASH/noref.out"
t_grep "the table says no reference for exb" '^exb +tiny +fp32 +1 +1/1 .* no reference$' "$TRASH/noref.out"
t_grep "the verdict line names both" '^NOT CERTIFIED: no reference for 2 configuration\(s\); 2 of 2 configuration\(s\) not passing' "$TRASH/noref.out"
t_ok "one training job per workload" test "$(ntrain)" = 2
t_ok "exa's run lives in experiments/exemplar/<run>/repeat-1" \
	test -s "$I/workloads/exa/experiments/exemplar/cpu_tiny_fp32_1/repeat-1/result.json"
t_ok "no report stage ran for the suite" test ! -e "$I/workloads/exa/reports"
t_ok "the certification text is the table printed" grep -q '^NOT CERTIFIED' "$cert.txt"
t_grep "the JSON says not certified" '"verdict": "NOT CERTIFIED"' "$cert.json"
A=$(jq_py "$cert.json" "[c for c in d['configurations'] if c['workload']=='exa'][0]['runs'][0]['step_time_mean']")
B=$(jq_py "$cert.json" "[c for c in d['configurations'] if c['workload']=='exb'][0]['runs'][0]['step_time_mean']")
echo "# measured step times (CPU s): exa $A, exb $B"
t_ok "exb's extra work makes it more than 5% slower than exa" python3 -c "import sys; sys.exit(not $B > $A / 0.95)"

# ---- exa's step time as both references: exb misses the line -----------------
ref exa "$A"
ref exb "$A"
t_rc "exb below 95% of its reference: not certified (make's exit 2)" 2 m exemplar
cp "$TRASH/.out" "$TRASH/fail.out"
t_ok "the status file: 1 not-certified" test "$(st)" = "1 not-certified"
t_rc "llmb exemplar: exb below the line (exit 1)" 1 lx
t_grep "exa passes at 100%" '^exa +tiny +fp32 +1 +1/1 +step_time .* 100\.0% +pass$' "$TRASH/fail.out"
t_grep "exb fails, below the line" '^exb +tiny +fp32 +1 +1/1 +step_time .* FAIL$' "$TRASH/fail.out"
t_grep "the verdict names exb" '^NOT CERTIFIED: 1 of 2 configuration\(s\) not passing: exb tiny fp32 \(FAIL\)$' "$TRASH/fail.out"
t_ok "the JSON: exb FAIL, exa pass" test "$(conf exb result) $(conf exa result)" = "FAIL pass"
t_ok "the JSON: exit status 1" test "$(jq_py "$cert.json" "d['exit_status']")" = 1
t_ok "editing references ran no training" test "$(ntrain)" = 2

# ---- each its own reference: certified ----------------------------------------
ref exb "$B"
t_rc "both above the line: certified (exit 0)" 0 m exemplar
t_grep "the verdict: certified" '^CERTIFIED: all 2 configuration\(s\) above the line$' "$TRASH/.out"
t_ok "the status file: 0 certified" test "$(st)" = "0 certified"
t_rc "llmb exemplar: certified (exit 0)" 0 lx
t_rc "llmb exemplar elsewhere: --suite is read below --top" 0 \
	env -C "$TOP" LLMB_INSTALL="$I" "$LLMB" exemplar --top "$T" --install "$I" --suite pipelines/exemplar.yaml
t_grep "...the top's suite, not the one of the current folder" '^llmb exemplar: suite pipelines/exemplar.yaml, GPU cpu,' "$TRASH/.out"
t_ok "the JSON: certified" test "$(jq_py "$cert.json" "d['certified']")" = True
t_rc "make exemplar EXEMPLAR_PASS_PCT=101: 100% is not more than 101%" 2 m exemplar EXEMPLAR_PASS_PCT=101
t_grep "the table says the pass line" 'pass line: more than 101% of the reference' "$TRASH/.out"
t_rc "llmb exemplar, EXEMPLAR_PASS_PCT=101: not certified (exit 1)" 1 lx EXEMPLAR_PASS_PCT=101
t_ok "the JSON: the pass line" test "$(jq_py "$cert.json" "d['pass_pct']")" = 101.0
t_ok "still no new training" test "$(ntrain)" = 2
t_ok "llmb archive packs the certification" "$LLMB" archive --install "$I" --out "$TRASH/res.tar.gz" --format=gzip
tar tzf "$TRASH/res.tar.gz" >"$TRASH/res.list"
t_grep "the archive has certification.json" '^res/exemplar/certification\.json$' "$TRASH/res.list"
t_grep "...and the suite's runs" '^res/workloads/exb/experiments/exemplar/cpu_tiny_fp32_1/repeat-1/result\.json$' "$TRASH/res.list"

# ---- a run that fails: could not run (exit 2) -----------------------------------
sed -e 's/^workload: quick$/workload: exfail/' -e 's/^  cmd: \["bash", .*/  cmd: ["false"]/' \
	"$T/workloads/quick.yaml" >"$T/workloads/exfail.yaml"
printf 'config: {scale: 1}\nworkloads: {cpu: [{exfail_tiny: {dtypes: [fp32]}}]}\n' >"$TRASH/fail.yaml"
t_rc "a suite whose run fails: make exemplar fails" 2 m exemplar EXEMPLAR="$TRASH/fail.yaml"
t_grep "the table says the run failed" '^exfail +tiny +fp32 +1 +0/1 .* failed$' "$TRASH/.out"
t_grep "...and why" 'exemplar/cpu_tiny_fp32_1/repeat-1: its job failed' "$TRASH/.out"
t_ok "the status file: 2 error" test "$(st)" = "2 error"
LXS=$TRASH/fail.yaml t_rc "llmb exemplar: a failed run is an error, not a verdict (exit 2)" 2 lx

# ---- repeats and a profiled run (quick) ----------------------------------------
sed -i 's/^measure: .*/&\nknobs: {profile: {start: 1, stop: 2}}\nreference:\n  - {gpu: cpu, size: tiny, dtype: fp32, scale: 1, step_time: 0.52}/' \
	"$T/workloads/quick.yaml"
cat >"$TRASH/quick.yaml" <<'YAML'
config: {scale: 1, repeats: 2, profile: true}
workloads:
  cpu:
    - quick_tiny: {dtypes: [fp32]}
YAML
t_rc "quick, 2 repeats and a profiled run: certified (exit 0)" 0 m exemplar EXEMPLAR="$TRASH/quick.yaml"
cp "$TRASH/.out" "$TRASH/quick.out"
t_grep "two runs counted" '^quick +tiny +fp32 +1 +2/2 +step_time .* pass$' "$TRASH/.out"
t_grep "the profiled run is listed, never counted" 'profiled run exemplar/cpu_tiny_fp32_1/repeat-profile: profiled \(never counted\)' "$TRASH/.out"
q="[c for c in d['configurations'] if c['workload']=='quick'][0]"
t_ok "the JSON: two runs counted, the profiled one apart" \
	test "$(jq_py "$cert.json" "' '.join(str(x) for x in (${q}['runs_counted'], len(${q}['runs']), ${q}['profiled_run']['status']))")" = "2 2 profiled"
t_ok "three quick trainings: two repeats and the profiled one" \
	test "$(find "$I/state/jobs" -path '*train.quick*exemplar*' -name 'job.*.sh' | wc -l)" = 3
t_grep "the profiled run's job profiled" 'ENABLE_PROFILE=true' "$TRASH/gen/cfg/train.quick.cpu.tiny.fp32.1.exemplar-profile"
t_nogrep "a measured run did not" 'ENABLE_PROFILE' "$TRASH/gen/cfg/train.quick.cpu.tiny.fp32.1.exemplar-1"
t_done
