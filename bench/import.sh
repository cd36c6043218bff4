#!/usr/bin/env bash
# bench/import.sh: `llmb import` over every upstream metadata.yaml of the
# releases in tests/import/upstream (index: tag path data-file), one table
# row per release: files, converted complete (exit 0), converted with gaps
# (exit 1), refused and why (exit 3: inference, microbenchmark, rl), and
# crashed (anything else: bad input, a signal). Each distinct file is
# imported once; a release counts each of its files.
# Usage:
#   bench/import.sh [-v]     -v: one line per distinct file too
#                            (exit status, file, gaps or the refusal)
# LLMB (default build/llmb) is the binary; exit 1 when a training recipe is
# refused or anything crashed.
set -u
export LC_ALL=C
TOP=$(cd "$(dirname "$0")/.." && pwd)
LLMB=${LLMB:-$TOP/build/llmb}
case $LLMB in /*) ;; */*) LLMB=$PWD/$LLMB ;; esac
D=$TOP/tests/import/upstream
W=$(mktemp -d "${TMPDIR:-/tmp}/llmb-import.XXXXXX")
trap 'rm -rf "$W"' EXIT
verbose=0
[ "${1:-}" = -v ] && verbose=1

declare -A rc_of=() why_of=()
for f in "$D"/*.yaml; do
	n=$(basename "$f")
	rc=0
	(cd "$D" && "$LLMB" import --top "$TOP" -o "$W/$n" "$n") >/dev/null 2>"$W/$n.err" || rc=$?
	rc_of[$n]=$rc
	case $rc in
	1) why_of[$n]="$(grep -c ': error: not converted: ' "$W/$n.err") gaps" ;;
	3) why_of[$n]=$(sed -n 's/.*not converted: \(an\? [a-z-]*\) .*/\1/p' "$W/$n.err" | head -n 1) ;;
	*) why_of[$n]=$(tail -n 1 "$W/$n.err") ;;
	esac
	[ "$verbose" = 1 ] && printf '%3s  %-62s %s\n' "$rc" "$n" "${why_of[$n]}"
done
[ "$verbose" = 1 ] && echo

bad=0
printf '%-10s %5s %9s %9s %8s  %-40s %7s\n' release files complete with-gaps refused "refused: what" crashed
tags=$(awk '!/^#/ { print $1 }' "$D/index" | uniq)
declare -A T=()
for tag in $tags; do
	files=0 ok=0 gaps=0 ref=0 crash=0
	declare -A kinds=()
	while read -r _ _ f; do
		files=$((files + 1))
		case ${rc_of[$f]:-x} in
		0) ok=$((ok + 1)) ;;
		1) gaps=$((gaps + 1)) ;;
		3) ref=$((ref + 1)); k=${why_of[$f]#an }; k=${k#a }; k=${k/reinforcement-learning/rl}; kinds[$k]=$((${kinds[$k]:-0} + 1)) ;;
		*) crash=$((crash + 1)) ;;
		esac
	done < <(awk -v t="$tag" '$1 == t' "$D/index")
	what=""
	for k in $(printf '%s\n' "${!kinds[@]}" | sort); do what="$what${what:+, }${kinds[$k]} $k"; done
	printf '%-10s %5d %9d %9d %8d  %-40s %7d\n' "$tag" "$files" "$ok" "$gaps" "$ref" "${what:--}" "$crash"
	T[files]=$((${T[files]:-0} + files)) T[ok]=$((${T[ok]:-0} + ok)) T[gaps]=$((${T[gaps]:-0} + gaps))
	T[ref]=$((${T[ref]:-0} + ref)) T[crash]=$((${T[crash]:-0} + crash))
	unset kinds
	[ "$crash" = 0 ] || bad=1
done
printf '%-10s %5d %9d %9d %8d  %-40s %7d\n' all "${T[files]}" "${T[ok]}" "${T[gaps]}" "${T[ref]}" "" "${T[crash]}"
d0=0 d1=0 d3=0 dx=0
for f in "${!rc_of[@]}"; do
	case ${rc_of[$f]} in 0) d0=$((d0 + 1)) ;; 1) d1=$((d1 + 1)) ;; 3) d3=$((d3 + 1)) ;; *) dx=$((dx + 1)) ;; esac
done
printf '%-10s %5d %9d %9d %8d  %-40s %7d\n' distinct "${#rc_of[@]}" "$d0" "$d1" "$d3" "" "$dx"
# A refused training recipe would be a crash here: exit 3 is only for the
# kinds llmb does not benchmark, and the test checks each one's kind.
exit $bad
