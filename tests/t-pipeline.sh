#!/usr/bin/env bash
# The pipeline with real make, real stamps and the local executor, on a fast
# shell-only workload: staleness follows meaning, make -n writes nothing,
# a killed make reattaches instead of resubmitting.
. "$(dirname "$0")/lib.sh"
command -v mksquashfs >/dev/null || t_skip_all "mksquashfs (squashfs-tools) is not installed"
T=$TRASH/top
t_quick_checkout "$T"
I=$TRASH/inst
export PATH=$TESTS_DIR/bin:$PATH
m() { make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" LLMB_INSTALL="$I" EXECUTOR=local WORKLOAD=quick "$@"; }
count() { wc -l <"$I/count.$1" 2>/dev/null || echo 0; }

t_ok "first make report runs every stage" m report
t_grep "report lists scale 2" '^2 ' "$I/workloads/quick/reports/cpu_tiny_fp32.json.txt"
t_ok "one image import, one data task, two trainings" test "$(count image) $(count data) $(count train)" = "1 1 2"
t_ok "the image is a real squashfs" sh -c "head -c 4 '$I/images/nvidia+quick+1.0.sqsh' | grep -q hsqs"

m report >"$TRASH/noop.out" 2>&1
t_ok "a second make runs nothing" test "$(count image) $(count data) $(count train)" = "1 1 2"
t_nogrep "a second make submits nothing" 'submitted' "$TRASH/noop.out"

# Staleness is content, not time: an edit and its revert (a branch switch
# and back) rewrite the configurations twice, and make -n agrees with the
# run that nothing is to be done, before and after a make.
cp "$T/workloads/quick/train.sh" "$TRASH/train.orig"
echo "# edited" >>"$T/workloads/quick/train.sh"
m -n report >"$TRASH/edited.out" 2>&1
t_grep "make -n after an edit lists the trainings" "^: '\[[0-9]/7\] train quick" "$TRASH/edited.out"
cp "$TRASH/train.orig" "$T/workloads/quick/train.sh"
m -n report >"$TRASH/reverted.out" 2>&1
t_nogrep "make -n after the revert lists no stage" "^: '\[" "$TRASH/reverted.out"
m report >/dev/null 2>&1
m -n report >"$TRASH/reverted2.out" 2>&1
t_nogrep "...nor after a make report" "^: '\[" "$TRASH/reverted2.out"
t_ok "...which ran nothing" test "$(count image) $(count data) $(count train)" = "1 1 2"

sed -i '1i # a new comment' "$T/workloads/quick.yaml"
m report >/dev/null 2>&1
t_ok "editing a comment re-runs nothing" test "$(count image) $(count data) $(count train)" = "1 1 2"

(cd "$I" && find . -type f | sort | xargs -r md5sum) >"$TRASH/before"
sed -i 's/quick:1.0/quick:1.1/' "$T/workloads/quick.yaml"
m -n report >"$TRASH/plan.out" 2>&1
(cd "$I" && find . -type f | sort | xargs -r md5sum) >"$TRASH/after"
t_cmp "make -n writes nothing under LLMB_INSTALL" "$TRASH/before" "$TRASH/after"
t_grep "make -n shows the job that would be submitted" 'train quick cpu tiny fp32 x2: nodes=1 gpus/node=2 tasks/node=2' "$TRASH/plan.out"
m report >/dev/null 2>&1
t_ok "a new image tag re-imports and re-runs everything downstream" test "$(count image) $(count data) $(count train)" = "2 2 4"

sed -i 's/scales: \[1, 2\]/scales: [1, 2, 4]/' "$T/workloads/quick.yaml"
m report >/dev/null 2>&1
t_ok "adding a scale runs only the new training" test "$(count image) $(count data) $(count train)" = "2 2 5"

rm "$I/workloads/quick/data/tokens.bin"
m plan >"$TRASH/explain.out" 2>&1
t_grep "plan says why: the output is missing" 'data.quick.tokens +output workloads/quick/data/tokens.bin is missing' "$TRASH/explain.out"
m report >/dev/null 2>&1
t_ok "a deleted output re-runs its stage; the same output again leaves its dependents done" test "$(count image) $(count data) $(count train)" = "2 3 5"
# The stage that ran again has a new stamp and the same identity: make -n
# agrees with the run that its dependents are done, now and after a make.
m -n report >"$TRASH/remade.out" 2>&1
t_nogrep "make -n after an output made again lists no stage" "^: '\[" "$TRASH/remade.out"
m report >/dev/null 2>&1
m -n report >"$TRASH/remade2.out" 2>&1
t_nogrep "...nor after a make report" "^: '\[" "$TRASH/remade2.out"
t_ok "...which ran nothing" test "$(count image) $(count data) $(count train)" = "2 3 5"
# Dependents' rules compare the upstream stamp, which is dated as its
# identity: an identity file lost while its stamp stays changes nothing,
# for make -n as for make plan.
mv "$I/state/id/data.quick.tokens" "$TRASH/data.id"
m -n report >"$TRASH/noid.out" 2>&1
t_nogrep "a lost identity: make -n lists no stage" "^: '\[" "$TRASH/noid.out"
m plan >"$TRASH/noid-plan.out" 2>&1
t_grep "...and make plan agrees" '^0 of [0-9]+ stages would run' "$TRASH/noid-plan.out"
mv "$TRASH/data.id" "$I/state/id/data.quick.tokens"

# A make killed with SIGKILL while it waits leaves the job running; the
# next make attaches to it instead of submitting it again.
sed -i 's/seq: 8,/seq: 16,/' "$T/workloads/quick.yaml"
QUICK_TRAIN_SLEEP=4 m train SCALES=1 >"$TRASH/killed.out" 2>&1 &
mk=$!
for _ in $(seq 50); do grep -q 'train quick.*submitted job' "$TRASH/killed.out" && break; sleep 0.2; done
pkill -KILL -P "$mk" 2>/dev/null; kill -KILL "$mk" 2>/dev/null; wait "$mk" 2>/dev/null
QUICK_TRAIN_SLEEP=0 m train SCALES=1 >"$TRASH/reattach.out" 2>&1
t_grep "the new make attached to the running job" 'attached to job' "$TRASH/reattach.out"
t_ok "the killed run was submitted exactly once" test "$(count train)" = 6

m status >"$TRASH/status.out" 2>&1
t_grep "status lists done stages with their jobs" '^train.quick.cpu.tiny.fp32.1 +done, job local-' "$TRASH/status.out"

# An llmb run killed after starting a local job but before its record
# named it (LLMB_TEST_DIE_AFTER_SUBMIT) leaves no job running: the next
# make runs the training once, not twice, even when it comes before the
# job's script has begun (a bash that takes 3 s to start a job script).
mkdir -p "$TRASH/slowbash"
printf '#!/bin/sh
case $1 in */job.*.sh) sleep 3 ;; esac
exec %s "$@"
' "$(command -v bash)" >"$TRASH/slowbash/bash"
chmod +x "$TRASH/slowbash/bash"
before_train=$(count train)
PATH=$TRASH/slowbash:$PATH t_rc "a make whose llmb run dies right after starting the job fails" 2 \
	m train SCALES=1 MAX_STEPS=9 LLMB_TEST_DIE_AFTER_SUBMIT=1
PATH=$TRASH/slowbash:$PATH t_ok "...and the next make runs the training" m train SCALES=1 MAX_STEPS=9
t_nap 4
t_ok "...once: the killed run's job never ran (got $(($(count train) - before_train)))" test "$(count train)" = $((before_train + 1))

# A note the job leaves (the node setup step's vboost outcome) reaches the
# run record, the stamp, make's line and the report.
run1=$I/workloads/quick/experiments/cpu_tiny_fp32_1
QUICK_NOTE='vboost applied on 0 of 1 nodes, refused on 1 (n1: exit 1: sudo: a password is required)' \
	m report SCALES=1 MAX_STEPS=6 >"$TRASH/note.out" 2>&1
t_grep "a job's note reaches train.done" '^note=vboost applied on 0 of 1 nodes, refused on 1 \(n1: exit 1: sudo: a password is required\)$' "$run1/train.done"
t_grep "...and the stamp" '^note=vboost applied on 0 of 1 nodes' "$I/state/done/train.quick.cpu.tiny.fp32.1"
t_grep "...and make's progress line" 'done \(job local-[^,]*, vboost applied on 0 of 1 nodes' "$TRASH/note.out"
t_grep "...and the report" '"note": "vboost applied on 0 of 1 nodes' "$I/workloads/quick/reports/cpu_tiny_fp32.json"

# The training script is part of the training stages' configuration.
before_data=$(count data) before_train=$(count train)
echo "# edited" >>"$T/workloads/quick/train.sh"
m report >/dev/null 2>&1
t_ok "editing the training script re-runs every training and nothing else" \
	test "$(count data) $(count train)" = "$before_data $((before_train + 3))"

# Two selections that plan a stage with different configurations, each
# with rules of its own (as make keeps them): a stamp one wrote is of
# another configuration for the other, whose make runs the stage again,
# and make -n and make plan say so.
mb() { m LLMB_GEN="$TRASH/gen-b" "$@"; }
m report SCALES=1 >/dev/null 2>&1
mb report SCALES=1 MAX_STEPS=7 >/dev/null 2>&1
before_train=$(count train)
m -n report SCALES=1 >"$TRASH/other.out" 2>&1
t_grep "another selection's stamp of another configuration: make -n lists the training" \
	"^: '\[[0-9]/[0-9]\] train quick cpu tiny fp32 x1" "$TRASH/other.out"
m plan SCALES=1 >"$TRASH/other-plan.out" 2>&1
t_grep "...as make plan does" '^train.quick.cpu.tiny.fp32.1 +its configuration changed' "$TRASH/other-plan.out"
m report SCALES=1 >/dev/null 2>&1
t_ok "...and make runs it again" test "$(count train)" = $((before_train + 1))

# An install tree stamped before the stamps' links (state/stamped/): the
# make that makes the rules again (as after an upgrade) links each stamp of
# the plan's configuration and runs nothing; so does a make whose rules
# are made (each stage found done by content); make -n then lists nothing.
m report >/dev/null 2>&1
before=$(count image)/$(count data)/$(count train)
rm -rf "$I/state/stamped" "$TRASH/gen/rules.mk"
m report >/dev/null 2>&1
t_ok "stamps without links: the make that makes the rules runs nothing" \
	test "$(count image)/$(count data)/$(count train)" = "$before"
t_ok "...and links the stamp of every stage of the plan" \
	test "$(find "$I/state/stamped" -type l | wc -l)" = "$(sed -n 's/^LLMB_NSTAGES := //p' "$TRASH/gen/rules.mk")"
m -n report >"$TRASH/linked.out" 2>&1
t_nogrep "...after which make -n lists no stage" "^: '\[" "$TRASH/linked.out"
rm -rf "$I/state/stamped"
m report >/dev/null 2>&1
t_ok "links lost under rules already made: make runs nothing" \
	test "$(count image)/$(count data)/$(count train)" = "$before"
m -n report >"$TRASH/linked2.out" 2>&1
t_nogrep "...after which make -n lists no stage" "^: '\[" "$TRASH/linked2.out"
# llmb gen run by hand links the stamps of the tree its --install names.
rm -rf "$I/state/stamped"
(cd "$T" && env -u LLMB_INSTALL WORKLOAD=quick EXECUTOR=local "$TOP/build/llmb" gen --top . --gen "$TRASH/gen-hand" \
	--install "$I") >"$TRASH/gen-hand.out" 2>&1
t_ok "llmb gen --install: the stamps of that tree are linked" \
	test "$(find "$I/state/stamped" -type l | wc -l)" = "$(sed -n 's/^LLMB_NSTAGES := //p' "$TRASH/gen-hand/rules.mk")"

# Impossible requests are refused with what is valid.
t_rc "an unknown size is refused" 2 m -n report SIZE=huge
m -n report SIZE=huge >"$TRASH/bad.out" 2>&1
t_grep "the refusal lists the valid sizes" 'SIZE=huge is not supported .*valid: tiny' "$TRASH/bad.out"
t_done
