#!/usr/bin/env bash
# t-validity: a run's validity from what the job saw (generator/results/validity.c),
# end to end with the local executor and the quick workload: the probe
# before training records the node's RDMA ports (a fake sysfs tree holding
# one InfiniBand port), the probe after training samples the GPUs again
# (the nvidia-smi and dmesg stand-ins of tests/provenance/bin, whose state
# the fake training changes as a GPU event would), and the training prints
# NCCL's INFO lines as NCCL does. Each case checks result.json's validity,
# the report (an invalid run is excluded with its reason, a flagged one
# keeps a note) and the history record (valid=false with the reasons, or
# the flags); for sockets on IB also `llmb diff` against the clean run. Then `llmb parse
# --provenance` directly: sockets on an EFA node (a fake sysfs device whose
# driver is efa), and the after sample on a node without nvidia-smi.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
command -v mksquashfs >/dev/null || t_skip_all "mksquashfs (squashfs-tools) is not installed"
export PATH=$TESTS_DIR/provenance/bin:$TESTS_DIR/bin:$PATH
NODE=$(hostname -s)
# jq-free JSON queries through python3: jget FILE EXPR (d is the document).
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# A node with one active InfiniBand port, and one with none.
IB=$TRASH/sys-ib
mkdir -p "$IB/class/infiniband/mlx5_0/ports/1" "$TRASH/sys-none"
echo InfiniBand >"$IB/class/infiniband/mlx5_0/ports/1/link_layer"
echo "4: ACTIVE" >"$IB/class/infiniband/mlx5_0/ports/1/state"

Q=$TRASH/quick
t_quick_checkout "$Q"
J=$TRASH/inst
R=$J/workloads/quick/experiments/cpu_tiny_fp32_1
RES=$R/result.json
# run [VAR=VALUE...]: train, parse and report the run again, on fresh GPUs
# (in the state `seed` left for the next run, when it did).
seed() { mkdir -p "$TRASH/gpu-seed" && printf '%s\n' "$2" >"$TRASH/gpu-seed/$1"; }
run() {
	rm -f "$J"/state/done/{train,parse,report}.quick.* "$RES"
	rm -rf "$TRASH/gpu" && mkdir -p "$TRASH/gpu"
	if [ -d "$TRASH/gpu-seed" ]; then cp "$TRASH/gpu-seed"/* "$TRASH/gpu/" && rm -rf "$TRASH/gpu-seed"; fi
	env NVSMI_STANDIN_STATE="$TRASH/gpu" LLMB_PROBE_SYSFS="$IB" "$@" make -C "$Q" B="$TOP/build" \
		LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$J" EXECUTOR=local WORKLOAD=quick SCALES=1 report >"$TRASH/run.out" 2>&1
}
report() { "$LLMB" report --top="$Q" --workload quick --gpu cpu --size tiny --dtype fp32 "$J/workloads/quick/experiments" 2>&1; }
record() { "$LLMB" record --import --top="$Q" --install="$J" --workload=quick "$R" >/dev/null 2>&1; }
# the last history record of the run
last_record() { tail -n 1 "$J"/history/quick_*.jsonl; }
reasons() { jget "$RES" '"|".join(d["validity"]["invalid"])'; }
flags() { jget "$RES" '"|".join(d["validity"]["flagged"])'; }

# ---- a clean run: NCCL over IB on an IB node -------------------------------------
t_ok "clean run: trains, parses, reports" run QUICK_NCCL=ib
t_ok "the probe recorded the node's InfiniBand port" test "$(jget "$R/provenance.json" \
	"d['nodes']['$NODE']['fabric'][0]['link_layer'] + '/' + d['nodes']['$NODE']['fabric'][0]['state']")" = "InfiniBand/4: ACTIVE"
t_ok "the job took its after sample" test "$(jget "$R/provenance.json" "d['nodes_after']['$NODE']['status']")" = ok
t_ok "clean run: valid, nothing flagged" test "$(jget "$RES" 'd["validity"]["valid"], d["validity"]["invalid"], d["validity"]["flagged"]')" = "True [] []"
t_ok "clean run: all four sources were checked" test "$(jget "$RES" '" ".join(d["validity"]["checked"])')" = "nccl_log fabric preflight after"
report >"$TRASH/report.txt"
t_nogrep "clean run: no run excluded from the report" "Excluded runs" "$TRASH/report.txt"
t_grep "clean run: among the report's runs" "^1 +cpu_tiny_fp32_1 +success " "$TRASH/report.txt"
t_ok "clean run: recorded" record
t_ok "clean run: its history record is valid" test "$(last_record | jget /dev/stdin 'd["valid"], d["invalid"], "flagged" in d')" = "True [] False"
mkdir -p "$TRASH/clean" && cp "$R/provenance.json" "$RES" "$TRASH/clean/"

# ---- NCCL over sockets on an InfiniBand node: invalid -----------------------------
t_ok "sockets on IB: trains, parses, reports" run QUICK_NCCL=socket
t_ok "sockets on IB: result.json says invalid" test "$(jget "$RES" 'd["validity"]["valid"]')" = False
t_ok "sockets on IB: the reason names the fabric, the node and the log line" \
	test "$(reasons)" = "NCCL used sockets (NET/Socket) on nodes with InfiniBand: $NODE (log line 4)"
t_ok "sockets on IB: the rule" test "$(jget "$RES" 'd["validity"]["findings"][0]["rule"]')" = nccl_socket_on_fabric
t_ok "sockets on IB: the step times are still parsed" test "$(jget "$RES" 'd["status"]')" = success
report >"$TRASH/report.txt"
t_grep "sockets on IB: the report excludes the run with its reason" \
	"invalid: NCCL used sockets \\(NET/Socket\\) on nodes with InfiniBand: $NODE" "$TRASH/report.txt"
"$LLMB" report --top="$Q" --workload quick --gpu cpu --size tiny --dtype fp32 --format=html \
	"$J/workloads/quick/experiments" >"$TRASH/report.html" 2>&1
t_grep "sockets on IB: the HTML report too" "invalid: NCCL used sockets" "$TRASH/report.html"
t_ok "sockets on IB: recorded" record
t_ok "sockets on IB: the history record is invalid with the reason" test "$(last_record | jget /dev/stdin \
	'd["valid"], [r for r in d["invalid"] if r.startswith("NCCL used sockets")] != []')" = "False True"
t_ok "the history still reads (llmb judge: not bad input, 2)" sh -c "'$LLMB' judge --install='$J' >/dev/null 2>&1; test \$? != 2"
t_rc "llmb diff clean vs sockets: different" 1 "$LLMB" diff "$TRASH/clean" "$R"
cp "$TRASH/.out" "$TRASH/diff.out"
t_grep "llmb diff names the validity group" '^validity:$' "$TRASH/diff.out"
t_grep "llmb diff: valid true -> false" '^  valid: true -> false$' "$TRASH/diff.out"
t_grep "llmb diff: the reason" '^  invalid: \[\] -> \["NCCL used sockets' "$TRASH/diff.out"

# ---- the same sockets without a fabric: nothing better was there ---------------
t_ok "sockets on a node without RDMA: runs" run QUICK_NCCL=socket LLMB_PROBE_SYSFS="$TRASH/sys-none"
t_ok "sockets on a node without RDMA: valid" test "$(jget "$RES" 'd["validity"]["valid"], d["validity"]["checked"]')" = "True ['nccl_log', 'fabric', 'preflight', 'after']"

# ---- the network plugin ----------------------------------------------------------
t_ok "plugin failed, then sockets on IB: runs" run QUICK_NCCL=plugin-socket
t_ok "plugin failed, then sockets on IB: invalid, the fallback rule" test "$(jget "$RES" \
	'd["validity"]["valid"], d["validity"]["findings"][0]["rule"]')" = "False nccl_plugin_fallback"
t_ok "plugin failed, then sockets: the reason" test "$(reasons)" = \
	"NCCL's network plugin did not load and NCCL fell back to sockets on nodes with InfiniBand: $NODE (log line 6)"
# A plugin that did not load while NCCL used IB, and a power cap: flags.
t_ok "plugin failed, IB anyway, and a SW power cap: runs" run QUICK_NCCL=plugin-ib QUICK_GPU_EVENT=powercap
t_ok "plugin failed, power cap: valid" test "$(jget "$RES" 'd["validity"]["valid"]')" = True
t_ok "plugin failed, IB anyway: flagged with NCCL's line" test "$(flags | cut -d'|' -f1)" = \
	"NCCL's network plugin did not load (log line 2: NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so)"
t_ok "power cap: flagged on each GPU" test "$(flags | cut -d'|' -f2)" = \
	"GPU clocks limited during the run: SW power cap on $NODE GPU 0 and 1 more"
report >"$TRASH/report.txt"
t_grep "flagged: the report keeps the run, with the flags as its note" \
	"flagged: NCCL's network plugin did not load .*; GPU clocks limited during the run: SW power cap" "$TRASH/report.txt"
t_nogrep "flagged: not excluded" "Excluded runs" "$TRASH/report.txt"
t_ok "flagged: recorded" record
t_ok "flagged: the history record is valid and carries both flags" test "$(last_record | jget /dev/stdin \
	'd["valid"], len(d["flagged"])')" = "True 2"

# ---- GPU events during the run ----------------------------------------------------
t_ok "HW thermal slowdown during the run: runs" run QUICK_NCCL=ib QUICK_GPU_EVENT=thermal
t_ok "thermal slowdown: invalid, on each GPU" test "$(reasons)" = \
	"GPU clocks throttled during the run: HW thermal slowdown on $NODE GPU 0 and 1 more"
t_ok "thermal slowdown: recorded" record
t_ok "thermal slowdown: the history record is invalid" test "$(last_record | jget /dev/stdin 'd["valid"]')" = False
# A node that names 32 pre-flight checks of its own, each warned: its
# findings come first and never push out the throttling that makes the run
# invalid.
grep iteration "$R"/log-*.out >"$TRASH/thermal.out"
python3 - "$R/provenance.json" "$NODE" >"$TRASH/hostile.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
pf = d["nodes"][sys.argv[2]].setdefault("preflight", {"findings": []})
pf.setdefault("findings", []).extend({"check": "c%d" % i, "verdict": "warn", "why": "invented"} for i in range(32))
print(json.dumps(d))
EOF
t_ok "32 invented pre-flight warnings and a thermal slowdown: parses" "$LLMB" parse --window=1-3 --steps=5 \
	--result="$TRASH/hostile-r.json" --provenance="$TRASH/hostile.json" "$TRASH/thermal.out"
t_ok "  still invalid for the slowdown, every warning flagged" test "$(jget "$TRASH/hostile-r.json" \
	'd["validity"]["valid"], d["validity"]["invalid"][0].startswith("GPU clocks throttled"), len(d["validity"]["flagged"]) >= 32')" = \
	"False True True"
t_ok "an uncorrectable ECC error and an XID during the run: runs" run QUICK_NCCL=ib QUICK_GPU_EVENT="ecc xid"
t_ok "ECC and XID: invalid, both reasons" test "$(reasons)" = \
	"new uncorrectable ECC errors during the run on $NODE GPU 0 and 1 more|new XID events during the run on $NODE (1)"
report >"$TRASH/report.txt"
t_grep "ECC and XID: the report excludes the run with both" \
	"invalid: new uncorrectable ECC errors during the run on $NODE GPU 0 and 1 more; new XID events" "$TRASH/report.txt"
t_ok "ECC and XID: recorded" record
t_ok "ECC and XID: the history record is invalid with the reasons" test "$(last_record | jget /dev/stdin \
	'd["valid"], "new XID events during the run on '"$NODE"' (1)" in d["invalid"]')" = "False True"

# ---- GPUs matched by UUID between the probes, counts as NVML's 64 bits ----------
seed ecc 9223372036854775808
t_ok "ECC counts past 2^63 that grow: runs" run QUICK_NCCL=ib QUICK_GPU_EVENT=ecc=9223372036854775809
t_ok "counts past 2^63: the growth is seen" test "$(reasons)" = \
	"new uncorrectable ECC errors during the run on $NODE GPU 0 and 1 more"
t_ok "an ECC count past 2^64 - 1 after the run: runs" run QUICK_NCCL=ib QUICK_GPU_EVENT=ecc=18446744073709551616
t_ok "past 2^64 - 1: not read as a count, the run flagged" test "$(jget "$RES" 'd["validity"]["valid"]')|$(flags)" = \
	"True|a GPU counter the probe recorded is not a count: on $NODE GPU 0 (ecc.errors.uncorrected.volatile.total: 18446744073709551616) and 3 more"
t_ok "an ECC count that is an ESC sequence after the run: runs" run QUICK_NCCL=ib QUICK_GPU_EVENT=ecc=$'\e[2J'
t_ok "  flagged, the reason one line of text" test "$(flags)" = \
	"a GPU counter the probe recorded is not a count: on $NODE GPU 0 (ecc.errors.uncorrected.volatile.total: ?[2J) and 3 more"
# GPU 0 had 5 errors before (pre-flight flags it) and falls off the bus;
# GPU 1, now the driver's GPU 0, gets 3: compared by place, 3 < 5 hid it.
seed ecc.gpu0 5
t_ok "a GPU falls off the bus while another's ECC errors grow: runs" run QUICK_NCCL=ib QUICK_GPU_EVENT="gpus=1 ecc.gpu1=3"
t_ok "the lost GPU and the other's errors: invalid, both reasons" test "$(reasons)" = \
	"new uncorrectable ECC errors during the run on $NODE GPU 1|a GPU present before the run is missing after it: on $NODE GPU 0 ($(jget "$R/provenance.json" "d['nodes']['$NODE']['gpus'][0]['uuid']"))"
# GPU 1 had errors before; the driver lists the GPUs the other way round
# after, none changed: compared by place, GPU 1's old errors were new.
seed ecc.gpu1 4
t_ok "the same GPUs enumerated in another order: runs" run QUICK_NCCL=ib QUICK_GPU_EVENT=gpus=1,0
t_ok "another order: no GPU finding invented" test "$(jget "$RES" 'd["validity"]["valid"], [f["rule"] for f in d["validity"]["findings"]]')" = \
	"True ['preflight_fail']"

# ---- a node's own words ----------------------------------------------------------
# A GPU name holding a comma: nvidia-smi's CSV does not quote it, every value
# after it moves, and the ECC errors the run added were read from another
# column. The rows are kept unread, the checks said not made.
t_ok "a GPU name with a comma, ECC errors during the run: runs" run QUICK_NCCL=ib QUICK_GPU_EVENT=ecc \
	NVSMI_STANDIN_NAME="NVIDIA H100, 0"
t_ok "  the rows kept as printed, unread" test "$(jget "$R/provenance.json" \
	"d['nodes_after']['$NODE']['gpus'][0]['status'], d['nodes_after']['$NODE']['gpus'][0]['row'][:17]")" = "unreadable 0, NVIDIA H100, 0"
t_ok "  the run flagged for them, not silently valid" test "$(flags)" = \
	"pre-flight warned: gpu_row on $NODE (nvidia-smi's rows of GPUs 0,1 hold more or fewer values than asked: their checks are not made)|a GPU's row of nvidia-smi could not be read after the run: on $NODE (nvidia-smi printed 23 values for 22 fields) and 1 more"
# An ESC byte in the governor and bytes that are not UTF-8 in the GPU name:
# the probe's line stays JSON, the node and its pre-flight finding stay.
HOST=$TRASH/sys-hostile
mkdir -p "$HOST/devices/system/cpu/cpu0/cpufreq"
printf 'perf\033[2J\377ormance\n' >"$HOST/devices/system/cpu/cpu0/cpufreq/scaling_governor"
t_ok "an ESC byte and non-UTF-8 bytes from the node: runs" run QUICK_NCCL=ib LLMB_PROBE_SYSFS="$HOST" \
	NVSMI_STANDIN_NAME=$'NVIDIA \xff\xfeH100\e]0;x\a'
t_ok "the node is in provenance.json, its values escaped, the bytes as U+FFFD" python3 - "$R/provenance.json" "$NODE" <<'EOF'
import json, sys
n = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))["nodes"][sys.argv[2]]
assert n["cpu_governor"] == "perf\x1b[2J\ufffdormance", n["cpu_governor"]
assert n["gpus"][0]["name"] == "NVIDIA \ufffd\ufffdH100\x1b]0;x\x07", n["gpus"][0]["name"]
EOF
t_ok "  its governor finding flags the run" test "$(flags)" = \
	"pre-flight failed (the policy let the run go on): cpu_governor on $NODE (CPU frequency governor is perf\\u001b[2J"$'\xef\xbf\xbd'"ormance, not performance)"
t_rc "  llmb diff against the clean run: different" 1 "$LLMB" diff "$TRASH/clean" "$R"
t_grep "  the ESC shown escaped, as a JSON string" "^  $NODE\\.cpu_governor: .* -> \"perf\\\\u001B\\[2J" "$TRASH/.out"
t_nogrep "  no ESC byte reaches the terminal" $'\e' "$TRASH/.out"
# A probe line that is not JSON (here an older probe's raw ESC byte): the
# node is kept, unreadable, and the run flagged for it.
t_ok "a probe line that is not JSON: runs" run QUICK_NCCL=ib QUICK_GPU_EVENT=garble
t_ok "  the node is in provenance.json, unreadable, saying why" test "$(jget "$R/provenance.json" \
	"d['nodes']['$NODE']['status'], d['nodes']['$NODE']['why'].startswith('its probe probe.')")" = "unreadable True"
t_ok "  the run is flagged for it" python3 - "$RES" "$NODE" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))["validity"]
assert v["valid"] is True and [f["rule"] for f in v["findings"]] == ["node_probe_failed"], v
assert v["flagged"][0].startswith("a node was not judged before the run: %s (its probe probe." % sys.argv[2]), v
assert "is unreadable: line 1" in v["flagged"][0], v
EOF

# A probe file of one node whose line names another: it never takes that
# node's place; it is kept under its own file's node, unreadable.
t_ok "a probe file naming another node: runs" run QUICK_NCCL=ib QUICK_GPU_EVENT=impostor
t_ok "  this node's own probe stands, the impostor's is unreadable" test "$(jget "$R/provenance.json" \
	"d['nodes']['$NODE']['status'], d['nodes']['zz-impostor']['status'], 'naming the node its file is of' in d['nodes']['zz-impostor']['why']")" = \
	"ok unreadable True"

# ---- llmb parse --provenance, directly -------------------------------------------
cp "$TRASH/clean/provenance.json" "$TRASH/prov.json"
printf '%s\n' "n1:1:1 [0] NCCL INFO Using network Socket" >"$TRASH/nccl.out"
cat "$R"/log-*.out | grep 'iteration' >>"$TRASH/nccl.out"
P=(--window=1-3 --steps=5)
t_ok "llmb parse --provenance writes the validity" "$LLMB" parse "${P[@]}" --result="$TRASH/r.json" --provenance="$TRASH/prov.json" "$TRASH/nccl.out"
t_ok "llmb parse: sockets on the provenance's IB node, line 1" test "$(jget "$TRASH/r.json" '" ".join(d["validity"]["invalid"])')" = \
	"NCCL used sockets (NET/Socket) on nodes with InfiniBand: $NODE (log line 1)"
t_ok "llmb parse without --provenance: no validity (result.json as before)" sh -c \
	"'$LLMB' parse ${P[*]} --result='$TRASH/r2.json' '$TRASH/nccl.out' >/dev/null && ! grep -q '\"validity\"' '$TRASH/r2.json'"
t_rc "llmb parse --provenance without --result: usage error" 2 "$LLMB" parse --provenance="$TRASH/prov.json" "$TRASH/nccl.out"
# The table, CSV and JSON say what result.json says: the run is invalid.
t_rc "llmb parse --provenance of an invalid run: exit 0 (the log parsed; result.json has the verdict)" 0 \
	"$LLMB" parse "${P[@]}" --result="$TRASH/r.json" --provenance="$TRASH/prov.json" "$TRASH/nccl.out"
t_grep "...its row says Invalid, with the validity's reason" \
	"^nccl\.out +Invalid +- +- +- +-  validity: NCCL used sockets \(NET/Socket\) on nodes with InfiniBand: $NODE \(log line 1\)\$" "$TRASH/.out"
t_grep "...the summary counts it invalid" '^  Invalid experiments: 1$' "$TRASH/.out"
t_grep "...not a success" '^  Success experiments: 0$' "$TRASH/.out"
"$LLMB" parse "${P[@]}" --format=csv --result="$TRASH/r.json" --provenance="$TRASH/prov.json" "$TRASH/nccl.out" >"$TRASH/v.csv" 2>&1
t_grep "...CSV: the row and the summary" '^nccl\.out,Invalid,' "$TRASH/v.csv"
t_grep "...CSV summary" '^# Summary: 0 success, 0 incomplete, 0 failed, 1 invalid, 0 profiled, 1 total$' "$TRASH/v.csv"
"$LLMB" parse "${P[@]}" --format=json --result="$TRASH/r.json" --provenance="$TRASH/prov.json" "$TRASH/nccl.out" >"$TRASH/v.json" 2>&1
t_ok "...JSON: the row and the summary" test "$(jget "$TRASH/v.json" \
	'd["results"][0]["status"], d["summary"]["invalid_experiments"], d["summary"]["success_experiments"]')" = "Invalid 1 0"
t_ok "...result.json keeps the parse's status and says invalid" test "$(jget "$TRASH/r.json" 'd["status"], d["validity"]["valid"]')" = "success False"
grep -v 'Using network Socket' "$TRASH/nccl.out" >"$TRASH/ib.out"
t_rc "a valid run: exit 0" 0 "$LLMB" parse "${P[@]}" --result="$TRASH/r.json" --provenance="$TRASH/prov.json" "$TRASH/ib.out"
t_grep "...its row says Success" '^ib\.out +Success ' "$TRASH/.out"
t_grep "...counted a success" '^  Success experiments: 1$' "$TRASH/.out"

# No validity without its evidence: a --provenance that cannot be read is
# an error (2) naming it and why, and no result is written.
echo 'not json' >"$TRASH/notjson.json"
echo '[{"nodes": {}}]' >"$TRASH/array.json"
mkfifo "$TRASH/prov.fifo"
mkdir -p "$TRASH/prov.dir"
for c in "none.json:No such file or directory" "notjson.json:not JSON \(line 1" "array.json:not a provenance: a JSON object was expected" \
	"prov.fifo:not a regular file" "prov.dir:a directory"; do
	f=${c%%:*}
	rm -f "$TRASH/r3.json"
	t_rc "llmb parse --provenance=$f: exit 2" 2 timeout 20 "$LLMB" parse "${P[@]}" --result="$TRASH/r3.json" \
		--provenance="$TRASH/$f" "$TRASH/nccl.out"
	t_grep "...naming it and why" "^llmb parse: error: --provenance=$TRASH/$f: ${c#*:}" "$TRASH/.out"
	t_ok "...no result written" test ! -e "$TRASH/r3.json"
done

# ---- the parse stage: a provenance.json that is there must be read --------------
# reparse: the run's parse stage again, as make runs it (the training stays done)
reparse() {
	rm -f "$J"/state/done/parse.quick.* "$RES"
	"$LLMB" run --top "$Q" --gen "$TRASH/gen" --install "$J" 4/5 parse.quick.cpu.tiny.fp32.1 >"$TRASH/run.out" 2>&1
}
cp "$R/provenance.json" "$TRASH/prov-kept.json"
echo '{"nodes": ' >"$R/provenance.json"
t_rc "a torn provenance.json: the parse stage fails" 1 reparse
t_grep "...naming the file and why" "error: --provenance=$R/provenance\.json: not JSON" "$TRASH/run.out"
t_nogrep "...not blaming the run" "the run did not succeed" "$TRASH/run.out"
t_ok "...and writes no result.json" test ! -e "$RES"
rm "$R/provenance.json"
t_ok "no provenance.json: the parse stage judges the log alone" reparse
t_ok "...result.json says only the log was checked" test "$(jget "$RES" 'd["validity"]["checked"]')" = "['nccl_log']"
cp "$TRASH/prov-kept.json" "$R/provenance.json"

# ---- EFA: the probe reads the device's driver; sockets there are invalid too ----
EFA=$TRASH/sys-efa
mkdir -p "$EFA/class/infiniband/rdmap0s6/ports/1" "$EFA/bus/pci/drivers/efa" "$EFA/devices/pci0000:00/0000:00:06.0"
ln -s ../../../bus/pci/drivers/efa "$EFA/devices/pci0000:00/0000:00:06.0/driver"
ln -s ../../../devices/pci0000:00/0000:00:06.0 "$EFA/class/infiniband/rdmap0s6/device"
echo Unspecified >"$EFA/class/infiniband/rdmap0s6/ports/1/link_layer"
echo "4: ACTIVE" >"$EFA/class/infiniband/rdmap0s6/ports/1/state"
mkdir -p "$TRASH/efa"
t_ok "probe on an EFA node" env LLMB_PROBE_SYSFS="$EFA" OMP_NUM_THREADS=1 bash "$TOP/templates/probe-node.sh" "$TRASH/efa" 8
t_ok "the probe counts the node's CPUs, not the job's OMP_NUM_THREADS" \
	test "$(jget "$TRASH/efa/probe.8.$NODE.json" 'd["cpus"]')" = "$(OMP_NUM_THREADS='' nproc)"
t_ok "the probe names the EFA device and its driver" test "$(jget "$TRASH/efa/probe.8.$NODE.json" \
	'd["fabric"][0]["device"], d["fabric"][0]["driver"]')" = "rdmap0s6 efa"
python3 -c '
import json, sys
d, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
d["nodes"][sys.argv[3]]["fabric"] = p["fabric"]
print(json.dumps(d))
' "$TRASH/prov.json" "$TRASH/efa/probe.8.$NODE.json" "$NODE" >"$TRASH/prov-efa.json"
t_ok "llmb parse: sockets on an EFA node" "$LLMB" parse "${P[@]}" --result="$TRASH/r4.json" --provenance="$TRASH/prov-efa.json" "$TRASH/nccl.out"
t_ok "sockets on EFA: invalid, the reason names EFA" test "$(jget "$TRASH/r4.json" '" ".join(d["validity"]["invalid"])')" = \
	"NCCL used sockets (NET/Socket) on nodes with EFA: $NODE (log line 1)"

# ---- NCCL's version: from the loader cache's libnccl.so.N link -------------------
# A loader cache of 900 libraries (tests/bin has no ldconfig: this stand-in
# prints ldconfig -p's format), libnccl's line among them, not first.
mkdir -p "$TRASH/ldc/bin" "$TRASH/ldc/lib" "$TRASH/nccl1" "$TRASH/nccl0"
: >"$TRASH/ldc/lib/libnccl.so.2.21.5"
ln -s libnccl.so.2.21.5 "$TRASH/ldc/lib/libnccl.so.2"
{
	echo "900 libs found in cache \`/etc/ld.so.cache'"
	for i in $(seq 1 450); do printf '\tlibx%d.so.1 (libc6,x86-64) => /usr/lib/libx%d.so.1\n' "$i" "$i"; done
	printf '\tlibnccl.so.2 (libc6,x86-64) => %s\n' "$TRASH/ldc/lib/libnccl.so.2"
	for i in $(seq 451 899); do printf '\tliby%d.so.1 (libc6,x86-64) => /usr/lib/liby%d.so.1\n' "$i" "$i"; done
} >"$TRASH/ldc/cache"
grep -v libnccl "$TRASH/ldc/cache" >"$TRASH/ldc/cache0"
printf '#!/bin/sh\ncat "${LDC_CACHE:?}"\n' >"$TRASH/ldc/bin/ldconfig"
chmod +x "$TRASH/ldc/bin/ldconfig"
t_ok "probe with NCCL in the loader cache" env PATH="$TRASH/ldc/bin:$PATH" LDC_CACHE="$TRASH/ldc/cache" \
	bash "$TOP/templates/probe-node.sh" "$TRASH/nccl1" 10
t_ok "the probe reads NCCL's version from the name the link resolves to" \
	test "$(jget "$TRASH/nccl1/probe.10.$NODE.json" 'd["nccl_version"]')" = 2.21.5
t_ok "probe with no NCCL in the loader cache" env PATH="$TRASH/ldc/bin:$PATH" LDC_CACHE="$TRASH/ldc/cache0" \
	bash "$TOP/templates/probe-node.sh" "$TRASH/nccl0" 11
t_ok "no NCCL: missing, with the reason" test "$(jget "$TRASH/nccl0/probe.11.$NODE.json" \
	'd["nccl_version"]["status"], d["nccl_version"]["why"]')" = "missing no libnccl.so in the loader cache"

# ---- the after sample without nvidia-smi ------------------------------------------
if ! PATH=/usr/bin:/bin command -v nvidia-smi >/dev/null; then
	mkdir -p "$TRASH/bare"
	t_ok "after sample on a node without nvidia-smi: exits 0" env PATH=/usr/bin:/bin bash "$TOP/templates/probe-node.sh" "$TRASH/bare" 9 after
	t_ok "after sample without nvidia-smi: written, the GPUs missing with a reason" test "$(jget "$TRASH/bare/probe-after.9.$NODE.json" \
		'd["status"], d["gpus"]["status"], d["gpus"]["why"]')" = "ok missing nvidia-smi is not on PATH"
fi

t_done
