#!/usr/bin/env bash
# Plans: `make -n report` for every workload, GPU type, size and dtype the
# recipes support, compared with golden plan lines (tests/plans/*.plan);
# golden job scripts of one training run per workload, checked by bash -n
# and shellcheck; no secret value in any generated file; the run knobs in
# the stage configurations; impossible requests refused with what is valid
# (tests/plans/err/*.err).
. "$(dirname "$0")/lib.sh"
G=$TRASH/gen
I=$TRASH/inst
P=$TESTS_DIR/plans
for v in WORKLOAD SIZE DTYPE GPU_TYPE SCALES ENABLE_PROFILE PROFILE_START_STEP PROFILE_STOP_STEP \
	ENABLE_NCCLTRACE ENABLE_CHECKPOINT LOAD_CHECKPOINT_PATH ADDITIONAL_SLURM_PARAMS TIME_LIMIT MAX_STEPS \
	ASYNC LLMB_GEN_VARS; do
	unset "$v"
done
export HF_TOKEN=hf_SECRETVALUE
# tinygpt plans run scripts/deps.sh demo: it must only say what is missing here.
export LLMB_NO_INSTALL=1
m() { make -C "$TOP" LLMB_GEN="$G" LLMB_INSTALL="$I" EXECUTOR=slurm "$@"; }
# The plan lines of make -n, without the quoting and with the trash normalized.
plan_lines() { sed -n "s/^: '\\(.*\\)'\$/\\1/p" "$1" | sed "s|$TRASH|TRASH|g"; }

# Every combination the seeds list: workload gpu size dtype.
combos='nemotron4 h100 15b bf16
nemotron4 h100 15b fp8
nemotron4 h100 340b bf16
nemotron4 h100 340b fp8
llama4-maverick b200 400b bf16
llama4-maverick b200 400b fp8
llama4-maverick h100 400b bf16
llama4-maverick h100 400b fp8
llama3-lora gb200 70b bf16
llama3-lora gb200 70b fp8
llama3-lora b200 70b bf16
llama3-lora b200 70b fp8
llama3-lora h100 70b bf16
llama3-lora h100 70b fp8
maxtext-llama2 h100 70b bf16
maxtext-llama2 h100 70b fp8
maxtext-llama2 a100 70b bf16
grok1 gb200 314b bf16
grok1 gb200 314b fp8
grok1 h100 314b bf16
grok1 h100 314b fp8
tinygpt h100 355m bf16
tinygpt h200 355m bf16
tinygpt b200 355m bf16
llama3.1 gb300 8b fp8
llama3.1 gb300 8b nvfp4
llama3.1 gb300 70b fp8
llama3.1 gb300 70b nvfp4
llama3.1 gb300 405b fp8
llama3.1 gb300 405b nvfp4
llama3.1 gb200 8b fp8
llama3.1 gb200 8b nvfp4
llama3.1 gb200 70b fp8
llama3.1 gb200 70b nvfp4
llama3.1 gb200 405b fp8
llama3.1 gb200 405b nvfp4
llama3.1 b300 8b fp8
llama3.1 b300 8b nvfp4
llama3.1 b300 70b fp8
llama3.1 b300 70b nvfp4
llama3.1 b300 405b fp8
llama3.1 b300 405b nvfp4
llama3.1 b200 8b fp8
llama3.1 b200 8b nvfp4
llama3.1 b200 70b fp8
llama3.1 b200 70b nvfp4
llama3.1 b200 405b fp8
llama3.1 b200 405b nvfp4
llama3.1 h100 8b bf16
llama3.1 h100 8b fp8
llama3.1 h100 70b bf16
llama3.1 h100 70b fp8
llama3.1 h100 405b bf16
llama3.1 h100 405b fp8'
# One training run per workload gets a golden job script.
scripts='train.nemotron4.h100.340b.fp8.256
train.llama4-maverick.b200.400b.bf16.256
train.llama3-lora.gb200.70b.bf16.8
train.maxtext-llama2.h100.70b.fp8.512
train.grok1.h100.314b.bf16.512
train.tinygpt.h100.355m.bf16.8
train.llama3.1.h100.8b.fp8.8
train.llama3.1.h100.70b.fp8.64
train.llama3.1.gb200.405b.nvfp4.256'

while read -r w g s d; do
	name=$w.$g.$s.$d
	if m -n report WORKLOAD="$w" GPU_TYPE="$g" SIZE="$s" DTYPE="$d" >"$TRASH/$name.out" 2>&1; then
		plan_lines "$TRASH/$name.out" >"$TRASH/$name.plan"
		t_cmp "plan $w $g $s $d" "$P/$name.plan" "$TRASH/$name.plan"
	else
		t_fail "plan $w $g $s $d: make -n failed"
		sed 's/^/# /' "$TRASH/$name.out" | tail -n 10
		continue
	fi
	for id in $scripts; do
		case $id in train."$w"."$g"."$s"."$d".*) ;; *) continue ;; esac
		if "$LLMB" script --top "$TOP" --gen "$G" --install "$I" "$id" >"$TRASH/$id.raw" 2>"$TRASH/$id.err"; then
			sed "s|$TRASH|TRASH|g; s|$TOP|TOP|g" "$TRASH/$id.raw" >"$TRASH/$id.sh"
			t_cmp "job script $id" "$P/$id.sh" "$TRASH/$id.sh"
			t_ok "job script $id: bash -n" bash -n "$TRASH/$id.raw"
			# SC2016: MaxText's "bash -c '... $QUANTIZATION'" is meant for the inner shell.
			t_ok "job script $id: shellcheck" shellcheck -s bash -e SC2016 "$TRASH/$id.raw"
			cat "$TRASH/$id.raw" >>"$TRASH/all-scripts"
		else
			t_fail "job script $id"
			sed 's/^/# /' "$TRASH/$id.err" | tail -n 5
		fi
	done
done <<EOF
$combos
EOF

# The plan of a single scale holds exactly the jobs of that scale.
m -n report WORKLOAD=grok1 GPU_TYPE=gb200 SIZE=314b DTYPE=fp8 SCALES=256 >"$TRASH/one.out" 2>&1
t_ok "SCALES=256 plans one training" test "$(grep -c "^: '.*train grok1" "$TRASH/one.out")" = 1
# A list may be split by commas and spaces, in the checks as in the
# selection.
m -n report WORKLOAD=grok1 GPU_TYPE=gb200 SIZE=314b DTYPE=fp8 SCALES=" 128, 256," >"$TRASH/two.out" 2>&1
t_ok "SCALES=\" 128, 256,\" plans two trainings" test "$(grep -c "^: '.*train grok1" "$TRASH/two.out")" = 2

# ---- the run knobs land in the stage configuration --------------------------
cfg() { cat "$G/cfg/$1"; }
m -n report WORKLOAD=grok1 GPU_TYPE=gb200 SIZE=314b DTYPE=bf16 SCALES=128 ENABLE_PROFILE=true >"$TRASH/k.out" 2>&1
cfg train.grok1.gb200.314b.bf16.128 >"$TRASH/k.train"
cfg parse.grok1.gb200.314b.bf16.128 >"$TRASH/k.parse"
t_grep "ENABLE_PROFILE is a knob of the training configuration" '^knob=ENABLE_PROFILE=true$' "$TRASH/k.train"
t_grep "profiling steps are the workload's defaults (45-50)" '^profile=45-50$' "$TRASH/k.train"
t_grep "the parse stage marks a profiled run" '^profiled=true$' "$TRASH/k.parse"
t_grep "the plan says the run is not compared" 'PROFILED\(steps 45-50\) \(not compared with the reference\)' "$TRASH/k.out"

m -n report WORKLOAD=grok1 GPU_TYPE=gb200 SIZE=314b DTYPE=bf16 SCALES=128 ENABLE_PROFILE=true \
	PROFILE_START_STEP=10 PROFILE_STOP_STEP=12 >/dev/null 2>&1
t_grep "PROFILE_START_STEP/PROFILE_STOP_STEP override the defaults" '^profile=10-12$' "$G/cfg/train.grok1.gb200.314b.bf16.128"

m -n report WORKLOAD=grok1 GPU_TYPE=gb200 SIZE=314b DTYPE=bf16 SCALES=128 ENABLE_NCCLTRACE=true >/dev/null 2>&1
t_grep "an NCCL trace is marked in the training configuration" '^nccltrace=true$' "$G/cfg/train.grok1.gb200.314b.bf16.128"
t_grep "an NCCL trace runs the first 5 steps" '^steps=5$' "$G/cfg/train.grok1.gb200.314b.bf16.128"
t_grep "a traced run is marked for the parse stage" '^profiled=true$' "$G/cfg/parse.grok1.gb200.314b.bf16.128"

m -n report WORKLOAD=grok1 GPU_TYPE=gb200 SIZE=314b DTYPE=bf16 SCALES=128 >/dev/null 2>&1
t_nogrep "an ordinary run is not marked" '^profiled=' "$G/cfg/parse.grok1.gb200.314b.bf16.128"
t_nogrep "an ordinary run has no knob lines" '^knob=' "$G/cfg/train.grok1.gb200.314b.bf16.128"

m -n report WORKLOAD=maxtext-llama2 GPU_TYPE=h100 SIZE=70b DTYPE=bf16 SCALES=64 >/dev/null 2>&1
t_grep "MaxText always profiles (steps 10-15)" '^profile=10-15$' "$G/cfg/train.maxtext-llama2.h100.70b.bf16.64"
t_nogrep "...and its published numbers are profiled too: compared" '^profiled=' "$G/cfg/parse.maxtext-llama2.h100.70b.bf16.64"

m -n report WORKLOAD=nemotron4 GPU_TYPE=h100 SIZE=15b DTYPE=bf16 SCALES=16 MAX_STEPS=60 TIME_LIMIT=01:30:00 \
	ENABLE_CHECKPOINT=true ADDITIONAL_SLURM_PARAMS='reservation=r1;nodelist=n[1-2],n7' >/dev/null 2>&1
cfg train.nemotron4.h100.15b.bf16.16 >"$TRASH/n.train"
t_grep "MAX_STEPS sets the steps" '^steps=60$' "$TRASH/n.train"
t_grep "TIME_LIMIT sets the time limit" '^time_limit=01:30:00$' "$TRASH/n.train"
t_grep "ENABLE_CHECKPOINT is a knob" '^knob=ENABLE_CHECKPOINT=true$' "$TRASH/n.train"
t_grep "ADDITIONAL_SLURM_PARAMS is a knob" '^knob=ADDITIONAL_SLURM_PARAMS=reservation=r1;nodelist=n\[1-2\],n7$' "$TRASH/n.train"
t_grep "MAX_STEPS reaches the parse stage" '^steps=60$' "$G/cfg/parse.nemotron4.h100.15b.bf16.16"

m -n report WORKLOAD=nemotron4 GPU_TYPE=h100 SIZE=15b DTYPE=bf16 SCALES=16 LOAD_CHECKPOINT_PATH=ckpt/a=1 >/dev/null 2>&1
t_grep "LOAD_CHECKPOINT_PATH runs one step" '^steps=1$' "$G/cfg/train.nemotron4.h100.15b.bf16.16"
t_grep "a one-step load is not compared" '^profiled=true$' "$G/cfg/parse.nemotron4.h100.15b.bf16.16"
t_grep "...and measured on its one step (zero-based: iteration 0)" '^window=0-0$' "$G/cfg/parse.nemotron4.h100.15b.bf16.16"

# ---- the caller's environment in the training configuration ------------------
# A recorded family's variable the recipe itself sets (deepseek-v3's
# NCCL_NVLS_ENABLE) is the recipe's in the job: the caller's value is not
# recorded; another is, and only in the training's configuration.
env NCCL_NVLS_ENABLE=1 NCCL_IB_QPS_PER_CONNECTION=4 make -C "$TOP" LLMB_GEN="$TRASH/genv" LLMB_INSTALL="$I" EXECUTOR=slurm \
	-n report WORKLOAD=deepseek-v3 GPU_TYPE=h100 DTYPE=bf16 SCALES=1024 >/dev/null 2>&1
t_grep "callerenv: the caller's NCCL_IB_QPS_PER_CONNECTION" '^callerenv=NCCL_IB_QPS_PER_CONNECTION=4$' \
	"$TRASH/genv/cfg/train.deepseek-v3.h100.671b.bf16.1024"
t_nogrep "callerenv: not NCCL_NVLS_ENABLE, which the recipe sets" '^callerenv=NCCL_NVLS' "$TRASH/genv/cfg/train.deepseek-v3.h100.671b.bf16.1024"
t_grep "...the recipe's value stays" '^env=NCCL_NVLS_ENABLE=0$' "$TRASH/genv/cfg/train.deepseek-v3.h100.671b.bf16.1024"
# shellcheck disable=SC2016 # for sh -c
t_ok "...no other stage records the caller's environment" sh -c '! grep -l "^callerenv=" "$0"/cfg/* | grep -v /train\\.' "$TRASH/genv"
"$LLMB" script --top "$TOP" --gen "$TRASH/genv" --install "$I" train.deepseek-v3.h100.671b.bf16.1024 >"$TRASH/genv.sh" 2>&1
t_grep "the job script exports the recorded value" "^export NCCL_IB_QPS_PER_CONNECTION='4'\$" "$TRASH/genv.sh"

# ---- the srun settings and the node setup step in the stage configuration ----
m -n report WORKLOAD=grok1 GPU_TYPE=h100 SIZE=314b DTYPE=bf16 >/dev/null 2>&1
cfg train.grok1.h100.314b.bf16.512 >"$TRASH/l.train"
t_grep "grok1: train.srun.mpi is part of the training configuration" '^srun_mpi=pmix$' "$TRASH/l.train"
t_grep "grok1: ...and train.srun.container_writable" '^container_writable=true$' "$TRASH/l.train"
t_grep "grok1: ...and the node setup step (vboost)" '^node_setup=true$' "$TRASH/l.train"
m -n report WORKLOAD=nemotron4 GPU_TYPE=h100 SIZE=15b DTYPE=bf16 SCALES=16 >/dev/null 2>&1
t_grep "nemotron4: --mpi=pmix" '^srun_mpi=pmix$' "$G/cfg/train.nemotron4.h100.15b.bf16.16"
t_nogrep "nemotron4: no node setup (its script sets vboost only when asked)" '^node_setup=' "$G/cfg/train.nemotron4.h100.15b.bf16.16"
for js in "$P"/train.grok1.*.sh "$P"/train.llama4-maverick.*.sh; do
	# shellcheck disable=SC2016 # the job script's own words
	setup=$(sed -n 's/^LLMB_NODE_SETUP=$llmb_setup llmb_launch //p' "$js")
	t_ok "$(basename "$js"): the node setup step runs the training command itself, then node-setup.sh" \
		test -n "$setup" -a "$setup" = "$(sed -n 's/^llmb_launch //p' "$js")" -a "$(grep -c 'workloads/node-setup.sh' "$js")" = 1
done
t_nogrep "nemotron4's job script has no node setup step" 'LLMB_NODE_SETUP|node-setup.sh' "$P/train.nemotron4.h100.340b.fp8.256.sh"
m -n report WORKLOAD=maxtext-llama2 GPU_TYPE=h100 SIZE=70b DTYPE=bf16 SCALES=64 >/dev/null 2>&1
t_nogrep "maxtext: none of them" '^(srun_mpi|container_writable|node_setup)=' "$G/cfg/train.maxtext-llama2.h100.70b.bf16.64"

# ---- no secret value in anything generated ------------------------------------
t_nogrep "no secret value in the generated job scripts" 'hf_SECRETVALUE' "$TRASH/all-scripts"
if grep -rl hf_SECRETVALUE "$G" "$I" >"$TRASH/leaks" 2>/dev/null; then
	t_fail "no secret value under GEN and INSTALL"; sed 's/^/# /' "$TRASH/leaks"
else
	t_pass "no secret value under GEN and INSTALL"
fi
t_ok "make -n wrote nothing under LLMB_INSTALL" test ! -e "$I"

# ---- impossible requests ----------------------------------------------------------
# name|variables: make -n must fail before anything runs, and its llmb/make
# error lines must be the golden ones.
refusals='unknown-gpu|WORKLOAD=nemotron4 GPU_TYPE=b300
gpu-required|WORKLOAD=llama3-lora
unknown-size|WORKLOAD=nemotron4 GPU_TYPE=h100 SIZE=70b
unknown-dtype|WORKLOAD=grok1 GPU_TYPE=h100 DTYPE=nvfp4
unknown-scale|WORKLOAD=nemotron4 GPU_TYPE=h100 SIZE=340b SCALES=128
scale-not-number|WORKLOAD=grok1 GPU_TYPE=h100 SCALES=512x
unknown-workload|WORKLOAD=llama5
fp8-on-a100|WORKLOAD=maxtext-llama2 GPU_TYPE=a100 DTYPE=fp8
profile-and-nccltrace|WORKLOAD=grok1 GPU_TYPE=h100 ENABLE_PROFILE=true ENABLE_NCCLTRACE=true
nccltrace-unsupported|WORKLOAD=llama3-lora GPU_TYPE=h100 ENABLE_NCCLTRACE=true
checkpoint-unsupported|WORKLOAD=grok1 GPU_TYPE=h100 ENABLE_CHECKPOINT=true
maxtext-profile-off|WORKLOAD=maxtext-llama2 GPU_TYPE=h100 ENABLE_PROFILE=false
profile-steps-without-profile|WORKLOAD=grok1 GPU_TYPE=h100 PROFILE_START_STEP=5
profile-steps-order|WORKLOAD=grok1 GPU_TYPE=h100 ENABLE_PROFILE=true PROFILE_START_STEP=50 PROFILE_STOP_STEP=45
bad-bool|WORKLOAD=grok1 GPU_TYPE=h100 ENABLE_PROFILE=maybe
bad-time-limit|WORKLOAD=grok1 GPU_TYPE=h100 TIME_LIMIT=90m
bad-time-limit-minutes|WORKLOAD=grok1 GPU_TYPE=h100 TIME_LIMIT=00:61:00
bad-max-steps|WORKLOAD=grok1 GPU_TYPE=h100 MAX_STEPS=fifty
zero-max-steps|WORKLOAD=grok1 GPU_TYPE=h100 MAX_STEPS=0
max-steps-before-window|WORKLOAD=nemotron4 GPU_TYPE=h100 MAX_STEPS=20
max-steps-with-load|WORKLOAD=nemotron4 GPU_TYPE=h100 MAX_STEPS=60 LOAD_CHECKPOINT_PATH=ckpt
slurm-reserved|WORKLOAD=grok1 GPU_TYPE=h100 ADDITIONAL_SLURM_PARAMS=time=01:00:00
slurm-abbrev|WORKLOAD=grok1 GPU_TYPE=h100 ADDITIONAL_SLURM_PARAMS=part=gpu2
slurm-dashes|WORKLOAD=grok1 GPU_TYPE=h100 ADDITIONAL_SLURM_PARAMS=--reservation=r1
slurm-empty-value|WORKLOAD=grok1 GPU_TYPE=h100 ADDITIONAL_SLURM_PARAMS=reservation=;exclude=n1
bad-checkpoint-path|WORKLOAD=nemotron4 GPU_TYPE=h100 LOAD_CHECKPOINT_PATH=ckpt;rm
tinygpt-gpu-size-without-gpu-type|WORKLOAD=tinygpt SIZE=355m
tinygpt-unknown-gpu|WORKLOAD=tinygpt GPU_TYPE=a100
bad-proxy|WORKLOAD=deepseek-v3 GPU_TYPE=gb200 PROXY=maybe'
while IFS='|' read -r name vars; do
	rc=0
	# shellcheck disable=SC2086 # vars is a list of NAME=VALUE words
	env -u HF_TOKEN HF_TOKEN=hf_SECRETVALUE make -C "$TOP" LLMB_GEN="$G" LLMB_INSTALL="$I" EXECUTOR=slurm \
		-n report $vars >"$TRASH/$name.out" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		t_fail "refused: $name (make -n exit 0)"
		continue
	fi
	grep -E 'error' "$TRASH/$name.out" | grep -v '^make.*Error [0-9]' | sed "s|$TRASH|TRASH|g; s|$TOP/||g" >"$TRASH/$name.err"
	t_cmp "refused: $name" "$P/err/$name.err" "$TRASH/$name.err"
	t_nogrep "refused before anything runs: $name" '^build/llmb run|llmb run ' "$TRASH/$name.out"
done <<EOF
$refusals
EOF

# A workload that passes HF_TOKEN to its jobs: without it the plan is shown
# and says to export it; the run is refused by name before any stage runs.
for w in llama4-maverick llama3-lora grok1; do
	rc=0
	env -u HF_TOKEN make -C "$TOP" LLMB_GEN="$G" LLMB_INSTALL="$I" EXECUTOR=slurm -n report WORKLOAD=$w GPU_TYPE=h100 \
		>"$TRASH/nohf.out" 2>&1 || rc=$?
	t_ok "$w without HF_TOKEN: make -n shows the plan" test "$rc" = 0
	t_grep "$w without HF_TOKEN: the plan says to export it first" "^: 'HF_TOKEN is not set: export it before running" "$TRASH/nohf.out"
	t_grep "$w without HF_TOKEN: the plan lists the trainings" "^: '\[[0-9]+/[0-9]+\] train $w " "$TRASH/nohf.out"
	rc=0
	env -u HF_TOKEN make -C "$TOP" LLMB_GEN="$G" LLMB_INSTALL="$TRASH/nohf-inst" EXECUTOR=slurm report WORKLOAD=$w GPU_TYPE=h100 \
		>"$TRASH/nohf-run.out" 2>&1 || rc=$?
	t_ok "$w without HF_TOKEN: the run is refused" test "$rc" != 0
	t_grep "$w without HF_TOKEN: the refusal names it" 'HF_TOKEN is not set: the selected workloads pass it' "$TRASH/nohf-run.out"
	t_ok "$w without HF_TOKEN: nothing ran" test ! -e "$TRASH/nohf-inst"
done
rc=0
env -u HF_TOKEN make -C "$TOP" LLMB_GEN="$G" LLMB_INSTALL="$I" EXECUTOR=slurm -n report WORKLOAD=nemotron4 GPU_TYPE=h100 \
	SIZE=15b DTYPE=bf16 SCALES=16 >"$TRASH/nohf.out" 2>&1 || rc=$?
t_ok "nemotron4 (synthetic data, no gated files) needs no HF_TOKEN" test "$rc" = 0
# A cluster whose controller does not answer: scontrol show config would
# retry for about 9 s per llmb gen; llmb asks scontrol ping first and
# plans without the limits' note.
mkdir -p "$TRASH/dead/bin"
printf '%s\n' ClusterName=dead SlurmctldHost=localhost SlurmctldPort=9 AuthType=auth/none \
	'NodeName=n1 CPUs=1' 'PartitionName=debug Nodes=n1' >"$TRASH/dead/slurm.conf"
real_scontrol=$(PATH=$PATH:/usr/sbin:/usr/bin command -v scontrol || echo /usr/bin/false)
printf '#!/bin/sh\necho "$*" >>"%s"\nexec %s "$@"\n' "$TRASH/dead/calls" "$real_scontrol" >"$TRASH/dead/bin/scontrol"
chmod +x "$TRASH/dead/bin/scontrol"
: >"$TRASH/dead/calls"
rc=0
PATH=$TRASH/dead/bin:$PATH SLURM_CONF=$TRASH/dead/slurm.conf make -C "$TOP" LLMB_GEN="$TRASH/dead/gen" \
	LLMB_INSTALL="$TRASH/dead/inst" EXECUTOR=slurm -n report WORKLOAD=nemotron4 GPU_TYPE=h100 SIZE=15b DTYPE=bf16 \
	SCALES=16 >"$TRASH/dead/plan.out" 2>&1 || rc=$?
t_ok "a controller that does not answer: the plan is made" test "$rc" = 0
t_grep "...and scontrol was asked whether it answers" '^ping$' "$TRASH/dead/calls"
t_nogrep "...but not for its configuration (9 s of retries per llmb gen)" '^show config' "$TRASH/dead/calls"
# ---- scales the recipe does not list, ranges, several workloads ------------------
# The llmb warning and error lines, make's exit status and the training plan
# lines (up to their environment) of each selection, golden
# (tests/plans/scales/NAME.txt).
sc_plan() {
	local name=$1 rc=0
	shift
	m -n report "$@" >"$TRASH/sc-$name.out" 2>&1 || rc=$?
	{
		echo "make -n report $* -> exit $rc"
		grep -E '^llmb: (warning|error)' "$TRASH/sc-$name.out"
		plan_lines "$TRASH/sc-$name.out" | grep -E '^\[[0-9]+/[0-9]+\] train ' | sed 's/ args: .*//'
	} >"$TRASH/sc-$name.txt"
	t_cmp "scales: $name" "$P/scales/$name.txt" "$TRASH/sc-$name.txt"
}
# above the largest listed scale of a non-exact row: planned, DP and GA derived, with a warning
sc_plan unlisted WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=8b DTYPE=fp8 SCALES=1024
# a row whose GBS, DP and GA are numbers: GBS kept, DP = GPUs / (TP*PP*CP), GA = GBS / (MBS*DP)
sc_plan unlisted-fixed-gbs WORKLOAD=grok1 GPU_TYPE=h100 DTYPE=bf16 SCALES=1024
# below it, or where TP*PP*CP or MBS*DP do not divide: refused, naming why
sc_plan unlisted-below WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=70b SCALES=96
sc_plan unlisted-indivisible WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=70b SCALES=1000
sc_plan unlisted-gbs WORKLOAD=llama4-maverick GPU_TYPE=h100 SCALES=512
sc_plan unlisted-huge WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=8b DTYPE=fp8 SCALES=99999999
# a listed scale and an unlisted one together
sc_plan listed-and-unlisted WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=8b DTYPE=bf16 SCALES="128 256"
# several workloads: each keeps what it can run, the rest is named
sc_plan across GPU_TYPE=h100 SCALES=64
sc_plan across-none GPU_TYPE=h100 SCALES=3
# ranges of listed scales
sc_plan range WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=70b DTYPE=bf16 SCALES=64..256
sc_plan range-empty WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=70b DTYPE=bf16 SCALES=1..32
sc_plan range-reversed WORKLOAD=llama3.1 GPU_TYPE=h100 SCALES=256..64
sc_plan range-malformed WORKLOAD=llama3.1 GPU_TYPE=h100 SCALES=64...256
# nothing planned across workloads is llmb's exit 2, one workload's refusal too
rc=0
(cd "$TOP" && GPU_TYPE=h100 SCALES=3 EXECUTOR=slurm "$LLMB" gen --top . --gen "$TRASH/sc-gen") >/dev/null 2>&1 || rc=$?
t_ok "scales: no workload left across the selection: exit 2" test "$rc" = 2
# A row with exact_scales: true (upstream's llama3 finetune from 26.05 on)
# runs its listed scales only.
t_checkout "$TRASH/exact"
cp "$TOP"/workloads/*.yaml "$TRASH/exact/workloads/"
cp -r "$TOP"/workloads/models "$TOP"/workloads/published "$TRASH/exact/workloads/"
sed -i 's/^    scales: \[8, 16, 32\]$/&\n    exact_scales: true/' "$TRASH/exact/workloads/llama3-lora.yaml"
rc=0
(cd "$TRASH/exact" && WORKLOAD=llama3-lora GPU_TYPE=h100 DTYPE=bf16 SCALES=64 EXECUTOR=slurm "$LLMB" gen --top . \
	--gen "$TRASH/exact/gen") >"$TRASH/exact.out" 2>&1 || rc=$?
t_ok "scales: exact row: exit 2" test "$rc" = 2
t_grep "scales: exact row: refused, naming why" \
	'^llmb: error: SCALES: 64 is not a configured scale of llama3-lora for this selection; valid: 8 16 32; h100 70b bf16: its recipe row has exact_scales: true' \
	"$TRASH/exact.out"
rc=0
(cd "$TRASH/exact" && WORKLOAD=llama3-lora GPU_TYPE=h100 DTYPE=bf16 SCALES=16 EXECUTOR=slurm "$LLMB" gen --top . \
	--gen "$TRASH/exact/gen") >"$TRASH/exact16.out" 2>&1 || rc=$?
t_ok "scales: exact row: a listed scale is planned" test "$rc" = 0
t_done
