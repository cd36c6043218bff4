#!/usr/bin/env bash
# run.sh [-j N] [NAME...]: runs tests/t-*.sh (or those named), prints one
# closing line "N passed, N failed, N skipped" and exits non-zero on any
# failure.
#
# -j N (or T_JOBS=N) runs N test files side by side. Each file starts its
# own Slurm cluster on free ports in its own trash directory, so files are
# independent; most of them keep one core busy at most, and the scale test
# spends much of its time waiting on its controller. A file's output is
# printed whole when it ends, so files never interleave.
#
# tests/durations lists, per file, the seconds it took on 2 cores and
# optionally a group: the longest files start first, so the run ends close
# to its longest file, and two files of one group never run at once.
set -u
cd "$(dirname "$0")/.." || exit 2
jobs=${T_JOBS:-1}
if [ "${1:-}" = -j ]; then
	jobs=${2:-}
	shift 2 || exit 2
fi
case $jobs in '' | *[!0-9]* | 0)
	echo "run.sh: -j takes a positive number of files at once, not '$jobs'" >&2
	exit 2
	;;
esac
mkdir -p build/trash
# One results file per run: two runs at once must not mix their counts.
T_RESULTS=$(mktemp "$PWD/build/trash/results.XXXXXX")
LOGS=$(mktemp -d "$PWD/build/trash/logs.XXXXXX")
export T_RESULTS
trap 'rm -rf "$T_RESULTS" "$LOGS"; [ -z "${CG:-}" ] || rmdir "$CG"/* "$CG" 2>/dev/null' EXIT
if [ $# -gt 0 ]; then
	files=()
	for n in "$@"; do files+=("tests/t-${n#t-}"); done
	files=("${files[@]/%.sh/}"); files=("${files[@]/%/.sh}")
else
	files=(tests/t-*.sh)
fi
# A python3 on PATH that is a version manager's shim (pyenv's runs bash
# and `pyenv exec`, some 0.7 s of CPU a call) is replaced, for every file,
# by the interpreter it resolves to: the same Python, without the shim.
# The emulated clusters run a Python process per task, hundreds at once.
py=$(command -v python3 2>/dev/null)
case $py in */shims/python3)
	real=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
	if [ -x "$real" ]; then
		mkdir -p "$LOGS/python3" && ln -s "$real" "$LOGS/python3/python3" && PATH=$LOGS/python3:$PATH
		export PATH
	fi
	;;
esac
declare -A group_of=()
if [ "$jobs" -gt 1 ] && [ -f tests/durations ]; then
	# Longest first: known durations, then the rest in name order.
	mapfile -t files < <(printf '%s\n' "${files[@]}" |
		awk 'NR == FNR { if ($0 !~ /^#/) d["tests/t-" $1 ".sh"] = $2; next } { print (($0 in d) ? d[$0] : 0), FNR, $0 }' \
			tests/durations - | sort -k1,1nr -k2,2n | cut -d' ' -f3-)
	while read -r n _ g; do
		[ -n "${g:-}" ] && group_of[tests/t-$n.sh]=$g
	done < <(grep -v '^#' tests/durations)
fi
# CPU seconds per file, where the kernel's cpuacct controller (cgroup v1)
# is writable: each file runs in a cgroup of its own, which everything it
# starts stays in (its Slurm daemons too), so the count holds on a loaded
# machine where wall time does not. tests/durations is sorted by it.
CG=
if [ -w /sys/fs/cgroup/cpuacct ] && [ -z "${LLMB_TEST_NO_CPUACCT:-}" ]; then
	CG=/sys/fs/cgroup/cpuacct/llmb-tests.$$
	mkdir -p "$CG" 2>/dev/null || CG=
fi
# cpu_of NAME: the CPU seconds of that file's cgroup, and the cgroup removed
cpu_of() {
	local ns=
	[ -n "$CG" ] && read -r ns <"$CG/$1/cpuacct.usage" 2>/dev/null || return 0
	rmdir "$CG/$1" 2>/dev/null
	echo ", CPU $((ns / 1000000000)) s"
}
# run_file FILE: runs the test file (in its cgroup when there is one)
run_file() {
	local f=$1 cg=
	if [ -n "$CG" ]; then
		cg=$CG/$(basename "$f" .sh)
		if mkdir -p "$cg" 2>/dev/null; then echo "$BASHPID" >"$cg/cgroup.procs" 2>/dev/null; fi
	fi
	exec env --default-signal=INT,QUIT bash "$f"
}
bad=()
declare -A name_of=() start_of=() log_of=() busy=()
# Interrupted: the files running side by side (each in its own process
# group) stop too.
stop_all() {
	local p
	for p in "${!name_of[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
	exit 130
}
trap stop_all INT TERM
# finish PID RC: report the file that process ran
finish() {
	local pid=$1 rc=$2 f=${name_of[$1]}
	if [ "$jobs" -gt 1 ]; then
		echo "=== $f"
		cat "${log_of[$pid]}"
	fi
	[ "$rc" = 0 ] || bad+=("$f")
	echo "=== $f: $(($(date +%s) - start_of[$pid])) s$(cpu_of "$(basename "$f" .sh)")"
	unset "name_of[$pid]"
	[ -z "${group_of[$f]:-}" ] || unset "busy[${group_of[$f]}]"
}
# reap: wait for one running file to end
reap() {
	local done_pid rc
	wait -n -p done_pid
	rc=$?
	finish "$done_pid" "$rc"
}
# start FILE: in the background, output to its log
start() {
	local f=$1 log
	log=$LOGS/$(basename "$f").log
	# A script's background job starts with SIGINT and SIGQUIT ignored (and
	# so does everything run.sh starts when run.sh itself was started in the
	# background), and the make a test interrupts as from a terminal would
	# inherit that: env gives them back their default. Job control gives
	# each file a process group of its own, which an interrupted run.sh
	# stops (above).
	set -m
	(run_file "$f") >"$log" 2>&1 </dev/null &
	pid=$!
	set +m
	name_of[$pid]=$f start_of[$pid]=$(date +%s) log_of[$pid]=$log
	[ -z "${group_of[$f]:-}" ] || busy[${group_of[$f]}]=1
}
if [ "$jobs" = 1 ]; then
	for f in "${files[@]}"; do
		echo "=== $f"
		t0=$(date +%s)
		(run_file "$f")
		rc=$?
		[ "$rc" = 0 ] || bad+=("$f")
		echo "=== $f: $(($(date +%s) - t0)) s$(cpu_of "$(basename "$f" .sh)")"
	done
else
	todo=("${files[@]}")
	while [ ${#todo[@]} -gt 0 ]; do
		while [ "${#name_of[@]}" -ge "$jobs" ]; do reap; done
		# the first file in order whose group is not running
		pick=-1
		for i in "${!todo[@]}"; do
			g=${group_of[${todo[$i]}]:-}
			if [ -z "$g" ] || [ -z "${busy[$g]:-}" ]; then pick=$i; break; fi
		done
		if [ "$pick" -lt 0 ]; then
			reap
			continue
		fi
		start "${todo[$pick]}"
		unset "todo[$pick]"
		todo=("${todo[@]}")
	done
	while [ "${#name_of[@]}" -gt 0 ]; do reap; done
fi
read -r p f s < <(awk '{p+=$1; f+=$2; s+=$3} END {print p+0, f+0, s+0}' "$T_RESULTS")
[ ${#bad[@]} -eq 0 ] || echo "failing test files: ${bad[*]}"
# A file that died without reporting still counts as a failure, and so
# does a run that reported nothing at all.
if [ ${#bad[@]} -gt 0 ] && [ "$f" = 0 ]; then f=${#bad[@]}; fi
if [ $((p + f + s)) = 0 ]; then bad+=("(no test reported)"); f=1; fi
echo "$p passed, $f failed, $s skipped"
[ ${#bad[@]} -eq 0 ] && [ "$f" = 0 ]
