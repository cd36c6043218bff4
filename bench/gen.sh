#!/usr/bin/env bash
# gen.sh: the generator and make at scale. A shell-only workload
# (tests/slurm-pipeline/many-sizes.sh: N/2 sizes, scales 1 and 2) expands
# to N train targets, as many parse targets, N/2 reports and a data task.
# Prints the wall and CPU times of the generation, of `make -n` with
# everything to do, and of a no-op `make` once every stage is done (so
# stamps, identities and outputs are what a run leaves), beside GNU make
# deciding 2N plain up-to-date targets (-rR), the yardstick, measured in
# the same run, and the ratio of the two. Target (2 cores): the no-op make
# within 2x of the yardstick, wall and CPU.
#
# The done state: a real run with the local executor of the stages of one
# size (m1), then the other sizes' stages made from them (bench/gen-done.py,
# the fast path: what a run of each would leave, in minutes at N=10,000
# where running every job takes hours). --real runs every stage instead.
# --check makes a small tree both ways and compares them (bench/gen-done.py
# --compare), and runs `llmb run` on every stage of the fast tree: done by
# content, it must rewrite no stamp and no identity.
#
# Fails (exit 1) when a stage is left undone, or the no-op make runs
# anything, or it, make plan or make -n leaves anything to run.
#
#   bench/gen.sh [--real] [N (10000)] [J (64)]   N train targets, runs under make -jJ
#   bench/gen.sh --smoke                         N=20: seconds (tests/t-bench.sh)
#   bench/gen.sh --check                         fast path against a real run, N=6
set -euo pipefail
real=
case ${1:-} in
--smoke) set -- 20 16 ;;
--real) real=1; shift ;;
--check)
	here=$(dirname "$0")
	r=$(BENCH_KEEP=1 bash "$here/gen.sh" --real 6 4 | tee /dev/stderr | sed -n 's/^gen.sh: trees kept in //p')
	f=$(BENCH_KEEP=1 bash "$here/gen.sh" 6 4 | tee /dev/stderr | sed -n 's/^gen.sh: trees kept in //p')
	[ -n "${BENCH_KEEP:-}" ] || trap 'rm -rf "$r" "$f"' EXIT
	python3 "$here/gen-done.py" --compare "$r" "$f" || { echo "gen.sh: FAILED: the fast path's tree is not the run's" >&2; exit 1; }
	# every stage of the fast tree through llmb run: done by content, it
	# runs nothing and finds every identity and stamp as it would write them
	find "$f/inst/state" -type f -path '*/state/[di][od]*/*' -printf '%p %T@ ' -exec sha256sum {} \; | sort >"$f/snap.before"
	while read -r id _; do
		env -C "$f/top" EXECUTOR=local LLMB_INSTALL="$f/inst" "$(cd "$here/.." && pwd)/build/llmb" run --top . --gen "$f/gen" \
			--install "$f/inst" "$id" >>"$f/run.out" 2>&1 || { cat "$f/run.out" >&2; echo "gen.sh: FAILED: llmb run $id" >&2; exit 1; }
	done <"$f/gen/cfg/.manifest"
	find "$f/inst/state" -type f -path '*/state/[di][od]*/*' -printf '%p %T@ ' -exec sha256sum {} \; | sort >"$f/snap.after"
	cmp -s "$f/snap.before" "$f/snap.after" || { diff "$f/snap.before" "$f/snap.after" >&2; echo "gen.sh: FAILED: llmb run rewrote stamps or identities of the fast path" >&2; exit 1; }
	[ ! -s "$f/run.out" ] || { cat "$f/run.out" >&2; echo "gen.sh: FAILED: llmb run said something on a done tree" >&2; exit 1; }
	echo "fast path: llmb run on each of $(wc -l <"$f/gen/cfg/.manifest") stages: done, no stamp or identity rewritten"
	exit 0 ;;
esac
N=${1:-10000} J=${2:-64}
case $N in '' | *[!0-9]*) echo "gen.sh: N must be a number of train targets, not '$N'" >&2; exit 2 ;; esac
K=$(((N + 1) / 2))
top=$(cd "$(dirname "$0")/.." && pwd)
# the checkout's build, the one its GNUmakefile's rules call
llmb=$top/build/llmb
make -C "$top" all >/dev/null
w=$(mktemp -d "${TMPDIR:-/tmp}/llmb-bench.XXXXXX")
# BENCH_KEEP=1 keeps the trees for a closer look.
if [ -n "${BENCH_KEEP:-}" ]; then echo "gen.sh: trees kept in $w"; else trap 'rm -rf "$w"' EXIT; fi
fail() { echo "gen.sh: FAILED: $*" >&2; exit 1; }

"$top/tests/slurm-pipeline/many-sizes.sh" "$w/top" bg "$K" "1, 2"
TIMEFORMAT='%R %U %S'
m() { make -C "$w/top" --no-print-directory B="$top/build" LLMB_GEN="$w/gen" LLMB_INSTALL="$w/inst" \
	EXECUTOR=local WORKLOAD=bg "$@"; }
# t CMD...: "WALL CPU" seconds of CMD (CPU: user + system, the figure to
# compare on a busy machine); its output in $w/t.out, its failure ours
t() {
	local s
	s=$( { time "$@" >"$w/t.out" 2>&1; } 2>&1 ) || { tail -n 20 "$w/t.out" >&2; fail "$*"; }
	echo "$s" | awk '{printf "%s %.3f\n", $1, $2 + $3}'
}
# s "WALL CPU": as printed
s() { echo "$1" | awk '{printf "%s s (%s s CPU)", $1, $2}'; }
# What make hands llmb gen (the selection it generates for), so that the
# rules llmb gen writes here are the ones make keeps.
# shellcheck disable=SC2016 # make's $$, for make
vars=$(m --eval 'llmb-bench-vars: ; @printf "%s\n" "$$LLMB_GEN_VARS"' llmb-bench-vars)
g() { env -C "$w/top" LLMB_GEN_VARS="$vars" EXECUTOR=local WORKLOAD=bg "$llmb" gen --top . --gen "$w/gen"; }

gen1=$(t g)
gen2=$(t g)
# shellcheck disable=SC2016 # make's $(...), as rules.mk spells it
n=$(grep -c '^\$(LLMB_INSTALL)/state/stamped/train\.' "$w/gen/rules.mk") || true
[ "$n" = "$N" ] || [ "$n" = "$((K * 2))" ] || fail "$n train targets in the rules, not $N"
stages=$(find "$w/gen/cfg" -type f ! -name '.*' | wc -l)
plan=$(t m -n llmb-report)
todo=$(grep -c "llmb run" "$w/t.out") || true
[ "$todo" = "$stages" ] || fail "make -n lists $todo of $stages stages to run"

if [ -n "$real" ]; then
	# Everything done, by llmb itself: every stage run with the local executor.
	run=$(t m -j"$J" llmb-report)
else
	# m1's stages run for real (rules of their own: SIZE=m1), the others'
	# made from them
	run=$(t m -j"$J" LLMB_GEN="$w/gen-m1" SIZE=m1 llmb-report)
	fast=$(t python3 "$top/bench/gen-done.py" "$w/inst" "$w/gen")
fi
done_n=$(find "$w/inst/state/done" -type f | wc -l)
id_n=$(find "$w/inst/state/id" -type f | wc -l)
[ "$done_n" = "$stages" ] || fail "the run left $done_n stamps for $stages stages"
[ "$id_n" = "$stages" ] || fail "the run left $id_n identities for $stages stages"
trained=$(wc -l <"$w/inst/count.train")
[ "$trained" = "$n" ] || fail "$trained trainings ran for $n train targets"

# The first make after a run remakes valid.mk (the JSON outputs are newer)
# and reads the rules again: not the no-op measured.
m llmb-report >"$w/t.out" 2>&1 || fail "the make after the run"
grep -q "Nothing to be done" "$w/t.out" || { head -n 20 "$w/t.out" >&2; fail "the make after the run did something"; }
snap() { find "$w/inst/state/done" "$w/inst/state/id" -type f -printf '%p %T@ %s\n' | sort; }
snap >"$w/before"
noop=$(t m llmb-report)
grep -q "Nothing to be done" "$w/t.out" || { head -n 20 "$w/t.out" >&2; fail "the no-op make did something"; }
snap >"$w/after"
cmp -s "$w/before" "$w/after" || fail "the no-op make changed stamps or identities"
[ "$(wc -l <"$w/inst/count.train")" = "$trained" ] || fail "the no-op make trained again"
m plan >"$w/plan.out" 2>&1 || fail "make plan"
grep -q "^0 of $stages stages would run" "$w/plan.out" || { head -n 5 "$w/plan.out" >&2; fail "make plan has stages left to run"; }
m -n llmb-report >"$w/n.out" 2>&1 || fail "make -n after the run"
left=$(grep -c "llmb run" "$w/n.out") || true
[ "$left" = 0 ] || fail "make -n after the run lists $left stages to run"

# The yardstick: GNU make alone on 2N up-to-date explicit targets.
mkdir -p "$w/plain"
(
	cd "$w/plain"
	seq 1 $((2 * N)) | awk '{print "t" $1 ": s" $1} END {printf "all:"; for (i = 1; i <= NR; i++) printf " t%d", i; print ""}' >Makefile
	seq 1 $((2 * N)) | sed 's/^/s/' | xargs touch
	seq 1 $((2 * N)) | sed 's/^/t/' | xargs touch
)
plain=$(t make -rR -C "$w/plain" all)

# The floors: GNU make alone on this tree, over makefiles that hold nothing
# but what make must look at (no recipe, no variable, no function): each
# stage's link and its upstream links (make seeing no output), and the same
# with each output a prerequisite (make seeing every output: the least
# that notices a deleted output or one changed in place, as llmb's rules
# do). What llmb's no-op spends above the second is its own.
# shellcheck disable=SC2016 # make's $(...), as rules.mk spells it
awk -v inst="$w/inst" -v with="$w/floor-outputs.mk" '
	function lit(s) { gsub(/\$\(LLMB_INSTALL\)/, inst, s); return s }
	/^\$\(LLMB_INSTALL\)\/state\/stamped\// && !/\| llmb-secrets$/ {
		t = lit(substr($1, 1, length($1) - 1)); all = all " " t; links = outs = ""
		for (i = 2; i <= NF; i++) {
			f = $i; sub(/^\$\(wildcard/, "", f); gsub(/\)+(,,FORCE\))?$/, "", f)
			if (f !~ /^\$\(LLMB_INSTALL\)\//) continue
			if (f ~ /^\$\(LLMB_INSTALL\)\/state\/stamped\//) links = links " " lit(f); else outs = outs " " lit(f)
		}
		print t ":" links; print t ":" links outs >with
	}
	END { print "all:" all; print "all:" all >with }' "$w/gen/rules.mk" >"$w/floor-links.mk"
floor() {
	t make -rR -f "$1" all
	grep -q "Nothing to be done" "$w/t.out" || { head -n 5 "$w/t.out" >&2; fail "GNU make on $1 had something to do"; }
}
links=$(floor "$w/floor-links.mk")
outs=$(floor "$w/floor-outputs.mk")

echo "train targets:                  $n ($stages stages)"
echo "llmb gen (first, writes all):   $(s "$gen1")"
echo "llmb gen (nothing changed):     $(s "$gen2")"
echo "make -n (everything to do):     $(s "$plan")"
if [ -n "$real" ]; then
	echo "make -j$J (the run, every stage): $(s "$run")"
else
	echo "make -j$J (the run of m1's stages): $(s "$run")"
	echo "fast path (the other stages):   $(s "$fast")"
fi
echo "no-op make (all up to date):    $(s "$noop")   (0 stages run; make plan and make -n: 0 of $stages)"
echo "GNU make, $((2 * N)) plain targets: $(s "$plain")"
echo "GNU make, the $stages stage links: $(s "$links")"
echo "GNU make, the links and outputs: $(s "$outs")"
# ratio LABEL "WALL CPU" "WALL CPU": the first over the second
ratio() { echo "$2 $3" | awk -v l="$1" '{ if ($3 > 0 && $4 > 0) printf "%-31s %.1fx wall, %.1fx CPU\n", l, $1 / $3, $2 / $4 }'; }
ratio "no-op make / plain make:" "$noop" "$plain"
ratio "floor, links / plain make:" "$links" "$plain"
ratio "floor, outputs / plain make:" "$outs" "$plain"
ratio "no-op make / floor, outputs:" "$noop" "$outs"
