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
# A run its validity judged invalid keeps "status": "success" in
# result.json: never counted, named invalid with the validity's reason.
xr=$I/workloads/exb/experiments/exemplar/cpu_tiny_fp32_1/repeat-1/result.json
cp "$xr" "$TRASH/exb-result.json"
python3 - "$xr" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["validity"] = {"valid": False, "invalid": ["GPU clocks throttled during the run: HW thermal slowdown on n1 GPU 0"],
                 "flagged": [], "findings": [], "checked": ["after"]}
json.dump(d, open(sys.argv[1], "w"))
EOF
t_rc "llmb exemplar, exb's run invalid: not certified (exit 1)" 1 lx
t_ok "the JSON: exb's run invalid, with the validity's reason, none counted" test "$(jq_py "$cert.json" \
	"[(c['runs'][0]['status'], c['runs'][0]['reason'], c['runs_counted']) for c in d['configurations'] if c['workload']=='exb'][0]")" = \
	"('invalid', 'GPU clocks throttled during the run: HW thermal slowdown on n1 GPU 0', 0)"
cp "$TRASH/exb-result.json" "$xr"
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
# ---- upstream's suites, as shipped ---------------------------------------------
# Every key of every upstream exemplar.yaml since v26.02 (tests/exemplar/
# upstream, copied from NVIDIA/dgxc-benchmarking) names an llmb workload
# through workloads/upstream/names.yaml, on every GPU type the file lists.
UP=$TESTS_DIR/exemplar/upstream
GU=$TRASH/gen-up
IU=$TRASH/inst-up
mu() { make -C "$TOP" -n exemplar B="$TOP/build" LLMB_GEN="$GU" LLMB_INSTALL="$IU" EXECUTOR=slurm "$@"; }
for f in "$UP"/exemplar.v26.02.yaml "$UP"/exemplar.v26.02.01.yaml "$UP"/exemplar.v26.05.yaml \
	"$UP"/exemplar.v26.06.00.yaml "$UP"/exemplar.v26.06.01.yaml; do
	v=${f##*/exemplar.}
	for g in $(sed -n 's/^  \([a-z0-9]*\):$/\1/p' "$f"); do
		mu EXEMPLAR="$f" GPU_TYPE="$g" >"$TRASH/up.out" 2>&1
		t_nogrep "${v%.yaml} $g: every key names an llmb workload" "no workload '" "$TRASH/up.out"
	done
done
t_ok "the keys of the five releases: 9 upstream names" \
	test "$(cat "$UP"/exemplar.*.yaml | sed -n 's/^  - \(pretrain_.*\)_[0-9.]*[bt]:$/\1/p' | sort -u | wc -l)" = 9
# v26.06.01's suite, shipped as pipelines/exemplar.yaml, plans every entry
# at 512 GPUs on every GPU type it lists.
t_ok "pipelines/exemplar.yaml is upstream's v26.06.01 file" sh -c 'tail -n +6 "$1" | cmp - "$2"' _ \
	"$TOP/pipelines/exemplar.yaml" "$UP/exemplar.v26.06.01.yaml"
F=$UP/exemplar.v26.06.01.yaml
for g in gb300 gb200 b300 b200 h100; do
	want=$(awk -v g="$g" '/^  [a-z0-9]+:$/ { on = $0 == "  " g ":" }
		on && /dtypes:/ { s = $0; sub(/.*\[/, "", s); sub(/\].*/, "", s); n += split(s, x, ",") } END { print n + 0 }' "$F")
	t_ok "v26.06.01 $g: planned (make -n exemplar GPU_TYPE=$g EXECUTOR=slurm)" mu EXEMPLAR="$F" GPU_TYPE="$g"
	cp "$TRASH/.out" "$TRASH/plan-$g.out"
	t_ok "v26.06.01 $g: every entry, $want runs, all at 512 GPUs" \
		test "$(grep -c "^: '\[[0-9]*/[0-9]*\] train .* x512 exemplar-1: nodes=" "$TRASH/plan-$g.out")" = "$want"
	t_nogrep "v26.06.01 $g: no other scale" "^: '\[[0-9]*/[0-9]*\] train .* x[0-9]* exemplar-1: nodes=" \
		<(grep -v " x512 exemplar-1: " "$TRASH/plan-$g.out")
done
t_grep "gb300: upstream's pretrain_nemotron_3_120b is nemotron3" "train nemotron3 gb300 120b fp8 x512 exemplar-1" "$TRASH/plan-gb300.out"
t_grep "gb300: upstream's pretrain_gpt_oss_120b is gpt-oss" "train gpt-oss gb300 120b bf16 x512 exemplar-1" "$TRASH/plan-gb300.out"

# Certified from stand-in Megatron-Bridge logs on gb300: the runs' train.done
# of this plan's configuration and result.json, then llmb exemplar on them.
# standin FILE STEP...: one stand-in log per gb300 configuration of the
# suite FILE, in plan order, at the step times given.
mb_log() {
	awk -v t="$1" 'BEGIN { for (i = 1; i <= 50; i++) {
		s = i == 1 ? 3 * t : t + (i % 2 ? 0.01 : -0.01)
		printf " [2026-06-20 10:01:12] iteration %8d/      50 | consumed samples: %12d | elapsed time per iteration (ms): %.1f | global batch size:  4096 | lm loss: 1.216000E+01 | number of skipped iterations:   0 | number of nan iterations:   0 |\n", i, i * 4096, s * 1000 } }'
}
standin() {
	local f=$1 p id w run hash d
	shift
	rm -rf "$GU" "$IU"
	mu EXEMPLAR="$f" GPU_TYPE=gb300 >/dev/null 2>&1
	for p in "$GU"/cfg/parse.*.gb300.*.exemplar-1; do
		w=$(sed -n 's/^workload=//p' "$p")
		run=$(sed -n 's/^run=//p' "$p")
		hash=$(sed -n 's/^after=train\.[^ ]* //p' "$p")
		d=$IU/workloads/$w/experiments/$run
		mkdir -p "$d"
		mb_log "$1" >"$d/log.out"
		shift
		"$LLMB" parse --window=35-44 --steps=50 --log-format=mbridge --indexing=one --result="$d/result.json" \
			"$d/log.out" >/dev/null 2>&1
		printf 'job=%s\nlog=%s\ncfg=%s\nimage=nvidia+nemo+26.04.01.sqsh\nexecutor=slurm\n' "$RANDOM" "$d/log.out" "$hash" \
			>"$d/train.done"
	done
}
lu() { env -C "$TOP" GPU_TYPE=gb300 "$LLMB" exemplar --top "$TOP" --install "$IU" --suite "$1"; }
# At 512 GPUs Megatron-Bridge publishes no row of these recipes: every
# configuration is "no reference", names the nearest published figure, and
# the suite is not certified.
standin "$F" 10 10 10 10 10 10 10 10 10 10 10 10 10
t_rc "v26.06.01 gb300 at 512: not certified (exit 1)" 1 lu "$F"
cp "$TRASH/.out" "$TRASH/cert512.out"
t_ok "v26.06.01 gb300 at 512: 13 configurations, each no reference" \
	test "$(grep -cE ' +512 +1/1 +- .* no reference$' "$TRASH/cert512.out")" = 13
t_grep "...the verdict says so" '^NOT CERTIFIED: no reference for 13 configuration\(s\); 13 of 13 configuration\(s\) not passing' "$TRASH/cert512.out"
t_grep "...deepseek-v3 fp8 names the figure published at 256 GPUs" \
	'^    no published figure at this scale and configuration; nearest: published at 256 GPUs / other parallelism, 4992 tokens/s/GPU, 1298 TFLOPS/GPU \(Megatron-Bridge 26\.04\.01, docs/performance-summary-archive\.md:225 at 067f987df03b\); differs: GPUs 256 \(run 512\), gbs 4096 \(run 8192\)$' \
	"$TRASH/cert512.out"
# The same suite at 256 GPUs (its config.scale edited), where deepseek-v3
# fp8, kimi-k2 fp8 and llama3.1 405b fp8 and nvfp4 are published for the
# recipe's configuration (13.128, 12.300, 48.000, 34.133 s): pass, pass,
# FAIL (55 s, 87.3%), pass; the others stay "no reference".
F256=$TRASH/exemplar-256.yaml
sed 's/^  scale: 512$/  scale: 256/' "$F" >"$F256"
standin "$F256" 20 12.5 20 20 12 55 33 20 20 20 20 20 20
t_rc "v26.06.01 gb300 at 256: not certified (exit 1)" 1 lu "$F256"
cp "$TRASH/.out" "$TRASH/cert256.out"
t_grep "deepseek-v3 fp8 at 256: pass against 13.128 s" '^deepseek-v3 +671b +fp8 +256 +1/1 +step_time +12\.500 +13\.128 +105\.0% +pass$' "$TRASH/cert256.out"
t_grep "kimi-k2 fp8 at 256: pass" '^kimi-k2 +1t +fp8 +256 +1/1 +step_time +12\.000 +12\.300 +102\.5% +pass$' "$TRASH/cert256.out"
t_grep "llama3.1 405b fp8 at 256: FAIL at 87.3%" '^llama3\.1 +405b +fp8 +256 +1/1 +step_time +55\.000 +48\.000 +87\.3% +FAIL$' "$TRASH/cert256.out"
t_grep "llama3.1 405b nvfp4 at 256: pass" '^llama3\.1 +405b +nvfp4 +256 +1/1 +step_time +33\.000 +34\.133 +103\.4% +pass$' "$TRASH/cert256.out"
t_grep "deepseek-v3 bf16 at 256: no reference" '^deepseek-v3 +671b +bf16 +256 +1/1 +- .* no reference$' "$TRASH/cert256.out"
t_grep "...the verdict names no reference and the FAIL" '^NOT CERTIFIED: no reference for 9 configuration\(s\); 10 of 13 configuration\(s\) not passing:.* llama3\.1 405b fp8 \(FAIL\)' "$TRASH/cert256.out"
t_ok "the JSON: the nearest published figure of a configuration without one" \
	test "$(jq_py "$IU/exemplar/certification.json" "[c for c in d['configurations'] if c['workload']=='gpt-oss'][0]['nearest_published']['scale']")" = 64

t_done
