#!/usr/bin/env bash
# bench/parse.sh: speed and memory of `llmb parse`.
#  (a) one 1 GiB NeMo log, 50 step lines buried in NCCL-trace-like noise:
#      llmb parse vs grep -c 'train_step_timing in s:'; peak RSS of llmb.
#  (b) 2,000 experiment directories with one 50-step log each: llmb parse on
#      the tree vs a per-file grep | awk pipeline like the upstream script.
# Targets: (a) not slower than grep, peak < 16 MiB; (b) >= 50x faster than
# grep | awk and < 0.5 s. Fails (exit 1) when llmb parse fails or reads
# the logs wrong (status, final iteration, window mean, one row per log).
# Usage:
#   bench/parse.sh [SIZE_MIB (1024)] [NLOGS (2000)]
#   bench/parse.sh --smoke     1 MiB, 20 logs: seconds (tests/t-bench.sh)
set -eu
export LC_ALL=C
if [ "${1:-}" = --smoke ]; then set -- 1 20; fi
TOP=$(cd "$(dirname "$0")/.." && pwd)
LLMB=${LLMB:-$TOP/build/llmb}
SIZE_MIB=${1:-1024}
NLOGS=${2:-2000}
W=$(mktemp -d "${TMPDIR:-/tmp}/llmb-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
fail() { echo "parse.sh: FAILED: $*" >&2; exit 1; }

now() { date +%s.%N; }
# best wall seconds of 5 runs of a command. Output goes to a file: GNU grep
# stops at the first match when its output is /dev/null.
best() {
	local b=999999 s e t
	for _ in 1 2 3 4 5; do
		s=$(now)
		"$@" >"$W/out" 2>&1 || fail "$*"
		e=$(now)
		t=$(echo "$e - $s" | bc -l)
		if [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
	done
	printf '%.3f' "$b"
}
# peak resident set (KiB) of a command
peak_kib() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1
		return
	fi
	"$@" >/dev/null 2>&1 &
	local pid=$! hwm=0 v
	while kill -0 "$pid" 2>/dev/null; do
		v=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
		[ -n "$v" ] && hwm=$v
		sleep 0.01
	done
	wait "$pid" || true
	echo "$hwm"
}

step_line() { # ITER
	printf 'Training epoch 0, iteration %d/49 | lr: 6.897e-06 | global_batch_size: 128 | global_step: %d | max_memory_reserved: 127785762816 | max_memory_allocated: 115792977920 | reduced_train_loss: 11.96 | train_step_timing in s: %s | TFLOPS_per_GPU: %s | consumed_samples: %d\n' \
		"$1" "$1" "2.5$(($1 % 10))" "1.23$(($1 % 10))e+03" "$((($1 + 1) * 128))"
}

# ---- (a) one big log --------------------------------------------------------
echo "(a) generating a ${SIZE_MIB} MiB log..."
awk -v n=$((SIZE_MIB * 1024 * 1024 / 50)) 'BEGIN {
	ops[0] = "AllReduce"; ops[1] = "AllGather"; ops[2] = "ReduceScatter"; ops[3] = "Broadcast"
	while (size < n) {
		i++
		l = sprintf("nid%06d:%d:%d [%d] NCCL INFO %s: opCount %x sendbuff 0x7f3c%08x recvbuff 0x7f3c%08x count %d datatype 7 op 0 root 0 comm 0x55d0c8e3a6b0 [nranks=256] stream 0x55d0c8f0a2c0",
			i % 64, 1000 + i % 8, 2000 + i % 97, i % 8, ops[i % 4], i, i * 4096, i * 8192, (i % 1024) * 1024)
		print l
		size += length(l) + 1
	}
}' >"$W/noise"
for i in $(seq 0 49); do cat "$W/noise"; step_line "$i"; done >"$W/big.out"
rm -f "$W/noise"
cat "$W/big.out" >/dev/null # into the page cache
bytes=$(wc -c <"$W/big.out")
t_llmb=$(best "$LLMB" parse --format=csv "$W/big.out")
t_grep=$(best grep -c 'train_step_timing in s:' "$W/big.out")
kib=$(peak_kib "$LLMB" parse --format=csv "$W/big.out")
row=$("$LLMB" parse --format=csv "$W/big.out" | sed -n 2p | cut -d, -f2-7)
echo "$row"
# the window (steps 35-44) of step times 2.50..2.59: mean 2.545, final step 49
case $row in Success,2.545,*,49) ;; *) fail "llmb parse read the big log as '$row'" ;; esac
[ "$(grep -c 'train_step_timing in s:' "$W/big.out")" = 50 ] || fail "the big log lacks its 50 steps"
printf '(a) %d bytes: llmb %ss, grep -c %ss, llmb/grep %.2f; llmb peak RSS %d KiB (%.1f MiB)\n' \
	"$bytes" "$t_llmb" "$t_grep" "$(echo "$t_llmb / $t_grep" | bc -l)" "$kib" "$(echo "$kib / 1024" | bc -l)"
rm -f "$W/big.out"

# ---- (b) many small logs ----------------------------------------------------
echo "(b) generating $NLOGS experiment directories..."
for i in $(seq 0 49); do step_line "$i"; done >"$W/one.log"
mkdir -p "$W/exp"
for n in $(seq 1 "$NLOGS"); do
	d=$W/exp/pretrain_x_gpus8_mbs1_gbs128/pretrain_x_$n
	mkdir -p "$d"
	cp "$W/one.log" "$d/log-acct.pretrain_x_gpus8_mbs1_gbs128_$n""_0.out"
done
# the upstream approach: one grep | awk per file
upstream() {
	find "$1" -name '*.out' -type f | while read -r f; do
		grep 'train_step_timing in s:' "$f" | awk '
			match($0, /iteration [0-9]+\/49/) {
				split(substr($0, RSTART + 10, RLENGTH - 10), it, "/")
				if (it[1] < 35 || it[1] > 44) next
				if (match($0, /train_step_timing in s: [0-9.]+/)) {
					v = substr($0, RSTART + 24, RLENGTH - 24); s += v; ss += v * v; n++ }
			}
			END { if (n) printf "COMPLETE:%.3f:%.3f\n", s / n, sqrt(ss / n - (s / n) ^ 2) }'
	done
}
export -f upstream
"$LLMB" parse --format=csv "$W/exp" >"$W/tree.csv" || fail "llmb parse of $NLOGS logs"
[ "$(grep -c ',Success,2.545,' "$W/tree.csv")" = "$NLOGS" ] || fail "llmb parse did not read $NLOGS logs as whole runs"
[ "$(upstream "$W/exp" | grep -c '^COMPLETE:2.545:')" = "$NLOGS" ] || fail "the grep | awk yardstick did not read $NLOGS logs"
t_tree=$(best "$LLMB" parse --format=csv "$W/exp")
# shellcheck disable=SC2016 # $1 is for the inner shell
t_up=$(best bash -c 'upstream "$1"' _ "$W/exp")
printf '(b) %d logs: llmb %ss, per-file grep|awk %ss, speed-up %.0fx\n' \
	"$NLOGS" "$t_tree" "$t_up" "$(echo "$t_up / $t_tree" | bc -l)"
