#!/usr/bin/env bash
# The Megatron-Bridge launch, offline: workloads/mbridge-launch.py (the
# in-job driver of the llama3.1 recipe) and the stand-in for Megatron-
# Bridge's performance entry point (tests/mbridge-standin/). The driver's
# usage errors; --print-plan of each golden llama3.1 job script
# (tests/plans/train.llama3.1.*.sh) against its golden
# (tests/mbridge-standin/plans/): what run_script.py receives, argv,
# numactl binding and environment, HF_TOKEN masked; then the driver run for
# real on a task of each script: numactl with upstream's binding for the
# task's SLURM_LOCALID, PYTHONPATH first on scripts/performance, the
# entry point of the clone with exactly the plan's argv, which the stand-in
# accepts (the pinned parser's options, tests/mbridge-standin/options.txt);
# the stand-in refusing what the pinned parser refuses; its log parsed by
# llmb parse (window 35-44, one-based) with MFU from llmb metrics; and the
# recipe's FLOPs equal to `llmb flops llama3.1 SIZE --tp TP` (Megatron-
# Bridge's accounting) for every size; workloads/hf-assets.py (the Hugging
# Face setup tasks) downloading into the hub cache, proving, and honouring
# HF_HUB_OFFLINE. What only a GPU cluster shows:
# Megatron-Bridge itself accepting these arguments and this environment.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
DRV=$TOP/workloads/mbridge-launch.py
SI=$TESTS_DIR/mbridge-standin
[ -x "$PY" ] || t_skip_all "no $PY"
pyc() { "$PY" -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)" "$1" "$TRASH/x.pyc"; }
t_ok "py_compile mbridge-launch.py" pyc "$DRV"
t_ok "py_compile the stand-in run_script.py" pyc "$SI/scripts/performance/run_script.py"
clean() { env -i PATH=/usr/bin:/bin HOME="$TRASH" PYTHONDONTWRITEBYTECODE=1 "$@"; }

# ---- usage --------------------------------------------------------------------
t_rc "no '--': usage error" 2 clean "$PY" "$DRV" --mbridge-src "$SI" --gpu h100
t_grep "...saying the arguments follow '--'" "must follow '--'" "$TRASH/.out"
t_rc "no --mbridge-src: usage error" 2 clean "$PY" "$DRV" -- --gpu h100
t_rc "no --gpu among the entry point's arguments: usage error" 2 clean "$PY" "$DRV" --mbridge-src "$SI" -- --num_gpus 8
t_grep "...saying so" "name no --gpu" "$TRASH/.out"
t_rc "a clone without the entry point: status 3" 3 clean SLURM_LOCALID=0 "$PY" "$DRV" --mbridge-src "$TRASH" -- --gpu h100
t_grep "...naming it" "scripts/performance/run_script.py: no Megatron-Bridge performance entry point" "$TRASH/.out"

# A B300 task's binding: the core pair of PCT binding unless it is off or
# the pinned executor has none (--no-pct-binding).
b300() { clean SLURM_LOCALID=2 "$PY" "$DRV" --mbridge-src "$SI" "$@" --print-plan -- --gpu b300; }
t_ok "B300, PCT binding on by default: numactl gets cores 32,33" b300
t_grep "...as executors.py binds them" '^  "32,33"$' "$TRASH/.out"
t_ok "B300 with --no-pct-binding: the plan" b300 --no-pct-binding
t_nogrep "...binds no cores" '"-C"' "$TRASH/.out"

# ---- the options list is the pinned parser's -------------------------------------
t_grep "options.txt names the pinned commit" 'Megatron-Bridge@06f25c227ef9d3d9b22e5561fb9f46e1cbdab7e2' "$SI/options.txt"
t_ok "options.txt holds the parser's 119 options (--help aside)" test "$(grep -vc '^#' "$SI/options.txt")" = 119
t_grep "...among them -gb and its long name" '^-gb,--global_batch_size value int -$' "$SI/options.txt"
t_grep "...and the compute dtypes" '^-c,--compute_dtype value str bf16,fp8_cs,fp8_mx,fp8_sc,nvfp4$' "$SI/options.txt"
t_ok "the recipe pins the commit options.txt is from" \
	grep -q 'commit: "06f25c227ef9d3d9b22e5561fb9f46e1cbdab7e2"' "$TOP/workloads/llama3.1.yaml"
for w in deepseek-v3 qwen3 nemotron-h nemotron3 kimi-k2; do
	t_ok "...as does $w" grep -q 'commit: "06f25c227ef9d3d9b22e5561fb9f46e1cbdab7e2"' "$TOP/workloads/$w.yaml"
done
t_grep "options-f07871e.txt names the commit gpt-oss pins" 'Megatron-Bridge@f07871e23f637f4ae87d92256babc51fdbb12f39' \
	"$SI/options-f07871e.txt"
t_ok "...which the recipe pins" grep -q 'commit: "f07871e23f637f4ae87d92256babc51fdbb12f39"' "$TOP/workloads/gpt-oss.yaml"
t_ok "...and which has no --enable_pct_binding (the driver is told --no-pct-binding)" \
	sh -c "! grep -q -- '--enable_pct_binding' '$SI/options-f07871e.txt' && grep -q -- '--no-pct-binding' '$TOP/workloads/gpt-oss.yaml'"

# The stand-in's record of what it got against the plan: argv, PYTHONPATH, HF_HUB_OFFLINE.
SAME='import json, sys
rec = json.loads(open(sys.argv[1]).read().splitlines()[0])
plan = json.load(open(sys.argv[2]))
sys.exit(0 if rec["argv"] == plan["args"] and rec["pythonpath"].split(":")[0] == sys.argv[3] + "/scripts/performance"
         and rec["hf_hub_offline"] == "1" else 1)'

# ---- the other Megatron-Bridge recipes: plans and job scripts ----------------------
# As t-plans does for llama3.1: make -n report's plan lines of every GPU
# type, size and dtype against golden plans (tests/mbridge-plans/), and
# golden job scripts of a few trainings (full-scale and proxy runs),
# checked by bash -n; their --print-plan and stand-in runs follow below.
MP=$TESTS_DIR/mbridge-plans
mbm() { make -C "$TOP" LLMB_GEN="$TRASH/mbgen" LLMB_INSTALL="$TRASH/mbinst" EXECUTOR=slurm HF_TOKEN=hf_SECRETVALUE "$@"; }
# A fifth word, PROXY=1, plans the proxy runs too (golden NAME.proxy.plan).
mb_combos='deepseek-v3 gb300 671b bf16
deepseek-v3 gb300 671b bf16 PROXY=1
deepseek-v3 gb300 671b fp8
deepseek-v3 gb300 671b fp8 PROXY=1
deepseek-v3 gb300 671b nvfp4
deepseek-v3 gb300 671b nvfp4 PROXY=1
deepseek-v3 gb200 671b bf16
deepseek-v3 gb200 671b bf16 PROXY=1
deepseek-v3 gb200 671b fp8
deepseek-v3 gb200 671b fp8 PROXY=1
deepseek-v3 gb200 671b nvfp4
deepseek-v3 gb200 671b nvfp4 PROXY=1
deepseek-v3 b300 671b bf16
deepseek-v3 b300 671b fp8
deepseek-v3 b300 671b nvfp4
deepseek-v3 b200 671b bf16
deepseek-v3 b200 671b fp8
deepseek-v3 h100 671b bf16
deepseek-v3 h100 671b fp8
qwen3 gb300 30b bf16
qwen3 gb300 235b bf16
qwen3 gb200 30b bf16
qwen3 gb200 235b bf16
qwen3 b300 30b bf16
qwen3 b300 235b bf16
qwen3 b200 30b bf16
qwen3 b200 235b bf16
qwen3 h100 30b bf16
qwen3 h100 235b bf16
gpt-oss gb300 120b bf16
gpt-oss gb200 120b bf16
gpt-oss b300 120b bf16
gpt-oss b200 120b bf16
gpt-oss h100 120b bf16
nemotron-h gb300 56b fp8
nemotron-h gb200 56b fp8
nemotron-h b300 56b fp8
nemotron-h b200 56b fp8
nemotron-h h100 56b fp8
nemotron3 gb300 30b bf16
nemotron3 gb300 30b fp8
nemotron3 gb300 120b bf16
nemotron3 gb300 120b fp8
nemotron3 gb200 30b bf16
nemotron3 gb200 120b bf16
nemotron3 b300 30b bf16
nemotron3 b300 30b fp8
nemotron3 b300 120b bf16
nemotron3 b200 30b bf16
nemotron3 b200 30b fp8
nemotron3 b200 120b bf16
nemotron3 b200 120b fp8
nemotron3 h100 30b bf16
kimi-k2 gb300 1t fp8
kimi-k2 gb200 1t fp8
kimi-k2 b300 1t fp8
kimi-k2 b200 1t fp8'
mb_scripts='train.deepseek-v3.b300.671b.fp8.128
train.deepseek-v3.gb200.671b.fp8.256
train.deepseek-v3.gb300.671b.nvfp4.4
train.deepseek-v3.h100.671b.bf16.1024
train.qwen3.gb200.235b.bf16.256
train.qwen3.h100.30b.bf16.16
train.gpt-oss.b300.120b.bf16.64
train.gpt-oss.gb300.120b.bf16.72
train.nemotron-h.b200.56b.fp8.32
train.nemotron3.gb300.30b.fp8.8
train.nemotron3.b200.120b.bf16.64
train.kimi-k2.gb200.1t.fp8.256'
mb_proxy_scripts='train.deepseek-v3.gb300.671b.nvfp4.4'
while read -r w g s d px; do
	name=$w.$g.$s.$d${px:+.proxy}
	if mbm -n report WORKLOAD="$w" GPU_TYPE="$g" SIZE="$s" DTYPE="$d" ${px:+"$px"} >"$TRASH/$name.out" 2>&1; then
		sed -n "s/^: '\\(.*\\)'\$/\\1/p" "$TRASH/$name.out" | sed "s|$TRASH|TRASH|g" >"$TRASH/$name.plan"
		t_cmp "plan $w $g $s $d $px" "$MP/$name.plan" "$TRASH/$name.plan"
	else
		t_fail "plan $w $g $s $d $px: make -n failed"
		sed 's/^/# /' "$TRASH/$name.out" | tail -n 10
		continue
	fi
	for id in $mb_scripts; do
		case $id in train."$w"."$g"."$s"."$d".*) ;; *) continue ;; esac
		# a proxy run's script where its plan holds it (PROXY=1)
		case " $mb_proxy_scripts " in *" $id "*) [ -n "$px" ] || continue ;; *) [ -z "$px" ] || continue ;; esac
		if "$LLMB" script --top "$TOP" --gen "$TRASH/mbgen" --install "$TRASH/mbinst" "$id" >"$TRASH/$id.raw" 2>"$TRASH/$id.err"; then
			sed "s|$TRASH|TRASH|g; s|$TOP|TOP|g" "$TRASH/$id.raw" >"$TRASH/$id.sh"
			t_cmp "job script $id" "$MP/$id.sh" "$TRASH/$id.sh"
			t_ok "job script $id: bash -n" bash -n "$TRASH/$id.raw"
		else
			t_fail "job script $id"
			sed 's/^/# /' "$TRASH/$id.err" | tail -n 5
		fi
	done
done <<EOF
$mb_combos
EOF
# Proxy rows (proxy: true): left out by default, planned with PROXY=1,
# PROXY=only or SCALES naming them, labelled, never compared.
t_nogrep "the default plan has no proxy run" '(PROXY|proxy=)' "$MP/deepseek-v3.gb300.671b.bf16.plan"
t_ok "...and all of the full-scale runs (128, 256, 512)" \
	test "$(grep -cE '\] train deepseek-v3 gb300 671b bf16 x(128|256|512): ' "$MP/deepseek-v3.gb300.671b.bf16.plan")" = 3
t_grep "PROXY=1: a proxy run is labelled in its plan line" \
	'^\[[0-9]+/[0-9]+\] train deepseek-v3 gb300 671b bf16 x4: .* hidden=1024 .* PROXY \(not compared with the reference\)$' \
	"$MP/deepseek-v3.gb300.671b.bf16.proxy.plan"
t_nogrep "...and a full-scale one is not" '\] train deepseek-v3 gb300 671b bf16 x(128|256|512): .*(PROXY|not compared)' \
	"$MP/deepseek-v3.gb300.671b.bf16.proxy.plan"
t_ok "...the 13 proxy runs beside the 3 full-scale ones" \
	test "$(grep -c '\] train deepseek-v3 gb300 671b bf16 x[0-9]*: .* PROXY ' "$MP/deepseek-v3.gb300.671b.bf16.proxy.plan")/$(grep -c '\] train ' "$MP/deepseek-v3.gb300.671b.bf16.proxy.plan")" = 13/16
mbplan() { mbm -n report WORKLOAD=deepseek-v3 GPU_TYPE=gb200 SIZE=671b DTYPE=bf16 "$@" >"$TRASH/px.out" 2>&1; }
t_ok "SCALES naming a proxy scale plans its proxy run (GB200 64)" mbplan SCALES=64
t_grep "...labelled" "train deepseek-v3 gb200 671b bf16 x64: .* PROXY \(not compared with the reference\)'\$" "$TRASH/px.out"
t_nogrep "...alone" "train deepseek-v3 gb200 671b bf16 x(256|512):" "$TRASH/px.out"
t_grep "...its parse stage marks it a proxy" '^proxy=true$' "$TRASH/mbgen/cfg/parse.deepseek-v3.gb200.671b.bf16.64"
t_nogrep "...not profiled" '^profiled=' "$TRASH/mbgen/cfg/parse.deepseek-v3.gb200.671b.bf16.64"
t_ok "PROXY=only: the proxy run alone" mbplan PROXY=only
t_grep "...x64" "train deepseek-v3 gb200 671b bf16 x64: " "$TRASH/px.out"
t_nogrep "...no full-scale run" "train deepseek-v3 gb200 671b bf16 x(256|512):" "$TRASH/px.out"
t_ok "PROXY=0 SCALES=\"64 256\": the full-scale run alone" mbplan PROXY=0 SCALES="64 256"
t_nogrep "...no proxy" "train deepseek-v3 gb200 671b bf16 x64:" "$TRASH/px.out"
t_rc "PROXY=maybe: refused" 2 mbplan PROXY=maybe
t_grep "...saying what it takes" 'PROXY=maybe: expected true, false or only' "$TRASH/px.out"

# ---- overrides and sweeps (TP PP CP VP EP ETP MBS GBS FP8_RECIPE CONFIG_VARIANT
# CUDA_GRAPH_SCOPE ENV) ----------------------------------------------------------------
# Each combination a run of its own (<run>/override-<tag>), its knobs in the
# training's configuration, labelled and never compared; a combination the
# run's parallelism cannot divide is named (one: refused; a sweep: skipped).
ovplan() { mbm -n report WORKLOAD=llama3.1 SIZE=8b DTYPE=fp8 GPU_TYPE=h100 SCALES=8 "$@" >"$TRASH/ov.out" 2>&1; }
ovany() { mbm -n report "$@" >"$TRASH/ov.out" 2>&1; }
ovlines() { sed -n "s/^: '\\(.*\\)'\$/\\1/p" "$TRASH/ov.out" | sed "s|$TRASH|TRASH|g" >"$TRASH/$1"; }
t_ok "MBS=\"1 2\": planned" ovplan MBS="1 2"
ovlines ov-mbs.txt
t_cmp "MBS=\"1 2\": the plan golden (two trainings)" "$MP/llama3.1.h100.8b.fp8.mbs-1-2.plan" "$TRASH/ov-mbs.txt"
t_ok "...two trainings, each its own run" test "$(grep -c '\] train llama3.1 h100 8b fp8 x8 override-mbs[12]: .* OVERRIDE(MBS=[12]) (not compared with the reference)$' "$TRASH/ov-mbs.txt")" = 2
t_nogrep "...the recipe's run is not planned" '\] train llama3.1 h100 8b fp8 x8:' "$TRASH/ov-mbs.txt"
t_grep "...the parser's flag after the row's" ' args: --model_recipe_name llama3_8b --compute_dtype fp8_cs -mb 2 env: ' "$TRASH/ov-mbs.txt"
t_grep "...GA derived again (128 / (2 x 8))" 'x8 override-mbs2: .* mbs=2 gbs=128 dp=8 ga=8 ' "$TRASH/ov-mbs.txt"
C=$TRASH/mbgen/cfg/train.llama3.1.h100.8b.fp8.8.override-mbs2
t_grep "...the knob in the training's configuration" '^knob=MBS=2$' "$C"
t_grep "...in its own run directory" '^run=h100_8b_fp8_8/override-mbs2$' "$C"
t_ok "...one report of both" test "$(grep -c '\] report llama3.1 h100 8b fp8:' "$TRASH/ov-mbs.txt")" = 1
# PerfEnvPlugin's rule on H100: CUDA_DEVICE_MAX_CONNECTIONS 1 with TP or CP
# above 1, else 8, follows the overridden TP and CP.
t_ok "TP=2 on H100: planned" ovplan TP=2
t_grep "...CUDA_DEVICE_MAX_CONNECTIONS=1, as Megatron-Bridge sets it for TP 2" ' env: .* CUDA_DEVICE_MAX_CONNECTIONS=1 ' "$TRASH/ov.out"
t_ok "70b on H100 (TP 4) with TP=1: planned" ovany WORKLOAD=llama3.1 SIZE=70b DTYPE=fp8 GPU_TYPE=h100 SCALES=64 TP=1
t_grep "...CUDA_DEVICE_MAX_CONNECTIONS=8 for TP 1, CP 1" ' env: .* CUDA_DEVICE_MAX_CONNECTIONS=8 ' "$TRASH/ov.out"
t_rc "TP=3 at 8 GPUs: refused" 2 ovplan TP=3
t_grep "...naming the constraint" 'error: TP=3 on llama3.1 h100 8b fp8 x8: GPUs \(8\) must be divisible by TP\*PP\*CP \(3 = TP 3 x PP 1 x CP 1\)' "$TRASH/ov.out"
t_rc "GBS=100: refused" 2 ovplan GBS=100
t_grep "...GBS by MBS x DP" 'error: GBS=100 on .*: GBS \(100\) must be divisible by MBS\*DP \(8 = MBS 1 x DP 8' "$TRASH/ov.out"
t_rc "EP=16 at 8 GPUs: refused" 2 ovplan EP=16
t_grep "...ETP x EP x PP" 'GPUs \(8\) must be divisible by ETP\*EP\*PP' "$TRASH/ov.out"
t_rc "VP=2 with PP 1: refused" 2 ovplan VP=2
t_grep "...interleaving needs PP" 'VP \(2\) needs PP above 1' "$TRASH/ov.out"
t_ok "a 2 x 2 sweep (TP=\"1 2\" MBS=\"16 32\") with one invalid combination: planned" ovplan TP="1 2" MBS="16 32"
t_grep "...the invalid one named and skipped" 'warning: TP=1 MBS=32 on llama3.1 h100 8b fp8 x8: GBS \(128\) must be divisible by MBS\*DP \(256 = MBS 32 x DP 8, .*\); skipped' "$TRASH/ov.out"
ovlines ov-sweep.txt
t_cmp "...the plan golden (three trainings)" "$MP/llama3.1.h100.8b.fp8.sweep.plan" "$TRASH/ov-sweep.txt"
t_ok "...three trainings" test "$(grep -c '\] train llama3.1 ' "$TRASH/ov-sweep.txt")" = 3
# The same sweep from a file (SWEEP=, like upstream's bulk YAML): an
# overrides: mapping of knobs to values or lists, planned exactly as the
# command line's.
printf '# a 2 x 2 sweep\noverrides:\n  tp: [1, 2]\n  mbs: [16, 32]\n' >"$TRASH/sweep.yaml"
t_ok "SWEEP=file with tp: [1, 2], mbs: [16, 32]: planned" ovplan SWEEP="$TRASH/sweep.yaml"
t_grep "...the invalid one named and skipped" 'warning: TP=1 MBS=32 on llama3.1 h100 8b fp8 x8: .*; skipped' "$TRASH/ov.out"
ovlines ov-sweepfile.txt
t_cmp "...the same plan as TP=\"1 2\" MBS=\"16 32\"" "$MP/llama3.1.h100.8b.fp8.sweep.plan" "$TRASH/ov-sweepfile.txt"
printf 'overrides:\n  mbs: 2\n' >"$TRASH/sweep1.yaml"
t_ok "SWEEP=file with one value (mbs: 2): planned" ovplan SWEEP="$TRASH/sweep1.yaml"
t_ok "...as MBS=2" test "$(grep -c '\] train llama3.1 h100 8b fp8 x8 override-mbs2: ' "$TRASH/ov.out")" = 1
printf 'overrides:\n  mbs: 4\n' >"$TRASH/sweep1.yaml"
touch -d '+2 seconds' "$TRASH/sweep1.yaml"
t_ok "...the file edited (mbs: 4): planned again" ovplan SWEEP="$TRASH/sweep1.yaml"
t_ok "...its new value, not the rules of the old" test "$(grep -c '\] train llama3.1 h100 8b fp8 x8 override-mbs4: ' "$TRASH/ov.out")" = 1
t_rc "SWEEP=file and MBS= on the command line: refused" 2 ovplan SWEEP="$TRASH/sweep1.yaml" MBS=4
t_grep "...saying where" "sweep1.yaml:2:3: error: mbs is also given as MBS=4 on the command line" "$TRASH/ov.out"
printf 'overrides:\n  mbs: [1, 2]\n  tq: [2]\n  gbs: []\n  pp: [1 2]\nrepeat: 2\n' >"$TRASH/sweepbad.yaml"
t_rc "a sweep file with bad keys and values: refused" 2 ovplan SWEEP="$TRASH/sweepbad.yaml"
t_grep "...an unknown knob at its place" "sweepbad.yaml:3:3: error: 'tq' is not an override knob" "$TRASH/ov.out"
t_grep "...an empty list" "sweepbad.yaml:4:8: error: gbs: the list of values is empty" "$TRASH/ov.out"
t_grep "...a value of two words" "sweepbad.yaml:5:8: error: pp: '1 2' must be one word" "$TRASH/ov.out"
t_grep "...an unknown top-level key" "sweepbad.yaml:6:1: error: unknown key 'repeat'" "$TRASH/ov.out"
printf 'overrides:\n  tp: [[1]]\n' >"$TRASH/sweepnest.yaml"
t_rc "a sweep file with a nested list: refused" 2 ovplan SWEEP="$TRASH/sweepnest.yaml"
t_grep "...saying a value is a scalar" "sweepnest.yaml:2:8: error: tp: a value must be a scalar, not a list" "$TRASH/ov.out"
printf 'overrides:\n  tp: [3]\n' >"$TRASH/sweep3.yaml"
t_rc "a sweep file's values checked as the command line's (TP 3 at 8 GPUs)" 2 ovplan SWEEP="$TRASH/sweep3.yaml"
t_grep "...naming the constraint" 'error: TP=3 on llama3.1 h100 8b fp8 x8: GPUs \(8\) must be divisible' "$TRASH/ov.out"
t_rc "SWEEP= a file that is not there: refused" 2 ovplan SWEEP="$TRASH/nosuch.yaml"
t_rc "SWEEP= a path make cannot take: refused" 2 ovplan SWEEP="a;b.yaml"
t_grep "...saying what a path may hold" 'SWEEP=a;b.yaml must be a plain path' "$TRASH/ov.out"
# Upstream's bulk shape (llmb-run submit -f, its task_loader.py): a header
# <type>_<workload>_<size> with one task (llmb plans one selection a make),
# its dtypes and scales over the header's, its overrides' params (a list
# sweeps) and env over the defaults'.
cat >"$TRASH/bulk.yaml" <<'YAML'
pretrain_llama3.1_8b:
  defaults:
    env:
      NCCL_IB_QPS_PER_CONNECTION: 4
      NCCL_DEBUG: WARN
    params:
      mbs: 64
  dtypes: [bf16]
  scales: [8]
  tasks:
    - dtypes: fp8
      repeats: 1
      overrides:
        env:
          NCCL_DEBUG: INFO
        params:
          tp: [1, 2]
          mbs: [16, 32]
YAML
t_ok "SWEEP=<upstream's bulk file>: planned" ovany GPU_TYPE=h100 SWEEP="$TRASH/bulk.yaml"
ovlines ov-bulk.txt
t_ok "...as WORKLOAD=llama3.1 SIZE=8b DTYPE=fp8 SCALES=8 TP=\"1 2\" MBS=\"16 32\" ENV=..." \
	ovany GPU_TYPE=h100 WORKLOAD=llama3.1 SIZE=8b DTYPE=fp8 SCALES=8 TP="1 2" MBS="16 32" ENV="NCCL_DEBUG=INFO NCCL_IB_QPS_PER_CONNECTION=4"
ovlines ov-bulk-cmd.txt
t_cmp "...the same plan" "$TRASH/ov-bulk-cmd.txt" "$TRASH/ov-bulk.txt"
t_ok "...three trainings of the sweep" test "$(grep -c '\] train llama3.1 h100 8b fp8 x8 override-tp[12]-mbs[0-9]*-env' "$TRASH/ov-bulk.txt")" = 3
printf 'pretrain_llama3.1_8b:\n  tasks:\n    - scales: [8]\n      dtypes: fp8\n      profile: true\n' >"$TRASH/bulkp.yaml"
t_ok "a bulk task with profile: true: planned" ovany GPU_TYPE=h100 SWEEP="$TRASH/bulkp.yaml"
t_grep "...profiled" '\] train llama3.1 h100 8b fp8 x8: .* PROFILED\(steps 45-50\)' "$TRASH/ov.out"
cat >"$TRASH/bulkbad.yaml" <<'YAML'
pretrain_llama3.1_8b:
  repeats: 3
  tasks:
    - dtypes: fp8
      nodes: 2
      profile: maybe
    - dtypes: bf16
pretrain_qwen3_30b:
  tasks: []
YAML
t_rc "a bulk file of two headers, two tasks, repeats 3, an unknown key: refused" 2 ovany GPU_TYPE=h100 SWEEP="$TRASH/bulkbad.yaml"
t_grep "...two tasks: one selection a make" "bulkbad.yaml:4:5: error: pretrain_llama3.1_8b: tasks must be a list of one task: llmb plans one selection a make" "$TRASH/ov.out"
t_grep "...a second header" "bulkbad.yaml:8:1: error: a second bulk header 'pretrain_qwen3_30b'" "$TRASH/ov.out"
printf 'pretrain_llama3.1_8b:\n  repeats: 3\n  tasks:\n    - dtypes: fp8\n      nodes: 2\n      profile: maybe\n      add_profile: true\n      overrides: {tp: 2}\npretrain_nemotron-h:\n  tasks: []\n' >"$TRASH/bulkbad.yaml"
t_rc "...one task with bad keys, a header without a size: refused" 2 ovany GPU_TYPE=h100 SWEEP="$TRASH/bulkbad.yaml"
t_grep "...repeats: each configuration once a make" "bulkbad.yaml:2:12: error: repeats: llmb runs each configuration once a make" "$TRASH/ov.out"
t_grep "...an unknown task key" "bulkbad.yaml:5:7: error: unknown key 'nodes' in a bulk task" "$TRASH/ov.out"
t_grep "...profile: true or false" "bulkbad.yaml:6:16: error: profile: true or false" "$TRASH/ov.out"
t_grep "...add_profile: one selection a make" "bulkbad.yaml:7:7: error: add_profile: llmb plans one selection a make" "$TRASH/ov.out"
t_grep "...a knob outside overrides.params" "bulkbad.yaml:8:19: error: unknown key 'tp' in overrides \\(expected params, env\\)" "$TRASH/ov.out"
printf 'pretrain_nemotron-h:\n  tasks: [{scales: [8]}]\n' >"$TRASH/bulkbad.yaml"
t_rc "a header without a size: refused" 2 ovany GPU_TYPE=h100 SWEEP="$TRASH/bulkbad.yaml"
t_grep "...naming the shape" "bulkbad.yaml:1:1: error: 'pretrain_nemotron-h' is not a bulk header <type>_<workload>_<size>" "$TRASH/ov.out"
printf 'pretrain_llama3.1_8b:\n  tasks: [{scales: [8]}]\n' >"$TRASH/bulkw.yaml"
t_rc "a bulk file and WORKLOAD= on the command line: refused" 2 ovany GPU_TYPE=h100 WORKLOAD=llama3.1 SWEEP="$TRASH/bulkw.yaml"
t_grep "...saying where" "bulkw.yaml:1:1: error: pretrain_llama3.1_8b is also given as WORKLOAD=llama3.1 on the command line" "$TRASH/ov.out"
t_rc "a sweep of none valid: exit 2" 2 ovplan TP="3 5"
t_grep "...saying so" 'error: no combination of the sweep suits a selected run of workload llama3.1' "$TRASH/ov.out"
t_ok "FP8_RECIPE CONFIG_VARIANT CUDA_GRAPH_SCOPE ENV: planned" \
	ovplan FP8_RECIPE=mx CONFIG_VARIANT=v1 CUDA_GRAPH_SCOPE=attn,mlp ENV="NCCL_DEBUG=INFO CUDA_DEVICE_MAX_CONNECTIONS=4"
t_grep "...the parser's flags" 'args: --model_recipe_name llama3_8b --compute_dtype fp8_cs --compute_dtype fp8_mx --config_variant v1 --cuda_graph_scope attn,mlp env: ' "$TRASH/ov.out"
t_grep "...ENV's variable in the environment" ' env: .* NCCL_DEBUG=INFO' "$TRASH/ov.out"
t_grep "...ENV's value replaces the recipe's" ' env: .* CUDA_DEVICE_MAX_CONNECTIONS=4 ' "$TRASH/ov.out"
t_nogrep "...once" 'CUDA_DEVICE_MAX_CONNECTIONS=8' "$TRASH/ov.out"
ovid=$(sed -n 's/.*\] train llama3.1 h100 8b fp8 x8 \(override-[^:]*\):.*/\1/p' "$TRASH/ov.out")
"$LLMB" script --top "$TOP" --gen "$TRASH/mbgen" --install "$TRASH/mbinst" "train.llama3.1.h100.8b.fp8.8.$ovid" >"$TRASH/ov.sh" 2>&1
t_grep "...exported quoted in the job script" "^export NCCL_DEBUG='INFO'\$" "$TRASH/ov.sh"
t_rc "FP8_RECIPE=xx: refused" 2 ovplan FP8_RECIPE=xx
t_grep "...with the parser's choices" "FP8_RECIPE=xx: 'xx' is not cs, mx or sc" "$TRASH/ov.out"
t_rc "CUDA_GRAPH_SCOPE=attn,foo: refused" 2 ovplan CUDA_GRAPH_SCOPE=attn,foo
t_grep "...with the parser's scopes" 'is not scopes of full_iteration, attn, mlp' "$TRASH/ov.out"
t_rc "FP8_RECIPE on a bf16 run: refused" 2 ovany WORKLOAD=llama3.1 SIZE=8b DTYPE=bf16 GPU_TYPE=h100 SCALES=8 FP8_RECIPE=mx
t_grep "...saying so" 'FP8_RECIPE applies to fp8 runs, this one is bf16' "$TRASH/ov.out"
t_rc "ENV with a secret's name: refused" 2 ovplan ENV="HF_TOKEN=hf_x"
t_grep "...saying secrets go by name" 'ENV: HF_TOKEN is a secret.s name' "$TRASH/ov.out"
t_nogrep "...its value never said" 'hf_x' "$TRASH/ov.out"
t_rc "ENV with a name like a secret's: refused" 2 ovplan ENV="MY_API_KEY=x"
for n in SLURM_JWT GITHUB_PAT db_pass NGC_APIKEY; do
	t_rc "ENV with $n, a secret's name in any case: refused" 2 ovplan ENV="$n=x"
done
t_rc "ENV with a bad name: refused" 2 ovplan ENV="1A=2"
t_grep "...naming it" "ENV: '1A=2' is not NAME=VALUE" "$TRASH/ov.out"
t_rc "ENV with a placeholder: refused" 2 ovplan ENV="A={install}"
# (make strips a command line's blank value: llmb gen sees one from elsewhere)
t_rc "TP=' ' (no value) in llmb gen's environment: refused" 2 \
	env WORKLOAD=llama3.1 TP=" " "$LLMB" gen --top "$TOP" --gen "$TRASH/ovgen"
t_grep "...saying so" "TP=' ' gives no value" "$TRASH/.out"
t_rc "an override on a recipe that is not Megatron-Bridge's: refused" 2 ovany WORKLOAD=nemotron4 SIZE=15b DTYPE=bf16 GPU_TYPE=h100 SCALES=16 TP=2
t_grep "...saying whose they are" 'TP=2: workload nemotron4 \(framework nemo2\) takes no overrides' "$TRASH/ov.out"
t_rc "overrides are not for make nightly" 2 ovany WORKLOAD=llama3.1 LLMB_NIGHT=2026-01-05 LLMB_NIGHTLY=nosuch.yaml TP=2
t_grep "...saying why" 'are not for make nightly' "$TRASH/ov.out"

# ---- every row against the workload base config its run loads -------------------------
# tests/mbridge-base-configs.tsv: Megatron-Bridge's pre-training base
# configs at the pinned commits (kept as data, scripts/mbridge-base-configs.py).
# mbridge-base-check.py derives each training's TP, PP, CP, VP, EP, ETP,
# MBS, GBS, DP, GA, FSDP, CUDA graphs, recompute and CPU offloading as
# scripts/performance does (the
# config the recipe name, GPU, dtype and variant select, the row's own
# arguments over it) and names every field a plan line disagrees on.
BC=$TESTS_DIR/mbridge-base-configs.tsv
mapfile -t mb_plans < <(find "$TRASH" -maxdepth 1 -name '*.plan' | sort)
t_ok "every Megatron-Bridge row is the base config its run loads (llama3.1's plans: tests/plans, checked by t-plans)" \
	"$PY" "$TESTS_DIR/mbridge-base-check.py" "$BC" "$TOP" "${mb_plans[@]}" "$TESTS_DIR"/plans/llama3.1.*.plan
"$PY" "$TESTS_DIR/mbridge-base-check.py" "$BC" "$TOP" "${mb_plans[@]}" "$TESTS_DIR"/plans/llama3.1.*.plan >"$TRASH/bc.out" 2>&1
t_grep "...all of them: 7 workloads, every GPU type" '^30[0-9] rows, 0 differ$' "$TRASH/bc.out"
# The check fails on a row that disagrees: the H100 70b FP8 row as it was
# (MBS 2, GA 4: a stale README row) and the GB200 70b NVFP4 one (TP 1).
sed 's/ mbs=1 gbs=256 dp=2 ga=128 / mbs=2 gbs=256 dp=2 ga=4 /' "$TESTS_DIR/plans/llama3.1.h100.70b.fp8.plan" >"$TRASH/stale1.plan.txt"
sed 's/ tp=2 pp=4 cp=1 ep=1 etp=1 vp=5 mbs=1 gbs=256 dp=8 ga=32 / tp=1 pp=4 cp=1 ep=1 etp=1 vp=5 mbs=1 gbs=256 dp=16 ga=16 /' \
	"$TESTS_DIR/plans/llama3.1.gb200.70b.nvfp4.plan" >"$TRASH/stale2.plan.txt"
t_rc "a stale row fails the check" 1 "$PY" "$TESTS_DIR/mbridge-base-check.py" "$BC" "$TOP" "$TRASH/stale1.plan.txt" "$TRASH/stale2.plan.txt"
"$PY" "$TESTS_DIR/mbridge-base-check.py" "$BC" "$TOP" "$TRASH/stale1.plan.txt" "$TRASH/stale2.plan.txt" >"$TRASH/bc2.out" 2>&1
t_grep "...naming the row, its config and the field" '^llama3.1 h100 70b fp8 x64 \(LLAMA3_70B_PRETRAIN_CONFIG_H100_FP8_CS_V2, scripts/performance/configs/llama/llama3_workload_base_configs.py at 06f25c2\): mbs 2, the run.s 1; ga 4, the run.s 128$' "$TRASH/bc2.out"
t_grep "...each one" '^llama3.1 gb200 70b nvfp4 x64 \(LLAMA3_70B_PRETRAIN_CONFIG_GB200_NVFP4_V2, .*\): tp 1, the run.s 2; dp 16, the run.s 8; ga 16, the run.s 32$' "$TRASH/bc2.out"

# ---- the launch as Megatron-Bridge's executor builds it -------------------------------
# utils/executors.py slurm_executor at the pinned commits (06f25c2, and
# f07871e for gpt-oss): mem="0" on every job; --segment when the node has
# 4 GPUs (GB200, GB300): the node count up to 18, else its largest divisor
# up to 18; container_env = sorted(PERF_ENV_VARS) and GB200's
# NCCL_NET_GDR_LEVEL and NCCL_NET_GDR_C2C. Restated here, apart from the
# recipes, and checked on every training of every plan above (llama3.1's
# in tests/plans, which t-plans compares with what llmb plans).
# shellcheck disable=SC2016 # an awk program
t_ok "every Megatron-Bridge training: mem=0, --segment by upstream's rule on 4-GPU nodes, none on 8" awk '
	/\] train / {
		n++
		nodes = gpn = seg = mem = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^nodes=/) nodes = substr($i, 7) + 0
			if ($i ~ /^gpus\/node=/) gpn = substr($i, 11) + 0
			if ($i ~ /^segment=/) seg = substr($i, 9) + 0
			if ($i ~ /^mem=/) mem = substr($i, 5)
		}
		want = ""
		if (gpn == 4) {
			if (nodes <= 18) want = nodes
			else for (c = 18; c >= 1; c--) if (nodes % c == 0) { want = c; break }
		}
		if (mem != "0" || seg != want) { bad++; print FILENAME ": " nodes " nodes, " gpn "/node: segment=" seg " (want " want ") mem=" mem }
		if (gpn == 4) four++
	}
	END { exit !(n > 300 && four > 100 && bad == 0) }' "$MP"/*.plan "$TESTS_DIR"/plans/llama3.1.*.plan
t_grep "deepseek-v3 gb200 fp8 x256: 64 nodes, --segment=16" '^#SBATCH --segment=16$' "$MP/train.deepseek-v3.gb200.671b.fp8.256.sh"
t_grep "...and --mem=0" '^#SBATCH --mem=0$' "$MP/train.deepseek-v3.gb200.671b.fp8.256.sh"
t_grep "llama3.1 h100 70b fp8 x64: --mem=0" '^#SBATCH --mem=0$' "$TESTS_DIR/plans/train.llama3.1.h100.70b.fp8.64.sh"
t_nogrep "...and no --segment (8 GPUs a node)" 'segment' "$TESTS_DIR/plans/train.llama3.1.h100.70b.fp8.64.sh"
# --container-env: the executor's names that the job exports, sorted, so
# that their values win over the image's ENV (pyxis).
upstream_env='HF_HUB_OFFLINE NCCL_NVLS_ENABLE NVTE_NORM_BWD_USE_CUDNN NVTE_NORM_FWD_USE_CUDNN TOKENIZERS_PARALLELISM
TORCH_NCCL_AVOID_RECORD_STREAMS TORCH_NCCL_HIGH_PRIORITY TRANSFORMERS_OFFLINE'
for js in "$MP/train.deepseek-v3.gb200.671b.fp8.256.sh" "$TESTS_DIR/plans/train.llama3.1.h100.70b.fp8.64.sh"; do
	names=$upstream_env
	case $js in *gb200*) names="$names NCCL_NET_GDR_LEVEL NCCL_NET_GDR_C2C" ;; esac
	want=$(for n in $names; do grep -q "^export $n=" "$js" && echo "$n"; done | LC_ALL=C sort | paste -sd, -)
	got=$(grep -o -- "'--container-env=[^']*'" "$js" | sed "s/^'--container-env=//; s/'\$//")
	t_ok "$(basename "$js"): --container-env=$want (upstream's names it exports)" test -n "$want" -a "$got" = "$want"
done
# ADDITIONAL_SLURM_PARAMS is sbatch's command line and wins: a segment= or
# a memory option there leaves the recipe's line out.
mbm -n report WORKLOAD=deepseek-v3 GPU_TYPE=gb200 SIZE=671b DTYPE=fp8 SCALES=256 \
	ADDITIONAL_SLURM_PARAMS="segment=8;mem-per-gpu=100G" >"$TRASH/asp.out" 2>&1
"$LLMB" script --top "$TOP" --gen "$TRASH/mbgen" --install "$TRASH/mbinst" train.deepseek-v3.gb200.671b.fp8.256 \
	>"$TRASH/asp.sh" 2>&1
t_nogrep "ADDITIONAL_SLURM_PARAMS=segment=8;mem-per-gpu=100G: no #SBATCH --segment or --mem of the recipe's" \
	'^#SBATCH' "$TRASH/asp.sh"
t_grep "...the rest of the launch as before" "'--container-env=HF_HUB_OFFLINE," "$TRASH/asp.sh"
mbm -n report WORKLOAD=deepseek-v3 GPU_TYPE=gb200 SIZE=671b DTYPE=fp8 SCALES=256 \
	ADDITIONAL_SLURM_PARAMS="mem-bind=local" >"$TRASH/asp.out" 2>&1
"$LLMB" script --top "$TOP" --gen "$TRASH/mbgen" --install "$TRASH/mbinst" train.deepseek-v3.gb200.671b.fp8.256 \
	>"$TRASH/asp.sh" 2>&1
t_ok "ADDITIONAL_SLURM_PARAMS=mem-bind=local is no memory size: both lines kept" \
	test "$(grep -c '^#SBATCH --\(mem=0\|segment=16\)$' "$TRASH/asp.sh")" = 2

# The nightly history: a proxy run's record says proxy, has no reference
# and a fingerprint of its own, never a full-scale run's baseline.
for sc in 64 256; do
	mkdir -p "$TRASH/pxup/gb200_671b_bf16_$sc"
	clean "$PY" "$SI/scripts/performance/run_script.py" --model_recipe_name deepseek_v3 --gpu gb200 --num_gpus $sc \
		-gb $((sc * 16)) --max_steps=50 >"$TRASH/pxup/gb200_671b_bf16_$sc/log-ds_${sc}01.out" 2>&1
done
t_ok "record --import of a proxy and a full-scale DeepSeek run" \
	"$LLMB" record --import --top "$TOP" --install "$TRASH/pxinst" --workload deepseek-v3 "$TRASH/pxup"
cat "$TRASH"/pxinst/history/deepseek-v3_gb200_671b_bf16_64_*.jsonl >"$TRASH/px64.jsonl"
cat "$TRASH"/pxinst/history/deepseek-v3_gb200_671b_bf16_256_*.jsonl >"$TRASH/px256.jsonl"
t_ok "...two histories, one a configuration" test "$(find "$TRASH/pxinst/history" -name '*.jsonl' | wc -l)" = 2
t_grep "...the proxy's record says proxy, with no reference" '"proxy": ?true.*"reference": ?null|"reference": ?null.*"proxy": ?true' "$TRASH/px64.jsonl"
t_ok "...the full-scale one's does not" sh -c "test -s '$TRASH/px256.jsonl' && ! grep -q '\"proxy\"' '$TRASH/px256.jsonl'"
t_ok "...the judge reads both" "$LLMB" judge --install "$TRASH/pxinst"

# ---- profiling: knobs.profile of every Megatron-Bridge recipe ------------------------
# ENABLE_PROFILE (nsys), ENABLE_PYTORCH_PROFILE, ENABLE_GPU_METRICS and
# PROFILE_RANKS as upstream's launch.sh of each recipe takes them: the
# profiled run labelled and never compared, its parse marked profiled, the
# driver told by its job script (a golden one, run below with the nsys
# stand-in of tests/bin).
pk() { mbm -n report LLMB_GEN="$TRASH/gp" "$@" >"$TRASH/pk.out" 2>&1; }
t_ok "llama3.1 h100 8b fp8 x8 with ENABLE_PROFILE=1: planned" pk WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=8b DTYPE=fp8 SCALES=8 ENABLE_PROFILE=1
sed -n "s/^: '\\(.*\\)'\$/\\1/p" "$TRASH/pk.out" | sed "s|$TRASH|TRASH|g" >"$TRASH/pk.plan"
t_cmp "...the plan golden" "$MP/llama3.1.h100.8b.fp8.profile.plan" "$TRASH/pk.plan"
t_grep "...the training labelled profiled (steps 45-50), not compared" \
	'train llama3.1 h100 8b fp8 x8: .* PROFILED\(steps 45-50\) \(not compared with the reference\)$' "$TRASH/pk.plan"
t_grep "...its parse marks the run profiled" '^profiled=true$' "$TRASH/gp/cfg/parse.llama3.1.h100.8b.fp8.8"
t_grep "...the knob is part of the training's configuration" '^knob=ENABLE_PROFILE=true$|ENABLE_PROFILE' "$TRASH/gp/cfg/train.llama3.1.h100.8b.fp8.8"
if "$LLMB" script --top "$TOP" --gen "$TRASH/gp" --install "$TRASH/mbinst" train.llama3.1.h100.8b.fp8.8 >"$TRASH/pk.raw" 2>"$TRASH/pk.err"; then
	sed "s|$TRASH|TRASH|g; s|$TOP|TOP|g" "$TRASH/pk.raw" >"$TRASH/pk.sh"
	t_cmp "...its job script golden" "$MP/train.llama3.1.h100.8b.fp8.8.profile.sh" "$TRASH/pk.sh"
	t_grep "...which tells the driver to profile with nsys, steps 45-50, every rank, tracing cuda,nvtx" \
		"'--profile' '1' '--pytorch-profile' '0' '--gpu-metrics' '0' '--profile-start' '45' '--profile-stop' '50' '--profile-ranks' 'all' '--nsys-trace' 'cuda,nvtx'" "$TRASH/pk.sh"
else
	t_fail "...its job script"
fi
for w in deepseek-v3 gpt-oss kimi-k2 nemotron-h nemotron3 qwen3; do
	t_ok "$w with ENABLE_PROFILE=1: planned" pk WORKLOAD="$w" GPU_TYPE=gb200 ENABLE_PROFILE=1
	t_grep "...labelled profiled" ' PROFILED\(steps 45-50\) .*\(not compared with the reference\)' "$TRASH/pk.out"
done
t_ok "PROFILE_START_STEP=40 PROFILE_STOP_STEP=42 ENABLE_GPU_METRICS=1: planned" \
	pk WORKLOAD=nemotron-h GPU_TYPE=gb200 ENABLE_PROFILE=1 PROFILE_START_STEP=40 PROFILE_STOP_STEP=42 ENABLE_GPU_METRICS=1
t_grep "...the steps and GPU metrics in the plan line" ' PROFILED\(steps 40-42\) GPU-METRICS ' "$TRASH/pk.out"
t_ok "ENABLE_PYTORCH_PROFILE=1 on llama3.1: planned" pk WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=8b DTYPE=fp8 SCALES=8 ENABLE_PYTORCH_PROFILE=1
t_grep "...labelled, not compared" ' PYTORCH-PROFILED\(steps 45-50\) \(not compared with the reference\)' "$TRASH/pk.out"
t_grep "...its parse marks the run profiled" '^profiled=true$' "$TRASH/gp/cfg/parse.llama3.1.h100.8b.fp8.8"
t_ok "PROFILE_RANKS=0,7 on llama3.1: planned" pk WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=8b DTYPE=fp8 SCALES=8 ENABLE_PROFILE=1 PROFILE_RANKS=0,7
t_grep "...shown in the plan line" ' PROFILED\(steps 45-50\) PROFILE_RANKS=0,7 ' "$TRASH/pk.out"
t_rc "ENABLE_PYTORCH_PROFILE=1 on kimi-k2 (upstream's launch.sh has none): refused" 2 pk WORKLOAD=kimi-k2 GPU_TYPE=gb200 ENABLE_PYTORCH_PROFILE=1
t_grep "...naming the recipes that have it" 'ENABLE_PYTORCH_PROFILE=true is not supported by workload kimi-k2 .*supported by: .*llama3.1' "$TRASH/pk.out"
t_rc "ENABLE_PROFILE=1 ENABLE_PYTORCH_PROFILE=1: refused" 2 pk WORKLOAD=llama3.1 ENABLE_PROFILE=1 ENABLE_PYTORCH_PROFILE=1
t_grep "...they exclude each other, as upstream" 'exclude each other' "$TRASH/pk.out"
t_rc "ENABLE_GPU_METRICS=1 without ENABLE_PROFILE: refused" 2 pk WORKLOAD=llama3.1 ENABLE_GPU_METRICS=1
t_grep "...saying nsys collects them" 'ENABLE_GPU_METRICS=true needs ENABLE_PROFILE=true' "$TRASH/pk.out"
t_rc "PROFILE_RANKS=0,,3: refused" 2 pk WORKLOAD=llama3.1 ENABLE_PROFILE=1 PROFILE_RANKS=0,,3
t_grep "...saying what it takes" 'PROFILE_RANKS=0,,3: expected ranks as whole numbers separated by commas' "$TRASH/pk.out"
t_rc "PROFILE_RANKS on nemotron3 (upstream profiles every rank): refused" 2 pk WORKLOAD=nemotron3 ENABLE_PROFILE=1 PROFILE_RANKS=0
t_rc "PROFILE_RANKS without profiling: refused" 2 pk WORKLOAD=llama3.1 PROFILE_RANKS=0
# Checkpoints (ENABLE_CHECKPOINT, CHECKPOINT_INTERVAL, CHECKPOINT_DIR): on
# llama3.1 8b and gpt-oss, as upstream; the space the saves need in the
# plan line; the driver told by the job script (golden, run below: the
# stand-in logs Megatron's save lines, which llmb parse reads).
t_ok "llama3.1 h100 8b fp8 x8 with ENABLE_CHECKPOINT=1: planned" pk WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=8b DTYPE=fp8 SCALES=8 ENABLE_CHECKPOINT=1
t_grep "...one save at the last step, in the run folder, with the space it needs" \
	'train llama3.1 h100 8b fp8 x8: .* CHECKPOINT\(every 50 steps, to the run folder, needs 112 GB: 1 save\)'"'"'$' "$TRASH/pk.out"
t_ok "...CHECKPOINT_INTERVAL=25 CHECKPOINT_DIR=/scratch/ckpt" pk WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=8b DTYPE=fp8 SCALES=8 \
	ENABLE_CHECKPOINT=1 CHECKPOINT_INTERVAL=25 CHECKPOINT_DIR=/scratch/ckpt
sed -n "s/^: '\\(.*\\)'\$/\\1/p" "$TRASH/pk.out" | sed "s|$TRASH|TRASH|g" >"$TRASH/pk.plan"
t_cmp "...the plan golden" "$MP/llama3.1.h100.8b.fp8.checkpoint.plan" "$TRASH/pk.plan"
t_grep "...two saves, twice the space" ' CHECKPOINT\(every 25 steps, to /scratch/ckpt, needs 224 GB: 2 saves\)$' "$TRASH/pk.plan"
if "$LLMB" script --top "$TOP" --gen "$TRASH/gp" --install "$TRASH/mbinst" train.llama3.1.h100.8b.fp8.8 >"$TRASH/pk.raw" 2>"$TRASH/pk.err"; then
	sed "s|$TRASH|TRASH|g; s|$TOP|TOP|g" "$TRASH/pk.raw" >"$TRASH/pk.sh"
	t_cmp "...its job script golden" "$MP/train.llama3.1.h100.8b.fp8.8.checkpoint.sh" "$TRASH/pk.sh"
	t_grep "...which tells the driver" "'--checkpoint' '1' '--checkpoint-interval' '25' '--checkpoint-dir' '/scratch/ckpt' '--load-dir' 'none'" "$TRASH/pk.sh"
else
	t_fail "...its job script"
fi
t_nogrep "...saves outside the measured window (35-44): compared" 'not compared' "$TRASH/pk.plan"
t_ok "...CHECKPOINT_INTERVAL=10" pk WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=8b DTYPE=fp8 SCALES=8 ENABLE_CHECKPOINT=1 CHECKPOINT_INTERVAL=10
t_grep "...a save inside the window (40): not compared" ' CHECKPOINT\(every 10 steps, to the run folder, needs 560 GB: 5 saves\) \(not compared with the reference\)' "$TRASH/pk.out"
t_rc "ENABLE_CHECKPOINT=1 on llama3.1 70b (upstream: 8b only): refused" 2 pk WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=70b ENABLE_CHECKPOINT=1
t_grep "...naming the size that checkpoints" 'workload llama3.1 checkpoints size 8b only \(as upstream\), not 70b' "$TRASH/pk.out"
t_ok "gpt-oss with ENABLE_CHECKPOINT=1: planned" pk WORKLOAD=gpt-oss GPU_TYPE=gb200 ENABLE_CHECKPOINT=1
t_grep "...its space" ' CHECKPOINT\(every 50 steps, to the run folder, needs 1635 GB: 1 save\)' "$TRASH/pk.out"
t_rc "CHECKPOINT_INTERVAL without ENABLE_CHECKPOINT: refused" 2 pk WORKLOAD=llama3.1 SIZE=8b CHECKPOINT_INTERVAL=10
t_grep "...saying what it needs" 'CHECKPOINT_DIR and CHECKPOINT_INTERVAL need ENABLE_CHECKPOINT=true' "$TRASH/pk.out"
t_rc "CHECKPOINT_INTERVAL=0: refused" 2 pk WORKLOAD=llama3.1 SIZE=8b ENABLE_CHECKPOINT=1 CHECKPOINT_INTERVAL=0
t_rc "CHECKPOINT_DIR='/a b': refused" 2 pk WORKLOAD=llama3.1 SIZE=8b ENABLE_CHECKPOINT=1 CHECKPOINT_DIR='/a b'
t_grep "...saying what a path may hold" 'CHECKPOINT_DIR=/a b: a path may hold only' "$TRASH/pk.out"
t_ok "driver: --checkpoint 1 --checkpoint-interval 10 --load-dir /c: the entry point's options" \
	clean SLURM_LOCALID=0 "$PY" "$DRV" --mbridge-src "$SI" --checkpoint 1 --checkpoint-interval 10 --load-dir /c \
	--profile-dir /x --print-plan -- --gpu h100
t_grep "...--save_interval" '"--save_interval=10",' "$TRASH/.out"
# Megatron-Bridge's own default, /nemo_run/checkpoints, is NeMo-Run's job
# directory, which llmb's job does not mount: the run's folder instead
t_grep "...--save_dir in the run's folder, where upstream's land" '"--save_dir=/x/checkpoints",' "$TRASH/.out"
t_grep "...--load_dir" '"--load_dir=/c"' "$TRASH/.out"
t_rc "driver: --checkpoint without --checkpoint-dir or --profile-dir: usage error" 2 \
	clean SLURM_LOCALID=0 "$PY" "$DRV" --mbridge-src "$SI" --checkpoint 1 --checkpoint-interval 10 --print-plan -- --gpu h100
# Megatron-Bridge loads only where checkpoint_exists finds a checkpoint and
# otherwise trains from scratch without a word: the driver refuses first.
mkdir -p "$TRASH/nockpt" "$TRASH/ckpt/iter_0000050"
t_rc "driver: --load-dir holding no checkpoint: exit 4, before the entry point" 4 \
	clean SLURM_LOCALID=0 "$PY" "$DRV" --mbridge-src "$SI" --load-dir "$TRASH/nockpt" -- --gpu h100
t_grep "...naming LOAD_CHECKPOINT_PATH" "^mbridge-launch: error: LOAD_CHECKPOINT_PATH=$TRASH/nockpt: no Megatron-Bridge checkpoint there" "$TRASH/.out"
t_rc "driver: ...nor a missing one" 4 \
	clean SLURM_LOCALID=0 "$PY" "$DRV" --mbridge-src "$SI" --load-dir "$TRASH/nowhere" -- --gpu h100
echo 50 >"$TRASH/ckpt/latest_checkpointed_iteration.txt"
: >"$TRASH/ckpt/iter_0000050/metadata.json"
for d in ckpt ckpt/iter_0000050; do
	t_rc "driver: --load-dir $d (Megatron-Bridge's tracker, or an iteration directory's marker): on to numactl" 3 \
		clean SLURM_LOCALID=0 PATH=/usr/bin:/bin "$PY" "$DRV" --mbridge-src "$SI" --load-dir "$TRASH/$d" -- --gpu h100
	t_grep "...which is missing here" 'numactl is not on PATH' "$TRASH/.out"
done

# the driver: what the plugins append, the nsys prefix as NeMo-Run's launcher writes it
drv() { clean SLURM_LOCALID=1 SLURM_NODEID=0 "$PY" "$DRV" --mbridge-src "$SI" "$@"; }
t_rc "driver: --profile 1 --pytorch-profile 1: usage error" 2 drv --profile 1 --pytorch-profile 1 --profile-dir "$TRASH" -- --gpu h100 --num_gpus 8
t_rc "driver: --profile 2: usage error" 2 drv --profile 2 -- --gpu h100
t_rc "driver: a rank the job does not have: usage error" 2 drv --profile 1 --profile-ranks 8 --profile-dir "$TRASH" --print-plan -- --gpu h100 --num_gpus 8
t_grep "...naming the job's ranks" 'the job has ranks 0 to 7' "$TRASH/.out"
t_ok "driver: the PyTorch profiler, rank 0 by default" drv --pytorch-profile 1 --profile-dir /x --print-plan -- --gpu h100 --num_gpus 8
t_grep "...its overrides as PyTorchProfilerPlugin's" '"profiling.use_pytorch_profiler=true"' "$TRASH/.out"
t_grep "...rank 0" '"profiling.profile_ranks=\[0\]"' "$TRASH/.out"
t_nogrep "...and no nsys" '"nsys"' "$TRASH/.out"
t_ok "driver: nsys with GPU metrics on node 0 (GPU_METRICS_NODES' default)" \
	drv --profile 1 --gpu-metrics 1 --profile-dir /x --print-plan -- --gpu h100 --num_gpus 8
t_grep "...the task's GPU" '"--gpu-metrics-devices=1"' "$TRASH/.out"
t_ok "driver: ...none on a node GPU_METRICS_NODES does not name" \
	clean SLURM_LOCALID=1 SLURM_NODEID=1 "$PY" "$DRV" --mbridge-src "$SI" --profile 1 --gpu-metrics 1 --profile-dir /x --print-plan -- --gpu h100 --num_gpus 8
t_nogrep "...no metrics flag" 'gpu-metrics-devices' "$TRASH/.out"

# ---- --print-plan and the real run of each golden job script ------------------------
# The job script's exports (the recipe's environment) and its llmb_launch
# line, paths made real, llmb_launch replaced by one task of the step.
for js in "$TESTS_DIR"/plans/train.llama3.1.*.sh "$MP"/train.*.sh; do
	id=$(basename "$js" .sh)
	case $id in
	train.llama3.1.*) gpu=${id#train.llama3.1.} ;;
	*) gpu=${id#train.*.} ;;
	esac
	gpu=${gpu%%.*}
	# the stand-in's parser: that of the commit the recipe pins
	opts=options.txt
	case $id in train.gpt-oss.*) opts=options-f07871e.txt ;; esac
	{
		echo "HF_TOKEN=hf_SECRETVALUE; export HF_TOKEN"
		grep '^export [A-Z_]*=' "$js" | grep -v '^export LLMB_'
		# shellcheck disable=SC2016 # for the script's own shell
		echo 'llmb_launch() { "$PY" "$2" "${@:3}"; }'
		grep "^llmb_launch '" "$js"
	} | sed "s|TRASH|$TRASH|g; s|TOP|$TOP|g; s|'--mbridge-src' '[^']*'|'--mbridge-src' '$SI'|;
		s|'/scratch/ckpt'|'$TRASH/scratch/ckpt'|g" >"$TRASH/$id.launch" # the stand-in saves there
	sed "s|'--' |'--print-plan' '--' |" "$TRASH/$id.launch" >"$TRASH/$id.plan.sh"
	if clean PY="$PY" SLURM_LOCALID=3 bash "$TRASH/$id.plan.sh" >"$TRASH/$id.raw" 2>"$TRASH/$id.err"; then
		sed "s|$TRASH/scratch/ckpt|/scratch/ckpt|g; s|$TRASH|TRASH|g; s|$TOP|TOP|g" "$TRASH/$id.raw" >"$TRASH/$id.plan.json"
		t_cmp "$id: --print-plan golden" "$SI/plans/$id.plan.json" "$TRASH/$id.plan.json"
	else
		t_fail "$id: --print-plan"
		sed 's/^/# /' "$TRASH/$id.err"
		continue
	fi
	t_nogrep "$id: HF_TOKEN's value is not in the plan" 'hf_SECRETVALUE' "$TRASH/$id.raw"
	t_grep "$id: ...HF_TOKEN is shown masked" '"HF_TOKEN": "\*\*\*"' "$TRASH/$id.raw"
	t_grep "$id: the entry point reads the Hugging Face cache offline" '"HF_HUB_OFFLINE": "1"' "$TRASH/$id.raw"
	# upstream's numactl binding: SLURM_LOCALID / 2 on GB200 and GB300, / 4 elsewhere
	node=$((3 / 4))
	case $gpu in gb200 | gb300) node=$((3 / 2)) ;; esac
	t_grep "$id: task 3 binds to NUMA node $node" "\"--cpunodebind=$node\"" "$TRASH/$id.raw"

	# The real run: numactl (tests/nemo-driver/bin's stand-in), the stand-in entry point.
	rm -f "$TRASH/numa" "$TRASH/rec"
	rm -rf "$TRASH/mbinst/workloads/llama3.1/experiments/h100_8b_fp8_8/nsys_profile"
	if clean PY="$PY" PATH="$TESTS_DIR/bin:$TESTS_DIR/nemo-driver/bin:/usr/bin:/bin" NUMACTL_RECORD="$TRASH/numa" \
		MBRIDGE_STANDIN_RECORD="$TRASH/rec" MBRIDGE_STANDIN_OPTIONS="$opts" SLURM_LOCALID=3 SLURM_PROCID=0 \
		SLURM_JOB_ID=4242 SLURM_NODEID=0 NSYS_STANDIN_RECORD="$TRASH/nsysrec" \
		bash "$TRASH/$id.launch" >"$TRASH/$id.log" 2>"$TRASH/$id.err"; then
		t_pass "$id: the stand-in entry point accepts the plan's arguments"
	else
		t_fail "$id: the stand-in entry point accepts the plan's arguments"
		sed 's/^/# /' "$TRASH/$id.err"
		continue
	fi
	t_grep "$id: numactl ran with the plan's binding" "^localid=3 --cpunodebind=$node --membind=$node $PY " "$TRASH/numa"
	t_ok "$id: the entry point got exactly the plan's argv, PYTHONPATH first on scripts/performance, HF_HUB_OFFLINE=1" \
		"$PY" -c "$SAME" "$TRASH/rec" "$TRASH/$id.raw" "$SI"
	t_grep "$id: a Megatron-Bridge step line" '^Step Time : [0-9.]+s GPU utilization: [0-9.]+MODEL_TFLOP/s/GPU$' "$TRASH/$id.log"
	t_grep "$id: ...and its iteration line" ' iteration +50/ +50 \| consumed samples: ' "$TRASH/$id.log"
	case $id in *.checkpoint)
		"$LLMB" parse --format=json --result="$TRASH/ck.json" "$TRASH/$id.log" >/dev/null 2>&1
		t_ok "$id: llmb parse reads the two saves (iterations 25 and 50) with their times" "$PY" -c '
import json, sys
c = json.load(open(sys.argv[1]))["checkpoints"]
sys.exit(0 if [(x["kind"], x["iteration"]) for x in c] == [("save", 25), ("save", 50)] and all(x["seconds"] > 0 for x in c) else 1)' "$TRASH/ck.json"
		t_ok "$id: ...saved as Megatron-Bridge lays them out: iter_0000050/, the trackers beside" \
			test -s "$TRASH/scratch/ckpt/iter_0000050/run_config.yaml" -a -s "$TRASH/scratch/ckpt/iter_0000050/train_state.pt" \
			-a -s "$TRASH/scratch/ckpt/latest_train_state.pt" -a "$(cat "$TRASH/scratch/ckpt/latest_checkpointed_iteration.txt")" = 50
		# the load of it (LOAD_CHECKPOINT_PATH: one step), measured on its step
		clean SLURM_PROCID=0 "$PY" "$SI/scripts/performance/run_script.py" --model_recipe_name llama3_8b --gpu h100 \
			--num_gpus 8 -gb 128 --max_steps=1 --load_dir="$TRASH/scratch/ckpt" >"$TRASH/ld.log" 2>&1
		t_grep "$id: ...loaded by the stand-in as Megatron-Bridge logs it" \
			"^  successfully loaded checkpoint from $TRASH/scratch/ckpt \\[ t 0/1, p 0/1 \\] at iteration 50\$" "$TRASH/ld.log"
		t_ok "$id: ...llmb parse --window=1-1 --steps=1: the load of iteration 50, its time, the step measured" sh -c '
			"$1" parse --format=json --window=1-1 --steps=1 --profiled --result="$2" "$3" >/dev/null 2>&1 &&
			"$4" -c "import json, sys
r = json.load(open(sys.argv[1]))
c = r[\"checkpoints\"]
sys.exit(0 if r[\"status\"] == \"profiled\" and [(x[\"kind\"], x[\"iteration\"]) for x in c] == [(\"load\", 50)] and c[0][\"seconds\"] > 0 else 1)" "$2"' \
			- "$LLMB" "$TRASH/ld.json" "$TRASH/ld.log" "$PY"
		;;
	esac
	case $id in *.profile)
		t_grep "$id: nsys wraps the task as NeMo-Run's launcher does" \
			'^-s none -t cuda,nvtx -o [^ ]*/nsys_profile/profile_%p_%q\{SLURM_JOB_ID\}_node%q\{SLURM_NODEID\}_rank%q\{SLURM_PROCID\} --nvtx-domain-include=NCCL --force-overwrite=true --capture-range=cudaProfilerApi --capture-range-end=stop --cuda-graph-trace=node --cuda-event-trace=false -- numactl ' \
			"$TRASH/nsysrec"
		t_ok "$id: ...its report written in the run's nsys_profile/" sh -c 'ls "$1"/profile_*_4242_node0_rank0.nsys-rep' - \
			"$TRASH/mbinst/workloads/llama3.1/experiments/h100_8b_fp8_8/nsys_profile"
		t_grep "$id: ...the entry point got the NsysPlugin's overrides, every rank" \
			'"profiling.use_nsys_profiler=true", "profiling.profile_step_start=45", "profiling.profile_step_end=50", "profiling.profile_ranks=\[0,1,2,3,4,5,6,7\]", "profiling.record_shapes=false"' "$TRASH/rec"
		;;
	esac
done

# ---- every Megatron-Bridge run's arguments pass the pinned parser ---------------------
# All trainings of each recipe (every GPU type, size, dtype and scale,
# proxies too): the entry point's part of each job script's launch line
# (after '--', plus the driver's overrides; PROXY=1 plans the proxies) read by the stand-in's parser,
# in one process per recipe.
while read -r w n opts gpus; do
	rm -rf "$TRASH/gall" "$TRASH/iall"
	make -C "$TOP" -n report LLMB_GEN="$TRASH/gall" LLMB_INSTALL="$TRASH/iall" EXECUTOR=slurm HF_TOKEN=x \
		WORKLOAD="$w" GPU_TYPE="${gpus:-gb300 gb200 b300 b200 h100}" PROXY=1 </dev/null >"$TRASH/all.out" 2>&1
	: >"$TRASH/all.lines"
	for cfg in "$TRASH"/gall/cfg/train."$w".*; do
		"$LLMB" script --top "$TOP" --gen "$TRASH/gall" --install "$TRASH/iall" "$(basename "$cfg")" </dev/null |
			grep "^llmb_launch '" >>"$TRASH/all.lines"
	done
	t_ok "all $n $w trainings' arguments pass the pinned parser" clean MBRIDGE_STANDIN_OPTIONS="$opts" "$PY" - "$TRASH/all.lines" "$SI" "$n" <<'EOF2'
import contextlib, io, shlex, sys
sys.path.insert(0, sys.argv[2] + "/scripts/performance")
import run_script
lines = open(sys.argv[1]).read().splitlines()
bad = []
for line in lines:
    w = shlex.split(line)
    argv = w[w.index("--") + 1:] + ["train.manual_gc=true", "train.manual_gc_interval=100"]
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            _, rest = run_script.parser().parse_known_args(argv)
        ok = all("=" in x and not x.startswith("-") for x in rest)
    except SystemExit:
        ok = False
    if not ok:
        bad.append(" ".join(argv))
print("\n".join(bad))
sys.exit(0 if len(lines) == int(sys.argv[3]) and not bad else 1)
EOF2
done <<'LIST'
llama3.1 108 options.txt
deepseek-v3 72 options.txt
qwen3 29 options.txt
gpt-oss 29 options-f07871e.txt
nemotron-h 29 options.txt
nemotron3 55 options.txt
kimi-k2 8 options.txt gb300 gb200 b300 b200
LIST

# ---- the stand-in refuses what the pinned parser refuses ----------------------------
E=$SI/scripts/performance/run_script.py
ok=(--model_recipe_name llama3_8b --gpu h100 --num_gpus 8 -gb 128 --max_steps=3)
t_ok "the stand-in accepts a minimal command line" clean "$PY" "$E" "${ok[@]}" train.manual_gc=true
t_rc "an option the parser does not have: refused" 2 clean "$PY" "$E" "${ok[@]}" --tensor_parallel 2
t_grep "...as argparse does" 'unrecognized arguments: --tensor_parallel 2' "$TRASH/.out"
t_rc "a compute dtype the parser does not list: refused" 2 clean "$PY" "$E" "${ok[@]}" --compute_dtype fp16
t_rc "a GPU count that is not a number: refused" 2 clean "$PY" "$E" "${ok[@]}" --num_gpus eight
t_rc "a bare word that is no key=value override: refused" 2 clean "$PY" "$E" "${ok[@]}" stray
t_rc "a boolean that is not one: refused" 2 clean "$PY" "$E" "${ok[@]}" --use_megatron_fsdp maybe
clean "$PY" "$E" "${ok[@]}" >"$TRASH/s1.log" 2>&1
clean "$PY" "$E" "${ok[@]/128/256}" >"$TRASH/s2.log" 2>&1
t1=$(sed -n 's/^Step Time : \([0-9.]*\)s.*/\1/p' "$TRASH/s1.log" | sed -n 2p)
t2=$(sed -n 's/^Step Time : \([0-9.]*\)s.*/\1/p' "$TRASH/s2.log" | sed -n 2p)
t_ok "step times follow the configuration: twice the batch, about twice the time ($t1 s, $t2 s)" \
	awk -v a="$t1" -v b="$t2" 'BEGIN { r = b / a; exit !(r > 1.98 && r < 2.02) }'

# ---- parse and MFU of a stand-in log -------------------------------------------------
L=$TRASH/train.llama3.1.h100.8b.fp8.8.log
"$LLMB" parse --format=json --log-format=mbridge --window=35-44 --indexing=one "$L" >"$TRASH/p.json" 2>"$TRASH/p.err"
step=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["time_mean"])' "$TRASH/p.json" 2>/dev/null)
t_ok "llmb parse reads the stand-in's Megatron-Bridge log (mean step ${step:-?} s)" test -n "$step"
flops=$("$LLMB" flops llama3.1 8b h100 | awk '$1 == "total" { print $3 }')
"$LLMB" metrics --seq 8192 --gbs 128 --step-time "${step:-1}" --gpus 8 --model-flops "$flops" --peak-tflops 1979 \
	--format=json >"$TRASH/m.json" 2>&1
t_grep "llmb metrics gives its MFU against the FP8 peak" '"mfu_pct"' "$TRASH/m.json"

# ---- the Hugging Face setup task (workloads/hf-assets.py) -----------------------------
# Against tests/mbridge-standin/site's huggingface_hub (the hub cache layout,
# local_files_only, HF_HUB_OFFLINE, a gated repository needing HF_TOKEN).
HF=$TOP/workloads/hf-assets.py
R=meta-llama/Meta-Llama-3-8B
hf() { clean PYTHONPATH="$SI/site" HFSTANDIN_RECORD="$TRASH/hfrec" "$@" "$PY" "$HF" --repo "$R" --asset config --proof-dir "$TRASH/proof"; }
t_ok "py_compile hf-assets.py" pyc "$HF"
t_rc "no HF_HOME: usage error" 2 hf HF_TOKEN=hf_SECRETVALUE
t_rc "a repository id that is no ORG/NAME: usage error" 2 clean HF_HOME="$TRASH/c" "$PY" "$HF" --repo ../x --asset config --proof-dir "$TRASH/proof"
# (a module that fails to import, first on the path: whatever the machine has)
mkdir -p "$TRASH/nohub" && echo 'raise ImportError("absent")' >"$TRASH/nohub/huggingface_hub.py"
t_rc "no huggingface_hub: status 3" 3 clean PYTHONPATH="$TRASH/nohub" HF_HOME="$TRASH/c" "$PY" "$HF" --repo "$R" --asset config \
	--proof-dir "$TRASH/proof"
t_rc "HF_HUB_OFFLINE=1 and an empty cache: status 4, nothing downloaded" 4 hf HF_HOME="$TRASH/c" HF_TOKEN=hf_SECRETVALUE HF_HUB_OFFLINE=1
t_grep "...saying the file is not in the cache" "HF_HUB_OFFLINE is set and $R config.json is not in the cache" "$TRASH/.out"
t_ok "...and writing no proof" test ! -e "$TRASH/proof/$R/config.json"
t_rc "a gated repository without HF_TOKEN: status 5" 5 hf HF_HOME="$TRASH/c"
t_ok "with HF_TOKEN: downloaded and proved" hf HF_HOME="$TRASH/c" HF_TOKEN=hf_SECRETVALUE
t_ok "...the proof is the cached config" cmp "$TRASH/proof/$R/config.json" \
	"$TRASH/c/hub/models--meta-llama--Meta-Llama-3-8B/snapshots/$(cat "$TRASH/c/hub/models--meta-llama--Meta-Llama-3-8B/refs/main")/config.json"
t_nogrep "...the token is in no output" hf_SECRETVALUE "$TRASH/.out"
rm -rf "$TRASH/proof"
t_ok "HF_HUB_OFFLINE=true with the file cached: proved from the cache" hf HF_HOME="$TRASH/c" HF_HUB_OFFLINE=true
t_grep "...saying so" 'from the cache \(offline\)' "$TRASH/.out"
t_ok "...with one download in all" test "$(wc -l <"$TRASH/hfrec")" = 1

# The tokenizer asset (what upstream's installer fetches for Qwen3 and
# Nemotron 3 beside the config): the repository's tokenizer files by
# snapshot_download, checked, tokenizer_config.json the proof.
Q=Qwen/Qwen3-30B-A3B
QC=$TRASH/qc/hub/models--Qwen--Qwen3-30B-A3B/snapshots/0000000000000000000000000000000000000000
# tok [NAME=VALUE...] ARGS...: the environment, then hf-assets.py's arguments
tok() {
	local e=()
	while [ $# -gt 0 ] && [ "${1#*=}" != "$1" ] && [ "${1#-}" = "$1" ]; do e+=("$1"); shift; done
	clean PYTHONPATH="$SI/site" HFSTANDIN_RECORD="$TRASH/tokrec" "${e[@]}" "$PY" "$HF" "$@" --proof-dir "$TRASH/tproof"
}
t_rc "tokenizer, HF_HUB_OFFLINE=1 and an empty cache: status 4" 4 tok HF_HOME="$TRASH/qc" HF_HUB_OFFLINE=1 --repo "$Q" --asset tokenizer
t_ok "config and tokenizer of $Q: downloaded and proved" tok HF_HOME="$TRASH/qc" --repo "$Q" --asset config --asset tokenizer
t_ok "...the proofs are the cached config and tokenizer_config.json" \
	sh -c "cmp '$TRASH/tproof/$Q/config.json' '$QC/config.json' && cmp '$TRASH/tproof/$Q/tokenizer_config.json' '$QC/tokenizer_config.json'"
t_ok "...the vocabulary and merges are in the hub cache" test -s "$QC/tokenizer.json" -a -s "$QC/vocab.json" -a -s "$QC/merges.txt"
t_ok "...the tokenizer's download takes only tokenizer files" \
	test "$(grep -c . "$TRASH/tokrec")" = 5 -a "$(grep -c ' config.json$' "$TRASH/tokrec")" = 1
rm -rf "$TRASH/tproof"
t_ok "HF_HUB_OFFLINE=1 with the tokenizer cached: proved from the cache" \
	tok HF_HOME="$TRASH/qc" HF_HUB_OFFLINE=1 --repo "$Q" --asset tokenizer
t_ok "...downloading nothing more" test "$(grep -c . "$TRASH/tokrec")" = 5
rm -f "$QC/vocab.json" "$QC/tokenizer.json"
t_rc "offline, a cached tokenizer without its vocabulary: status 4" 4 \
	tok HF_HOME="$TRASH/qc" HF_HUB_OFFLINE=1 --repo "$Q" --asset tokenizer
t_grep "...saying it is not complete" "tokenizer is not complete in the cache" "$TRASH/.out"
t_rc "a repository that ships no tokenizer: status 6" 6 tok HF_HOME="$TRASH/qc" --repo org/model-notok --asset tokenizer
t_grep "...saying what is missing" "no tokenizer_config.json" "$TRASH/.out"
for w in qwen3 nemotron3; do
	t_ok "$w's Hugging Face tasks fetch the tokenizer too, as upstream's installer does" \
		test "$(grep -c '"--asset", "config", "--asset", "tokenizer"' "$TOP/workloads/$w.yaml")" = 2
done

# ---- knobs not wired for Megatron-Bridge are refused, not ignored ----------------------
t_rc "nemotron3 with ENABLE_CHECKPOINT=true (upstream's launch.sh has none): refused" 2 make -C "$TOP" -n report \
	LLMB_GEN="$TRASH/gk" LLMB_INSTALL="$TRASH/ik" EXECUTOR=slurm HF_TOKEN=x WORKLOAD=nemotron3 GPU_TYPE=gb200 ENABLE_CHECKPOINT=true
t_grep "...saying the recipe has no such knob, and which have" \
	"ENABLE_CHECKPOINT=true is not supported by workload nemotron3 .*supported by: .*gpt-oss.*llama3.1" "$TRASH/.out"

# ---- the recipe's FLOPs are Megatron-Bridge's ----------------------------------------
# WORKLOAD GPU SIZE TP: the TP of the GPU type's first row of that size.
while read -r w g s tp; do
	a=$("$LLMB" flops "$w" "$s" "$g" | awk '$1 == "total" { print $3 }')
	b=$("$LLMB" flops "$w" "$s" --tp "$tp" | awk '$1 == "total" { print $3 }')
	t_ok "flops $w $s $g (tp $tp): the recipe's $a equals Megatron-Bridge's $b within 1e-6" \
		awk -v a="$a" -v b="$b" 'BEGIN { d = (a - b) / b; exit !(b > 0 && (d < 0 ? -d : d) <= 1e-6) }'
done <<'LIST'
llama3.1 h100 8b 1
llama3.1 h100 70b 4
llama3.1 h100 405b 8
llama3.1 b200 70b 1
llama3.1 gb200 405b 4
deepseek-v3 h100 671b 2
deepseek-v3 gb300 671b 1
qwen3 h100 30b 1
qwen3 h100 235b 2
qwen3 gb300 235b 1
gpt-oss h100 120b 1
gpt-oss gb300 120b 1
nemotron-h h100 56b 8
nemotron-h gb300 56b 2
nemotron-h b200 56b 4
kimi-k2 gb300 1t 1
kimi-k2 b200 1t 1
nemotron3 gb300 30b 1
nemotron3 h100 30b 1
nemotron3 gb300 120b 1
nemotron3 gb200 120b 2
nemotron3 b200 120b 1
LIST
t_done
