#!/bin/bash
# llmb job script for stage venv.597beddc2aa1 (venv venv_597beddc2aa1), from templates/venv.m4.
# Generated, do not edit. Secrets are passed by name, never written here.
set -euo pipefail
export LLMB_STAGE='venv.597beddc2aa1'
export LLMB_INSTALL='/llmb-install'
export LLMB_JOB_ID="${SLURM_JOB_ID:-${LLMB_JOB_ID:-unknown}}"
llmb_state='/llmb-install/state/jobs/venv.597beddc2aa1'
llmb_exit_record() {
	local rc=$? tmp
	tmp="$llmb_state/exit.$LLMB_JOB_ID.tmp.$$"
	printf 'status=%s\nend=%s\njob=%s\n' "$rc" "$(date +%s)" "$LLMB_JOB_ID" >"$tmp" &&
		mv -f "$tmp" "$llmb_state/exit.$LLMB_JOB_ID"
}
trap llmb_exit_record EXIT
trap 'echo "llmb: job $LLMB_JOB_ID got SIGTERM" >&2; exit 143' TERM
trap 'echo "llmb: job $LLMB_JOB_ID got SIGINT" >&2; exit 130' INT
printf '%s\n' "$LLMB_JOB_ID" >"$llmb_state/started.TOKEN.tmp.$$"
mv -f "$llmb_state/started.TOKEN.tmp.$$" "$llmb_state/started.TOKEN"
echo "llmb: job $LLMB_JOB_ID stage $LLMB_STAGE on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"



# Always built from scratch: a venv records its own path, so it is built
# where it lives, and it counts as done only through the stamp llmb
# writes after this script succeeded. An interrupted build is rebuilt.
dir='/llmb-install/venvs/venv_597beddc2aa1'
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
'/usr/bin/python3' -m venv --system-site-packages "$dir"
py="$dir/bin/python"
src="$dir/src"
mkdir -p "$src"
llmb_clone() { # key url commit
	local d="$src/$1"
	[ -d "$d/.git" ] || git clone --quiet "$2" "$d"
	git -C "$d" fetch --quiet origin || true
	git -C "$d" checkout --quiet -f "$3"
	local head
	head=$(git -C "$d" rev-parse HEAD)
	[ "$head" = "$3" ] || { echo "llmb: $1 is at $head, pinned $3" >&2; exit 3; }
}
llmb_pip() { "$py" -m pip install --no-cache-dir  "$@"; }
:
"$py" -c 'import sys; print("llmb: venv ready,", sys.version.split()[0])'
