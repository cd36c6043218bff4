#!/usr/bin/env bash
# t-sysdesc: llmb sysdesc, the MLPerf-style system description, against a
# golden (tests/sysdesc): a report model whose runs carry their provenance
# (one on one node, one on two nodes with lowered application clocks on
# the second, an excluded run on four nodes whose probes failed, a run
# without provenance). Every MLPerf system_desc field is there, as a
# string; what no probe recorded stays empty; bad input is exit 2.
. "$(dirname "$0")/lib.sh"
G=$TESTS_DIR/sysdesc
t_rc "a report: exit 0" 0 "$LLMB" sysdesc --submitter=llmb --division=closed --status=available "$G/report.json"
cp "$TRASH/.out" "$TRASH/report.sysdesc.json"
t_cmp "a report: the golden" "$G/report.sysdesc.json" "$TRASH/report.sysdesc.json"
t_ok "every value is a string, keys sorted, indented by 4" python3 -c '
import json, sys
t = open(sys.argv[1]).read(); d = json.loads(t)
assert all(isinstance(v, str) for v in d.values()), d
assert t == json.dumps(d, sort_keys=True, indent=4) + "\n"
' "$TRASH/report.sysdesc.json"
t_rc "--system-name names the system" 0 "$LLMB" sysdesc --system-name="eos h100" "$G/report.json"
t_grep "--system-name: its value" '^    "system_name": "eos h100",$' "$TRASH/.out"
t_rc "--out writes the file" 0 "$LLMB" sysdesc --out="$TRASH/o.json" "$G/report.json"
t_ok "--out: the same description" test "$(grep -c '"' "$TRASH/o.json")" = 34
echo '{"schema": 1, "runs": [{"name": "x"}]}' >"$TRASH/noprov.json"
t_rc "a report without provenance: exit 2" 2 "$LLMB" sysdesc "$TRASH/noprov.json"
t_grep "it says so" 'no run with a provenance.json' "$TRASH/.out"
printf '{"runs": [\n' >"$TRASH/broken.json"
t_rc "a broken file: exit 2" 2 "$LLMB" sysdesc "$TRASH/broken.json"
t_grep "a broken file: file:line:col: error" 'broken\.json:[0-9]+:[0-9]+: error: ' "$TRASH/.out"
t_rc "no input: usage, exit 2" 2 "$LLMB" sysdesc
# A value no probe could give as a number is left empty, not 0.
sed 's/"memory.total": "81559"/"memory.total": "unknown"/' "$G/report.json" >"$TRASH/na.json"
t_rc "memory.total unknown: exit 0" 0 "$LLMB" sysdesc "$TRASH/na.json"
t_grep "memory.total unknown: the capacity left empty" '^    "accelerator_memory_capacity": "",$' "$TRASH/.out"
# A provenance's own values, as they stand: pins that are no strings are
# skipped, a memory size written with an exponent is no figure.
python3 - "$G/report.json" >"$TRASH/pins.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    if isinstance(r.get("provenance"), dict):
        r["provenance"]["software"] = {"venv": {"python": "3.12.3", "pins": ["torch==2.5.1", None, 3]}}
print(json.dumps(d).replace('"memory.total": "81559"', '"memory.total": "1e308"'))
EOF
t_rc "pins that are no strings, memory.total 1e308: exit 0" 0 "$LLMB" sysdesc "$TRASH/pins.json"
t_grep "...the framework names the string pins only" '^    "framework": "Python 3\.12\.3, torch==2\.5\.1",$' "$TRASH/.out"
t_grep "...the capacity left empty" '^    "accelerator_memory_capacity": "",$' "$TRASH/.out"
# ... and so is a count or a clock that is not a number (it was copied as it stood).
sed 's/"cpus": "224"/"cpus": "lots"/; s/"clocks.max.sm": "1980"/"clocks.max.sm": "unknown"/' "$G/report.json" >"$TRASH/na2.json"
t_rc "cpus and clocks.max.sm not numbers: exit 0" 0 "$LLMB" sysdesc "$TRASH/na2.json"
t_grep "cpus not a number: the vCPU count left empty" '^    "host_processor_vcpu_count": "",$' "$TRASH/.out"
t_grep "clocks.max.sm not a number: the frequency left empty" '^    "accelerator_frequency": "",$' "$TRASH/.out"
# Counts are reported as they are, never clamped: Slurm's node list is
# counted without expanding it (100,000 nodes), and 5,000 probed nodes are
# 5,000 (a list of 4,096 names held them before).
python3 - "$G/report.json" "$TRASH/counts" <<'EOF2'
import json, sys
p = json.load(open(sys.argv[1]))["runs"][0]["provenance"]
node = p["nodes"]["gpu-a01"]
p["machine"]["nodes"] = "gpu-[000001-100000]"
json.dump(p, open(sys.argv[2] + "-list.json", "w"))
p["machine"]["nodes"] = "gpu-[0001-5000]"
p["nodes"] = {"gpu-%04d" % i: node for i in range(5000, 0, -1)}
json.dump(p, open(sys.argv[2] + "-probed.json", "w"))
EOF2
t_rc "a run on 100,000 nodes (Slurm's list): exit 0" 0 "$LLMB" sysdesc "$TRASH/counts-list.json"
t_grep "100,000 nodes: counted, not clamped" '^    "number_of_nodes": "100000",$' "$TRASH/.out"
t_grep "100,000 nodes: the system name says so" '^    "system_name": "100000 x 8 NVIDIA H100 80GB HBM3",$' "$TRASH/.out"
sed -i 's/"gpu-\[0001-5000\]"/""/' "$TRASH/counts-probed.json"
t_rc "a run with 5,000 probed nodes and no node list: exit 0" 0 "$LLMB" sysdesc "$TRASH/counts-probed.json"
t_grep "5,000 probed nodes: all counted" '^    "number_of_nodes": "5000",$' "$TRASH/.out"
# Options: "--opt value" as "--opt=value"; enumerated values checked.
t_rc "--out FILE --system-name NAME (the next word)" 0 "$LLMB" sysdesc --out "$TRASH/o2.json" --system-name "eos" "$G/report.json"
t_grep "--system-name NAME: its value" '"system_name": "eos",' "$TRASH/o2.json"
t_rc "--division=half: refused" 2 "$LLMB" sysdesc --division=half "$G/report.json"
t_grep "--division=half: the choices" 'division=half: expected closed or open' "$TRASH/.out"
t_rc "--status=ready: refused" 2 "$LLMB" sysdesc --status=ready "$G/report.json"
# --out writes a regular file (or - for stdout); anything else is refused, never replaced.
mkdir -p "$TRASH/outs/dir" && mkfifo "$TRASH/outs/fifo" && : >"$TRASH/outs/target" && ln -sf target "$TRASH/outs/link"
for o in dir fifo link; do
	t_rc "--out onto a $o: refused (exit 2)" 2 timeout 10 "$LLMB" sysdesc --out="$TRASH/outs/$o" "$G/report.json"
	t_grep "--out onto a $o: says why" 'not a regular file: refusing to replace it' "$TRASH/.out"
done
t_ok "--out onto a symlink: the link and its target are as they were" test -L "$TRASH/outs/link" -a ! -s "$TRASH/outs/target"
# a device node of our own, never a system one such as /dev/null (a writer
# that failed this test would replace it), where this user may make one
if mknod "$TRASH/outs/dev" c 1 3 2>/dev/null; then
	t_rc "--out onto a device: refused (exit 2)" 2 "$LLMB" sysdesc --out="$TRASH/outs/dev" "$G/report.json"
	t_ok "the device node is still one" test -c "$TRASH/outs/dev"
fi
t_rc "--out=- writes to stdout" 0 env -C "$TRASH/outs" "$LLMB" sysdesc --out=- "$G/report.json"
t_grep "--out=-: the description on stdout" '"system_name"' "$TRASH/.out"
t_ok "--out=-: no file named -" test ! -e "$TRASH/outs/-"
t_done
