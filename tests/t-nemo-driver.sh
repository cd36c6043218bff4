#!/usr/bin/env bash
# The in-job driver of the NeMo recipes (workloads/nemo-inproc.py), offline:
# its syntax; its usage errors; --print-plan of each NeMo recipe's golden job
# script (the recipe's argv reaches the performance script as upstream's
# launch.sh passes it, knobs added, HF_TOKEN masked) without NeMo; the clear
# refusal when NeMo is not importable; and, against stand-ins for NeMo-Run
# and a performance script (tests/nemo-driver/), the whole path: the
# script's experiment is recorded and never submitted, its plugins are set
# up, and the driver execs NeMo-Run's task runner with the executor's
# environment, nsys prefix, launcher template, numactl binding and the
# checkout first on PYTHONPATH, in the run's directory. Two NeMo-Runs: the
# container's (site/, too old for the script's SlurmExecutor keywords) and
# the pinned clone (nemo-run-clone/): the script must import the pinned one,
# fdl_runner the container's. The node setup step: the driver writes the
# vboost setup line, node-setup.sh runs it per node against stand-ins for
# sudo and nvidia-smi (host/) and sums it up in the run's note. Real NeMo is
# not installable here: what the stand-ins assume about NeMo-Run, pyxis,
# PMIx, numactl and vboost is checked only on a cluster.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
DRV=$TOP/workloads/nemo-inproc.py
FX=$TESTS_DIR/nemo-driver
[ -x "$PY" ] || t_skip_all "no $PY"

t_ok "py_compile nemo-inproc.py" "$PY" -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)" "$DRV" "$TRASH/drv.pyc"
for f in "$FX"/site/nemo_run/__init__.py "$FX"/site/nemo_run/core/*/*.py "$FX"/checkout/scripts/performance/llm/fake_pretrain.py \
	"$FX"/nemo-run-clone/nemo_run/__init__.py; do
	t_ok "py_compile fixture ${f#"$FX"/}" "$PY" -c "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)" "$f" "$TRASH/fx.pyc"
done

# A clean environment: no NeMo, no Slurm task variables.
clean() { env -i PATH=/usr/bin:/bin HOME="$TRASH" PYTHONDONTWRITEBYTECODE=1 "$@"; }
base=(--script scripts.performance.llm.fake_pretrain --nemo-src "$FX/checkout" --nemo-run-src "$FX/nemo-run-clone"
	--log-dir "$TRASH/run")

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
for w in nemotron4 llama4-maverick llama3-lora grok1; do
	t_grep "$w: the venv's pinned NeMo-Run clone is on sys.path for the script" '^    ".*/src/nemo_run"$' "$TRASH/$w.plan.json"
done

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
t_grep "...the driver says where upstream's srun arguments went" 'srun argument --mpi=pmix: on llmb.s srun line' "$TRASH/r1.out"
t_grep "...and that the node setup step runs vboost" 'setup line vboost \(sudo nvidia-smi boost-slider --vboost 1\): the job.s node setup step' "$TRASH/r1.out"
t_ok "...no nsys" test ! -e "$TRASH/nsys.txt"
t_ok "...no numactl (the script asked for none)" test ! -e "$TRASH/numa.txt"

# ---- which NeMo-Run ------------------------------------------------------------
t_grep "the script imported the pinned NeMo-Run clone" '"SCRIPT_NEMO_RUN": "pinned"' "$TRASH/r1.json"
t_grep "...and fdl_runner ran on the container's" '"nemo_run": "container"' "$TRASH/r1.json"
t_grep "...the driver says which one the script imports" "imports NeMo-Run from $FX/nemo-run-clone/nemo_run \\(the pinned checkout\\)" "$TRASH/r1.out"
t_nogrep "...the clone is not on the task runner's PYTHONPATH" 'nemo-run-clone' "$TRASH/r1.json"
t_rc "without --nemo-run-src: the container's NeMo-Run refuses the script's keywords (status 4)" 4 \
	fake "$PY" "$DRV" --script scripts.performance.llm.fake_pretrain --nemo-src "$FX/checkout" --log-dir "$TRASH/run" \
	"${flags[@]}" slurm
t_grep "...a TypeError on segment, with the hint" "raised TypeError: .*'segment'.*--nemo-run-src gives the pinned clone" "$TRASH/.out"
t_rc "a --nemo-run-src without nemo_run: refused (status 3)" 3 fake "$PY" "$DRV" --script scripts.performance.llm.fake_pretrain \
	--nemo-src "$FX/checkout" --nemo-run-src "$TRASH/empty" --log-dir "$TRASH/run" "${flags[@]}" slurm
t_grep "...naming the clone and where nemo_run came from" "NeMo-Run checkout $TRASH/empty was not imported \\(nemo_run came from $FX/site/nemo_run/" "$TRASH/.out"

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

# ---- NUMA binding (NeMo 00b778e: numactl in the srun arguments) ---------------
# 8 GPUs per node: factor 4, so local ranks 0-3 bind to node 0, 4-7 to node 1.
numa=(-- --gpu h100 --num_gpus 16 --gpus_per_node 8 -tp 2 -gb 16 --numa slurm)
for lr in 0 5 7; do
	frun "n$lr" "numactl binding, local rank $lr" SLURM_PROCID=$lr SLURM_LOCALID=$lr SLURM_NTASKS=16 SLURM_NTASKS_PER_NODE=8 \
		NUMACTL_RECORD="$TRASH/numa.txt" "$PY" "$DRV" "${base[@]}" "${numa[@]}"
	t_grep "...the task ran" '"name": "fake_pretrain_bf16_gpus16"' "$TRASH/n$lr.json"
done
sed 's| /[^ ]*python3 -m nemo_run.core.runners.fdl_runner .*| ... fdl_runner|' "$TRASH/numa.txt" >"$TRASH/numa.short"
printf '%s\n' "localid=0 --cpunodebind=0 --membind=0 ... fdl_runner" "localid=5 --cpunodebind=1 --membind=1 ... fdl_runner" \
	"localid=7 --cpunodebind=1 --membind=1 ... fdl_runner" >"$TRASH/numa.want"
t_ok "numactl ran once per task, its node numbers evaluated per local rank (SLURM_LOCALID/4)" \
	diff -u "$TRASH/numa.want" "$TRASH/numa.short"
t_grep "...the driver says the binding is applied" 'numactl --cpunodebind=\$\(\(SLURM_LOCALID/4\)\) --membind=\$\(\(SLURM_LOCALID/4\)\): applied' "$TRASH/n0.out"

frun r6 "--resolve-only" "$PY" "$DRV" "${base[@]}" --resolve-only "${flags[@]}" slurm
t_ok "...runs nothing" test ! -s "$TRASH/r6.json"
t_grep "...prints the command" 'nemo_run.core.runners.fdl_runner' "$TRASH/r6.out"

t_rc "a job step of the wrong shape: refused (status 4)" 4 fake SLURM_NTASKS=3 "$PY" "$DRV" "${base[@]}" "${flags[@]}" slurm
t_grep "...saying what the script configured" 'configured 1 nodes x 2 devices, but this job step has 3 tasks' "$TRASH/.out"
t_rc "a script that adds no task: refused (status 4)" 4 fake "$PY" "$DRV" "${base[@]}" "${flags[@]}" --add_nothing slurm
t_grep "...saying so" 'added no task' "$TRASH/.out"
t_rc "a script that fails: refused (status 4)" 4 fake "$PY" "$DRV" "${base[@]}" -- --no-such-flag slurm
t_ok "nothing was ever submitted" test ! -e "$TRASH/run/SUBMITTED"

# ---- the node setup step (vboost) ------------------------------------------------
setup=$TRASH/state/node-setup.77
mkdir -p "$TRASH/state"
t_ok "node setup, other ranks: nothing to do" fake SLURM_PROCID=1 LLMB_NODE_SETUP="$setup" "$PY" "$DRV" "${base[@]}" "${flags[@]}" slurm
t_ok "...they wrote nothing" test ! -e "$setup"
frun s0 "node setup, rank 0: the script's setup lines are written" LLMB_NODE_SETUP="$setup" "$PY" "$DRV" "${base[@]}" "${flags[@]}" slurm
t_ok "...and nothing trained" test ! -s "$TRASH/s0.json"
printf 'vboost\tsudo nvidia-smi boost-slider --vboost 1\n' >"$TRASH/setup.want"
t_ok "...the host command of PerfEnvPlugin's vboost line, once" diff -u "$TRASH/setup.want" "$setup"
NS=$TOP/workloads/node-setup.sh
t_ok "node-setup.sh: shellcheck" shellcheck -s bash "$NS"
host() { env -i PATH="$FX/host:/usr/bin:/bin" NVSMI_RECORD="$TRASH/nvsmi.txt" "$@"; }
t_ok "node n1: sudo and nvidia-smi succeed" host SLURMD_NODENAME=n1 bash "$NS" --node "$setup"
t_grep "...nvidia-smi was asked for vboost 1 on n1" '^n1 boost-slider --vboost 1$' "$TRASH/nvsmi.txt"
t_ok "node n2: sudo refuses, the step still succeeds" host SLURMD_NODENAME=n2 SUDO_STANDIN=refuse bash "$NS" --node "$setup"
t_grep "...and says so in the job's log" 'node setup on n2: vboost .*exit 1: sudo: a password is required' "$TRASH/.out"
t_nogrep "...nvidia-smi never ran on n2" '^n2 ' "$TRASH/nvsmi.txt"
t_ok "the note of 3 nodes" host bash "$NS" --note "$setup" "$TRASH/state/note.77" 3
echo 'vboost applied on 1 of 3 nodes, refused on 1 (n2: exit 1: sudo: a password is required), no result from 1' >"$TRASH/note.want"
t_ok "...applied, refused (where and why) and missing, in one line" diff -u "$TRASH/note.want" "$TRASH/state/note.77"
rm -rf "$TRASH/state/note.77" "$setup.d"
t_ok "the batch step without Slurm: this machine is the node" host bash "$NS" "$setup" "$TRASH/state/note.77"
t_grep "...vboost applied" '^vboost applied on 1 of 1 nodes$' "$TRASH/state/note.77"
rm -rf "$TRASH/state/note.77" "$setup.d"
t_ok "the batch step, sudo refusing: still exit 0" host SUDO_STANDIN=refuse bash "$NS" "$setup" "$TRASH/state/note.77"
t_grep "...the note says refused" '^vboost applied on 0 of 1 nodes, refused on 1 \(.*: exit 1: sudo: a password is required\)$' "$TRASH/state/note.77"
: >"$TRASH/empty-setup"
t_ok "no setup lines: nothing runs" host bash "$NS" "$TRASH/empty-setup" "$TRASH/state/note.78"
t_ok "...and no note" test ! -e "$TRASH/state/note.78"
t_done
