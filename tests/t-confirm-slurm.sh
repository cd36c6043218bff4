#!/usr/bin/env bash
# t-confirm-slurm: slow-node suspicion and confirmation on other nodes,
# through make nightly on the emulated two-node Slurm cluster. The cf
# workload (tests/confirm) runs on one node; its steps take longer on a
# node whose GPUs the nvidia-smi stand-in reports at lowered clocks (n2,
# NVSMI_STANDIN_SLOW). Nights 1-3 are normal (n1, n2, n1). Night 4 runs on
# slow-clock n2: SUSPECT; its confirmation run excludes n2 (merged into
# ADDITIONAL_SLURM_PARAMS, whose nodelist=n2 is dropped), runs on n1, comes
# out normal: n2 is suspect and the night is acknowledged. Night 5 on n2
# again names n2 (it shares it with the earlier slow run). Night 6 is a
# software slowdown (EXTRA_WORK) on n1: the confirmation on n2 is slow
# again, the night stays SUSPECT. GPU-hours of the confirmations are
# counted. Starts a cluster: run it under flock /tmp/llmb-slurm.lock.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
unset SBATCH_ACCOUNT SBATCH_PARTITION SBATCH_GPUS_PER_NODE ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC NIGHT EXTRA_WORK
export SLURM_CI_NODES=2 SLURM_CI_CPUS=${SLURM_CI_CPUS:-8} SLURM_CI_MIN_JOB_AGE=${SLURM_CI_MIN_JOB_AGE:-3600}
if [ -z "${SLURM_CI_ACCOUNTING+x}" ] && command -v mariadbd >/dev/null 2>&1; then
	export SLURM_CI_ACCOUNTING=1
fi
t_ok "two-node cluster is up" slurm_test_up || { t_done; exit 1; }
export PATH=$TESTS_DIR/provenance/bin:$PATH LLMB_POLL_SECONDS=1
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

T=$TRASH/top
mkdir -p "$T/workloads/cf" "$T/pipelines"
for f in GNUmakefile generator scripts templates tests; do ln -s "$TOP/$f" "$T/$f"; done
cp "$TOP/pipelines/benchmark.yaml" "$TESTS_DIR/confirm/nightly.yaml" "$T/pipelines/"
cp "$TOP/workloads/gpus.yaml" "$TESTS_DIR/confirm/cf.yaml" "$T/workloads/"
cp "$TESTS_DIR/confirm/train.sh" "$TESTS_DIR/slurm-pipeline/data.sh" "$T/workloads/cf/"
I=$TRASH/inst
N=$I/nightly
# night NIGHT NODE [VAR=VALUE...]: make nightly on NODE (nodelist=NODE).
night() {
	local id=$1 node=$2; shift 2
	env "$@" ADDITIONAL_SLURM_PARAMS="nodelist=$node" \
		make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR=slurm nightly NIGHT="$id"
}
nodes_of() { grep -h "\"night\":\"$1\"" "$I"/history/*.jsonl | grep '"type":"run"' | grep -o '"nodes":"[^"]*"'; }
for d in 1 2 3; do
	node=n$((2 - d % 2))
	night 2026-01-0$d $node >"$TRASH/night$d.out" 2>&1
	t_ok "night $d on $node: judged (a pass, or inconclusive on a noisy machine)" \
		grep -Eqx '(0 pass|4 inconclusive)' "$N/2026-01-0$d/status"
	t_ok "night $d ran on $node" test "$(nodes_of 2026-01-0$d)" = "\"nodes\":\"$node\""
done
t_ok "no confirmation on a night that is not SUSPECT" test ! -e "$N/2026-01-03/confirmations.json"

# Night 4 on slow-clock n2.
t_rc "night 4 on slow-clock n2: passes after its confirmation" 0 night 2026-01-04 n2 NVSMI_STANDIN_SLOW=n2
cp "$TRASH/.out" "$TRASH/night4.out"
S4=$N/2026-01-04/summary.txt C4=$N/2026-01-04/confirmations.json
t_grep "night 4: the confirmation excluded n2, ran on n1 and was normal" \
	'^CONFIRMATION cf_cpu_tiny_fp32_2_[0-9a-f]{12}: without n2 \(job [0-9]+ on n1\): .* normal: nodes n2 suspect; the night is not held against the software$' "$S4"
t_ok "night 4: the confirmation's Slurm parameters: nodelist dropped, exclude merged" \
	test "$(jq_py "$C4" 'd["runs"][0]["slurm_params"]')" = "exclude=n2"
t_ok "night 4: Slurm has the confirmation job with n2 excluded" \
	sh -c "scontrol show job '$(jq_py "$C4" 'd["runs"][0]["job"]')' | grep -q 'ExcNodeList=n2'"
t_ok "night 4: acknowledged in the history by llmb nightly" \
	grep -q '"action":"ack-false-alarm","by":"llmb nightly"' "$I"/history/*.jsonl
t_grep "night 4: judged again, the night is not held against the software" '^llmb judge 2026-01-04: 1 configuration: 1 OK$' "$S4"
t_ok "night 4: status pass" grep -qx '0 pass' "$N/2026-01-04/status"
t_ok "night 4: the confirmation is no night of the history (4 run records)" \
	test "$(grep -hc '"type":"run"' "$I"/history/*.jsonl)" = 4
t_ok "night 4: GPU-hours counted (2 GPUs x the job's time)" python3 - "$C4" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
assert r["outcome"] == "normal" and r["nodes"] == "n1" and r["excluded"] == "n2", r
assert 0 < r["gpu_hours"] < 1 and abs(d["gpu_hours"] - r["gpu_hours"]) < 1e-9, d
assert r["mean"] <= r["baseline_high"], r
EOF
t_grep "night 4: the summary counts them" '^confirmations: 1 run, [0-9.]+ GPU-hours$' "$S4"
t_ok "night 4: verdict.json carries them" test "$(jq_py "$N/2026-01-04/verdict.json" 'd["confirmations"]["runs"][0]["outcome"]')" = normal

# Night 5 on n2 again: n2 is named, the confirmation acknowledges it again.
t_rc "night 5 on slow-clock n2: passes after its confirmation" 0 night 2026-01-05 n2 NVSMI_STANDIN_SLOW=n2
cp "$TRASH/.out" "$TRASH/night5.out"
t_grep "night 5: acknowledged after its confirmation, the summary still says why" \
	'^OK cf_cpu_tiny_fp32_2_[0-9a-f]{12}: step time \+[0-9.]+%, acknowledged: slow on suspect nodes$' "$TRASH/night5.out"
t_grep "night 5: n2 is named (it was in the earlier slow run)" \
	'^  suspect node n2: in 1 earlier slow run; slow in 2 of 3 runs with it, 0 of 2 without$' "$TRASH/night5.out"
t_grep "night 5: its confirmation is normal too" 'normal: nodes n2 suspect' "$N/2026-01-05/summary.txt"

# Night 6: a software slowdown on n1; the confirmation on n2 is slow again.
t_rc "night 6, slower software on n1: SUSPECT passes" 0 night 2026-01-06 n1 EXTRA_WORK=1
S6=$N/2026-01-06/summary.txt
t_grep "night 6: SUSPECT" '^SUSPECT cf_cpu' "$S6"
t_grep "night 6: the confirmation without n1 ran on n2 and was slow again" \
	'^CONFIRMATION cf_cpu_tiny_fp32_2_[0-9a-f]{12}: without n1 \(job [0-9]+ on n2\): .* slow again: the software regressed$' "$S6"
t_ok "night 6: not acknowledged" test "$(grep -c '"by":"llmb nightly"' "$I"/history/*.jsonl)" = 2
t_nogrep "night 6: n1 is not named (no earlier slow run on it)" 'suspect node' "$S6"

# Importing the run directories seeds a history of the six nights: the
# three confirmation runs (night-<NIGHT>-confirm) are no nights.
J=$TRASH/imported
rc=0
"$LLMB" record --import --top "$T" --install "$J" "$I/workloads/cf/experiments" >"$TRASH/import.out" 2>&1 || rc=$?
t_ok "record --import of the run directories (exit $rc)" test "$rc" = 0
t_ok "imported: the six nights, no confirmation run" test "$(grep -hc '"type":"run"' "$J"/history/*.jsonl)" = 6
t_ok "imported: the same jobs as the nightly's own records" \
	test "$(grep -ho '"job":"[0-9]*"' "$J"/history/*.jsonl | sort)" = \
	"$(grep -h '"type":"run"' "$I"/history/*.jsonl | grep -o '"job":"[0-9]*"' | sort)"
t_ok "the import says it skipped the three confirmation runs" \
	test "$(grep -c 'night-2026-01-0[456]-confirm: skipped, a confirmation run' "$TRASH/import.out")" = 3
t_done
