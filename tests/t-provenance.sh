#!/usr/bin/env bash
# t-provenance: provenance.json of real runs with the local executor, the
# per-node probe through the nvidia-smi stand-in (tests/provenance/bin), and
# `llmb diff` between runs. tinygpt (PyTorch on CPU, a short run) in a git
# checkout: every field the local executor can have is there, the rest is
# marked missing. The quick shell workload: a second run after an image tag
# change, a recipe change (gbs) and a node change (the stand-in's lowered
# clocks on this node) differs in exactly those fields; a hanging probe is
# killed at its bound, recorded as failed, and the run still completes.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import torch' 2>/dev/null || t_skip_all "python3-torch is not installed"
command -v mksquashfs >/dev/null || t_skip_all "mksquashfs (squashfs-tools) is not installed"
export PATH=$TESTS_DIR/provenance/bin:$TESTS_DIR/bin:$PATH
NODE=$(hostname -s)
# jq-free JSON queries through python3: jget FILE EXPR (d is the document).
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# ---- tinygpt in a git checkout ------------------------------------------------
T=$TRASH/tiny
t_checkout "$T"
ln -s "$TOP/workloads/tinygpt" "$T/workloads/tinygpt"
sed -e 's/^  steps: 50$/  steps: 12/' -e 's/^  window: \[11, 44\]$/  window: [3, 10]/' \
	"$TOP/workloads/tinygpt.yaml" >"$T/workloads/tinygpt.yaml"
git -C "$T" init -q && git -C "$T" add -A && git -C "$T" -c user.name=t -c user.email=t@t commit -qm t
I=$TRASH/tinst
# A secret in the caller's environment (by its name's spelling, in any
# case: HF_TOKEN, TOKEN, SLURM_JWT, GITHUB_PAT, hf_token, NGC_APIKEY,
# DB_PASS), also under a name of a recorded family: its value is written
# nowhere.
SECRET=hf_envrecSECRETvalue
t_ok "tinygpt trains with the local executor" env HF_TOKEN=$SECRET NCCL_FAKE_TOKEN=$SECRET TOKEN=$SECRET \
	SLURM_JWT=$SECRET GITHUB_PAT=$SECRET hf_token=$SECRET NGC_APIKEY=$SECRET DB_PASS=$SECRET \
	make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/tgen" LLMB_INSTALL="$I" EXECUTOR=local WORKLOAD=tinygpt SCALES=1 train
P=$I/workloads/tinygpt/experiments/cpu_tiny_fp32_1/provenance.json
t_ok "the run directory has provenance.json" test -s "$P"
t_ok "provenance.json: keys sorted, indented by 2" python3 -c '
import json, sys
t = open(sys.argv[1]).read()
assert t == json.dumps(json.loads(t), sort_keys=True, indent=2, separators=(",", ": ")) + "\n"
' "$P"
t_ok "no temporary file left in the run directory" sh -c "! ls '$(dirname "$P")' | grep -q tmp"
t_ok "every field the local executor can have is there" python3 - "$P" "$(git -C "$T" rev-parse --short HEAD)" "$NODE" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); head, node = sys.argv[2], sys.argv[3]
def have(v): assert v is not None and not (isinstance(v, dict) and v.get("status") == "missing"), v
s, c, m = d["software"], d["configuration"], d["machine"]
assert s["llmb_version"].startswith(head), s["llmb_version"]
assert s["venv"]["python"].count(".") >= 1 and len(s["venv"]["pip_freeze_sha256"]) == 64
for k in ("recipe", "config_hash", "script_sha256", "knobs"): have(c[k])
assert c["recipe"]["file"] == "tinygpt.yaml" and len(c["recipe"]["sha256"]) == 64
assert c["knobs"]["gbs"] == "8" and c["workload"] == "tinygpt"
assert m["executor"] == "local" and m["job"].startswith("local-") and m["exit_code"] == "0"
for k in ("submit", "end", "nodes"): have(m[k])
g = d["nodes"][node]
assert g["status"] == "ok" and g["cuda_version"] == "12.4" and len(g["topo_sha256"]) == 64
assert len(g["gpus"]) == 2 and g["gpus"][0]["clocks.sm"] == "1980" and g["gpus"][0]["power.limit"] == "700.00"
have(g["kernel"])
EOF
t_ok "what the local executor cannot have is marked missing, with a reason" python3 - "$P" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
img = d["software"]["image"]
assert img["status"] == "missing" and img["why"], img
EOF
t_nogrep "no secret value in provenance.json" 'hf_[A-Za-z]{8}' "$P"
# The HTML report: each run's provenance, collapsed (a <details> without open).
"$TOP/build/llmb" report --top="$T" --workload tinygpt --gpu cpu --size tiny --dtype fp32 --format=html \
	"$I/workloads/tinygpt/experiments" >"$TRASH/report.html" 2>&1
t_grep "report.html: the run's provenance, collapsed" \
	"^<details class=\"provenance\"><summary>cpu_tiny_fp32_1 \\(job $(jget "$P" 'd["machine"]["job"]')\\)</summary>\$" "$TRASH/report.html"
t_grep "report.html: provenance fields, one row each" "^<tr><td class=\"l\">nodes\\.$NODE\\.gpus\\[0\\]\\.clocks\\.sm</td><td class=\"l\">1980</td></tr>\$" "$TRASH/report.html"
t_grep "report.html: a missing probe says why" '^<tr><td class="l">software\.image</td><td class="l"><span class="ref">missing: ' "$TRASH/report.html"
t_nogrep "report.html: nothing opened by default" '<details[^>]* open' "$TRASH/report.html"
# The system description from the run's provenance.
t_ok "llmb sysdesc of the run: the stand-in's GPUs, this host's CPU and memory" python3 - \
	"$("$TOP/build/llmb" sysdesc "$(dirname "$P")")" "$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)" <<'EOF'
import json, sys
d, cpu = json.loads(sys.argv[1]), sys.argv[2]
assert d["accelerator_model_name"] == "NVIDIA H100 80GB HBM3" and d["accelerators_per_node"] == "2", d
assert d["accelerator_memory_capacity"] == "79.6 GiB" and d["number_of_nodes"] == "1", d
assert d["host_processor_model_name"] == cpu and int(d["host_processor_vcpu_count"]) > 0, d
assert d["host_memory_capacity"].endswith(" GiB") and d["operating_system"].startswith("Linux "), d
assert d["framework"].startswith("Python 3."), d
EOF

# ---- the job's environment -------------------------------------------------------
t_ok "provenance: the rank-0 task's environment, secrets by name redacted" python3 - "$P" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert "environment" not in d["configuration"], d["configuration"]
e = d["job_environment"]
v = e["variables"]
assert e["task"] == "rank 0" and v["RANK"] == "0" and v["LLMB_STAGE"] == "train.tinygpt.cpu.tiny.fp32.1", e
for n in ("HF_TOKEN", "NCCL_FAKE_TOKEN", "TOKEN", "SLURM_JWT", "GITHUB_PAT", "hf_token", "NGC_APIKEY", "DB_PASS"):
    assert v[n] == "<redacted>", (n, v[n])
EOF
cp "$P" "$TRASH/tiny-a.json"
# An NCCL_ variable in the caller's shell is part of the training's
# configuration: it re-runs the training alone (and what reads its
# result), never the data or the venv, and llmb diff names it.
tm() { make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/tgen" LLMB_INSTALL="$I" EXECUTOR=local WORKLOAD=tinygpt SCALES=1 "$@"; }
t_ok "without the variable, nothing to run" tm -n train
t_nogrep "...no stage would run" 'llmb run ' "$TRASH/.out"
t_ok "with NCCL_DEBUG_SUBSYS=INIT: the plan" env NCCL_DEBUG_SUBSYS=INIT make -C "$T" B="$TOP/build" \
	LLMB_GEN="$TRASH/tgen" LLMB_INSTALL="$I" EXECUTOR=local WORKLOAD=tinygpt SCALES=1 -n train
cp "$TRASH/.out" "$TRASH/plan-env.out"
t_grep "...runs the training again" 'llmb run .* train\.tinygpt\.cpu\.tiny\.fp32\.1$' "$TRASH/plan-env.out"
t_ok "...and nothing else (no data, no venv)" test "$(grep -c 'llmb run ' "$TRASH/plan-env.out")" = 1
t_grep "the training's configuration records the variable" '^callerenv=NCCL_DEBUG_SUBSYS=INIT$' \
	"$TRASH/tgen/cfg/train.tinygpt.cpu.tiny.fp32.1"
t_nogrep "...and no other stage's" 'callerenv=' "$TRASH/tgen/cfg/data.tinygpt.tokens"
t_ok "tinygpt with NCCL_DEBUG_SUBSYS=INIT in the caller's environment" \
	env NCCL_DEBUG_SUBSYS=INIT HF_TOKEN=$SECRET make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/tgen" LLMB_INSTALL="$I" \
	EXECUTOR=local WORKLOAD=tinygpt SCALES=1 train
t_ok "provenance: the variable as configured and as the rank-0 task had it" python3 - "$P" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["configuration"]["environment"] == {"NCCL_DEBUG_SUBSYS": "INIT"}, d["configuration"]
assert d["job_environment"]["variables"]["NCCL_DEBUG_SUBSYS"] == "INIT", d["job_environment"]
EOF
t_rc "llmb diff of the runs without and with it: different" 1 "$TOP/build/llmb" diff "$TRASH/tiny-a.json" "$P"
cp "$TRASH/.out" "$TRASH/diff-env.out"
t_grep "llmb diff names the variable" '^  environment\.NCCL_DEBUG_SUBSYS: unset -> INIT$' "$TRASH/diff-env.out"
t_nogrep "llmb diff names nothing of the job's own environment (job id, port)" 'job_environment|MASTER_PORT' "$TRASH/diff-env.out"
# shellcheck disable=SC2016 # for sh -c
t_ok "the secret's value is in no file of the install tree or the generated rules" \
	sh -c '! grep -rlI -e "$0" "$1" "$2"' "$SECRET" "$I" "$TRASH/tgen"
# make's own list (what regenerates the rules) and llmb's (what the
# configuration records) leave out the same secret names.
t_ok "names near the secret patterns: make -n" env NCCL_FAKE_TOKEN=a NCCL_A_SECRET_B=b NCCL_KEY=c NCCL_KEYS=d \
	TORCH_X_KEY_ID=e UCX_TOKENS=f FI_MY_TOKEN_X=g OMPI_PASSWDX=h PMIX_CREDENTIALS=i NVTE_OK=j make -C "$T" B="$TOP/build" \
	LLMB_GEN="$TRASH/tgen2" LLMB_INSTALL="$I" EXECUTOR=local WORKLOAD=tinygpt SCALES=1 -n train
t_ok "...make and the configuration record the same names" test \
	"$(sed -n 's/^callerenv=\([^=]*\)=.*/\1/p' "$TRASH/tgen2/cfg/train.tinygpt.cpu.tiny.fp32.1" | tr '\n' ' ')" = \
	"$(sed -n 's/^LLMB_GENERATED_FOR := .*EXECUTOR=local //p' "$TRASH/tgen2/rules.mk" | sed 's/=[a-z]//g') "
t_grep "...the names that are not secrets'" '^callerenv=NCCL_KEYS=d$' "$TRASH/tgen2/cfg/train.tinygpt.cpu.tiny.fp32.1"
t_rc "a recorded variable holding a newline is refused" 2 env NCCL_ALGO="$(printf 'Ring\nTree')" make -C "$T" B="$TOP/build" \
	LLMB_GEN="$TRASH/tgen" LLMB_INSTALL="$I" EXECUTOR=local WORKLOAD=tinygpt SCALES=1 -n train
t_grep "...naming the variable" '^llmb: error: environment variable NCCL_ALGO holds a newline' "$TRASH/.out"

# ---- quick: diffs --------------------------------------------------------------
Q=$TRASH/quick
t_quick_checkout "$Q"
J=$TRASH/qinst
R=$J/workloads/quick/experiments/cpu_tiny_fp32_1
q() { make -C "$Q" B="$TOP/build" LLMB_GEN="$TRASH/qgen" LLMB_INSTALL="$J" EXECUTOR=local WORKLOAD=quick SCALES=1 train; }
t_ok "quick: first run" q
cp "$R/provenance.json" "$TRASH/a.json"
t_ok "quick: the image is in the provenance" test "$(jget "$R/provenance.json" 'd["software"]["image"]["ref"]')" = "nvcr.io#nvidia/quick:1.0"
# again: without its stamp, make runs the training stage again
again() { rm -f "$J/state/done/train.quick.cpu.tiny.fp32.1"; }
again
t_ok "quick: the same run again" q
t_ok "two runs of one configuration are different jobs" test "$(jget "$TRASH/a.json" 'd["machine"]["job"]')" != "$(jget "$R/provenance.json" 'd["machine"]["job"]')"
t_rc "llmb diff of two runs of one configuration: no differences" 0 "$TOP/build/llmb" diff "$TRASH/a.json" "$R"
t_grep "llmb diff says so" '^no differences' "$TRASH/.out"
# A run knob (MAX_STEPS) is recorded as set, so the diff names it.
again
t_ok "quick: a run with MAX_STEPS=4" make -C "$Q" B="$TOP/build" LLMB_GEN="$TRASH/qgen" LLMB_INSTALL="$J" \
	EXECUTOR=local WORKLOAD=quick SCALES=1 MAX_STEPS=4 train
t_ok "provenance.json records the run knob as set" test "$(jget "$R/provenance.json" 'd["configuration"]["run_knobs"]["MAX_STEPS"]')" = 4
t_rc "llmb diff of a run with MAX_STEPS: different" 1 "$TOP/build/llmb" diff "$TRASH/a.json" "$R"
t_grep "llmb diff names the knob that differs" '^  run_knobs\.MAX_STEPS: .* -> 4$' "$TRASH/.out"

sed -i 's/quick:1.0/quick:1.1/; s/gbs: 2/gbs: 4/' "$Q/workloads/quick.yaml"
again
t_ok "quick: a run after a new image tag, a new gbs, on a node with lowered clocks" \
	env NVSMI_STANDIN_SLOW="$NODE" make -C "$Q" B="$TOP/build" LLMB_GEN="$TRASH/qgen" LLMB_INSTALL="$J" \
	EXECUTOR=local WORKLOAD=quick SCALES=1 train
t_rc "llmb diff: different (exit 1)" 1 "$TOP/build/llmb" diff --format=json "$TRASH/a.json" "$R"
cp "$TRASH/.out" "$TRASH/diff.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["differences"]
for g in ("software", "configuration", "machine", "nodes"):
    for x in d[g]: print(g, x["field"], x["a"], x["b"])
' "$TRASH/diff.json" | sed "s/ $NODE\./ NODE./" | awk '{print $1, $2, ($1 == "nodes" || $2 == "knobs.gbs" || $2 == "image.ref") ? $3 " " $4 : ""}' >"$TRASH/diff.fields"
cat >"$TRASH/diff.want" <<'EOF'
software image.id_sha256 
software image.ref nvcr.io#nvidia/quick:1.0 nvcr.io#nvidia/quick:1.1
software image.sqsh.sha256_ends 
configuration config_hash 
configuration knobs.gbs 2 4
configuration recipe.pins_aside_sha256 
configuration recipe.sha256 
nodes NODE.gpus[0].clocks.applications.graphics 1980 1410
nodes NODE.gpus[0].clocks.sm 1980 1410
nodes NODE.gpus[1].clocks.applications.graphics 1980 1410
nodes NODE.gpus[1].clocks.sm 1980 1410
EOF
t_cmp "llmb diff names exactly the image, the recipe and the node's clocks" "$TRASH/diff.want" "$TRASH/diff.fields"
t_rc "llmb diff (text): different" 1 "$TOP/build/llmb" diff "$TRASH/a.json" "$R"
t_grep "text diff: grouped, old -> new" '^  image\.ref: nvcr\.io#nvidia/quick:1\.0 -> nvcr\.io#nvidia/quick:1\.1$' "$TRASH/.out"
t_grep "text diff: the node's clocks" "^  $NODE\\.gpus\\[0\\]\\.clocks\\.sm: 1980 -> 1410\$" "$TRASH/.out"
# make bisect of the two: the image is a component it swaps (an image stage
# of its own, LLMB_BISECT_IMAGE, for the swapped side); gbs changed the
# recipe beyond its pins, so the recipe is listed as not swapped.
t_rc "bisect plan: the image a swappable component (exit 0)" 0 \
	"$TOP/build/llmb" bisect --top "$Q" --install "$J" --good="$TRASH/a.json" --bad="$R"
t_grep "bisect plan: the image, by the recipe's key" '^  image base: nvcr\.io#nvidia/quick:1\.0 -> nvcr\.io#nvidia/quick:1\.1$' "$TRASH/.out"
t_grep "bisect plan: the recipe changed beyond its pins: not swapped" '^  recipe: [0-9a-f]{12} -> [0-9a-f]{12} \(the recipe file changed' "$TRASH/.out"
rc=0
make -C "$Q" B="$TOP/build" LLMB_GEN="$TRASH/qgen" LLMB_INSTALL="$J" EXECUTOR=local WORKLOAD=quick SCALES=1 \
	bisect GOOD="$TRASH/a.json" BAD="$R" BISECT_MAX_REPEATS=1 >"$TRASH/bisect.out" 2>&1 || rc=$?
BI=$(sed -n 's/^llmb bisect \([0-9a-f]\{12\}\):.*/\1/p' "$TRASH/bisect.out")
BR=$J/workloads/quick/experiments/bisect/$BI/cpu_tiny_fp32_1
t_ok "make bisect ran round 1 (exit $rc)" test -e "$BR/r1b1/provenance.json" -a -n "$BI"
t_ok "round 1: A ran in the good run's image, B in the bad run's" test \
	"$(jget "$BR/r1a1/provenance.json" 'd["software"]["image"]["ref"]') $(jget "$BR/r1b1/provenance.json" 'd["software"]["image"]["ref"]')" \
	= "nvcr.io#nvidia/quick:1.0 nvcr.io#nvidia/quick:1.1"
grep -E '^(round|bisection|CULPRIT|NO CULPRIT|INCONCLUSIVE)' "$TRASH/bisect.out" | sed 's/^/# /'
t_rc "llmb diff of a broken file: exit 2" 2 "$TOP/build/llmb" diff "$TRASH/diff.want" "$R"
t_grep "broken file: file:line:col: error" 'diff\.want:1:[0-9]+: error: ' "$TRASH/.out"

# History records: FILE.jsonl@JOB.
printf '%s\n' '{"v":1,"type":"run","job":"7","llmb_version":"v1","image":{"ref":"a:1","digest":null},"config_hash":"x","nodes":"n1","executor":"slurm"}' \
	'{"v":1,"type":"run","job":"8","llmb_version":"v1","image":{"ref":"a:1","digest":null},"config_hash":"x","nodes":"n2","executor":"slurm"}' >"$TRASH/h.jsonl"
t_rc "llmb diff of two history records" 1 "$TOP/build/llmb" diff "$TRASH/h.jsonl@7" "$TRASH/h.jsonl@8"
cp "$TRASH/.out" "$TRASH/hdiff.out"
t_grep "history records: the node list" '^  nodes: n1 -> n2$' "$TRASH/hdiff.out"
t_ok "history records: only the node list differs" test "$(grep -c ' -> ' "$TRASH/hdiff.out")" = 1

# A probe that hangs is killed at its bound; the benchmark runs anyway.
again
t_ok "a run whose nvidia-smi hangs completes" env NVSMI_STANDIN_HANG=1 LLMB_PROBE_TIMEOUT=2 \
	make -C "$Q" B="$TOP/build" LLMB_GEN="$TRASH/qgen" LLMB_INSTALL="$J" EXECUTOR=local WORKLOAD=quick SCALES=1 train
t_ok "the hanging probe is recorded as failed" test "$(jget "$R/provenance.json" "d['nodes']['$NODE']['status']")" = failed
cat "$R"/log-*.out >"$TRASH/logs"
t_grep "the job log says the probe was killed" "node $NODE: probe killed after 2 s; the run goes on" "$TRASH/logs"
t_done
