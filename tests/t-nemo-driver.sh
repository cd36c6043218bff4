#!/usr/bin/env bash
# The in-job driver of the NeMo recipes (workloads/nemo-inproc.py), offline:
# its syntax; its usage errors; --print-plan of each NeMo recipe's golden job
# script (the recipe's argv reaches the performance script as upstream's
# launch.sh passes it, knobs added, HF_TOKEN masked) without NeMo; the clear
# refusal when NeMo is not importable; and, against stand-ins for NeMo-Run
# and a performance script (tests/nemo-driver/), the whole path: the
# script's experiment is recorded and never submitted, its plugins are set
# up, and the driver execs NeMo-Run's task runner with the executor's
# environment, nsys prefix, launcher template and the checkout first on
# PYTHONPATH, in the run's directory. Real NeMo is not installable here:
# what the stand-ins assume about NeMo-Run is checked only on a cluster.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
DRV=$TOP/workloads/nemo-inproc.py
FX=$TESTS_DIR/nemo-driver
[ -x "$PY" ] || t_skip_all "no $PY"

t_ok "py_compile nemo-inproc.py" "$PY" -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)" "$DRV" "$TRASH/drv.pyc"
for f in "$FX"/site/nemo_run/__init__.py "$FX"/site/nemo_run/core/*/*.py "$FX"/checkout/scripts/performance/llm/fake_pretrain.py; do
	t_ok "py_compile fixture ${f#"$FX"/}" "$PY" -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)" "$f" "$TRASH/fx.pyc"
done

# A clean environment: no NeMo, no Slurm task variables.
clean() { env -i PATH=/usr/bin:/bin HOME="$TRASH" PYTHONDONTWRITEBYTECODE=1 "$@"; }
base=(--script scripts.performance.llm.fake_pretrain --nemo-src "$FX/checkout" --log-dir "$TRASH/run")

# ---- usage ------------------------------------------------------------------
t_rc "no '--': usage error" 2 clean "$PY" "$DRV" "${base[@]}"
t_grep "...saying the flags follow '--'" "must follow '--'" "$TRASH/.out"
t_rc "no slurm executor in the script's flags: usage error" 2 clean "$PY" "$DRV" "${base[@]}" -- --gpu h100
t_grep "...saying so" "select the 'slurm' executor" "$TRASH/.out"
t_rc "--profile 1 without its steps: usage error" 2 clean "$PY" "$DRV" "${base[@]}" --profile 1 -- slurm
t_rc "profile and NCCL trace together: usage error" 2 clean "$PY" "$DRV" "${base[@]}" --profile 1 --profile-start 1 \
	--profile-stop 2 --nccltrace 1 -- slurm
t_rc "no --script: usage error" 2 clean "$PY" "$DRV" --nemo-src x --log-dir y -- slurm

# ---- without NeMo -------------------------------------------------------------
t_rc "NeMo not importable: refused with status 3" 3 clean "$PY" "$DRV" --script scripts.performance.llm.x \
	--nemo-src "$TRASH/empty" --log-dir "$TRASH/run0" -- --gpu h100 slurm
t_grep "...naming what is missing and --print-plan" 'NeMo and NeMo-Run are not importable by .*use --print-plan' "$TRASH/.out"
t_ok "print-plan needs no NeMo" clean "$PY" "$DRV" --print-plan --script scripts.performance.llm.x \
	--nemo-src "$TRASH/empty" --log-dir "$TRASH/run0" -- --gpu h100 slurm

# ---- --print-plan of each NeMo recipe's golden job script --------------------
# The job script's llmb_launch line, with the driver given --print-plan.
for js in "$TESTS_DIR"/plans/train.{nemotron4,llama4-maverick,llama3-lora,grok1}.*.sh; do
	id=$(basename "$js" .sh)
	w=${id#train.}; w=${w%%.*}
	line=$(grep '^llmb_launch ' "$js" | sed "s|TRASH|/TRASH|g; s|TOP|$TOP|g")
	printf '%s\n' "llmb_launch() { [ \"\$1\" = python3 ] && \"$PY\" \"\$2\" --print-plan \"\${@:3}\"; }" "$line" >"$TRASH/$w.launch"
	if clean HF_TOKEN=hf_SECRETVALUE bash "$TRASH/$w.launch" >"$TRASH/$w.plan.json" 2>"$TRASH/$w.err"; then
		t_cmp "print-plan of $id" "$FX/$w.plan.json" "$TRASH/$w.plan.json"
	else
		t_fail "print-plan of $id"; sed 's/^/# /' "$TRASH/$w.err"
	fi
	t_nogrep "print-plan of $id shows no secret" 'hf_SECRETVALUE' "$TRASH/$w.plan.json"
done
t_grep "llama4: the token reaches the script as -hf, masked" '"-hf",' "$TRASH/llama4-maverick.plan.json"
t_grep "nemotron4: checkpointing is a knob (--checkpoint_save=0)" '"--checkpoint_save=0"' "$TRASH/nemotron4.plan.json"
t_grep "every recipe's script gets the slurm account, partition and log dir" '"--log_dir",' "$TRASH/grok1.plan.json"

# ---- the whole path against the stand-ins ------------------------------------
fake() {
	env -i PATH="$FX/bin:/usr/bin:/bin" HOME="$TRASH" PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$FX/site" NSYS_RECORD="$TRASH/nsys.txt" \
		SLURM_PROCID=0 SLURM_LOCALID=0 SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2 "$@"
}
# frun NAME DESC ARGS...: one driver run that must succeed; its output in
# NAME.out, the task runner's report in NAME.json.
frun() {
	local n=$1 d=$2; shift 2
	t_ok "$d" fake "$@"
	cp "$TRASH/.out" "$TRASH/$n.out"
	sed -n 's/^FDL_RUNNER //p' "$TRASH/$n.out" >"$TRASH/$n.json"
}
flags=(-- --gpu h100 --num_gpus 2 --gpus_per_node 2 -tp 2 -gb 16)

frun r1 "a run: the script's task runs in this task" "$PY" "$DRV" "${base[@]}" "${flags[@]}" slurm
t_ok "...NeMo-Run's task runner ran once" test "$(wc -l <"$TRASH/r1.json")" = 1
t_ok "...nothing was submitted" test ! -e "$TRASH/run/SUBMITTED"
t_grep "...the task is the script's recipe (GBS, TP, nodes x devices)" '"global_batch_size": 16.*"devices": 2.*"num_nodes": 1.*"tp": 2' "$TRASH/r1.json"
t_grep "...with the plugins' environment (CUDA_DEVICE_MAX_CONNECTIONS)" '"CUDA_DEVICE_MAX_CONNECTIONS": "1"' "$TRASH/r1.json"
t_grep "...NEMORUN_HOME is the run's directory" "\"NEMORUN_HOME\": \"$TRASH/run\"" "$TRASH/r1.json"
t_grep "...in the run's directory" "\"cwd\": \"$TRASH/run\"" "$TRASH/r1.json"
t_grep "...the checkout first on PYTHONPATH (GitArchivePackager)" "\"pythonpath_first\": \"$FX/checkout\"" "$TRASH/r1.json"
t_grep "...no profiling callback" '"callbacks": \[\]' "$TRASH/r1.json"
t_grep "...the driver says which upstream srun arguments it does not use" 'srun argument not used.*--mpi=pmix' "$TRASH/r1.out"
t_grep "...and that vboost is not run" 'setup lines not run.*vboost' "$TRASH/r1.out"
t_ok "...no nsys" test ! -e "$TRASH/nsys.txt"

frun r2 "a profiled run" "$PY" "$DRV" "${base[@]}" --profile 1 --profile-start 20 --profile-stop 25 "${flags[@]}" slurm
t_grep "...the script was given -en and the steps" '-en --profiling_start_step 20 --profiling_stop_step 25 ' "$TRASH/r2.out"
t_grep "...its profiling callback is in the task" '"NsysCallback", "end_step": 25, "start_step": 20' "$TRASH/r2.json"
t_grep "...the task runs under nsys, output in the run's directory" "^profile .* -o $TRASH/run/nsys_profile/profile_%p .*fdl_runner" "$TRASH/nsys.txt"

frun r3 "an NCCL-traced run" "$PY" "$DRV" "${base[@]}" --nccltrace 1 "${flags[@]}" slurm
t_grep "...the script was given -nt" ' -nt slurm ' "$TRASH/r3.out"
t_grep "...NCCL_DEBUG=INFO reaches the task" '"NCCL_DEBUG": "INFO"' "$TRASH/r3.json"
t_grep "...under the script's task name" '"name": "fake_pretrain_bf16_gpus2_nccltrace"' "$TRASH/r3.json"

frun r4 "HF_TOKEN from the environment" HF_TOKEN=hf_SECRETVALUE "$PY" "$DRV" "${base[@]}" --hf-token-from-env "${flags[@]}" slurm
t_grep "...reaches the task" '"hf_token_set": true' "$TRASH/r4.json"
t_grep "...the script turned downloads on" '"TRANSFORMERS_OFFLINE": "0"' "$TRASH/r4.json"
t_nogrep "...and is never printed" 'hf_SECRETVALUE' "$TRASH/r4.out"

frun r5 "a launcher template (numactl in upstream)" "$PY" "$DRV" "${base[@]}" "${flags[@]}" --template slurm
t_grep "...the task ran through the template's pre-command" '"PRECMD": "applied"' "$TRASH/r5.json"

frun r6 "--resolve-only" "$PY" "$DRV" "${base[@]}" --resolve-only "${flags[@]}" slurm
t_ok "...runs nothing" test ! -s "$TRASH/r6.json"
t_grep "...prints the command" 'nemo_run.core.runners.fdl_runner' "$TRASH/r6.out"

t_rc "a job step of the wrong shape: refused (status 4)" 4 fake SLURM_NTASKS=3 "$PY" "$DRV" "${base[@]}" "${flags[@]}" slurm
t_grep "...saying what the script configured" 'configured 1 nodes x 2 devices, but this job step has 3 tasks' "$TRASH/.out"
t_rc "a script that adds no task: refused (status 4)" 4 fake "$PY" "$DRV" "${base[@]}" "${flags[@]}" --add_nothing slurm
t_grep "...saying so" 'added no task' "$TRASH/.out"
t_rc "a script that fails: refused (status 4)" 4 fake "$PY" "$DRV" "${base[@]}" -- --no-such-flag slurm
t_ok "nothing was ever submitted" test ! -e "$TRASH/run/SUBMITTED"
t_done
