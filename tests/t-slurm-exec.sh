#!/usr/bin/env bash
# t-slurm-exec: the Slurm executor (generator/exec/slurm.c, slurmcmd.c,
# slurmqueue.c) against a real cluster, through tests/slurm/exec-driver.c:
# sbatch argv and ADDITIONAL_SLURM_PARAMS checks, submit/query/cancel, and
# one squeue per poll interval for 20 processes waiting at once.
# LLMB_TEST_SLURM_STATE=DIR reuses a running cluster from tests/slurm/up.sh.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
DRV=$TRASH/exec-driver
if ! "$TESTS_DIR/slurm/build-driver.sh" "$DRV" >"$TRASH/build.log" 2>&1; then
	t_fail "build the executor test driver"
	sed 's/^/# /' "$TRASH/build.log"
	t_done
	exit 1
fi
unset SBATCH_ACCOUNT SBATCH_PARTITION LLMB_CPU_PARTITION

# ---- no cluster needed: command lines and parameter checks ---------------------
"$DRV" argv 'my job' /s/run.sh "/l/o g.log" /w nodes=2 tasks=8 gpus=8 exclusive \
	time=00:10:00 dep=afterok:12:13 "extra=mem=0;comment=it's x" >"$TRASH/argv" 2>&1
cat >"$TRASH/argv.want" <<'EOS'
sbatch --parsable -J 'my job' -o '/l/o g.log' -e '/l/o g.log' --chdir /w -N 2 --ntasks-per-node 8 --gpus-per-node 8 --exclusive --time 00:10:00 --dependency afterok:12:13 --export=ALL --mem=0 '--comment=it'\''s x' /s/run.sh
EOS
t_cmp "sbatch argv, shell-quoted for the plan" "$TRASH/argv.want" "$TRASH/argv"
SBATCH_ACCOUNT=acct SBATCH_PARTITION=gpu LLMB_CPU_PARTITION=small "$DRV" argv j s l w cpu >"$TRASH/argv2"
t_grep "account and CPU partition come from the environment" " -A acct -p small --export=ALL s$" "$TRASH/argv2"
SBATCH_PARTITION=gpu "$DRV" argv j s l w >"$TRASH/argv3"
t_grep "SBATCH_PARTITION for GPU jobs" " -p gpu --export=ALL s$" "$TRASH/argv3"
"$DRV" params 'mem=0 gres=gpu:8  reservation=r' >"$TRASH/p1"
printf -- '--mem=0\n--gres=gpu:8\n--reservation=r\n' >"$TRASH/p1.want"
t_cmp "params without ';' split on white space" "$TRASH/p1.want" "$TRASH/p1"
"$DRV" params ' nodelist=a b ; requeue;;mail-type=END ' >"$TRASH/p2"
printf -- '--nodelist=a b\n--requeue\n--mail-type=END\n' >"$TRASH/p2.want"
t_cmp "params with ';' keep spaces inside values" "$TRASH/p2.want" "$TRASH/p2"
t_rc "reserved key 'time' is refused" 1 "$DRV" params 'mem=0;time=10'
t_grep "with a clear message" "'time' is set by llmb itself" "$TRASH/.out"
t_rc "an abbreviation of a reserved option is refused" 1 "$DRV" params 'part=x'
t_grep "naming the option" "abbreviates sbatch's '--partition'" "$TRASH/.out"
t_rc "'wrap' is refused" 1 "$DRV" params wrap=ls
t_rc "upper-case keys are refused" 1 "$DRV" params 'Mem=1'
t_rc "dashes are refused" 1 "$DRV" params '--mem=1'
t_rc "control characters are refused" 1 "$DRV" params "comment=$(printf 'a\033b');x=1"
t_rc "empty values are refused" 1 "$DRV" params 'mem='
t_ok "exact options that prefix reserved ones pass (gpus, ntasks)" "$DRV" params 'gpus=8 ntasks=2'
t_rc "'%x' in a log path is refused" 1 "$DRV" argv j s 'log%x' w
t_ok "'%j' (the job id) in a log path is the contract" "$DRV" argv j s 'log-%j.out' w
# Stand-ins (no cluster): an sbatch whose controller always times out, a
# squeue and sacct that know no job of its name, a squeue that reports
# elapsed times no job can have.
SB=$TRASH/standin
mkdir -p "$SB/bin" "$SB/w"
printf '#!/bin/sh\n[ "$1" = --help ] && exit 0\necho x >>"%s/sbatch.calls"\necho "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation" >&2\nexit 1\n' \
	"$SB" >"$SB/bin/sbatch"
printf '#!/bin/sh\n[ -z "$SQ_ELAPSED" ] && exit 0\nfor e in $SQ_ELAPSED; do echo "${e%%%%=*}|COMPLETED|0|${e#*=}|0|N/A|None"; done\n' >"$SB/bin/squeue"
printf '#!/bin/sh\n[ -n "$SA_ROWS" ] && printf "%%s\\n" $SA_ROWS\nexit 0\n' >"$SB/bin/sacct"
printf '#!/bin/sh\nexit 1\n' >"$SB/bin/scontrol"
chmod +x "$SB"/bin/*
rc=0
PATH=$SB/bin:$PATH SQ_ELAPSED= LLMB_SUBMIT_RATE=0 LLMB_SUBMIT_RETRIES=8 LLMB_SUBMIT_BACKOFF=0.01 \
	"$DRV" submit j s l "$SB/w" >"$TRASH/retries.out" 2>&1 || rc=$?
t_ok "sbatch timing out every time: the submission fails (exit $rc)" test "$rc" = 1
t_ok "...after LLMB_SUBMIT_RETRIES=8 retries: 9 sbatch calls (got $(wc -l <"$SB/sbatch.calls"))" \
	test "$(wc -l <"$SB/sbatch.calls")" = 9
grep -o 'submitting again (try [0-9]* of [0-9]*)' "$TRASH/retries.out" | tr -dc '0-9 \n' | awk '{ print $1 }' | tr '\n' ' ' \
	>"$TRASH/tries"
t_ok "...each said, try 2 to 9 of 9 (got: $(cat "$TRASH/tries"))" test "$(cat "$TRASH/tries")" = "2 3 4 5 6 7 8 9 "
# 106751991167301 days or 10^20 minutes in seconds overflow a long.
PATH=$SB/bin:$PATH SQ_ELAPSED="71=106751991167301-00:00:00 72=99999999999999999999:00 73=1:123:00 74=1-02:03:04" \
	"$DRV" wait "$SB/cache" 71 72 73 74 >"$TRASH/elapsed.out" 2>&1
for j in 71 72 73; do
	t_grep "an elapsed time no job can have is unknown ($j)" "^$j COMPLETED .*elapsed=-1 " "$TRASH/elapsed.out"
done
t_grep "...a day, 2 h 3 min 4 s is one" "^74 COMPLETED .*elapsed=93784 " "$TRASH/elapsed.out"
# Accounting may hold a job's FAILED state before its exit code (seen as
# FAILED|0:0 from a job that exited 3): that exit code is unknown, not 0.
PATH=$SB/bin:$PATH SQ_ELAPSED= SA_ROWS="81|FAILED|0:0|00:00:05 82|FAILED|3:0|00:00:05 83|COMPLETED|0:0|00:00:05" \
	"$DRV" wait "$SB/cache2" 81 82 83 >"$TRASH/sacct-exit.out" 2>&1
t_grep "sacct's FAILED with 0:0: exit code unknown" "^81 FAILED exit=-1 " "$TRASH/sacct-exit.out"
t_grep "...FAILED with 3:0: exit code 3" "^82 FAILED exit=3 " "$TRASH/sacct-exit.out"
t_grep "...COMPLETED with 0:0: exit code 0" "^83 COMPLETED exit=0 " "$TRASH/sacct-exit.out"

if ! slurm_need_packages; then
	echo "# skipping the cluster part: $SLURM_SKIP_REASON"
	t_done
	exit
fi
export SLURM_CI_CPUS=${SLURM_CI_CPUS:-32}
t_ok "cluster is up" slurm_test_up || { t_done; exit 1; }
W=$TRASH/w
mkdir -p "$W"
printf '#!/bin/bash\necho ok\n' >"$W/ok.sh"
printf '#!/bin/bash\necho failing; exit 3\n' >"$W/fail.sh"
printf '#!/bin/bash\nsleep 300\n' >"$W/long.sh"
printf '#!/bin/bash\nsleep 5\n' >"$W/sleep.sh"
submit() { "$DRV" submit "$1" "$W/$1.sh" "$W/$1.log" "$W" "${@:2}"; }

ok=$(submit ok) && fail=$(submit fail) && long=$(submit long) && dep=$(submit ok "dep=afterok:$fail")
t_ok "three jobs submitted" test -n "$long"
export LLMB_POLL_SECONDS=1
C=$TRASH/cache
(sleep 2; "$DRV" cancel "$long") &
"$DRV" wait "$C" "$ok" "$fail" "$long" >"$TRASH/wait" 2>"$TRASH/wait.err"
wait
t_grep "ok job COMPLETED exit 0" "^$ok COMPLETED exit=0 signal=0" "$TRASH/wait"
t_grep "failing job FAILED exit 3" "^$fail FAILED exit=3 signal=0 .*reason=NonZeroExitCode" "$TRASH/wait"
t_grep "cancelled job CANCELLED" "^$long CANCELLED " "$TRASH/wait"
t_grep "the job's log is where sbatch was told" "^ok$" "$W/ok.log"
t_ok "terminal jobs left the registry" test ! -s "$C/slurm.jobs"
"$DRV" wait "$C" "$ok" >"$TRASH/again" 2>&1
t_grep "asking again after the final report still answers" "^$ok COMPLETED exit=0" "$TRASH/again"
t_grep "queries are logged" "^[0-9.]+ squeue [0-9]+$" "$C/queries.log"

# A dependent of a failed job is never cancelled by Slurm here: llmb must.
LLMB_DRIVER_SLEEP=0.2 timeout 4 "$DRV" wait "$C" "$dep" >"$TRASH/dep" 2>&1
grep -F "$dep" "$C/slurm.cache" >"$TRASH/dep.cache"
t_grep "dependent of a failed job is PENDING (DependencyNeverSatisfied)" \
	"^$dep	PENDING	.*DependencyNeverSatisfied" "$TRASH/dep.cache"
t_ok "cancel it" "$DRV" cancel "$dep"
"$DRV" wait "$C" "$dep" >"$TRASH/dep2" 2>&1
t_grep "then it is CANCELLED" "^$dep CANCELLED" "$TRASH/dep2"
"$DRV" wait "$C" 99999999 >"$TRASH/gone" 2>&1
t_grep "an id nobody knows is VANISHED" "^99999999 VANISHED" "$TRASH/gone"
t_rc "submit to a missing partition fails" 1 env SBATCH_PARTITION=nosuch "$DRV" submit ok "$W/ok.sh" "$W/x.log" "$W"
t_grep "with sbatch's own message" "sbatch failed .*invalid partition" "$TRASH/.out"

# ---- 20 waiting processes share one squeue per poll interval ---------------------
C2=$TRASH/cache20
ids=()
for i in $(seq 20); do ids+=("$("$DRV" submit sleep "$W/sleep.sh" "$W/s$i.log" "$W")"); done
start=$(date +%s.%N)
pids=()
for id in "${ids[@]}"; do
	LLMB_DRIVER_SLEEP=0.1 "$DRV" wait "$C2" "$id" >"$TRASH/w20.$id" 2>&1 &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
end=$(date +%s.%N)
cat "$TRASH"/w20.* >"$TRASH/w20"
t_ok "all 20 waiters saw COMPLETED" test "$(grep -c ' COMPLETED exit=0 ' "$TRASH/w20")" = 20
calls=$(sed -n 's/^exec-driver: \([0-9]*\) query() calls$/\1/p' "$TRASH/w20" | awk '{s+=$1} END {print s}')
nsq=$(grep -c ' squeue ' "$C2/queries.log")
awk '$2 == "squeue" { if (prev && $1 - prev < 0.99) bad++; prev = $1 } END { exit bad > 0 }' "$C2/queries.log"
t_ok "no two squeue calls within one poll interval" test $? = 0
span=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}')
echo "# 20 waiters, $span s: $calls query() calls, $nsq squeue calls ($(grep -c ' sacct' "$C2/queries.log") sacct)"
t_ok "squeue calls <= seconds waited + 1" test "$nsq" -le "$(awk -v s="$span" 'BEGIN {print int(s) + 1}')"
t_done
