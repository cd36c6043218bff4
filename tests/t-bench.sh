#!/usr/bin/env bash
# t-bench: every benchmark of bench/ runs at its smoke size (--smoke:
# seconds, the same code path as the full size, a private Slurm cluster for
# the Slurm ones), exits 0 and prints its headline numbers, so a bench that
# rots fails here. Timings are printed, never asserted. bench/run.sh (make
# bench) runs the full sizes.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
cd "$TOP" || exit 2
export LLMB
unset SBATCH_ACCOUNT SBATCH_PARTITION ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC EXECUTOR

if command -v shellcheck >/dev/null; then
	# bench/detect.sh is left to its own rewrite
	t_ok "bench scripts: shellcheck" shellcheck -x bench/gen.sh bench/plan.sh bench/parse.sh bench/run.sh bench/slurm-poll.sh bench/detect-rejudge.sh bench/judge-nodes.sh bench/detect-shapes.sh bench/detect-answers.sh \
		bench/slurm-pipeline.sh bench/slurm-scale.sh bench/tinygpt-gpu.sh bench/tinygpt-gpu-cache.sh tests/slurm-pipeline/many-sizes.sh tests/t-bench.sh
fi

t_rc "bench/tinygpt-gpu-cache.sh: a PAIRS that is no count: exit 2" 2 bash bench/tinygpt-gpu-cache.sh 0
# bench/tinygpt-gpu.sh runs only on a GPU node (bench/results/ keeps what it
# measured there); anywhere else it must refuse at once, saying why.
if PATH=/usr/bin:/bin command -v nvidia-smi >/dev/null; then
	echo "# skipped bench/tinygpt-gpu.sh refusal: this machine has nvidia-smi"
else
	t_rc "bench/tinygpt-gpu.sh without a GPU: exit 2" 2 \
		env PATH=/usr/bin:/bin LLMB_INSTALL="$TRASH/gpu" bash bench/tinygpt-gpu.sh
	cp "$TRASH/.out" "$TRASH/gpu.out"
	t_grep "bench/tinygpt-gpu.sh without a GPU: says so" "no GPU here" "$TRASH/gpu.out"
	t_ok "bench/tinygpt-gpu.sh without a GPU: nothing installed" test ! -e "$TRASH/gpu"
	mkdir -p "$TRASH/gpu-cache-tmp"
	t_rc "bench/tinygpt-gpu-cache.sh without a GPU: exit 2" 2 \
		env PATH=/usr/bin:/bin TMPDIR="$TRASH/gpu-cache-tmp" bash bench/tinygpt-gpu-cache.sh
	t_grep "bench/tinygpt-gpu-cache.sh without a GPU: says so" "no GPU here" "$TRASH/.out"
	t_ok "bench/tinygpt-gpu-cache.sh without a GPU: nothing left behind" test -z "$(ls -A "$TRASH/gpu-cache-tmp")"
fi

# skip WHAT WHY: not run here, counted as skipped
skip() { echo "# skipped $1: $2"; echo "0 0 1" >>"${T_RESULTS:-/dev/null}"; }

# smoke NAME PATTERN...: bench/NAME.sh --smoke exits 0 and prints every PATTERN
smoke() {
	local b=$1 rc=0 s p; shift
	s=$SECONDS
	timeout 600 bash "bench/$b.sh" --smoke >"$TRASH/$b.out" 2>&1 || rc=$?
	echo "# bench/$b.sh --smoke: $((SECONDS - s)) s"
	sed 's/^/#   /' "$TRASH/$b.out" | grep -v 'FAILED' | tail -n 12
	if [ "$rc" = 0 ]; then t_pass "bench/$b.sh --smoke exits 0"; else
		t_fail "bench/$b.sh --smoke exits 0 (exit $rc)"; grep 'FAILED' "$TRASH/$b.out" | sed 's/^/# /'; fi
	for p in "$@"; do t_grep "bench/$b.sh prints /$p/" "$p" "$TRASH/$b.out"; done
}

N='[0-9]+(\.[0-9]+)?'
smoke gen "^llmb gen \(first, writes all\): +$N s" "^make -n \(everything to do\): +$N s" \
	"^no-op make \(all up to date\): +$N s \($N s CPU\) +\(0 stages run" "^GNU make, 40 plain targets: $N s" \
	"^no-op make / plain make: +${N}x wall, ${N}x CPU" "^GNU make, the 51 stage links: $N s" \
	"^GNU make, the links and outputs: $N s" "^floor, outputs / plain make: +${N}x wall, ${N}x CPU"
# bench/gen.sh's fast path (bench/gen-done.py) against a real run of the
# same size: the same tree, every stage done by llmb's own reckoning
rc=0
timeout 600 bash bench/gen.sh --check >"$TRASH/gen-check.out" 2>&1 || rc=$?
t_ok "bench/gen.sh --check exits 0 (exit $rc)" test "$rc" = 0
t_grep "bench/gen.sh --check: the fast path leaves the tree a real run leaves" \
	'^fast path: the tree of a real run \([0-9]+ files, [0-9]+ compared by content\)$' "$TRASH/gen-check.out"
t_grep "bench/gen.sh --check: llmb run finds each of its stages done as it is" \
	'^fast path: llmb run on each of 16 stages: done, no stamp or identity rewritten$' "$TRASH/gen-check.out"
[ "$rc" = 0 ] || grep 'FAILED\|gen-done.py' "$TRASH/gen-check.out" | sed 's/^/# /'
smoke plan "^llama3\.1 +[0-9]+ trainings \(b200 b300 gb200 gb300 h100\): +$N s wall, +$N s CPU, +[0-9]+ KiB peak$" \
	"^all +[0-9]+ trainings: +$N s wall"
smoke parse "^Success,2\.545," "^\(a\) [0-9]+ bytes: llmb ${N}s, grep -c ${N}s" \
	"^\(b\) 20 logs: llmb ${N}s, per-file grep\|awk ${N}s, speed-up [0-9]+x"
smoke judge-nodes "^llmb judge, 10 nights of 2000 nodes: text $N s wall, $N s CPU; json $N s wall, $N s CPU$" \
	"^nodes counted: 2002 \(node scores and suspect nodes\)$"

# bench/edivisive.py, Otava's analysis beside llmb's: its energy statistic
# and t-test against their definitions
# (each noise level: llmb, then Otava's analysis; without numpy, llmb alone)
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	t_ok "bench/edivisive.py --self-test" /usr/bin/python3 bench/edivisive.py --self-test
	# an argument it does not understand: exit 2, nothing read or written
	for a in "--p x" "--p 1" "--p 0" "--window 2" "--tag ../x" "--tag" "--format=json" "$TRASH/none.txt"; do
		# shellcheck disable=SC2086
		t_rc "bench/edivisive.py $a refused: exit 2" 2 /usr/bin/python3 bench/edivisive.py $a "$TRASH/none.jsonl"
	done
	# where the verdict's separation of two modes comes from: 8 lengths
	/usr/bin/python3 bench/regime-split.py 100 >"$TRASH/regime-split.out" 2>&1
	t_ok "bench/regime-split.py: a row per length, the rule at 30 nights 3.49" \
		test "$(grep -cE '^\| [0-9]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+% / [0-9.]+% \| [0-9.]+% / [0-9.]+% \|$' "$TRASH/regime-split.out")" = 8 -a \
		"$(grep -c '^| 30 | .* | 3\.49 |' "$TRASH/regime-split.out")" = 1
	DHEAD="^\| case \| goal \| 0\.5% after \| 0\.5% otava \| 1\.0% after \| 1\.0% otava \|"
	DFA="^\| false alarms / 1,000 stationary nights \| <= 1 \| $N \| $N \| $N \| $N \| $N \| $N \|$"
else
	skip "bench/edivisive.py" "/usr/bin/python3 has no numpy (python3-numpy)"
	DHEAD="^\| case \| goal \| 0\.5% after \| 1\.0% after \| 2\.0% after \|$"
	DFA="^\| false alarms / 1,000 stationary nights \| <= 1 \| $N \| $N \| $N \|$"
fi
export DETECT_KEEP=1
smoke detect "$DHEAD" "$DFA" \
	"^\| 5% rise confirmed within 2 nights \| >= 97% \| $N% \|" "^after: judging [0-9]+ records" \
	"^\| 5% rise confirmed within 3 nights \|  \| $N% \|" "^\| 5% rise confirmed within 5 nights \|  \| $N% \|" \
	"^\(95% intervals of a share of [0-9]+ series: near 97% \+-$N points, near 91% \+-$N points, near 65% \+-$N points\)$" \
	"^\| 3\.7 \| $N \| $N% \|$" "^\| 3\.7 \| $N \| $N% \| $N% \|$" \
	"^\| 5% rise confirmed within 2 nights \| >= 97% \| 100\.0% \| 100\.0% \| 70\.1% \|$" \
	"^goals no gate can meet: 5% rise confirmed within 2 nights at 2\.0% noise \(70\.1%\); 2% rise confirmed within 5 nights at 2\.0% noise \(34\.8%\); drift 0\.3%/night confirmed within 10 nights at 2\.0% noise \(70\.8%\)$" \
	"^\| fixed 5% regression within 2 nights, at <= 1 false end / 1,000 nights of one \| 100% \| 100\.0% \| 100\.0% \| 70\.1% \|$" \
	"^\|   a later alarm with a first bad night of its own apart \|  \| $N% \|" \
	"^\| 2% rise for 120 nights: declared over / 1,000 of its nights \|  \| $N \|" \
	"^\| noise doubles at night 151: false alarms / 1,000 nights \|  \| $N \|" \
	"^\|   series alarmed in the 30 nights from it \|  \| $N% \|" \
	"^\| 5% rise after 15 quiet nights confirmed within 2 nights \|  \| $N% \|" \
	"^\| 5% improvement taken as the new level within 10 nights \|  \| $N% \|" \
	"^\| 5% rise 30 nights after a 5% improvement confirmed within 2 nights \|  \| $N% \|" \
	"^\| 5% rise after 15 quiet nights, one of them at its level, confirmed within 2 nights \|  \| $N% \|" \
	"^\|   within 5 nights \|  \| $N% \|"
unset DETECT_KEEP
# the false alarms a slow mode's first run costs any gate that keeps the
# sensitivity rows (exact: the same numbers every run). By the
# Neyman-Pearson lemma a gap under a row's step costs too: a 3% gap in
# runs of 3 at 1% noise 0.65 per 1,000 nights, a 1.5% gap a little. A gap
# at or over a row's step costs that row's own chance and no more: a 5%
# gap at 2% noise is 0.64, not the 1.12 of a gate that thresholds the
# window's mean whatever came before.
/usr/bin/python3 bench/detect-onset-bound.py >"$TRASH/onset-bound.out" 2>&1
t_ok "bench/detect-onset-bound.py: 5% gap in runs of 3 from night 101, 2.21 per 1,000 nights at 1% noise" \
	grep -qx '| 10% slow, +5\.0%, runs of 3 | 45\.4% / 66\.0%; 2\.28 | 44\.0% / 64\.0%; 2\.21 | 12\.9% / 18\.7%; 0\.64 |' "$TRASH/onset-bound.out"
t_ok "bench/detect-onset-bound.py: gaps under 5% cost something too (3%: 0.65 at 1% noise)" \
	grep -qx '| 10% slow, +3\.0%, runs of 3 | 13\.0% / 20\.0%; 0\.69 | 12\.7% / 18\.8%; 0\.65 | 2\.7% / 4\.0%; 0\.14 |' "$TRASH/onset-bound.out"
t_ok "bench/detect-onset-bound.py: a mode from the first night, its first run after 30 quiet nights" \
	grep -qx '| 10% slow, +5\.0%, runs of 3 | 19\.9%; 0\.69 | 19\.3%; 0\.67 | 5\.6%; 0\.19 |' "$TRASH/onset-bound.out"
t_rc "bench/detect-onset-bound.py: an option it does not know (exit 2)" 2 /usr/bin/python3 bench/detect-onset-bound.py --runs 3 --shares 0.1
# every run of the slow mode, with what the history before each shows
# (seeded: the same numbers every run). What any gate must give there is
# hardly more than the first run: by a later run the history has shown
# the mode, and a gate that knew the cell could know it.
/usr/bin/python3 bench/detect-mode-bound.py --smoke --runs 3 --share 0.1 --gap "1.03 1.05" --onset 101 --noise 0.01 >"$TRASH/mode-bound.out" 2>&1
t_ok "bench/detect-mode-bound.py: a 5% gap in runs of 3 at 1% noise, 2.28 per 1,000 nights, 0.07 of them later runs" \
	grep -qx '| 10% slow, +5\.0%, runs of 3, from night 101 | 1\.0% | 2\.21 | 0\.07 | 2\.28 (0\.09) |' "$TRASH/mode-bound.out"
t_ok "bench/detect-mode-bound.py: a 3% gap, 0.79" \
	grep -qx '| 10% slow, +3\.0%, runs of 3, from night 101 | 1\.0% | 0\.64 | 0\.15 | 0\.79 (0\.05) |' "$TRASH/mode-bound.out"
# one gate for several cells at once, each weighted alike: on the mean
# over the cells no lower than their own oracles (seeded)
/usr/bin/python3 bench/detect-mode-bound.py --family --smoke --runs 3 --share "0.1 0.5" --gap "1.03 1.05" --onset 101 --noise 0.02 >"$TRASH/mode-family.out" 2>&1
t_ok "bench/detect-mode-bound.py --family: one gate for four cells at 2% noise, 0.434 per cell against their oracles' 0.388" \
	grep -qx '| mean over the cells | 2\.0% | 0\.388 | 0\.434 |' "$TRASH/mode-family.out"
t_ok "bench/detect-mode-bound.py --family: a row per cell" \
	grep -qx '| 50% slow, +5\.0%, runs of 3, from night 101 | 2\.0% | 0\.64 (0\.04) | 0\.56 (0\.07) |' "$TRASH/mode-family.out"
# a gate that weighs 192 other cells (shares, gaps, runs and onsets off
# the bench's grid) gives more than one that knows the grid
/usr/bin/python3 bench/detect-mode-bound.py --family --broad --smoke --runs 3 --share "0.1 0.5" --gap "1.03 1.05" --onset 101 --noise 0.02 >"$TRASH/mode-broad.out" 2>&1
t_ok "bench/detect-mode-bound.py --family --broad: 0.566 per cell against 0.434" \
	grep -qx '| mean over the cells | 2\.0% | 0\.388 | 0\.434 | 0\.566 |' "$TRASH/mode-broad.out"
# --band: the noise unknown to the gates within 25% of the cell's (seeded;
# on this smoke draw the same as knowing it, within its errors)
/usr/bin/python3 bench/detect-mode-bound.py --family --band 0.25 --smoke --runs 3 --share "0.1 0.5" --gap "1.03 1.05" --onset 101 --noise 0.02 >"$TRASH/mode-band.out" 2>&1
t_ok "bench/detect-mode-bound.py --family --band 0.25: one gate 0.397 per cell, the oracles 0.406" \
	grep -qx '| mean over the cells | 2\.0% | 0\.406 | 0\.397 |' "$TRASH/mode-band.out"
for bad in "--band 0.25" "--family --band 0" "--family --band 2" "--family --band x"; do
	# shellcheck disable=SC2086 # each case is several words on purpose
	t_rc "bench/detect-mode-bound.py $bad: refused" 2 /usr/bin/python3 bench/detect-mode-bound.py $bad --smoke
done
# --also: a lasting 5% rise confirmed by its 3rd or 5th night as often as
# llmb does (the 95% lower limits of bench/detect.sh's rows): runs of that
# length are decided by that night against it, and the largest sum bounds
/usr/bin/python3 bench/detect-mode-bound.py --smoke --runs 5 --share 0.3 --gap "1.03 1.05" --onset 101 --noise 0.02 --also "0.02:3:0.4528 0.02:5:0.8172" >"$TRASH/mode-also.out" 2>&1
t_ok "bench/detect-mode-bound.py --also: a 5% gap in runs of 5 at 2% noise, 1.82 per 1,000 nights, by the 5% rise within 5 nights" \
	grep -qx '| 30% slow, +5\.0%, runs of 5, from night 101 | 2\.0% | 1\.68 | 0\.14 | 1\.82 (0\.09) | 5% by its 5th night |' "$TRASH/mode-also.out"
t_ok "bench/detect-mode-bound.py --also: a 3% gap, 0.31" \
	grep -qx '| 30% slow, +3\.0%, runs of 5, from night 101 | 2\.0% | 0\.21 | 0\.10 | 0\.31 (0\.01) | 5% by its 5th night |' "$TRASH/mode-also.out"
/usr/bin/python3 bench/detect-mode-bound.py --smoke --runs 3 --share 0.1 --gap "1.03 1.05" --onset 101 --noise 0.01 --also "0.01:3:0.9806" >"$TRASH/mode-also1.out" 2>&1
t_ok "bench/detect-mode-bound.py --also: where the issue's own rows ask more, they give the bound, as without it" \
	grep -qx '| 10% slow, +3\.0%, runs of 3, from night 101 | 1\.0% | 0\.64 | 0\.15 | 0\.79 (0\.05) | 2% by its 5th night |' "$TRASH/mode-also1.out"
for v in 0.01:2:0.5 0.03:5:0.5 0.01:5:1 0.01:5; do
	t_rc "bench/detect-mode-bound.py: --also $v (exit 2)" 2 /usr/bin/python3 bench/detect-mode-bound.py --smoke --also "$v"
done
t_rc "bench/detect-mode-bound.py: --also with --family (exit 2)" 2 /usr/bin/python3 bench/detect-mode-bound.py --smoke --family --also 0.01:5:0.5
t_rc "bench/detect-mode-bound.py: --broad without --family (exit 2)" 2 /usr/bin/python3 bench/detect-mode-bound.py --broad --smoke
t_rc "bench/detect-mode-bound.py: an option it does not know (exit 2)" 2 /usr/bin/python3 bench/detect-mode-bound.py --smoke --shares 0.1
t_rc "bench/detect-mode-bound.py: a noise level without a floor (exit 2)" 2 /usr/bin/python3 bench/detect-mode-bound.py --smoke --noise 0.03
# bimodal shapes (bench/detect-shapes.sh): a row per cell, worst first
export SHAPES_KEEP=1
smoke detect-shapes "^\| noise \| shape \| histories \| nights judged \| false alarms \| per 1,000 nights \| 95% interval \| .* \| any gate at the floor, per 1,000 nights \|$" \
	"^\| 1\.0% \| stationary \| 1 \| 290 \| [0-9]+ \| $N \| $N-$N \| $N \| [0-9]+ \|  \|  \|  \|$" \
	"^\| 1\.0% \| 50% slow, \+5\.0%, runs of 3, from night 101 \| 1 \| 290 \| [0-9]+ \| $N \| $N-$N \| $N \| [0-9]+ \| [01] of 1 \| $N \| 2\.21 \|$" \
	"^\| 1\.0% \| 10% slow, \+1\.5%, independent, from night 1 \| 1 \| 290 \| [0-9]+ \| $N \| $N-$N \| $N \| [0-9]+ \|  \|  \| 0\.00 \|$" \
	"^\(17 cells, 290 to 290 judged nights each; [0-9]+ whose whole interval lies above 1 false alarm per 1,000 nights" \
	"^\(of those above, [0-9]+ where any gate at the floor gives 1 or more; over the 16 cells with a floor: llmb $N false alarms per 1,000 nights in all, the floor $N\)$"
# shellcheck disable=SC2016
t_ok "bench/detect-shapes.sh: 17 rows, worst first" awk -F'|' '
	$3 ~ /slow|stationary/ { n++; if (n > 1 && $7 + 0 > last) bad++; last = $7 + 0 }
	END { exit !(n == 17 && !bad) }' "$TRASH/detect-shapes.out"
# runs drawn after the others (SHAPES_MORE_RUN): 8 cells more, and the
# 17 of the draw without them the same histories, seed for seed
first=$(sed -n 's/^series and verdicts in //p' "$TRASH/detect-shapes.out")
SHAPES_MORE_RUN=2 bash bench/detect-shapes.sh --smoke >"$TRASH/detect-shapes-more.out" 2>&1
more=$(sed -n 's/^series and verdicts in //p' "$TRASH/detect-shapes-more.out")
# shellcheck disable=SC2016
t_ok "bench/detect-shapes.sh: SHAPES_MORE_RUN=2 adds 8 rows of runs of 2" awk -F'|' '
	$3 ~ /slow|stationary/ { n++; k += $3 ~ /runs of 2,/ }
	END { exit !(n == 25 && k == 8) }' "$TRASH/detect-shapes-more.out"
# shellcheck disable=SC2016
t_ok "bench/detect-shapes.sh: ...the other cells' seeds unchanged, theirs after" sh -c '
	[ -n "$1" ] && [ -n "$2" ] || exit 1
	n=0
	for f in "$1"/series/*/*/seeds; do
		cmp -s "$f" "$2/series/${f#"$1"/series/}" || exit 1
		n=$((n + 1))
	done
	top=$(cat "$1"/series/*/*/seeds | awk "{ print \$2 }" | sort -n | tail -n 1)
	low=$(cat "$2"/series/*/bimodal:*:2:*/seeds | awk "{ print \$2 }" | sort -n | head -n 1)
	[ "$n" = 17 ] && [ "$low" -gt "$top" ]' _ "$first" "$more"
[ -n "$more" ] && rm -rf "$more"
unset SHAPES_KEEP
# --from=31: the same series, judged past their first month
/usr/bin/python3 bench/detect-shapes.py "$first/series" --from=31 >"$TRASH/shapes-from.out" 2>&1
t_grep "bench/detect-shapes.py --from=31: 270 nights judged a history, and no floor (it is per night from 11)" \
	"^\| 1\.0% \| 10% slow, \+1\.5%, independent, from night 1 \| 1 \| 270 \| [0-9]+ \| $N \| $N-$N \| $N \| [0-9]+ \|  \|  \|  \|$" "$TRASH/shapes-from.out"
for a in --from=0 --from=x "--from=31 --from=11"; do
	# shellcheck disable=SC2086
	t_rc "bench/detect-shapes.py $a (exit 2)" 2 /usr/bin/python3 bench/detect-shapes.py "$first/series" $a
done
# a history's first two months, on the bench's generator and on a second
# one written from the bench's description (bench/histgen2.py)
smoke detect-young "^histgen, 4 histories of 60 nights a case, judged from night 11:$" \
	"^histgen2i, 4 histories of 60 nights a case, judged from night 31:$" \
	"^\| 1\.0% \| stationary \| 4 \| 200 \| [0-9]+ \| $N \| $N-$N \| $N \|$" \
	"^\| 1\.0% \| 30% slow, \+3\.0%, independent, from night 1 \| 4 \| 120 \| [0-9]+ \| $N \| $N-$N \| $N \|$"
t_ok "bench/detect-young.sh: two rows a table, three generators, from nights 11 and 31" \
	test "$(grep -c '^| 1\.0% |' "$TRASH/detect-young.out")" = 12
t_rc "bench/detect-young.sh: YOUNG_NIGHTS under 31 (exit 2)" 2 env YOUNG_NIGHTS=30 bash bench/detect-young.sh --smoke
for a in --young-sep=x young-sep=3 "--young-sep=3;x" --Young-sep=3; do
	t_rc "bench/detect-young.sh: YOUNG_POLICY='$a' (exit 2)" 2 env YOUNG_POLICY="$a" bash bench/detect-young.sh --smoke
done
t_rc "bench/detect-young.sh: a knob llmb judge does not know (exit 1)" 1 env YOUNG_POLICY=--no-such-knob=1 YOUNG_N=1 bash bench/detect-young.sh --smoke
YOUNG_POLICY=--young-sep=3 bash bench/detect-young.sh --smoke >"$TRASH/detect-young-sep.out" 2>&1
t_ok "bench/detect-young.sh: YOUNG_POLICY=--young-sep=3, the same tables" \
	test "$(grep -c '^| 1\.0% |' "$TRASH/detect-young-sep.out")" = 12
# histgen2: seeded (the same bytes for the same arguments, others for
# another seed), records llmb reads, and bad arguments refused
hg2() { /usr/bin/python3 bench/histgen2.py --noise 0.01 --nights 40 --fingerprint tinygpt_a "$@"; }
mkdir -p "$TRASH/hg2/a" "$TRASH/hg2/b" "$TRASH/hg2/c"
hg2 --seed 3 --bimodal 0.3:1.03 >"$TRASH/hg2/a/tinygpt_a.jsonl"
hg2 --seed 3 --bimodal 0.3:1.03 >"$TRASH/hg2/b/tinygpt_a.jsonl"
hg2 --seed 4 --bimodal 0.3:1.03 >"$TRASH/hg2/c/tinygpt_a.jsonl"
t_ok "bench/histgen2.py: the same seed, the same bytes" cmp -s "$TRASH/hg2/a/tinygpt_a.jsonl" "$TRASH/hg2/b/tinygpt_a.jsonl"
# shellcheck disable=SC2016
t_ok "bench/histgen2.py: another seed, another history" sh -c '! cmp -s "$1" "$2"' _ "$TRASH/hg2/a/tinygpt_a.jsonl" "$TRASH/hg2/c/tinygpt_a.jsonl"
# shellcheck disable=SC2016
t_ok "bench/histgen2.py: 40 records llmb judge reads" sh -c '
	test "$(wc -l <"$2")" = 40 || exit 1
	"$1" judge "$2" >/dev/null
	test $? != 2' _ "$LLMB" "$TRASH/hg2/a/tinygpt_a.jsonl"
for a in "--seed x" "--seed 1 --bimodal 0.3" "--seed 1 --count 2" "--seed 1 --ar 1" "--seed 1 --colour red" ""; do
	# shellcheck disable=SC2086
	t_rc "bench/histgen2.py ${a:-without --seed} (exit 2)" 2 /usr/bin/python3 bench/histgen2.py --noise 0.01 --nights 40 --fingerprint tinygpt_a $a
done
# a user's answers to two-mode false alarms (bench/detect-answers.sh): the
# real llmb annotate and judge on the smoke's seeded histories; answered
# as modes, the gate asks about a quarter as often as answered with acks
smoke detect-answers "^\| noise \| shape \| histories \| alarms, nobody answering \| their CONFIRMED nights \| answers, --ack \| answers, --accept-mode \| --ack / --accept-mode \|$" \
	"^\| 1\.0% \| 50% slow, \+3\.0%, runs of 3, from night 101 \| 1 \| 2 \| 21 \| 9 \| 3 \| 3\.00 \|$" \
	"^\(bimodal cells: 5 alarms nobody answered, CONFIRMED on 30 nights; 23 answers with --ack, 6 with --accept-mode, 3\.83 times as many\)$" \
	"^\| 1\.0% \| 10% slow, \+3\.0%, runs of 3, from the first night; \+6% from night 201 \| 1 \| 1 \| 1 / 1 \| 1 / 1 \|$"
t_rc "bench/detect-answers.sh: an argument it does not know (exit 2)" 2 bash bench/detect-answers.sh --full
t_rc "bench/detect-answers.sh: ANSWERS_HISTORIES that is no count (exit 2)" 2 env ANSWERS_HISTORIES=2x bash bench/detect-answers.sh --smoke
# where the kept series' false alarms came from: a line per cell, and as
# many classified as counted, and as many by the rule that confirmed them
kept=$(sed -n 's/^series and verdicts in //p' "$TRASH/detect-shapes.out")
if [ -n "$kept" ] && [ -f "$kept/series/0.01/bimodal:0.1:1.05:3:1/seeds" ]; then
	/usr/bin/python3 bench/detect-shapes-why.py "$kept" 0.01/bimodal:0.1:1.05:3:1 0.01/bimodal:0.5:1.05:3:101 >"$TRASH/why.out" 2>&1
	# shellcheck disable=SC2016
	t_ok "bench/detect-shapes-why.py: each cell's false alarms, every one in a class and by a rule" awk '
		function done() { if (sum != want || (want && r != want)) bad++ }
		/^0\.01\/bimodal:.*: [0-9]+ false alarms, [0-9]+ on the second night/ { if (c) done(); c++; want = $2; sum = 0; r = 0; next }
		/^  by rule: / {
			n = split(substr($0, 12), a, ", ")
			for (k = 1; k <= n; k++) { if (a[k] !~ /^(streak|pair|tail|ramp|change-point|resumed) [0-9]+$/) bad++; split(a[k], b, " "); r += b[2] }
			next
		}
		/^ +[0-9]+ +[0-9]+% (a slow night|on a fast night)/ { sum += $1; next }
		{ bad++ }
		END { done(); exit !(c == 2 && !bad) }' "$TRASH/why.out"
	# --all: a row per noise level, each false alarm in one class of when
	/usr/bin/python3 bench/detect-shapes-why.py "$kept" --all >"$TRASH/when.out" 2>&1
	# shellcheck disable=SC2016
	t_ok "bench/detect-shapes-why.py --all: every false alarm in one class of when it came" awk -F' [|] ' '
		NR == 1 { ok = /^\| noise \| false alarms \| onset, first run \|/; next }
		NR == 2 { next }
		/^\| [0-9.]+% \| / { s = 0; for (k = 3; k <= 9; k++) s += $k; rows++; if (s != $2 || NF != 9) bad++; next }
		{ bad++ }
		END { exit !(ok && rows == 1 && !bad) }' "$TRASH/when.out"
	# by rule (bench/detect-rules.py): every rule's alarms add up to the
	# noise level's, as many as --all counts
	/usr/bin/python3 bench/detect-rules.py --shapes="$kept/series" >"$TRASH/rules.shapes" 2>&1
	# shellcheck disable=SC2016
	t_ok "bench/detect-rules.py --shapes: the rules' false alarms add up to those bench/detect-shapes-why.py --all counts" awk -F' [|] ' '
		FNR == NR { if (/^\| [0-9.]+% \| [0-9]+ \|/) want[$1] = $2; next }
		FNR == 1 { ok = /^\| noise \| rule \| bimodal false alarms \| their rates summed over the cells \|$/; next }
		/^\| [0-9.]+% \| all \| / { rows++; if ($3 != sum[$1] || $3 != want[$1]) bad++; next }
		/^\| [0-9.]+% \| (pair|tail|ramp|change-point|resumed|streak) \| / { sum[$1] += $3; next }
		FNR > 2 { bad++ }
		END { exit !(ok && rows == 1 && !bad) }' "$TRASH/when.out" "$TRASH/rules.shapes"
	# judged again (bench/detect-rejudge.sh) and read with --verdicts: the
	# same llmb gives the run's own table and classes, and the run's own
	# verdicts are still what is read without it; tail, pair and ramp off
	# give another table
	t_rc "bench/detect-rejudge.sh: the shapes' kept series judged again: exit 0" 0 bash bench/detect-rejudge.sh "$kept" again "$LLMB"
	t_rc "bench/detect-rejudge.sh: ...and with tail, pair and ramp off: exit 0" 0 bash bench/detect-rejudge.sh "$kept" strict "$LLMB" --tail-alpha-pair=0 --tail-alpha=0 --ramp-alpha=0
	/usr/bin/python3 bench/detect-shapes.py "$kept/series" >"$TRASH/shapes.own" 2>&1
	for v in again strict; do
		/usr/bin/python3 bench/detect-shapes.py "$kept/series" "--verdicts=$v" >"$TRASH/shapes.$v" 2>&1
	done
	t_ok "bench/detect-shapes.py --verdicts: the same llmb, the same table" cmp "$TRASH/shapes.own" "$TRASH/shapes.again"
	# the sums by noise level are the table's: its bimodal rows' false
	# alarms per 1,000 nights at 1% noise, added up (each row is rounded
	# to 0.01)
	# shellcheck disable=SC2016
	t_ok "bench/detect-shapes.py: the sum by noise is its rows' (1% noise, bimodal cells)" awk -F'|' '
		$2 ~ /^ 1\.0% $/ && $3 ~ /slow/ { s += $7; n++ }
		/^\(by noise/ { if (match($0, /1\.0%: [0-9.]+ false alarms/)) v = substr($0, RSTART + 6, RLENGTH - 19) + 0; seen = 1 }
		END { d = s - v; exit !(seen && n > 0 && d < 0.25 && d > -0.25) }' "$TRASH/shapes.own"
	# ...and so are the sums by run length: together, those by noise
	# shellcheck disable=SC2016
	t_ok "bench/detect-shapes.py: the sums by run length add up to those by noise" awk '
		# the sum of the "N false alarms" of a line, their count in parts
		function total(s, t) { parts = 0; while (match(s, /: [0-9.]+ false alarms/)) { t += substr(s, RSTART + 2, RLENGTH - 15); parts++; s = substr(s, RSTART + RLENGTH) } return t }
		/^\(by noise/ { a = total($0); n++ }
		/^\(by run length/ { b = total($0); k = parts; m++ }
		END { d = a - b; exit !(n == 1 && m == 1 && k >= 2 && d < 0.25 && d > -0.25) }' "$TRASH/shapes.own"
	t_grep "bench/detect-shapes.py --verdicts: a table of tail, pair and ramp off" '^\| 1\.0% \| ' "$TRASH/shapes.strict"
	# shellcheck disable=SC2016
	t_ok "bench/detect-shapes.py --verdicts: ...another than the run's own" sh -c '! cmp -s "$1" "$2"' _ "$TRASH/shapes.own" "$TRASH/shapes.strict"
	/usr/bin/python3 bench/detect-shapes-why.py --verdicts=again "$kept" --all >"$TRASH/when.again" 2>&1
	t_ok "bench/detect-shapes-why.py --verdicts: the same classes" cmp "$TRASH/when.out" "$TRASH/when.again"
	# the name becomes part of a file name: one that leaves the folder, or
	# a flag neither knows, is refused before anything is read
	t_rc "bench/detect-shapes.py: --verdicts=../again refused (exit 2)" 2 /usr/bin/python3 bench/detect-shapes.py "$kept/series" --verdicts=../again
	t_rc "bench/detect-shapes.py: an unknown flag refused (exit 2)" 2 /usr/bin/python3 bench/detect-shapes.py "$kept/series" --tag=again
	t_rc "bench/detect-shapes-why.py: --verdicts=../again refused (exit 2)" 2 /usr/bin/python3 bench/detect-shapes-why.py --verdicts=../again "$kept" --all
	rm -rf "$kept"
else
	t_fail "bench/detect-shapes.sh with SHAPES_KEEP=1 says where it kept the series and their seeds"
fi
# The kept series judged again (bench/detect-rejudge.sh): with the same
# llmb, every cell of the table is the run's own.
kept=$(sed -n 's/^series and verdicts in //p' "$TRASH/detect.out")
if [ -n "$kept" ] && [ -d "$kept/series" ]; then
	t_rc "bench/detect-rejudge.sh: the kept series judged again: exit 0" 0 bash bench/detect-rejudge.sh "$kept" again "$LLMB"
	/usr/bin/python3 bench/detect-table.py "$kept/series" "0.005 0.01 0.02" "after=x again=x" >"$TRASH/rejudge.tab" 2>&1
	# shellcheck disable=SC2016
	t_ok "bench/detect-rejudge.sh: the same llmb, the same table" awk -F'|' '
		NR > 2 && NF > 8 { n++; if ($4 != $5 || $6 != $7 || $8 != $9) bad++ }
		END { exit !(n > 20 && !bad) }' "$TRASH/rejudge.tab"
	t_rc "bench/detect-rejudge.sh: a NAME it refuses: exit 2" 2 bash bench/detect-rejudge.sh "$kept" Bad "$LLMB"
	# Otava at a p of its own on the same series (the issue's floors are
	# its figures at p 0.0001): at its default p, the run's own column
	if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
		t_rc "bench/detect-rejudge.sh: the kept series through Otava at p 0.001: exit 0" 0 bash bench/detect-rejudge.sh "$kept" ot otava@0.001
		/usr/bin/python3 bench/detect-table.py "$kept/series" "0.005 0.01 0.02" "otava=x ot=x" >"$TRASH/rejudge-otava.tab" 2>&1
		# shellcheck disable=SC2016
		t_ok "bench/detect-rejudge.sh otava@0.001: the run's own Otava column" awk -F'|' '
			NR > 2 && NF > 8 { n++; if ($4 != $5 || $6 != $7 || $8 != $9) bad++ }
			END { exit !(n > 20 && !bad) }' "$TRASH/rejudge-otava.tab"
		t_rc "bench/detect-rejudge.sh: Otava at p 0.0001: exit 0" 0 bash bench/detect-rejudge.sh "$kept" ot4 otava@0.0001
		t_ok "bench/detect-rejudge.sh: Otava at p 0.0001 wrote its verdicts" test -n "$(find "$kept/series" -name '*.ot4.json' | head -1)"
	fi
	for a in otava@ otava@x otava@1 otava@1.5 'otava@0.001;true' otava@-0.1; do
		t_rc "bench/detect-rejudge.sh: $a refused: exit 2" 2 bash bench/detect-rejudge.sh "$kept" bad "$a"
	done
	t_rc "bench/detect-rejudge.sh: a knob for Otava refused: exit 2" 2 bash bench/detect-rejudge.sh "$kept" bad otava@0.001 --ramp-alpha=0
	# by rule (bench/detect-rules.py): every rule's share adds up (to
	# their rounding) to the row bench/detect-table.py gives
	/usr/bin/python3 bench/detect-rules.py --detect="$kept/series=after" >"$TRASH/rules.detect" 2>&1
	# shellcheck disable=SC2016
	t_ok "bench/detect-rules.py --detect: the rules' 5% rises within 2 nights add up to bench/detect-table.py's row" awk -F' [|] ' '
		FNR == NR { if (/^\| 5% rise confirmed within 2 nights \|/) for (k = 1; k <= 3; k++) want[k] = $(2 * k + 1); next }
		FNR == 1 { ok = /^\| noise \| rule \| 5% rises within 2 \| 2% rises within 5 \| drifts within 10 \| stationary false alarms/; next }
		/^\| [0-9.]+% \| all \| / { rows++; d = sum[rows] - $3; if (d < 0) d = -d; if (d > 0.05 * n[rows] + 1e-9 || $3 != want[rows]) bad++; next }
		/^\| [0-9.]+% \| [a-z-]+ \| / { sum[rows + 1] += $3 + 0; n[rows + 1]++; next }
		FNR > 2 { bad++ }
		END { exit !(ok && rows == 3 && !bad) }' "$TRASH/rejudge.tab" "$TRASH/rules.detect"
	t_rc "bench/detect-rules.py: --detect without a verdicts name refused (exit 2)" 2 /usr/bin/python3 bench/detect-rules.py --detect="$kept/series"
	t_rc "bench/detect-rules.py: nothing to read refused (exit 2)" 2 /usr/bin/python3 bench/detect-rules.py
	t_rc "bench/detect-rules.py: an option it does not know refused (exit 2)" 2 /usr/bin/python3 bench/detect-rules.py --detect="$kept/series=after" --format=json
	# A knob at its default judges as none does; a knob that decides
	# gives other verdicts; a flag that is no knob is refused.
	t_rc "bench/detect-rejudge.sh: a knob at its default: exit 0" 0 bash bench/detect-rejudge.sh "$kept" dflt "$LLMB" --ramp-alpha=0.0009 --seen-sd=4.5
	t_rc "bench/detect-rejudge.sh: a knob that decides: exit 0" 0 bash bench/detect-rejudge.sh "$kept" strict "$LLMB" --tail-alpha-pair=0 --tail-alpha=0 --ramp-alpha=0
	/usr/bin/python3 bench/detect-table.py "$kept/series" "0.005 0.01 0.02" "again=x dflt=x strict=x" >"$TRASH/knob.tab" 2>&1
	# shellcheck disable=SC2016
	t_ok "bench/detect-rejudge.sh: a knob at its default, the same table; tail and ramp off, fewer confirmed" awk -F'|' '
		NR > 2 && NF > 10 { n++; if ($4 != $5 || $7 != $8 || $10 != $11) bad++ }
		/^\| 5% rise confirmed within 2 nights/ { if ($4 != $6 || $7 != $9 || $10 != $12) moved++ }
		END { exit !(n > 20 && !bad && moved) }' "$TRASH/knob.tab"
	for a in --format=text --night=2026-01-02 --ramp-alpha --ramp-alpha=x '--ramp-alpha=1;true' ramp-alpha=1; do
		t_rc "bench/detect-rejudge.sh: $a refused: exit 2" 2 bash bench/detect-rejudge.sh "$kept" bad "$LLMB" "$a"
	done
	t_ok "bench/detect-rejudge.sh: nothing written for a refused flag" test -z "$(find "$kept/series" -name '*.bad.json*')"
	rm -rf "$kept"
else
	t_fail "bench/detect.sh with DETECT_KEEP=1 says where it kept the series"
fi

if slurm_need_packages; then
	smoke slurm-poll "^shared +4 waiters, poll 1s, $N s: [0-9]+ query\(\) calls, [0-9]+ squeue = $N squeue/min" \
		"^perjob +4 waiters"
	smoke slurm-pipeline "^2 targets waiting \(make -j2, poll 1 s\), .* queries/min in total" \
		"^completion -> stamp latency: mean $N s" "^ASYNC=1: 4 jobs submitted in $N s"
	smoke slurm-scale "^plan \(make -n train, 12 configurations\)" "^rate 10/s: 12 jobs submitted in $N s .* refused 0" \
		"^wait \(make -j4 train" "^llmb job end -> stamp latency: median $N s" \
		"^yardstick job end -> seen latency: median $N s"
else
	for b in slurm-poll slurm-pipeline slurm-scale; do skip "bench/$b.sh" "$SLURM_SKIP_REASON"; done
fi
t_done
