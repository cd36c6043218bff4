#!/usr/bin/env bash
# mklogs.sh DIR: the bad-log corpus. Each log is a 50-step run (iterations
# 0-49, window 35-44 by default) with one thing wrong, made from NeMo 2,
# MaxText or Megatron-Bridge step lines; the expected outcome of each is
# in expect.csv (llmb parse --format=csv over DIR).
set -eu
cd "$1"
# nemo FIRST LAST [awk assignments]: step lines; bad_at=N bad_time=T puts
# step time T at iteration N, bad_tflops=F its TFLOPS; time= every step's time.
nemo() {
	awk -v a="$1" -v b="$2" -v bad_at=-1 -v bad_time= -v bad_tflops= -v time=2.50 -v eol= -v nan_at=-1 "${@:3}" 'BEGIN {
		for (i = a; i <= b; i++) {
			t = i == bad_at && bad_time != "" ? bad_time : time
			f = i == bad_at && bad_tflops != "" ? bad_tflops : "1.23e+03"
			loss = i == nan_at ? "nan" : "11.96"
			printf "Training epoch 0, iteration %d/49 | lr: 6.897e-06 | global_step: %d | reduced_train_loss: %s | train_step_timing in s: %s | TFLOPS_per_GPU: %s | consumed_samples: %d%s\n", i, i, loss, t, f, (i + 1) * 128, eol
		}
	}'
}
nemo 0 49 -v bad_at=40 -v bad_time=0 >step-time-zero.out
nemo 0 49 -v bad_at=40 -v bad_time=-2.5 >step-time-negative.out
nemo 0 49 -v bad_at=40 -v bad_time=1e308 >step-time-huge.out
nemo 0 49 -v bad_at=40 -v bad_time=0.1x >step-time-glued.out
nemo 0 49 -v bad_at=40 -v bad_time=2.5.5 >step-time-two-dots.out
nemo 0 49 -v bad_at=10 -v bad_time=-1 >step-time-negative-outside-window.out
nemo 0 49 -v bad_at=40 -v bad_tflops=-1230 >tflops-negative.out
nemo 0 49 -v bad_at=40 -v bad_tflops=1230abc >tflops-glued.out
nemo 0 49 -v bad_at=40 -v bad_tflops=1e300 >tflops-huge.out
# The job restarted into the same log: the first attempt is slower, so a
# mean over both attempts would not be 2.500.
{ nemo 0 39 -v time=9.00; nemo 0 49; } >restart-then-complete.out
{ nemo 0 49; nemo 0 20 -v time=9.00; } >restart-then-incomplete.out
{ nemo 0 30 -v nan_at=30; nemo 0 49; } >restart-after-nan.out
{ nemo 0 20 -v time=7.00; nemo 0 25 -v time=8.00; nemo 0 49; } >restart-twice.out
# Ranks that each print every line (one after the other, or interleaved)
# are copies, not restarts: the values repeat.
{ nemo 0 49; nemo 0 49; } >ranks-in-sequence.out
nemo 0 49 | awk '{ print; print }' >ranks-interleaved.out
{ nemo 0 39 -v time=9.00; nemo 30 49; } >resume-from-checkpoint.out
nemo 0 49 -v eol=$'\r' >crlf-line-ends.out
nemo 0 49 >clean.out
awk 'BEGIN { for (i = 0; i <= 49; i++) printf "completed step: %d, seconds: %s, TFLOP/s/device: 460.1, Tokens/s/device: 1035.970, loss: 0.000\n", i, i == 40 ? "-7.9" : "7.9" }' >maxtext-negative-seconds.out
awk 'BEGIN { for (i = 1; i <= 50; i++) printf " [2025-12-22 15:18:33] iteration %8d/%8d | elapsed time per iteration (ms): %s | lm loss: 8.1E+00 | grad norm: 0.04 |\n", i, 50, i == 40 ? "0.0" : "9100.0" }' >mbridge-zero-ms.out
