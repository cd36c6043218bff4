#!/bin/sh
# The container command's stand-in on the emulated cluster (tests only; no
# NeMo, MaxText or container here). bin/srun (the pyxis stand-in) runs it
# in every task of a containerized step with the command the container
# would have run as its arguments. It checks what llmb promises the job
# (task layout, SLURM_* variables, GPUs, partition, the image and mounts
# pyxis got, the framework's own flags against the stage's shape, secrets
# by name) and fails the task when something is off; each task records
# "rank node localid" in $SEEDS_RECORD/tasks.<job>.<step>. Then, per
# command:
#   NeMo 2 (workloads/nemo-inproc.py): with LLMB_NODE_SETUP, rank 0 writes
#     the vboost line NeMo's PerfEnvPlugin asks for; with --skip_finetuning
#     (a setup task), rank 0 writes the dataset or checkpoint files NeMo
#     downloads; otherwise rank 0 prints NeMo 2's training lines
#     (train_step_timing in s, TFLOPS_per_GPU).
#   MaxText (train.py): rank 0 prints MaxText's "completed step:" lines.
#   Hugging Face setup tasks (workloads/hf-assets.py): rank 0 runs the
#     command with tests/mbridge-standin/site's huggingface_hub.
#   Megatron-Bridge (workloads/mbridge-launch.py): after its checks, the
#     task runs the container's command itself (the driver, then the
#     stand-in entry point of the clone, which writes the log).
# Step times are drawn around the seed's published value ($SEEDS_TABLE:
# workload gpu size dtype scale step_s tflops), with noise seeded by the
# configuration; SEEDS_SLOW="workload gpu size dtype scale" makes that one
# configuration SEEDS_SLOW_FACTOR times slower. TFLOPS are scaled from the
# published value at the published step time, as NeMo's counter would be.
fail() { echo "seeds payload: task ${SLURM_PROCID:-?} on ${SLURMD_NODENAME:-?}: $*" >&2; exit 1; }
want() { [ "$2" = "$3" ] || fail "$1 is '$2', expected '$3'"; }

# llmb_launch starts each training task through its environment dump
# (bash -c SCRIPT FILE COMMAND...): run the dump as the container would,
# then look at the command itself. The dump runs in the first task of each
# node: beyond rank 0 it only execs the command, and a bash and a true in
# each of 7,600 tasks cost the scale test some 200 s of CPU.
if [ "$#" -ge 4 ] && [ "$1" = bash ] && [ "$2" = -c ]; then
	case $3 in *"compgen -e"*)
		[ "${SLURM_LOCALID:-0}" != 0 ] || bash -c "$3" "$4" true
		shift 4
		;;
	esac
fi
fw=
case " $* " in
*" "*/workloads/nemo-inproc.py" "*) fw=nemo2 ;;
*/opt/maxtext/MaxText/train.py*) fw=maxtext ;;
*" "*/workloads/mbridge-launch.py" "*) fw=mbridge ;;
*" "*/workloads/hf-assets.py" "*) fw=hfassets ;;
*) fail "unknown container command: $*" ;;
esac
if [ "$fw" = hfassets ]; then
	# A Hugging Face setup task (workloads/hf-assets.py, on the CPU partition:
	# none of the GPU checks below): HF_TOKEN by name,
	# then the container's command itself, with tests/mbridge-standin/site's
	# huggingface_hub as the container's.
	[ -n "${HF_TOKEN:-}" ] || fail "HF_TOKEN not in the environment"
	[ "$SLURM_PROCID" = 0 ] || exit 0
	PYTHONPATH=$(dirname "$0")/../mbridge-standin/site${PYTHONPATH:+:$PYTHONPATH}
	export PYTHONPATH
	exec "$@"
fi
# The stage: <kind>.<workload>.<gpu>.<size>.<dtype>[.<scale>] or data.<workload>.<task>
IFS=. read -r kind wl gpu size dtype scale <<EOS
$LLMB_STAGE
EOS

gpus=$SLURM_GPUS_ON_NODE
ncvd=0
IFS=,
for _ in $CUDA_VISIBLE_DEVICES; do ncvd=$((ncvd + 1)); done
unset IFS
want CUDA_VISIBLE_DEVICES-count "$ncvd" "$gpus"
# SEEDS_JOB_NTASKS: the job's task count (bin/srun may run one task per node)
ntasks=${SEEDS_JOB_NTASKS:-$SLURM_NTASKS}
want job-ntasks "$ntasks" "$((SLURM_NNODES * gpus))"
if [ "${SEEDS_ONE_PER_NODE:-0}" = 1 ]; then
	want SLURM_STEP_NUM_TASKS "$SLURM_STEP_NUM_TASKS" "$SLURM_NNODES"
	want SLURM_LOCALID "$SLURM_LOCALID" 0
else
	want SLURM_STEP_NUM_TASKS "$SLURM_STEP_NUM_TASKS" "$ntasks"
fi
want SLURM_JOB_PARTITION "$SLURM_JOB_PARTITION" "${SEEDS_PARTITION:?}"
[ "$SLURM_LOCALID" -lt "$gpus" ] || fail "local id $SLURM_LOCALID with $gpus GPUs"
case $SEEDS_CONTAINER_IMAGE in "$LLMB_INSTALL"/images/*.sqsh) ;; *) fail "image $SEEDS_CONTAINER_IMAGE not in the install tree" ;; esac
printf '%s %s %s\n' "$SLURM_PROCID" "$SLURMD_NODENAME" "$SLURM_LOCALID" >>"$SEEDS_RECORD/tasks.$SLURM_JOB_ID.$SLURM_STEP_ID"

if [ "$fw" = mbridge ]; then
	# Megatron-Bridge (workloads/mbridge-launch.py): the entry point's
	# arguments against the stage, then the container's command itself: the
	# driver execs numactl (tests/nemo-driver/bin) and the clone's entry
	# point, the stand-in of tests/mbridge-standin, which writes the log.
	case ",$SEEDS_CONTAINER_MOUNTS," in *",$LLMB_INSTALL:$LLMB_INSTALL,"*) ;; *) fail "the install tree is not mounted: $SEEDS_CONTAINER_MOUNTS" ;; esac
	case "$SEEDS_CONTAINER_FLAGS " in *" --container-writable "*) ;; *) fail "no --container-writable" ;; esac
	# (the workload's name holds a dot: the stage's last four fields,
	# before an overridden run's .override-<tag>)
	s=${LLMB_STAGE%.override-*}
	scale=${s##*.}
	s=${s%.*} && s=${s%.*} && s=${s%.*} && gpu=${s##*.}
	g='' ng='' gpn='' img='' prev=
	for a; do
		case $prev in --gpu) g=$a ;; --num_gpus) ng=$a ;; --gpus_per_node) gpn=$a ;; --container_image) img=$a ;; esac
		prev=$a
	done
	want --gpu "$g" "$gpu"
	want --container_image "$img" "$SEEDS_CONTAINER_IMAGE"
	want --num_gpus "$ng" "$scale"
	want --num_gpus "$ng" "$ntasks"
	want --gpus_per_node "$gpn" "$gpus"
	want HF_HUB_OFFLINE "${HF_HUB_OFFLINE:-}" 1
	exec "$@"
fi
if [ "$fw" = nemo2 ]; then
	case ",$SEEDS_CONTAINER_MOUNTS," in *",$LLMB_INSTALL:$LLMB_INSTALL,"*) ;; *) fail "the install tree is not mounted: $SEEDS_CONTAINER_MOUNTS" ;; esac
	case "$kind $SEEDS_CONTAINER_FLAGS " in data* | *" --container-writable "*) ;; *) fail "no --container-writable" ;; esac
	script='' logdir='' g='' ng='' gpn='' cdt='' gb='' steps='' skipft=0 skipds=0 skipck=0 img=''
	prev=
	for a; do
		case $prev in
		--script) script=$a ;; --log-dir) logdir=$a ;; --gpu) g=$a ;; --num_gpus) ng=$a ;;
		--gpus_per_node) gpn=$a ;; --compute_dtype) cdt=$a ;; -gb) gb=$a ;; --max_steps) steps=$a ;;
		--container_image) img=$a ;;
		esac
		case $a in --skip_finetuning) skipft=1 ;; --skip_dataset_download) skipds=1 ;; --skip_import_checkpoint) skipck=1 ;; esac
		prev=$a
	done
	want --container_image "$img" "$SEEDS_CONTAINER_IMAGE"
	want --num_gpus "$ng" "$ntasks"
	want --gpus_per_node "$gpn" "$gpus"
	case " $* " in *" --hf-token-from-env "*) [ -n "${HF_TOKEN:-}" ] || fail "HF_TOKEN not in the environment" ;; esac
	if [ "$kind" = data ]; then
		[ "$skipft" = 1 ] || fail "a setup task without --skip_finetuning"
		[ "$SLURM_PROCID" = 0 ] || exit 0
		home=${NEMO_HOME:?}
		case $script in
		*llama3_70b) model=meta-llama/Meta-Llama-3-70B ;;
		*llama4_e128) model=meta-llama/Llama-4-Maverick-17B-128E-Instruct ;;
		*) fail "no checkpoint known for $script" ;;
		esac
		if [ "$skipds" = 0 ]; then
			mkdir -p "$home/datasets/squad"
			for f in training.jsonl validation.jsonl training.jsonl.idx.npy training.jsonl.idx.info \
				validation.jsonl.idx.npy validation.jsonl.idx.info; do echo "$f" >"$home/datasets/squad/$f"; done
			echo "seeds payload: squad downloaded into $home/datasets/squad"
		fi
		if [ "$skipck" = 0 ]; then
			mkdir -p "$home/models/$model/weights"
			# metadata.json is JSON in a real distributed checkpoint, and llmb checks it is whole
			echo '{"sharded_backend": "torch_dist"}' >"$home/models/$model/weights/metadata.json"
			for f in common.pt __0_0.distcp __0_1.distcp; do echo "$f" >"$home/models/$model/weights/$f"; done
			echo "seeds payload: $model imported into $home/models"
		fi
		exit 0
	fi
	want --gpu "$g" "$gpu"
	want --compute_dtype "$cdt" "$dtype"
	want --num_gpus "$ng" "$scale"
	want --log-dir "$logdir" "$PWD"
	if [ -n "${LLMB_NODE_SETUP:-}" ]; then
		[ "$SLURM_PROCID" = 0 ] || exit 0
		printf 'vboost\tsudo nvidia-smi boost-slider --vboost 1\n' >"$LLMB_NODE_SETUP"
		exit 0
	fi
else
	want SEEDS_CONTAINER_MOUNTS "$SEEDS_CONTAINER_MOUNTS" ""
	# bash -c 'python3 -u .../train.py k=v ...': the words of the string,
	# split by the shell itself (no fork in a task: 2,048 of them at once)
	steps='' run='' ici='' pdb='' seq=''
	set -f
	for a in $3; do
		case $a in
		steps=*) steps=${a#*=} ;; run_name=*) run=${a#*=} ;; ici_fsdp_parallelism=*) ici=${a#*=} ;;
		per_device_batch_size=*) pdb=${a#*=} ;; max_target_length=*) seq=${a#*=} ;;
		esac
	done
	set +f
	want run_name "$run" "llmb-llama2-$size-$dtype-$scale"
	want ici_fsdp_parallelism "$ici" "$gpus"
	q=; [ "$dtype" = fp8 ] && q=fp8
	want QUANTIZATION "${QUANTIZATION-unset}" "$q"
	want job-ntasks "$ntasks" "$scale"
fi
# SEEDS_HOLD=FILE: the training waits while FILE exists (fault tests).
# Every task says it got here (the test kills a node only once the whole
# step has launched); rank 0 then waits, the others end.
if [ -n "${SEEDS_HOLD:-}" ] && [ -e "$SEEDS_HOLD" ]; then : >"$SEEDS_HOLD.at.$SLURM_PROCID"; fi
[ "$SLURM_PROCID" = 0 ] || exit 0
while [ -n "${SEEDS_HOLD:-}" ] && [ -e "$SEEDS_HOLD" ]; do sleep 0.5; done

# Rank 0: the framework's training log on stdout (the job's log file).
awk -v key="$wl $gpu $size $dtype $scale" -v fw="$fw" -v steps="$steps" -v gb="${gb:-0}" \
	-v pdb="${pdb:-0}" -v seq="${seq:-0}" -v n="$ntasks" -v slow="${SEEDS_SLOW:-}" \
	-v factor="${SEEDS_SLOW_FACTOR:-1}" '
	$1 " " $2 " " $3 " " $4 " " $5 == key { ref = $6; tf = $7 }
	END {
		if (ref == "") { print "seeds payload: no published step time for " key > "/dev/stderr"; exit 1 }
		pub = ref
		if (key == slow) ref *= factor
		seed = 0
		for (i = 1; i <= length(key); i++) seed = (seed * 31 + index("abcdefghijklmnopqrstuvwxyz0123456789 ", substr(key, i, 1))) % 2147483647
		srand(seed)
		for (i = 0; i < steps; i++) {
			t = ref * (1 + (rand() + rand() + rand() - 1.5) * 0.01)
			if (i < 2) t *= 3
			f = tf * pub / t
			loss = 11 - 8 * i / steps
			if (fw == "nemo2")
				printf "Training epoch 0, iteration %d/%d | lr: 1.5e-05 | global_batch_size: %d | global_step: %d | reduced_train_loss: %.4f | train_step_timing in s: %.3f | TFLOPS_per_GPU: %.2f | consumed_samples: %d\n", i, steps - 1, gb, i, loss, t, f, (i + 1) * gb
			else
				printf "completed step: %d, seconds: %.3f, TFLOP/s/device: %.3f, Tokens/s/device: %.3f, total_weights: %d, loss: %.3f\n", i, t, f, seq * pdb / t, seq * pdb * n, loss
		}
	}' "${SEEDS_TABLE:?}"
