#!/usr/bin/env bash
# The README's demo, end to end with the local executor: a real venv, real
# token data, real PyTorch training at scales 1 and 2, parse and report.
# Then tinygpt's GPU configurations on this machine, which has no GPU: the
# local executor refuses them for want of GPUs, and a job that gets past it
# fails naming the missing device; neither leaves a result.
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import torch, venv' 2>/dev/null || t_skip_all "/usr/bin/python3 has no torch or venv (python3-torch, python3-venv)"
I=$TRASH/inst
m() { make -C "$TOP" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR=local WORKLOAD=tinygpt "$@"; }

t_ok "make report WORKLOAD=tinygpt runs every stage" m report
cp "$TRASH/.out" "$TRASH/first.out"
R=$I/workloads/tinygpt/reports/cpu_tiny_fp32.json
t_grep "the report is printed" 'tinygpt cpu tiny fp32' "$TRASH/first.out"
for s in 1 2; do
	res=$I/workloads/tinygpt/experiments/cpu_tiny_fp32_$s/result.json
	t_grep "scale $s: the run succeeded" '"status": "success"' "$res"
	# The loss goes down: mean of the first five steps above the last five.
	t_ok "scale $s: the loss goes down" /usr/bin/python3 -c "
import json, sys
s = json.load(open('$res'))['samples']
a = sum(x['loss'] for x in s[:5]) / 5; b = sum(x['loss'] for x in s[-5:]) / 5
sys.exit(0 if a > b else 1)"
done
t_ok "the report has both scales with tokens/s" /usr/bin/python3 -c "
import json, sys
r = json.load(open('$R'))
txt = json.dumps(r)
sys.exit(0 if '\"tokens_per_s\"' in txt and all(str(s) in txt for s in (1, 2)) else 1)"
t_ok "the training venv sees torch" "$I"/venvs/venv_*/bin/python -c 'import torch'
m report >"$TRASH/second.out" 2>&1
t_nogrep "a second make submits nothing" 'submitted|attached' "$TRASH/second.out"

# ---- GPU configurations without GPUs -------------------------------------------
# nvidia-smi is the stand-in in tests/bin: it lists LLMB_TEST_GPUS GPUs (none by default).
export PATH=$TESTS_DIR/bin:$PATH
E=$I/workloads/tinygpt/experiments
no_result() { test ! -e "$E/h100_355m_bf16_$1/result.json" -a ! -e "$I/workloads/tinygpt/reports/h100_355m_bf16.json"; }
t_rc "GPU_TYPE=h100 on a machine without GPUs: make fails" 2 m report GPU_TYPE=h100 SCALES=1
t_grep "...the local executor says what is missing" \
	'train\.tinygpt\.h100\.355m\.bf16\.1: submission failed: needs 1 GPU \(one per rank\) but this machine has 0 \(nvidia-smi -L\)' "$TRASH/.out"
no_job() { ! compgen -G "$I/state/jobs/train.tinygpt.h100.355m.bf16.1/started.*" && ! compgen -G "$E/h100_355m_bf16_1/log-*"; }
t_ok "...no training job started" no_job
t_ok "...no result, no report" no_result 1
t_rc "8 GPUs asked, 1 listed: make fails" 2 env LLMB_TEST_GPUS=1 make -C "$TOP" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" \
	EXECUTOR=local WORKLOAD=tinygpt report GPU_TYPE=h100 SCALES=8
t_grep "...needs 8 GPUs, this machine has 1" 'submission failed: needs 8 GPUs \(one per rank\) but this machine has 1 ' "$TRASH/.out"
t_ok "...no result, no report" no_result 8
t_rc "CUDA_VISIBLE_DEVICES counts too" 2 env LLMB_TEST_GPUS=2 CUDA_VISIBLE_DEVICES=0 make -C "$TOP" LLMB_GEN="$TRASH/gen" \
	LLMB_INSTALL="$I" EXECUTOR=local WORKLOAD=tinygpt report GPU_TYPE=h100 SCALES=8
t_grep "...it is named in the message" 'but this machine has 1 \(nvidia-smi -L, CUDA_VISIBLE_DEVICES\)' "$TRASH/.out"
# One GPU listed but none usable by PyTorch: the job starts and train.py
# refuses, naming the device; the run is failed, not a CPU result.
if /usr/bin/python3 -c 'import sys, torch; sys.exit(torch.cuda.is_available())'; then
	t_rc "a job past the executor check fails without CUDA" 2 env LLMB_TEST_GPUS=1 make -C "$TOP" LLMB_GEN="$TRASH/gen" \
		LLMB_INSTALL="$I" EXECUTOR=local WORKLOAD=tinygpt report GPU_TYPE=h100 SCALES=1
	cp "$TRASH/.out" "$TRASH/gpu1.out"
	t_grep "...make says the training failed" 'train tinygpt h100 355m bf16 x1 FAILED' "$TRASH/gpu1.out"
	cat "$E"/h100_355m_bf16_1/log-*.out >"$TRASH/gpu1.log" 2>/dev/null
	t_grep "...the job log names the missing device" \
		'error: DeviceError: cuda requested but torch\.cuda\.is_available\(\) is false' "$TRASH/gpu1.log"
	t_nogrep "...no training step ran" '^Training epoch' "$TRASH/gpu1.log"
	t_ok "...no result, no report" no_result 1
fi
t_done
