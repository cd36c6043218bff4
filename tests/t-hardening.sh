#!/usr/bin/env bash
# Bad input, the way an attacker or a careless user gives it: recipes
# (tests/hardening/recipes/*.sh edit a small valid recipe), make
# metacharacters in every place recipe text reaches make, and (below)
# variables, logs and damaged install trees. Each case has its exact
# diagnostic or outcome as a golden; nothing may crash, block or run.
. "$(dirname "$0")/lib.sh"
H=$TESTS_DIR/hardening
# jtrue FILE EXPR: the Python expression over the JSON document d is true.
jtrue() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; }

# newcase NAME: a fresh copy of the base recipes in $TRASH/NAME.
newcase() {
	local d=$TRASH/$1
	rm -rf "$d" && mkdir -p "$d"
	cp -r "$H/base/." "$d/" && ln -s "$TOP/templates" "$d/templates"
	echo "$d"
}
# check_case NAME GOLDEN: llmb check exits 2 with exactly the golden's
# diagnostics, within 20 s (a FIFO or a deep nesting must not hang it).
check_case() {
	local name=$1 golden=$2 d=$TRASH/$1 rc=0
	(cd "$d" && timeout 20 "$LLMB" check --top .) >"$TRASH/$name.out" 2>"$TRASH/$name.err" || rc=$?
	t_ok "$name: exit status 2 (got $rc)" test "$rc" = 2
	t_cmp "$name: diagnostics" "$golden" "$TRASH/$name.err"
}

d=$(newcase base)
t_ok "the base recipe is valid" sh -c "cd '$d' && '$LLMB' check --top ."

for c in "$H"/recipes/*.sh; do
	name=$(basename "$c" .sh)
	d=$(newcase "$name")
	# shellcheck source=/dev/null
	(cd "$d" && . "$c")
	check_case "$name" "${c%.sh}.err"
done

# Every metacharacter of make (and of the shell) in a file a command names:
# refused with its position, one case per character.
: >"$TRASH/meta.all"
i=0
# shellcheck disable=SC1003,SC2016 # the characters themselves
for m in '$' '#' '%' ';' '\' ':' '*' '?' '[' ']' ' ' "'" '"' '=' '|' '&' '~' '`' '(' ')' '/../'; do
	i=$((i + 1))
	d=$(newcase "meta-$i")
	arg="{recipe_dir}/a${m}b.py"
	# YAML double quotes: the backslash and the quote need escaping there.
	y=${arg//\\/\\\\}; y=${y//\"/\\\"}
	sed -i "s|\"{recipe_dir}/train.py\"|\"$(printf '%s' "$y" | sed 's/[|&\\]/\\&/g')\"|" "$d/workloads/w.yaml"
	rc=0
	(cd "$d" && "$LLMB" check --top .) >/dev/null 2>"$TRASH/meta-$i.err" || rc=$?
	t_ok "metacharacter '$m' in a tracked file name: refused (exit $rc)" test "$rc" = 2
	{ printf '%s\n' "--- $m"; cat "$TRASH/meta-$i.err"; } >>"$TRASH/meta.all"
done
# A newline and a tab cannot be written into rules.mk either.
for m in '\n' '\t'; do
	d=$(newcase "meta-ctl")
	sed -i "s|\"{recipe_dir}/train.py\"|\"{recipe_dir}/a${m/\\/\\\\}b.py\"|" "$d/workloads/w.yaml"
	rc=0
	(cd "$d" && "$LLMB" check --top .) >/dev/null 2>"$TRASH/meta-ctl.err" || rc=$?
	t_ok "control character $m in a tracked file name: refused (exit $rc)" test "$rc" = 2
	{ printf '%s\n' "--- $m"; cat "$TRASH/meta-ctl.err"; } >>"$TRASH/meta.all"
done
t_cmp "metacharacters: diagnostics" "$H/meta.err" "$TRASH/meta.all"

# Real make over a recipe that tries to run make text: the plan, the
# explanation and the report all refuse, and nothing runs.
T=$TRASH/top
mkdir -p "$T"
cp -r "$H/base/." "$T/"
for f in GNUmakefile generator scripts templates tests; do ln -s "$TOP/$f" "$T/$f"; done
mk() { make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$TRASH/inst" EXECUTOR=slurm WORKLOAD=w "$@"; }
t_ok "the base recipe plans under make -n" mk -n report
sed -i "s|\"{recipe_dir}/train.py\"|\"{recipe_dir}/\$(shell touch $TRASH/pwned).py\"|" "$T/workloads/w.yaml"
for goal in "-n report" plan status; do
	rc=0
	# shellcheck disable=SC2086
	mk $goal >"$TRASH/e2e.out" 2>&1 || rc=$?
	t_ok "make $goal refuses a recipe with make text in a file name (exit $rc)" test "$rc" != 0
	t_grep "make $goal: the diagnostic names the place" "^workloads/w.yaml:22:34: error: '\{recipe_dir\}/\\\$\(shell touch" "$TRASH/e2e.out"
	t_ok "make $goal: nothing ran" test ! -e "$TRASH/pwned"
done

# LLMB_INSTALL (and the other paths make uses as targets) reach make
# targets and shells: refused unless plain, from the command line and
# from the environment alike, and never expanded or run.
: >"$TRASH/install.all"
# shellcheck disable=SC2016 # the characters themselves
for v in '/tmp/a b' "/tmp/a\`touch $TRASH/pwned\`" "/tmp/a'b" '/tmp/a"b' '/tmp/a;b' '/tmp/a$b' \
	"/tmp/\$(shell touch $TRASH/pwned)" '/tmp/a#b' '/tmp/a:b' '/tmp/a%b' '/tmp/a*b' '/tmp/a\b' '' "/tmp/a
b"; do
	for how in cmdline env; do
		rc=0
		if [ $how = cmdline ]; then
			make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$v" WORKLOAD=w plan >"$TRASH/inst.out" 2>&1 || rc=$?
		else
			LLMB_INSTALL="$v" make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" WORKLOAD=w plan >"$TRASH/inst.out" 2>&1 || rc=$?
		fi
		t_ok "LLMB_INSTALL=[$v] ($how): refused (exit $rc), nothing ran" test "$rc" = 2 -a ! -e "$TRASH/pwned"
		grep -v '^make: ' "$TRASH/inst.out" | sed "s|$TRASH|@TRASH@|g; s|^GNUmakefile:[0-9]*:|GNUmakefile:N:|" >>"$TRASH/install.all"
	done
done
t_cmp "LLMB_INSTALL: diagnostics" "$H/install-path.out" "$TRASH/install.all"
rc=0
make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/g en" LLMB_INSTALL="$TRASH/inst" WORKLOAD=w plan >"$TRASH/gen.out" 2>&1 || rc=$?
t_ok "LLMB_GEN with a space: refused (exit $rc)" test "$rc" = 2

# Logs with impossible numbers are invalid with a reason; a job that
# restarted into its log is measured on its last attempt, and says so.
L=$TRASH/logs
mkdir -p "$L"
"$H/logs/mklogs.sh" "$L"
(cd "$L" && "$LLMB" parse --format=csv .) >"$TRASH/logs.csv" 2>"$TRASH/logs.err" || true
t_cmp "bad logs: status and reason of each" "$H/logs/expect.csv" "$TRASH/logs.csv"
"$LLMB" parse --result="$TRASH/zero.json" "$L/step-time-zero.out" >/dev/null 2>&1 || true
t_ok "result.json: an invalid run gives its reason and iteration" \
	jtrue "$TRASH/zero.json" 'd["status"] == "invalid" and d["reason"] == "step_time=0" and d["invalid_iteration"] == 40'
"$LLMB" parse --result="$TRASH/restart.json" "$L/restart-then-complete.out" >/dev/null 2>&1
t_ok "result.json: a restarted run is measured on its last attempt only (mean 2.5 of 10 steps)" \
	jtrue "$TRASH/restart.json" 'd["status"] == "success" and d["restarts"] == 1 and d["step_time"]["mean"] == 2.5 and d["step_time"]["n"] == 10'
"$LLMB" parse --result="$TRASH/clean.json" "$L/clean.out" >/dev/null 2>&1
t_ok "result.json: a clean run has no restarts key" jtrue "$TRASH/clean.json" '"restarts" not in d'

# Variables: booleans take the usual spellings and refuse the rest, a
# selection that names nothing is an error, numbers are held to their range.
d=$(newcase vars)
: >"$TRASH/vars.all"
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	rc=0
	(cd "$d" && eval "env -u LLMB_GEN_VARS EXECUTOR=slurm $line '$LLMB' gen --top . --gen '$TRASH/vars-gen'") >/dev/null 2>"$TRASH/vars.err" || rc=$?
	{ echo "--- $line (exit $rc)"; cat "$TRASH/vars.err"; } >>"$TRASH/vars.all"
done <"$H/variables.txt"
t_cmp "variables: exit status and diagnostics" "$H/variables.out" "$TRASH/vars.all"
t_ok "no variable ran anything" test ! -e "$d/pwned"
# A selection that plans no training is refused, naming the knob that
# emptied it: deepseek-v3 on GB300 has only proxy runs at 64 GPUs and none
# at 512.
: >"$TRASH/noplan.all"
for v in "SCALES=64 PROXY=0" "SCALES=512 PROXY=only"; do
	rc=0
	# shellcheck disable=SC2086 # two assignments
	(cd "$TOP" && env -u LLMB_GEN_VARS EXECUTOR=slurm WORKLOAD=deepseek-v3 GPU_TYPE=gb300 $v \
		"$LLMB" gen --top . --gen "$TRASH/noplan-gen") >/dev/null 2>"$TRASH/noplan.err" || rc=$?
	{ echo "--- $v (exit $rc)"; cat "$TRASH/noplan.err"; } >>"$TRASH/noplan.all"
done
t_cmp "deepseek-v3 gb300: a selection with no training is refused" "$H/no-training.out" "$TRASH/noplan.all"
t_ok "and no rules were written for it" test ! -e "$TRASH/noplan-gen/rules.mk"
# The Megatron-Bridge launcher's plan never shows the token in clear.
: >"$TRASH/mbtoken.all"
for a in "--hf_token=hf_SECRET1" "--hf_token hf_SECRET1" "-hf=hf_SECRET1" "-hf hf_SECRET1" "--hf_tok=hf_SECRET1" "--seq hf_SECRET2"; do
	# shellcheck disable=SC2086 # the option and its value as words
	HF_TOKEN=hf_SECRET2 python3 "$TOP/workloads/mbridge-launch.py" --mbridge-src "$TRASH" --print-plan -- --gpu h100 $a \
		>>"$TRASH/mbtoken.all" 2>&1
done
t_nogrep "mbridge-launch.py --print-plan: no token in clear" 'hf_SECRET' "$TRASH/mbtoken.all"
t_grep "mbridge-launch.py --print-plan: masked where it stood" '"--hf_token=\*\*\*"' "$TRASH/mbtoken.all"

# The same boolean in another spelling is the same configuration.
(cd "$d" && env -u LLMB_GEN_VARS EXECUTOR=slurm ENABLE_PROFILE=true "$LLMB" gen --top . --gen "$TRASH/b1") 2>/dev/null
(cd "$d" && env -u LLMB_GEN_VARS EXECUTOR=slurm ENABLE_PROFILE=YES "$LLMB" gen --top . --gen "$TRASH/b2") 2>/dev/null
t_ok "ENABLE_PROFILE=YES and =true: one configuration" diff -r "$TRASH/b1/cfg" "$TRASH/b2/cfg"

# ASYNC through make: which spelling submits and returns, which waits and
# reports, which is refused. make -n shows the closing command.
T2=$TRASH/top2
mkdir -p "$T2"
cp -r "$H/base/." "$T2/"
for f in GNUmakefile generator scripts templates tests; do ln -s "$TOP/$f" "$T2/$f"; done
: >"$TRASH/async.all"
for a in 1 0 true false FALSE No no off OFF on Yes '' maybe 2 '1 0' "\$(shell touch $TRASH/pwned)"; do
	rc=0
	make -n -C "$T2" B="$TOP/build" LLMB_GEN="$TRASH/gen2" LLMB_INSTALL="$TRASH/inst2" EXECUTOR=slurm \
		WORKLOAD=w GPU_TYPE=cpu ASYNC="$a" report >"$TRASH/async.out" 2>&1 || rc=$?
	if [ $rc != 0 ]; then what=$(grep -o 'ASYNC=.*' "$TRASH/async.out" | sed "s|$TRASH|@TRASH@|g")
	elif grep -q 'llmb status' "$TRASH/async.out"; then what="submits and returns (summary)"
	else what="waits and reports"; fi
	echo "ASYNC=[$a]: exit $rc: $what" | sed "s|$TRASH|@TRASH@|g" >>"$TRASH/async.all"
done
t_cmp "ASYNC spellings through make" "$H/async.out" "$TRASH/async.all"
t_ok "no ASYNC value ran anything" test ! -e "$TRASH/pwned"
# Every variable the GNUmakefile reads is looked at raw: one holding make
# text is refused before make expands it, and nothing runs, even under -n.
for v in WORKLOAD SIZE DTYPE GPU_TYPE SCALES PROXY ENABLE_PROFILE PROFILE_START_STEP PROFILE_STOP_STEP \
	ENABLE_NCCLTRACE ENABLE_CHECKPOINT LOAD_CHECKPOINT_PATH ADDITIONAL_SLURM_PARAMS TIME_LIMIT MAX_STEPS \
	EXTRA_WORK PREFLIGHT EXECUTOR LLMB_INSTALL LLMB_GEN ASYNC NIGHT NIGHTLY_NOTIFY EXEMPLAR EXEMPLAR_PASS_PCT \
	ARCHIVE ARCHIVE_FORMAT LLMB_NIGHT LLMB_NIGHTLY LLMB_NIGHT_TAG LLMB_EXEMPLAR; do
	case $v in ARCHIVE*) goal=(-n archive) ;; WORKLOAD) goal=(plan) ;; *) goal=(-n report) ;; esac
	rc=0
	make -C "$T2" B="$TOP/build" LLMB_GEN="$TRASH/gen2" LLMB_INSTALL="$TRASH/inst2" EXECUTOR=slurm WORKLOAD=w \
		GPU_TYPE=cpu "${goal[@]}" "$v=\$(shell touch $TRASH/pwned-$v)" >"$TRASH/dollar.out" 2>&1 || rc=$?
	t_ok "$v=\$(shell ...), make ${goal[*]}: refused (exit $rc), nothing ran" test "$rc" = 2 -a ! -e "$TRASH/pwned-$v"
	t_grep "$v=\$(shell ...): the refusal names it" "^GNUmakefile:[0-9]+: \*\*\* $v=\\\$\(shell touch .*: a \"\\\$\" is refused" \
		"$TRASH/dollar.out"
done
rc=0
ASYNC=maybe "$LLMB" run --top "$T2" --gen "$TRASH/gen2" --install "$TRASH/inst2" nosuch.stage >"$TRASH/run.out" 2>&1 || rc=$?
t_ok "llmb run refuses ASYNC=maybe before anything (exit $rc)" test "$rc" = 2
t_grep "llmb run says which spellings" 'ASYNC=maybe: expected 1/0, true/false, yes/no or on/off' "$TRASH/run.out"

# ---- stage commands: every argument read before anything is done ------------
# Two trainings of the base recipe "running" on Slurm (job records), and a
# scancel stand-in that logs what it is asked to cancel.
C=$TRASH/cmds CI=$TRASH/cmds/inst
mkdir -p "$C/bin" "$C/cwd"
printf '#!/bin/sh\necho "$*" >>"%s/scancel.log"\n' "$C" >"$C/bin/scancel"
chmod +x "$C/bin/scancel"
for n in 1 2; do
	mkdir -p "$CI/state/jobs/train.w.cpu.tiny.fp32.$n"
	printf 'cfg=x\ntoken=t\njob=10%s\nlog=x.out\nexecutor=slurm\nstate=submitted\nattempt=1\nsubmitted=1\n' "$n" \
		>"$CI/state/jobs/train.w.cpu.tiny.fp32.$n/record"
done
# lc CMD ARG...: llmb CMD on the base recipe, from a scratch directory.
lc() { (cd "$C/cwd" && env -u LLMB_GEN_VARS PATH="$C/bin:$PATH" EXECUTOR=slurm WORKLOAD=w "$LLMB" "$1" --top "$T2" --install "$CI" "${@:2}"); }
cancelled() { cat "$C/scancel.log" 2>/dev/null | tr '\n' ' '; }
t_rc "cancel --help: usage, exit 0" 0 lc cancel --help
t_grep "cancel --help: the usage" '^usage: llmb cancel ' "$TRASH/.out"
t_ok "cancel --help: nothing cancelled" test -z "$(cancelled)"
t_rc "cancel -h: exit 0" 0 lc cancel -h
for a in --bogus -x --top; do
	t_rc "cancel $a: refused (exit 2)" 2 lc cancel $a
	t_grep "cancel $a: the option named" "^llmb cancel: (unknown option|option) '$a'" "$TRASH/.out"
done
t_rc "cancel after a stage id: --bogus refused (exit 2)" 2 lc cancel train.w.cpu.tiny.fp32.1 --bogus
t_rc "cancel of a stage not in the selection: refused (exit 2)" 2 lc cancel train.w.cpu.tiny.fp32.1 nosuch.stage
t_grep "cancel: the unknown stage named" "no stage 'nosuch.stage' in the selection" "$TRASH/.out"
t_ok "and nothing was cancelled by any of them" test -z "$(cancelled)"
t_rc "cancel of one stage" 0 lc cancel train.w.cpu.tiny.fp32.1
t_ok "cancels that stage's job only (got: $(cancelled))" test "$(cancelled)" = "101 "
t_rc "status --bogus: refused (exit 2)" 2 lc status --bogus
t_grep "status --bogus: named" "^llmb status: unknown option '--bogus'" "$TRASH/.out"
t_rc "status --help: exit 0" 0 lc status --help
t_nogrep "status --help: no stage looked at" '^train\.' "$TRASH/.out"
t_rc "status of an unknown stage: refused (exit 2)" 2 lc status nosuch.stage
t_rc "status of one stage" 0 lc status train.w.cpu.tiny.fp32.2
t_ok "status of one stage: its line and the summary only" test "$(grep -c . "$TRASH/.out")" = 2
t_rc "explain of an unknown stage: refused (exit 2)" 2 lc explain nosuch.stage
t_grep "explain: the unknown stage named" "^llmb explain: error: no stage 'nosuch.stage'" "$TRASH/.out"
t_rc "explain --bogus: refused (exit 2)" 2 lc explain --bogus
t_rc "explain of one stage" 0 lc explain train.w.cpu.tiny.fp32.1
t_grep "explain of one stage: that stage only" '^1 of 1 stages would run' "$TRASH/.out"
t_rc "gen with an operand: refused (exit 2)" 2 lc gen --gen "$C/gen" extra
t_ok "gen with an operand: no rules written" test ! -e "$C/gen"
for a in --bogus --help -h; do
	rc=0
	(cd "$C/cwd" && "$LLMB" validate $a) >"$TRASH/.out" 2>&1 || rc=$?
	t_ok "validate $a: exit $rc" test "$rc" = "$([ $a = --bogus ] && echo 2 || echo 0)"
	t_ok "validate $a: no file written" test -z "$(ls -A "$C/cwd")"
done
t_rc "validate of a file that is no make fragment: refused" 2 sh -c "cd '$C/cwd' && '$LLMB' validate result.json"
for c in run script; do
	t_rc "$c --help: exit 0" 0 "$LLMB" $c --install "$C/none" --help
	t_rc "$c --bogus: refused (exit 2)" 2 "$LLMB" $c --install "$C/none" --bogus train.w.cpu.tiny.fp32.1
	t_grep "$c --bogus: named" "^llmb $c: unknown option '--bogus'" "$TRASH/.out"
done
t_ok "run --help and --bogus: no install tree made" test ! -e "$C/none"
# The other commands name what they do not understand too, and take --help.
for c in report flops diff sysdesc exemplar; do
	t_rc "$c --bogus: refused (exit 2)" 2 "$LLMB" $c --bogus
	t_grep "$c --bogus: named" "^llmb $c: unknown option '--bogus'" "$TRASH/.out"
	t_rc "$c --help: exit 0" 0 "$LLMB" $c --help
done
t_ok "still nothing else cancelled" test "$(cancelled)" = "101 "

# ---- llmb run: its operands and the environment's numbers --------------------
# Stand-ins: sbatch logs its arguments and prints job 4242, squeue finds it
# by name and says it runs (SQ_FAIL=1: cannot be asked), scancel logs.
R=$TRASH/runs
mkdir -p "$R/bin"
printf '#!/bin/sh\n[ "$1" = --help ] && exit 0\necho "$*" >>"%s/sbatch.log"\necho 4242\n' "$R" >"$R/bin/sbatch"
printf '#!/bin/sh\n[ -z "$SQ_FAIL" ] || exit 1\ncase "$*" in *" -n "*) echo 4242 ;; *) echo "4242|RUNNING|0|0:05|0|N/A|None" ;; esac\n' \
	>"$R/bin/squeue"
printf '#!/bin/sh\necho "$*" >>"%s/scancel.log"\n' "$R" >"$R/bin/scancel"
printf '#!/bin/sh\nexit 1\n' >"$R/bin/scontrol"
printf '#!/bin/sh\nexit 0\n' >"$R/bin/sacct"
chmod +x "$R"/bin/*
(cd "$T2" && env -u LLMB_GEN_VARS EXECUTOR=slurm WORKLOAD=w GPU_TYPE=cpu "$LLMB" gen --top . --gen "$R/gen") >/dev/null 2>&1
# lr ARG...: llmb run with the stand-ins, the variables in E, no ASYNC.
E=()
lr() {
	env -u ASYNC -u SBATCH_GPUS_PER_NODE PATH="$R/bin:$PATH" EXECUTOR=slurm LLMB_POLL_SECONDS=1 SQ_FAIL= "${E[@]}" \
		timeout 10 "$LLMB" run --top "$T2" --gen "$R/gen" --install "$R/inst" "$@"
}
fresh() { rm -rf "$R/inst" "$R/sbatch.log" "$R/scancel.log"; }
S1=train.w.cpu.tiny.fp32.1 S2=train.w.cpu.tiny.fp32.2
t_rc "run of two stage ids: refused (exit 2)" 2 lr $S1 $S2
t_grep "...with the usage" '^usage: llmb run ' "$TRASH/.out"
t_rc "run with a K/N unlike gen's: refused (exit 2)" 2 lr 1/2/3 $S1
t_ok "...and neither submitted anything" test ! -e "$R/sbatch.log" -a ! -e "$R/inst"
fresh
t_rc "run --async (ASYNC unset): submits and returns" 0 lr --async 1/2 $S1
t_grep "...having submitted the stage" '^\[1/2\] train w cpu tiny fp32 x1: submitted job 4242' "$TRASH/.out"
t_grep "...with the GPUs of the recipe" ' --gpus-per-node 2 ' "$R/sbatch.log"
fresh
E=(SBATCH_GPUS_PER_NODE=0)
t_rc "run with SBATCH_GPUS_PER_NODE=0" 0 lr --async $S1
t_nogrep "...leaves out --gpus-per-node" 'gpus-per-node' "$R/sbatch.log"
for v in SBATCH_GPUS_PER_NODE=abc SBATCH_GPUS_PER_NODE=8x LLMB_MAX_REQUEUES=abc LLMB_MAX_REQUEUES=-1 \
	LLMB_PREEMPT_WAIT=1e3 LLMB_NODE_LOST_WAIT=99999999999999999999 LLMB_POLL_SECONDS=abc LLMB_POLL_SECONDS=0; do
	fresh
	E=("$v")
	t_rc "run with $v: refused (exit 2)" 2 lr --async $S1
	t_grep "...naming the variable" "^llmb run: error: $v: expected .*(a whole number|a number from)" "$TRASH/.out"
	t_ok "...before anything is created or submitted" test ! -e "$R/sbatch.log" -a ! -e "$R/inst"
done
# cancel finds the job of a submission killed between sbatch and the record
# (under the stage lock, as the next run would), and says so when the
# scheduler cannot be asked.
fresh
E=(LLMB_TEST_DIE_AFTER_SUBMIT=1)
t_rc "run killed right after sbatch (LLMB_TEST_DIE_AFTER_SUBMIT)" 137 lr $S1
t_grep "...leaving a record of a submission without its job" '^state=submitting$' "$R/inst/state/jobs/$S1/record"
lcr() { (cd "$C/cwd" && env -u LLMB_GEN_VARS PATH="$R/bin:$PATH" EXECUTOR=slurm WORKLOAD=w "$@" "$LLMB" cancel --top "$T2" --install "$R/inst" $S1); }
t_rc "cancel while squeue cannot be asked: exit 1" 1 lcr SQ_FAIL=1
t_grep "...saying why" "$S1: a submission was interrupted and the scheduler cannot be asked" "$TRASH/.out"
t_ok "...and nothing cancelled" test ! -e "$R/scancel.log"
t_rc "cancel of the interrupted submission" 0 lcr SQ_FAIL=
t_grep "...cancels the job sbatch made" '^cancelled job 4242 \(train.w.cpu.tiny.fp32.1\)$' "$TRASH/.out"
t_ok "...with scancel" test "$(cat "$R/scancel.log")" = 4242
t_grep "...and the record names it" '^job=4242$' "$R/inst/state/jobs/$S1/record"
E=()

# ---- a plan of one selection never breaks the run of another -----------------
# Workload s is w with a secret. Its plan (make -n, the secret set), then a
# run of w without it: w's run reads w's rules, not s's secrets check (a
# stand-in sbatch that fails shows the run got as far as submitting). With
# the default rules directory (one per selection) and with one given.
T3=$TRASH/top3
mkdir -p "$T3/bin"
cp -r "$H/base/." "$T3/"
for f in GNUmakefile generator scripts templates tests; do ln -s "$TOP/$f" "$T3/$f"; done
sed 's/^workload: w$/workload: s/' "$T3/workloads/w.yaml" >"$T3/workloads/s.yaml"
printf 'secrets: [LLMB_TEST_SECRET]\n' >>"$T3/workloads/s.yaml"
cp -r "$T3/workloads/w" "$T3/workloads/s"
printf '#!/bin/sh\necho "sbatch stand-in: no cluster here" >&2\nexit 1\n' >"$T3/bin/sbatch"
printf '#!/bin/sh\nexit 1\n' >"$T3/bin/scontrol"
chmod +x "$T3/bin/sbatch" "$T3/bin/scontrol"
m3() { env -u LLMB_TEST_SECRET PATH="$T3/bin:$PATH" make -C "$T3" B="$TOP/build" EXECUTOR=slurm GPU_TYPE=cpu "$@"; }
for gen in keyed given; do
	with=()
	[ $gen = keyed ] || with=(LLMB_GEN="$TRASH/gen3")
	t_ok "selection s ($gen rules): the plan, with its secret" m3 "${with[@]}" LLMB_INSTALL="$TRASH/inst3-$gen" \
		LLMB_TEST_SECRET=x -n report WORKLOAD=s
	rc=0
	m3 "${with[@]}" LLMB_INSTALL="$TRASH/inst3-$gen" report WORKLOAD=w >"$TRASH/sel3.out" 2>&1 || rc=$?
	t_nogrep "then selection w ($gen rules): not stopped by s's secret" 'LLMB_TEST_SECRET is not set' "$TRASH/sel3.out"
	t_grep "then selection w ($gen rules): its run went as far as submitting" 'sbatch stand-in: no cluster here' "$TRASH/sel3.out"
	rc=0
	m3 "${with[@]}" LLMB_INSTALL="$TRASH/inst3-$gen" report WORKLOAD=s >"$TRASH/sel3.out" 2>&1 || rc=$?
	t_ok "and selection s without its secret: still refused (exit $rc)" test "$rc" = 2
	t_grep "and selection s without its secret: the refusal names it" 'LLMB_TEST_SECRET is not set: the selected workloads' "$TRASH/sel3.out"
	t_nogrep "and selection s without its secret: nothing submitted" 'sbatch stand-in' "$TRASH/sel3.out"
done
# A name the recipe lists under secrets: is passed by name even when it is
# of a family llmb records from the caller (TORCH_*): its value is in no
# stage configuration and no job script.
sed 's/^workload: w$/workload: t/' "$T3/workloads/w.yaml" >"$T3/workloads/t.yaml"
printf 'secrets: [TORCH_AUTH]\n' >>"$T3/workloads/t.yaml"
cp -r "$T3/workloads/w" "$T3/workloads/t"
t_ok "a recorded family's name as a secret: planned" env -C "$T3" TORCH_AUTH=supersecret123456 TORCH_SHOW=1 WORKLOAD=t \
	GPU_TYPE=cpu EXECUTOR=slurm "$LLMB" gen --top . --gen "$TRASH/gen4"
t_grep "...the caller's other TORCH_ variable recorded" '^callerenv=TORCH_SHOW=1$' <(cat "$TRASH"/gen4/cfg/train.*)
t_nogrep "...the secret's value in no configuration" supersecret123456 <(cat "$TRASH"/gen4/cfg/*)
env -C "$T3" TORCH_AUTH=supersecret123456 TORCH_SHOW=1 WORKLOAD=t GPU_TYPE=cpu EXECUTOR=slurm \
	"$LLMB" script --top . --gen "$TRASH/gen4" --install "$TRASH/inst4" train.t.cpu.tiny.fp32.1 >"$TRASH/script4.sh" 2>&1
t_grep "...the job script checks it by name" 'TORCH_AUTH' "$TRASH/script4.sh"
t_nogrep "...and holds no value of it" supersecret123456 "$TRASH/script4.sh"
# env: keys and secrets: names are variable names a job script exports
for bad in 'env: {A-B: "1"}' 'secrets: [A-B]' 'secrets: [1X]'; do
	case $bad in
	env*) sed "s/^workload: w\$/workload: v/; /^train:\$/a\\  $bad" "$T3/workloads/w.yaml" >"$T3/workloads/v.yaml" ;;
	*) { sed 's/^workload: w$/workload: v/' "$T3/workloads/w.yaml"; echo "$bad"; } >"$T3/workloads/v.yaml" ;;
	esac
	t_rc "recipe $bad: refused (exit 2)" 2 env -C "$T3" "$LLMB" check --top .
	t_grep "...at its position" "workloads/v.yaml:[0-9]+:[0-9]+: error: '(A-B|1X)' is not a variable name" "$TRASH/.out"
done
rm -f "$T3/workloads/v.yaml"
# Each selection (and install tree, and night) has its own rules directory.
gen_of() { m3 -pn report "$@" 2>/dev/null | sed -n 's/^LLMB_GEN := //p' | sort -u; }
ga=$(gen_of WORKLOAD=w LLMB_INSTALL="$TRASH/inst3-keyed") gb=$(gen_of WORKLOAD=w SCALES=1 LLMB_INSTALL="$TRASH/inst3-keyed")
gc=$(gen_of WORKLOAD=w LLMB_INSTALL="$TRASH/inst3-other") gn=$(LLMB_NIGHT=2026-01-01 gen_of WORKLOAD=w LLMB_INSTALL="$TRASH/inst3-keyed")
t_ok "rules per selection: [$ga] [$gb] [$gc] [$gn]" test -n "$ga" -a -n "$gb" -a -n "$gc" -a "$ga" != "$gb" -a "$ga" != "$gc" -a "$gb" != "$gc"
t_ok "a night's rules apart from a plan's: [$gn]" test "${gn#"$TOP"/build/gen-nightly/}" != "$gn"

# ---- bounded readers: history, diff, sysdesc ----------------------------------
# Deep nesting, many keys, FIFOs, a held lock: an error or a message within
# seconds, never a crash or a hang.
R=$TRASH/readers FPR=w_cpu_tiny_fp32_1_000000000000
mkdir -p "$R/deep/history" "$R/keys/history" "$R/fifo/history" "$R/lock/history"
python3 -c 'import sys; sys.stdout.write("[" * 1000000 + "]" * 1000000 + "\n")' >"$R/deep/history/$FPR.jsonl"
t_rc "history: a line nested a million deep is an error (exit 2)" 2 timeout 20 "$LLMB" judge --install "$R/deep"
t_grep "history: deep nesting: the line and the limit" "$FPR.jsonl:1:[0-9]+: error: not JSON" "$TRASH/.out"
python3 -c 'import sys; sys.stdout.write("{" + ",".join("\"k%d\":0" % i for i in range(200000, 0, -1)) + "}\n")' >"$R/keys/history/$FPR.jsonl"
t_rc "history: 200000 keys out of order: an error within seconds (exit 2)" 2 timeout 20 "$LLMB" judge --install "$R/keys"
mkfifo "$R/fifo/history/$FPR.jsonl" "$R/fifo.json"
t_rc "history: a FIFO is refused without blocking (exit 2)" 2 timeout 20 "$LLMB" judge --install "$R/fifo"
t_grep "history: a FIFO: not a regular file" "$FPR.jsonl: error: cannot read: not a regular file" "$TRASH/.out"
t_rc "diff: a FIFO is refused without blocking (exit 2)" 2 timeout 20 "$LLMB" diff "$R/fifo.json" "$R/fifo.json"
t_rc "sysdesc: a FIFO is refused without blocking (exit 2)" 2 timeout 20 "$LLMB" sysdesc "$R/fifo.json"
python3 -c 'import sys; sys.stdout.write("[" * 100000 + "]" * 100000 + "\n")' >"$R/deep.json"
t_rc "diff: deep nesting is an error (exit 2)" 2 timeout 20 "$LLMB" diff "$R/deep.json" "$R/deep.json"
t_rc "sysdesc: deep nesting is an error (exit 2)" 2 timeout 20 "$LLMB" sysdesc "$R/deep.json"
# A held history lock: who holds it, a message, and --wait's limit.
printf 'pid 4242 llmb record\n' >"$R/lock/history/.lock"
cp "$TOP/tests/hardening/history-one.jsonl" "$R/lock/history/$FPR.jsonl"
(exec 9>>"$R/lock/history/.lock" && flock 9 && exec sleep 30) &
lockpid=$!
sleep 0.5
t_rc "annotate --wait=1 under a held lock gives up (exit 2)" 2 timeout 20 "$LLMB" annotate --install "$R/lock" "$FPR" \
	--ack 2026-01-01 --reason x --wait=1
t_grep "a held lock: who holds it" 'history lock .* is held by pid 4242 llmb record; waiting for it' "$TRASH/.out"
t_rc "annotate --wait=-1: refused with the range" 2 "$LLMB" annotate --install "$R/lock" "$FPR" --ack 2026-01-01 --reason x --wait=-1
t_grep "--wait: the range" 'wait=-1: seconds, a number from 0 to 86400' "$TRASH/.out"
kill "$lockpid" 2>/dev/null; wait "$lockpid" 2>/dev/null
t_rc "annotate after the lock is free" 0 timeout 20 "$LLMB" annotate --install "$R/lock" "$FPR" --ack 2026-01-01 --reason x --wait 5
# A lock that is no lock llmb makes (a directory, a link, a FIFO): which
# file, and what to do; nothing appended (it said "Is a directory" of the
# history itself).
cp "$R/lock/history/$FPR.jsonl" "$R/lock-before.jsonl"
rm "$R/lock/history/.lock"
mkdir "$R/lock/history/.lock"
t_rc "annotate: a directory for the lock is refused (exit 2)" 2 timeout 20 "$LLMB" annotate --install "$R/lock" "$FPR" --ack 2026-01-01 --reason x
t_grep "a directory for the lock: which file, and what to do" \
	"the history lock $R/lock/history/\.lock is a directory, not the regular file llmb makes: nothing appended; remove it \(rmdir $R/lock/history/\.lock\)" "$TRASH/.out"
rmdir "$R/lock/history/.lock"
ln -s elsewhere "$R/lock/history/.lock"
t_rc "annotate: a symbolic link for the lock is refused (exit 2)" 2 timeout 20 "$LLMB" annotate --install "$R/lock" "$FPR" --ack 2026-01-01 --reason x
t_grep "a link for the lock: said as one" 'history/\.lock is a symbolic link, not the regular file llmb makes' "$TRASH/.out"
rm "$R/lock/history/.lock"
mkfifo "$R/lock/history/.lock"
t_rc "annotate: a FIFO for the lock is refused without blocking (exit 2)" 2 timeout 20 "$LLMB" annotate --install "$R/lock" "$FPR" --ack 2026-01-01 --reason x
t_grep "a FIFO for the lock: said as one" 'history/\.lock is a FIFO, socket or device, not the regular file llmb makes' "$TRASH/.out"
rm "$R/lock/history/.lock"
t_cmp "a lock that is no lock: nothing appended" "$R/lock-before.jsonl" "$R/lock/history/$FPR.jsonl"

# ---- diff inputs ----------------------------------------------------------------
D=$TRASH/diffin
mkdir -p "$D"
printf '[1]\n' >"$D/array.json"
printf '{"machine": {}}\n{"machine": {}}\n' >"$D/trailing.json"
printf '{"machine": {"nodes": "a", "nodes": "b"}}\n' >"$D/dupkey.json"
printf '{"configuration": {"a": {"b": "1"}}}\n' >"$D/nested.json"
: >"$D/diff.all"
for c in array trailing dupkey; do
	rc=0
	"$LLMB" diff "$D/$c.json" "$D/nested.json" >/dev/null 2>"$D/$c.err" || rc=$?
	t_ok "diff of a file with $c: exit 2 (got $rc)" test "$rc" = 2
	sed "s|$D/||" "$D/$c.err" >>"$D/diff.all"
done
t_cmp "diff inputs: errors with a position" "$H/diff-inputs.err" "$D/diff.all"
printf '{"configuration": {"a": {"b": "2"}}}\n' >"$D/nested2.json"
t_rc "diff --format json (the next word)" 1 "$LLMB" diff --format json "$D/nested2.json" "$D/nested.json"
t_grep "diff --format json: JSON" '"same": false' "$TRASH/.out"
# Dotted keys: {"a.b":1} and {"a":{"b":1}} are two fields, told apart by
# quoting where their flattened names meet; a dotted key nothing collides
# with (nvidia-smi's clocks.sm) reads as before.
printf '{"configuration": {"a.b": "1"}}\n' >"$D/dotted.json"
printf '{"configuration": {"a.b": "1", "a": {"b": "2"}}, "nodes": {"n1": {"gpus": [{"clocks.sm": "1980"}]}}}\n' >"$D/both.json"
printf '{"configuration": {"a": {"b": "1"}}, "nodes": {"n1": {"gpus": [{"clocks.sm": "1410"}]}}, "software": {"": "x", "q\\"k": "y"}}\n' >"$D/other.json"
: >"$D/dotted.all"
for c in dotted:nested both:other both:both; do
	rc=0
	env -C "$D" "$LLMB" diff "${c%:*}.json" "${c#*:}.json" >>"$D/dotted.all" 2>&1 || rc=$?
	echo "exit $rc" >>"$D/dotted.all"
done
t_cmp "diff: a dotted key and a nested one are two fields, quoted where they meet" "$H/diff-dotted.out" "$D/dotted.all"
t_rc "diff --format=json: dotted keys" 1 "$LLMB" diff --format=json "$D/dotted.json" "$D/nested.json"
t_grep "diff --format=json: the dotted key quoted" '"field": "\\"a\.b\\""' "$TRASH/.out"
t_grep "diff --format=json: the nested one as it was" '"field": "a\.b"' "$TRASH/.out"
t_rc "diff --format=xml: refused (exit 2)" 2 "$LLMB" diff --format=xml "$D/dotted.json" "$D/nested.json"
t_grep "diff --format=xml: the choices" 'format=xml: expected text or json' "$TRASH/.out"

# ---- damaged install trees, and redos that change nothing ---------------------
# The pipeline test's quick workload with a venv, on the local executor.
if command -v mksquashfs >/dev/null && /usr/bin/python3 -c 'import venv' 2>/dev/null; then
	Q=$TRASH/quick I=$TRASH/qinst
	t_quick_checkout "$Q"
	{ cat "$TESTS_DIR/pipeline/quick.yaml"; printf 'venv: {python: /usr/bin/python3, system_site_packages: true}\n'; } >"$Q/workloads/quick.yaml"
	qm() { PATH=$TESTS_DIR/bin:$PATH make -C "$Q" B="$TOP/build" LLMB_GEN="$TRASH/qgen" LLMB_INSTALL="$I" EXECUTOR=local WORKLOAD=quick "$@"; }
	trains() { wc -l <"$I/count.train" 2>/dev/null || echo 0; }
	t_ok "quick with a venv: the first make report runs everything" qm report
	t_ok "two trainings ran" test "$(trains)" = 2
	R1=$I/workloads/quick/experiments/cpu_tiny_fp32_1/result.json

	# A result.json cut in half: its parse stage is stale and runs again;
	# the training is not run again.
	head -c 200 "$R1" >"$R1.cut" && mv "$R1.cut" "$R1"
	qm status >"$TRASH/q-status.out" 2>&1
	t_grep "status: a result cut in half is stale, with the reason" '^parse.quick.cpu.tiny.fp32.1 +stale: output workloads/quick/experiments/cpu_tiny_fp32_1/result.json is not whole JSON' "$TRASH/q-status.out"
	qm plan >"$TRASH/q-plan.out" 2>&1
	t_grep "plan: the parse stage runs because its result does not validate" '^parse.quick.cpu.tiny.fp32.1 +output .*result.json is not whole JSON' "$TRASH/q-plan.out"
	qm -n report >"$TRASH/q-n.out" 2>&1
	t_grep "make -n: the parse stage would run" 'LLMB_RUN|llmb run .* parse.quick.cpu.tiny.fp32.1' "$TRASH/q-n.out"
	qm report >"$TRASH/q-re.out" 2>&1
	t_ok "make report re-parsed it: whole JSON again" jtrue "$R1" 'd["status"] == "success"'
	t_ok "the training did not run again" test "$(trains)" = 2
	t_nogrep "the report has no run 'not parsed'" 'not parsed' "$I/workloads/quick/reports/cpu_tiny_fp32.json.txt"
	# Valid JSON that is not a parse result is no result either.
	echo '{"hello": 1}' >"$R1"
	qm report >/dev/null 2>&1
	t_ok "a result.json of the wrong shape is re-parsed too" jtrue "$R1" 'd["schema"] == 1'
	qm plan >"$TRASH/q-plan2.out" 2>&1
	t_grep "then nothing is stale" '^0 of [0-9]+ stages would run' "$TRASH/q-plan2.out"
	# A broken result that kept an old date (a copy that preserved times):
	# make cannot see it by date, but rules made again for a selection
	# look at every output of the plan again.
	R2=$I/workloads/quick/experiments/cpu_tiny_fp32_2/result.json
	qm -n report SCALES=1 >/dev/null 2>&1
	head -c 200 "$R2" >"$R2.cut" && touch -r "$R2" "$R2.cut" && mv "$R2.cut" "$R2"
	qm report >/dev/null 2>&1
	t_ok "a broken result with an old date is re-parsed once the rules are made again" jtrue "$R2" 'd["schema"] == 1'

	# The venv redone after its job was killed, same configuration, same
	# venv: the trainings stay done.
	V=$(ls -d "$I"/venvs/venv_*)
	VS=$(basename "$V" | sed 's/^venv_/venv./')
	grep -v '^job=' "$V/llmb-venv.txt" >"$TRASH/venv-before.txt"
	rm -rf "$V"
	PATH=$TESTS_DIR/bin:$PATH setsid make -C "$Q" B="$TOP/build" LLMB_GEN="$TRASH/qgen" LLMB_INSTALL="$I" \
		EXECUTOR=local WORKLOAD=quick report >"$TRASH/q-kill.out" 2>&1 &
	bg=$!
	for _ in $(seq 100); do grep -q '^state=submitted' "$I/state/jobs/$VS/record" 2>/dev/null && break; sleep 0.1; done
	job=$(sed -n 's/^job=//p' "$I/state/jobs/$VS/record")
	kill -KILL -- "-$bg" 2>/dev/null; wait "$bg" 2>/dev/null
	pid=${job#local-}; pid=${pid%%-*}
	[ -n "$pid" ] && kill -KILL -- "-$pid" 2>/dev/null
	t_ok "the venv's stamp is gone while its job was cut short" test ! -e "$I/state/done/$VS"
	# The next make finds the killed job gone (and says so); the one after
	# builds the venv again.
	qm report >"$TRASH/q-vanished.out" 2>&1
	qm report >"$TRASH/q-redo.out" 2>&1
	t_ok "a later make rebuilt the venv" test -s "$V/llmb-venv.txt"
	grep -v '^job=' "$V/llmb-venv.txt" >"$TRASH/venv-after.txt"
	t_cmp "the rebuilt venv is the same venv" "$TRASH/venv-before.txt" "$TRASH/venv-after.txt"
	t_ok "no training ran again (a same-configuration redo with the same output)" test "$(trains)" = 2
	qm plan >"$TRASH/q-plan3.out" 2>&1
	t_grep "and nothing is stale" '^0 of [0-9]+ stages would run' "$TRASH/q-plan3.out"
else
	echo "# skipping the install-tree cases: mksquashfs or /usr/bin/python3's venv missing"
fi

# ---- what the executor cannot run, refused with the plan -------------------------
: >"$TRASH/local.all"
for goal in "-n report" plan; do
	for enroot in none stand-in; do
		rc=0
		with=()
		[ $enroot = none ] || with=(LLMB_ENROOT="$TESTS_DIR/bin/enroot")
		# shellcheck disable=SC2086 # goal is two words for -n report
		env -u LLMB_ENROOT "${with[@]}" PATH=/usr/bin:/bin \
			make -C "$TOP" LLMB_GEN="$TRASH/lgen" LLMB_INSTALL="$TRASH/linst" EXECUTOR=local HF_TOKEN=x \
			WORKLOAD=nemotron4 GPU_TYPE=h100 SIZE=340b DTYPE=bf16 $goal >"$TRASH/local.out" 2>&1 || rc=$?
		t_ok "nemotron4 340b on the local executor, make $goal, enroot $enroot: refused (exit $rc)" test "$rc" = 2
		{ echo "--- make $goal, enroot $enroot (exit $rc)"; grep 'error' "$TRASH/local.out" | grep -v '^make.*Error [0-9]'; } >>"$TRASH/local.all"
	done
done
t_cmp "local executor: the reasons" "$H/local-executor.out" "$TRASH/local.all"
t_ok "nothing was written to the install tree" test ! -e "$TRASH/linst"
# The same stage given to llmb run by hand is refused before submission.
(cd "$TOP" && env -u LLMB_GEN_VARS EXECUTOR=slurm WORKLOAD=nemotron4 GPU_TYPE=h100 SIZE=340b DTYPE=bf16 \
	"$LLMB" gen --top . --gen "$TRASH/sgen") >/dev/null 2>&1
rc=0
EXECUTOR=local "$LLMB" run --top "$TOP" --gen "$TRASH/sgen" --install "$TRASH/linst" train.nemotron4.h100.340b.bf16.256 \
	>"$TRASH/lrun.out" 2>&1 || rc=$?
t_ok "llmb run on the local executor refuses a 32-node GPU job (exit $rc)" test "$rc" = 1
t_grep "and says why" 'needs 32 GPU nodes, and the local executor runs jobs on this machine only' "$TRASH/lrun.out"
t_ok "no job was submitted" test ! -e "$TRASH/linst/state/jobs/train.nemotron4.h100.340b.bf16.256/record"

# On a cluster, a missing enroot is named before the import is submitted
# (the import runs on a CPU node, which may have it: a warning, not a refusal).
# (an sbatch stand-in that refuses: nothing may reach a real cluster)
mkdir -p "$TRASH/nosbatch"
printf '#!/bin/sh\necho "sbatch stand-in: no cluster here" >&2\nexit 1\n' >"$TRASH/nosbatch/sbatch"
chmod +x "$TRASH/nosbatch/sbatch"
rc=0
env -u LLMB_ENROOT -u SLURM_CONF PATH="$TRASH/nosbatch:/usr/bin:/bin" EXECUTOR=slurm "$LLMB" run --top "$TOP" --gen "$TRASH/sgen" --install "$TRASH/sinst" \
	image.nvidia+nemo+25.07.01 >"$TRASH/srun.out" 2>&1 || rc=$?
t_grep "slurm: enroot missing here is named before submission" 'image nvidia\+nemo\+25\.07\.01: warning: enroot is not installed on this host' "$TRASH/srun.out"

t_done
