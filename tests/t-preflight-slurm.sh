#!/usr/bin/env bash
# t-preflight-slurm: the pre-flight checks of templates/probe-node.sh, first
# on their own (the check table against fake sysfs trees and the
# nvidia-smi stand-in of tests/provenance/bin), then in real Slurm jobs on
# an emulated three-node cluster: a two-node training of the fast sq
# workload whose first node (n1, the one Slurm picks first) has a CPU
# governor other than performance, or ECC errors, under each policy:
# warn (the run goes on, flagged, the node named in provenance.json,
# result.json and the report), fail (the job stops before training and
# make says which node and why), exclude (the stage's retry runs on n2
# and n3) and off (nothing judged). Starts a cluster: run it under the
# machine-wide Slurm test lock.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
unset SBATCH_ACCOUNT SBATCH_PARTITION SBATCH_GPUS_PER_NODE ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC PREFLIGHT
unset LLMB_PREFLIGHT LLMB_PROBE_SYSFS LLMB_PROBE_DEVFS NVSMI_STANDIN_STATE NVSMI_STANDIN_GPUS
export PATH=$TESTS_DIR/provenance/bin:$PATH
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
PROBE=$TOP/templates/probe-node.sh
NODE=$(hostname -s)

# sysfs NAME GOVERNOR [PORT-STATE...]: a fake /sys with that CPU governor
# and one InfiniBand port per state given.
sysfs() {
	local d=$TRASH/sys/$1 i=0 s
	mkdir -p "$d/devices/system/cpu/cpu0/cpufreq"
	echo "$2" >"$d/devices/system/cpu/cpu0/cpufreq/scaling_governor"
	shift 2
	for s; do
		mkdir -p "$d/class/infiniband/mlx5_$i/ports/1"
		echo InfiniBand >"$d/class/infiniband/mlx5_$i/ports/1/link_layer"
		echo "$s" >"$d/class/infiniband/mlx5_$i/ports/1/state"
		i=$((i + 1))
	done
}
# probe NAME [VAR=VALUE...]: the probe on this machine into $TRASH/p/NAME
probe() {
	local n=$1
	shift
	mkdir -p "$TRASH/p/$n"
	env "$@" bash "$PROBE" "$TRASH/p/$n" 1
}
findings() { cat "$TRASH/p/$1/preflight.1.$NODE"; }
verdict() { jget "$TRASH/p/$1/probe.1.$NODE.json" 'd["preflight"]["verdict"]'; }

# ---- the check table, one node -----------------------------------------------
sysfs good performance "4: ACTIVE" "4: ACTIVE"
sysfs gov powersave
sysfs ibdown performance "4: ACTIVE" "1: DOWN"
sysfs iball performance "1: DOWN"
mkdir -p "$TRASH/gpu-ecc" "$TRASH/gpu-bad"
echo 3 >"$TRASH/gpu-ecc/ecc"
t_ok "a healthy node passes" probe good LLMB_PROBE_SYSFS="$TRASH/sys/good"
t_ok "  verdict pass, no findings" test "$(verdict good) $(findings good | wc -l)" = "pass 0"
probe gov LLMB_PROBE_SYSFS="$TRASH/sys/gov"
t_ok "a powersave governor fails the node" test "$(verdict gov)" = fail
t_grep "  the finding names the check and the governor" $'^fail\tcpu_governor\tCPU frequency governor is powersave, not performance$' "$TRASH/p/gov/preflight.1.$NODE"
probe ecc LLMB_PROBE_SYSFS="$TRASH/sys/good" NVSMI_STANDIN_STATE="$TRASH/gpu-ecc"
t_grep "uncorrectable ECC errors fail the node, per GPU" $'^fail\tgpu_ecc\tuncorrectable ECC errors since the driver loaded \\(GPU 0: 3, GPU 1: 3\\)$' "$TRASH/p/ecc/preflight.1.$NODE"
probe ib LLMB_PROBE_SYSFS="$TRASH/sys/ibdown"
t_ok "one InfiniBand port down of two: a warning" test "$(verdict ib)" = warn
t_grep "  naming the port and its state" $'^warn\trdma_ports\tRDMA ports not ACTIVE: mlx5_1/1 \\(1: DOWN\\)$' "$TRASH/p/ib/preflight.1.$NODE"
probe iball LLMB_PROBE_SYSFS="$TRASH/sys/iball"
t_grep "no InfiniBand port up: the node fails" $'^fail\trdma_ports\tno RDMA port is ACTIVE' "$TRASH/p/iball/preflight.1.$NODE"
probe count LLMB_PROBE_SYSFS="$TRASH/sys/good" SLURM_GPUS_ON_NODE=8
t_grep "fewer GPUs than Slurm gave the job: fails" $'^fail\tgpu_count\tnvidia-smi lists 2 GPUs, Slurm gave the job 8 on this node$' "$TRASH/p/count/preflight.1.$NODE"
probe nvsmi LLMB_PROBE_SYSFS="$TRASH/sys/good" PATH=/usr/bin:/bin
t_ok "no nvidia-smi (a CPU node): the GPU checks are not made, the node passes" test "$(verdict nvsmi)" = pass
probe nocpufreq LLMB_PROBE_SYSFS="$TRASH/sys/none"
t_ok "no cpufreq: the governor is not checked, the node passes" test "$(verdict nocpufreq)" = pass
probe off LLMB_PROBE_SYSFS="$TRASH/sys/gov" LLMB_PREFLIGHT=off
t_ok "LLMB_PREFLIGHT=off: no verdict in the probe, no findings file" \
	test "$(jget "$TRASH/p/off/probe.1.$NODE.json" '"preflight" in d')" = False -a ! -e "$TRASH/p/off/preflight.1.$NODE"
probe hang LLMB_PROBE_SYSFS="$TRASH/sys/good" NVSMI_STANDIN_HANG=1 LLMB_PROBE_TIMEOUT=2
t_grep "a probe that hangs: a warning, saying why" $'^warn\tprobe\tprobe killed after 2 s$' "$TRASH/p/hang/preflight.1.$NODE"
sysfs pernode/n7 powersave
t_ok "%n in LLMB_PROBE_SYSFS is the node's name" env SLURMD_NODENAME=n7 LLMB_PROBE_SYSFS="$TRASH/sys/pernode/%n" bash "$PROBE" "$TRASH/p" 2
t_grep "  (n7's tree was read)" $'^fail\tcpu_governor' "$TRASH/p/preflight.2.n7"

# ---- a node's own words: the findings file stays one finding a line --------------
# An InfiniBand device whose name holds a newline and TABs, and a governor
# with an ESC byte and a byte that is not UTF-8: each finding is one line
# of text, no check is injected.
sysfs hostile $'power\033[2J\377save'
mkdir -p "$TRASH/sys/hostile/class/infiniband/"$'mlx5_0\nfail\tgpu_ecc\tinjected/ports/1'
echo "1: DOWN" >"$TRASH/sys/hostile/class/infiniband/"$'mlx5_0\nfail\tgpu_ecc\tinjected/ports/1/state'
probe hostile LLMB_PROBE_SYSFS="$TRASH/sys/hostile"
t_ok "a device name with a newline: two findings, two lines, none injected" \
	test "$(cut -f2 "$TRASH/p/hostile/preflight.1.$NODE" | sort | tr '\n' ' ')" = "cpu_governor rdma_ports "
t_grep "  the name's newline and TABs escaped" $'^fail\trdma_ports\tno RDMA port is ACTIVE: mlx5_0\\\\nfail\\\\tgpu_ecc\\\\tinjected/1 \\(1: DOWN\\)$' \
	"$TRASH/p/hostile/preflight.1.$NODE"
t_grep "  the governor's ESC escaped, its stray byte U+FFFD" $'^fail\tcpu_governor\tCPU frequency governor is power\\\\u001b\\[2J\xef\xbf\xbdsave, not performance$' \
	"$TRASH/p/hostile/preflight.1.$NODE"
t_ok "  the probe's line is JSON, with both findings" test "$(jget "$TRASH/p/hostile/probe.1.$NODE.json" \
	'" ".join(f["check"] for f in d["preflight"]["findings"])')" = "cpu_governor rdma_ports"
# ECC counts are NVML's unsigned 64 bits: past 2^63 still a count (bash's
# arithmetic refused it), past 2^64 - 1 or not a number a finding of its own.
mkdir -p "$TRASH/gpu-big" "$TRASH/gpu-over" "$TRASH/gpu-word"
echo 9223372036854775808 >"$TRASH/gpu-big/ecc"
echo 18446744073709551616 >"$TRASH/gpu-over/ecc"
echo "[GPU is lost]" >"$TRASH/gpu-word/ecc"
probe big LLMB_PROBE_SYSFS="$TRASH/sys/good" NVSMI_STANDIN_STATE="$TRASH/gpu-big"
t_grep "an ECC count past 2^63 fails the node" $'^fail\tgpu_ecc\tuncorrectable ECC errors since the driver loaded \\(GPU 0: 9223372036854775808, GPU 1: 9223372036854775808\\)$' \
	"$TRASH/p/big/preflight.1.$NODE"
probe over LLMB_PROBE_SYSFS="$TRASH/sys/good" NVSMI_STANDIN_STATE="$TRASH/gpu-over"
t_ok "an ECC count past 2^64 - 1 fails the node" test "$(verdict over)" = fail
t_grep "  and is named as no 64-bit count" \
	$'^warn\tgpu_counter\tGPU counters that are not counts \\(GPU 0 ecc.errors.uncorrected.volatile.total: 18446744073709551616, ' "$TRASH/p/over/preflight.1.$NODE"
# A GPU name with a comma moves the CSV's values (ECC read from another
# column): the rows are not read, and the node says so.
probe comma LLMB_PROBE_SYSFS="$TRASH/sys/good" NVSMI_STANDIN_STATE="$TRASH/gpu-ecc" NVSMI_STANDIN_NAME="NVIDIA H100, 0"
t_ok "a GPU name with a comma: its rows unread, a warning" test "$(verdict comma) $(cut -f1,2 "$TRASH/p/comma/preflight.1.$NODE" | tr '\t\n' ': ')" = \
	"warn warn:gpu_row "
probe word LLMB_PROBE_SYSFS="$TRASH/sys/good" NVSMI_STANDIN_STATE="$TRASH/gpu-word"
t_ok "an ECC count that is a word: a warning, not zero" test "$(verdict word) $(cut -f2 "$TRASH/p/word/preflight.1.$NODE")" = "warn gpu_counter"

# ---- real Slurm jobs ------------------------------------------------------------
slurm_need_packages || { echo "# skipped the Slurm jobs: $SLURM_SKIP_REASON"; t_done; exit 0; }
export SLURM_CI_NODES=3 SLURM_CI_CPUS=${SLURM_CI_CPUS:-8} SLURM_CI_MIN_JOB_AGE=${SLURM_CI_MIN_JOB_AGE:-3600}
t_ok "three-node cluster is up" slurm_test_up || { t_done; exit 1; }

T=$TRASH/top
# scale 4 of the cpu "GPU" (two ranks per node): two nodes of three
t_sq_checkout "$T" 4
I=$TRASH/inst
R=$I/workloads/sq/experiments/cpu_tiny_fp32_4
ST=$I/state/jobs/train.sq.cpu.tiny.fp32.4
# every node performance but n1
for n in n1 n2 n3; do sysfs "node/$n" performance; done
echo powersave >"$TRASH/sys/node/n1/devices/system/cpu/cpu0/cpufreq/scaling_governor"
export LLMB_PROBE_SYSFS=$TRASH/sys/node/%n LLMB_POLL_SECONDS=1
mk() { make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR=slurm WORKLOAD=sq "$@"; }
# trainings JOB: how many times job JOB's training command started
trainings() { grep -c " $1\$" "$I/count.train" 2>/dev/null; }
# job_nodes JOB: the nodes Slurm gave job JOB
job_nodes() { squeue -h -t all -j "$1" -o %N; }
train_job() { t_job_field "$I" train.sq.cpu.tiny.fp32.4 job; }

t_ok "warn (the default): the run on n1 and n2 completes" mk report
cp "$TRASH/.out" "$TRASH/warn.out"
P=$R/provenance.json
t_ok "  provenance: n1 failed its pre-flight, n2 passed" \
	test "$(jget "$P" '" ".join(k + ":" + v["preflight"]["verdict"] for k, v in sorted(d["nodes"].items()))')" = "n1:fail n2:pass"
t_ok "  provenance: n1's finding names the governor" \
	test "$(jget "$P" 'd["nodes"]["n1"]["preflight"]["findings"][0]["check"]')" = cpu_governor
t_ok "  result.json: valid, flagged for n1's governor" python3 - "$R/result.json" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))["validity"]
assert v["valid"] is True, v
assert "preflight" in v["checked"], v
assert v["flagged"] == ["pre-flight failed (the policy let the run go on): cpu_governor on n1 (CPU frequency governor is powersave, not performance)"], v["flagged"]
EOF
t_ok "  the report says so" grep -q "flagged: pre-flight failed .*cpu_governor on n1" "$I"/workloads/sq/reports/*
t_ok "  recorded as a night of the history" "$LLMB" record --import --top="$T" --install="$I" --workload=sq "$R"
t_ok "  the history record is valid, and flagged for n1" test "$(tail -n 1 "$I"/history/sq_*.jsonl | jget /dev/stdin \
	'd["valid"], len(d["flagged"]), d["flagged"][0].startswith("pre-flight failed (the policy let the run go on): cpu_governor on n1")')" = "True 1 True"

t_rc "fail: make fails" 2 mk report PREFLIGHT=fail
cp "$TRASH/.out" "$TRASH/fail.out"
J=$(train_job)
t_grep "  the job's state is PREFLIGHT, with the node and the reason" "state PREFLIGHT, pre-flight failed on n1: CPU frequency governor is powersave, not performance \\(cpu_governor\\)" "$TRASH/fail.out"
t_grep "  the job id and the log are named" "job $J \\(slurm\\)" "$TRASH/fail.out"
t_ok "  the job stopped before training" test "$(trainings "$J")" = 0
t_grep "  the job's log names the node" "llmb: pre-flight failed on node n1: CPU frequency governor is powersave" "$TRASH/fail.out"
t_nogrep "  not retried (the policy is fail)" "retrying" "$TRASH/fail.out"
t_ok "  Slurm ended the job FAILED, exit code 3" test "$(squeue -h -t all -j "$J" -o '%T')" = FAILED
t_ok "  nothing recorded as done" test ! -e "$I/state/done/train.sq.cpu.tiny.fp32.4"

t_ok "exclude: make succeeds" mk report PREFLIGHT=exclude
cp "$TRASH/.out" "$TRASH/exclude.out"
J2=$(train_job)
t_grep "  the first job failed its pre-flight" "state PREFLIGHT, pre-flight failed on n1" "$TRASH/exclude.out"
t_grep "  the retry policy ran it again (counted as a retry)" "retrying \\(attempt 2 of 2\\): the stage's retry policy covers PREFLIGHT" "$TRASH/exclude.out"
t_grep "  leaving n1 out" "leaving out n1 \\(failed pre-flight\\)" "$TRASH/exclude.out"
t_ok "  the second job ran on n2 and n3" test "$(job_nodes "$J2")" = "n[2-3]"
t_ok "  and trained once" test "$(trainings "$J2")" = 1
t_ok "  its run is not flagged" test "$(jget "$R/result.json" 'len(d["validity"]["flagged"])')" = 0
t_ok "  the nodes to leave out are forgotten once the stage is done" test ! -e "$ST/preflight-exclude"

echo 2 >"$TRASH/gpu-bad/ecc.n1"
echo performance >"$TRASH/sys/node/n1/devices/system/cpu/cpu0/cpufreq/scaling_governor"
export NVSMI_STANDIN_STATE=$TRASH/gpu-bad
t_rc "fail, ECC errors on n1 (its governor mended): make fails" 2 mk report PREFLIGHT=fail
t_grep "  the reason is n1's ECC errors" "pre-flight failed on n1: uncorrectable ECC errors since the driver loaded \\(GPU 0: 2, GPU 1: 2\\) \\(gpu_ecc\\)" "$TRASH/.out"

echo powersave >"$TRASH/sys/node/n1/devices/system/cpu/cpu0/cpufreq/scaling_governor"
t_ok "off: the run completes" mk report PREFLIGHT=off
t_ok "  no node was judged, the run not flagged for it" \
	test "$(jget "$R/provenance.json" 'sum("preflight" in v for v in d["nodes"].values())') $(jget "$R/result.json" '"preflight" in d["validity"]["checked"]')" = "0 False"

t_rc "PREFLIGHT=maybe is refused" 2 mk plan PREFLIGHT=maybe
t_grep "  saying what it takes" "PREFLIGHT=maybe: expected off, warn, fail or exclude" "$TRASH/.out"
t_done
