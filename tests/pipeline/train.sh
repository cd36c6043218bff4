#!/usr/bin/env bash
# Fake training for the pipeline tests: NeMo-format step lines, counted.
steps=$1 install=$2
# once per run, not per rank
[ "${RANK:-0}" != 0 ] || echo "train $LLMB_STAGE" >>"$install/count.train"
sleep "${QUICK_TRAIN_SLEEP:-0}"
# A note for the run record, left as the node setup step leaves one.
if [ -n "${QUICK_NOTE:-}" ] && [ "${RANK:-0}" = 0 ]; then
	printf '%s\n' "$QUICK_NOTE" >"$install/state/jobs/$LLMB_STAGE/note.$LLMB_JOB_ID"
fi
# NCCL's INFO lines as NCCL_DEBUG=INFO prints them (host:pid:tid [device]
# NCCL INFO ...), for the validity checks: QUICK_NCCL=ib (the internal IB
# transport), socket (sockets), plugin-socket (the network plugin failed to
# load, then sockets), plugin-ib (it failed, then IB anyway).
nccl() { echo "$(hostname -s):$$:$$ [${RANK:-0}] NCCL INFO $*"; }
case ${QUICK_NCCL:-} in
plugin-*)
	nccl "NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so"
	nccl "NET/Plugin: Using internal network plugin." ;;
esac
case ${QUICK_NCCL:-} in
*socket)
	nccl "NET/IB : No device found."
	nccl "NET/Socket : Using [0]eth0:10.0.0.1<0>"
	nccl "Using network Socket"
	nccl "Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0" ;;
*ib)
	nccl "NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:10.0.0.1<0>"
	nccl "Using network IB"
	nccl "Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0" ;;
esac
# A GPU event during the run, left where the nvidia-smi and dmesg stand-ins
# (tests/provenance/bin) read the GPUs' state: QUICK_GPU_EVENT, one or more
# of ecc (an uncorrectable ECC error), xid (an XID 79), thermal (HW thermal
# slowdown active), powercap (SW power cap active), FILE=VALUE (VALUE into
# the stand-in's state file FILE, commas as spaces: ecc.gpu1=3, gpus=1,0),
# garble (the node probe's line before training broken by a raw ESC byte,
# as a probe of an older llmb wrote a governor holding one), impostor (a
# probe file of another node, zz-impostor, whose line names this node).
for ev in ${QUICK_GPU_EVENT:-}; do
	[ "${RANK:-0}" = 0 ] || break
	case $ev in
	*=*) v=${ev#*=} && echo "${v//,/ }" >"$NVSMI_STANDIN_STATE/${ev%%=*}" ;;
	garble)
		for f in "$install/state/jobs/$LLMB_STAGE/probe.$LLMB_JOB_ID".*.json; do
			printf '{"node":"%s","status":"ok","cpu_governor":"perf\033[2Jormance"}\n' "$(hostname -s)" >"$f"
		done ;;
	impostor)
		printf '{"node":"%s","status":"failed","why":"impostor"}\n' "$(hostname -s)" \
			>"$install/state/jobs/$LLMB_STAGE/probe.$LLMB_JOB_ID.zz-impostor.json" ;;
	ecc) echo 1 >"$NVSMI_STANDIN_STATE/ecc" ;;
	xid) echo "[ 4242.000001] NVRM: Xid (PCI:0000:18:00): 79, pid=$$, name=python, GPU has fallen off the bus." >>"$NVSMI_STANDIN_STATE/xid" ;;
	thermal) echo 0x0000000000000040 >"$NVSMI_STANDIN_STATE/throttle" ;;
	powercap) echo 0x0000000000000004 >"$NVSMI_STANDIN_STATE/throttle" ;;
	esac
done
for ((i = 0; i < steps; i++)); do
	echo "Training epoch 0, iteration $i/$((steps - 1)) | reduced_train_loss: 2.5 | train_step_timing in s: 0.5 | TFLOPS_per_GPU: 1.0 | consumed_samples: $(((i + 1) * 2))"
done
