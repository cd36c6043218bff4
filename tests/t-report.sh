#!/usr/bin/env bash
# t-report: `llmb report` from real result files (written by `llmb parse
# --result` on generated NeMo logs) in every format against golden files in
# tests/report/expect: a run matching a published Nemotron4 row, repeats, a
# slower run stopped at the time limit, a profiled run, a failed run and an
# unparsed one; a proxy run beside a full-scale one. Then the HTML page in headless Chromium, when installed.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
export LC_ALL=C
G=$TESTS_DIR/report/expect
E=$TRASH/experiments
cd "$TRASH" || exit 1

# nemo_log STEP_TIME [TAIL]: 50 NeMo 2 step lines, iterations 0-49: a slow
# first step, warm-up, then STEP_TIME +- 0.01 alternating (mean STEP_TIME
# over iterations 40-49); TAIL is printed last.
nemo_log() {
	awk -v t="$1" -v tail="${2:-}" 'BEGIN {
		for (i = 0; i < 50; i++) {
			s = i == 0 ? 3 * t : i < 5 ? t + 0.2 : t + (i % 2 ? 0.01 : -0.01)
			printf "Training epoch 0, iteration %d/49 | lr: 6.897e-06 | global_batch_size: 64 | global_step: %d | reduced_train_loss: 11.96 | train_step_timing in s: %.4f | TFLOPS_per_GPU: 650.0 | consumed_samples: %d\n", i, i, s, (i + 1) * 64
		}
		if (tail != "") print tail
	}'
}

# run NAME JOB STEP_TIME [parse options] [-- NOTE]: a run directory with a
# log, its parsed result.json and train.done.
run() {
	local name=$1 job=$2 t=$3 note=
	shift 3
	local opts=()
	while [ $# -gt 0 ]; do
		if [ "$1" = -- ]; then note=$2; break; fi
		opts+=("$1"); shift
	done
	mkdir -p "$E/$name"
	(cd "$E/$name" && nemo_log "$t" "${TAIL:-}" >log.out &&
		"$LLMB" parse --window=40-49 --steps=50 "${opts[@]}" --result=result.json log.out >/dev/null 2>&1)
	done_file "$name" "$job" "$note"
}
done_file() {
	local run=${1%%/*}
	{
		echo "job=$2"
		echo "log=/scratch/llmb/workloads/nemotron4/experiments/$1/log-nemotron4_${run}_$2.out"
		echo "cfg=$(printf %s "$1" | sha256sum | cut -c1-64)"
		echo "image=nvidia+nemo+25.07.01.sqsh"
		echo "executor=slurm"
		[ -z "$3" ] || echo "note=$3"
	} >"$E/$1/train.done"
}

run h100_15b_bf16_16 1001 2.66
run h100_15b_bf16_32 1002 2.50
run h100_15b_bf16_32/repeat-1 1003 2.52
run h100_15b_bf16_32/repeat-2 1004 2.54
TAIL="slurmstepd: error: *** JOB 1005 ON node-1 CANCELLED AT 2025-08-01T10:00:00 DUE TO TIME LIMIT ***" \
	run h100_15b_bf16_64 1005 2.90 -- "completed, then killed at the time limit"
run h100_15b_bf16_128 1006 2.80 --profiled
mkdir -p "$E/h100_15b_bf16_256"
printf '%s\n' 'Training epoch 0, iteration 0/49 | reduced_train_loss: 11.96 | train_step_timing in s: 8.1 | consumed_samples: 1024' \
	'Traceback (most recent call last):' 'torch.OutOfMemoryError: CUDA out of memory.' >"$E/h100_15b_bf16_256/log.out"
(cd "$E/h100_15b_bf16_256" && "$LLMB" parse --window=40-49 --steps=50 --result=result.json log.out >/dev/null 2>&1)
done_file h100_15b_bf16_256 1007 ""
mkdir -p "$E/h100_15b_bf16_512" "$E/h100_15b_fp8_16" "$E/h100_15b_bf16_x"
done_file h100_15b_bf16_512 1008 ""
cp "$E/h100_15b_bf16_16/result.json" "$E/h100_15b_fp8_16/"   # another dtype: not in this report
cp "$E/h100_15b_bf16_16/result.json" "$E/h100_15b_bf16_x/"     # not a scale: ignored

rep() { "$LLMB" report --top="$TOP" --workload nemotron4 --gpu h100 --size 15b --dtype bf16 "$@"; }
bad=
for f in text md csv json html; do
	rep --format=$f "$E" >"$TRASH/out.$f" 2>"$TRASH/err.$f" || bad="$bad $f"
	[ ! -s "$TRASH/err.$f" ] || bad="$bad $f(stderr)"
	t_cmp "report --format=$f" "$G/nemotron4.$f" "$TRASH/out.$f"
done
t_ok "every format exits 0 with nothing on stderr${bad:+ (not:$bad)}" test -z "$bad"

# The published row reproduces: 2.66 s at 16 GPUs is within tolerance, and
# MFU is the published 66.07% within 0.1 pp.
py() { python3 -c "import json,sys; m=json.load(open('$TRASH/out.json')); $1"; }
t_ok "16 GPUs: the step time is within tolerance of the published 2.66 s" \
	py "c=m['columns'][0]['metrics']; sys.exit(not (c['step_time']['verdict']=='within tolerance' and c['step_time']['reference']==2.66))"
t_ok "16 GPUs: MFU is the published 66.07% within 0.1 pp" \
	py "c=m['columns'][0]['metrics']['mfu_pct']; sys.exit(not abs(c['value']-c['reference'])<=0.1)"
t_ok "32 GPUs: three repeats, mean of means 2.52 +- 0.02, faster" \
	py "k=m['columns'][1]; s=k['metrics']['step_time']; sys.exit(not (k['runs']==3 and abs(s['value']-2.52)<1e-9 and abs(s['std']-0.02)<1e-9 and s['min']==2.5 and s['max']==2.54 and s['verdict']=='faster'))"
t_ok "64 GPUs: slower, included with the time-limit note" \
	py "k=m['columns'][2]; r=[r for r in m['runs'] if r['scale']==64][0]; sys.exit(not (k['metrics']['step_time']['verdict']=='slower' and r['note']=='completed, then killed at the time limit'))"
t_ok "128 GPUs: profiled, marked and never compared" \
	py "k=m['columns'][3]; sys.exit(not (k['profiled'] and k['comparison']=='profiled: not compared' and all(c['reference'] is None and c['verdict'] is None for c in k['metrics'].values())))"
t_ok "the failed and the unparsed runs are excluded with why" \
	py "x={e['scale']:e['reason'] for e in m['excluded']}; sys.exit(not (': line 2: Traceback' in x[256] and x[512].startswith('no result.json')))"
t_ok "unknown numbers are null in JSON" py "sys.exit(m['columns'][0]['metrics']['tflops_per_gpu']['reference'] is not None)"
# A run its validity judged invalid, for reasons of 1.5 KB whose bytes at
# any cut are mid-character (a node named with "ñ"), one of them no string:
# excluded with every reason whole, in every format.
mkdir -p "$TRASH/ex2/h100_15b_bf16_16"
cp "$E/h100_15b_bf16_16/result.json" "$E/h100_15b_bf16_16/train.done" "$TRASH/ex2/h100_15b_bf16_16/"
python3 - "$TRASH/ex2/h100_15b_bf16_16/result.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
node = "\u00f1" * 45
d["validity"] = {"valid": False, "invalid": ["GPU clocks throttled on %s GPU %d" % (node, i) for i in range(16)] + [None],
                 "flagged": [], "findings": [], "checked": ["after"]}
json.dump(d, open(sys.argv[1], "w"))
EOF
rep --format=json "$TRASH/ex2" >"$TRASH/ex2.json" 2>&1
t_ok "...excluded with every reason, whole" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))["excluded"][0]
n = "\u00f1" * 45
assert e["reason"] == "invalid: " + "; ".join("GPU clocks throttled on %s GPU %d" % (n, i) for i in range(16)), e' "$TRASH/ex2.json"
rep --format=text "$TRASH/ex2" >"$TRASH/ex2.txt" 2>&1
t_grep "...the text report says invalid and the last reason" 'invalid: GPU clocks throttled on .* GPU 15 ' "$TRASH/ex2.txt"

# The report stage: --out writes all five formats, each as printed.
mkdir -p "$TRASH/inst/workloads/nemotron4/reports"
O=$TRASH/inst/workloads/nemotron4/reports/h100_15b_bf16.json
t_ok "--out writes the report" rep --tolerance=5 --out="$O" "$E"
for v in abc 5abc 0x10 inf 1e999 ""; do
	t_rc "--tolerance=$v: refused (exit 2)" 2 rep --tolerance="$v" "$E"
	t_grep "...saying why" "^llmb report: --tolerance: '$v' is not a percentage" "$TRASH/.out"
done
for f in text md csv json html; do
	case $f in json) p=$O ;; text) p=$O.txt ;; *) p=$O.$f ;; esac
	t_cmp "--out writes the $f format" "$TRASH/out.$f" "$p"
done
"$LLMB" report --show --install "$TRASH/inst" report.nemotron4.h100.15b.bf16 >"$TRASH/show.out" 2>&1
t_grep "--show prints the written text report" '^step time \(s\) ' "$TRASH/show.out"
"$LLMB" report --show --format=md --install "$TRASH/inst" report.nemotron4.h100.15b.bf16 >"$TRASH/show.md" 2>&1
t_cmp "--show --format=md prints the Markdown report" "$TRASH/out.md" "$TRASH/show.md"

# Repeats given as several experiments directories aggregate the same way.
mkdir -p "$TRASH/e2/h100_15b_bf16_16"
cp "$E/h100_15b_bf16_32/repeat-1/result.json" "$TRASH/e2/h100_15b_bf16_16/"
rep --format=json "$E" "$TRASH/e2" >"$TRASH/two.json"
t_ok "a second experiments directory adds a repeat" python3 -c "import json,sys; k=json.load(open('$TRASH/two.json'))['columns'][0]; sys.exit(not (k['runs']==2 and abs(k['metrics']['step_time']['value']-2.59)<1e-9))"

rep --format=text "$TRASH/none" >"$TRASH/none.txt" 2>&1
t_cmp "no runs yet" "$G/empty.text" "$TRASH/none.txt"
t_rc "an unknown format is refused" 2 rep --format=pdf "$E"
t_rc "an unknown workload is refused" 2 "$LLMB" report --top="$TOP" --workload nosuch --gpu h100 --size 15b --dtype bf16 "$E"
t_rc "a missing report is an error" 2 "$LLMB" report --show --install "$TRASH/inst" report.nemotron4.h100.340b.bf16

# A proxy run (llmb parse --proxy, as the parse stage of a recipe's proxy
# row): its own column beside the full-scale run at the same scale,
# labelled in every format, never compared although a reference exists.
mkdir -p "$TRASH/px/h100_15b_bf16_16" "$TRASH/px/h100_15b_bf16_16/repeat-1"
cp "$E/h100_15b_bf16_16/result.json" "$TRASH/px/h100_15b_bf16_16/"
(cd "$TRASH/px/h100_15b_bf16_16/repeat-1" && nemo_log 1.10 >log.out &&
	"$LLMB" parse --window=40-49 --steps=50 --proxy --result=result.json log.out >/dev/null 2>&1)
t_grep "llmb parse --proxy: result.json says proxy" '"proxy": true' "$TRASH/px/h100_15b_bf16_16/repeat-1/result.json"
for f in json text csv html; do rep --format=$f "$TRASH/px" >"$TRASH/px.$f"; done
pj() { python3 -c "import json,sys; m=json.load(open('$TRASH/px.json')); $1"; }
t_ok "the proxy run is a column of its own, after the full-scale one" \
	pj "k=m['columns']; sys.exit(not (len(k)==2 and not k[0].get('proxy') and k[1]['proxy'] is True and k[1]['scale']==16))"
t_ok "...the full-scale run compared with the published 2.66 s" \
	pj "sys.exit(m['columns'][0]['metrics']['step_time']['verdict']!='within tolerance')"
t_ok "...the proxy never: no reference, no verdict, 'proxy: not compared'" \
	pj "k=m['columns'][1]; sys.exit(not (k['comparison']=='proxy: not compared' and all(c['reference'] is None and c['verdict'] is None for c in k['metrics'].values())))"
t_ok "...its run marked proxy" pj "sys.exit(not [r for r in m['runs'] if r.get('proxy')])"
t_grep "text: the proxy column is labelled" '16 \(proxy\)' "$TRASH/px.text"
t_grep "...and so is its run" '^16 \(proxy\) +h100_15b_bf16_16/repeat-1 +success' "$TRASH/px.text"
t_grep "...and its difference row says not compared" 'proxy: not compared' "$TRASH/px.text"
t_nogrep "...no verdict beside it" 'proxy\).*(within|faster|slower)' "$TRASH/px.text"
t_ok "CSV: every proxy line says proxy: not compared where a verdict stands" \
	test "$(grep -c ',16,0,1,.*,,,proxy: not compared,' "$TRASH/px.csv")" = 6
t_grep "HTML: labelled" 'proxy: not compared' "$TRASH/px.html"

# A Megatron-Bridge workload has no reference rows of its own: its runs are
# compared with Megatron-Bridge's published row of the image's release
# (26.04.01) that runs the same configuration. deepseek-v3 fp8 on GB300 at
# 256 GPUs is published (4992 tokens/s/GPU, 1298 TFLOPS/GPU: a 13.128 s
# step); 512 GPUs is not, so that column shows the 256-GPU figure, says
# what differs, and has no verdict.
mb_log() {
	awk -v t="$1" 'BEGIN { for (i = 1; i <= 50; i++) {
		s = i == 1 ? 3 * t : t + (i % 2 ? 0.01 : -0.01)
		printf " [2026-06-20 10:01:12] iteration %8d/      50 | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: 1.000000E-06 | global batch size:  4096 | lm loss: 1.216000E+01 | loss scale: 1.0 | grad norm: 6.000 | number of skipped iterations:   0 | number of nan iterations:   0 |\n", i, i * 4096, s * 1000 } }'
}
MB=$TRASH/mb
for sc in 256 512; do
	mkdir -p "$MB/gb300_671b_fp8_$sc"
	(cd "$MB/gb300_671b_fp8_$sc" && mb_log 13.5 >log.out &&
		"$LLMB" parse --window=35-44 --steps=50 --log-format=mbridge --indexing=one --result=result.json log.out >/dev/null 2>&1)
	printf 'job=9%s\nlog=log.out\ncfg=x\nimage=nvidia+nemo+26.04.01.sqsh\nexecutor=slurm\n' "$sc" >"$MB/gb300_671b_fp8_$sc/train.done"
done
mbrep() { "$LLMB" report --top="$TOP" --workload deepseek-v3 --gpu gb300 --size 671b --dtype fp8 "$@" "$MB"; }
t_ok "mbridge: report" mbrep --format=json
cp "$TRASH/.out" "$TRASH/mb.json"
mbrep --format=text >"$TRASH/mb.text"
mbrep --format=md >"$TRASH/mb.md"
mj() { python3 -c "import json,sys; m=json.load(open('$TRASH/mb.json')); $1"; }
t_ok "mbridge 256: compared with the published 26.04.01 row" \
	mj "k=m['columns'][0]; p=k['published']; sys.exit(not (k['scale']==256 and k['comparison']=='compared' and p['match'] is True and 'docs/performance-summary-archive.md:225' in p['source'] and '26.04.01' in p['source']))"
t_ok "mbridge 256: references from tokens/s/GPU 4992 and TFLOPS/GPU 1298" \
	mj "c=m['columns'][0]['metrics']; sys.exit(not (c['tokens_per_s_per_gpu']['reference']==4992 and c['tflops_per_gpu']['reference']==1298 and abs(c['step_time']['reference']-4096*4096/(4992*256))<1e-6))"
t_ok "mbridge 256: 13.5 s is +2.8%, within tolerance" \
	mj "c=m['columns'][0]['metrics']['step_time']; sys.exit(not (abs(c['diff_pct']-2.83)<0.01 and c['verdict']=='within tolerance'))"
t_ok "mbridge 512: not compared; the published figure beside it, what differs" \
	mj "k=m['columns'][1]; p=k['published']; sys.exit(not (k['scale']==512 and p['match'] is False and p['scale']==256 and p['differs']=='GPUs 256 (run 512), gbs 4096 (run 8192)' and k['comparison']=='published at 256 GPUs / other parallelism: not compared' and all(c['reference'] is None and c['verdict'] is None for c in k['metrics'].values())))"
t_grep "mbridge text: the reference row says which" '^reference +published +published at 256 GPUs / other parallelism$' "$TRASH/mb.text"
t_grep "mbridge text: the difference and verdict at 256" '^  difference +\+2\.8% within +-$' "$TRASH/mb.text"
t_grep "mbridge text: the 256-GPU source" '^  256 GPUs: published for this configuration, 4992 tokens/s/GPU, 1298 TFLOPS/GPU \(MXFP8 at 256 GPUs\); Megatron-Bridge 26\.04\.01, docs/performance-summary-archive\.md:225 at 067f987df03b$' "$TRASH/mb.text"
t_grep "mbridge text: 512 GPUs, published elsewhere, not compared" '^  512 GPUs: published at 256 GPUs / other parallelism, 4992 tokens/s/GPU, 1298 TFLOPS/GPU .*; differs: GPUs 256 \(run 512\), gbs 4096 \(run 8192\); not compared$' "$TRASH/mb.text"
t_grep "mbridge md: published references" '^- 512 GPUs: published at 256 GPUs / other parallelism' "$TRASH/mb.md"
mbrep --format=html >"$TRASH/mb.html"
t_grep "mbridge html: published references" '^512 GPUs: published at 256 GPUs / other parallelism, 4992 tokens/s/GPU' "$TRASH/mb.html"
# A slower run at 256 GPUs is slower by its difference.
(cd "$MB/gb300_671b_fp8_256" && mb_log 14.5 >log.out &&
	"$LLMB" parse --window=35-44 --steps=50 --log-format=mbridge --indexing=one --result=result.json log.out >/dev/null 2>&1)
mbrep --format=json >"$TRASH/mb.json"
t_ok "mbridge 256 at 14.5 s: +10.5%, slower" \
	mj "c=m['columns'][0]['metrics']['step_time']; sys.exit(not (abs(c['diff_pct']-10.45)<0.01 and c['verdict']=='slower'))"

# Every string in the HTML is escaped.
mkdir -p "$TRASH/esc/h100_15b_bf16_16"
cp "$E/h100_15b_bf16_16/result.json" "$TRASH/esc/h100_15b_bf16_16/"
printf 'job=<script>alert(1)</script>\nlog=/tmp/a&b"c.out\nnote=x<y\n' >"$TRASH/esc/h100_15b_bf16_16/train.done"
rep --format=html "$TRASH/esc" >"$TRASH/esc.html"
t_nogrep "HTML escapes strings from run records" '<script>|a&b|x<y' "$TRASH/esc.html"
t_grep "HTML shows the escaped job" '&lt;script&gt;alert\(1\)&lt;/script&gt;' "$TRASH/esc.html"
t_nogrep "the HTML page loads nothing from elsewhere" '(src|href)=|@import|url\(' "$TRASH/out.html"

# Provenance rows are named as llmb diff names fields: a dotted key beside
# the nested one it would read as is quoted; nvidia-smi's clocks.sm is not.
mkdir -p "$TRASH/prov/h100_15b_bf16_16"
cp "$E/h100_15b_bf16_16/result.json" "$TRASH/prov/h100_15b_bf16_16/"
printf '{"machine": {"job": "9"}, "configuration": {"a.b": "1", "a": {"b": "2"}}, "nodes": {"n1": {"gpus": [{"clocks.sm": "1980"}]}}}\n' \
	>"$TRASH/prov/h100_15b_bf16_16/provenance.json"
rep --format=html "$TRASH/prov" >"$TRASH/prov.html"
t_grep "HTML provenance: the dotted key quoted" '^<tr><td class="l">configuration\.&quot;a\.b&quot;</td><td class="l">1</td></tr>$' "$TRASH/prov.html"
t_grep "HTML provenance: the nested key, a row of its own" '^<tr><td class="l">configuration\.a\.b</td><td class="l">2</td></tr>$' "$TRASH/prov.html"
t_grep "HTML provenance: clocks.sm as before" '^<tr><td class="l">nodes\.n1\.gpus\[0\]\.clocks\.sm</td><td class="l">1980</td></tr>$' "$TRASH/prov.html"

# Overridden runs (make's TP, MBS, ... knobs) live beside the recipe's as
# <run>/override-<tag>: each its own column, never compared with the
# reference; its metrics from its own parameters (provenance); the sweep
# table names the best configuration by tokens/s/GPU.
O=$TRASH/ovr
mkdir -p "$O/h100_15b_bf16_16/override-mbs2" "$O/h100_15b_bf16_16/override-tp2-gbs128"
cp "$E/h100_15b_bf16_16/result.json" "$E/h100_15b_bf16_16/train.done" "$O/h100_15b_bf16_16/"
(cd "$O/h100_15b_bf16_16/override-mbs2" && nemo_log 2.60 >log.out &&
	"$LLMB" parse --window=40-49 --steps=50 --result=result.json log.out >/dev/null 2>&1)
(cd "$O/h100_15b_bf16_16/override-tp2-gbs128" && nemo_log 4.00 >log.out &&
	"$LLMB" parse --window=40-49 --steps=50 --result=result.json log.out >/dev/null 2>&1)
printf '{"configuration": {"knobs": {"seq": "4096", "gbs": "64", "mbs": "2"}}}\n' >"$O/h100_15b_bf16_16/override-mbs2/provenance.json"
printf '{"configuration": {"knobs": {"seq": "4096", "gbs": "128", "tp": "2"}}}\n' >"$O/h100_15b_bf16_16/override-tp2-gbs128/provenance.json"
rep "$O" >"$TRASH/ovr.txt" 2>&1
t_grep "an override's column, labelled" '16 \(override mbs2\)' "$TRASH/ovr.txt"
t_grep "...never compared with the reference" 'override: not compared' "$TRASH/ovr.txt"
rep --format=json "$O" >"$TRASH/ovr.json" 2>&1
t_ok "...no reference in an override's column" test "$(jq '[.columns[] | select(.override) | .metrics.step_time.reference] | map(select(. != null)) | length' "$TRASH/ovr.json")" = 0
t_ok "...the recipe's column keeps its comparison" test "$(jq -r '.columns[] | select(.override == null) | .comparison' "$TRASH/ovr.json")" = compared
t_ok "an override's tokens/s from its own GBS (128 x 4096 / 4.00 s / 16)" \
	test "$(jq -r '.columns[] | select(.override == "tp2-gbs128") | .metrics.tokens_per_s_per_gpu.value | floor' "$TRASH/ovr.json")" = 8192
t_grep "the sweep table" '^Sweep at 16 GPUs' "$TRASH/ovr.txt"
t_grep "...names the best configuration (most tokens/s/GPU: the larger GBS)" '^best: tp2-gbs128$' "$TRASH/ovr.txt"
t_grep "...beside the recipe's own" '^recipe ' "$TRASH/ovr.txt"
rep --format=md "$O" >"$TRASH/ovr.md" 2>&1
t_grep "Markdown: the sweep too" '^best: tp2-gbs128$' "$TRASH/ovr.md"
rep --format=html "$O" >"$TRASH/ovr.html" 2>&1
t_grep "HTML: the sweep, its best named" '^<h2>Sweep at 16 GPUs</h2>$' "$TRASH/ovr.html"
t_grep "...its best named" 'Best: tp2-gbs128</p>$' "$TRASH/ovr.html"
t_grep "...the override's column not compared" 'override: not compared' "$TRASH/ovr.html"
t_grep "...its chart" '^<svg id="sweep-16-chart" ' "$TRASH/ovr.html"
t_ok "...a bar per configuration (recipe, mbs2, tp2-gbs128)" \
	test "$(sed -n '/^<svg id="sweep-16-chart"/,/^<\/svg>/p' "$TRASH/ovr.html" | grep -c '<rect class="sweep-bar')" = 3
t_ok "...the best alone marked, and it is tp2-gbs128's (the third)" \
	test "$(sed -n '/^<svg id="sweep-16-chart"/,/^<\/svg>/p' "$TRASH/ovr.html" | grep '<rect class="sweep-bar' | grep -n 'sweep-bar best' | cut -d: -f1 | tr '\n' ' ')" = "3 "
t_nogrep "a report without overrides has no sweep" '^Sweep' "$TRASH/out.text"

# A run at a scale the recipe does not list (SCALES above its largest,
# planned on that row with DP and GA derived) is measured with its own
# parameters, as its provenance records them: no config row describes it.
U=$TRASH/unlisted
mkdir -p "$U/h100_15b_bf16_4096"
cp "$E/h100_15b_bf16_16/train.done" "$U/h100_15b_bf16_4096/"
(cd "$U/h100_15b_bf16_4096" && nemo_log 2.00 >log.out &&
	"$LLMB" parse --window=40-49 --steps=50 --unlisted --result=result.json log.out >/dev/null 2>&1)
printf '{"configuration": {"knobs": {"seq": "4096", "gbs": "16384", "layers": "32", "tp": "2", "dp": "2048"}}}\n' \
	>"$U/h100_15b_bf16_4096/provenance.json"
rep --format=json "$U" >"$TRASH/unl.json" 2>&1
t_ok "llmb parse --unlisted: the result says so" jq -e '.unlisted == true' "$U/h100_15b_bf16_4096/result.json"
t_ok "...the column is labelled unlisted and not compared" \
	test "$(jq -r '.columns[] | select(.scale == 4096) | "\(.unlisted) \(.comparison) \(.metrics.step_time.reference)"' "$TRASH/unl.json")" = "true unlisted: not compared null"
rep "$U" >"$TRASH/unl.txt" 2>&1
t_grep "...headed 4096 (unlisted) in the text report" '4096 \(unlisted\)' "$TRASH/unl.txt"
t_grep "...its cells: unlisted: not compared" 'unlisted: not compared' "$TRASH/unl.txt"
t_ok "an unlisted scale's tokens/s/GPU from its own GBS (16384 x 4096 / 2.00 s / 4096)" \
	test "$(jq -r '.columns[] | select(.scale == 4096) | .metrics.tokens_per_s_per_gpu.value | floor' "$TRASH/unl.json")" = 8192
t_ok "...and its MFU from its own parameters" \
	test "$(jq -r '.columns[] | select(.scale == 4096) | .metrics.mfu_pct.value | . > 0' "$TRASH/unl.json")" = true

# The HTML page in a real browser: the DOM has the table and both charts,
# and a screenshot is not blank.
if ! command -v chromium >/dev/null; then
	echo "# SKIP chromium is not installed: the HTML rendering checks did not run"
	echo "0 0 1" >>"${T_RESULTS:-/dev/null}"
else
	t_chrome --dump-dom "file://$TRASH/out.html" >"$TRASH/dom.html"
	t_grep "Chromium: the DOM has the metrics table" '<table id="metrics">' "$TRASH/dom.html"
	t_grep "Chromium: the DOM has the step time chart" '<svg id="step-chart"' "$TRASH/dom.html"
	t_grep "Chromium: the DOM has the tokens/s chart" '<svg id="tokens-chart"' "$TRASH/dom.html"
	(cd "$TRASH" && t_chrome --screenshot="$TRASH/report.png" --window-size=1280,1600 "file://$TRASH/out.html" >/dev/null)
	t_ok "Chromium: the screenshot is a PNG of some size" \
		sh -c "head -c 8 '$TRASH/report.png' | grep -q PNG && [ \$(stat -c %s '$TRASH/report.png') -gt 20000 ]"
fi
t_done
