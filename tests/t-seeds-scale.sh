#!/usr/bin/env bash
# t-seeds-scale: the five seed workloads through the whole pipeline (image
# -> venv -> data -> train -> parse -> report) on an emulated 256-node
# cluster of 8 fake GPUs each, every GPU type of every workload, the
# trainings at the seeds' own shapes. Offline stand-ins under
# tests/seeds-scale/ (see its README): pyxis (bin/srun, first on PATH)
# runs the per-framework payload in place of the container's command;
# git and python3 -m venv stand in for GitHub and PyPI; enroot is
# tests/bin/enroot. Full size: Nemotron4 340b bf16 at 2048 GPUs (256
# nodes), Grok1 GB200 bf16 at 256 GPUs (64 nodes x 4), Grok1 H100 at 512
# (64 nodes), Llama4 Maverick at 256 (32 nodes, its only scale), MaxText
# Llama2 bf16 at 2048 (256 nodes), Llama3 LoRA at every scale (1-4 nodes),
# and every other published scale of up to 32 nodes: Nemotron4 15b at
# 16-256 GPUs and 340b at 256, Grok1 GB200 at 128, MaxText at 64-256. Not
# run: the published scales of 64 to 256 nodes beyond those (Nemotron4
# 512-2048 but 340b bf16 2048, Grok1 GB200 512 and fp8 256, MaxText
# 512-2048 but h100 bf16 2048): each node of a training costs its node
# probe (some 40 processes), and 2 cores cannot afford them in CI. The two
# 2,048-GPU steps run one task per node (bin/srun, SEEDS_MAX_STEP_TASKS):
# 2,048 task processes on 2 cores make srun lose task messages. Checks:
# Slurm's record of each training job (nodes, tasks, GPUs per node,
# exclusive, time limit, partition), the task layout the payload saw, the
# container options pyxis got, setup jobs on the CPU partition, one job
# per stage, and the reports against the seeds' tables (5% tolerance),
# one configuration made 12% slower to prove the verdict can say so.
# Then faults at that scale: a 32-node training whose node's slurmd is
# killed (NODE_FAIL and the retry policy; and, where Slurm requeues, the
# same job run again), and make killed while 50 trainings are pending,
# each counted from Slurm's own records (squeue -t all).
# Last, today's workloads (Megatron-Bridge, upstream v26.06.01) in an
# install tree of their own: DeepSeek V3 at 128 nodes (1,024 H100s) and
# at 256 GB200s, Kimi-K2 at 256 and GPT-OSS at 64 GB300s, Qwen3 30b,
# Nemotron-H and Nemotron 3 30b at 8: Slurm's record of each, the tasks on
# every node, the Hugging Face setup jobs on the CPU partition, nothing
# submitted twice, each report's MFU against its dtype's peak.
# Start it under the machine-wide lock (fixed-size cluster, many ports):
#   flock /tmp/llmb-slurm.lock env LLMB=$PWD/build/llmb tests/run.sh seeds-scale
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
command -v mksquashfs >/dev/null || t_skip_all "mksquashfs (squashfs-tools) is not installed"
unset LLMB_TEST_SLURM_STATE SBATCH_ACCOUNT SBATCH_PARTITION SBATCH_GPUS_PER_NODE ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC
unset MAX_STEPS ENABLE_PROFILE ENABLE_CHECKPOINT LOAD_CHECKPOINT_PATH ENABLE_NCCLTRACE LLMB_IMAGE_DIR
export SLURM_CI_NODES=${SEEDS_NODES:-256} SLURM_CI_GPUS_PER_NODE=8 SLURM_CI_MIN_JOB_AGE=3600
export SLURM_CI_ACCOUNTING=0 SLURM_CI_CGROUP=0 SLURM_CI_TIMEOUT=120 SLURM_CI_CPU_PARTITION=cpu
# No after-training probe step here: 256 emulated nodes share two cores, and
# that step doubles the probes' cost (t-provenance-slurm and t-validity test it).
export LLMB_SKIP_AFTER_PROBE=1
# SlurmdTimeout 40: a node whose slurmd was killed is declared down within
# a minute; MessageTimeout, TCPTimeout: a big step on 2 busy cores
# answers slowly (srun loses task exit messages at the defaults); cred_expire=30: a requeued job is eligible 31 s later, not 121 s;
# UnkillableStepTimeout: a step's processes on a loaded machine can take
# over the default minute to die, and the node would be drained (Kill task
# failed); p50: a partition that is down (trainings pending while make is killed).
export SLURM_CI_CRED_EXPIRE=30
export SLURM_CI_EXTRA_CONF="SchedulerParameters=batch_sched_delay=0,sched_interval=2,bf_interval=2
SlurmdTimeout=40
UnkillableStepTimeout=180
MessageTimeout=60
TCPTimeout=30
PartitionName=p50 Nodes=n[1-$SLURM_CI_NODES] MaxTime=INFINITE State=DOWN"
t_ok "a $SLURM_CI_NODES-node cluster with 8 GPUs per node is up" slurm_test_up || { t_done; exit 1; }

SS=$TESTS_DIR/seeds-scale
I=$TRASH/inst
mkdir -p "$TRASH/rec"
# The hosts' nvidia-smi (vboost) before tests/bin's GPU counter; the
# provenance probe asks it too, so only boost-slider lines are counted.
export PATH=$SS/bin:$TESTS_DIR/nemo-driver/host:$TESTS_DIR/bin:$PATH
# The image's python3 (bin/srun puts it first in a container step): the
# system's, which starts in a third of the CPU of a version manager's build
# with site hooks; 344 Megatron-Bridge tasks start two Pythons each.
if [ -x /usr/bin/python3 ]; then
	mkdir -p "$TRASH/container-bin" && ln -sf /usr/bin/python3 "$TRASH/container-bin/python3"
	export SEEDS_CONTAINER_BIN=$TRASH/container-bin
fi
export SEEDS_RECORD=$TRASH/rec SEEDS_PAYLOAD=$SS/payload.sh SEEDS_TABLE=$SS/seeds.tsv SEEDS_PARTITION=debug
SLOW="maxtext-llama2 h100 70b fp8 64"
export SEEDS_SLOW=$SLOW SEEDS_SLOW_FACTOR=1.12 SEEDS_MAX_STEP_TASKS=1024
export HF_TOKEN=hf_SEEDSSECRET_4c1d NVSMI_RECORD=$TRASH/nvsmi.txt LLMB_POLL_SECONDS=1 LLMB_CPU_PARTITION=cpu

# The runs: NAME VAR=VALUE... (one make report each, all at once, one install tree).
# Besides the big shapes, every published scale of up to 32 nodes (256
# GPUs) at full size; the scales of 64 nodes and more beyond the ones
# below are not run (see the header).
RUNS=(
	"n340 WORKLOAD=nemotron4 SIZE=340b DTYPE=bf16 SCALES=256,2048"
	"n340f WORKLOAD=nemotron4 SIZE=340b DTYPE=fp8 SCALES=256"
	"n15 WORKLOAD=nemotron4 SIZE=15b SCALES=16,32,64,128,256"
	"gkb WORKLOAD=grok1 GPU_TYPE=gb200 DTYPE=bf16 SCALES=128,256"
	"gkf WORKLOAD=grok1 GPU_TYPE=gb200 DTYPE=fp8 SCALES=128"
	"gkh WORKLOAD=grok1 GPU_TYPE=h100"
	"l3 WORKLOAD=llama3-lora GPU_TYPE=gb200,b200,h100"
	"l4 WORKLOAD=llama4-maverick GPU_TYPE=b200,h100"
	"mx WORKLOAD=maxtext-llama2 GPU_TYPE=h100 DTYPE=bf16 SCALES=64,128,256,2048"
	"mxf WORKLOAD=maxtext-llama2 GPU_TYPE=h100 DTYPE=fp8 SCALES=64,128,256"
	"mxa WORKLOAD=maxtext-llama2 GPU_TYPE=a100 SCALES=64,128,256"
)
# reports INSTALL RUN...: one make report per run ("NAME VAR=VALUE...", a
# comma for a space), all at once, into INSTALL; returns when all ended.
reports() {
	local inst=$1 r w n args
	shift
	for r; do
		read -r -a w <<<"$r"
		n=${w[0]}
		args=("${w[@]:1}")
		args=("${args[@]//,/ }")
		(make -C "$TOP" -j4 LLMB_GEN="$TRASH/g.$n" LLMB_INSTALL="$inst" EXECUTOR=slurm report "${args[@]}" \
			>"$TRASH/$n.out" 2>&1; echo $? >"$TRASH/$n.rc") &
	done
	wait
}
# reports_ok RUN...: a check per run that its make succeeded
reports_ok() {
	local r n
	for r; do
		n=${r%% *}
		t_ok "make report ${r#* } succeeds" test "$(cat "$TRASH/$n.rc")" = 0 || tail -n 20 "$TRASH/$n.out" | sed 's/^/# /'
	done
}
# step_layout STEP_RECORD PER_NODE: "tasks distinct-ranks nodes nodes-without-PER_NODE-tasks"
# of a training step's task record (the payload's "rank node localid" lines)
step_layout() {
	awk '{n++; node[$2]++; r[$1]++} END {k = 0; for (x in node) {k++; if (node[x] != g) bad++}; d = 0; for (x in r) d++; print n, d, k, bad + 0}' \
		g="$2" "$1" 2>/dev/null
}
reports "$I" "${RUNS[@]}"
reports_ok "${RUNS[@]}"

# ---- the training jobs, as Slurm recorded them ------------------------------------------
# time limit of each workload's training (the seeds' launch scripts)
declare -A TL=([nemotron4]=00:20:00 [grok1]=00:30:00 [llama3-lora]=00:15:00 [llama4-maverick]=00:15:00 [maxtext-llama2]=01:00:00)
rec() { t_job_field "$I" "$@"; }
bad_shape='' bad_tasks='' bad_pyxis='' cut='' ntrain=0
for d in "$I"/state/jobs/train.*/; do
	st=$(basename "$d")
	IFS=. read -r _ wl gpu _ _ scale <<<"$st"
	gpn=8
	[ "$gpu" = gb200 ] && gpn=4
	nodes=$((scale / gpn))
	job=$(rec "$st" job)
	ntrain=$((ntrain + 1))
	sj=$(scontrol show job "$job" 2>&1)
	for want in "JobState=COMPLETED" "NumNodes=$nodes " "NumTasks=$scale " "TresPerNode=gres:gpu:$gpn" \
		"OverSubscribe=NO" "TimeLimit=${TL[$wl]#00:}" "Partition=debug"; do
		# scontrol prints an hour-less time limit as MM:SS only below an hour
		[[ $want == TimeLimit=* ]] && { [[ $sj == *"TimeLimit=${TL[$wl]}"* || $sj == *"$want"* ]] || bad_shape="$bad_shape $st:$want"; continue; }
		[[ $sj == *"$want"* ]] || bad_shape="$bad_shape $st:$want"
	done
	# the training step: the last containerized srun of the job
	last=$(find "$TRASH/rec" -name "srun.$job.*" | sort -t. -k3 -n | tail -n 1)
	step=$(find "$TRASH/rec" -name "tasks.$job.*" | sort -t. -k3 -n | tail -n 1)
	# (a step the pyxis stand-in ran one task per node: one record per node)
	per=$gpn want=$scale
	if grep -q "^one task per node ($nodes of $scale)" "$last" 2>/dev/null; then per=1 want=$nodes; cut="$cut $st"; fi
	got=$(step_layout "$step" "$per")
	[ "$got" = "$want $want $nodes 0" ] || bad_tasks="$bad_tasks $st:($got)"
	case $wl in maxtext-llama2) wantm='' wantf='--no-container-mount-home' wantmpi='' ;;
	*) wantm="$I:$I,$TOP/workloads:$TOP/workloads:ro" wantf='--no-container-mount-home --container-writable' wantmpi=pmix ;;
	esac
	# (a pattern: Llama4 also mounts its venv's NeMo clone at /opt/NeMo)
	[ "$wl" = llama4-maverick ] && wantm="$wantm,$I/venvs/venv_*/src/nemo:/opt/NeMo"
	img=$(sed -n 's/^image=//p' "$last")
	m=$(sed -n 's/^mounts=//p' "$last")
	# shellcheck disable=SC2053 # wantm is a pattern
	[[ $img == "$I"/images/*.sqsh ]] && [[ $m == $wantm ]] &&
		[ "$(sed -n 's/^flags=//p' "$last")" = "$wantf" ] && [ "$(sed -n 's/^mpi=//p' "$last")" = "$wantmpi" ] ||
		bad_pyxis="$bad_pyxis $st"
done
t_ok "every training ran (18 of llama3-lora, 50 in all)" test "$ntrain" = 50
t_ok "Slurm ran each with the seed's shape: nodes, GPUs x nodes tasks, GPUs per node, exclusive, time limit, GPU partition${bad_shape:+ (not:$bad_shape)}" test -z "$bad_shape"
t_ok "each training step had one task per GPU, each node its GPUs' worth${bad_tasks:+ (not:$bad_tasks)}" test -z "$bad_tasks"
t_ok "pyxis got the image, the mounts, --container-writable and --mpi=pmix of each recipe${bad_pyxis:+ (not:$bad_pyxis)}" test -z "$bad_pyxis"
t_ok "only the two 2,048-GPU steps ran one task per node (their 256-node allocations full size)" \
	test "$cut" = " train.maxtext-llama2.h100.70b.bf16.2048 train.nemotron4.h100.340b.bf16.2048"
t_ok "the payload failed no check" test -z "$(grep -l 'seeds payload: task' "$I"/workloads/*/experiments/*/log-*.out 2>/dev/null)"
t_ok "node setup: vboost ran once per node of the Grok1 and Llama4 trainings" \
	test "$(grep -c " boost-slider --vboost 1$" "$TRASH/nvsmi.txt")" = $((64 + 32 + 32 + 64 + 64 + 4 * 32))

# ---- setup jobs and submissions -------------------------------------------------------------
# kinds: "kind partition" of every job of the install tree
kinds=$(squeue -h -t all -o '%Z %P %j' | awk -v d="$I" '$1 == d {sub(/^llmb\./, "", $3); sub(/\..*/, "", $3); print $3, $2}' | sort -u | tr '\n' ' ')
t_ok "image and venv jobs ran on the CPU partition, data (one GPU) and training on the GPU partition ($kinds)" \
	test "$kinds" = "data debug image cpu train debug venv cpu "
dups=$(squeue -h -t all -o '%Z %j' | awk -v d="$I" '$1 == d {sub(/\.[^.]*$/, "", $2); print $2}' | sort | uniq -d)
t_ok "no stage was submitted twice${dups:+ ($dups)}" test -z "$dups"
t_ok "every Slurm job of the install tree completed" \
	test -z "$(squeue -h -t all -o '%Z %T' | awk -v d="$I" '$1 == d && $2 != "COMPLETED"')"
t_ok "the secret is in no generated file, job script, log or report" \
	test -z "$(grep -rl hf_SEEDSSECRET "$I" "$TRASH"/g.* "$TRASH"/*.out "$TRASH/rec" 2>/dev/null)"

# ---- the reports against the seeds ----------------------------------------------------------------
# one line per run column: workload gpu size dtype scale value reference diff verdict
cat "$I"/workloads/*/reports/*.json.csv | awk -F, '$8 == "step_time" {print $1, $2, $3, $4, $5, $9, $13, $14, $15}' >"$TRASH/steps.txt"
t_ok "the reports have every run (50)" test "$(wc -l <"$TRASH/steps.txt")" = 50
bad=
while read -r w g s d sc v ref diff vd; do
	key="$w $g $s $d $sc"
	seed=$(awk -F'\t' -v k="$key" '$1 " " $2 " " $3 " " $4 " " $5 == k {print $6, $8}' "$SS/seeds.tsv")
	pub=${seed% *} origin=${seed#* }
	if [ "$origin" = nominal ]; then
		[ -z "$ref" ] && [ -z "$vd" ] || bad="$bad [$key: no published value, yet reference '$ref' verdict '$vd']"
	elif [ "$key" = "$SLOW" ]; then
		[ "$vd" = slower ] && awk -v v="$v" -v p="$pub" 'BEGIN {exit !(v > p * 1.07)}' || bad="$bad [$key: $v vs $pub: '$vd']"
	else
		[ "$vd" = "within tolerance" ] && [ "$ref" = "$pub" ] && awk -v v="$v" -v p="$pub" 'BEGIN {d = v / p - 1; exit !(d < 0.05 && d > -0.05)}' ||
			bad="$bad [$key: $v vs $pub ($ref, $diff%): '$vd']"
	fi
done <"$TRASH/steps.txt"
t_ok "each step time is within 5% of the seed's and says so, the slowed one says slower, the unpublished ones have no verdict${bad:+:$bad}" test -z "$bad"
vb=$(cat "$I"/workloads/*/reports/*.json.csv | awk -F, -v slow="$SLOW" '($8 == "tokens_per_s" || $8 == "mfu_pct" || $8 == "days_1t") && $15 != "" && $15 != "within tolerance" && $1 " " $2 " " $3 " " $4 " " $5 != slow {print $1, $2, $4, $5, $8, $15}')
t_ok "tokens/s, MFU and days to train agree with the seeds within tolerance${vb:+ (not: $vb)}" test -z "$vb"

# ---- faults at scale ----------------------------------------------------------------------------
# nf: a 32-node training (--no-requeue) loses a node's slurmd: NODE_FAIL,
# the retry policy resubmits. rq: the same on a 32-node training Slurm
# requeues (its default): the same job runs again. p50: 50 trainings
# pending on a partition that is down when make is killed; the next make
# submits none of them again. All at once, on the same cluster.
slurmd_pid() { awk -v n="$1" '$1 == "slurmd" && $3 == n {print $2}' "$SLURM_TEST_STATE/run/pids" | tail -n 1; }
slurmd_start() {
	setsid /usr/sbin/slurmd -D -N "$1" </dev/null >>"$SLURM_TEST_STATE/log/slurmd-$1.out" 2>&1 &
	echo "slurmd $! $1" >>"$SLURM_TEST_STATE/run/pids"
}
# kill_node_of NAME STAGE: stop the slurmd of the last node of the stage's job; prints the node
kill_node_of() {
	local job node
	t_wait_grep "train .*RUNNING" "$TRASH/$1.out" 120 >&2 || return 1
	# Not before every task of the training step has started: a node lost
	# between steps (the node probe, node setup) fails the next step's launch
	# instead, which Slurm reports as FAILED, not NODE_FAIL (llmb's side of
	# that is t-slurm-states' scenario of a node lost between steps).
	local i at
	for ((i = 0; i < 900; i++)); do
		shopt -s nullglob
		at=("$TRASH/hold.$1.at."*)
		shopt -u nullglob
		[ "${#at[@]}" -ge 256 ] && break
		t_nap 0.2
	done
	[ "${#at[@]}" -ge 256 ] || echo "# $1: only ${#at[@]} of 256 tasks marked the hold; the node is killed anyway" >&2
	job=$(rec "$2" job)
	node=$(scontrol show hostnames "$(squeue -h -j "$job" -o %N)" | tail -n 1)
	kill -KILL "$(slurmd_pid "$node")"
	echo "$node"
}
NF=train.nemotron4.h100.340b.fp8.256 RQ=train.llama4-maverick.b200.400b.bf16.256
: >"$TRASH/hold.nf"
: >"$TRASH/hold.rq"
(SEEDS_HOLD=$TRASH/hold.nf make -C "$TOP" LLMB_GEN="$TRASH/g.nf" LLMB_INSTALL="$I" EXECUTOR=slurm report \
	WORKLOAD=nemotron4 SIZE=340b DTYPE=fp8 SCALES=256 MAX_STEPS=60 ADDITIONAL_SLURM_PARAMS=no-requeue \
	>"$TRASH/nf.out" 2>&1; echo $? >"$TRASH/nf.rc") &
(SEEDS_HOLD=$TRASH/hold.rq make -C "$TOP" LLMB_GEN="$TRASH/g.rq" LLMB_INSTALL="$I" EXECUTOR=slurm report \
	WORKLOAD=llama4-maverick GPU_TYPE=b200 DTYPE=bf16 MAX_STEPS=60 >"$TRASH/rq.out" 2>&1; echo $? >"$TRASH/rq.rc") &
(
	n=$(kill_node_of nf "$NF") || exit 1
	echo "$n" >"$TRASH/nf.node"
	t_wait_grep "retrying .*NODE_FAIL" "$TRASH/nf.out" 180
	rm -f "$TRASH/hold.nf"
	slurmd_start "$n"
) &
(
	n=$(kill_node_of rq "$RQ") || exit 1
	t_wait_grep "was requeued by the scheduler" "$TRASH/rq.out" 180
	rm -f "$TRASH/hold.rq"
	slurmd_start "$n"
) &
# p50: a fresh install tree, trainings on partition p50 (down)
P=$TRASH/inst50
p50=()
for w in "nemotron4" "maxtext-llama2 GPU_TYPE=h100,a100" "grok1 GPU_TYPE=gb200,h100"; do
	read -r -a a <<<"WORKLOAD=$w"
	a=("${a[@]//,/ }")
	n=${w%% *}
	setsid make -C "$TOP" -j64 LLMB_GEN="$TRASH/g.p50.$n" LLMB_INSTALL="$P" EXECUTOR=slurm SBATCH_PARTITION=p50 \
		train "${a[@]}" >"$TRASH/p50.$n.out" 2>&1 &
	p50+=($!)
done
for ((i = 0; i < 900; i++)); do
	[ "$(squeue -h -p p50 -t pd -o %i | wc -l)" -ge 50 ] && break
	t_nap 0.2
done
sleep 1
for pid in "${p50[@]}"; do kill -KILL -- -"$pid"; done
wait "${p50[@]}" 2>/dev/null
t_ok "50 trainings pending when make was killed" test "$(squeue -h -p p50 -t pd -o %i | wc -l)" = 50
for w in "nemotron4" "maxtext-llama2 GPU_TYPE=h100,a100" "grok1 GPU_TYPE=gb200,h100"; do
	read -r -a a <<<"WORKLOAD=$w"
	a=("${a[@]//,/ }")
	make -C "$TOP" -j64 LLMB_GEN="$TRASH/g.p50.${w%% *}" LLMB_INSTALL="$P" EXECUTOR=slurm SBATCH_PARTITION=p50 \
		train ASYNC=1 "${a[@]}" >>"$TRASH/p50.again" 2>&1
done
t_nogrep "the next make submitted none of them again" "submitted job" "$TRASH/p50.again"
t_ok "it reattached to all 50" test "$(grep -c "train .*attached to job" "$TRASH/p50.again")" = 50
t_ok "Slurm has exactly one job per stage of that install tree" \
	test -z "$(squeue -h -t all -o '%Z %j' | awk -v d="$P" '$1 == d {sub(/\.[^.]*$/, "", $2); print $2}' | sort | uniq -d)"
for w in nemotron4 "maxtext-llama2 GPU_TYPE=h100,a100" "grok1 GPU_TYPE=gb200,h100"; do
	read -r -a a <<<"WORKLOAD=$w"
	make -C "$TOP" LLMB_GEN="$TRASH/g.p50.${w%% *}" LLMB_INSTALL="$P" EXECUTOR=slurm "${a[@]//,/ }" cancel >/dev/null 2>&1
done
wait

# jobs_of INSTALL STAGE: the ids of every job Slurm ever had for STAGE, in order
jobs_of() {
	squeue -h -t all -o '%i %Z %j' | sort -n | awk -v d="$1" -v s="llmb.$2." \
		'$2 == d && index($3, s) == 1 {print $1}' | tr '\n' ' ' | sed 's/ $//'
}
# the matrix's job, the one that lost its node, the retry
read -r _ j2 j3 rest <<<"$(jobs_of "$I" "$NF")"
t_ok "NODE_FAIL: make succeeds" test "$(cat "$TRASH/nf.rc")" = 0
t_ok "Slurm says NODE_FAIL, then COMPLETED, and no other job (matrix job aside)" \
	test "$(squeue -h -t all -j "$j2,$j3" -o '%i %T' | sort -n | awk '{print $2}' | tr '\n' ' ')${rest:+more}" = "NODE_FAIL COMPLETED "
t_grep "the retry policy resubmitted once" "retrying \(attempt 2 of 2\): the stage's retry policy covers NODE_FAIL" "$TRASH/nf.out"
t_ok "the retry ran on 32 nodes with 256 tasks" test "$(awk 'END {print NR}' "$(find "$TRASH/rec" -name "tasks.$j3.*" | sort -t. -k3 -n | tail -n 1)")" = 256
read -r _ j2 rest <<<"$(jobs_of "$I" "$RQ")"
t_ok "requeued by Slurm: make succeeds with one job, requeued once, completed" \
	test "$(cat "$TRASH/rq.rc") $(squeue -h -t all -j "$j2" -O 'State: ,RestartCnt:' | xargs)${rest:+ more}" = "0 COMPLETED 1"
t_grep "llmb said it was requeued and kept waiting on it" "job $j2 was requeued by the scheduler" "$TRASH/rq.out"
# ---- today's workloads ----------------------------------------------------------------------------
# Megatron-Bridge's recipes (upstream v26.06.01), after the seeds' runs and
# faults (all at once, they drained nodes: Kill task failed), in their own
# install tree: each recipe at its smallest
# published full scale, DeepSeek V3 also at 128 nodes (1,024 H100s).
# numactl's stand-in for mbridge-launch.py's binding; a step of more than
# 64 tasks runs one task per node (each task is two Python processes here).
M=$TRASH/instmb
MB_RUNS=(
	"dsh WORKLOAD=deepseek-v3 GPU_TYPE=h100 DTYPE=bf16 SCALES=1024"
	"dsg WORKLOAD=deepseek-v3 GPU_TYPE=gb200 DTYPE=fp8 SCALES=256"
	"kk WORKLOAD=kimi-k2 GPU_TYPE=gb300 DTYPE=fp8 SCALES=256"
	"go WORKLOAD=gpt-oss GPU_TYPE=gb300 DTYPE=bf16 SCALES=64"
	"qw WORKLOAD=qwen3 GPU_TYPE=gb300 SIZE=30b DTYPE=bf16 SCALES=8"
	"nh WORKLOAD=nemotron-h GPU_TYPE=gb300 DTYPE=fp8 SCALES=8"
	"n3 WORKLOAD=nemotron3 GPU_TYPE=gb300 SIZE=30b DTYPE=bf16 SCALES=8"
)
(
	export PATH=$TESTS_DIR/nemo-driver/bin:$PATH NUMACTL_RECORD=$TRASH/mb.numa NVSMI_RECORD=$TRASH/mb.nvsmi SEEDS_MAX_STEP_TASKS=64
	reports "$M" "${MB_RUNS[@]}"
)

# ---- today's workloads: Slurm's record, the tasks, the reports ----------------------------------
reports_ok "${MB_RUNS[@]}"
# gpus_yaml GPU KEY [DTYPE]: a GPU's gpus_per_node, or its peak_tflops of DTYPE
gpus_yaml() {
	awk -v g="  $1:" -v k="$2" -v d="${3:-}" '
		$0 == g { in_g = 1; next }
		in_g && /^  [a-z0-9]+:$/ { in_g = 0 }
		in_g && d == "" && $1 == k ":" { print $2; exit }
		in_g && d != "" && $1 == k ":" { in_k = 1; next }
		in_k && $1 == d ":" { print $2; exit }' "$TOP/workloads/gpus.yaml"
}
bad_shape='' bad_tasks='' nmb=0
for d in "$M"/state/jobs/train.*/; do
	st=$(basename "$d")
	# (a workload's name may hold a dot: the stage's last four fields)
	scale=${st##*.} s=${st%.*}
	s=${s%.*} && s=${s%.*} && gpu=${s##*.}
	gpn=$(gpus_yaml "$gpu" gpus_per_node)
	nodes=$((scale / gpn))
	job=$(t_job_field "$M" "$st" job)
	nmb=$((nmb + 1))
	[ -n "$job" ] || { bad_shape="$bad_shape $st:no-job"; continue; }
	sj=$(scontrol show job "$job" 2>&1)
	for want in "JobState=COMPLETED" "NumNodes=$nodes " "NumTasks=$scale " "TresPerNode=gres:gpu:$gpn" "OverSubscribe=NO" "Partition=debug"; do
		[[ $sj == *"$want"* ]] || bad_shape="$bad_shape $st:$want"
	done
	step=$(find "$TRASH/rec" -name "tasks.$job.*" | sort -t. -k3 -n | tail -n 1)
	per=$gpn want=$scale
	[ "$scale" -gt 64 ] && per=1 want=$nodes
	got=$(step_layout "$step" "$per")
	[ "$got" = "$want $want $nodes 0" ] || bad_tasks="$bad_tasks $st:($got)"
done
t_ok "every Megatron-Bridge training ran (7)" test "$nmb" = 7
t_ok "Slurm ran each with the recipe's shape: nodes, tasks, GPUs per node, exclusive, GPU partition${bad_shape:+ (not:$bad_shape)}" test -z "$bad_shape"
t_ok "each training step had its tasks on every node of the allocation${bad_tasks:+ (not:$bad_tasks)}" test -z "$bad_tasks"
t_ok "DeepSeek V3 H100 BF16 ran on 128 nodes, 1,024 GPUs" test "$(scontrol show job "$(t_job_field "$M" train.deepseek-v3.h100.671b.bf16.1024 job)" |
	grep -o 'NumNodes=[0-9]* NumCPUs=[0-9]* NumTasks=[0-9]*' | sed 's/ NumCPUs=[0-9]*//')" = "NumNodes=128 NumTasks=1024"
t_ok "the payload failed no check" test -z "$(grep -l 'seeds payload: task' "$M"/workloads/*/experiments/*/log-*.out 2>/dev/null)"
kinds=$(squeue -h -t all -o '%Z %P %j' | awk -v d="$M" '$1 == d {sub(/^llmb\./, "", $3); sub(/\..*/, "", $3); print $3, $2}' | sort -u | tr '\n' ' ')
t_ok "image, venv and Hugging Face setup jobs ran on the CPU partition, training on the GPU partition ($kinds)" \
	test "$kinds" = "data cpu image cpu train debug venv cpu "
dups=$(squeue -h -t all -o '%Z %j' | awk -v d="$M" '$1 == d {sub(/\.[^.]*$/, "", $2); print $2}' | sort | uniq -d)
t_ok "no stage was submitted twice${dups:+ ($dups)}" test -z "$dups"
t_ok "every Slurm job of that install tree completed" \
	test -z "$(squeue -h -t all -o '%Z %T' | awk -v d="$M" '$1 == d && $2 != "COMPLETED"')"
t_ok "the secret is in none of its files" test -z "$(grep -rl hf_SEEDSSECRET "$M" "$TRASH"/g.dsh "$TRASH"/g.qw 2>/dev/null)"
# each run's MFU: its TFLOPS/GPU over the GPU's peak at the run's dtype
# (gpus.yaml); none where llmb has no FLOPs formula for the model (llmb flops)
cat "$M"/workloads/*/reports/*.json.csv >"$TRASH/mb.csv"
awk -F, '$8 == "mfu_pct" {print $1, $2, $3, $4, $5, $9}' "$TRASH/mb.csv" >"$TRASH/mb.mfu"
bad='' nm=0 nof=''
while read -r w g s d sc v; do
	nm=$((nm + 1))
	tf=$(awk -F, -v k="$w $g $s $d $sc" '$1 " " $2 " " $3 " " $4 " " $5 == k && $8 == "tflops_per_gpu" {print $9}' "$TRASH/mb.csv")
	peak=$(gpus_yaml "$g" peak_tflops "$d")
	if ! "$LLMB" flops "$w" "$s" "$g" --top "$TOP" >/dev/null 2>&1; then
		nof="$nof $w"
		[ -z "$v$tf" ] || bad="$bad [$w: no FLOPs formula, yet MFU '$v' TFLOPS '$tf']"
		continue
	fi
	awk -v m="$v" -v t="$tf" -v p="$peak" 'BEGIN {exit !(m > 0 && p > 0 && (m - 100 * t / p) ^ 2 < (0.0001 * m) ^ 2 + 0.0001)}' ||
		bad="$bad [$w $g $d $sc: MFU $v, TFLOPS/GPU $tf, peak $peak]"
done <"$TRASH/mb.mfu"
t_ok "the reports give each run's MFU against its dtype's peak (7 runs; no FLOPs formula:${nof:- none})${bad:+:$bad}" test "$nm" = 7 -a -z "$bad"

t_done
