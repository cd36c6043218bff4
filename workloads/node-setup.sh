#!/usr/bin/env bash
# node-setup.sh: the node setup step of a training job (train.node_setup).
#
# The training command, run with LLMB_NODE_SETUP=FILE, wrote to FILE the host
# commands its framework runs on every node before training, one
# "name<TAB>command" a line (NeMo's PerfEnvPlugin: "vboost<TAB>sudo
# nvidia-smi boost-slider --vboost 1"). Upstream's sbatch script runs them
# on the hosts with an srun before its training srun; so does this, once per
# node. A command that fails (no sudo, nvidia-smi refusing) never fails the
# job: the outcome per node is recorded and summed up in the run's note.
#
#   node-setup.sh FILE NOTE            the batch step: every node runs FILE
#                                      (srun, one task per node; without
#                                      Slurm, this machine), then NOTE
#   node-setup.sh --node FILE          one node: its results in FILE.d/NODE
#   node-setup.sh --note FILE NOTE N   the note of N nodes' results
#
# NOTE is written whole (tmp + rename), one line; nothing when FILE is empty.
set -uo pipefail

# One node: each command through bash -c, as upstream's setup line runs it,
# with no terminal to prompt on and a time limit, so it cannot hold the job.
node() {
	local file=$1 node=${SLURMD_NODENAME:-$(hostname)} name cmd rc out
	local dir="$file.d" tmp
	mkdir -p "$dir" || return 0
	tmp="$dir/.$node.tmp.$$"
	: >"$tmp" || return 0
	while IFS=$'\t' read -r name cmd; do
		[ -n "$name" ] || continue
		rc=0
		if command -v timeout >/dev/null; then
			out=$(timeout 120 bash -c "$cmd" </dev/null 2>&1) || rc=$?
		else
			out=$(bash -c "$cmd" </dev/null 2>&1) || rc=$?
		fi
		# The last line says why; no tabs or newlines in a record field.
		out=$(printf '%s\n' "$out" | sed '/^[[:space:]]*$/d' | tail -n 1 | tr '\t' ' ' | cut -c1-160)
		printf '%s\t%s\t%s\n' "$name" "$rc" "$out" >>"$tmp"
		echo "llmb: node setup on $node: $name ($cmd): exit $rc${out:+: $out}"
	done <"$file"
	mv -f "$tmp" "$dir/$node"
}

# The note: per command, on how many of the N nodes it was applied, refused
# (with the first refusal's node and message) or left no result.
note() {
	local file=$1 out=$2 n=$3 name cmd line text
	local -a parts=() results
	shopt -s nullglob
	results=("$file.d"/[!.]*)
	while IFS=$'\t' read -r name cmd; do
		[ -n "$name" ] || continue
		line=$(awk -F'\t' -v name="$name" -v n="$n" '
			FNR == 1 { node = FILENAME; sub(/.*\//, "", node) }
			$1 == name { if ($2 == 0) ok++; else { bad++; if (!why) why = node ": exit " $2 ($3 != "" ? ": " $3 : "") } }
			END {
				miss = n - ok - bad
				printf "%s applied on %d of %d nodes", name, ok, n
				if (bad) printf ", refused on %d (%s)", bad, why
				if (miss > 0) printf ", no result from %d", miss
			}' /dev/null ${results[@]+"${results[@]}"})
		parts+=("$line")
	done <"$file"
	[ "${#parts[@]}" -gt 0 ] || return 0
	text=$(printf '%s; ' "${parts[@]}")
	text=${text%; }
	printf '%s\n' "$text" >"$out.tmp.$$" && mv -f "$out.tmp.$$" "$out"
	echo "llmb: node setup: $text"
}

case ${1:-} in
--node) node "$2" ;;
--note) note "$2" "$3" "$4" ;;
*)
	file=$1 out=$2
	[ -s "$file" ] || { echo "llmb: node setup: no host commands"; exit 0; }
	if [ -n "${SLURM_JOB_ID:-}" ]; then
		n=${SLURM_JOB_NUM_NODES:-1}
		srun --nodes="$n" --ntasks="$n" --ntasks-per-node=1 --kill-on-bad-exit=0 bash "$0" --node "$file" ||
			echo "llmb: node setup: the setup step failed (exit $?); the note says which nodes have no result" >&2
	else
		n=1
		node "$file"
	fi
	note "$file" "$out" "$n"
	;;
esac
exit 0
