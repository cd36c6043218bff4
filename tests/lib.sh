# lib.sh: sourced by every tests/t-*.sh. Each test file gets its own trash
# directory ($TRASH), counts its checks and reports them to tests/run.sh.
# shellcheck shell=bash
set -u
TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$TESTS_DIR/.." && pwd)
LLMB=${LLMB:-$TOP/build/llmb}
T_NAME=$(basename "$0" .sh)
TRASH=${TRASH_ROOT:-$TOP/build/trash}/$T_NAME
rm -rf "$TRASH" && mkdir -p "$TRASH"
T_PASS=0
T_FAIL=0
# PyTorch's OpenMP threads spin-wait after every parallel region: on a
# machine whose cores the test files share (tests/run.sh -j), a CPU
# training of tinygpt then spent half its CPU time spinning (20 steps: 40 s
# of CPU against 20 s passive). The tests' trainings, local or Slurm jobs,
# inherit this.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
# The caller's NCCL_, NVTE_, CUDA_, TORCH_, UCX_, FI_, OMPI_ and PMIX_
# variables are part of every training's configuration (README: The job's
# environment): a test machine's own (CUDA_HOME) would change the golden
# configurations and job scripts. A test sets the ones it means.
while IFS= read -r _v; do unset "$_v"; done < <(compgen -e | grep -E '^(NCCL|NVTE|CUDA|TORCH|UCX|FI|OMPI|PMIX)_.')
unset _v
# UPDATE_GOLDEN=1 rewrites golden files instead of comparing.
UPDATE_GOLDEN=${UPDATE_GOLDEN:-0}

t_pass() { T_PASS=$((T_PASS + 1)); echo "ok $((T_PASS + T_FAIL)) - $*"; }
t_fail() { T_FAIL=$((T_FAIL + 1)); echo "not ok $((T_PASS + T_FAIL)) - $*"; }

# t_ok DESC CMD...: CMD must exit 0.
t_ok() {
	local d=$1; shift
	if "$@" >"$TRASH/.out" 2>&1; then t_pass "$d"; else t_fail "$d"; sed 's/^/# /' "$TRASH/.out" | tail -n 30; fi
}
# t_chrome ARG...: headless Chromium, its standard output to ours. On a
# loaded machine a start can outlast the time limit; one more try then.
t_chrome() {
	local try
	for try in 1 2; do
		timeout 300 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$(mktemp -d "$TRASH/chrome.XXXXXX")" "$@" >"$TRASH/.chrome" 2>>"$TRASH/chromium.err" &&
			{ cat "$TRASH/.chrome"; return 0; }
		echo "chromium: try $try failed" >>"$TRASH/chromium.err"
	done
	return 1
}
# t_rc DESC RC CMD...: CMD must exit with status RC.
t_rc() {
	local d=$1 want=$2 rc=0; shift 2
	"$@" >"$TRASH/.out" 2>&1 || rc=$?
	if [ "$rc" = "$want" ]; then t_pass "$d"; else t_fail "$d (exit $rc, want $want)"; sed 's/^/# /' "$TRASH/.out" | tail -n 30; fi
}
# t_cmp DESC EXPECTED_FILE ACTUAL_FILE: files must be identical (golden files).
t_cmp() {
	local d=$1 exp=$2 act=$3
	if [ "$UPDATE_GOLDEN" = 1 ]; then mkdir -p "$(dirname "$exp")"; cp "$act" "$exp"; fi
	if diff -u "$exp" "$act" >"$TRASH/.diff" 2>&1; then t_pass "$d"; else t_fail "$d"; sed 's/^/# /' "$TRASH/.diff" | head -n 40; fi
}
# t_grep DESC PATTERN FILE: FILE must contain an extended-regex match.
t_grep() {
	local d=$1 pat=$2 f=$3
	if grep -Eq -- "$pat" "$f"; then t_pass "$d"; else t_fail "$d: /$pat/ not in $f"; sed 's/^/# /' "$f" 2>/dev/null | tail -n 20; fi
}
t_nogrep() {
	local d=$1 pat=$2 f=$3
	if ! grep -Eq -- "$pat" "$f"; then t_pass "$d"; else t_fail "$d: /$pat/ found in $f"; grep -En -- "$pat" "$f" | head -n 5 | sed 's/^/# /'; fi
}
# Helpers the test files share (each file's own make wrapper, m(), stays
# in the file: it names that file's workload, install tree and executor).
# t_nap SECONDS: a pause without a process: read's time-out on a pipe
# nobody writes to. The waits here poll ten times a second, and a sleep
# process each time, on a 2-core machine running a 256-node cluster, costs
# more CPU than the checks themselves.
t_nap() {
	[ -n "${T_NAP_FD:-}" ] || exec {T_NAP_FD}<> <(:)
	read -r -t "$1" -u "$T_NAP_FD" _ || :
}
# t_wait_grep PATTERN FILE [SECONDS]: waits (60 s) for a line of FILE to
# match the extended regex; says so on stderr when it times out.
t_wait_grep() {
	local i
	for ((i = 0; i < ${3:-60} * 10; i++)); do grep -Eq -- "$1" "$2" 2>/dev/null && return 0; t_nap 0.1; done
	echo "# timed out waiting for /$1/ in $2" >&2
	return 1
}
# t_wait_file FILE [SECONDS]: waits (30 s) for FILE to exist.
t_wait_file() {
	local i
	for ((i = 0; i < ${2:-30} * 10; i++)); do [ -e "$1" ] && return 0; t_nap 0.1; done
	echo "# timed out waiting for $1" >&2
	return 1
}
# t_checkout DIR: a checkout in DIR whose code, scripts and tests are the
# real one's (links) and whose workloads/ and pipelines/ are its own, with
# the benchmark pipeline and the GPU table, for a test to add workloads to.
t_checkout() {
	local f
	mkdir -p "$1/workloads" "$1/pipelines"
	for f in GNUmakefile generator scripts templates tests; do ln -s "$TOP/$f" "$1/$f"; done
	cp "$TOP/pipelines/benchmark.yaml" "$1/pipelines/"
	cp "$TOP/workloads/gpus.yaml" "$1/workloads/"
}
# t_quick_checkout DIR: t_checkout with the shell-only workload quick
# (tests/pipeline: an image, a data task, trainings of a few seconds).
t_quick_checkout() {
	t_checkout "$1"
	mkdir -p "$1/workloads/quick"
	cp "$TESTS_DIR/pipeline/quick.yaml" "$1/workloads/"
	cp "$TESTS_DIR/pipeline/train.sh" "$1/workloads/quick/"
}
# t_sq_checkout DIR [SCALES]: t_checkout with the fast Slurm workload sq
# (tests/slurm-pipeline: a data task, a fake training the environment
# steers), its scales SCALES ("4": two nodes of two ranks) when given.
t_sq_checkout() {
	t_checkout "$1"
	mkdir -p "$1/workloads/sq"
	if [ -n "${2:-}" ]; then
		sed "s/scales: \[1, 2\]/scales: [$2]/" "$TESTS_DIR/slurm-pipeline/sq.yaml" >"$1/workloads/sq.yaml"
	else
		cp "$TESTS_DIR/slurm-pipeline/sq.yaml" "$1/workloads/"
	fi
	cp "$TESTS_DIR/slurm-pipeline/train.sh" "$TESTS_DIR/slurm-pipeline/data.sh" "$1/workloads/sq/"
}
# t_job_field INSTALL STAGE FIELD: a field of the stage's job record.
t_job_field() { sed -n "s/^$3=//p" "$1/state/jobs/$2/record" 2>/dev/null; }
# t_skip_all REASON: the whole file cannot run here; counted as skipped, never as passed.
# A TAP plan closes every file (1..N, or 1..0 with SKIP), so prove runs them too.
t_skip_all() { echo "1..0 # SKIP $T_NAME: $*"; echo "0 0 1" >>"${T_RESULTS:-/dev/null}"; exit 0; }
t_done() {
	echo "1..$((T_PASS + T_FAIL))"
	echo "# $T_NAME: $T_PASS passed, $T_FAIL failed"
	echo "$T_PASS $T_FAIL 0" >>"${T_RESULTS:-/dev/null}"
	[ "$T_FAIL" = 0 ]
}
