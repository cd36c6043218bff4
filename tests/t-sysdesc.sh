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
t_done
