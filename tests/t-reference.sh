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

# Megatron-Bridge's published rows (workloads/published/megatron-bridge.yaml)
# are the script's output on the committed copies of its two tables, at the
# commit the file names.
PUB=workloads/published/megatron-bridge.yaml
commit=$(sed -n 's/^commit: //p' "$PUB")
t_ok "published: the data is scripts/mb-published.py's output on tests/published" sh -c \
	'python3 scripts/mb-published.py "$1" "$2/published/performance-summary.md" \
		"$2/published/performance-summary-archive.md" | cmp - "$3"' _ "$commit" "$TESTS_DIR" "$PUB"
t_ok "published: every table row is imported (233 rows)" test "$(grep -c ', table: ' "$PUB")" = 233
t_grep "published: 26.04.01 llama3.1 70b gb300 FP8 names its source" \
	'release: "26.04.01", file: docs/performance-summary-archive.md, line: 201, section: "26.04.01 NeMo Container", table: pretrain, model: "LLAMA3_70B", workload: llama3.1, size: 70b, gpu: gb300, scale: 64, precision: "FP8", dtype: fp8, compute_dtype: fp8_cs, gbs: 256, mbs: 2, seq: 8192, fsdp: 64, tp: 1, pp: 1, cp: 1, vp: 0, ep: 1, tokens_per_s_per_gpu: 5248, tflops_per_gpu: 2348' "$PUB"

# Every published row of the seven Megatron-Bridge workloads is checked:
# TFLOPS/GPU from tokens/s/GPU by llmb's FLOPs count, MFU against the
# dtype's peak; none differs without a note, and the rows of the release
# the image runs (*) that match a recipe row say so.
for pair in llama3.1:61 deepseek-v3:24 gpt-oss:27 kimi-k2:4 nemotron-h:0 nemotron3:50 qwen3:52; do
	w=${pair%:*}
	t_ok "published $w: no unexpected differences" "$LLMB" metrics --reference "$w" --top .
	cp "$TRASH/.out" "$TRASH/pub-$w.txt"
	t_grep "published $w: 0 differ" "^$w: [0-9]+ ok, [0-9]+ known, 0 differ, 0 errors$" "$TRASH/pub-$w.txt"
	t_ok "published $w: ${pair#*:} rows checked" test "$(grep -cE '^26\.[0-9.]+\*? ' "$TRASH/pub-$w.txt")" = "${pair#*:}"
	t_nogrep "published $w: no DIFF rows" ' DIFF$' "$TRASH/pub-$w.txt"
done
for want in "llama3.1: current release 26.04.01" "deepseek-v3: current release 26.04.01" \
	"gpt-oss: current release 26.02.01" "qwen3: current release 26.04.01"; do
	w=${want%%:*}
	t_grep "published $w: ${want#*: } is the image's" "^$w: .*; ${want#*: } \\(the image's" "$TRASH/pub-$w.txt"
done
t_grep "published deepseek-v3: the 4 current rows match recipe rows" \
	'^deepseek-v3: 4 of the 4 current published rows match a recipe row$' "$TRASH/pub-deepseek-v3.txt"
t_grep "published nemotron-h: none, said" '^nemotron-h: no published rows \(workloads/published/megatron-bridge\.yaml, Megatron-Bridge 067f987df03b\): Megatron-Bridge publishes none of this model$' "$TRASH/pub-nemotron-h.txt"
t_grep "published kimi-k2: the current row matches" '^kimi-k2: 1 of the 1 current' "$TRASH/pub-kimi-k2.txt"
t_grep "published llama3.1 gb300 70b FP8 at 64: current, matches, consistent" \
	'^26\.04\.01\* gb300 70b +fp8 +64 FP8 .* TFLOPS/GPU 2348=2357\.52 +MFU% 47\.9 +step 6\.244 +recipe matches +ok$' \
	"$TRASH/pub-llama3.1.txt"
t_grep "published llama3.1 gb300 70b MXFP8: the recipe's fields that differ" \
	'^      recipe differs: precision MXFP8 \(run fp8_cs\), mbs 1 \(run 2\), pp 4 \(run 1\), vp 5 \(run 0\), fsdp 0 \(run 1\)$' \
	"$TRASH/pub-llama3.1.txt"
t_grep "published gpt-oss 26.06: 20% FLOPs count is known" \
	'^26\.06 +gb300 120b fp8 +64 MXFP8 .* TFLOPS/GPU 1081!=900\.[0-9]+ .* known$' "$TRASH/pub-gpt-oss.txt"

# The check can fail: a changed TFLOPS/GPU of a consistent row is DIFF, and
# so is a coarse 26.04.01 row once its release note is gone.
P=$TRASH/pubcopy
mkdir -p "$P/workloads/published" "$P/pipelines"
cp workloads/*.yaml "$P/workloads/"
sed 's/tokens_per_s_per_gpu: 6338, tflops_per_gpu: 1648}/tokens_per_s_per_gpu: 6338, tflops_per_gpu: 1660}/' \
	"$PUB" >"$P/$PUB"
t_rc "published: TFLOPS/GPU 1648 -> 1660: exit 1" 1 env -C "$P" "$LLMB" metrics --reference deepseek-v3 --top .
t_grep "published: TFLOPS/GPU 1660: DIFF" '^26\.06 +gb300 671b fp8 .* TFLOPS/GPU 1660!=1647\.8[0-9] .* DIFF$' "$TRASH/.out"
grep -v '^  - {release: "26.04.01", note:' "$PUB" >"$P/$PUB"
t_rc "published: 26.04.01 note removed: exit 1" 1 env -C "$P" "$LLMB" metrics --reference llama3.1 --top .
t_grep "published: 26.04.01 note removed: DIFF" '^26\.04\.01\* h100 +70b .* TFLOPS/GPU 731!=747\.53 .* DIFF$' "$TRASH/.out"
# A table that does not load is an error, said with its place.
sed 's/tflops_per_gpu: 1298}/tflops_per_gpu: fast}/' "$PUB" >"$P/$PUB"
t_rc "published: a bad table: exit 2" 2 env -C "$P" "$LLMB" metrics --reference deepseek-v3 --top .
t_grep "published: a bad table: file:line:col" "^workloads/published/megatron-bridge.yaml:[0-9]+:[0-9]+: error: " "$TRASH/.out"

t_done
