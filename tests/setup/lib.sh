# tests/setup/lib.sh: the setup stages with real make and no network, for
# one executor ($EXECUTOR: local or slurm), sourced by tests/t-setup.sh and
# tests/t-setup-slurm.sh after tests/lib.sh (and, for slurm, once the test
# cluster is up). Image import through the enroot stand-in (real squashfs),
# a venv built from real git repositories at pinned commits and local
# packages, slow download tasks. Every resume case: make killed during an
# import, a pip install, a clone and a download reattaches to the job
# still running; a job killed during a clone or a download is never
# trusted and is redone, nothing proven complete is; two makes at once run
# one job. The caller ends with t_done (after checks of its own).
#
# Per executor: JOBRE matches a job id; jobs STAGE counts the jobs ever
# submitted for a stage of the install tree $I (local: the job scripts llmb
# wrote; slurm: Slurm's own records, squeue -t all); job_alive STAGE and
# kill_job STAGE act on the stage's current job.
# shellcheck shell=bash
command -v mksquashfs >/dev/null || t_skip_all "mksquashfs (squashfs-tools) is not installed"
command -v git >/dev/null || t_skip_all "git is not installed"
/usr/bin/python3 -c 'import setuptools, wheel, venv' 2>/dev/null ||
	t_skip_all "/usr/bin/python3 lacks setuptools, wheel or venv"

T=$TRASH/top R=$TRASH/repos I=$TRASH/inst
mkdir -p "$T/workloads" "$T/pipelines" "$T/wheels" "$R"
for f in GNUmakefile generator scripts templates tests; do ln -s "$TOP/$f" "$T/$f"; done
cp "$TOP/pipelines/benchmark.yaml" "$T/pipelines/"
cp "$TOP/workloads/gpus.yaml" "$T/workloads/"
for w in alpha beta big; do
	mkdir -p "$T/workloads/$w"
	cp "$TESTS_DIR/setup/download.sh" "$TESTS_DIR/pipeline/train.sh" "$T/workloads/$w/"
done
export PATH=$TESTS_DIR/bin:$PATH HF_TOKEN=hf_SETUPSECRET_b7e1 LLMB_POLL_SECONDS=1
export LLMB_ENROOT=$TESTS_DIR/setup/enroot
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
unset PYTHONPATH PIP_INDEX_URL PIP_FIND_LINKS VIRTUAL_ENV

# ---- the executor -------------------------------------------------------------

job_id() { sed -n 's/^job=//p' "$I/state/jobs/$1/record" 2>/dev/null; }
# scripts STAGE: how many job scripts llmb wrote for the stage (one per submission)
scripts() { find "$I/state/jobs/$1" -name 'job.*.sh' 2>/dev/null | wc -l; }
case $EXECUTOR in
local)
	JOBRE='local-[0-9-]+'
	jobs() { scripts "$1"; }
	job_pid() { job_id "$1" | sed -n 's/^local-\([0-9]*\)-.*/\1/p'; }
	job_alive() { kill -0 "$(job_pid "$1")" 2>/dev/null; }
	kill_job() { kill -KILL -- "-$(job_pid "$1")"; }
	;;
slurm)
	JOBRE='[0-9]+'
	# slurm_jobs INSTALL STAGE: the jobs Slurm ever had for STAGE of INSTALL,
	# one "id state start end" line each (a job's working directory is the
	# install tree, its name llmb.<stage>.<token>)
	slurm_jobs() {
		squeue -h -t all -o '%Z|%j|%i %T %S %e' | awk -F'|' -v d="$1" -v s="llmb.$2." \
			'$1 == d && index($2, s) == 1 {print $3}'
	}
	jobs() { slurm_jobs "$I" "$1" | wc -l; }
	job_alive() { test "$(squeue -h -j "$(job_id "$1")" -o %T 2>/dev/null)" = RUNNING; }
	kill_job() { scancel "$(job_id "$1")"; }
	;;
*) echo "tests/setup/lib.sh: EXECUTOR must be local or slurm" >&2; exit 2 ;;
esac

# ---- fixtures: git repositories with several commits, local wheels ----------

# setup_py NAME [EXTRAS]: a setup.py; libpkg's sleeps when asked, so a test
# can kill a make while pip installs it.
setup_py() {
	cat <<-EOF
	import os, time
	from setuptools import setup
	if os.environ.get("SETUPT_PIP_SLEEP") and os.environ.get("LLMB_INSTALL"):
	    open(os.path.join(os.environ["LLMB_INSTALL"], "marker.pip"), "a").write("$1\n")
	    time.sleep(float(os.environ["SETUPT_PIP_SLEEP"]))
	setup(name="$1", version="1.0", packages=["$1"], extras_require={"extra": [${2:-}]})
	EOF
}
# repo DIR PKG NCOMMITS: a repository whose package records its commit number.
repo() {
	local d=$R/$1 i
	git init -q -b main "$d"
	mkdir -p "$d/$2"
	setup_py "$2" "${4:-}" >"$d/setup.py"
	# upstream reinstall.sh style: installs the clone into the active venv
	printf '#!/usr/bin/env bash\nset -e\npython -m pip install --no-index --no-deps --no-build-isolation --disable-pip-version-check .\n' >"$d/install.sh"
	for ((i = 1; i <= $3; i++)); do
		echo "VERSION = $i" >"$d/$2/__init__.py"
		git -C "$d" add -A && git -C "$d" commit -q -m "commit $i"
	done
}
repo tool tool 3
repo lib libpkg 2 '"plainpkg"'
repo edit editpkg 2
pin() { git -C "$R/$1" rev-parse "main~$2"; }
TOOL_PIN=$(pin tool 1) LIB_PIN=$(pin lib 0) EDIT_PIN=$(pin edit 1)
for p in "plainpkg 1.0" "plainpkg 2.0" "otherpkg 1.0"; do
	set -- $p
	d=$TRASH/pkg/$1-$2
	mkdir -p "$d/$1"
	echo "VERSION = '$2'" >"$d/$1/__init__.py"
	printf 'from setuptools import setup\nsetup(name="%s", version="%s", packages=["%s"])\n' "$1" "$2" "$1" >"$d/setup.py"
	(cd "$d" && /usr/bin/python3 setup.py -q bdist_wheel -d "$T/wheels" >/dev/null 2>&1)
done
t_ok "local wheels built" test "$(ls "$T/wheels" | wc -l)" = 3
fill() {
	sed -e "s|@REPOS@|$R|" -e "s|@TOOL_PIN@|$TOOL_PIN|" -e "s|@LIB_PIN@|$LIB_PIN|" -e "s|@EDIT_PIN@|$EDIT_PIN|" \
		"$TESTS_DIR/setup/$1.yaml" >"$T/workloads/$1.yaml"
}
fill alpha; fill beta; fill big

# ---- helpers ---------------------------------------------------------------

MK=(make -C "$T" B="$TOP/build" LLMB_GEN="$TRASH/gen" EXECUTOR="$EXECUTOR")
m() { "${MK[@]}" LLMB_INSTALL="$I" WORKLOAD="alpha beta" "$@"; }
IMG=image.nvidia+setupt+1.0 IMGRE='image\.nvidia\+setupt\+1\.0'
count() { wc -l <"$I/count.$1" 2>/dev/null || echo 0; }
stage() { sed -n "s/^\t@\$(LLMB_RUN) [0-9]*\/[0-9]* \($1\)$/\1/p" "$TRASH/gen/rules.mk"; }
# bg_make LOG ARGS...: a make in its own process group, killable as a whole.
bg_make() {
	local log=$1
	shift
	setsid "${MK[@]}" LLMB_INSTALL="$I" WORKLOAD="alpha beta" "$@" >"$log" 2>&1 &
	BG=$!
}
kill_make() { kill -KILL -- "-$1" 2>/dev/null; wait "$1" 2>/dev/null; }

# ---- make -n: the plan, nothing written --------------------------------------

m -n setup >"$TRASH/plan.out" 2>&1
t_grep "make -n setup lists the import" 'image nvidia\+setupt\+1\.0: enroot import -o images/nvidia\+setupt\+1\.0\.sqsh docker://nvcr\.io#nvidia/setupt:1\.0' "$TRASH/plan.out"
t_ok "an image shared by two workloads is one import" test "$(grep -c 'enroot import' "$TRASH/plan.out")" = 1
t_ok "two workloads with the same dependency set share one venv" test "$(grep -c '\] venv venv_' "$TRASH/plan.out")" = 1
t_grep "make -n setup lists the downloads with their sizes" 'data alpha slow: task slow on the CPU partition, needs 0\.001 GB' "$TRASH/plan.out"
t_ok "make -n writes nothing under LLMB_INSTALL" test ! -e "$I/state/jobs"
VENV=$(stage 'venv\.[0-9a-f]*')
VDIR=$I/venvs/venv_${VENV#venv.}
t_ok "one venv stage in the rules" test "$(stage 'venv\..*' | wc -l)" = 1

"$LLMB" script --top "$T" --gen "$TRASH/gen" --install "$I" "$VENV" >"$TRASH/venv.sh"
t_ok "the venv job script passes shellcheck" shellcheck -s bash "$TRASH/venv.sh"
grep -o "llmb_clone '[a-z]*'\|bash ./'install.sh'\|'plainpkg==1.0'\|'.\[extra\]'\|'otherpkg'\|-e '.'" "$TRASH/venv.sh" | tr '\n' ' ' >"$TRASH/steps"
t_ok "venv steps in upstream order: clones, git scripts, pip as declared" test "$(cat "$TRASH/steps")" = \
	"llmb_clone 'tool' llmb_clone 'lib' llmb_clone 'edit' bash ./'install.sh' 'plainpkg==1.0' '.[extra]' 'otherpkg' -e '.' "
t_grep "pip arguments resolve {top}" "'--find-links' '$T/wheels'" "$TRASH/venv.sh"
"$LLMB" script --top "$T" --gen "$TRASH/gen" --install "$I" data.alpha.slow >"$TRASH/data.sh"
t_ok "the download job script passes shellcheck" shellcheck -s bash "$TRASH/data.sh"

# ---- image import ------------------------------------------------------------

t_rc "an import that dies halfway fails the stage" 2 env LLMB_FAKE_ENROOT_DIE=1 "${MK[@]}" LLMB_INSTALL="$I" WORKLOAD="alpha beta" setup
t_ok "it leaves a partial file, and no image" sh -c "ls '$I'/images/*.partial.* && test ! -e '$I/images/nvidia+setupt+1.0.sqsh'"
t_ok "nothing counts: no stamp" test ! -e "$I/state/done/$IMG"
m status >"$TRASH/status-failed.out" 2>&1
t_grep "status shows the failed import with its job and log" "^$IMGRE +failed, job $JOBRE, log $I/state/jobs/$IMGRE/$JOBRE\.out" "$TRASH/status-failed.out"

# Make killed while the import runs: the import job goes on.
bg_make "$TRASH/kill-import.out" setup SETUPT_IMPORT_SLEEP=4
if t_wait_file "$I/marker.import" 60; then
	kill_make "$BG"
	t_ok "make killed during an import: the import job keeps running" job_alive "$IMG"
else
	kill_make "$BG"
	t_fail "the import job reached enroot import"
fi

# Make killed while pip installs libpkg: the venv job goes on, the next
# make attaches to it.
bg_make "$TRASH/kill-pip.out" setup SETUPT_PIP_SLEEP=3
if t_wait_file "$I/marker.pip" 60; then
	kill_make "$BG"
	t_ok "make killed during a pip install: the venv job keeps running" job_alive "$VENV"
	pipjob=$(job_id "$VENV")
	m status >"$TRASH/status-running.out" 2>&1
	t_grep "status shows the running venv job and its log" "^$VENV +(submitted/)?running( [0-9:]+)?, job $JOBRE, .*log $I/state/jobs/$VENV/$JOBRE\.out" "$TRASH/status-running.out"
else
	kill_make "$BG"
	t_fail "the venv job reached pip install"
fi
t_grep "the next make attached to the running import" "image nvidia\+setupt\+1\.0: attached to job $(job_id "$IMG")" "$TRASH/kill-pip.out"
t_ok "the import was redone" sh -c "head -c 4 '$I/images/nvidia+setupt+1.0.sqsh' | grep -q hsqs"
t_ok "the import's partial file is gone" sh -c "! ls '$I'/images/*.partial.* 2>/dev/null"
t_grep "the image's identity is recorded" '^ref=nvcr\.io#nvidia/setupt:1\.0$' "$I/images/nvidia+setupt+1.0.sqsh.id"
t_ok "two import jobs in all: the one that died, the one the killed make left running" test "$(jobs "$IMG")" = 2

# The same make again, and a second one at once: both attach.
bg_make "$TRASH/resume1.out" setup SETUPT_DATA_SLEEP=0.5
first=$BG
t_wait_file "$I/state/jobs/data.alpha.slow/record" 60
t_wait_file "$I/marker.data-slow" 30
bg_make "$TRASH/resume2.out" setup
second=$BG
wait "$second"; rc2=$?
wait "$first"; rc1=$?
t_ok "both makes finish" test "$rc1 $rc2" = "0 0"
t_grep "the first make attached to the running venv job" "venv venv_[0-9a-f]+: attached to job ${pipjob:-none}$" "$TRASH/resume1.out"
t_grep "the second make attached to the running download" "data alpha slow: attached to job" "$TRASH/resume2.out"
t_ok "one import of the shared image" test "$(count image)" = 1
t_ok "one venv job" test "$(jobs "$VENV")" = 1
t_ok "one job per download" test "$(jobs data.alpha.slow) $(jobs data.beta.fetch) $(count data-slow) $(count data-fetch)" = "1 1 1 1"

# ---- the venv ------------------------------------------------------------------

for r in tool:$TOOL_PIN lib:$LIB_PIN edit:$EDIT_PIN; do
	t_ok "clone ${r%%:*} is at its pinned commit" test "$(git -C "$VDIR/src/${r%%:*}" rev-parse HEAD)" = "${r#*:}"
done
t_ok "the packages import from the venv, at the pinned versions" "$VDIR/bin/python" -c '
import sys, tool, libpkg, editpkg, plainpkg, otherpkg
assert sys.prefix != sys.base_prefix
assert (tool.VERSION, libpkg.VERSION, editpkg.VERSION, plainpkg.VERSION) == (2, 2, 1, "1.0"), \
	(tool.VERSION, libpkg.VERSION, editpkg.VERSION, plainpkg.VERSION)
assert "/src/edit/" in editpkg.__file__'
t_ok "the venv does not see the system packages" sh -c "! '$VDIR/bin/python' -c 'import wheel' 2>/dev/null"
t_grep "the venv's manifest records its pins" "^repo=tool file://$R/tool $TOOL_PIN$" "$VDIR/llmb-venv.txt"
t_grep "the venv's manifest records its packages" '^pip=plainpkg==1\.0$' "$VDIR/llmb-venv.txt"
t_ok "the downloads are complete" test "$(cat "$I/workloads/alpha/data/a.bin" "$I/workloads/alpha/data/b.bin" | wc -l)" = 8

m status >"$TRASH/status.out" 2>&1
t_grep "status: every setup stage done" '^4 done, [0-9]+ stale, .*0 running, 0 failed$' "$TRASH/status.out"
t_grep "status: stale training says why" '^train\.alpha\.cpu\.tiny\.fp32\.1 +stale: never run' "$TRASH/status.out"

m train >"$TRASH/train.out" 2>&1
t_ok "training runs on the proven setup" test "$(count train)" = 2

# ---- resume: make killed during a download reattaches; the download job ----------
# ---- killed midway is not trusted ----------------------------------------------------

rm "$I/workloads/alpha/data/b.bin"
m plan >"$TRASH/plan-stale.out" 2>&1
t_grep "make plan: a missing proof makes the task stale, and says so" '^data\.alpha\.slow +output workloads/alpha/data/b\.bin is missing' "$TRASH/plan-stale.out"
rm -f "$I/marker.data-slow"
bg_make "$TRASH/kill-make-data.out" setup SETUPT_DATA_SLEEP=2
t_wait_file "$I/marker.data-slow" 30
kill_make "$BG"
t_ok "make killed during a download: the download job keeps running" job_alive data.alpha.slow
job=$(job_id data.alpha.slow)
bg_make "$TRASH/kill-data.out" setup
t_wait_grep "data alpha slow: attached to job" "$TRASH/kill-data.out" 30
t_grep "the next make attached to the running download" "data alpha slow: attached to job $job" "$TRASH/kill-data.out"
t_ok "the download job is still the one the killed make submitted" test "$(job_id data.alpha.slow)" = "$job"
kill_job data.alpha.slow
wait "$BG"; rc=$?
t_ok "a download job killed midway fails its make" test "$rc" != 0
t_ok "it left a partial proof" test -s "$I/workloads/alpha/data/a.bin" -a "$(wc -l <"$I/workloads/alpha/data/a.bin")" -lt 4
t_ok "the partial proof does not count: no stamp" test ! -e "$I/state/done/data.alpha.slow"
m train >"$TRASH/redo-data.out" 2>&1
t_grep "the next make submits the download again" "data alpha slow: previous job $JOBRE failed; submitting again" "$TRASH/redo-data.out"
done_at=$(grep -n 'data alpha slow: done' "$TRASH/redo-data.out" | cut -d: -f1)
train_at=$(grep -n 'train alpha .*: submitted job' "$TRASH/redo-data.out" | cut -d: -f1)
# The download made the same proof again: the trainings that used it stay
# done (dependents follow the proof's identity, not the redo's time).
t_ok "the same proof again: the download finished, no training ran again" test -n "$done_at" -a -z "$train_at"
t_ok "the download is complete" test "$(cat "$I/workloads/alpha/data/a.bin" "$I/workloads/alpha/data/b.bin" | wc -l)" = 8
t_ok "only the killed download ran again" test "$(jobs data.alpha.slow) $(jobs data.beta.fetch) $(jobs "$VENV") $(count image)" = "3 1 1 1"

# ---- resume: make killed during a clone reattaches; the venv job killed ----------------
# ---- during a clone leaves nothing trusted ---------------------------------------------

mkdir -p "$TRASH/hooks"
printf '#!/bin/sh\n[ -z "${SETUPT_CLONE_SLEEP:-}" ] || { touch "$LLMB_INSTALL/marker.clone"; sleep "$SETUPT_CLONE_SLEEP"; }\n' >"$TRASH/hooks/post-checkout"
chmod +x "$TRASH/hooks/post-checkout"
rm -rf "$VDIR"
GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=$TRASH/hooks \
	bg_make "$TRASH/kill-make-clone.out" setup SETUPT_CLONE_SLEEP=30
t_wait_file "$I/marker.clone" 60
kill_make "$BG"
t_ok "make killed during a clone: the venv job keeps running" job_alive "$VENV"
job=$(job_id "$VENV")
bg_make "$TRASH/kill-clone.out" setup
t_wait_grep "venv venv_[0-9a-f]+: attached to job" "$TRASH/kill-clone.out" 30
t_grep "the next make attached to the running venv job" "venv venv_[0-9a-f]+: attached to job $job" "$TRASH/kill-clone.out"
t_ok "the job is in the middle of a clone" test -d "$VDIR/src/tool.partial"
kill_job "$VENV"
wait "$BG"; rc=$?
t_ok "the killed venv job fails its make" test "$rc" != 0
t_ok "the half-built venv has no manifest" test ! -e "$VDIR/llmb-venv.txt"
m status >"$TRASH/status-venv.out" 2>&1
t_grep "status: the venv failed, with its job and log" "^$VENV +failed, job $JOBRE, log " "$TRASH/status-venv.out"
m setup >"$TRASH/redo-venv.out" 2>&1
t_grep "the next make builds the venv again" "venv venv_[0-9a-f]+: previous job $JOBRE failed; submitting again" "$TRASH/redo-venv.out"
t_ok "no clone is left half-made" sh -c "! ls -d '$VDIR'/src/*.partial 2>/dev/null"
t_ok "the rebuilt venv is complete and at its pins" "$VDIR/bin/python" -c 'import tool, libpkg, editpkg; assert tool.VERSION == 2'
t_ok "three venv jobs in all: built, killed during a clone, built again" test "$(jobs "$VENV")" = 3
t_ok "the image, proven complete, was not imported again" test "$(jobs "$IMG") $(count image)" = "2 1"

# ---- a changed pin rebuilds that venv and what depends on it, nothing else ------------

m train >/dev/null 2>&1
before="$(jobs "$VENV") $(jobs data.alpha.slow) $(jobs data.beta.fetch) $(count image) $(count train)"
TOOL_PIN=$(pin tool 0)
fill alpha
m -n setup >"$TRASH/plan-pin.out" 2>&1
t_ok "make -n: the changed pin makes one new venv" test "$(grep -c '\] venv venv_' "$TRASH/plan-pin.out")" = 1
m train >"$TRASH/pin.out" 2>&1
NEWVENV=$(stage 'venv\.[0-9a-f]*' | grep -v "$VENV")
t_ok "alpha gets its own venv at the new pin" test -n "$NEWVENV" -a "$(git -C "$I/venvs/venv_${NEWVENV#venv.}/src/tool" rev-parse HEAD)" = "$TOOL_PIN"
t_ok "beta keeps the old venv, untouched" test "$(jobs "$VENV")" = "${before%% *}"
after="$(jobs "$VENV") $(jobs data.alpha.slow) $(jobs data.beta.fetch) $(count image) $(count train)"
set -- $before
t_ok "alpha's download and training ran again; beta's and the image did not" \
	test "$after" = "$1 $(($2 + 1)) $3 $4 $(($5 + 1))"

# ---- image folders and the free-space check -----------------------------------------

S=$TRASH/shared
# mi INSTALL: make setup of the workload "big", then its job logs after the make's output
mi() { "${MK[@]}" LLMB_INSTALL="$1" WORKLOAD=big setup; cat "$1"/state/jobs/*/*.out; }
LLMB_IMAGE_DIR=$S mi "$TRASH/i2" >"$TRASH/i2.out" 2>&1
t_ok "a shared image folder holds the import, images/ links to it" \
	test -L "$TRASH/i2/images/nvidia+setupt+1.0.sqsh" -a "$(readlink "$TRASH/i2/images/nvidia+setupt+1.0.sqsh")" = "$S/nvidia+setupt+1.0.sqsh"
t_grep "the free-space check refuses a task that cannot fit" 'not enough disk space for task huge: it needs 100000000 GB \(size_gb in the recipe\)' "$TRASH/i2.out"
t_ok "the refused task never started" test ! -e "$TRASH/i2/count.data-huge"
LLMB_IMAGE_DIR=$S mi "$TRASH/i3" >"$TRASH/i3.out" 2>&1
t_grep "an image already in the shared folder is reused" "using the existing image $S/nvidia\+setupt\+1\.0\.sqsh" "$TRASH/i3.out"
t_ok "it is not imported again" test "$(cat "$TRASH/i2/count.image" "$TRASH/i3/count.image" 2>/dev/null | wc -l)" = 1
mkdir -p "$TRASH/i4/images"
cp "$S/nvidia+setupt+1.0.sqsh" "$TRASH/i4/images/"
mi "$TRASH/i4" >"$TRASH/i4.out" 2>&1
t_grep "an image the user put in images/ is verified and used" 'using the existing image' "$TRASH/i4.out"
mkdir -p "$TRASH/i5/images"
used=$(od -An -t u8 -j 40 -N 8 "$S/nvidia+setupt+1.0.sqsh" | tr -d ' ')
head -c $((used - 1)) "$S/nvidia+setupt+1.0.sqsh" >"$TRASH/i5/images/nvidia+setupt+1.0.sqsh"
mi "$TRASH/i5" >"$TRASH/i5.out" 2>&1
t_ok "a truncated image in images/ is not trusted: imported again" test -s "$TRASH/i5/count.image"

# ---- the secret -----------------------------------------------------------------------

t_ok "HF_TOKEN's value is in no script, stamp, record, log or output" \
	sh -c "! grep -rl '$HF_TOKEN' '$I' '$TRASH/gen' '$TRASH'/*.out '$TRASH'/i[2-5]"
