#!/usr/bin/env bash
# run.sh [NAME...]: runs tests/t-*.sh (or those named), prints one closing
# line "N passed, N failed, N skipped" and exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2
mkdir -p build/trash
# One results file per run: two runs at once must not mix their counts.
T_RESULTS=$(mktemp "$PWD/build/trash/results.XXXXXX")
export T_RESULTS
trap 'rm -f "$T_RESULTS"' EXIT
if [ $# -gt 0 ]; then
	files=()
	for n in "$@"; do files+=("tests/t-${n#t-}"); done
	files=("${files[@]/%.sh/}"); files=("${files[@]/%/.sh}")
else
	files=(tests/t-*.sh)
fi
bad=()
for f in "${files[@]}"; do
	echo "=== $f"
	start=$(date +%s)
	if ! bash "$f"; then bad+=("$f"); fi
	echo "=== $f: $(($(date +%s) - start)) s"
done
read -r p f s < <(awk '{p+=$1; f+=$2; s+=$3} END {print p+0, f+0, s+0}' "$T_RESULTS")
[ ${#bad[@]} -eq 0 ] || echo "failing test files: ${bad[*]}"
# A file that died without reporting still counts as a failure.
if [ ${#bad[@]} -gt 0 ] && [ "$f" = 0 ]; then f=${#bad[@]}; fi
echo "$p passed, $f failed, $s skipped"
[ ${#bad[@]} -eq 0 ] && [ "$f" = 0 ]
