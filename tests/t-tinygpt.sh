#!/usr/bin/env bash
# t-tinygpt: the tinygpt workload programs themselves: data preparation and
# 50 training steps on 1 rank and on 2 ranks (gloo), checking the NeMo-style
# step lines the llmb parser reads and that the loss goes down.
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

# One rank: no distributed environment at all.
t_ok "train: 1 rank, 50 steps" env -u RANK -u WORLD_SIZE -u SLURM_PROCID -u SLURM_NTASKS \
	timeout 120 "$PY" "$W/train.py" "${ARGS[@]}"
cp "$TRASH/.out" "$TRASH/r1.log"
check_run "1 rank" "$TRASH/r1.log"

# Two ranks started by hand, torchrun style; the port is picked per run so
# parallel test runs on one machine do not collide.
PORT=$((20000 + ($$ % 20000)))
two_ranks() {
	local r pids=() rc=0
	for r in 0 1; do
		RANK=$r WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$PORT \
			timeout 120 "$PY" "$W/train.py" "${ARGS[@]}" >"$TRASH/r2.rank$r.log" 2>&1 &
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

t_done
