#!/usr/bin/env bash
# t-parse: `llmb parse` on generated and catalogue logs; every output format
# and the --result file are compared with golden files in tests/parse/expect.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
export LC_ALL=C
G=$TESTS_DIR/parse/expect
cd "$TRASH" || exit 1

# nemo FILE FIRST LAST DEN [awk assignments]: NeMo 2 step lines (FILE - is
# stdout, appending to what the caller redirects), times
# cycling 2.51/2.49/2.50/2.52/2.48 and TFLOPS 1.231e+03/1.229e+03/1.23e+03
# (the upstream verification run). Knobs: prefix= ranks= (copies of each
# line, as printed by several ranks), old=1 (25.04 fields, no TFLOPS),
# nan_at= zero_at=, tail= (a last line).
nemo() {
	local f=$1
	shift
	if [ "$f" = - ]; then nemo_out "$@"; else nemo_out "$@" >"$f"; fi
}
nemo_out() {
	local a=$1 b=$2 d=$3
	shift 3
	awk -v a="$a" -v b="$b" -v d="$d" -v ranks=1 -v prefix= -v old=0 -v nan_at=-1 \
		-v zero_at=-1 -v tail= "$@" 'BEGIN {
		split("2.51 2.49 2.50 2.52 2.48", t, " ")
		split("1.231e+03 1.229e+03 1.23e+03", f, " ")
		for (i = a; i <= b; i++) for (r = 0; r < ranks; r++) {
			p = prefix; gsub(/R/, r, p)
			loss = i == nan_at ? "nan" : "11.96"
			tf = i == zero_at ? "0" : f[i % 3 + 1]
			if (old)
				printf "%sTraining epoch 0, iteration %d/%d | lr: 4.491e-06 | global_batch_size: 256 | global_step: %d | peak_memory_usage: 72972500992 | memory_allocated: 34466545664 | reduced_train_loss: %s | train_step_timing in s: %s | consumed_samples: %d\n", p, i, d, i, loss, t[i % 5 + 1], (i + 1) * 256
			else
				printf "%sTraining epoch 0, iteration %d/%d | lr: 6.897e-06 | global_batch_size: 128 | global_step: %d | max_memory_reserved: 127785762816 | max_memory_allocated: 115792977920 | reduced_train_loss: %s | train_step_timing in s: %s | TFLOPS_per_GPU: %s | consumed_samples: %d\n", p, i, d, i, loss, t[i % 5 + 1], tf, (i + 1) * 128
		}
		if (tail != "") print tail
	}'
}

# mbridge FILE LAST DEN [awk assignments]: Megatron-Bridge two-line steps
# 1..LAST. Knobs: glue=1 (both on one line), spelling=, nan_at=.
mbridge() {
	local f=$1 b=$2 d=$3
	shift 3
	awk -v b="$b" -v d="$d" -v glue=0 -v spelling=MODEL_TFLOP/s/GPU -v nan_at=-1 "$@" 'BEGIN {
		split("9.09 9.11 9.10", t, " ")
		split("663.5 661.2 662.4", f, " ")
		for (i = 1; i <= b; i++) {
			ms = t[i % 3 + 1] * 1000
			printf "Step Time : %ss GPU utilization: %s%s%s", t[i % 3 + 1], f[i % 3 + 1], spelling, glue ? " " : "\n"
			printf " [2025-12-22 15:18:33] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: 3.000000E-05 | global batch size:   512 | lm loss: 8.114214E+00 | loss scale: 1.0 | grad norm: %s | number of skipped iterations:   0 | number of nan iterations:   0 |\n", i, d, i * 512, ms, i == nan_at ? "nan" : "0.042"
		}
		print "[after training is done] datetime: 2025-12-19 10:49:16"
	}' >"$f"
}

maxtext() {
	awk -v b="$2" 'BEGIN {
		for (i = 0; i <= b; i++)
			printf "completed step: %d, seconds: %.3f, TFLOP/s/device: %.3f, Tokens/s/device: 1035.970, total_weights: 524288, loss: 0.000\n", i, 7.9 + (i % 4) * 0.004, 460 + (i % 4) * 0.25
	}' >"$1"
}

# Deterministic bytes 0..255, NULs included.
garbage() {
	awk -v n="$1" -v seed="$2" 'BEGIN {
		x = seed
		for (i = 0; i < n; i++) { x = (x * 69069 + 1) % 4294967296; printf "%c", int(x / 16777216) }
	}'
}

TL='slurmstepd: error: *** STEP 602263.2 ON prenyx0025 CANCELLED AT 2025-06-25T05:58:06 DUE TO TIME LIMIT ***'

# ---- the experiments tree -------------------------------------------------
mkdir -p exp/a exp/b/deep exp/c exp/empty exp/x.out
E=exp/a/log-acct.pretrain_nemotron4_15b_bf16_gpus16_tp1_pp1_cp1_vp1_mbs2_gbs64
nemo "${E}_1001_0.out" 0 49 49                               # upstream success
nemo "${E}_1002_0.out" 0 40 49 -v tail='Traceback (most recent call last):'
nemo "${E}_1003_0.out" 0 5 49                                # stopped early
nemo "${E}_1004_0.out" 0 99 99                               # max_steps=100
nemo "${E}_1005_0.out" 0 49 49 -v old=1                      # no TFLOPS
nemo "${E}_1006_1.out" 0 49 49 -v ranks=4 -v prefix='R: '    # duplicate ranks
nemo exp/a/log-acct.nan_1007_0.out 0 49 49 -v nan_at=37
nemo exp/a/log-acct.zero_tflops_1008_0.out 0 49 49 -v zero_at=40
nemo exp/a/log-acct.time_limit_1009_0.out 0 49 49 -v tail="$TL"
nemo exp/a/log-acct.time_limit_early_1010_0.out 0 30 49 -v tail="$TL"
nemo exp/a/log-acct.prefix_1011_0.out 0 49 49 -v prefix='mbs_128gbs/0 '
printf 'model config loaded\nexperiment started\nTraceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: CUDA out of memory.\n' \
	>exp/a/log-acct.early_fail_1012_0.out
# generic error words are found in a second pass, before later specific ones
printf 'model ready\nValueError: bad config key\nTraceback (most recent call last):\n' \
	>exp/a/log-acct.generic_error_1013_0.out
printf 'srun: error: nid001: task 3: Exited with exit code 1\n' >exp/a/log-acct.srun_error_1014_0.out
mbridge exp/b/log-mbridge_2001_0.out 50 50
mbridge exp/b/log-mbridge_glued_2002_0.out 50 50 -v glue=1 -v spelling=TFLOP/s/GPU
mbridge exp/b/log-mbridge_nan_2003_0.out 50 50 -v nan_at=36
maxtext exp/b/deep/log-maxtext_llama2_70b_64_3001.out 49
cp "$TESTS_DIR"/parse/logs/*.out exp/c/
# MaxText lines behind a logger prefix and a launcher prefix
sed 's/^/I0412 12:00:00.123456 140 train.py:500] /; $s/^I[^]]*] /0: /' \
	"$TESTS_DIR"/parse/logs/maxtext-last.out >exp/c/maxtext-prefixed_4006.out
# binary garbage with NULs around a complete run
{ garbage 20000 7; echo; nemo - 0 49 49; garbage 20000 11; } >exp/c/garbage_4001_0.out
# a 1 MB line holding a step-like field, inside a complete run
{ nemo - 0 20 49
  awk 'BEGIN { s = "x"; while (length(s) < 1000000) s = s s; printf "%s train_step_timing in s: 99.0\n", s }'
  nemo - 21 49 49; } >exp/c/long_line_4002_0.out
# truncated in the middle of the last line
nemo exp/c/truncated.tmp 0 49 49
head -c -120 exp/c/truncated.tmp >exp/c/truncated_4003_0.out && rm exp/c/truncated.tmp
# ... and right after the step-time key
{ nemo - 0 48 49; printf 'Training epoch 0, iteration 49/49 | reduced_train_loss: 11.96 | train_step_timing in s: '; } \
	>exp/c/truncated_value_4007_0.out
ln -s nowhere exp/c/dangling_4004_0.out
mkfifo exp/c/fifo_4005_0.out
# skipped by name
cp "${E}_1001_0.out" exp/a/log-acct.nccltrace_1001_0.out
cp "${E}_1001_0.out" exp/a/sbatch_acct.pretrain_1001.out
cp "${E}_1001_0.out" exp/a/vboost_1001.out
printf 'not a log\n' >exp/a/notes.txt

# ---- listings ---------------------------------------------------------------
for f in table csv json; do
	rc=0
	"$LLMB" parse --format=$f exp >out.$f 2>err.$f || rc=$?
	echo "exit $rc" >>err.$f
	t_cmp "tree as $f" "$G/tree.$f" out.$f
	t_cmp "tree as $f: stderr and exit" "$G/tree.$f.err" err.$f
done
t_ok "tree json is valid" python3 -m json.tool out.json
t_ok "csv rows all have 10 fields" awk -F, '!/^#/ && !/"/ && NF != 10 { exit 1 }' out.csv
t_nogrep "no - in json" '": -' out.json

"$LLMB" parse --std=population --window=11-44 --full-names exp/a >out.pop 2>/dev/null
t_cmp "population std, window 11-44, full names" "$G/a-pop-11-44.table" out.pop

# ---- one log: --result ------------------------------------------------------
result() { # NAME ARGS... : golden result file and csv row of one log
	local n=$1 rc=0
	shift
	"$LLMB" parse --format=csv --result="res/$n.json" "$@" >"res/$n.csv" 2>&1 || rc=$?
	echo "exit $rc" >>"res/$n.csv"
	t_cmp "result $n" "$G/result/$n.json" "res/$n.json"
	t_cmp "result $n: csv" "$G/result/$n.csv" "res/$n.csv"
}
mkdir -p res
result success "${E}_1001_0.out"
result incomplete "${E}_1002_0.out"
result invalid exp/a/log-acct.nan_1007_0.out
result time-limit exp/a/log-acct.time_limit_1009_0.out
result mbridge exp/b/log-mbridge_2001_0.out
result mbridge-ckpt --window=1-1 exp/c/mbridge-ckpt.out
result nemo-ckpt --window=0-0 exp/c/nemo-ckpt-load.out
result maxtext-last --window=49-49 exp/c/maxtext-last.out
result maxtext-steps --steps=50 exp/b/deep
result failed exp/c/nccl-watchdog.out
result generic-error exp/a/log-acct.generic_error_1013_0.out
result duplicates "${E}_1006_1.out"
result unreadable exp/c/dangling_4004_0.out
result maxtext-prefixed --window=48-49 exp/c/maxtext-prefixed_4006.out
result profiled --profiled "${E}_1004_0.out"
result forced-format --log-format=maxtext "${E}_1001_0.out"
result one-indexed --indexing=one --steps=49 "${E}_1001_0.out"

# ---- Megatron-Bridge at the 26.06 pins ----------------------------------------
# DeepSeek V3 671b on 256 GPUs, GBS 2048, in the line format of
# Megatron-Bridge 06f25c2 (training/utils/train_utils.py): rank 0 prints
# "Step Time", the last pipeline stage the iteration line, and from
# iteration 20 on they reach the log the other way round. Each iteration
# gets its own TFLOPS, window 35-44 as upstream's parser, and each is
# Megatron-Bridge's count per GPU: llmb flops deepseek-v3 671b --tp 2
# (1065382097977344 per sample) * 2048 / step time / 256.
MB=$TESTS_DIR/parse/mbridge/deepseek-v3-671b-gb300-256-pp.out
t_ok "mbridge 26.06: parses" "$LLMB" parse --format=json --result=mb2606.json "$MB"
"$LLMB" flops deepseek-v3 671b --tp 2 --top "$TOP" >mbflops.out 2>&1
t_ok "mbridge 26.06: window 35-44, each step its own TFLOPS, llmb's count" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
flops = float([l.split()[2] for l in open(sys.argv[2]) if l.startswith("total")][0])
assert r["status"] == "success" and r["format"] == "mbridge", r["status"]
assert (r["window"]["first"], r["window"]["last"], r["window"]["present"]) == (35, 44, 10), r["window"]
assert len(r["samples"]) == 50, len(r["samples"])
for s in r["samples"]:
    want = flops * 2048 / s["step_time"] / 256 / 1e12
    assert abs(s["tflops_per_gpu"] - want) <= 0.06, (s, want)
win = [s for s in r["samples"] if 35 <= s["iteration"] <= 44]
mean = sum(s["tflops_per_gpu"] for s in win) / 10
assert abs(r["tflops_per_gpu"]["mean"] - mean) < 1e-9, (r["tflops_per_gpu"], mean)
assert abs(r["step_time"]["mean"] - sum(s["step_time"] for s in win) / 10) < 1e-9
' mb2606.json mbflops.out

# A profiled run's result lists the profiles of its folder (nsys reports,
# PyTorch traces), in byte order, not another run's folder below it; an
# unprofiled run's lists none.
mkdir -p prof/run/nsys_profile prof/run/tb/torch_profile prof/run/repeat-2/nsys_profile
cp "$MB" prof/run/log-x.out
printf 'rep' >prof/run/nsys_profile/profile_9_77_node0_rank1.nsys-rep
printf 'report' >prof/run/nsys_profile/profile_8_77_node0_rank0.nsys-rep
printf '{}' >prof/run/tb/torch_profile/rank0.pt.trace.json
: >prof/run/repeat-2/train.done
: >prof/run/repeat-2/nsys_profile/profile_1_1_node0_rank0.nsys-rep
t_ok "a profiled run's result" "$LLMB" parse --profiled --format=json --result=prof/run/result.json prof/run/log-x.out
t_ok "...lists its profiles with their sizes, in byte order, not the repeat's" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "profiled", r["status"]
assert r["profiles"] == [{"path": "nsys_profile/profile_8_77_node0_rank0.nsys-rep", "bytes": 6},
                         {"path": "nsys_profile/profile_9_77_node0_rank1.nsys-rep", "bytes": 3},
                         {"path": "tb/torch_profile/rank0.pt.trace.json", "bytes": 2}], r["profiles"]' prof/run/result.json
t_ok "an unprofiled run's result" "$LLMB" parse --format=json --result=prof/run/result.json prof/run/log-x.out
t_nogrep "...lists none" '"profiles"' prof/run/result.json

# ---- usage and edge cases ---------------------------------------------------
t_rc "empty directory: exit 1" 1 "$LLMB" parse exp/empty
"$LLMB" parse --format=json exp/empty >empty.json 2>/dev/null
t_cmp "empty directory as json" "$G/empty.json" empty.json
t_rc "missing directory: exit 2" 2 "$LLMB" parse no-such-dir
t_rc "bad format: exit 2" 2 "$LLMB" parse --format=xml exp
t_rc "bad window: exit 2" 2 "$LLMB" parse --window=44-35 exp
t_rc "unknown option: exit 2" 2 "$LLMB" parse --frobnicate exp
t_rc "--result with several logs: exit 2" 2 "$LLMB" parse --result=x.json exp/a
t_rc "no success: exit 1" 1 "$LLMB" parse exp/c/nccl-watchdog.out
"$LLMB" parse --help >help.txt
t_cmp "help lists the skip rules" "$G/help.txt" help.txt

t_done
