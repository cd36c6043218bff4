#!/usr/bin/env bash
# t-bisect: what llmb bisect refuses before it runs anything, and what it
# hands the runs, with provenance files written here and a make command
# that records its arguments and environment (no cluster, no training):
# a FIFO, a missing file, a folder and broken JSON as GOOD or BAD; run
# knobs, environment variables and pins a provenance could use to reach
# make, a shell or git; two configurations; an empty --install, a missing
# --policy, numbers and options given twice; every run knob the two sides
# share on the run's command line. Then the nightly's bisections of two
# confirmed regressions: the first's knobs never reach the second.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
unset GOOD BAD BISECT_MAX_GPU_HOURS BISECT_REPEATS BISECT_MAX_REPEATS LLMB_BISECT LLMB_BISECT_PIN LLMB_BISECT_IMAGE \
	MAX_STEPS WORKLOAD GPU_TYPE SIZE DTYPE SCALES EXECUTOR LLMB_INSTALL NIGHT ASYNC
C0=1111111111111111111111111111111111111111 C1=2222222222222222222222222222222222222222
# prov FILE [PYTHON...]: a provenance of quick, cpu_tiny_fp32_1, steplib at
# C0, each PYTHON statement then applied to it (d: the document).
prov() {
	local f=$1; shift
	mkdir -p "$(dirname "$f")"
	python3 - "$f" "$C0" "$@" <<'PY'
import json, sys
f, c0 = sys.argv[1], sys.argv[2]
d = {"configuration": {"workload": "quick", "run": "cpu_tiny_fp32_1/night-2026-01-01", "run_knobs": {},
                       "environment": {}, "config_hash": "h",
                       "recipe": {"sha256": "a" * 64, "pins_aside_sha256": "b" * 64}},
     "software": {"venv": {"pins": ["steplib file:///nowhere " + c0]}, "llmb_version": "v1",
                  "image": {"ref": "nvcr.io#nvidia/quick:1.0"}},
     "machine": {"job": "1", "nodes": "n1"}}
for s in sys.argv[3:]:
    exec(s)
json.dump(d, open(f, "w"))
PY
}
W=$TRASH/w
mkdir -p "$W"
# the make command of the bisection's runs: its arguments and environment, kept
cat >"$TRASH/fakemake" <<SH
#!/bin/sh
printf '%s\n' "\$@" >"$TRASH/argv"
env >"$TRASH/env"
SH
chmod +x "$TRASH/fakemake"
G=$W/good.json B=$W/bad.json
prov "$G"
prov "$B" "d['software']['venv']['pins'] = ['steplib file:///nowhere $C1']" "d['machine']['job'] = '2'"
bis() { env -C "$W" "$LLMB" bisect --top "$W" --install "$TRASH/inst" "$@"; }
t_rc "the plan of two runs a pin apart (exit 0)" 0 bis --good="$G" --bad="$B"
t_grep "the plan names the pin" '^  repository steplib: 1111111 -> 2222222 ' "$TRASH/.out"

# GOOD and BAD that are no provenance: said with the file, exit 2, never a wait.
mkfifo "$W/fifo"
mkdir "$W/emptydir"
: >"$W/empty.json"
t_rc "a FIFO as GOOD: refused, not waited on (exit 2)" 2 timeout 20 "$LLMB" bisect --install "$TRASH/inst" --good="$W/fifo" --bad="$B"
t_grep "a FIFO: path: error: not a regular file" "^$W/fifo: error: not a regular file$" "$TRASH/.out"
t_rc "a missing file as BAD (exit 2)" 2 bis --good="$G" --bad=nonexist
t_grep "a missing file: path: error: why" '^nonexist: error: No such file or directory$' "$TRASH/.out"
t_rc "an empty folder as BAD (exit 2)" 2 bis --good="$G" --bad=emptydir
t_grep "an empty folder: path: error: a directory" '^emptydir: error: a directory, not a regular file$' "$TRASH/.out"
t_rc "an empty file as BAD (exit 2)" 2 bis --good="$G" --bad=empty.json
t_grep "an empty file: line and column at least 1" '^empty\.json:[1-9][0-9]*:[1-9][0-9]*: error: ' "$TRASH/.out"

# refused: prov NAME PYTHON... as BAD; the make command never runs
refused() {
	local what=$1 want=$2; shift 2
	prov "$W/r.json" "$@"
	rm -f "$TRASH/argv"
	t_rc "$what: refused (exit 2)" 2 bis --good="$G" --bad="$W/r.json" -- "$TRASH/fakemake"
	t_grep "$what: file:1:1: error: why" "^$W/r\\.json:1:1: error: $want" "$TRASH/.out"
	t_ok "$what: nothing ran" test ! -e "$TRASH/argv"
}
mkdir -p "$TRASH/x"
refused "a run knob that is make's option" 'configuration\.run_knobs: "--eval" is no run knob of llmb.s' \
	"d['configuration']['run_knobs']['--eval'] = '\$(shell touch $TRASH/x/PWNED)'"
refused "a run knob named MAKEFLAGS" 'configuration\.run_knobs: "MAKEFLAGS" is no run knob' \
	"d['configuration']['run_knobs']['MAKEFLAGS'] = 'x'"
refused "a run knob's value make would expand" 'configuration\.run_knobs\.MAX_STEPS: expected a string without' \
	"d['configuration']['run_knobs']['MAX_STEPS'] = '\$(shell touch $TRASH/x/PWNED)'"
refused "a run knob's value with a newline" 'configuration\.run_knobs\.EXTRA_WORK: expected a string without' \
	"d['configuration']['run_knobs']['EXTRA_WORK'] = '1\\n2'"
refused "an environment variable LD_PRELOAD" 'configuration\.environment: "LD_PRELOAD" is no variable llmb records' \
	"d['configuration']['environment']['LD_PRELOAD'] = '/x.so'"
refused "an environment variable SHELL" 'configuration\.environment: "SHELL" is no variable' \
	"d['configuration']['environment']['SHELL'] = '/x'"
refused "a secret's name in the environment" 'configuration\.environment: "NCCL_AUTH_TOKEN" is no variable' \
	"d['configuration']['environment']['NCCL_AUTH_TOKEN'] = 'x'"
refused "an environment value make would expand" 'configuration\.environment\.NCCL_DEBUG: expected a string without' \
	"d['configuration']['environment']['NCCL_DEBUG'] = '\$(shell touch $TRASH/x/PWNED)'"
refused "a pin whose commit is a git option" 'software\.venv\.pins\[0\] .*expected .* a full 40-digit lowercase hex commit' \
	"d['software']['venv']['pins'] = ['steplib /x/steplib --output=$TRASH/x/OWNED']"
refused "a pin's key with a path" 'software\.venv\.pins\[0\] .*expected a key of letters' \
	"d['software']['venv']['pins'] = ['../up file:///x $C1']"
refused "a workload that is no name" 'configuration\.workload "\$\(x\)" is no workload name' \
	"d['configuration']['workload'] = '\$(x)'"
refused "an image ref make would expand" 'software\.image\.ref: expected one word' \
	"d['software']['image']['ref'] = '\$(shell x)'"
t_ok "a provenance's knobs, variables and pins ran nothing" test -z "$(ls "$TRASH/x")"
# the good side is checked as well
prov "$W/r.json" "d['configuration']['run_knobs']['--eval'] = 'x'"
t_rc "a bad GOOD side: refused (exit 2)" 2 bis --good="$W/r.json" --bad="$B"
t_grep "a bad GOOD side: named" "^$W/r\\.json:1:1: error: configuration\\.run_knobs: \"--eval\"" "$TRASH/.out"

# two configurations of one workload
prov "$W/other.json" "d['configuration']['run'] = 'cpu_tiny_fp32_2/night-2026-01-02'"
t_rc "a good and a bad run of different configurations: refused (exit 2)" 2 bis --good="$G" --bad="$W/other.json"
t_grep "different configurations: file:1:1: error: both runs named" \
	"^$W/other\\.json:1:1: error: configuration\\.run cpu_tiny_fp32_2, the good run's cpu_tiny_fp32_1: one configuration is bisected$" "$TRASH/.out"

# options
t_rc "--policy that does not exist: refused (exit 2)" 2 bis --policy "$W/nopolicy.yaml" --good="$G" --bad="$B"
t_grep "--policy: the missing file named" "nopolicy\\.yaml: error: cannot open: No such file or directory" "$TRASH/.out"
for v in 0x2 1e1 2.0 -1 0 21 ''; do
	t_rc "--repeats=$v: refused (exit 2)" 2 bis --good="$G" --bad="$B" --repeats="$v"
done
t_rc "--repeats=20 is taken" 0 bis --good="$G" --bad="$B" --repeats=20
for v in 0.5h -1 0 0x1 inf nan 1e-3 1..2; do
	t_rc "--max-gpu-hours=$v: refused (exit 2)" 2 bis --good="$G" --bad="$B" --max-gpu-hours="$v"
done
t_rc "--max-gpu-hours=0.5 is taken" 0 bis --good="$G" --bad="$B" --max-gpu-hours=0.5
t_rc "--good given twice: refused (exit 2)" 2 bis --good="$B" --good="$G" --bad="$B"
t_grep "--good twice: said" 'given twice' "$TRASH/.out"

# every run knob both sides share reaches the run's command line (as many
# as llmb has: the make words are counted as they come)
KNOBS=$(python3 - "$TOP/generator/plan/plandata.c" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
names = re.findall(r'"([A-Z_]+)"', t[t.index("knob_names"):t.index("};", t.index("knob_names"))])
print(" ".join(n for n in names if n not in ("ADDITIONAL_SLURM_PARAMS", "WORKLOAD", "SIZE", "DTYPE", "GPU_TYPE", "SCALES")))
PY
)
t_ok "llmb has more than 25 run knobs to share" test "$(wc -w <<<"$KNOBS")" -gt 25
setk="for k in '$KNOBS'.split(): d['configuration']['run_knobs'][k] = 'v' + k"
prov "$W/kg.json" "$setk"
prov "$W/kb.json" "$setk" "d['software']['venv']['pins'] = ['steplib file:///nowhere $C1']"
rm -f "$TRASH/argv"
t_rc "a bisection of runs sharing every knob: its run fails here (exit 2)" 2 \
	bis --good="$W/kg.json" --bad="$W/kb.json" -- "$TRASH/fakemake"
ID=$(sed -n 's/^llmb bisect \([0-9a-f]\{12\}\):.*/\1/p' "$TRASH/.out")
t_ok "the run's make got every shared knob, and the selection" sh -c "
	for k in $KNOBS; do grep -qx \"\$k=v\$k\" '$TRASH/argv' || { echo \"no \$k\"; exit 1; }; done
	grep -qx 'WORKLOAD=quick' '$TRASH/argv' && grep -qx 'LLMB_BISECT_PIN=steplib=$C0' '$TRASH/argv'"
t_grep "...and the install tree it reads, by an absolute path" "^LLMB_INSTALL=$(cd "$TRASH/inst" && pwd -P)\$" "$TRASH/argv"

# bisect.json names both runs by absolute paths, whatever the command said
rm -rf "$TRASH/inst"
t_rc "a bisection given relative paths (its run fails here, exit 2)" 2 \
	env -C "$W" "$LLMB" bisect --install "$TRASH/inst" --good=good.json --bad=bad.json -- "$TRASH/fakemake"
ID=$(sed -n 's/^llmb bisect \([0-9a-f]\{12\}\):.*/\1/p' "$TRASH/.out")
t_ok "bisect.json: good and bad as absolute paths" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["good"], d["bad"]) == (sys.argv[2] + "/good.json", sys.argv[2] + "/bad.json"), (d["good"], d["bad"])' \
	"$TRASH/inst/bisect/$ID/bisect.json" "$(cd "$W" && pwd -P)"
# an empty --install is the default install tree, as for every command
rm -rf "$W/install"
t_rc "--install= (its run fails here, exit 2)" 2 \
	env -C "$W" "$LLMB" bisect --install= --good=good.json --bad=bad.json -- "$TRASH/fakemake"
t_ok "--install=: the bisection lies in the default install tree" test -e "$W/install/bisect/$ID/bisect.json"
t_nogrep "--install=: nothing at the file system's root" "cannot create /bisect" "$TRASH/.out"

# The nightly (bisect_on_regression) bisects two CONFIRMED regressions,
# quick at scales 1 and 2 (generated histories: 11 good nights, then 8%
# slower), with a make command that does nothing: each bisection's run
# fails, and the first one's knobs (MAX_STEPS=5, which both its runs had)
# reach neither the second bisection nor the notify hook.
cc -O2 -std=c11 -D_DEFAULT_SOURCE -o "$TRASH/histgen" "$TESTS_DIR/verdict/histgen.c" -lm || t_fail "histgen builds"
T=$TRASH/top I=$TRASH/ninst
t_quick_checkout "$T"
cat >"$T/pipelines/nightly.yaml" <<'Y'
description: "quick, bisected"
repeats: 1
confirm_elsewhere: false
bisect_on_regression: true
matrix:
  - workload: quick
    scales: [1, 2]
nightly:
  min_effect: 0.03
Y
mkdir -p "$I/history"
E=$I/workloads/quick/experiments
for sc in 1 2; do
	fp=quick_cpu_tiny_fp32_${sc}_0123456789ab
	"$TRASH/histgen" -n 14 -f "$fp" shift:12:1.08 |
		sed "s/\"workload\":\"tinygpt\"/\"workload\":\"quick\"/; s/\"scale\":1/\"scale\":$sc/" >"$I/history/$fp.jsonl"
	knobs="d['configuration']['run_knobs'] = {'MAX_STEPS': '5'} if $sc == 1 else {}"
	prov "$E/cpu_tiny_fp32_$sc/night-2026-01-11/provenance.json" "d['configuration']['run'] = 'cpu_tiny_fp32_$sc/night-2026-01-11'" "$knobs"
	prov "$E/cpu_tiny_fp32_$sc/night-2026-01-12/provenance.json" "d['configuration']['run'] = 'cpu_tiny_fp32_$sc/night-2026-01-12'" "$knobs" \
		"d['software']['venv']['pins'] = ['steplib file:///nowhere $C1']" "d['machine']['job'] = '2'"
done
# nightly ARGS...: llmb nightly run as make nightly calls it, for a night after the histories'
nightly() {
	env -C "$T" LLMB_INSTALL="$I" EXECUTOR=local "$@" "$LLMB" nightly run --top "$T" --install "$I" \
		--policy "$T/pipelines/nightly.yaml" -- "$TRASH/fakemake"
}
for v in 0.5h -1 0x1 1e-3; do
	t_rc "BISECT_MAX_GPU_HOURS=$v: the night is refused before it starts (exit 2)" 2 nightly NIGHT=2026-01-14 BISECT_MAX_GPU_HOURS=$v
	t_grep "BISECT_MAX_GPU_HOURS=$v: said" "^llmb nightly: error: BISECT_MAX_GPU_HOURS=$v: expected GPU-hours above 0" "$TRASH/.out"
	t_ok "BISECT_MAX_GPU_HOURS=$v: no night started" test ! -e "$I/nightly/2026-01-14"
done
t_rc "the night: two confirmed regressions (exit 1)" 1 nightly NIGHT=2026-01-14 BISECT_MAX_GPU_HOURS=100 \
	NIGHTLY_NOTIFY="sh -c 'env >$TRASH/notify.env' notify"
cp "$TRASH/.out" "$TRASH/night.out"
t_ok "both configurations were bisected" test "$(grep -c '^llmb nightly: bisecting quick_cpu_tiny_fp32_[12]_' "$TRASH/night.out")" = 2
t_nogrep "neither bisection takes MAX_STEPS for the caller's" '^shorter runs' "$TRASH/night.out"
t_grep "the second bisection's plan runs at scale 2" '^llmb bisect [0-9a-f]{12}: quick cpu tiny fp32 x2$' "$TRASH/night.out"
# the make command keeps its last run's arguments and environment: the second's
t_ok "the second bisection's run: scale 2, without the first's MAX_STEPS" sh -c "
	grep -qx SCALES=2 '$TRASH/env' && ! grep -q '^MAX_STEPS=' '$TRASH/env' '$TRASH/argv'"
t_ok "the notify hook ran" test -s "$TRASH/notify.env"
t_nogrep "the notify hook sees no knob nor variable of the bisections" '^(MAX_STEPS|LLMB_BISECT|LLMB_BISECT_PIN|ASYNC|GPU_TYPE)=' "$TRASH/notify.env"
t_grep "the notify hook sees the night" '^LLMB_NIGHT=2026-01-14$' "$TRASH/notify.env"
t_done
