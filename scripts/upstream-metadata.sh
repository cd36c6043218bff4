#!/usr/bin/env bash
# upstream-metadata.sh REPO [OUT]: copies every distinct metadata.yaml of
# the NVIDIA LLM Benchmarking Collection releases llmb import is tested on
# into OUT (default tests/import/upstream), deduplicated by content. REPO is
# a git directory (bare or not) holding the upstream tags.
#
# Each distinct file is OUT/<recipe>.<tag>.yaml: the recipe is its directory
# with '/' as '-', the tag the first release it appeared in. OUT/index lists
# every tag's files: "tag path data-file", one a line, so a test can report
# per tag. Only metadata.yaml files are copied: they are test data.
set -eu
TAGS="v25.08 v25.08.01 v25.08.02 v25.10 v25.10.01 v25.10.02 v25.12 v25.12.01 v25.12.02
v26.02 v26.02.01 v26.05 v26.06.00 v26.06.01"
repo=${1:?usage: upstream-metadata.sh REPO [OUT]}
out=${2:-$(dirname "$0")/../tests/import/upstream}
mkdir -p "$out"
rm -f "$out"/*.yaml "$out/index"
declare -A file_of=()
{
	echo "# tag path data-file: the upstream metadata.yaml files of each release"
	echo "# (written by scripts/upstream-metadata.sh; a data file serves every"
	echo "# release whose file has the same content)"
} >"$out/index"
for tag in $TAGS; do
	git -C "$repo" ls-tree -r "$tag" | while read -r _ type blob path; do
		[ "$type" = blob ] && [ "${path##*/}" = metadata.yaml ] && printf '%s %s\n' "$blob" "$path"
	done | sort -k2 >"$out/.list"
	while read -r blob path; do
		if [ -z "${file_of[$blob]:-}" ]; then
			rec=${path%/metadata.yaml}
			f="${rec//\//-}.$tag.yaml"
			git -C "$repo" cat-file blob "$blob" >"$out/$f"
			file_of[$blob]=$f
		fi
		printf '%s %s %s\n' "$tag" "$path" "${file_of[$blob]}" >>"$out/index"
	done <"$out/.list"
done
rm -f "$out/.list"
