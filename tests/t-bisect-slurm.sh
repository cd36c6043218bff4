#!/usr/bin/env bash
# t-bisect-slurm: make bisect on the emulated Slurm cluster. The bs
# workload (tests/bisect) is a Python training whose venv pins steplib, a
# repository made here with 12 commits after the first: c3 changes code
# but not the time, c7 makes every step do 0.25 s more work (+100%); a
# branch s1 off c0 adds work to every other step only (+28% on average,
# noisy). Nights: 01 and 02 at c0; 03 at c12 with NCCL_DEBUG=WARN in the
# caller's environment: a confirmed regression, which the nightly bisects
# (bisect_on_regression) and whose culprit its summary names; 04 at c0 with
# EXTRA_WORK=1; 05 at s1. Then: the plan of make -n bisect (golden); the
# bisection of 01..03 killed with SIGKILL after its second round and
# resumed (no stage submitted twice) names c7 within ceil(log2 12) + 2
# rounds; 01..04 names the run knob; 01..05 with one pair of runs a round
# ends inconclusive, saying what it would need; BISECT_MAX_GPU_HOURS stops
# before running. The bisections' runs are no nights of the history.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/slurm/testlib.sh
. "$TESTS_DIR/slurm/testlib.sh"
slurm_need_packages || t_skip_all "$SLURM_SKIP_REASON"
unset SBATCH_ACCOUNT SBATCH_PARTITION SBATCH_GPUS_PER_NODE ADDITIONAL_SLURM_PARAMS TIME_LIMIT ASYNC NIGHT EXTRA_WORK \
	GOOD BAD BISECT_MAX_GPU_HOURS BISECT_REPEATS BISECT_MAX_REPEATS LLMB_BISECT LLMB_BISECT_PIN MAX_STEPS
export SLURM_CI_NODES=2 SLURM_CI_CPUS=${SLURM_CI_CPUS:-8} SLURM_CI_MIN_JOB_AGE=${SLURM_CI_MIN_JOB_AGE:-3600}
# accounting gives each run its start and end: the GPU-hours spent
if [ -z "${SLURM_CI_ACCOUNTING+x}" ] && command -v mariadbd >/dev/null 2>&1; then
	export SLURM_CI_ACCOUNTING=1
fi
t_ok "cluster is up" slurm_test_up || { t_done; exit 1; }
export LLMB_POLL_SECONDS=1
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# steplib: fixed dates, so the commits (and the goldens) are the same every run.
R=$TRASH/steplib
export GIT_AUTHOR_NAME=llmb GIT_AUTHOR_EMAIL=llmb@example.com GIT_COMMITTER_NAME=llmb GIT_COMMITTER_EMAIL=llmb@example.com
git init -q -b main "$R"
n=0
lib() { # lib EXTRA JITTER VERSION
	printf '"""%s"""\nimport time\n\nEXTRA = %s\nJITTER = %s\n\n\ndef step(i):\n    d = EXTRA + (2 * JITTER if i %% 2 else 0.0)\n    if d:\n        time.sleep(d)\n' \
		"$3" "$1" "$2" >"$R/steplib.py"
}
commit() {
	n=$((n + 1))
	git -C "$R" add -A
	GIT_AUTHOR_DATE="2026-01-01T00:00:${n}Z" GIT_COMMITTER_DATE="2026-01-01T00:00:${n}Z" git -C "$R" commit -qm "$1"
	git -C "$R" rev-parse HEAD
}
lib 0.0 0.0 c0
C[0]=$(commit "steplib: first version")
for i in $(seq 1 12); do
	case $i in
	3) lib 0.0 0.0 c3; printf 'def unused():\n    return 0\n' >>"$R/steplib.py"; subj="steplib: a function, called nowhere" ;;
	7) lib 0.25 0.0 c7; subj="step: check every batch twice" ;;
	*) echo "note $i" >>"$R/NOTES"; subj="notes: entry $i" ;;
	esac
	C[i]=$(commit "$subj")
done
git -C "$R" checkout -q -b side "${C[0]}"
lib 0.0 0.07 s1
S1=$(commit "step: log every other step")
git -C "$R" checkout -q main

T=$TRASH/top
mkdir -p "$T/workloads/bs" "$T/pipelines"
for f in GNUmakefile generator scripts templates tests; do ln -s "$TOP/$f" "$T/$f"; done
cp "$TOP/pipelines/benchmark.yaml" "$TESTS_DIR/bisect/nightly.yaml" "$T/pipelines/"
cp "$TOP/workloads/gpus.yaml" "$T/workloads/"
cp "$TESTS_DIR/bisect/train.py" "$TESTS_DIR/slurm-pipeline/data.sh" "$T/workloads/bs/"
pin() { sed -e "s|@REPO@|$R|" -e "s|@PIN@|$1|" "$TESTS_DIR/bisect/bs.yaml" >"$T/workloads/bs.yaml"; }
I=$TRASH/inst
m() { make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR=slurm "$@"; }
night() { # night DAY PIN [VAR=VALUE...]
	local d=$1; pin "$2"; shift 2
	env "$@" ADDITIONAL_SLURM_PARAMS=nodelist=n1 make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR=slurm nightly NIGHT="2026-01-$d"
}
make -C "$TOP" all >/dev/null 2>&1
N=$I/nightly
# judged DAY: the night ran, was judged, and its run is in the history (a
# night whose job failed leaves the next night a shorter baseline: its
# status and its output's end are printed, so that a failure says which)
judged() {
	t_ok "night $1 ran and was judged, its valid run in the history" sh -c \
		"test -e '$N/2026-01-$1/status' && cat '$I'/history/*.jsonl | grep -F '\"night\":\"2026-01-$1\"' | grep -qF '\"valid\":true'" && return
	sed 's/^/# status: /' "$N/2026-01-$1/status" 2>/dev/null
	tail -n 20 "$TRASH/night$1.out" | sed 's/^/# /'
}
for spec in "01 ${C[0]}" "02 ${C[0]}" "03 ${C[12]} NCCL_DEBUG=WARN"; do
	# shellcheck disable=SC2086
	night $spec >"$TRASH/night${spec%% *}.out" 2>&1
	judged "${spec%% *}"
done
mean() { python3 -c '
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/history/*.jsonl"):
    for l in open(f):
        r = json.loads(l)
        if r.get("type") == "run" and r["night"] == sys.argv[2]:
            print(r["summary"]["mean"])' "$I" "2026-01-$1"; }
t_ok "the nightly shows the regression after the pin moved: night 03 at least 1.5x night 01's step time" \
	python3 -c "import sys; a, b = map(float, sys.argv[1:]); assert b > 1.5 * a, (a, b)" "$(mean 01)" "$(mean 03)"
t_ok "night 03: a confirmed regression" grep -qx '1 regression' "$N/2026-01-03/status" ||
	python3 -c '
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/history/*.jsonl"):
    for l in open(f):
        r = json.loads(l)
        print("# history:", r.get("type"), r.get("night"), r.get("valid"), r.get("summary", {}).get("mean"), r.get("invalid"))' "$I"
t_grep "night 03: bisected (bisect_on_regression), the culprit in the night's summary" \
	"^CULPRIT: repository steplib commit ${C[7]:0:12} \"step: check every batch twice\"$" "$N/2026-01-03/summary.txt"
t_grep "night 03: the summary says which nights and where the bisection lies" \
	'^BISECTION bs_cpu_tiny_fp32_2_[0-9a-f]+ \(nights 2026-01-02..2026-01-03, bisect/[0-9a-f]{12}\):$' "$N/2026-01-03/summary.txt"
grep -A3 '^BISECTION' "$N/2026-01-03/summary.txt" | sed 's/^/# /'
# the next nights are not bisected
sed -i '/^bisect_on_regression/d' "$T/pipelines/nightly.yaml"
for spec in "04 ${C[0]} EXTRA_WORK=1" "05 $S1"; do
	# shellcheck disable=SC2086
	night $spec >"$TRASH/night${spec%% *}.out" 2>&1
	judged "${spec%% *}"
done
RUNS=$I/workloads/bs/experiments/cpu_tiny_fp32_2
rc=0
"$LLMB" diff "$RUNS/night-2026-01-01" "$RUNS/night-2026-01-03" >"$TRASH/diff.out" 2>&1 || rc=$?
t_ok "llmb diff of the two nights names the pin and the environment (exit $rc)" \
	sh -c "grep -q steplib '$TRASH/diff.out' && grep -q 'environment.NCCL_DEBUG: unset -> WARN' '$TRASH/diff.out'"
NB=$(ls -d "$I"/bisect/*/)
t_grep "llmb diff: the culprit of the nightly's bisection of night 03, found in the tree the runs lie in" \
	"^  CULPRIT: repository steplib commit ${C[7]:0:12} \"step: check every batch twice\"$" "$TRASH/diff.out"
t_grep "the trend page of night 03 shows the culprit" \
	"^CULPRIT: repository steplib commit ${C[7]:0:12} &quot;step: check every batch twice&quot;$" "$N/2026-01-03/trend.html"
njobs() { squeue -h -t all -o %i | wc -l; }
before=$(njobs)
t_rc "make bisect of the nightly's two nights again: the finished bisection (exit 0)" 0 m bisect GOOD=2026-01-02 BAD=2026-01-03
t_ok "... submits nothing, and is the nightly's bisection" sh -c "test '$(njobs)' = '$before' && test \"\$(ls -d '$I'/bisect/*/)\" = '$NB'"

# The plan: make -n bisect submits nothing.
before=$(njobs)
m -n bisect GOOD=2026-01-01 BAD=2026-01-03 >"$TRASH/plan.raw" 2>&1
t_ok "make -n bisect submits nothing" test "$(njobs)" = "$before"
t_ok "make -n bisect leaves no new bisection folder" test "$(ls -d "$I"/bisect/*/)" = "$NB"
sed -n -e '/^llmb bisect /,/^plan:/p' "$TRASH/plan.raw" | sed -e "s|$I|INSTALL|g" -e 's/bisect [0-9a-f]\{12\}:/bisect ID:/' \
	-e 's/, [0-9.e+-]* GPU-hours/, N GPU-hours/' -e 's/recipe: [0-9a-f]\{12\} -> [0-9a-f]\{12\}/recipe: SHA -> SHA/' >"$TRASH/plan.out"
t_cmp "make -n bisect: the plan (golden)" "$TESTS_DIR/bisect/plan-01-03.golden" "$TRASH/plan.out"
# night 03's recipe moved only its pin: the pin explains it (the golden
# lists no recipe); a recipe changed beyond its pins is listed
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["configuration"]["recipe"]["pins_aside_sha256"] = "0" * 64
json.dump(d, open(sys.argv[2], "w"))' "$RUNS/night-2026-01-03/provenance.json" "$TRASH/recipe-edited.json"
t_rc "a recipe changed beyond its pins: the plan (exit 0)" 0 "$LLMB" bisect --install "$I" --good="$RUNS/night-2026-01-01" --bad="$TRASH/recipe-edited.json"
t_grep "... lists the recipe as not swapped" '^  recipe: [0-9a-f]{12} -> [0-9a-f]{12} \(the recipe file changed: beyond its pins' "$TRASH/.out"

# 01..02, killed with SIGKILL once its second round is decided, then resumed.
# its own session: the kill takes make, llmb bisect and the sub-make at once
setsid make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR=slurm bisect \
	GOOD=2026-01-01 BAD=2026-01-03 >"$TRASH/bisect-a1.out" 2>&1 &
PID=$!
decided() { local f; for f in "$I"/bisect/*/round-2.json; do [ "${f%/round-2.json}/" != "$NB" ] && [ -e "$f" ] && return 0; done; return 1; }
for ((i = 0; i < 6000; i++)); do decided && break; t_nap 0.1; done
t_ok "the bisection decides its second round" decided
ID=$(for f in "$I"/bisect/*/round-2.json; do [ "${f%/round-2.json}/" != "$NB" ] && basename "${f%/round-2.json}"; done)
B=$I/bisect/$ID
kill -9 -- "-$PID"
wait "$PID" 2>/dev/null
t_ok "killed before it ended" test ! -e "$B/bisect.json"
cp "$B/round-1.json" "$TRASH/round-1.before"
cp "$B/round-2.json" "$TRASH/round-2.before"
t_rc "the bisection resumed names a culprit (exit 0)" 0 m bisect GOOD=2026-01-01 BAD=2026-01-03
cp "$TRASH/.out" "$TRASH/bisect-a2.out"
t_ok "resumed: the decided rounds were not run again" \
	sh -c "cmp -s '$TRASH/round-1.before' '$B/round-1.json' && cmp -s '$TRASH/round-2.before' '$B/round-2.json'"
t_nogrep "resumed: rounds 1 and 2 submitted nothing" "bisect-$ID-r[12][ab][0-9]+: submitted" "$TRASH/bisect-a2.out"
# jobs Slurm ever had per train stage of the bisection
squeue -h -t all -o '%j' | grep -o "^llmb\.train\.bs\.[^ ]*bisect-$ID-[a-z0-9]*" | sort | uniq -c >"$TRASH/jobs.out"
t_ok "resumed: no stage of the bisection was submitted twice" sh -c "! awk '\$1 != 1' '$TRASH/jobs.out' | grep -q ."
t_ok "one train job per run of bisect.json" \
	test "$(wc -l <"$TRASH/jobs.out")" = "$(jq_py "$B/bisect.json" 'sum(len(r["runs"]) for r in d["rounds"])')"
t_grep "the culprit is c7, with its subject" "^CULPRIT: repository steplib commit ${C[7]:0:12} \"step: check every batch twice\"$" "$B/bisect.txt"
t_grep "the step times both sides with their spread" '^  step time [0-9.]+ s \(sd [0-9.e-]+, n [0-9]+\) -> [0-9.]+ s \(sd [0-9.e-]+, n [0-9]+\): \+[0-9.]+%$' "$B/bisect.txt"
t_ok "at most ceil(log2 12) + 2 = 6 rounds" test "$(jq_py "$B/bisect.json" 'len(d["rounds"])')" -le 6
t_ok "bisect.json: the culprit commit, component and GPU-hours" \
	test "$(jq_py "$B/bisect.json" 'd["culprit"]["commit"], d["culprit"]["component"], d["gpu_hours"] > 0')" = "${C[7]} repository True"
t_ok "the bisection's runs live under experiments/bisect/<id>/" test -d "$I/workloads/bs/experiments/bisect/$ID"
t_grep "the bisection says what it could not swap: nodes are the same, the environment swapped" \
	'^  environment NCCL_DEBUG: unset -> WARN$' "$B/bisect.txt"
grep -E '^(round|bisection|CULPRIT)' "$B/bisect.txt" | sed 's/^/# /'

# 01..04: the culprit is a run knob; the recipe now pins s1, the runs c0.
t_rc "01..04: a culprit (exit 0)" 0 m bisect GOOD=2026-01-01 BAD=2026-01-04
cp "$TRASH/.out" "$TRASH/bisect-b.out"
KID=$(sed -n 's/^llmb bisect \([0-9a-f]\{12\}\):.*/\1/p' "$TRASH/bisect-b.out")
t_ok "01..04: both sides ran at the good run's pin, not the recipe's" sh -c "grep -l 'steplib file://$R ${C[0]}' \
	'$I'/workloads/bs/experiments/bisect/$KID/cpu_tiny_fp32_2/r1[ab]1/provenance.json | wc -l | grep -qx 2"
t_grep "01..04: the culprit is the run knob EXTRA_WORK" '^CULPRIT: run knob EXTRA_WORK: unset -> 1$' "$TRASH/bisect-b.out"
grep -E '^(round|bisection)' "$TRASH/bisect-b.out" | sed 's/^/# /'

# MAX_STEPS: shorter runs, both sides alike (no baseline, still compared).
t_rc "01..04 with MAX_STEPS=8: a culprit (exit 0)" 0 m bisect GOOD=2026-01-01 BAD=2026-01-04 MAX_STEPS=8
t_grep "MAX_STEPS: the plan says so" '^shorter runs, both sides: MAX_STEPS=8$' "$TRASH/.out"
t_grep "MAX_STEPS: the culprit is the run knob EXTRA_WORK" '^CULPRIT: run knob EXTRA_WORK: unset -> 1$' "$TRASH/.out"
SID=$(sed -n 's/^llmb bisect \([0-9a-f]\{12\}\):.*/\1/p' "$TRASH/.out")
t_ok "MAX_STEPS: a bisection of its own, whose runs ran with it" sh -c "test '$SID' != '$KID' && \
	grep -q '\"MAX_STEPS\": \"8\"' '$I/workloads/bs/experiments/bisect/$SID/cpu_tiny_fp32_2/r1b1/provenance.json'"

# 01..05: a slowdown too noisy for one pair of runs a round.
t_rc "01..05 with one pair a round: make fails (llmb bisect exits 4)" 2 m bisect GOOD=2026-01-01 BAD=2026-01-05 BISECT_MAX_REPEATS=1
cp "$TRASH/.out" "$TRASH/bisect-c.out"
t_grep "01..05: inconclusive, saying what it would need" \
	'^INCONCLUSIVE: a round stayed inconclusive after the repeats allowed; it would need about [0-9]+ pairs of runs a round \(BISECT_MAX_REPEATS\)$' "$TRASH/bisect-c.out"
grep -E '^(round|bisection)' "$TRASH/bisect-c.out" | sed 's/^/# /'

# A GPU-hour limit the first round would pass stops before any run.
t_rc "BISECT_MAX_GPU_HOURS: stopped (make fails)" 2 m bisect GOOD=2026-01-01 BAD=2026-01-05 BISECT_REPEATS=2 BISECT_MAX_GPU_HOURS=0.000001
t_grep "stopped: said why" '^STOPPED: BISECT_MAX_GPU_HOURS would be exceeded by the next round$' "$TRASH/.out"
t_grep "stopped: no run" '^bisection: [0-9]+ rounds?, 0 runs' "$TRASH/.out"

t_ok "the bisections' runs are no nights of the history (5 run records)" \
	test "$(grep -hc '"type":"run"' "$I"/history/*.jsonl)" = 5
rc=0
"$LLMB" record --import --top "$T" --install "$TRASH/imported" "$I/workloads/bs/experiments" >"$TRASH/import.out" 2>&1 || rc=$?
t_ok "record --import skips the bisections' runs (exit $rc)" \
	sh -c "grep -q 'a bisection.s runs are no nights' '$TRASH/import.out' && test \"\$(grep -hc '\"type\":\"run\"' '$TRASH'/imported/history/*.jsonl)\" = 5"

# Bad input: refused before anything runs.
t_rc "an unknown option is refused (exit 2)" 2 "$LLMB" bisect --install "$I" --bogus --good=2026-01-01 --bad=2026-01-03
t_grep "... naming it" 'bogus' "$TRASH/.out"
t_rc "one side missing is refused (exit 2)" 2 "$LLMB" bisect --install "$I" --good=2026-01-01
t_rc "--repeats=0 is refused (exit 2)" 2 "$LLMB" bisect --install "$I" --good=2026-01-01 --bad=2026-01-03 --repeats=0
t_rc "--max-gpu-hours=-1 is refused (exit 2)" 2 "$LLMB" bisect --install "$I" --good=2026-01-01 --bad=2026-01-03 --max-gpu-hours=-1
printf '{"v": 1,\n  "software": }\n' >"$TRASH/broken.json"
t_rc "a broken provenance file is refused (exit 2)" 2 "$LLMB" bisect --install "$I" --good="$TRASH/broken.json" --bad=2026-01-03
t_grep "... at its line and column" "^$TRASH/broken.json:2:[0-9]+: error: " "$TRASH/.out"
t_rc "a night without a run is refused (exit 2)" 2 env WORKLOAD=bs "$LLMB" bisect --install "$I" --good=2025-01-01 --bad=2026-01-03
t_grep "... saying so" '^llmb bisect: error: night 2025-01-01: no run of that night' "$TRASH/.out"
t_done
