#!/usr/bin/env bash
# t-nodes: slow-node suspicion in llmb judge. Histories written by
# tests/nodes/hist.py (one run per night on a given node list, Slurm
# hostlist syntax; the same bytes everywhere): a slow run that shares a
# node with an earlier slow run names that node, with its running score;
# nodes of slow runs never shared are not named; when every run ran on the
# same nodes nothing is named (nothing tells a node from the software);
# runs of other configurations count too.
. "$(dirname "$0")/lib.sh"
FP=sq_cpu_tiny_fp32_4_0123456789ab
FP2=sq_cpu_tiny_fp32_8_0123456789ab
# mk NAME FP NIGHT:NODES:FACTOR...: a history in the install tree $TRASH/NAME.
mk() {
	local d=$TRASH/$1 fp=$2; shift 2
	mkdir -p "$d/history"
	python3 "$TESTS_DIR/nodes/hist.py" "$fp" "$@" >"$d/history/$fp.jsonl"
}
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
BASE=(2026-01-01:n[1-2]:1 2026-01-02:n[3-4]:1 2026-01-03:n[1-2]:1 2026-01-04:n[3-4]:1.004
	2026-01-05:n[1-2]:1 2026-01-06:n[3-4]:0.998)

# n2 is in both slow runs (nights 7 and 9), n3 and n4 in one each.
mk shared $FP "${BASE[@]}" 2026-01-07:n[2-3]:1.25 2026-01-08:n[1,4]:1 2026-01-09:n2,n4:1.25
t_rc "the first slow run: SUSPECT (exit 0)" 0 "$LLMB" judge --install "$TRASH/shared" --night 2026-01-07
t_nogrep "the first slow run names no node (no earlier slow run)" 'suspect node' "$TRASH/.out"
# Two slow nights around a normal one are what a slow node gives, not a
# change of the software: the detector leaves them SUSPECT (no 2-of-3
# rule once the baseline is long enough, docs/history.md) and the nodes
# say which.
t_rc "the second slow run: SUSPECT, not confirmed (exit 0)" 0 "$LLMB" judge --install "$TRASH/shared"
t_grep "...and said so" '^SUSPECT sq_cpu_tiny_fp32_4_0123456789ab: step time \+25\.0%' "$TRASH/.out"
t_grep "the second slow run names n2, with its counts" \
	'^  suspect node n2: in 1 earlier slow run; slow in 2 of 5 runs with it, 0 of 4 without$' "$TRASH/.out"
t_ok "it names n2 alone (n4 was in no earlier slow run)" test "$(grep -c 'suspect node' "$TRASH/.out")" = 1
"$LLMB" judge --install "$TRASH/shared" --format=json >"$TRASH/shared.json"
t_ok "json: suspect_nodes of the configuration" test \
	"$(jq_py "$TRASH/shared.json" '[(x["node"], x["slow_runs"], x["runs"], x["score"]) for x in d["configurations"][0]["suspect_nodes"]]')" \
	= "[('n2', 2, 5, 0.4)]"
t_ok "json: the running score of every node (share of slow runs with it minus without)" test \
	"$(jq_py "$TRASH/shared.json" '" ".join("%s:%d/%d:%.2f" % (k, v["slow_runs"], v["runs"], v["score"]) for k, v in sorted(d["node_scores"].items()))')" \
	= "n1:0/4:-0.40 n2:2/5:0.40 n3:1/4:0.05 n4:1/5:-0.05"
"$LLMB" judge --install "$TRASH/shared" --format=json --night 2026-01-05 >"$TRASH/early.json"
t_ok "json: scores at an earlier night count only the runs up to it" test \
	"$(jq_py "$TRASH/early.json" '" ".join("%s:%d" % (k, v["runs"]) for k, v in sorted(d["node_scores"].items()))')" \
	= "n1:3 n2:3 n3:2 n4:2"

# Every run on the same nodes: a regression of the software looks the same
# on every node; nothing is named.
mk same $FP 2026-01-01:n[1-2]:1 2026-01-02:n[1-2]:1 2026-01-03:n[1-2]:1.3 2026-01-04:n[1-2]:1.3
t_rc "same nodes: CONFIRMED" 1 "$LLMB" judge --install "$TRASH/same"
t_nogrep "same nodes: no node named" 'suspect node' "$TRASH/.out"
"$LLMB" judge --install "$TRASH/same" --format=json >"$TRASH/same.json"
t_ok "same nodes: no suspect_nodes in the JSON" test "$(jq_py "$TRASH/same.json" '"suspect_nodes" in d["configurations"][0]')" = False

# Another configuration's slow run on n5 counts: the first slow run of this
# one, on n5, names it.
mk cross $FP 2026-01-01:n[1-2]:1 2026-01-02:n[1-2]:1 2026-01-03:n[1-2]:1 2026-01-04:n[1-2]:1 \
	2026-01-05:n[1-2]:1 2026-01-06:n[4-5]:1.3
mk cross $FP2 2026-01-01:n[3-4]:1 2026-01-02:n[3-4]:1 2026-01-03:n[3-4]:1 2026-01-04:n[5-6]:1.3 \
	2026-01-05:n[3-4]:1 2026-01-06:n[3-4]:1
t_rc "cross: one SUSPECT configuration (exit 0)" 0 "$LLMB" judge --install "$TRASH/cross"
t_grep "cross: n5, slow in the other configuration two nights before, is named" \
	'^  suspect node n5: in 1 earlier slow run; slow in 2 of 2 runs with it, 0 of 10 without$' "$TRASH/.out"
t_nogrep "cross: n4 is not (its other runs were normal)" 'suspect node n4' "$TRASH/.out"

# Runs on 65,000 nodes (the most a list may name is 65,536), alternating
# between n[1-65000] and n[2-65001] for 30 nights, slow on nights 25 and 30
# (n[1-65000] both): every node is scored and n1 alone is named (the
# others ran with and without the slow nights alike, or never slow). Names
# were looked up and counted by linear searches: judging took minutes. The
# timeout bounds a hang, it measures nothing (bench/judge-nodes.sh does).
big=()
for ((d = 1; d <= 30; d++)); do
	f=1; { [ "$d" = 25 ] || [ "$d" = 30 ]; } && f=1.3
	if ((d % 2 == 0 || d == 25)); then l='n[1-65000]'; else l='n[2-65001]'; fi
	big+=("2026-01-$(printf %02d "$d"):$l:$f")
done
mk big $FP "${big[@]}"
t_rc "65,000 nodes a run, 30 nights: judged (SUSPECT, exit 0)" 0 timeout 300 "$LLMB" judge --install "$TRASH/big" --format=json --out "$TRASH/big.json"
t_ok "65,000 nodes: every node scored" test "$(jq_py "$TRASH/big.json" 'len(d["node_scores"])')" = 65001
t_ok "65,000 nodes: n1 alone named, in 1 earlier slow run" test \
	"$(jq_py "$TRASH/big.json" '[(x["node"], x["earlier_slow_runs"]) for x in d["configurations"][0]["suspect_nodes"]]')" = "[('n1', 1)]"

mk bad $FP 2026-01-01:n[1-2:1 2026-01-02:n[2-1]:1.3
t_rc "a malformed node list is no suspect and no error (inconclusive: two nights)" 4 "$LLMB" judge --install "$TRASH/bad"
t_nogrep "a malformed node list: nothing named" 'suspect node' "$TRASH/.out"
t_done
