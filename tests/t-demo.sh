#!/usr/bin/env bash
# The README's demo, end to end with the local executor: a real venv, real
# token data, real PyTorch training at scales 1 and 2, parse and report.
. "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c 'import torch, venv' 2>/dev/null || t_skip_all "/usr/bin/python3 has no torch or venv (python3-torch, python3-venv)"
I=$TRASH/inst
m() { make -C "$TOP" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR=local WORKLOAD=tinygpt "$@"; }

t_ok "make report WORKLOAD=tinygpt runs every stage" m report
cp "$TRASH/.out" "$TRASH/first.out"
R=$I/workloads/tinygpt/reports/cpu_tiny_fp32.json
t_grep "the report is printed" 'tinygpt cpu tiny fp32' "$TRASH/first.out"
for s in 1 2; do
	res=$I/workloads/tinygpt/experiments/cpu_tiny_fp32_$s/result.json
	t_grep "scale $s: the run succeeded" '"status": "success"' "$res"
	# The loss goes down: mean of the first five steps above the last five.
	t_ok "scale $s: the loss goes down" /usr/bin/python3 -c "
import json, sys
s = json.load(open('$res'))['samples']
a = sum(x['loss'] for x in s[:5]) / 5; b = sum(x['loss'] for x in s[-5:]) / 5
sys.exit(0 if a > b else 1)"
done
t_ok "the report has both scales with tokens/s" /usr/bin/python3 -c "
import json, sys
r = json.load(open('$R'))
txt = json.dumps(r)
sys.exit(0 if '\"tokens_per_s\"' in txt and all(str(s) in txt for s in (1, 2)) else 1)"
t_ok "the training venv sees torch" "$I"/venvs/venv_*/bin/python -c 'import torch'
m report >"$TRASH/second.out" 2>&1
t_nogrep "a second make submits nothing" 'submitted|attached' "$TRASH/second.out"
t_done
