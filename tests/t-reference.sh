#!/usr/bin/env bash
# t-reference: every row of every performance table in the seeds (the
# recipes' reference: rows) reproduces from its step time: tokens/s and
# days as printed, MFU within 0.1 pp, TFLOPS/GPU within 0.5%. Rows that
# are inconsistent with their own formula are named here with the reason
# and must stay flagged ("known"); anything else that differs fails.
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 2

WORKLOADS="nemotron4 llama4-maverick llama3-lora maxtext-llama2 grok1"
for w in $WORKLOADS; do
	t_ok "reference $w: no unexpected differences" "$LLMB" metrics --reference "$w" --top .
	cp "$TRASH/.out" "$TRASH/$w.txt"
	t_cmp "reference $w: golden" "$TESTS_DIR/reference/$w.txt" "$TRASH/$w.txt"
	t_nogrep "reference $w: no DIFF rows" ' DIFF$' "$TRASH/$w.txt"
done

# The known inconsistencies: WORKLOAD GPU SIZE DTYPE SCALE STEP  REASON.
known=0
while read -r w gpu size dtype scale step reason; do
	known=$((known + 1))
	pat="^$gpu +$size +$dtype +$scale +step $step .* known$"
	t_grep "known: $w $gpu $size $dtype $scale ($reason)" "$pat" "$TRASH/$w.txt"
done <<'LIST'
grok1 gb200 314b bf16 512 7.324 tokens/s and days use GBS 512, half the table's 1024
grok1 gb200 314b fp8 512 5.193 tokens/s and days use GBS 512, half the table's 1024
grok1 gb200 314b fp8 256 5.224 days 14.4155 truncated to 14.41
grok1 gb200 314b bf16 256 7.382 TFLOPS_per_GPU is NeMo's own count, 2.9% above the formula
llama4-maverick b200 400b bf16 256 0.224 days computed from 584375 tokens/s instead of 585143
llama4-maverick b200 400b bf16 256 0.297 TFLOPS_per_GPU is NeMo's own count, 3.5% above the formula
llama3-lora gb200 70b bf16 8 4.229 tokens/s 30991.25 is not 2048*64/4.229; days 373.6 not 373.46
maxtext-llama2 h100 70b bf16 64 7.908 days 174.5754 truncated to 174.57
LIST
cat "$TRASH"/*.txt | grep -c ' known$' >"$TRASH/nknown"
t_ok "exactly the $known named rows are known" test "$(cat "$TRASH/nknown")" = "$known"

# Every row of the seeds' tables is present: 24 Nemotron4 + 12 MaxText +
# 8 Grok1 table rows, plus the worked examples.
count() { grep -cE "^[a-z0-9]+ +[0-9a-z]+ +(bf16|fp8) " "$TRASH/$1.txt"; }
for pair in nemotron4:25 maxtext-llama2:13 grok1:10 llama4-maverick:2 llama3-lora:2; do
	t_ok "rows: ${pair%:*} has ${pair#*:}" test "$(count "${pair%:*}")" = "${pair#*:}"
done

# A flagged row without its note is an unexpected difference: exit 1, DIFF.
C=$TRASH/copy
mkdir -p "$C/workloads" "$C/pipelines"
cp workloads/*.yaml "$C/workloads/"
awk '/note: "tokens\/s and days are computed with GBS 512, half the table.s 1024 \(8192 \* 1024 \/ 7.324/ { next } { print }' \
	workloads/grok1.yaml >"$C/workloads/grok1.yaml"
t_rc "note removed: exit 1" 1 env -C "$C" "$LLMB" metrics --reference grok1 --top .
t_grep "note removed: the row is DIFF" '^gb200 314b bf16 +512 +step 7.324 .* DIFF$' "$TRASH/.out"
t_grep "note removed: summary counts it" '^grok1: 6 ok, 3 known, 1 differ, 0 errors$' "$TRASH/.out"
# A changed published figure is caught too.
sed 's/step_time: 15.933, tokens_per_s: 526493/step_time: 15.933, tokens_per_s: 526490/' \
	workloads/grok1.yaml >"$C/workloads/grok1.yaml"
t_rc "tokens/s off by 3: exit 1" 1 env -C "$C" "$LLMB" metrics --reference grok1 --top .
t_grep "tokens/s off by 3: DIFF" '^h100 +314b bf16 +512 +step 15.933 +tokens/s 526490!=' "$TRASH/.out"
t_rc "unknown workload" 2 "$LLMB" metrics --reference nosuch --top .

t_done
