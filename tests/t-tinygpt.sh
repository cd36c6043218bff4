#!/usr/bin/env bash
# t-tinygpt: the tinygpt workload programs themselves: data preparation and
# 50 training steps on 1 rank and on 2 ranks (gloo), checking the NeMo-style
# step lines the llmb parser reads and that the loss goes down; the device
# selection and refusals of the GPU path (this machine has no GPU: CUDA
# itself is not run here), and a bf16 autocast run on CPU.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
W=$TOP/workloads/tinygpt
if ! "$PY" -c 'import torch' >/dev/null 2>&1; then t_skip_all "$PY cannot import torch"; fi

# Model FLOPs per sample for the defaults (seq 128, layers 2, hidden 128, vocab 256):
# 72*s*L*h^2 + 12*s^2*L*h + 6*s*h*V
S=128 L=2 H=128 V=256
FLOPS=$((72 * S * L * H * H + 12 * S * S * L * H + 6 * S * H * V))
DATA=$TRASH/tokens.bin

t_ok "prepare_data builds the token file" "$PY" "$W/prepare_data.py" --out "$DATA"
t_grep "prepare_data prints a summary" '^prepare_data: wrote .* tokens' "$TRASH/.out"
t_ok "sidecar is valid JSON with tokens, sha256, sources" "$PY" -c '
import hashlib, json, sys
m = json.load(open(sys.argv[1] + ".json"))
d = open(sys.argv[1], "rb").read()
assert m["tokens"] == len(d) > 65536, m["tokens"]
assert m["sha256"] == hashlib.sha256(d).hexdigest()
assert m["sources"] and m["sources"] == sorted(m["sources"])
' "$DATA"
t_ok "no temporary file left behind" test ! -e "$DATA.tmp" -a ! -e "$DATA.json.tmp"
t_rc "prepare_data refuses too little text" 1 "$PY" "$W/prepare_data.py" --out "$TRASH/small.bin" --min-bytes 999999999
t_grep "too little text: clear message" 'need at least' "$TRASH/.out"
t_rc "train rejects gbs not divisible by world*mbs" 1 "$PY" "$W/train.py" --data "$DATA" --model-flops "$FLOPS" --gbs 6
t_grep "divisibility: clear message" 'not divisible by world_size\*mbs' "$TRASH/.out"

# check_run NAME LOG: 50 well-formed step lines 0..49/49 and a falling loss.
check_run() {
	local n=$1 log=$2 num='[0-9.]+(e[-+][0-9]+)?'
	t_grep "$n: header with parameter count" '^llmb-tinygpt: config .*params=[0-9]+' "$log"
	grep '^Training epoch' "$log" >"$log.steps"
	t_ok "$n: 50 step lines, iterations 0..49/49 in order" awk -v want=50 '
		$5 != NR - 1 "/49" { bad = 1 } END { exit bad || NR != want }' FS='[ |]+' "$log.steps"
	t_ok "$n: every step line has all fields" awk '
		!/^Training epoch 0, iteration [0-9]+\/49 \| lr: '"$num"' \| global_batch_size: 8 \| global_step: [0-9]+ \| reduced_train_loss: '"$num"' \| train_step_timing in s: '"$num"' \| TFLOPS_per_GPU: '"$num"' \| consumed_samples: [0-9]+$/ { exit 1 }
		' "$log.steps"
	t_ok "$n: consumed_samples = (step+1)*8" awk -F' [|] ' '
		{ split($4, g, ": "); split($8, c, ": "); if (c[2] != (g[2] + 1) * 8) exit 1 }' "$log.steps"
	t_ok "$n: loss goes down (mean of first 5 > mean of last 5)" awk -F' [|] ' '
		{ split($5, a, ": "); l[NR] = a[2] }
		END { for (i = 1; i <= 5; i++) { f += l[i]; t += l[NR - 5 + i] }
		      printf "first5 %.4f last5 %.4f\n", f / 5, t / 5; exit !(NR >= 10 && t < f) }' "$log.steps"
	t_grep "$n: done line" '^llmb-tinygpt: done, loss [0-9.]+ -> [0-9.]+$' "$log"
}

ARGS=(--data "$DATA" --steps 50 --seq "$S" --layers "$L" --hidden "$H" --heads 4 --vocab "$V"
	--mbs 4 --gbs 8 --lr 3e-3 --seed 1234 --model-flops "$FLOPS")

# One rank: no distributed environment at all. The time limits are for a
# hang: a loaded machine (test files side by side) makes the steps slow.
t_ok "train: 1 rank, 50 steps" env -u RANK -u WORLD_SIZE -u SLURM_PROCID -u SLURM_NTASKS \
	timeout 600 "$PY" "$W/train.py" "${ARGS[@]}"
cp "$TRASH/.out" "$TRASH/r1.log"
check_run "1 rank" "$TRASH/r1.log"

# Two ranks started by hand, torchrun style; the port is picked per run so
# parallel test runs on one machine do not collide (the first one from the
# pid's that nothing listens on: a test cluster's daemons may hold it).
PORT=$((20000 + ($$ % 20000)))
while (: <>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do PORT=$((PORT + 1)); done
two_ranks() {
	local r pids=() rc=0
	for r in 0 1; do
		RANK=$r WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$PORT \
			timeout 600 "$PY" "$W/train.py" "${ARGS[@]}" >"$TRASH/r2.rank$r.log" 2>&1 &
		pids+=($!)
	done
	for r in "${pids[@]}"; do wait "$r" || rc=1; done
	cat "$TRASH/r2.rank1.log" >&2
	return $rc
}
t_ok "train: 2 ranks (gloo), 50 steps" two_ranks
check_run "2 ranks" "$TRASH/r2.rank0.log"
t_grep "2 ranks: header says world_size=2" 'world_size=2 ' "$TRASH/r2.rank0.log"
t_nogrep "2 ranks: only rank 0 prints step lines" '^Training epoch' "$TRASH/r2.rank1.log"

# ---- the GPU path: device selection and refusals ---------------------------------
# cuda_problem decides whether --device cuda can run; it is pure, so every
# case is checked here without a GPU.
t_ok "cuda_problem: every case" env PYTHONPATH="$W" "$PY" -c '
import train as t
def want(args, text):
    got = t.cuda_problem(*args)
    assert (got is None) if text is None else (got is not None and text in got), (args, got)
want((False, 0, 1, 0, "2.4.0", None), "cuda requested but torch.cuda.is_available() is false: this PyTorch 2.4.0 is built without CUDA")
want((False, 0, 1, 0, "2.4.0", "12.4"), "PyTorch 2.4.0 with CUDA 12.4 sees no GPU")
want((True, 1, 8, 0, "2.4.0", "12.4"), "needs 8 GPUs (one per rank on this node), found 1")
want((True, 8, 8, 8, "2.4.0", "12.4"), "local rank 8 has no GPU: found 8")
want((True, 8, 8, 7, "2.4.0", "12.4"), None)
want((True, 1, 1, 0, "2.4.0", "12.4"), None)
'
# torch.compile's caches: fresh for every run unless the caller named
# Inductor's or asked for the machine's (a warm cache stepped 4% slower on
# an H200); checked without a GPU, and without --compile nothing is made.
t_ok "fresh_compile_cache: every case" env PYTHONPATH="$W" "$PY" -c '
import train as t
base = ["--data", "x", "--model-flops", "1"]
made = lambda prefix: "/fresh/" + prefix
env = {}
assert t.fresh_compile_cache(t.parse_args(base + ["--compile"]), env, made) == "/fresh/llmb-tinygpt-compile-"
assert env == {"TORCHINDUCTOR_CACHE_DIR": "/fresh/llmb-tinygpt-compile-", "TRITON_CACHE_DIR": "/fresh/llmb-tinygpt-compile-/triton"}, env
env = {"TRITON_CACHE_DIR": "/mine"}
t.fresh_compile_cache(t.parse_args(base + ["--compile"]), env, made)
assert env["TRITON_CACHE_DIR"] == "/mine", env
for argv, env in ((base, {}), (base + ["--compile", "--compile-cache", "shared"], {}),
                  (base + ["--compile"], {"TORCHINDUCTOR_CACHE_DIR": "/mine"})):
    before = dict(env)
    assert t.fresh_compile_cache(t.parse_args(argv), env, made) is None and env == before, (argv, env)
'
t_rc "--compile-cache with an unknown value: exit 2" 2 "$PY" "$W/train.py" "${ARGS[@]}" --compile-cache warm
# A run killed at its time limit (SIGTERM, once the fresh cache is made)
# removes that cache too: exit 143, nothing left in its TMPDIR.
sigterm_cache() {
	local tmp=$TRASH/cache-tmp pid i
	rm -rf "$tmp" && mkdir -p "$tmp"
	TMPDIR=$tmp "$PY" "$W/train.py" "${ARGS[@]}" --compile >"$TRASH/term.log" 2>&1 &
	pid=$!
	for i in $(seq 300); do
		grep -q 'torch.compile caches: a fresh directory' "$TRASH/term.log" && break
		sleep 0.1
	done
	ls -d "$tmp"/llmb-tinygpt-compile-* >/dev/null || { kill "$pid"; return 1; }
	kill -TERM "$pid"
	wait "$pid"
	i=$?
	cat "$TRASH/term.log"
	[ "$i" = 143 ] && [ -z "$(ls -A "$tmp")" ]
}
t_ok "--compile: the fresh cache is made, and removed on SIGTERM (exit 143)" sigterm_cache
# The local rank picks the GPU: LOCAL_RANK from llmb's launcher, SLURM_LOCALID under srun.
t_ok "dist_env: local rank from LOCAL_RANK and from SLURM_LOCALID" env PYTHONPATH="$W" "$PY" -c '
import os, train as t
for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"):
    os.environ.pop(k, None)
os.environ.update(RANK="5", WORLD_SIZE="8", LOCAL_RANK="5", MASTER_PORT="29500")
r = t.dist_env(); assert r[0] == 5 and r[1] == 8 and r[4] == 8 and r[5] == 5, r
for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK"):
    del os.environ[k]
os.environ.update(SLURM_PROCID="11", SLURM_NTASKS="16", SLURM_NTASKS_PER_NODE="8", SLURM_LOCALID="3")
r = t.dist_env(); assert r[0] == 11 and r[1] == 16 and r[4] == 8 and r[5] == 3, r
'
# The script counts its own model FLOPs like the recipe formula (72 s L h^2 +
# 12 s^2 L h + 6 s h V), and says so when --model-flops disagrees.
t_ok "megatron_flops: the tiny model's count" env PYTHONPATH="$W" "$PY" -c "
import argparse, train as t
a = argparse.Namespace(seq=$S, layers=$L, hidden=$H, vocab=$V)
assert t.megatron_flops(a) == $FLOPS, t.megatron_flops(a)"
t_ok "train: wrong --model-flops still runs" "$PY" "$W/train.py" "${ARGS[@]/#$FLOPS/1e9}" --steps 1
t_grep "wrong --model-flops: a warning names both counts" 'warning: --model-flops 1e\+09 is not this model.s count 3\.77487e\+08' "$TRASH/.out"

if "$PY" -c 'import sys, torch; sys.exit(torch.cuda.is_available())'; then
	t_rc "train --device cuda without a GPU exits 1" 1 "$PY" "$W/train.py" "${ARGS[@]}" --device cuda --dtype bf16
	t_grep "--device cuda: the message names the missing device" \
		'llmb-tinygpt rank 0: error: DeviceError: cuda requested but torch\.cuda\.is_available\(\) is false' "$TRASH/.out"
	t_nogrep "--device cuda: no step ran on the CPU instead" '^Training epoch' "$TRASH/.out"
	t_rc "2 ranks of --device cuda: each exits 1" 1 env RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_PORT="$PORT" \
		"$PY" "$W/train.py" "${ARGS[@]}" --device cuda
	t_grep "2 ranks of --device cuda: rank 1 names the device too" 'rank 1: error: DeviceError: cuda requested' "$TRASH/.out"
else
	echo "# this machine has a GPU: the no-GPU refusal is covered by cuda_problem above"
fi
if "$PY" -c 'import sys, torch; sys.exit(hasattr(torch, "compile"))'; then
	t_rc "--compile on PyTorch < 2.0 exits 1" 1 "$PY" "$W/train.py" "${ARGS[@]}" --compile
	t_grep "--compile: the message says what is missing" 'error: RuntimeError: --compile needs torch\.compile \(PyTorch >= 2\.0\)' "$TRASH/.out"
fi
# SDPA must compute what the explicit masked softmax computes (PyTorch >= 2.0 only).
if "$PY" -c 'import sys, torch.nn.functional as F; sys.exit(not hasattr(F, "scaled_dot_product_attention"))'; then
	t_ok "sdpa and explicit attention give the same loss" env PYTHONPATH="$W" "$PY" -c '
import argparse, torch, train as t
a = argparse.Namespace(seq=64, layers=2, hidden=64, heads=4, vocab=256)
torch.manual_seed(1); m1 = t.build_model(a, sdpa=False)
torch.manual_seed(1); m2 = t.build_model(a, sdpa=True)
x = torch.randint(0, 256, (2, 65))
l1, l2 = m1(x[:, :-1], x[:, 1:]), m2(x[:, :-1], x[:, 1:])
assert torch.allclose(l1, l2, atol=1e-5), (float(l1), float(l2))'
else
	echo "# PyTorch $("$PY" -c 'import torch; print(torch.__version__)') has no scaled_dot_product_attention: sdpa not compared"
fi

# bf16 autocast on CPU: the same program, well-formed steps, a falling loss;
# a smaller model on one thread keeps it cheap.
BF=(--data "$DATA" --steps 50 --seq 64 --layers 2 --hidden 64 --heads 4 --vocab "$V" --mbs 4 --gbs 8
	--model-flops $((72 * 64 * 2 * 64 * 64 + 12 * 64 * 64 * 2 * 64 + 6 * 64 * 64 * V)) --threads 1)
t_ok "train: --device cpu --dtype bf16, 50 steps" env -u RANK -u WORLD_SIZE -u SLURM_PROCID -u SLURM_NTASKS \
	timeout 600 "$PY" "$W/train.py" "${BF[@]}" --device cpu --dtype bf16
t_nogrep "bf16 on CPU: the FLOPs given are the model's" 'warning' "$TRASH/.out"
cp "$TRASH/.out" "$TRASH/bf16.log"
check_run "bf16 on CPU" "$TRASH/bf16.log"
t_grep "bf16 on CPU: the header says device=cpu dtype=bf16" ' device=cpu dtype=bf16 attention=explicit ' "$TRASH/bf16.log"
t_grep "fp32 (the demo): the header says device=cpu dtype=fp32" ' device=cpu dtype=fp32 ' "$TRASH/r1.log"

t_done
