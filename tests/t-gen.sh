#!/usr/bin/env bash
# The generator against golden files: bad recipes -> exact diagnostics and
# exit status 2; the demo recipes -> make rules, stage configurations and
# job scripts (which must also pass bash -n and shellcheck).
. "$(dirname "$0")/lib.sh"
G=$TESTS_DIR/gen

# Each case directory holds recipe files; gpus.yaml and the benchmark
# pipeline come from the project unless the case has its own.
for c in "$G"/*/; do
	c=${c%/}; name=$(basename "$c")
	[ -d "$c/workloads" ] || continue
	d=$TRASH/case-$name
	mkdir -p "$d/workloads" "$d/pipelines"
	cp "$TOP/workloads/gpus.yaml" "$d/workloads/"
	cp "$TOP/pipelines/benchmark.yaml" "$d/pipelines/"
	cp -r "$c"/. "$d"/
	rc=0
	(cd "$d" && "$LLMB" check --top .) >"$TRASH/$name.out" 2>"$TRASH/$name.err" || rc=$?
	t_ok "$name: exit status 2" test "$rc" = 2
	t_cmp "$name: diagnostics" "$c.err" "$TRASH/$name.err"
done

# Recipe checks run once before expansion: the train command's bad
# placeholders, shared by three config rows and five scales, are said once
# each, and the diagnostics come in source order (diag.c keeps no memory of
# what it said).
t_ok "semantic: no diagnostic said twice" test -z "$(sort "$TRASH/semantic.err" | uniq -d)"
t_ok "semantic: diagnostics in source order" sort -t: -k2,2n -k3,3n -c "$TRASH/semantic.err"
t_ok "semantic: {nosuch} of the shared train command said once" \
	test "$(grep -c '{nosuch}$' "$TRASH/semantic.err")" = 1

# Every diagnostic is file:line:col: error: ...
cat "$G"/*.err >"$TRASH/all.err"
grep -Ev '^(workloads|pipelines)/[a-z]+\.yaml:[0-9]+:[0-9]+: error: ' "$TRASH/all.err" >"$TRASH/odd.err"
t_ok "every recipe diagnostic is file:line:col: error: message" test ! -s "$TRASH/odd.err"

t_ok "the project's own recipes are valid" "$LLMB" check --top "$TOP"

# The demo's generated rules and configurations are deterministic.
(cd "$TOP" && env -u WORKLOAD -u LLMB_GEN_VARS WORKLOAD=tinygpt "$LLMB" gen --top . --gen "$TRASH/gen") 2>"$TRASH/gen.err"
t_cmp "tinygpt: make rules" "$G/tinygpt.rules.mk" "$TRASH/gen/rules.mk"
t_cmp "tinygpt: train configuration" "$G/tinygpt.train.cfg" "$TRASH/gen/cfg/train.tinygpt.cpu.tiny.fp32.2"
before=$(stat -c %Y.%y "$TRASH/gen/cfg/train.tinygpt.cpu.tiny.fp32.2")
sleep 1
(cd "$TOP" && WORKLOAD=tinygpt "$LLMB" gen --top . --gen "$TRASH/gen")
t_ok "an unchanged configuration is not rewritten" test "$before" = "$(stat -c %Y.%y "$TRASH/gen/cfg/train.tinygpt.cpu.tiny.fp32.2")"

# EXECUTOR=slurm with a controller that never answers: scontrol hangs (the
# stand-in sleeps), gen kills it and goes on, and the plan note says the
# limits could not be read.
mkdir -p "$TRASH/hang/bin"
printf '#!/bin/sh\necho "$$ $*" >>"$SCONTROL_LOG"\nexec sleep 600\n' >"$TRASH/hang/bin/scontrol"
chmod +x "$TRASH/hang/bin/scontrol"
(cd "$TOP" && env -u LLMB_GEN_VARS PATH="$TRASH/hang/bin:$PATH" SCONTROL_LOG="$TRASH/hang/log" EXECUTOR=slurm \
	WORKLOAD=tinygpt LLMB_INSTALL="$TRASH/hang/inst" "$LLMB" gen --top . --gen "$TRASH/hang/gen") >"$TRASH/hang/out" 2>&1
t_ok "a hung scontrol: gen still writes the rules" test -s "$TRASH/hang/gen/rules.mk"
t_grep "...whose plan note says the limits could not be read" \
	"^\\\$\(info llmb: the Slurm controller's limits could not be read .*the plan of 4 jobs is not checked" \
	"$TRASH/hang/gen/rules.mk"
t_ok "...and scontrol was asked once, and killed" \
	sh -c 'test "$(wc -l <"$1")" = 1 && ! kill -0 "$(cut -d" " -f1 "$1")" 2>/dev/null' sh "$TRASH/hang/log"

# Job scripts: golden, syntax, shellcheck. Paths are normalized.
for id in $(sed -n 's/^\t@$(LLMB_RUN) [0-9]*\/[0-9]* //p' "$TRASH/gen/rules.mk"); do
	case $id in parse.* | report.*) continue ;; esac
	"$LLMB" script --top "$TOP" --gen "$TRASH/gen" --install /llmb-install "$id" >"$TRASH/$id.sh"
	t_ok "$id: bash -n" bash -n "$TRASH/$id.sh"
	if command -v shellcheck >/dev/null; then
		t_ok "$id: shellcheck" shellcheck "$TRASH/$id.sh"
	fi
	# Bash 5.2 cannot parse a trap that fires during a command
	# substitution, so the prelude, where cancels land first, has none.
	sed -n '1,/^echo "llmb: job .* stage /p' "$TRASH/$id.sh" >"$TRASH/$id.prelude"
	t_ok "$id: prelude without command substitution" \
		eval 'grep -q "stage \$LLMB_STAGE on" "$TRASH/$id.prelude" && ! grep -q "\$(\|\`" "$TRASH/$id.prelude"'
	sed "s|$TOP|@TOP@|g" "$TRASH/$id.sh" >"$TRASH/$id.norm"
	t_cmp "$id: job script" "$G/scripts/$id.sh" "$TRASH/$id.norm"
done
# A SIGTERM that lands while the exit trap runs (the step ended first and
# set -e began the exit; then the time limit's signal): the record is
# still written, with the signal's status. The signal is sent from inside
# the trap, at its first printf -v, so the order is the same every time;
# the script's own prelude, with its traps, runs it.
id=train.tinygpt.cpu.tiny.fp32.1
R=$TRASH/race
mkdir -p "$R"
{
	sed -n '1,/^trap .* INT$/p' "$TRASH/$id.sh"
	printf "llmb_state='%s'\n" "$R"
	# shellcheck disable=SC2016
	printf '%s\n' 'printf() { [ "$1" != -v ] || [ -n "${llmb_sent:-}" ] || { llmb_sent=1; kill -TERM $$; }; builtin printf "$@"; }' false
} >"$TRASH/race.sh"
rc=0
env -u SLURM_JOB_ID LLMB_JOB_ID=77 bash "$TRASH/race.sh" 2>"$TRASH/race.err" || rc=$?
t_ok "SIGTERM during the exit trap: the job's status is 143" test "$rc" = 143
t_grep "...its exit record written, with that status" "^status=143$" "$R/exit.77"
t_grep "...whole" "^job=77$" "$R/exit.77"
t_grep "...and the signal said" "^llmb: job 77 got SIGTERM$" "$TRASH/race.err"
# srun exits 0 when its step was aborted with the job (a time limit, a
# cancel), and the script's own SIGTERM may come after it went on and
# exited 0: a step that returns while Slurm no longer has the job RUNNING
# ends the script with 143, its record saying so. Stand-ins for srun (exit
# 0) and squeue (the job's state from SQ_STATE) run the script's own
# prelude and launcher.
S=$TRASH/ending
mkdir -p "$S/bin"
printf '#!/bin/sh\nexit 0\n' >"$S/bin/srun"
# shellcheck disable=SC2016
printf '#!/bin/sh\n[ -z "$SQ_STATE" ] || echo "$SQ_STATE"\n' >"$S/bin/squeue"
chmod +x "$S/bin/srun" "$S/bin/squeue"
{
	sed -n '1,/^trap .* INT$/p' "$TRASH/$id.sh"
	printf "llmb_state='%s'\n" "$S"
	sed -n '/^llmb_ntasks=/,/^}$/p' "$TRASH/$id.sh"
	printf '%s\n' 'llmb_launch true' 'echo "llmb: training finished"'
} >"$S/job.sh"
for st in TIMEOUT:143 CANCELLED:143 RUNNING:0 :0; do
	rc=0
	env SLURM_JOB_ID=78 SQ_STATE="${st%:*}" PATH="$S/bin:$PATH" bash "$S/job.sh" >"$S/out" 2>"$S/err" || rc=$?
	lab=${st%:*}
	t_ok "a step that returns 0 with the job ${lab:-unknown to squeue}: exit ${st#*:}" test "$rc" = "${st#*:}"
	t_grep "...and its exit record says so" "^status=${st#*:}$" "$S/exit.78"
done
t_grep "...saying why" "^llmb: job 78 is ending: its step was aborted, whatever srun's exit status said$" <(env SLURM_JOB_ID=78 SQ_STATE=TIMEOUT PATH="$S/bin:$PATH" bash "$S/job.sh" 2>&1)
# A bisection's pins: KEY a recipe's name as the schema has it (dots
# too), every word understood or the plan refused (a word left out made
# both sides run the recipe's pin).
B=$TRASH/btop
mkdir -p "$B"
cp -r "$TOP/workloads" "$TOP/pipelines" "$TOP/templates" "$B/"
sed -i 's/^  megatron_core:/  megatron.core:/; s/repo: megatron_core}/repo: megatron.core}/' "$B/workloads/nemotron4.yaml"
H=0123456789abcdef0123456789abcdef01234567
bgen() { env -C "$B" -u LLMB_INSTALL WORKLOAD=nemotron4 SIZE=15b DTYPE=bf16 GPU_TYPE=h100 EXECUTOR=slurm LLMB_BISECT=abc-r1b1 \
	"$@" "$LLMB" gen --top . --gen "$B/gen"; }
t_ok "bisection pin of a key with a dot: planned" bgen LLMB_BISECT_PIN="megatron.core=$H"
t_ok "...the venv's clone at the pinned commit" grep -q "^repo=megatron.core .* $H\$" <(cat "$B"/gen/cfg/venv.*)
t_rc "a pin word not KEY=COMMIT: refused" 2 bgen LLMB_BISECT_PIN="megatron.core"
t_grep "...saying which" "^llmb: error: LLMB_BISECT_PIN: 'megatron.core' is not KEY=COMMIT" "$TRASH/.out"
t_rc "an image word not KEY=IMAGE: refused" 2 bgen LLMB_BISECT_IMAGE="base=bad;ref"
t_done
