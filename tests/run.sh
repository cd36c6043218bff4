#!/usr/bin/env bash
# run.sh [-j N] [NAME...]: runs tests/t-*.sh (or those named), prints one
# closing line "N passed, N failed, N skipped" and exits non-zero on any
# failure.
#
# -j N (or T_JOBS=N) runs N test files side by side. Each file starts its
# own Slurm cluster on free ports in its own trash directory, so files are
# independent; most of them keep one core busy at most, and the scale test
# spends much of its time waiting on the controller. A file's output is
# printed whole when it ends, so files never interleave. The longest files
# start first (tests/durations: seconds per file on 2 cores, measured), so
# the run ends close to its longest file.
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
trap 'rm -rf "$T_RESULTS" "$LOGS"' EXIT
if [ $# -gt 0 ]; then
	files=()
	for n in "$@"; do files+=("tests/t-${n#t-}"); done
	files=("${files[@]/%.sh/}"); files=("${files[@]/%/.sh}")
else
	files=(tests/t-*.sh)
fi
# Longest first: known durations, then the rest in name order.
if [ "$jobs" -gt 1 ] && [ -f tests/durations ]; then
	mapfile -t files < <(printf '%s\n' "${files[@]}" |
		awk 'NR == FNR { if ($0 !~ /^#/) d["tests/t-" $1 ".sh"] = $2; next } { print (($0 in d) ? d[$0] : 0), FNR, $0 }' \
			tests/durations - | sort -k1,1nr -k2,2n | cut -d' ' -f3-)
fi
bad=()
# Interrupted: the files running side by side (each in its own process
# group) stop too.
stop_all() {
	local p
	for p in "${!name_of[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
	exit 130
}
trap stop_all INT TERM
declare -A name_of=() start_of=() log_of=()
# finish PID: report the file that process ran
finish() {
	local pid=$1 rc=$2 f=${name_of[$1]}
	if [ "$jobs" -gt 1 ]; then
		echo "=== $f"
		cat "${log_of[$pid]}"
	fi
	[ "$rc" = 0 ] || bad+=("$f")
	echo "=== $f: $(($(date +%s) - start_of[$pid])) s"
	unset "name_of[$pid]"
}
for f in "${files[@]}"; do
	if [ "$jobs" = 1 ]; then
		echo "=== $f"
		start=$(date +%s)
		env --default-signal=INT,QUIT bash "$f"
		rc=$?
		name_of[0]=$f start_of[0]=$start
		finish 0 "$rc"
		continue
	fi
	while [ "${#name_of[@]}" -ge "$jobs" ]; do
		wait -n -p done_pid
		rc=$?
		finish "$done_pid" "$rc"
	done
	log=$LOGS/$(basename "$f").log
	# A script's background job starts with SIGINT and SIGQUIT ignored (and
	# so does everything run.sh starts when run.sh itself was started in the
	# background), and the make a test interrupts as from a terminal would
	# inherit that: env gives them back their default. Job control gives
	# each file a process group of its own, which an interrupted run.sh
	# stops (below).
	set -m
	env --default-signal=INT,QUIT bash "$f" >"$log" 2>&1 </dev/null &
	pid=$!
	set +m
	name_of[$pid]=$f start_of[$pid]=$(date +%s) log_of[$pid]=$log
done
while [ "${#name_of[@]}" -gt 0 ]; do
	wait -n -p done_pid
	rc=$?
	finish "$done_pid" "$rc"
done
read -r p f s < <(awk '{p+=$1; f+=$2; s+=$3} END {print p+0, f+0, s+0}' "$T_RESULTS")
[ ${#bad[@]} -eq 0 ] || echo "failing test files: ${bad[*]}"
# A file that died without reporting still counts as a failure, and so
# does a run that reported nothing at all.
if [ ${#bad[@]} -gt 0 ] && [ "$f" = 0 ]; then f=${#bad[@]}; fi
if [ $((p + f + s)) = 0 ]; then bad+=("(no test reported)"); f=1; fi
echo "$p passed, $f failed, $s skipped"
[ ${#bad[@]} -eq 0 ] && [ "$f" = 0 ]
