#!/usr/bin/env bash
# t-mbridge-slurm: the Megatron-Bridge launch end to end on an emulated
# cluster (2 nodes of 8 fake GPUs): make report of llama3.1 8b at its
# smallest published scale, 8 GPUs, on H100 (FP8, one node of 8) and GB200
# (NVFP4, two nodes of 4): image, venv (the Megatron-Bridge clone holds the
# stand-in entry point of tests/mbridge-standin), the Hugging Face setup
# tasks (the stand-in huggingface_hub of tests/mbridge-standin/site), the
# training job llmb
# submits, parse (window 35-44) and the report with MFU against the run's
# dtype peak. The stand-ins are those of t-seeds-scale (tests/seeds-scale/:
# pyxis, git, python3 -m venv, df) and numactl (tests/nemo-driver/bin):
# every task runs workloads/mbridge-launch.py, which binds it with numactl
# and execs the stand-in entry point with the recipe's arguments. Checks:
# one task per GPU, each with upstream's NUMA binding; every task got the
# same argv; Slurm's record of the job (nodes, tasks, GPUs per node, time
# limit); the report's MFU equal to llmb metrics over the parsed step time
# and `llmb flops`; and a second make submits nothing. The launch as
# Megatron-Bridge's executor builds it: --mem=0, --container-env (the
# stand-in image's ENV, SEEDS_IMAGE_ENV, defines HF_HUB_OFFLINE=0 and
# loses to the recipe's 1), and --segment on GB200, which Debian's Slurm
# 22.05 does not know (it came with 23.11 and topology/block): the job is
# submitted without it and the run's note says so. Then upstream's known
# issue 2: a run whose entry point exits 3 after its last step is done,
# with a note; one that stops at step 20 of 50 is FAILED. A profiled run,
# a checkpoint run saving twice, the load of its last save (one step, its
# load time beside it; a path without a checkpoint fails, naming it), an
# override. Last, a scale
# the recipe does not list (a checkout whose row lists 8 GPUs only) run on
# both nodes with DP and GA derived, labelled unlisted, not compared.
# Start it under the machine-wide lock (cluster ports):
#   flock /tmp/llmb-slurm.lock env LLMB=$PWD/build/llmb tests/run.sh mbridge-slurm
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
command -v mksquashfs >/dev/null || t_skip_all "mksquashfs (squashfs-tools) is not installed"
unset LLMB_TEST_SLURM_STATE SBATCH_ACCOUNT SBATCH_PARTITION SBATCH_GPUS_PER_NODE ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC
unset MAX_STEPS ENABLE_PROFILE ENABLE_CHECKPOINT LOAD_CHECKPOINT_PATH ENABLE_NCCLTRACE LLMB_IMAGE_DIR
unset ENABLE_PYTORCH_PROFILE ENABLE_GPU_METRICS PROFILE_RANKS PROFILE_START_STEP PROFILE_STOP_STEP ARCHIVE_PROFILES
export SLURM_CI_NODES=2 SLURM_CI_GPUS_PER_NODE=8 SLURM_CI_ACCOUNTING=0 SLURM_CI_CGROUP=0 SLURM_CI_CPU_PARTITION=cpu
t_ok "a 2-node cluster with 8 GPUs per node is up" slurm_test_up || { t_done; exit 1; }

SS=$TESTS_DIR/seeds-scale
I=$TRASH/inst
mkdir -p "$TRASH/rec"
# tests/bin's nsys (writes its report) before nemo-driver's (records only)
export PATH=$SS/bin:$TESTS_DIR/bin:$TESTS_DIR/nemo-driver/bin:$PATH
export SEEDS_RECORD=$TRASH/rec SEEDS_PAYLOAD=$SS/payload.sh SEEDS_TABLE=$SS/seeds.tsv SEEDS_PARTITION=debug
export NUMACTL_RECORD=$TRASH/numa MBRIDGE_STANDIN_RECORD=$TRASH/standin HFSTANDIN_RECORD=$TRASH/hf
export HF_TOKEN=hf_MBSECRET_77aa LLMB_POLL_SECONDS=1 LLMB_CPU_PARTITION=cpu
export SEEDS_IMAGE_ENV="HF_HUB_OFFLINE=0 NCCL_NVLS_ENABLE=1"
m() { make -C "$TOP" -j2 LLMB_GEN="$TRASH/g.$1" LLMB_INSTALL="$I" EXECUTOR=slurm report WORKLOAD=llama3.1 SIZE=8b SCALES=8 "${@:2}"; }

m h GPU_TYPE=h100 DTYPE=fp8 >"$TRASH/h.out" 2>&1
t_ok "make report WORKLOAD=llama3.1 GPU_TYPE=h100 SIZE=8b DTYPE=fp8 SCALES=8" test $? = 0 || tail -n 30 "$TRASH/h.out" | sed 's/^/# /'
m g GPU_TYPE=gb200 DTYPE=nvfp4 >"$TRASH/g.out" 2>&1
t_ok "make report WORKLOAD=llama3.1 GPU_TYPE=gb200 SIZE=8b DTYPE=nvfp4 SCALES=8" test $? = 0 || tail -n 30 "$TRASH/g.out" | sed 's/^/# /'

# GPU DTYPE NODES GPUS_PER_NODE NUMA_DIVISOR PEAK (workloads/gpus.yaml)
while read -r gpu dt nodes gpn div peak; do
	st=train.llama3.1.$gpu.8b.$dt.8
	job=$(t_job_field "$I" "$st" job)
	t_ok "$st: one job ($job)" test -n "$job"
	sj=$(scontrol show job "$job" 2>&1)
	bad=
	for want in "JobState=COMPLETED" "NumNodes=$nodes " "NumTasks=8 " "TresPerNode=gres:gpu:$gpn" "TimeLimit=00:30:00" "Partition=debug"; do
		[[ $sj == *"$want"* ]] || bad="$bad $want"
	done
	t_ok "$st: Slurm ran it with the recipe's shape${bad:+ (not:$bad)}" test -z "$bad"
	step=$(find "$TRASH/rec" -name "tasks.$job.*" | sort -t. -k3 -n | tail -n 1)
	t_ok "$st: one task per GPU, $gpn on each of $nodes nodes" \
		test "$(awk '{n++; node[$2]++} END {k = 0; for (x in node) { k++; if (node[x] != g) bad++ }; print n, k, bad + 0}' g="$gpn" "$step")" = "8 $nodes 0"
	# numactl: every task bound to NUMA node SLURM_LOCALID / divisor (utils/executors.py)
	# shellcheck disable=SC2016 # an awk program
	t_ok "$st: each task bound to NUMA node localid/$div" awk -v d="$div" -v g="--gpu $gpu " '
		$0 ~ /run_script.py/ && index($0, g) {
			split($1, a, "="); want = int(a[2] / d)
			if ($2 != "--cpunodebind=" want || $3 != "--membind=" want) bad++
			n++ }
		END { exit !(n == 8 && bad == 0) }' "$NUMACTL_RECORD"
	rep=$(ls "$I"/workloads/llama3.1/reports/"${gpu}"_8b_"${dt}".json 2>/dev/null)
	t_ok "$st: the report was written" test -n "$rep"
	# the report's MFU against llmb metrics over the parsed mean step time and llmb flops
	res=$(ls "$I"/workloads/llama3.1/experiments/"${gpu}"_8b_"${dt}"_8/result.json 2>/dev/null)
	stime=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step_time"]["mean"])' "$res" 2>/dev/null)
	flops=$("$LLMB" flops llama3.1 8b "$gpu" --top "$TOP" | awk '$1 == "total" { print $3 }')
	want=$("$LLMB" metrics --seq 8192 --gbs 128 --step-time "${stime:-1}" --gpus 8 --model-flops "$flops" \
		--peak-tflops "$peak" --format=json | /usr/bin/python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["mfu_pct"])')
	t_grep "$st: the report gives MFU $want% against the $dt peak ($peak TFLOPS; step ${stime:-?} s)" "$want" "$rep.txt"
done <<'LIST'
h100 fp8 1 8 4 1979
gb200 nvfp4 2 4 2 9800
LIST
# The Hugging Face setup tasks: each config downloaded once into the cache
# the trainings read, each proved.
for r in meta-llama/Meta-Llama-3-8B meta-llama/Meta-Llama-3-70B meta-llama/Meta-Llama-3.1-405B; do
	t_ok "$r config.json: proved" test -s "$I/workloads/llama3.1/hf-assets/$r/config.json"
	t_ok "...in the hub cache under HF_HOME" test -s "$I/.cache/huggingface/hub/models--${r/\//--}/refs/main"
done
t_ok "three downloads, one per repository, for both trainings" test "$(sort -u "$HFSTANDIN_RECORD" | wc -l)" = 3 -a "$(wc -l <"$HFSTANDIN_RECORD")" = 3

# The stand-in's record: 8 tasks per training, one argv per training.
t_ok "every task of a training got the same argv, 8 tasks each" /usr/bin/python3 -c '
import json, sys
by = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    by.setdefault(r["argv"][r["argv"].index("--gpu") + 1], []).append(tuple(r["argv"]))
sys.exit(0 if sorted(by) == ["gb200", "h100"] and all(len(v) == 8 and len(set(v)) == 1 for v in by.values()) else 1)' \
	"$MBRIDGE_STANDIN_RECORD"
t_nogrep "no HF_TOKEN value in the stand-in's record" 'hf_MBSECRET' "$MBRIDGE_STANDIN_RECORD"

# The launch: --mem=0 on both; --container-env with upstream's names the
# run sets, so HF_HUB_OFFLINE is the recipe's 1 in every task, not the
# image's 0.
for st in train.llama3.1.h100.8b.fp8.8 train.llama3.1.gb200.8b.nvfp4.8; do
	job=$(t_job_field "$I" "$st" job)
	js=$(find "$I/state/jobs/$st" -name '*.sh' | head -n 1)
	t_grep "$st: the job script asks for --mem=0" '^#SBATCH --mem=0$' "$js"
	t_ok "$st: Slurm gave the job each node's whole memory (MinMemoryNode=0)" sh -c "scontrol show job $job | grep -q 'MinMemoryNode=0 '"
	rec=$(find "$TRASH/rec" -name "srun.$job.*" | sort -t. -k3 -n | tail -n 1)
	gdr=; case $st in *gb200*) gdr=NCCL_NET_GDR_C2C,NCCL_NET_GDR_LEVEL, ;; esac
	t_grep "$st: srun --container-env with the executor's names" \
		"^container_env=HF_HUB_OFFLINE,${gdr}NCCL_NVLS_ENABLE,(NVTE_NORM_BWD_USE_CUDNN,NVTE_NORM_FWD_USE_CUDNN,)?TOKENIZERS_PARALLELISM,TORCH_NCCL_AVOID_RECORD_STREAMS,TORCH_NCCL_HIGH_PRIORITY,TRANSFORMERS_OFFLINE$" "$rec"
done
t_ok "every task saw the recipe's HF_HUB_OFFLINE=1 over the image's 0" /usr/bin/python3 -c '
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if len(recs) == 16 and all(r["hf_hub_offline"] == "1" for r in recs) else 1)' "$MBRIDGE_STANDIN_RECORD"
# --segment: 2 nodes of 4 GPUs, segment 2 by upstream's rule.
st=train.llama3.1.gb200.8b.nvfp4.8
js=$(find "$I/state/jobs/$st" -name '*.sh' | head -n 1)
if sbatch --help 2>/dev/null | grep -q -- '--segment'; then
	t_grep "$st: the job script asks for --segment=2" '^#SBATCH --segment=2$' "$js"
	t_grep "...and Slurm holds it" 'Segment=2' <(scontrol show job "$(t_job_field "$I" "$st" job)")
else
	# Slurm 22.05's sbatch refuses an option it does not know, even in
	# the script: llmb leaves it out, says so, and notes it in the run.
	t_nogrep "$st: this sbatch has no --segment (Slurm $(sinfo -V 2>/dev/null | cut -d' ' -f2)): the job script leaves it out" \
		'^#SBATCH --segment' "$js"
	t_grep "...llmb run says so at submission" 'train llama3.1 gb200 8b nvfp4 x8: note: submitted without --segment=2: this cluster.s sbatch has no --segment' "$TRASH/g.out"
	t_grep "...and the run's note records it" 'submitted without --segment=2' \
		"$I/workloads/llama3.1/experiments/gb200_8b_nvfp4_8/train.done"
	t_nogrep "...not on H100 (8 GPUs a node: no segment)" 'segment' "$TRASH/h.out"
fi

# Known issue 2: the entry point exits 3 after the last step (an error in
# cleanup): the run is done, its note says how it ended, Slurm says FAILED.
MBRIDGE_STANDIN_EXIT=3 m c GPU_TYPE=h100 DTYPE=fp8 SCALES=16 >"$TRASH/c.out" 2>&1
t_ok "exit 3 after the last step: make report succeeds" test $? = 0 || tail -n 20 "$TRASH/c.out" | sed 's/^/# /'
job=$(t_job_field "$I" train.llama3.1.h100.8b.fp8.16 job)
t_ok "...Slurm says the job FAILED" sh -c "scontrol show job $job | grep -q 'JobState=FAILED'"
t_grep "...the run is done with a note of how it ended" 'completed every step, then ended FAILED \(exit code [1-9]' \
	"$I/workloads/llama3.1/experiments/h100_8b_fp8_16/train.done"
t_grep "...llmb run says so" 'train llama3.1 h100 8b fp8 x16: done \(job [0-9]+, completed every step, then ended FAILED' "$TRASH/c.out"
t_ok "...and parsed: its window is complete" test -s "$I/workloads/llama3.1/experiments/h100_8b_fp8_16/result.json"
t_grep "...and the report shows the note" '"note": ?"completed every step, then ended FAILED \(exit code [1-9]' \
	"$I/workloads/llama3.1/reports/h100_8b_fp8.json"
# ...but a run that stops at step 20, before its window (35-44), failed.
MBRIDGE_STANDIN_EXIT=3 MBRIDGE_STANDIN_STOP=20 m s GPU_TYPE=gb200 DTYPE=fp8 >"$TRASH/s.out" 2>&1
t_ok "exit 3 at step 20 of 50: make report fails" test $? != 0
t_ok "...the stage is failed" test "$(t_job_field "$I" train.llama3.1.gb200.8b.fp8.8 state)" = failed
t_ok "...no train.done" test ! -e "$I/workloads/llama3.1/experiments/gb200_8b_fp8_8/train.done"

# Nothing submitted twice: a second make finds every stage done.
before=$(squeue -h -t all -o %i | wc -l)
m h GPU_TYPE=h100 DTYPE=fp8 >"$TRASH/h2.out" 2>&1
t_ok "a second make report succeeds" test $? = 0
t_ok "...and submits nothing" test "$(squeue -h -t all -o %i | wc -l)" = "$before"

# A profiled run (ENABLE_PROFILE=1): the training again, each of its 8
# tasks under nsys (the stand-in writes the report nsys names); the result
# and the report list the reports; make archive leaves them out unless
# ARCHIVE_PROFILES=1.
X=$I/workloads/llama3.1/experiments/h100_8b_fp8_8
m h GPU_TYPE=h100 DTYPE=fp8 ENABLE_PROFILE=1 >"$TRASH/p.out" 2>&1
t_ok "make report ... ENABLE_PROFILE=1" test $? = 0 || tail -n 30 "$TRASH/p.out" | sed 's/^/# /'
pjob=$(t_job_field "$I" train.llama3.1.h100.8b.fp8.8 job)
t_ok "...a new job ($pjob)" test -n "$pjob" -a "$(squeue -h -t all -o %i | wc -l)" = "$((before + 1))"
t_ok "...one nsys report per task, named as NeMo-Run's Slurm launcher names them" \
	test "$(find "$X/nsys_profile" -name "profile_*_${pjob}_node0_rank[0-7].nsys-rep" | wc -l)" = 8
t_ok "...result.json: profiled, its 8 reports listed" /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
p = [x["path"] for x in r.get("profiles", [])]
sys.exit(0 if r["status"] == "profiled" and len(p) == 8 and all(x.startswith("nsys_profile/profile_") and x.endswith(".nsys-rep") for x in p) else 1)' "$X/result.json"
rep=$I/workloads/llama3.1/reports/h100_8b_fp8.json
t_grep "...the report labels the run profiled" '8 \(profiled\)' "$rep.txt"
t_grep "...and lists its reports" "^  h100_8b_fp8_8/nsys_profile/profile_[0-9]+_${pjob}_node0_rank0.nsys-rep  [0-9]+ bytes\$" "$rep.txt"
t_grep "...in Markdown too" "^- h100_8b_fp8_8/nsys_profile/profile_[0-9]+_${pjob}_node0_rank7.nsys-rep \([0-9]+ bytes\)\$" "$rep.md"
t_grep "...and in HTML" "h100_8b_fp8_8/nsys_profile/profile_[0-9]+_${pjob}_node0_rank3.nsys-rep  [0-9]+ bytes" "$rep.html"
t_ok "make archive" make -C "$TOP" LLMB_INSTALL="$I" ARCHIVE="$TRASH/a.tar.gz" ARCHIVE_FORMAT=gzip archive
tar -tzf "$TRASH/a.tar.gz" >"$TRASH/a.list"
t_grep "...holds the profiled run's result" '/workloads/llama3.1/experiments/h100_8b_fp8_8/result.json$' "$TRASH/a.list"
t_nogrep "...but not its nsys reports" 'nsys' "$TRASH/a.list"
t_ok "make archive ARCHIVE_PROFILES=1" make -C "$TOP" LLMB_INSTALL="$I" ARCHIVE="$TRASH/b.tar.gz" ARCHIVE_FORMAT=gzip ARCHIVE_PROFILES=1 archive
t_ok "...holds the 8 reports" test "$(tar -tzf "$TRASH/b.tar.gz" | grep -c '/h100_8b_fp8_8/nsys_profile/profile_.*\.nsys-rep$')" = 8
t_ok "...which llmb verify-archive checks" "$LLMB" verify-archive "$TRASH/b.tar.gz"

# A checkpoint run (ENABLE_CHECKPOINT=1 CHECKPOINT_INTERVAL=25): the
# stand-in logs Megatron's save lines at iterations 25 and 50; the result
# and the report give each save's time beside the step time.
m h GPU_TYPE=h100 DTYPE=fp8 ENABLE_CHECKPOINT=1 CHECKPOINT_INTERVAL=25 >"$TRASH/c.out" 2>&1
t_ok "make report ... ENABLE_CHECKPOINT=1 CHECKPOINT_INTERVAL=25" test $? = 0 || tail -n 30 "$TRASH/c.out" | sed 's/^/# /'
t_ok "...result.json: two saves, at iterations 25 and 50, each with its time" /usr/bin/python3 -c '
import json, sys
c = json.load(open(sys.argv[1])).get("checkpoints", [])
sys.exit(0 if [(x["kind"], x["iteration"]) for x in c] == [("save", 25), ("save", 50)] and all(x["seconds"] > 0 for x in c) else 1)' "$X/result.json"
t_grep "...the report gives the saves beside the step time" \
	"^  h100_8b_fp8_8  save at iteration 25  [0-9.]+ s \\(step time [0-9.]+ s\\)\$" "$rep.txt"
t_grep "...the HTML report too" 'h100_8b_fp8_8  save at iteration 50  [0-9.]+ s' "$rep.html"

# An override (MBS=2) re-runs its own run only: one new job, the recipe's
# run as it was; the entry point gets the parser's -mb 2; the report has
# the override's column, not compared.
E8=$I/workloads/llama3.1/experiments/h100_8b_fp8_8
base_job=$(t_job_field "$I" train.llama3.1.h100.8b.fp8.8 job)
base_done=$(cat "$E8/train.done")
before=$(squeue -h -t all -o %i | wc -l)
m h GPU_TYPE=h100 DTYPE=fp8 MBS=2 >"$TRASH/o.out" 2>&1
t_ok "MBS=2: make report succeeds" test $? = 0 || tail -n 20 "$TRASH/o.out" | sed 's/^/# /'
t_ok "...one job submitted" test "$(squeue -h -t all -o %i | wc -l)" = "$((before + 1))"
t_ok "...the override's run, apart" test -s "$E8/override-mbs2/result.json"
t_ok "...the recipe's run untouched" test "$(cat "$E8/train.done")" = "$base_done"
t_ok "...its job the same" test "$(t_job_field "$I" train.llama3.1.h100.8b.fp8.8 job)" = "$base_job"
t_grep "...the entry point got -mb 2 after the row's arguments" '"--compute_dtype", "fp8_cs", "-mb", "2"' "$MBRIDGE_STANDIN_RECORD"
t_grep "...the report's override column, not compared" 'override: not compared' "$I/workloads/llama3.1/reports/h100_8b_fp8.json.txt"
m h GPU_TYPE=h100 DTYPE=fp8 MBS=2 >"$TRASH/o2.out" 2>&1
t_ok "...a second make MBS=2 submits nothing" test "$(squeue -h -t all -o %i | wc -l)" = "$((before + 1))"

# The checkpoint run saved where upstream's land, the run's checkpoints/,
# as Megatron-Bridge lays them out; LOAD_CHECKPOINT_PATH at its last
# iteration runs one step after the load, measured on that step, its load
# time beside the step time, not compared. A path that holds no checkpoint
# (Megatron-Bridge would train from scratch without a word) fails the run
# before training, naming LOAD_CHECKPOINT_PATH.
C=$X/checkpoints
t_ok "the checkpoint run saved iter_0000025 and iter_0000050 under the run's checkpoints/, with the trackers" \
	test -s "$X/checkpoints/iter_0000025/run_config.yaml" -a -s "$X/checkpoints/iter_0000050/train_state.pt" \
	-a "$(cat "$X/checkpoints/latest_checkpointed_iteration.txt" 2>/dev/null)" = 50
before=$(squeue -h -t all -o %i | wc -l)
m h GPU_TYPE=h100 DTYPE=fp8 LOAD_CHECKPOINT_PATH="$C/iter_0000050" >"$TRASH/l.out" 2>&1
t_ok "make report ... LOAD_CHECKPOINT_PATH=<its iter_0000050>" test $? = 0 || tail -n 30 "$TRASH/l.out" | sed 's/^/# /'
t_ok "...one job" test "$(squeue -h -t all -o %i | wc -l)" = "$((before + 1))"
t_grep "...the entry point got --max_steps=1 and --load_dir" \
	"\"--max_steps=1\", .*\"--load_dir=$C/iter_0000050\"" "$MBRIDGE_STANDIN_RECORD"
t_ok "...result.json: the load of iteration 50 with its time, the one step measured, not compared" /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
c = r.get("checkpoints", [])
sys.exit(0 if r["status"] == "profiled" and [(x["kind"], x["iteration"]) for x in c] == [("load", 50)]
         and c[0]["seconds"] > 0 and r["step_time"]["n"] == 1 and r["step_time"]["mean"] > 0 else 1)' "$X/result.json"
t_grep "...the report gives the load beside the step time" \
	"^  h100_8b_fp8_8  load at iteration 50  [0-9.]+ s \\(step time [0-9.]+ s\\)\$" "$rep.txt"
for bad in "$TRASH/no-such-checkpoint" "$TRASH/rec"; do
	before=$(squeue -h -t all -o %i | wc -l)
	m h GPU_TYPE=h100 DTYPE=fp8 LOAD_CHECKPOINT_PATH="$bad" >"$TRASH/lb.out" 2>&1
	t_ok "LOAD_CHECKPOINT_PATH=${bad#"$TRASH"/} (no checkpoint there): make report fails" test $? != 0
	t_ok "...after one job" test "$(squeue -h -t all -o %i | wc -l)" = "$((before + 1))"
	t_ok "...which failed" test "$(t_job_field "$I" train.llama3.1.h100.8b.fp8.8 state)" = failed
	t_ok "...before any step: the stand-in never started" sh -c "! grep -q -- '--load_dir=$bad\"' '$MBRIDGE_STANDIN_RECORD'"
	find "$X" -maxdepth 1 -type f -exec cat {} + >"$TRASH/lb.logs" 2>/dev/null
	t_grep "...the error names LOAD_CHECKPOINT_PATH" "LOAD_CHECKPOINT_PATH=$bad: no Megatron-Bridge checkpoint there" "$TRASH/lb.out"
done

# An unlisted scale, submitted: every scale the real recipe lists on H100
# fits this cluster, so a checkout of its own lists h100 8b fp8 at 8 GPUs
# only, with a fixed GBS of 128 (as upstream's rows of fixed GBS): 16 GPUs
# are then above its largest scale, planned with a warning on that row,
# DP 16 and GA 8 derived (128 / (MBS 1 x DP 16)), and run on both nodes.
U=$TRASH/utop UI=$TRASH/uinst
t_checkout "$U"
for f in "$TOP"/workloads/*; do
	case $f in *.yaml) ;; *) ln -s "$f" "$U/workloads/" ;; esac
done
sed '/^  - gpu: h100$/{n;/^    size: 8b$/{n;/^    dtype: \[fp8\]$/{n;s/^    scales: .*/    scales: [8]/;n;s/gbs: "scale \* 16", dp: "scale"/gbs: 128, dp: 8/}}}' \
	"$TOP/workloads/llama3.1.yaml" >"$U/workloads/llama3.1.yaml"
t_ok "the checkout's llama3.1 lists h100 8b fp8 at 8 GPUs only, GBS 128" \
	test "$(diff "$TOP/workloads/llama3.1.yaml" "$U/workloads/llama3.1.yaml" | grep -c '^>.*\(scales: \[8\]$\|gbs: 128, dp: 8,\)')" = 2
um() { make -C "$U" B="$TOP/build" -j2 LLMB_GEN="$TRASH/g.u" LLMB_INSTALL="$UI" EXECUTOR=slurm report WORKLOAD=llama3.1 SIZE=8b GPU_TYPE=h100 DTYPE=fp8 SCALES=16 "$@"; }
um -n >"$TRASH/u-plan.out" 2>&1
t_grep "SCALES=16: planned with the warning that 16 is not listed" \
	'^llmb: warning: SCALES: 16 is not a listed scale of llama3.1 h100 8b fp8 \(largest: 8\): planned with its row.s TP, PP, CP and EP, DP and GA derived from 16 GPUs' "$TRASH/u-plan.out"
t_grep "...its plan line: 2 nodes, GBS 128, DP 16, GA 8, labelled UNLISTED, not compared" \
	'train llama3\.1 h100 8b fp8 x16: nodes=2 gpus/node=8 tasks/node=8 .* gbs=128 dp=16 ga=8 .* UNLISTED \(not compared with the reference\)' "$TRASH/u-plan.out"
before=$(squeue -h -t all -o %i | wc -l)
um >"$TRASH/u.out" 2>&1
t_ok "make report ... SCALES=16 (unlisted) on the cluster" test $? = 0 || tail -n 30 "$TRASH/u.out" | sed 's/^/# /'
ujob=$(t_job_field "$UI" train.llama3.1.h100.8b.fp8.16 job)
t_ok "...submitted through sbatch: one training job ($ujob)" test -n "$ujob"
sj=$(scontrol show job "$ujob" 2>&1)
bad=
for want in "JobState=COMPLETED" "NumNodes=2 " "NumTasks=16 " "TresPerNode=gres:gpu:8"; do
	[[ $sj == *"$want"* ]] || bad="$bad $want"
done
t_ok "...Slurm ran it on both nodes, 16 tasks${bad:+ (not:$bad)}" test -z "$bad"
t_ok "...each of the 16 tasks ran the stand-in with --num_gpus 16 and the row's -gb 128" /usr/bin/python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    a = json.loads(line)["argv"]
    if a[a.index("--num_gpus") + 1] == "16" and a[a.index("-gb") + 1] == "128" and a[a.index("--gpu") + 1] == "h100":
        n += 1
sys.exit(0 if n == 16 else 1)' "$MBRIDGE_STANDIN_RECORD"
UX=$UI/workloads/llama3.1/experiments/h100_8b_fp8_16
t_ok "...parsed: result.json says unlisted" /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["status"] == "success" and r.get("unlisted") is True else 1)' "$UX/result.json"
t_ok "...its provenance has the derived DP 16 and GA 8, GBS 128" /usr/bin/python3 -c '
import json, sys
k = json.load(open(sys.argv[1]))["configuration"]["knobs"]
sys.exit(0 if (k["gbs"], k["dp"], k["ga"]) == ("128", "16", "8") else 1)' "$UX/provenance.json"
urep=$UI/workloads/llama3.1/reports/h100_8b_fp8.json
t_ok "...the report's column: unlisted, not compared, no reference" /usr/bin/python3 -c '
import json, sys
c = [k for k in json.load(open(sys.argv[1]))["columns"] if k["scale"] == 16]
sys.exit(0 if len(c) == 1 and c[0].get("unlisted") is True and c[0]["comparison"] == "unlisted: not compared"
         and c[0]["metrics"]["step_time"]["reference"] is None else 1)' "$urep"
t_grep "...the text report heads it 16 (unlisted)" '16 \(unlisted\)' "$urep.txt"
ust=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step_time"]["mean"])' "$UX/result.json" 2>/dev/null)
uflops=$("$LLMB" flops llama3.1 8b h100 --top "$TOP" | awk '$1 == "total" { print $3 }')
uwant=$("$LLMB" metrics --seq 8192 --gbs 128 --step-time "${ust:-1}" --gpus 16 --model-flops "$uflops" \
	--peak-tflops 1979 --format=json | /usr/bin/python3 -c 'import json,sys; print("%.2f" % json.load(sys.stdin)["mfu_pct"])')
t_ok "...MFU $uwant% from its own GBS 128 over 16 GPUs (step ${ust:-?} s)" /usr/bin/python3 -c '
import json, sys
c = [k for k in json.load(open(sys.argv[1]))["columns"] if k["scale"] == 16][0]
sys.exit(0 if "%.2f" % c["metrics"]["mfu_pct"]["value"] == sys.argv[2] else 1)' "$urep" "$uwant"
t_done
